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


def check_k(k: int, at_most: int | None = None, of: str = "chunks") -> None:
    """Raise `RagkitError` unless `k` is a positive integer, and at most `at_most` (the number of `of`) if given.

    >>> check_k(5, at_most=10)
    >>> check_k(5, at_most=3, of="documents")
    Traceback (most recent call last):
    ragkit.errors.RagkitError: k=5 is larger than the number of documents (3); ask for at most 3
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise RagkitError(f"k must be a positive integer, got {k!r}")
    if at_most is not None and k > at_most:
        raise RagkitError(f"k={k} is larger than the number of {of} ({at_most}); ask for at most {at_most}")


def check_query(query: str) -> str:
    """The query, or a clear error when it is not a string or has no words.

    >>> check_query("  revoke a token ")
    'revoke a token'
    """
    if not isinstance(query, str) or not query.strip():
        raise RagkitError(f"the query is empty: type a question or keywords (got {query!r})")
    return query.strip()
