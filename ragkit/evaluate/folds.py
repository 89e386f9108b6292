"""Cross-fitting: score every query with a learnt ranker that never saw it, when no separate training split exists.

A collection with one judged split (Cranfield has only `test`) can still measure learning to rank fairly: split
its queries into `k` folds, train on the other folds, rank the held-out fold, and repeat, so each query is
ranked by a model trained without it. `query_folds` assigns folds by sorted query id (every k-th query), so the
split is the same on every run. Left out: stratified or grouped folds, nested tuning of the ranker's settings,
and averaging the k models into one.
"""

from __future__ import annotations

from collections.abc import Sequence

FOLDS = 5


def query_folds(query_ids: Sequence[str], k: int = FOLDS) -> list[int]:
    """The fold of each query: its position among the sorted ids, modulo `k`.

    >>> query_folds(["q3", "q1", "q2", "q4"], k=2)
    [0, 0, 1, 1]
    """
    position = {query_id: i for i, query_id in enumerate(sorted(query_ids))}
    return [position[query_id] % k for query_id in query_ids]


def cross_fitted_rankings(pipe, queries: Sequence, judgments: Sequence, depth: int, k: int = FOLDS) -> list:
    """The top `depth` of every query, each ranked by `pipe` with its learnt ranker trained on the other folds
    (`pipe.train_ranker`, then `pipe.rankings` on the held-out fold). `pipe.ranker` ends as the last fold's.

    >>> class Recorder:  # any object with train_ranker(queries, judgments) and rankings(texts, depth)
    ...     def train_ranker(self, queries, judgments): self.trained = set(queries)
    ...     def rankings(self, texts, depth): return [[t in self.trained] for t in texts]
    >>> cross_fitted_rankings(Recorder(), ["a", "b", "c"], [None] * 3, 10, k=3)
    [[False], [False], [False]]
    """
    folds = query_folds([getattr(query, "query_id", query) for query in queries], k)
    rankings: list = [None] * len(queries)
    for fold in sorted(set(folds)):
        held_out = [i for i, f in enumerate(folds) if f == fold]
        pipe.train_ranker([q for q, f in zip(queries, folds, strict=True) if f != fold],
                          [j for j, f in zip(judgments, folds, strict=True) if f != fold])
        texts = [getattr(queries[i], "text", queries[i]) for i in held_out]
        for i, ranking in zip(held_out, pipe.rankings(texts, depth), strict=True):
            rankings[i] = ranking
    return rankings
