"""Score fusion: rescale each retriever's scores per query, then mix them (notebook 06).

min-max to [0, 1] or z-score, then alpha × dense + (1 − alpha) × sparse, so alpha = 1 is pure dense.
With a `depth`, only a retriever's top `depth` are rescaled; the others get that list's lowest rescaled
score. Left out: fusing more than two score lists, and learned or per-query weights.
"""

from __future__ import annotations

import numpy as np

from ragkit.errors import RagkitError
from ragkit.rank.rank_fusion import check_score_matrix, check_score_pair, retrieved_mask


def minmax_normalize(scores: np.ndarray, retrieved: np.ndarray | None = None) -> np.ndarray:
    """Per query, (s − min) / (max − min) over the retrieved items; the others, and a constant row, get 0.

    >>> minmax_normalize([[2.0, 4.0, 3.0]]).tolist()
    [[0.0, 1.0, 0.5]]
    """
    scores = check_score_matrix(scores)
    retrieved = np.ones(scores.shape, dtype=bool) if retrieved is None else np.asarray(retrieved, dtype=bool)
    low = np.where(retrieved, scores, np.inf).min(axis=1, keepdims=True)
    high = np.where(retrieved, scores, -np.inf).max(axis=1, keepdims=True)
    spread = np.where(high > low, high - low, 1.0)
    return np.where(retrieved & (high > low), (scores - np.where(np.isfinite(low), low, 0)) / spread, 0.0)


def zscore_normalize(scores: np.ndarray, retrieved: np.ndarray | None = None) -> np.ndarray:
    """Per query, (s − mean) / std over the retrieved items (population std); the others get the lowest z
    (a constant row gets 0).

    >>> zscore_normalize([[1.0, 2.0, 3.0]]).round(4).tolist()
    [[-1.2247, 0.0, 1.2247]]
    """
    scores = check_score_matrix(scores)
    retrieved = np.ones(scores.shape, dtype=bool) if retrieved is None else np.asarray(retrieved, dtype=bool)
    count = retrieved.sum(axis=1, keepdims=True)
    mean = np.where(retrieved, scores, 0).sum(axis=1, keepdims=True) / np.maximum(count, 1)
    std = np.sqrt(np.where(retrieved, (scores - mean) ** 2, 0).sum(axis=1, keepdims=True) / np.maximum(count, 1))
    z = np.where(retrieved & (std > 0), (scores - mean) / np.where(std > 0, std, 1.0), 0.0)
    lowest = np.where(retrieved, z, np.inf).min(axis=1, keepdims=True)
    return np.where(retrieved, z, np.where(np.isfinite(lowest), lowest, 0.0))


def _score_fuse(dense_scores: np.ndarray, sparse_scores: np.ndarray, alpha: float, normalize: str,
                depth: int | None) -> np.ndarray:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.number) or not 0 <= alpha <= 1:
        raise RagkitError(f"alpha must be between 0 (pure sparse) and 1 (pure dense), got {alpha!r}")
    rescale = {"minmax": minmax_normalize, "zscore": zscore_normalize}.get(normalize)
    if rescale is None:
        raise RagkitError(f"normalize must be 'minmax' or 'zscore', got {normalize!r}")
    dense, sparse = check_score_pair(dense_scores, sparse_scores)
    if depth is None:  # every item is retrieved: no need to sort
        return alpha * rescale(dense) + (1 - alpha) * rescale(sparse)
    return (alpha * rescale(dense, retrieved_mask(dense, depth))
            + (1 - alpha) * rescale(sparse, retrieved_mask(sparse, depth)))


def minmax_fuse(dense_scores: np.ndarray, sparse_scores: np.ndarray, alpha: float = 0.5,
                depth: int | None = None) -> np.ndarray:
    """alpha × min-max(dense) + (1 − alpha) × min-max(sparse); alpha = 1 is pure dense.

    >>> minmax_fuse([[0.9, 0.5, 0.1]], [[0.0, 2.0, 1.0]], alpha=0.5).round(3).tolist()
    [[0.5, 0.75, 0.25]]
    """
    return _score_fuse(dense_scores, sparse_scores, alpha, "minmax", depth)


def zscore_fuse(dense_scores: np.ndarray, sparse_scores: np.ndarray, alpha: float = 0.5,
                depth: int | None = None) -> np.ndarray:
    """alpha × z-score(dense) + (1 − alpha) × z-score(sparse); alpha = 1 is pure dense.

    >>> zscore_fuse([[1.0, 2.0, 3.0]], [[0.0, 0.0, 6.0]], alpha=0.5).round(4).tolist()
    [[-0.9659, -0.3536, 1.3195]]
    """
    return _score_fuse(dense_scores, sparse_scores, alpha, "zscore", depth)
