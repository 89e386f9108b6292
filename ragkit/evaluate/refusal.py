"""Measure a refusal threshold: refusal precision and recall, and what it costs answerable queries.

Refusal precision and recall come from `ragkit.evaluate.metrics.refusal_scores`; the price of refusing is paid
by answerable queries that get refused, and the gain shows in the failure@5 of the queries still answered.
Notebook 03 sweeps thresholds with these; `refusal_measures` gives the eval command's refusal figures. Left out: costs per error type, and thresholds per language.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ragkit.corpus import load_queries
from ragkit.errors import RagkitError
from ragkit.evaluate.metrics import refusal_scores
from ragkit.rank.refuse import refusals

COLUMNS = ["threshold", "refused", "answerable refused", "precision", "recall", "f1", "accuracy",
           "answered failure@5"]


def refusal_row(refused: Sequence[bool], answerable: Sequence[bool], failure_at_5: Sequence[float]) -> dict:
    """How a set of refusals did: refusal precision, recall, F1, accuracy, and the mean failure@5 of the
    answerable queries that were answered (NaN when every one of them is refused).

    `failure_at_5` holds each query's failure@5 (NaN for unanswerable queries). The pipeline's `evaluate`
    gives all three columns (`refused`, `answerable`, `failure@5`).

    >>> row = refusal_row([True, True, False, False], [False, True, True, False], [np.nan, 1.0, 0.0, np.nan])
    >>> row["precision"], row["recall"], row["answerable refused"], row["answered failure@5"]
    (0.5, 0.5, 1, 0.0)
    """
    refused = np.asarray(refused, dtype=bool)
    answerable = np.asarray(answerable, dtype=bool)
    failure_at_5 = np.asarray(failure_at_5, dtype=float)
    if refused.ndim != 1 or len(refused) == 0:
        raise RagkitError("need one top score per query, and at least one query")
    if answerable.shape != refused.shape or failure_at_5.shape != refused.shape:
        raise RagkitError(f"top_scores, answerable and failure_at_5 need one entry per query: got "
                          f"{refused.shape}, {answerable.shape} and {failure_at_5.shape}")
    if np.isnan(failure_at_5[answerable]).any():
        raise RagkitError("every answerable query needs its failure@5 (NaN is only for unanswerable ones)")
    scores = refusal_scores(refused, answerable)
    precision, recall = scores["precision"], scores["recall"]
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else math.nan
    answered = answerable & ~refused
    return {
        "refused": int(refused.sum()), "answerable refused": int((refused & answerable).sum()),
        "precision": precision, "recall": recall, "f1": f1, "accuracy": scores["accuracy"],
        "answered failure@5": float(failure_at_5[answered].mean()) if answered.any() else math.nan,
    }


def refusal_table(top_scores: Sequence[float], answerable: Sequence[bool], failure_at_5: Sequence[float],
                  threshold: float, low: float = -1.0, high: float = 1.0) -> dict[str, float]:
    """`refusal_row` when every query whose top score is below `threshold` is refused; the threshold must lie
    in [low, high], the range of the scores (default: cosine; a reranker's scores have others).

    >>> row = refusal_table([0.2, 0.3, 0.6, 0.7], [False, True, True, False], [np.nan, 1.0, 0.0, np.nan], 0.35)
    >>> row["precision"], row["recall"], row["answered failure@5"]
    (0.5, 0.5, 0.0)
    """
    top_scores = np.asarray(top_scores, dtype=float)
    if top_scores.ndim != 1 or len(top_scores) == 0:
        raise RagkitError("need one top score per query, and at least one query")
    return {"threshold": float(threshold), **refusal_row(refusals(top_scores, threshold, low, high), answerable,
                                                         failure_at_5)}


def threshold_sweep(top_scores: Sequence[float], answerable: Sequence[bool], failure_at_5: Sequence[float],
                    thresholds: Sequence[float], low: float = -1.0, high: float = 1.0) -> pd.DataFrame:
    """`refusal_table` at each threshold, one row each.

    >>> sweep = threshold_sweep([0.2, 0.6], [False, True], [np.nan, 0.0], [0.1, 0.3, 0.7])
    >>> sweep["refused"].tolist(), sweep["recall"].tolist()
    ([0, 1, 2], [0.0, 1.0, 1.0])
    """
    if len(thresholds) == 0:
        raise RagkitError("give at least one threshold to sweep")
    return pd.DataFrame([refusal_table(top_scores, answerable, failure_at_5, t, low, high) for t in thresholds],
                        columns=COLUMNS)


def best_threshold(sweep: pd.DataFrame, by: str = "f1", max_answerable_refused: int | None = None) -> float:
    """The threshold with the highest `by` (refusal F1 by default), ties to the lowest threshold.

    With `max_answerable_refused`, only thresholds that refuse at most that many answerable queries compete.

    >>> sweep = pd.DataFrame({"threshold": [0.1, 0.3, 0.7], "f1": [np.nan, 0.5, 0.67],
    ...                       "answerable refused": [0, 1, 4]})
    >>> best_threshold(sweep), best_threshold(sweep, max_answerable_refused=2)
    (0.7, 0.3)
    """
    if by not in sweep.columns:
        raise RagkitError(f"the sweep has no column {by!r} to choose a threshold by")
    if max_answerable_refused is not None:
        if max_answerable_refused < 0:
            raise RagkitError(f"max_answerable_refused must be 0 or more, got {max_answerable_refused}")
        sweep = sweep[sweep["answerable refused"] <= max_answerable_refused]
    values = sweep[by].to_numpy(dtype=float)
    if np.isnan(values).all():
        raise RagkitError(f"no threshold in the sweep has a value of {by!r} within the limits")
    return float(sweep["threshold"].iloc[int(np.nanargmax(values))])


def threshold_summary(row: dict[str, float], total: int) -> str:
    """The numbers the widget shows for one threshold, as one line of text.

    >>> threshold_summary({"threshold": 0.4, "refused": 3, "answerable refused": 1, "precision": 0.667,
    ...                    "recall": 0.5, "accuracy": 0.8, "answered failure@5": 0.25}, total=10)
    'threshold 0.40: refuses 3 of 10 queries (1 answerable); refusal precision 0.667, recall 0.500, accuracy 0.800; failure@5 of the answered 0.250'
    """
    return (f"threshold {row['threshold']:.2f}: refuses {row['refused']} of {total} queries "
            f"({row['answerable refused']} answerable); refusal precision {row['precision']:.3f}, "
            f"recall {row['recall']:.3f}, accuracy {row['accuracy']:.3f}; "
            f"failure@5 of the answered {row['answered failure@5']:.3f}")


def refusal_measures(queries_file: str | Path, pipe, split: str) -> dict:
    """Refusal precision, recall and the rest (`refusal_row`) of a pipeline on the queries of `split` (`all`: every
    split) in a queries file that have evidence or are marked unanswerable (a query of your own still waiting for
    its answer to be judged is neither), and how many queries were rewritten.

    >>> refusal_measures("data/queries.jsonl", Pipeline(docs, threshold=0.3), "dev")["unanswerable"]  # doctest: +SKIP
    25
    """
    queries = [query for query in load_queries(queries_file, split=None if split == "all" else split)
               if query.evidence or query.type == "unanswerable"]  # a query still being judged is neither
    table = pipe.evaluate(queries, ["failure@5"])
    found = pipe.retrieve([query.text for query in queries], 5)
    row = refusal_row(table["refused"], table["answerable"], table["failure@5"])
    return {**{name: round(float(value), 4) for name, value in row.items()}, "queries": len(queries),
            "unanswerable": int((~table["answerable"]).sum()), "rewritten": sum(r is not None for r in found.rewrites)}
