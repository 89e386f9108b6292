"""Exact dense search: cosine scores of queries against chunk embeddings, then the top k.

Rows of both matrices are unit length, so cosine similarity is a plain dot product. Top-k uses
a partition (linear time) and sorts only the k winners; equal scores keep the lower index first, even at the
cut, so rankings are deterministic. Left out: approximate indexes (Chroma's HNSW, notebook 03) and metadata filters.
"""

from __future__ import annotations

import numpy as np

from ragkit.errors import RagkitError
from ragkit.metrics import check_k


def cosine_scores(query_embeddings: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    """Cosine similarity of every query (rows) with every chunk (columns), for unit-length rows.

    >>> cosine_scores(np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.6, 0.8]]))
    array([[1. , 0.6]])
    """
    query_embeddings = np.atleast_2d(query_embeddings)
    if embeddings.ndim != 2 or embeddings.shape[0] == 0:
        raise RagkitError("there are no chunk embeddings to search: the corpus is empty")
    if query_embeddings.shape[1] != embeddings.shape[1]:
        raise RagkitError(
            f"query vectors have {query_embeddings.shape[1]} dimensions but chunk vectors have "
            f"{embeddings.shape[1]}: were they made by the same model?"
        )
    return query_embeddings @ embeddings.T


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the `k` highest scores, best first (for a 2-D array, per row); equal scores, even at the
    cut, keep the lower index first.

    >>> top_k(np.array([0.1, 0.9, 0.5, 0.9]), 3)
    array([1, 3, 2])
    >>> top_k(np.array([0.5, 0.9, 0.5, 0.5]), 2)
    array([1, 0])
    """
    check_k(k)
    scores = np.asarray(scores)
    n = scores.shape[-1]
    if k > n:
        raise RagkitError(f"k={k} is larger than the number of chunks ({n}); ask for at most {n}")
    if scores.ndim == 2:
        return np.stack([top_k(row, k) for row in scores]) if len(scores) else np.zeros((0, k), dtype=int)
    # argpartition finds the k-th highest score in linear time; everything above it is in, and ties at it are
    # taken lowest index first. Only these k winners are sorted.
    kth = np.partition(scores, n - k)[n - k]
    above = np.flatnonzero(scores > kth)
    winners = np.concatenate([above, np.flatnonzero(scores == kth)[: k - len(above)]])
    winners.sort()
    return winners[np.argsort(-scores[winners], kind="stable")]
