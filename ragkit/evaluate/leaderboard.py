"""Compare many configurations on one set of queries: every mean and every paired difference with a bootstrap
interval, and seed 001's diagnosis (recall@5, "health", against recall@50, "ceiling").

Notebook 10 builds the course's leaderboard with these. `bootstrap_means` resamples the queries once and reuses
the same resamples for every column, so all intervals are paired: with the same seed its resamples are those of
`ragkit.evaluate.metrics.paired_bootstrap`, and a difference's interval equals what that function gives.
`leaderboard` gives each method's mean per language slice with its interval and, against a baseline, the paired
difference with its interval and a verdict (for failure@k lower is better). `diagnose` splits what a
configuration misses per query class into what it ranks too low (found by the ceiling's depth) and what it
never retrieves. Left out: corrections for multiple comparisons (the randomisation test and Holm's and
Benjamini–Hochberg's corrections are in `ragkit.evaluate.significance`), other intervals (BCa, t), and
answer-level ("generation health") measures, which need generated answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ragkit.errors import RagkitError
from ragkit.evaluate.tables import parse_metric

LOWER_IS_BETTER = ("failure",)  # metric names whose smaller values are better


def bootstrap_means(values, n_resamples: int = 10_000, level: float = 0.95,
                    seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column means of `values` (one row per query) with percentile bootstrap intervals; each resample draws
    the same queries for every column.

    >>> means, low, high = bootstrap_means([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
    >>> means.tolist(), bool((low <= means).all() and (means <= high).all())
    ([0.75, 0.25], True)
    """
    values = np.asarray(values, dtype=float)
    values = values[:, None] if values.ndim == 1 else values
    if values.ndim != 2 or len(values) == 0 or not np.isfinite(values).all():
        raise RagkitError(f"bootstrap needs a non-empty table of finite values (queries × columns), got shape "
                          f"{values.shape}{'' if np.isfinite(values).all() else ' with NaN or inf'}")
    if not 0 < level < 1 or isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise RagkitError(f"need 0 < level < 1 and a positive number of resamples, got {level} and {n_resamples}")
    n = len(values)
    picks = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))  # as paired_bootstrap draws them
    counts = np.bincount((picks + n * np.arange(n_resamples)[:, None]).ravel(), minlength=n_resamples * n)
    samples = counts.reshape(n_resamples, n) @ values / n  # each resample's mean of every column
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    return values.mean(axis=0), low, high


def verdict(metric: str, low: float, high: float) -> str:
    """"better", "worse" or "no clear difference" for an interval of (method − baseline) on `metric`.

    >>> verdict("recall@5", 0.01, 0.2), verdict("failure@20", 0.01, 0.2), verdict("ndcg@10", -0.1, 0.1)
    ('better', 'worse', 'no clear difference')
    """
    sign = -1 if parse_metric(metric)[0] in LOWER_IS_BETTER else 1
    if low <= 0 <= high:
        return "no clear difference"
    return "better" if sign * low > 0 else "worse"


def leaderboard(tables: Mapping[str, pd.DataFrame], metrics: Sequence[str], baseline: str | None = None,
                by: str = "lang", n_resamples: int = 10_000, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """One row per (method, slice, metric): the mean over the answerable queries with its interval, and with a
    `baseline` the paired difference method − baseline, its interval and verdict. Slices: each value of `by`
    (sorted), then "all". Every table must hold the same queries in the same order (`Pipeline.evaluate` rows).

    >>> t = pd.DataFrame({"query_id": ["a", "b", "c"], "lang": ["en", "en", "zh"], "answerable": [True] * 3,
    ...                   "recall@5": [1.0, 0.0, 1.0]})
    >>> board = leaderboard({"x": t, "y": t.assign(**{"recall@5": 1.0})}, ["recall@5"], baseline="x")
    >>> board.loc[("y", "all", "recall@5"), ["mean", "difference"]].round(3).tolist()
    [1.0, 0.333]
    """
    if not tables or not metrics:
        raise RagkitError("a leaderboard needs at least one table of per-query metrics and one metric")
    if baseline is not None and baseline not in tables:
        raise RagkitError(f"baseline {baseline!r} is not one of the methods: {', '.join(tables)}")
    first = next(iter(tables.values()))
    for name, table in tables.items():
        missing = [column for column in ["query_id", by, "answerable", *metrics] if column not in table.columns]
        if missing:
            raise RagkitError(f"table {name!r} lacks the columns {missing}")
        if not table["query_id"].reset_index(drop=True).equals(first["query_id"].reset_index(drop=True)):
            raise RagkitError(f"table {name!r} holds other queries (or another order) than the first table")
    answerable = first["answerable"].to_numpy(dtype=bool)
    if not answerable.any():
        raise RagkitError("no answerable queries to compare")
    names, groups = list(tables), first[by].to_numpy()[answerable]
    stacked = np.stack([np.column_stack([tables[name][metric].to_numpy(dtype=float)[answerable] for metric in metrics])
                        for name in names])  # methods × queries × metrics
    rows = []
    for slice_ in [*sorted(set(groups)), "all"]:
        mask = np.ones(len(groups), bool) if slice_ == "all" else groups == slice_
        values = stacked[:, mask].transpose(1, 0, 2).reshape(int(mask.sum()), -1)  # queries × (method, metric)
        means, low, high = bootstrap_means(values, n_resamples, level, seed)
        if baseline is not None:
            base = np.tile(stacked[names.index(baseline)][mask], len(names))
            difference, diff_low, diff_high = bootstrap_means(values - base, n_resamples, level, seed)
        for column, (name, metric) in enumerate((name, metric) for name in names for metric in metrics):
            row = {"method": name, "slice": slice_, "metric": metric, "queries": int(mask.sum()),
                   "mean": means[column], "low": low[column], "high": high[column]}
            if baseline is not None:
                row |= {"difference": difference[column], "difference low": diff_low[column],
                        "difference high": diff_high[column],
                        "verdict": verdict(metric, diff_low[column], diff_high[column])}
            rows.append(row)
    return pd.DataFrame(rows).set_index(["method", "slice", "metric"])


def diagnose(table: pd.DataFrame, health: str = "recall@5", ceiling: str = "recall@50", by: str = "type",
             target: float = 0.9) -> pd.DataFrame:
    """Seed 001's diagnosis per value of `by` and over all answerable queries: `health` (what the top few hold),
    `ceiling` (what a reranker over the top n could reach), the share ranked too low (ceiling − health) and
    the share never retrieved (1 − ceiling), and the stage to fix: none when health ≥ `target`, else the
    ranking (a reranker) when more is ranked too low than is never retrieved, else the first stage.

    >>> t = pd.DataFrame({"type": ["keyword", "multi", "multi", "paraphrase"], "answerable": [True] * 4,
    ...                   "recall@5": [1.0, 0.0, 0.5, 0.0], "recall@50": [1.0, 1.0, 1.0, 0.0]})
    >>> diagnose(t)["fix"].to_dict()
    {'keyword': 'none', 'multi': 'ranking', 'paraphrase': 'first stage', 'all': 'ranking'}
    """
    (health_name, health_k), (ceiling_name, ceiling_k) = parse_metric(health), parse_metric(ceiling)
    if health_name != "recall" or ceiling_name != "recall" or ceiling_k <= health_k:
        raise RagkitError(f"health and ceiling must be recall@k with a deeper ceiling, got {health} and {ceiling}")
    missing = [column for column in [by, "answerable", health, ceiling] if column not in table.columns]
    if missing:
        raise RagkitError(f"the table lacks the columns {missing}")
    answerable = table[table["answerable"].astype(bool)]
    if answerable.empty:
        raise RagkitError("no answerable queries to diagnose")
    grouped = answerable.groupby(by)[[health, ceiling]].mean()
    grouped.loc["all"] = answerable[[health, ceiling]].mean()
    result = pd.DataFrame({"queries": [*answerable.groupby(by).size(), len(answerable)],
                           "health": grouped[health], "ceiling": grouped[ceiling]}, index=grouped.index)
    result["ranked too low"] = result["ceiling"] - result["health"]
    result["never retrieved"] = 1 - result["ceiling"]
    result["fix"] = np.where(result["health"] >= target, "none", np.where(
        result["ranked too low"] >= result["never retrieved"], "ranking", "first stage"))
    return result.rename_axis(by)
