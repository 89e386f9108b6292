"""Sliders for notebook 05: BM25's `k1` and `b` over its two curves and over the pipeline's live ranking.

Every control calls `pipe.configure(k1=..., b=...)` on the pipeline it was given, so a setting chosen here is
the one the same `pipe` uses afterwards (in notebook 06's fusion, for instance). What a widget shows comes
from plain, unit-tested callbacks: `saturation_curve` and `length_curve` (the curves), `curve_figure` (a
curve's figure and its move, on the fixed axis of `curve_limits`, so that b = 0.25 and b = 0.75 look different),
`bm25_update` (the configured pipeline's ranking of one query and its recall over a query set). The pipeline
re-weights its stored term statistics, so a slider move costs milliseconds, and a curve is redrawn in place
(`ragkit.widgets.figures`: new data for its lines, not a new figure). Left out: saving a chosen setting.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragkit.corpus import Query
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits
from ragkit.evaluate.tables import summarize
from ragkit.index.bm25 import saturated_tf
from ragkit.widgets.figures import SLIDER, new_figure, show_figure


def saturation_curve(k1: float, tf_max: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Term frequencies 0..tf_max and their BM25 weight (IDF left out) in a document of average length.

    >>> tf, weights = saturation_curve(1.0, tf_max=3)
    >>> weights.round(3).tolist()
    [0.0, 1.0, 1.333, 1.5]
    """
    tf = np.arange(tf_max + 1)
    return tf, saturated_tf(tf, k1, b=0.0)


def length_curve(b: float, k1: float = 1.5, tf: int = 3, max_ratio: float = 4.0,
                 points: int = 81) -> tuple[np.ndarray, np.ndarray]:
    """Document length / average length from ~0 to max_ratio, and the BM25 weight of `tf` occurrences.

    >>> ratios, weights = length_curve(0.0, k1=1.0, tf=1, points=3)
    >>> weights.tolist()  # b = 0: length does not matter
    [1.0, 1.0, 1.0]
    """
    ratios = np.linspace(max_ratio / (points - 1), max_ratio, points) if points > 1 else np.array([1.0])
    return ratios, saturated_tf(tf, k1, b, ratios)


def ranking_table(pipe, query: Query, k: int = 5) -> pd.DataFrame:
    """The pipeline's top `k` chunks for one labelled query: rank, chunk, score, relevant, text.

    >>> ranking_table(pipe, dev[0], k=3).columns.tolist()  # doctest: +SKIP
    ['rank', 'chunk', 'score', 'relevant', 'text']
    """
    results = pipe.search(query.text, k)
    hits = ranking_hits([chunk for chunk, _ in results], judgments_from_queries([query], pipe.docs)[0])
    return pd.DataFrame({
        "rank": range(1, len(results) + 1), "chunk": [chunk.chunk_id for chunk, _ in results],
        "score": [round(score, 3) for _, score in results],
        "relevant": ["yes" if hit else ("no" if query.evidence else "") for hit in hits],
        "text": [" ".join(chunk.text.split())[:70] for chunk, _ in results],
    }, columns=["rank", "chunk", "score", "relevant", "text"])


def mean_recall(pipe, queries: Sequence[Query], k: int = 5) -> float:
    """Mean recall@k of the answerable `queries` under the pipeline's current config.

    >>> mean_recall(pipe.configure(method="bm25"), dev, k=5)  # doctest: +SKIP
    0.647
    """
    return float(summarize(pipe.evaluate(queries, [f"recall@{k}"]), decimals=None)[f"recall@{k}"].iloc[0])


def bm25_update(pipe, queries: Sequence[Query], shown: int, k1: float, b: float, k: int = 5):
    """The ranking widget's callback: configure `k1` and `b`, then (recall@k over `queries`, the ranking
    table of query number `shown`).

    >>> recall, table = bm25_update(pipe, dev, 0, k1=0.9, b=0.4)  # doctest: +SKIP
    """
    pipe.configure(k1=k1, b=b)
    return mean_recall(pipe, queries, k), ranking_table(pipe, queries[shown], k)


CURVE_SLIDERS = {"k1": (0.0, 5.0, 0.1), "b": (0.0, 1.0, 0.05)}  # each curve slider's (low, high, step)


def curve_limits(parameter: str, k1: float) -> tuple[float, float]:
    """The y-axis of a curve widget, fixed over its slider's whole range, so that a move changes the curve and
    never the axis: every `k1` of its slider for "k1" (up to the highest ceiling, k1 + 1), every `b` from 0 to 1
    at this `k1` for "b" (the weight at each length lies between its values at b = 0 and b = 1).

    >>> [round(limit, 3) for limit in curve_limits("k1", 1.5) + curve_limits("b", 1.5)]
    [0.0, 6.3, 0.753, 2.519]
    """
    if parameter == "k1":
        return 0.0, (CURVE_SLIDERS["k1"][1] + 1) * 1.05
    weights = np.concatenate([length_curve(b, k1)[1] for b in (0.0, 1.0)])
    margin = 0.05 * max(float(np.ptp(weights)), 1e-9)
    return float(weights.min()) - margin, float(weights.max()) + margin


def curve_figure(parameter: str, k1: float, b: float):
    """The figure of a curve widget, and the function a move calls with the new (k1, b): it gives the lines new
    data and labels, on the axis of `curve_limits`, with the legend above the plot, clear of the curves.

    >>> figure, move = curve_figure("b", 1.5, 0.25); before = figure.axes[0].get_ylim()
    >>> move(1.5, 0.75); figure.axes[0].get_ylim() == before
    True
    """
    figure = new_figure(6, 3.3)
    ax = figure.subplots()
    if parameter == "k1":
        ax.plot(*saturation_curve(0.0), ":", color="grey", label="k1 = 0: only presence counts")
        curve = ax.plot(*saturation_curve(k1), "o-")[0]
        ceiling = ax.axhline(k1 + 1, ls="--", color="C0", alpha=0.5, label="ceiling k1 + 1")
        ax.set(xlabel="term frequency in the chunk", ylabel="weight (× IDF)")
    else:
        base = ax.plot(*length_curve(0.0, k1), ":", color="grey", label="b = 0: length ignored")[0]
        curve = ax.plot(*length_curve(b, k1))[0]
        ax.set(xlabel="chunk length / average length", ylabel="weight (× IDF)")

    def move(k1: float, b: float) -> None:
        if parameter == "k1":
            curve.set_ydata(saturation_curve(k1)[1])
            curve.set_label(f"k1 = {k1:.1f}")
            ceiling.set_ydata([k1 + 1, k1 + 1])
        else:  # k1 may have moved elsewhere since: both lines, and the axis at this k1
            base.set_ydata(length_curve(0.0, k1)[1])
            curve.set_ydata(length_curve(b, k1)[1])
            curve.set_label(f"b = {b:.2f} (k1 = {k1:.1f}, tf = 3)")
        ax.set_ylim(*curve_limits(parameter, k1))
        ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.01), ncols=3, fontsize=8, frameon=False,
                  borderaxespad=0.0)

    move(k1, b)
    figure.tight_layout()  # once, with the first legend: the moves keep this layout
    return figure, move


def curve_widget(pipe, parameter: str = "k1"):
    """A slider over one BM25 curve that also sets the pipeline's knob: "k1" draws saturation against tf,
    "b" draws weight against document length; a move gives the lines new data (`curve_figure`).

    >>> curve_widget(pipe, "b").children[0].description  # doctest: +SKIP
    'b'
    """
    import ipywidgets as widgets

    if parameter not in CURVE_SLIDERS:
        raise RagkitError(f"curve_widget draws {' or '.join(CURVE_SLIDERS)}, not {parameter!r}")
    low, high, step = CURVE_SLIDERS[parameter]
    slider = widgets.FloatSlider(value=getattr(pipe.config, parameter), min=low, max=high, step=step,
                                 description=parameter, layout=SLIDER)
    figure, move = curve_figure(parameter, pipe.config.k1, pipe.config.b)
    image = widgets.Image(format="png")

    def draw(_=None) -> None:
        pipe.configure(**{parameter: slider.value})
        move(pipe.config.k1, pipe.config.b)
        show_figure(image, figure)

    draw()
    slider.observe(draw, "value")
    return widgets.VBox([slider, image])


def ranking_widget(pipe, queries: Sequence[Query], k: int = 5):
    """Sliders for k1 and b and a query menu over the pipeline: the query's top k and the mean recall@k
    over all `queries`, both from `pipe` after `pipe.configure(k1=..., b=...)`.

    >>> ranking_widget(pipe.using(method="bm25"), dev).children[0].description  # doctest: +SKIP
    'query'
    """
    import ipywidgets as widgets
    from IPython.display import display

    menu = widgets.Dropdown(options=[(f"{q.query_id}: {q.text}", i) for i, q in enumerate(queries)],
                            description="query", layout={"width": "600px"})
    k1 = widgets.FloatSlider(value=pipe.config.k1, min=0.0, max=5.0, step=0.1, description="k1", layout=SLIDER)
    b = widgets.FloatSlider(value=pipe.config.b, min=0.0, max=1.0, step=0.05, description="b", layout=SLIDER)
    out = widgets.Output()
    start = (pipe.config.k1, pipe.config.b, mean_recall(pipe, queries, k))

    def draw(_=None):
        recall, table = bm25_update(pipe, queries, menu.value, k1.value, b.value, k)
        with out:
            out.clear_output(wait=True)
            print(f"{pipe.config.method}: recall@{k} over {len(queries)} queries: {recall:.3f} "
                  f"(k1={start[0]}, b={start[1]}: {start[2]:.3f})")
            display(table)

    for control in (menu, k1, b):
        control.observe(draw, "value")
    draw()
    return widgets.VBox([menu, widgets.HBox([k1, b], layout={"flex_flow": "row wrap"}), out])
