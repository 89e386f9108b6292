"""Diversity measures for notebook 08: α-nDCG, distinct documents and intra-list similarity.

A query's *parts* (the things it asks; a `multi` query has several) are its subtopics. α-nDCG (Clarke et al.,
2008) rewards answering a part again less each time: the gain of the unit at rank r is the sum, over the parts
it answers, of (1 − α)^n, where n is the number of units ranked above it that already answered that part; it is
discounted by log2(r + 1) as in nDCG, and normalised by the same sum for an ideal ranking. Finding the ideal
ranking is NP-hard; as in the paper and in TREC's `ndeval`, it is built greedily from every unit that answers
a part, and with `ids` its ties go, as in `ndeval`, to the unit with the largest id (notebook 08 checks every
dev query against `ndeval`). Subtopic recall (S-recall@k) is `ragkit.evaluate.metrics.recall_at_k` over
parts. Left out: intent-aware measures (ERR-IA, NRBP), subtopic weights and graded relevance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError, check_k

Hits = Sequence[frozenset[int]]


def alpha_dcg(hits: Hits, k: int, alpha: float = 0.5) -> float:
    """α-DCG@k of a ranking's hits (for each unit, best first, the parts it answers).

    >>> round(alpha_dcg([frozenset({0}), frozenset({0}), frozenset({1})], k=3), 5)
    1.81546
    """
    check_k(k)
    if not 0 <= alpha <= 1:
        raise RagkitError(f"alpha must be between 0 and 1, got {alpha!r}")
    seen: dict[int, int] = {}  # part → how many units above already answered it (the n of (1 − α)^n)
    total = 0.0
    for rank, covered in enumerate(hits[:k], start=1):
        total += sum((1 - alpha) ** seen.get(i, 0) for i in covered) / math.log2(rank + 1)
        for i in covered:
            seen[i] = seen.get(i, 0) + 1
    return total


def ideal_hits(pool: Hits, k: int, alpha: float = 0.5, ids: Sequence[str] | None = None) -> list[frozenset[int]]:
    """The greedy ideal ranking of `pool` (the hits of every unit that could be ranked): at each rank the unit
    with the largest gain given the ranks above it. Ties go to the earlier unit of `pool`, or, given `ids` (one
    per unit), to the unit with the largest id, which is `ndeval`'s rule.

    >>> ideal_hits([frozenset({0}), frozenset({0}), frozenset({1})], k=3)
    [frozenset({0}), frozenset({1}), frozenset({0})]
    >>> ideal_hits([frozenset({0, 1}), frozenset({2, 3})], k=1, ids=["a", "b"])
    [frozenset({2, 3})]
    """
    if ids is not None and len(ids) != len(pool):
        raise RagkitError(f"ideal_hits needs one id per unit: {len(ids)} ids for {len(pool)} units")
    order = range(len(pool)) if ids is None else sorted(range(len(pool)), key=lambda i: ids[i], reverse=True)
    remaining, seen, ideal = [set(pool[i]) for i in order if pool[i]], {}, []
    for _ in range(min(k, len(remaining))):
        gains = [sum((1 - alpha) ** seen.get(i, 0) for i in covered) for covered in remaining]
        best = remaining.pop(int(np.argmax(gains)))  # argmax: the first of equal gains
        ideal.append(frozenset(best))
        for i in best:
            seen[i] = seen.get(i, 0) + 1
    return ideal


def alpha_ndcg_at_k(hits: Hits, pool: Hits, k: int = 10, alpha: float = 0.5,
                    ids: Sequence[str] | None = None) -> float:
    """α-nDCG@k: α-DCG of the ranking over α-DCG of the greedy ideal ranking of `pool` (`ids` as in
    `ideal_hits`); NaN when no unit answers any part.

    >>> pool = [frozenset({0}), frozenset({0}), frozenset({1})]
    >>> round(alpha_ndcg_at_k([frozenset({0}), frozenset({0}), frozenset({1})], pool, k=3), 4)
    0.9652
    """
    best = alpha_dcg(ideal_hits(pool, k, alpha, ids), k, alpha)
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
