"""Exact dense search: cosine scores of queries against every chunk, optional metadata filters, the top k.

The course's one exact-search path: the pipeline's dense method, notebook 03's comparison with Chroma and
the filters all use these functions. Rows are unit length, so cosine similarity is a plain dot product.
Top-k uses a partition (linear time) and sorts only the k winners; equal scores keep the lower index first,
even at the cut, so rankings are deterministic. Left out: approximate indexes (`ragkit.index.chroma`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError, check_k
from ragkit.index.filters import filter_mask


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
    scores = np.asarray(scores)
    n = scores.shape[-1]
    check_k(k, at_most=n)
    if scores.ndim == 2:  # one stable sort of every row: equal scores keep the lower index first
        return np.argsort(-scores, axis=1, kind="stable")[:, :k]
    # argpartition finds the k-th highest score in linear time; everything above it is in, and ties at it are
    # taken lowest index first. Only these k winners are sorted.
    kth = np.partition(scores, n - k)[n - k]
    above = np.flatnonzero(scores > kth)
    winners = np.concatenate([above, np.flatnonzero(scores == kth)[: k - len(above)]])
    winners.sort()
    return winners[np.argsort(-scores[winners], kind="stable")]


Results = list[tuple[np.ndarray, np.ndarray]]  # per query: (chunk indices best first, cosine scores)


def exact_search(query_embeddings: np.ndarray, embeddings: np.ndarray, k: int, chunks: Sequence[Chunk] = (),
                 filters: Mapping[str, str] | None = None) -> Results:
    """The exact counterpart of `chroma_search`: cosine against every chunk passing the filters, top `k`.

    >>> exact_search(np.array([[0.6, 0.8]]), np.eye(2), k=1)[0][0].tolist()
    [1]
    """
    scores = np.atleast_2d(cosine_scores(query_embeddings, embeddings))
    check_k(k, at_most=scores.shape[1])
    if filters:
        if len(chunks) != len(embeddings):
            raise RagkitError("filters need the chunks, one per embedding row, to read their metadata")
        mask = filter_mask(chunks, filters)
        scores[:, ~mask] = -np.inf
        k = min(k, int(mask.sum()))
        if k == 0:
            return [(np.zeros(0, dtype=int), np.zeros(0)) for _ in scores]
    best = top_k(scores, k)
    return [(row, row_scores[row]) for row, row_scores in zip(best, scores, strict=True)]
