"""The fusion sliders of notebook 06: recall@k per query type as `rrf_k`, `alpha` and `fusion` move.

The controls call `pipe.configure(rrf_k=..., alpha=..., fusion=...)` on the pipeline they were given; the
bars come from `fusion_table`, which evaluates that pipeline's variants (`pipe.using(...)`: dense alone,
BM25 alone with the pipeline's own `k1` and `b`, and hybrid under each of the four fusions with the
pipeline's `rrf_k` and `alpha`). Variants share the pipeline's caches, so a move re-fuses cached scores in
milliseconds, and `update_fusion_bars` gives the bars drawn once their new lengths (`ragkit.widgets.figures`).
The fusion formulas are in `ragkit.rank`. Left out: fusing more than two retrievers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragkit.corpus import Query
from ragkit.errors import RagkitError
from ragkit.rank.fusion import FUSIONS
from ragkit.widgets.figures import SLIDER, figure_image, new_figure, show_figure


def fusion_table(pipe, queries: Sequence[Query], k: int = 5) -> pd.DataFrame:
    """Mean recall@k per query type (rows, and "all") for dense, bm25 and each fusion (columns).

    >>> fusion_table(pipe, dev).columns.tolist()  # doctest: +SKIP
    ['dense', 'bm25', 'rrf', 'weighted', 'minmax', 'zscore']
    """
    answerable = [query for query in queries if query.evidence]
    if not answerable:
        raise RagkitError("no answerable queries to measure recall on")
    variants = {"dense": {"method": "dense"}, "bm25": {"method": "bm25"},
                **{fusion: {"method": "hybrid", "fusion": fusion} for fusion in FUSIONS}}
    types, type_of = np.unique([query.type for query in answerable], return_inverse=True)
    counts = np.bincount(type_of)
    columns = {}
    for name, changes in variants.items():  # numpy, not a pandas groupby: this runs on every slider move
        recall = pipe.using(threshold=None, **changes).evaluate(answerable, [f"recall@{k}"])[f"recall@{k}"].to_numpy()
        columns[name] = np.append(np.bincount(type_of, recall) / counts, recall.mean())
    return pd.DataFrame(columns, index=pd.Index([*types, "all"], name="type")).round(3)


def fusion_update(pipe, queries: Sequence[Query], k: int = 5, **changes) -> pd.DataFrame:
    """The explorer's callback: `pipe.configure(**changes)` (rrf_k, alpha, fusion), then `fusion_table`.

    >>> fusion_update(pipe, dev, rrf_k=10).loc["all", "rrf"]  # doctest: +SKIP
    0.742
    """
    pipe.configure(**changes)
    return fusion_table(pipe, queries, k)


# one colour per column, told apart by colour-blind readers too (Okabe and Ito's palette), on a projector
COLUMN_COLOURS = {"dense": "#0072B2", "bm25": "#E69F00", "rrf": "#009E73", "weighted": "#CC79A7",
                  "minmax": "#56B4E9", "zscore": "#D55E00"}


def fusion_bars(table: pd.DataFrame, chosen: str, ax=None):
    """`fusion_table`'s figures as grouped bars, one colour per column, on `ax` (default: a new pyplot figure);
    the pipeline's fusion (`chosen`) is hatched and named in the legend, which sits outside the bars and lists
    them top to bottom as drawn.

    >>> table = pd.DataFrame({"dense": [0.5], "bm25": [0.6], "rrf": [0.7]}, index=["all"])
    >>> [text.get_text() for text in fusion_bars(table, "rrf").get_legend().get_texts()]
    ['rrf (pipe)', 'bm25', 'dense']
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(9, 5))
    height = 0.85 / len(table.columns)
    for position, name in enumerate(table.columns):  # pandas draws the first column lowest in each group
        ax.barh(np.arange(len(table)) - 0.425 + (position + 0.5) * height, table[name], height,
                color=COLUMN_COLOURS.get(name, "#999999"), label=name)
    ax.set_yticks(np.arange(len(table)), table.index)
    return update_fusion_bars(ax, table, chosen)


def update_fusion_bars(ax, table: pd.DataFrame, chosen: str):
    """Give the bars `fusion_bars` drew the figures of `table` (same rows and columns), hatch the column
    `chosen` and name it "(pipe)" in the legend.

    >>> table = pd.DataFrame({"dense": [0.5], "rrf": [0.7]}, index=["all"])
    >>> ax = update_fusion_bars(fusion_bars(table, "rrf"), table.assign(dense=0.25), "dense")
    >>> ax.patches[0].get_width(), ax.patches[0].get_hatch(), ax.get_legend().get_texts()[1].get_text()
    (0.25, '//', 'dense (pipe)')
    """
    for container, name in zip(ax.containers, table.columns, strict=True):
        for bar, value in zip(container, table[name], strict=True):
            bar.set_width(value)
            bar.set_hatch("//" if name == chosen else None)
            bar.set_edgecolor("black" if name == chosen else "white")
        container.set_label(f"{name} (pipe)" if name == chosen else name)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles[::-1], labels[::-1], loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    return ax


def fusion_explorer(pipe, queries: Sequence[Query], k: int = 5):
    """Sliders for `rrf_k` and `alpha` and a menu for `fusion`, redrawing `fusion_update` as bars in place;
    the pipeline's own fusion is hatched.

    >>> fusion_explorer(pipe.using(method="hybrid"), dev).children[1].layout.width  # doctest: +SKIP
    '900px'
    """
    import ipywidgets as widgets

    rrf_k = widgets.IntSlider(value=int(pipe.config.rrf_k), min=0, max=200, step=5, description="rrf_k",
                              layout=SLIDER)
    alpha = widgets.FloatSlider(value=pipe.config.alpha, min=0.0, max=1.0, step=0.05, description="alpha (dense)",
                                style={"description_width": "initial"}, layout=SLIDER)  # not "alpha (de…"
    fusion = widgets.Dropdown(options=FUSIONS, value=pipe.config.fusion, description="fusion")

    def table() -> pd.DataFrame:
        return fusion_update(pipe, queries, k, rrf_k=rrf_k.value, alpha=alpha.value, fusion=fusion.value)

    def title() -> str:
        return (f"pipe: fusion = {pipe.config.fusion}, rrf_k = {pipe.config.rrf_k:g}, alpha = "
                f"{pipe.config.alpha:.2f}, k1 = {pipe.config.k1:g}, b = {pipe.config.b:g}")

    figure = new_figure(9, 5)
    ax = fusion_bars(table(), pipe.config.fusion, figure.subplots())
    ax.set(xlim=(0, 1), xlabel=f"mean recall@{k} (higher is better)", title=title())
    figure.tight_layout()

    def moving() -> list:  # what a move changes; the axes, ticks and labels are drawn once
        return [*ax.patches, ax.get_legend(), ax.title]

    image = figure_image(figure, moving)

    def redraw(_change=None) -> None:
        update_fusion_bars(ax, table(), pipe.config.fusion)
        ax.set_title(title())
        show_figure(image, figure, moving)

    for control in (rrf_k, alpha, fusion):
        control.observe(redraw, names="value")
    return widgets.VBox([widgets.HBox([rrf_k, alpha, fusion], layout={"flex_flow": "row wrap"}), image])
