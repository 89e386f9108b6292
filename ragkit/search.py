"""Exact dense search: cosine scores of queries against chunk embeddings, then the top k.

Rows of both matrices are unit length, so cosine similarity is a plain dot product. Top-k uses
`argpartition` (linear time) and sorts only the k winners; among the winners, equal scores keep the lower
index first, so rankings are deterministic. Left out: approximate indexes (Chroma's HNSW, notebook 03) and metadata filters.
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
    """Indices of the `k` highest scores, best first (for a 2-D array, per row).

    >>> top_k(np.array([0.1, 0.9, 0.5, 0.9]), 3)
    array([1, 3, 2])
    """
    check_k(k)
    scores = np.asarray(scores)
    n = scores.shape[-1]
    if k > n:
        raise RagkitError(f"k={k} is larger than the number of chunks ({n}); ask for at most {n}")
    if scores.ndim == 1:
        return top_k(scores[None, :], k)[0]
    # argpartition puts the k best first in any order; a stable sort on (-score, index) orders them.
    candidates = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < n else np.tile(np.arange(n), (len(scores), 1))
    candidates = np.sort(candidates, axis=1)
    order = np.argsort(-np.take_along_axis(scores, candidates, axis=1), axis=1, kind="stable")
    return np.take_along_axis(candidates, order, axis=1)
