"""Evaluate a pipeline on labelled queries: one row per query, kept among the pipeline's recent results.

`evaluate_pipeline` is what `Pipeline.evaluate` runs: it scores and ranks the queries with the pipeline's
current config, judges the rankings from the evidence spans (`ragkit.evaluate.tables.per_query_metrics`), and
adds each query's best score (the reranker's when reranking) and whether it was refused. Evaluations are cached by exactly the knobs that
decide the rankings, so a widget that shows several variants re-evaluates only the ones whose knobs moved.
Left out: evaluating several pipelines side by side (notebook 10 builds its leaderboard from these rows).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ragkit.corpus import Query
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import DEFAULT_METRICS, parse_metric, per_query_metrics


def evaluate_pipeline(pipe, queries: Sequence[Query], metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
    """One row per query: its metrics, its best score (`top_score`) and whether it was refused (`refused`).

    >>> evaluate_pipeline(pipe, dev, ["recall@5"]).columns.tolist()  # doctest: +SKIP
    ['query_id', 'type', 'split', 'answerable', 'recall@5', 'top_score', 'refused']
    """
    depth = max(parse_metric(metric)[1] for metric in metrics)
    if not queries:
        raise RagkitError("no queries to evaluate")
    labels, judgments = tuple(map(id, queries)), cached_judgments(pipe, queries)

    def table() -> pd.DataFrame:
        found = pipe.retrieve([query.text for query in queries], depth)
        rows = per_query_metrics(pipe.rank_chunks(found.indices), judgments, metrics)
        return rows.assign(top_score=found.top_scores, refused=found.refused)

    key = (pipe.ranking_key(), labels, tuple(metrics))
    return pipe.cache.recent(("evaluate", key), table)


def cached_judgments(pipe, queries: Sequence[Query]) -> list:
    """The queries' judgments (`judgments_from_queries`), built once per list of queries and kept in the
    pipeline's cache: with thousands of passages judged not relevant, building them takes longer than a
    slider move may.

    >>> cached_judgments(pipe, dev) is cached_judgments(pipe, dev)  # doctest: +SKIP
    True
    """
    # queries are frozen: their identities name them. The cache keeps them alive, so no id is reused.
    labels = tuple(map(id, queries))
    return pipe.cache.stage(("judgments", labels),
                            lambda: (tuple(queries), judgments_from_queries(queries, pipe.docs)))[1]
