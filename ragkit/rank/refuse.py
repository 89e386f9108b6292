"""The refusal stage: say "no answer" when even the best candidate does not score high enough.

Notebook 03 derives it from the seed's `adaptive_rag` ("if the relevance score is below 0.4, say the
sources do not have it"); the pipeline's `threshold` knob applies it. How well it separates answerable from
unanswerable queries is measured in `ragkit.evaluate.refusal`. Left out: retrying with a rewritten query,
and one threshold per language.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError


def check_threshold(threshold: float, low: float = -1.0, high: float = 1.0) -> float:
    """The threshold as a float, or `RagkitError` unless it is a number in [low, high] (default: the range of
    cosine; BM25 and fusion scores have other ranges).

    >>> check_threshold(0.4)
    0.4
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.floating | np.integer) \
            or not np.isfinite(threshold) or not low <= float(threshold) <= high:
        if (low, high) == (-1.0, 1.0):
            raise RagkitError(f"a cosine threshold must be a number between -1 and 1, got {threshold!r}")
        raise RagkitError(f"a threshold must be a finite number between {low} and {high}, got {threshold!r}")
    return float(threshold)


def refusals(top_scores: Sequence[float], threshold: float, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """True for each query whose best score is below `threshold`: the system says "no answer".

    >>> refusals([0.2, 0.5, 0.4], threshold=0.4).tolist()
    [True, False, False]
    >>> refusals([3.5, 12.0], threshold=8.0, low=0, high=np.inf).tolist()  # BM25 scores
    [True, False]
    """
    return np.asarray(top_scores, dtype=float) < check_threshold(threshold, low, high)
