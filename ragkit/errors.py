"""The one exception type ragkit raises for bad input.

Every message says what was wrong and, where it helps, what to do instead, so a learner never has to read a
traceback from deep inside numpy, Chroma or sentence-transformers. Left out: error codes and hierarchies.
"""


class RagkitError(ValueError):
    """Bad input or a missing resource, explained in plain words.

    >>> raise RagkitError("k must be at least 1, got 0")
    Traceback (most recent call last):
    ...
    ragkit.errors.RagkitError: k must be at least 1, got 0
    """
