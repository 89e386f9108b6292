"""Rank fusion: combine rankings by position only (notebook 06).

Reciprocal rank fusion (RRF, Cormack et al. 2009) gives each item sum 1/(rrf_k + rank), ranks from 1 and
rrf_k = 60; Anthropic's contextual-retrieval cookbook gives w/(index + 1) with indices from 0 (that is
w/rank: RRF with rrf_k = 0 and weights 0.8 dense, 0.2 BM25). Lists may be depth-limited (`depth`: only a
retriever's top `depth` count); an item missing from a list gets nothing from it. A sparse score of 0 or
less means no query word matched: such items get no sparse rank. Ties: equal scores rank the lower index
first (one full stable sort). Left out: learned weights and distribution-based fusion.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError, check_k


def check_score_matrix(scores: np.ndarray, name: str = "scores") -> np.ndarray:
    """`scores` as a finite 2-D float array (a 1-D array is one query), or a clear error.

    >>> check_score_matrix([0.5, 0.1]).shape
    (1, 2)
    """
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    if scores.ndim != 2 or scores.shape[1] == 0:
        raise RagkitError(f"{name}: need one row of scores per query and one column per chunk; the corpus is empty")
    if not np.isfinite(scores).all():
        raise RagkitError(f"{name}: scores must be finite numbers (found NaN or infinity)")
    return scores


def check_score_pair(dense_scores: np.ndarray, sparse_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    dense, sparse = check_score_matrix(dense_scores, "dense scores"), check_score_matrix(sparse_scores, "sparse scores")
    if dense.shape != sparse.shape:
        raise RagkitError(f"dense scores {dense.shape} and sparse scores {sparse.shape} must have the same shape")
    return dense, sparse


def ranks_from_scores(scores: np.ndarray, depth: int | None = None, min_score: float | None = None) -> np.ndarray:
    """Rank of every item (1 = best; ties: lower index first), `inf` when the retriever does not return it:
    beyond its top `depth` (all count when None), or a score <= `min_score`.

    >>> ranks_from_scores([[0.2, 0.9, 0.2, 0.0]], min_score=0).tolist()
    [[2.0, 1.0, 3.0, inf]]
    """
    scores = check_score_matrix(scores)
    n = scores.shape[1]
    if depth is not None:
        check_k(depth)
        if depth > n:
            raise RagkitError(f"depth={depth} is larger than the number of chunks ({n}); use at most {n}")
    # every item needs a rank (not only the top k), so one full stable sort: ties rank the lower index first
    order = np.argsort(-scores, axis=1, kind="stable")
    ranks = np.empty(scores.shape)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(1.0, n + 1), scores.shape), axis=1)
    missing = ranks > (n if depth is None else depth)
    if min_score is not None:
        missing |= scores <= min_score
    return np.where(missing, np.inf, ranks)


def retrieved_mask(scores: np.ndarray, depth: int | None = None, min_score: float | None = None) -> np.ndarray:
    """Which items a retriever returns (see `ranks_from_scores`).

    >>> retrieved_mask([[0.0, 3.0, 1.0]], depth=2, min_score=0).tolist()
    [[False, True, True]]
    """
    return np.isfinite(ranks_from_scores(scores, depth, min_score))


def ranks_from_rankings(rankings: Sequence[Sequence[int]], n_items: int) -> np.ndarray:
    """Rank matrix from lists of item indices, best first (lists may be short; missing items get `inf`).

    >>> ranks_from_rankings([[2, 0]], n_items=3).tolist()
    [[2.0, inf, 1.0]]
    """
    check_k(n_items)
    ranks = np.full((len(rankings), n_items), np.inf)
    for row, ranking in enumerate(rankings):
        ranking = np.asarray(ranking, dtype=int).reshape(-1)
        if len(set(ranking.tolist())) != len(ranking):
            raise RagkitError(f"ranking {row} lists an item twice")
        if ranking.size and (ranking.min() < 0 or ranking.max() >= n_items):
            raise RagkitError(f"ranking {row} holds an index outside 0..{n_items - 1}")
        ranks[row, ranking] = np.arange(1, len(ranking) + 1)
    return ranks


def rrf_scores(ranks: Sequence[np.ndarray], rrf_k: float = 60, weights: Sequence[float] | None = None) -> np.ndarray:
    """Reciprocal rank fusion: sum over lists of weight / (rrf_k + rank); ranks start at 1, `inf` adds 0.

    >>> rrf_scores([np.array([[1.0, 2.0]]), np.array([[2.0, np.inf]])], rrf_k=0).tolist()
    [[1.5, 0.5]]
    """
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, int | float | np.number) or not 0 <= rrf_k < np.inf:
        raise RagkitError(f"rrf_k must be a number >= 0 (60 is the usual choice), got {rrf_k!r}")
    if not ranks:
        raise RagkitError("give at least one rank matrix to fuse")
    ranks = [np.atleast_2d(np.asarray(r, dtype=float)) for r in ranks]
    if len({r.shape for r in ranks}) != 1:
        raise RagkitError(f"rank matrices must have the same shape, got {[r.shape for r in ranks]}")
    if any((r < 1).any() or np.isnan(r).any() for r in ranks):
        raise RagkitError("ranks start at 1 (use inf for a missing item)")
    weights = np.asarray(np.ones(len(ranks)) if weights is None else weights, dtype=float).reshape(-1)
    if len(weights) != len(ranks) or not np.isfinite(weights).all() or (weights < 0).any() or weights.sum() == 0:
        raise RagkitError(f"need one weight per list ({len(ranks)}), each >= 0, not all 0; got {weights.tolist()}")
    return sum(weight / (rrf_k + r) for weight, r in zip(weights, ranks, strict=True))


def rrf_fuse(dense_scores: np.ndarray, sparse_scores: np.ndarray, rrf_k: float = 60, depth: int | None = None,
             weights: Sequence[float] = (1.0, 1.0)) -> np.ndarray:
    """RRF of a dense and a sparse retriever, from their score matrices (sparse scores <= 0 are not retrieved).

    >>> rrf_fuse([[0.9, 0.5, 0.1]], [[0.0, 2.0, 1.0]], rrf_k=0).tolist()
    [[1.0, 1.5, 0.8333333333333333]]
    """
    dense, sparse = check_score_pair(dense_scores, sparse_scores)
    return rrf_scores([ranks_from_scores(dense, depth), ranks_from_scores(sparse, depth, min_score=0)],
                      rrf_k, weights)


def weighted_rank_fuse(dense_scores: np.ndarray, sparse_scores: np.ndarray, weights: Sequence[float] = (0.8, 0.2),
                       depth: int | None = None) -> np.ndarray:
    """Anthropic's cookbook blend: w_dense/(index + 1) + w_sparse/(index + 1), indices from 0 (cookbook depth 150).

    >>> weighted_rank_fuse([[0.9, 0.5, 0.1]], [[0.0, 2.0, 1.0]]).round(3).tolist()
    [[0.8, 0.6, 0.367]]
    """
    return rrf_fuse(dense_scores, sparse_scores, rrf_k=0, depth=depth, weights=weights)
