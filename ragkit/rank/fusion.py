"""Fusion by name: the four ways notebook 06 combines a dense and a sparse score matrix.

`rrf` is reciprocal rank fusion, 1/(rrf_k + rank) summed; `weighted` is the cookbook blend alpha/rank_dense
+ (1 − alpha)/rank_sparse; `minmax` and `zscore` rescale each retriever's scores per query and mix them as
alpha × dense + (1 − alpha) × sparse. `depth` limits each list to its top `depth`. The formulas live in
`ragkit.rank.rank_fusion` and `ragkit.rank.score_fusion`. Left out: more than two retrievers.
"""

from __future__ import annotations

import numpy as np

from ragkit.errors import RagkitError
from ragkit.rank.rank_fusion import check_score_pair, ranks_from_scores, rrf_scores
from ragkit.rank.score_fusion import minmax_fuse, zscore_fuse

FUSIONS = ("rrf", "weighted", "minmax", "zscore")
RANK_FUSIONS = ("rrf", "weighted")  # these read only positions: `fuse_ranks` can start from cached ranks


def fuse_ranks(dense_ranks: np.ndarray, sparse_ranks: np.ndarray, fusion: str = "rrf", rrf_k: float = 60,
               alpha: float = 0.5) -> np.ndarray:
    """A rank fusion (`rrf` or `weighted`) from rank matrices (`ragkit.rank.rank_fusion.ranks_from_scores`).

    >>> fuse_ranks(np.array([[1.0, 2.0]]), np.array([[2.0, np.inf]]), "weighted", alpha=0.8).round(3).tolist()
    [[0.9, 0.4]]
    """
    if fusion == "rrf":
        return rrf_scores([dense_ranks, sparse_ranks], rrf_k)
    if fusion != "weighted":
        raise RagkitError(f"{fusion!r} is not a rank fusion; choose one of {', '.join(RANK_FUSIONS)}")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.number) or not 0 <= alpha <= 1:
        raise RagkitError(f"alpha must be between 0 (pure sparse) and 1 (pure dense), got {alpha!r}")
    return rrf_scores([dense_ranks, sparse_ranks], 0, weights=(alpha, 1 - alpha))


def fuse(dense_scores: np.ndarray, sparse_scores: np.ndarray, fusion: str = "rrf", rrf_k: float = 60,
         alpha: float = 0.5, depth: int | None = None) -> np.ndarray:
    """Fused scores (queries × chunks) of one of `FUSIONS`; higher is better.

    >>> fuse([[0.9, 0.5, 0.1]], [[0.0, 2.0, 1.0]], "rrf", rrf_k=0).tolist()
    [[1.0, 1.5, 0.8333333333333333]]
    >>> fuse([[0.9, 0.5, 0.1]], [[0.0, 2.0, 1.0]], "weighted", alpha=0.8).round(3).tolist()
    [[0.8, 0.6, 0.367]]
    >>> fuse([[0.9, 0.5, 0.1]], [[0.0, 2.0, 1.0]], "minmax", alpha=0.5).round(3).tolist()
    [[0.5, 0.75, 0.25]]
    """
    if fusion in RANK_FUSIONS:
        dense, sparse = check_score_pair(dense_scores, sparse_scores)
        return fuse_ranks(ranks_from_scores(dense, depth), ranks_from_scores(sparse, depth, min_score=0), fusion,
                          rrf_k, alpha)
    if fusion == "minmax":
        return minmax_fuse(dense_scores, sparse_scores, alpha, depth)
    if fusion == "zscore":
        return zscore_fuse(dense_scores, sparse_scores, alpha, depth)
    raise RagkitError(f"unknown fusion {fusion!r}; choose one of {', '.join(FUSIONS)}")
