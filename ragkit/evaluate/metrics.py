"""Retrieval metrics over "hits": for each retrieved unit, best first, the set of targets it covers.

Working on hits instead of document ids lets the same formulas serve the course data (many chunks may cover
one quote; each quote counts once, the first time it is covered) and BEIR-style data (each document covers
only itself, which gives the textbook definitions that trec_eval computes). Left out: metrics that need
graded relevance beyond a gain per target (ERR, RBP), and answer-level metrics.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError, check_k

Hits = Sequence[frozenset[int]]


def recall_at_k(hits: Hits, n_targets: int, k: int) -> float:
    """Share of the query's targets covered by the top `k` units.

    >>> recall_at_k([frozenset(), frozenset({0}), frozenset({1})], n_targets=2, k=2)
    0.5
    """
    check_k(k)
    if n_targets == 0:
        return math.nan
    covered = set().union(*hits[:k]) if hits[:k] else set()
    return len(covered) / n_targets


def failure_at_k(hits: Hits, n_targets: int, k: int) -> float:
    """1 − recall@k: the share of evidence the top `k` misses (Anthropic's "retrieval failure rate").

    >>> failure_at_k([frozenset({0})], n_targets=4, k=1)
    0.75
    """
    return 1.0 - recall_at_k(hits, n_targets, k)


def precision_at_k(hits: Hits, k: int) -> float:
    """Share of the top `k` positions holding a relevant unit (a short ranking still divides by `k`).

    >>> precision_at_k([frozenset({0}), frozenset(), frozenset({0})], k=4)
    0.5
    """
    check_k(k)
    return sum(1 for hit in hits[:k] if hit) / k


def reciprocal_rank(hits: Hits, k: int) -> float:
    """1 / rank of the first relevant unit within the top `k`, else 0 (averaged over queries: MRR@k).

    >>> reciprocal_rank([frozenset(), frozenset(), frozenset({0})], k=10)
    0.3333333333333333
    """
    check_k(k)
    for rank, hit in enumerate(hits[:k], start=1):
        if hit:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(hits: Hits, gains: Sequence[float], k: int) -> float:
    """Normalised discounted cumulative gain with linear gains and a log2(rank + 1) discount (as trec_eval).

    A target's gain counts once, at the first unit that covers it; the ideal ranking puts the targets in
    order of gain, one per position.

    >>> round(ndcg_at_k([frozenset(), frozenset({0})], gains=[1.0], k=10), 4)
    0.6309
    """
    check_k(k)
    if not gains or max(gains) <= 0:
        return math.nan
    seen: set[int] = set()
    dcg = 0.0
    for rank, hit in enumerate(hits[:k], start=1):
        new = hit - seen
        dcg += sum(gains[i] for i in new) / math.log2(rank + 1)
        seen |= new
    ideal = sorted((g for g in gains if g > 0), reverse=True)[:k]
    idcg = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal, start=1))
    return dcg / idcg


def paired_bootstrap(a: Sequence[float], b: Sequence[float], n_resamples: int = 10_000, level: float = 0.95,
                     seed: int = 0) -> tuple[float, float, float]:
    """Mean of b − a over queries, with a percentile bootstrap confidence interval (queries resampled in pairs).

    >>> diff, low, high = paired_bootstrap([0, 0, 1, 0], [1, 0, 1, 1])
    >>> round(diff, 2), low <= diff <= high
    (0.5, True)
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise RagkitError(f"paired bootstrap needs two equal-length, non-empty score lists, got {a.shape} and {b.shape}")
    if not 0 < level < 1:
        raise RagkitError(f"confidence level must be between 0 and 1, got {level}")
    diffs = b - a
    rng = np.random.default_rng(seed)
    samples = diffs[rng.integers(0, len(diffs), size=(n_resamples, len(diffs)))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(diffs.mean()), float(low), float(high)


def refusal_scores(refused: Sequence[bool], answerable: Sequence[bool]) -> dict[str, float]:
    """How well "refuse when nothing is relevant enough" separates unanswerable from answerable queries.

    precision: share of refusals that were right; recall: share of unanswerable queries refused;
    accuracy: share of all queries handled right (refused iff unanswerable).

    >>> refusal_scores([True, True, False, False], [False, True, True, False])
    {'precision': 0.5, 'recall': 0.5, 'accuracy': 0.5}
    """
    refused, answerable = np.asarray(refused, dtype=bool), np.asarray(answerable, dtype=bool)
    if refused.shape != answerable.shape:
        raise RagkitError("refused and answerable must have one entry per query")
    right_refusals = np.sum(refused & ~answerable)
    return {
        "precision": float(right_refusals / refused.sum()) if refused.any() else math.nan,
        "recall": float(right_refusals / (~answerable).sum()) if (~answerable).any() else math.nan,
        "accuracy": float(np.mean(refused == ~answerable)) if len(refused) else math.nan,
    }
