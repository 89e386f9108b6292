"""The one exception type ragkit raises for bad input.

Every message says what was wrong and, where it helps, what to do instead, so a learner never has to read a
traceback from deep inside numpy, Chroma or sentence-transformers. Left out: error codes and hierarchies.
"""

from __future__ import annotations

import numpy as np


class RagkitError(ValueError):
    """Bad input or a missing resource, explained in plain words.

    >>> raise RagkitError("k must be at least 1, got 0")
    Traceback (most recent call last):
    ...
    ragkit.errors.RagkitError: k must be at least 1, got 0
    """


def check_k(k: int) -> None:
    """Raise `RagkitError` unless `k` is a positive integer.

    >>> check_k(5)
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise RagkitError(f"k must be a positive integer, got {k!r}")


def check_query(query: str) -> str:
    """The query, or a clear error when it is not a string or has no words.

    >>> check_query("  revoke a token ")
    'revoke a token'
    """
    if not isinstance(query, str) or not query.strip():
        raise RagkitError(f"the query is empty: type a question or keywords (got {query!r})")
    return query.strip()
