"""A "no answer" threshold: refuse when even the best chunk is not similar enough to the query.

Notebook 03 derives it from the seed's `adaptive_rag` ("if the relevance score is below 0.4, say the
sources do not have it"), measures it on the labelled queries and puts it on a slider. Refusal precision
and recall come from `ragkit.metrics.refusal_scores`; the price of refusing is paid by answerable queries
that get refused, and the gain shows in the failure@5 of the queries still answered. Left out: retrying
with a rewritten query, scores from a reranker (notebook 09) and one threshold per language.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragkit.errors import RagkitError
from ragkit.metrics import refusal_scores

COLUMNS = ["threshold", "refused", "answerable refused", "precision", "recall", "f1", "accuracy",
           "answered failure@5"]


def check_threshold(threshold: float) -> float:
    """The threshold as a float, or `RagkitError` unless it is a number in [-1, 1] (the range of cosine).

    >>> check_threshold(0.4)
    0.4
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.floating | np.integer) \
            or not -1.0 <= float(threshold) <= 1.0:
        raise RagkitError(f"a cosine threshold must be a number between -1 and 1, got {threshold!r}")
    return float(threshold)


def refusals(top_scores: Sequence[float], threshold: float) -> np.ndarray:
    """True for each query whose best score is below `threshold`: the system says "no answer".

    >>> refusals([0.2, 0.5, 0.4], threshold=0.4).tolist()
    [True, False, False]
    """
    return np.asarray(top_scores, dtype=float) < check_threshold(threshold)


def refusal_table(top_scores: Sequence[float], answerable: Sequence[bool], failure_at_5: Sequence[float],
                  threshold: float) -> dict[str, float]:
    """Refusal precision, recall, F1, accuracy at `threshold`, and the mean failure@5 of answered queries.

    `failure_at_5` holds each query's failure@5 (NaN for unanswerable queries); "answered failure@5" averages
    it over the answerable queries that are not refused (NaN when every one of them is refused).

    >>> row = refusal_table([0.2, 0.3, 0.6, 0.7], [False, True, True, False], [np.nan, 1.0, 0.0, np.nan], 0.35)
    >>> row["precision"], row["recall"], row["answered failure@5"]
    (0.5, 0.5, 0.0)
    """
    top_scores = np.asarray(top_scores, dtype=float)
    answerable = np.asarray(answerable, dtype=bool)
    failure_at_5 = np.asarray(failure_at_5, dtype=float)
    if top_scores.ndim != 1 or len(top_scores) == 0:
        raise RagkitError("need one top score per query, and at least one query")
    if answerable.shape != top_scores.shape or failure_at_5.shape != top_scores.shape:
        raise RagkitError(f"top_scores, answerable and failure_at_5 need one entry per query: got "
                          f"{top_scores.shape}, {answerable.shape} and {failure_at_5.shape}")
    if np.isnan(failure_at_5[answerable]).any():
        raise RagkitError("every answerable query needs its failure@5 (NaN is only for unanswerable ones)")
    refused = refusals(top_scores, threshold)
    scores = refusal_scores(refused, answerable)
    precision, recall = scores["precision"], scores["recall"]
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else math.nan
    answered = answerable & ~refused
    return {
        "threshold": float(threshold), "refused": int(refused.sum()),
        "answerable refused": int((refused & answerable).sum()), "precision": precision, "recall": recall,
        "f1": f1, "accuracy": scores["accuracy"],
        "answered failure@5": float(failure_at_5[answered].mean()) if answered.any() else math.nan,
    }


def threshold_sweep(top_scores: Sequence[float], answerable: Sequence[bool], failure_at_5: Sequence[float],
                    thresholds: Sequence[float]) -> pd.DataFrame:
    """`refusal_table` at each threshold, one row each.

    >>> sweep = threshold_sweep([0.2, 0.6], [False, True], [np.nan, 0.0], [0.1, 0.3, 0.7])
    >>> sweep["refused"].tolist(), sweep["recall"].tolist()
    ([0, 1, 2], [0.0, 1.0, 1.0])
    """
    if len(thresholds) == 0:
        raise RagkitError("give at least one threshold to sweep")
    return pd.DataFrame([refusal_table(top_scores, answerable, failure_at_5, t) for t in thresholds],
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


def threshold_figure(sweep: pd.DataFrame, threshold: float, base_rate: float | None = None, ax=None):
    """Refusal precision and recall against the threshold, with a vertical line at `threshold`.

    `base_rate`, the share of unanswerable queries, is drawn as a dotted line: the precision of refusing
    at random.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> sweep = threshold_sweep([0.2, 0.6], [False, True], [np.nan, 0.0], [0.1, 0.3, 0.7])
    >>> len(threshold_figure(sweep, 0.3).axes[0].lines)
    3
    """
    import matplotlib.pyplot as plt

    if ax is None:
        figure, ax = plt.subplots(figsize=(6.5, 3.2))
    else:
        figure = ax.figure
    ax.plot(sweep["threshold"], sweep["precision"], label="refusal precision", color="#1b9e77")
    ax.plot(sweep["threshold"], sweep["recall"], label="refusal recall", color="#d95f02")
    ax.axvline(check_threshold(threshold), color="black", linestyle="--", linewidth=1)
    if base_rate is not None:
        ax.axhline(base_rate, color="#1b9e77", linestyle=":", linewidth=1, label="precision of random refusal")
    ax.set(xlabel="threshold on the top cosine", ylabel="share", ylim=(-0.02, 1.02),
           title="Refuse when the best chunk scores below the threshold")
    ax.legend(loc="center left")
    figure.tight_layout()
    return figure


def threshold_widget(top_scores: Sequence[float], answerable: Sequence[bool], failure_at_5: Sequence[float],
                     thresholds: Sequence[float], value: float = 0.4):
    """A slider over `thresholds` with the numbers (`threshold_summary`) and the plot (`threshold_figure`).

    >>> threshold_widget([0.2, 0.6], [False, True], [np.nan, 0.0], [0.1, 0.3, 0.7], 0.3)  # doctest: +SKIP
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    sweep = threshold_sweep(top_scores, answerable, failure_at_5, thresholds)
    step = float(np.min(np.diff(thresholds))) if len(thresholds) > 1 else 0.01
    slider = widgets.FloatSlider(value=value, min=float(min(thresholds)), max=float(max(thresholds)), step=step,
                                 description="threshold", continuous_update=False, readout_format=".2f")
    numbers = widgets.HTML()
    plot = widgets.Output()

    def show(threshold: float) -> None:
        numbers.value = threshold_summary(refusal_table(top_scores, answerable, failure_at_5, threshold),
                                          total=len(top_scores))
        plot.clear_output(wait=True)
        with plot:
            figure = threshold_figure(sweep, threshold, base_rate=1 - float(np.mean(answerable)))
            display(figure)
            plt.close(figure)

    slider.observe(lambda change: show(change["new"]), names="value")
    show(value)
    return widgets.VBox([slider, numbers, plot])
