"""Diversity measures for notebook 08: α-nDCG, distinct documents and intra-list similarity.

A query's evidence quotes are its subtopics (a `multi` query's quotes come from several documents). α-nDCG
(Clarke et al., 2008) rewards covering a subtopic again less each time: the gain of the unit at rank k is
Σ over subtopics i it covers of (1 − α)^(times i was covered above rank k), discounted by log2(1 + k) as in
nDCG, and normalised by the same sum for an ideal ranking. Finding the ideal ranking is NP-hard; as in the
paper and in trec_eval's `ndeval`, it is built greedily from the units that cover any subtopic. Left out:
intent-aware measures (ERR-IA, NRBP) and subtopic weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError, check_k

Hits = Sequence[frozenset[int]]


def alpha_dcg(hits: Hits, k: int, alpha: float = 0.5) -> float:
    """α-DCG@k of a ranking's hits (for each unit, best first, the subtopics it covers).

    >>> round(alpha_dcg([frozenset({0}), frozenset({0}), frozenset({1})], k=3), 5)
    1.81546
    """
    check_k(k)
    if not 0 <= alpha <= 1:
        raise RagkitError(f"alpha must be between 0 and 1, got {alpha!r}")
    seen: dict[int, int] = {}
    total = 0.0
    for rank, covered in enumerate(hits[:k], start=1):
        total += sum((1 - alpha) ** seen.get(i, 0) for i in covered) / math.log2(rank + 1)
        for i in covered:
            seen[i] = seen.get(i, 0) + 1
    return total


def ideal_hits(pool: Hits, k: int, alpha: float = 0.5) -> list[frozenset[int]]:
    """The greedy ideal ranking of `pool` (every unit's hits): at each rank the unit with the largest gain
    given the ranks above it; ties go to the earlier unit.

    >>> ideal_hits([frozenset({0}), frozenset({0}), frozenset({1})], k=3)
    [frozenset({0}), frozenset({1}), frozenset({0})]
    """
    remaining, seen, ideal = [set(h) for h in pool if h], {}, []
    for _ in range(min(k, len(remaining))):
        gains = [sum((1 - alpha) ** seen.get(i, 0) for i in covered) for covered in remaining]
        best = remaining.pop(int(np.argmax(gains)))
        ideal.append(frozenset(best))
        for i in best:
            seen[i] = seen.get(i, 0) + 1
    return ideal


def alpha_ndcg_at_k(hits: Hits, pool: Hits, k: int = 10, alpha: float = 0.5) -> float:
    """α-nDCG@k: α-DCG of the ranking over α-DCG of the greedy ideal ranking of `pool`; NaN with no subtopics.

    >>> pool = [frozenset({0}), frozenset({0}), frozenset({1})]
    >>> round(alpha_ndcg_at_k([frozenset({0}), frozenset({0}), frozenset({1})], pool, k=3), 4)
    0.9652
    """
    best = alpha_dcg(ideal_hits(pool, k, alpha), k, alpha)
    return alpha_dcg(hits, k, alpha) / best if best > 0 else math.nan


def distinct_documents(doc_ids: Sequence[str], k: int = 5) -> int:
    """How many different documents the top `k` come from.

    >>> distinct_documents(["a", "a", "b", "c", "a", "d"], k=5)
    3
    """
    check_k(k)
    return len(set(doc_ids[:k]))


def intra_list_similarity(embeddings: np.ndarray) -> float:
    """Mean cosine similarity over all pairs of a list's unit vectors (NaN for fewer than two).

    >>> intra_list_similarity(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])).round(3)
    np.float64(0.333)
    """
    embeddings = np.asarray(embeddings, dtype=float)
    n = len(embeddings)
    if n < 2:
        return math.nan
    similarities = embeddings @ embeddings.T
    return (similarities.sum() - np.trace(similarities)) / (n * (n - 1))
