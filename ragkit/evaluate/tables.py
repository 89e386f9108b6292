"""Score rankings against judgments: one row per query, then means per split, per type or overall.

Metrics are named `name@k` with name one of recall, failure, precision, mrr, ndcg (see `ragkit.evaluate.metrics`)
and judged (the share of the top k that was judged: how far the other numbers can be trusted).
Unanswerable queries have no evidence: their ranking metrics are NaN and the means skip them; how a system
handles them is measured by refusal (`ragkit.evaluate.metrics.refusal_scores`). Left out: answer-level checks and
significance tests (the paired bootstrap is in `ragkit.evaluate.metrics`, the randomisation test and the
corrections for multiple comparisons in `ragkit.evaluate.significance`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError, check_k
from ragkit.evaluate.metrics import (
    Hits,
    failure_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)
from ragkit.evaluate.relevance import Judgment, judged_units, ranking_hits

DEFAULT_METRICS = ("ndcg@10", "recall@5", "recall@10", "recall@100", "mrr@10", "failure@20")


METRIC_NAMES = ("recall", "failure", "precision", "mrr", "ndcg", "judged")


def parse_metric(metric: str) -> tuple[str, int]:
    """Split "recall@5" into ("recall", 5), with a clear error for anything else.

    >>> parse_metric("ndcg@10")
    ('ndcg', 10)
    """
    name, _, cutoff = metric.partition("@")
    if name not in METRIC_NAMES or not cutoff.isdigit():
        raise RagkitError(f"unknown metric {metric!r}: use name@k with name one of {', '.join(METRIC_NAMES)}")
    check_k(int(cutoff))
    return name, int(cutoff)


def metric_value(metric: str, ranking: Sequence[Chunk], judgment: Judgment, hits: Hits | None = None) -> float:
    """One metric for one query (`hits`, when given, are the ranking's `ranking_hits`, computed once for
    several metrics).

    >>> from ragkit.evaluate.relevance import Target
    >>> j = Judgment("q", "keyword", "dev", (Target("d", 0, 5),))
    >>> metric_value("mrr@10", [Chunk("e#0", "e", 0, 9, ""), Chunk("d#0", "d", 0, 9, "")], j)
    0.5
    """
    name, k = parse_metric(metric)
    hits = ranking_hits(ranking[:k], judgment) if hits is None else hits[:k]
    n_targets = len(judgment.part_gains())  # recall counts the parts of the query, not the quotes
    if name == "judged":
        return judgment_coverage(ranking[:k], judgment, k)
    if name == "recall":
        return recall_at_k(hits, n_targets, k)
    if name == "failure":
        return failure_at_k(hits, n_targets, k)
    if not judgment.answerable:
        return float("nan")
    if name == "precision":
        return precision_at_k(hits, k)
    if name == "mrr":
        return reciprocal_rank(hits, k)
    return ndcg_at_k(hits, judgment.part_gains(), k)


def judgment_coverage(ranking: Sequence[Chunk], judgment: Judgment, k: int) -> float:
    """judged@k: the share of the top `k` units that were judged (relevant or not); NaN for an empty ranking.
    Low coverage means unjudged units were counted as misses, so the other metrics are lower bounds.

    >>> from ragkit.evaluate.relevance import Target
    >>> j = Judgment("q", "keyword", "dev", (Target("d", 0, 5),), not_relevant=(Target("e", 0, 9),))
    >>> judgment_coverage([Chunk("d#0", "d", 0, 9, ""), Chunk("e#0", "e", 0, 9, ""), Chunk("f#0", "f", 0, 9, "")], j, 10)
    0.6666666666666666
    """
    if not judgment.answerable:
        return float("nan")
    flags = judged_units(ranking[:k], judgment)
    return sum(flags) / len(flags) if flags else float("nan")


def per_query_metrics(rankings: Sequence[Sequence[Chunk]], judgments: Sequence[Judgment],
                      metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
    """A table with one row per query: id, type, split, answerable, then one column per metric.

    >>> from ragkit.evaluate.relevance import Target
    >>> j = Judgment("q", "keyword", "dev", (Target("d", 0, 5),))
    >>> per_query_metrics([[Chunk("d#0", "d", 0, 9, "")]], [j], ["recall@1"])["recall@1"].tolist()
    [1.0]
    """
    if len(rankings) != len(judgments):
        raise RagkitError(f"got {len(rankings)} rankings for {len(judgments)} queries; need one per query")
    depth = max((parse_metric(metric)[1] for metric in metrics), default=0)
    columns: dict[str, list] = {"query_id": [], "type": [], "lang": [], "split": [], "answerable": []}
    columns.update({metric: [] for metric in metrics})
    for ranking, judgment in zip(rankings, judgments, strict=True):
        hits = ranking_hits(ranking[:depth], judgment)  # once per query, whatever the number of metrics
        for name, value in (("query_id", judgment.query_id), ("type", judgment.type), ("lang", judgment.lang),
                            ("split", judgment.split), ("answerable", judgment.answerable)):
            columns[name].append(value)
        for metric in metrics:
            columns[metric].append(metric_value(metric, ranking, judgment, hits))
    return pd.DataFrame(columns)


def summarize(table: pd.DataFrame, by: str | None = None, decimals: int | None = 3) -> pd.DataFrame:
    """Means of every metric column over the answerable queries, overall or per `by` ("type", "split").

    >>> t = pd.DataFrame({"query_id": ["a", "b"], "type": ["keyword", "context"], "split": ["dev", "dev"],
    ...                   "answerable": [True, True], "recall@5": [1.0, 0.0]})
    >>> summarize(t)["recall@5"].tolist()
    [0.5]
    """
    metrics = [column for column in table.columns if "@" in column]
    answerable = table[table["answerable"]]
    if answerable.empty:
        raise RagkitError("no answerable queries to summarize")
    if by is None:
        summary = answerable[metrics].mean().to_frame("all").T
        summary.insert(0, "queries", len(answerable))
    else:
        grouped = answerable.groupby(by)
        summary = grouped[metrics].mean()
        summary.insert(0, "queries", grouped.size())
    return summary.round(decimals) if decimals is not None else summary


def language_summary(table: pd.DataFrame, decimals: int | None = 3) -> pd.DataFrame:
    """Means per language, then over all queries: rows `en`, `zh`, ..., `all` (the course's verdicts name the
    slice they hold for, because the English embedding model cannot read the Chinese third of the queries).

    >>> t = pd.DataFrame({"query_id": ["a", "b", "c"], "type": ["keyword"] * 3, "lang": ["en", "en", "zh"],
    ...                   "split": ["dev"] * 3, "answerable": [True] * 3, "recall@5": [1.0, 0.5, 0.0]})
    >>> language_summary(t)["recall@5"].to_dict()
    {'en': 0.75, 'zh': 0.0, 'all': 0.5}
    """
    return pd.concat([summarize(table, by="lang", decimals=decimals), summarize(table, decimals=decimals)])
