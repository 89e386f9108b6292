"""The "no answer" slider of notebook 03: the pipeline's `threshold` knob, and what it does to refusals.

The slider calls `pipe.configure(threshold=...)`; the numbers come from the pipeline's own `evaluate`
(which queries it refused, and the failure@5 of the rest) through `threshold_update`, a plain, unit-tested
function, and `refusal_line` says them in one line; the curve of refusal precision and recall over all
thresholds is drawn once by `threshold_figure`, and a move only shifts its threshold line (in place:
`ragkit.widgets.figures`). The legend sits right of the plot, off the curves and the threshold line; where nothing
is refused, refusal precision is undefined and the line says so (`NOTHING_REFUSED`) instead of printing nan. The
refusal stage itself is `ragkit.rank.refuse`, its measures `ragkit.evaluate.refusal`.
Left out: one threshold per language, and sweeps of several scorers in one figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragkit.corpus import Query
from ragkit.evaluate.refusal import refusal_row, threshold_sweep
from ragkit.rank.refuse import check_threshold
from ragkit.widgets.figures import SLIDER, figure_image, new_figure, show_figure

NOTHING_REFUSED = "– (nothing refused)"  # refusal precision when no query is refused: 0 of 0 is not a share
SIZE = (8.0, 3.2)  # inches: the plot, and the legend right of it


def threshold_figure(sweep: pd.DataFrame, threshold: float, base_rate: float | None = None, ax=None,
                     score: str = "the top cosine"):
    """Refusal precision and recall against the threshold, with a vertical line at `threshold`.

    `base_rate`, the share of unanswerable queries, is drawn as a dotted line: the precision of refusing
    at random. `score` names what the threshold compares (the top cosine, or a reranker's best score).

    >>> import matplotlib; matplotlib.use("Agg")
    >>> sweep = threshold_sweep([0.2, 0.6], [False, True], [np.nan, 0.0], [0.1, 0.3, 0.7])
    >>> figure = threshold_figure(sweep, 0.3); figure.canvas.draw(); ax = figure.axes[0]
    >>> len(ax.lines), bool(ax.get_legend().get_window_extent().x0 > ax.get_window_extent().x1)  # legend right of it
    (3, True)
    """
    import matplotlib.pyplot as plt

    if ax is None:
        figure, ax = plt.subplots(figsize=SIZE)
    else:
        figure = ax.figure
    ax.plot(sweep["threshold"], sweep["precision"], label="refusal precision", color="#1b9e77")
    ax.plot(sweep["threshold"], sweep["recall"], label="refusal recall", color="#d95f02")
    ax.axvline(check_threshold(threshold, -np.inf, np.inf), color="black", linestyle="--", linewidth=1,
               label="_threshold")  # "_": not in the legend; the widget finds and moves it by this label
    if base_rate is not None:
        ax.axhline(base_rate, color="#1b9e77", linestyle=":", linewidth=1, label="precision of random refusal")
    ax.set(xlabel=f"threshold on {score}", ylabel="share", ylim=(-0.02, 1.02),
           title="Refuse when the best chunk scores below the threshold")
    # outside the axes, right of them: inside, any corner can hide a curve or the threshold line
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False)
    figure.tight_layout()
    return figure


def threshold_update(pipe, queries: Sequence[Query], threshold: float | None) -> dict:
    """The slider's callback: `pipe.configure(threshold=...)`, then the pipeline's own refusals and
    failure@5 on `queries` summarised by `refusal_row` (with the threshold, the number of queries and how
    many of them are answerable).

    >>> threshold_update(pipe, dev, 0.4)["refused"]  # doctest: +SKIP
    12
    """
    pipe.configure(threshold=threshold)
    table = pipe.evaluate(queries, ["failure@5"])
    return {"threshold": threshold, "queries": len(table), "answerable": int(table["answerable"].sum()),
            **refusal_row(table["refused"], table["answerable"], table["failure@5"])}


def refusal_line(row: dict) -> str:
    """What the widget says for one threshold: how many queries it refuses, split into the unanswerable ones
    (refusing them is right) and the answerable ones (refusing them is wrong), then the refusal measures.
    With nothing refused, refusal precision (right refusals over refusals) has no value: the line says so.

    >>> refusal_line({"threshold": 0.4, "queries": 10, "answerable": 6, "refused": 3, "answerable refused": 1,
    ...               "precision": 0.667, "recall": 0.5, "accuracy": 0.7, "answered failure@5": 0.25})
    'threshold 0.40: refuses 3 of the 10 queries: 2 of the 4 unanswerable ones and 1 of the 6 answerable ones; refusal precision 0.667, recall 0.500, accuracy 0.700; failure@5 of the answered 0.250'
    >>> refusal_line({"threshold": 0.1, "queries": 10, "answerable": 6, "refused": 0, "answerable refused": 0,
    ...               "precision": float("nan"), "recall": 0.0, "accuracy": 0.6, "answered failure@5": 0.25})
    'threshold 0.10: refuses 0 of the 10 queries: 0 of the 4 unanswerable ones and 0 of the 6 answerable ones; refusal precision – (nothing refused), recall 0.000, accuracy 0.600; failure@5 of the answered 0.250'
    """
    unanswerable, wrong = row["queries"] - row["answerable"], row["answerable refused"]
    precision = NOTHING_REFUSED if row["refused"] == 0 else f"{row['precision']:.3f}"
    return (f"threshold {row['threshold']:.2f}: refuses {row['refused']} of the {row['queries']} queries: "
            f"{row['refused'] - wrong} of the {unanswerable} unanswerable ones and {wrong} of the "
            f"{row['answerable']} answerable ones; refusal precision {precision}, recall "
            f"{row['recall']:.3f}, accuracy {row['accuracy']:.3f}; failure@5 of the answered "
            f"{row['answered failure@5']:.3f}")


def threshold_widget(pipe, queries: Sequence[Query], thresholds: Sequence[float], value: float = 0.4):
    """A slider over `thresholds` that sets the pipeline's `threshold`, with the line of `refusal_line` and the
    sweep of refusal precision and recall (`threshold_figure`), whose threshold line moves with the slider.

    >>> threshold_widget(pipe, dev, np.round(np.arange(0.2, 0.8, 0.02), 2), 0.4)  # doctest: +SKIP
    """
    import ipywidgets as widgets

    unrefused = pipe.using(threshold=None).evaluate(queries, ["failure@5"])
    score = "the top cosine" if pipe.config.rerank == "none" else f"the best {pipe.config.rerank} score"
    sweep = threshold_sweep(unrefused["top_score"], unrefused["answerable"], unrefused["failure@5"], thresholds,
                            low=-np.inf, high=np.inf)  # any scorer: the pipeline's config checked the range
    step = float(np.min(np.diff(thresholds))) if len(thresholds) > 1 else 0.01
    slider = widgets.FloatSlider(value=value, min=float(min(thresholds)), max=float(max(thresholds)), step=step,
                                 description="threshold", continuous_update=False, readout_format=".2f",
                                 style={"description_width": "initial"}, layout=SLIDER)
    numbers = widgets.HTML()
    figure = new_figure(*SIZE)
    threshold_figure(sweep, value, base_rate=1 - float(unrefused["answerable"].mean()), ax=figure.subplots(),
                     score=score)
    line = next(line for line in figure.axes[0].lines if line.get_label() == "_threshold")
    plot = figure_image(figure, lambda: [line])  # the curves drawn once; a move redraws the line

    def show(threshold: float) -> None:
        numbers.value = refusal_line(threshold_update(pipe, queries, threshold))
        line.set_xdata([threshold, threshold])
        show_figure(plot, figure, lambda: [line])

    slider.observe(lambda change: show(change["new"]), names="value")
    show(value)
    return widgets.VBox([slider, numbers, plot])
