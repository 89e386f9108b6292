"""The semantic-chunking views of notebook 04: what a threshold cuts, the adjacent-similarity curve with each
rule's cut line, and a slider that redraws them.

`cut_view` is the slider's callback, a plain function that is unit-tested; `show_view` moves what a view
draws (the threshold line, the cuts, the chunk borders) on a curve drawn once, so that the slider redraws in
place (`ragkit.widgets.figures`); the legend sits outside the plot (`outside_legend`), clear of every line the
slider moves. The rules themselves are in `ragkit.chunk.semantic`. Left out: views of
more than one document at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ragkit.chunk.cut_rules import check_similarities, cut_gaps, rule_threshold
from ragkit.chunk.semantic import adjacent_similarities, guarded_bounds
from ragkit.chunk.sentences import sentence_spans
from ragkit.corpus import Document
from ragkit.widgets.figures import SLIDER, figure_image, new_figure, show_figure

COLORS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e")


def cut_view(text: str, spans: Sequence[tuple[int, int]], similarities: np.ndarray, threshold: float,
             min_size: int = 200, max_size: int = 1000) -> dict:
    """What a threshold does to one document: the gaps below it, the chunk borders left after the size
    guards (as gap indices) and the chunk sizes. The threshold slider redraws from this.

    >>> text = "Keys rotate. Keys expire. Lunch is at noon."
    >>> view = cut_view(text, [(0, 12), (13, 25), (26, 43)], np.array([0.9, 0.1]), 0.5, min_size=5)
    >>> view["cuts"], view["borders"], view["sizes"]
    ([1], [1], [25, 17])
    """
    bounds = guarded_bounds(text, spans, similarities, cut_gaps(similarities, threshold), min_size, max_size)
    starts = [start for start, _ in spans]
    borders = sorted({int(np.searchsorted(starts, start, side="right")) - 2 for start, _ in bounds[1:]})
    return {"threshold": float(threshold), "cuts": cut_gaps(similarities, threshold).tolist(),
            "borders": borders, "sizes": [end - start for start, end in bounds]}


def outside_legend(ax):
    """The legend to the right of the plot, where no curve, cut or threshold line can pass under it.

    >>> import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    >>> ax = plt.figure().gca(); _ = ax.plot([0, 1], label="curve")
    >>> bool(outside_legend(ax).get_window_extent().x0 > ax.get_window_extent().x1)  # right of the plot
    True
    """
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=7)


def plot_similarity_curve(ax, similarities: np.ndarray, thresholds: Mapping[str, float] | None = None,
                          view: dict | None = None, title: str = ""):
    """Draw the adjacent-similarity curve, one dashed line per rule's threshold, and a view's cuts (`show_view`).

    >>> import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    >>> ax = plot_similarity_curve(plt.figure().gca(), np.array([0.9, 0.2, 0.8]), {"percentile": 0.5})
    >>> len(ax.lines)
    2
    """
    similarities = check_similarities(similarities, minimum=1)
    ax.plot(similarities, color="#333333", linewidth=1, label="adjacent similarity")
    for (name, value), color in zip((thresholds or {}).items(), COLORS, strict=False):
        ax.axhline(value, color=color, linestyle="--", linewidth=1.2, label=f"{name} {value:.2f}")
    ax.set_xlabel("gap between sentence i and i + 1")
    ax.set_ylabel("cosine similarity")
    if view is None:
        ax.set_title(title)
        outside_legend(ax)
        return ax
    ax.axhline(view["threshold"], color="#d62728", linewidth=1.5, gid="threshold")
    ax.scatter([], [], color="#d62728", s=14, zorder=3, label="below: cut", gid="cuts")
    ax.vlines([], 0, 1, transform=ax.get_xaxis_transform(), color="#999999", linewidth=0.8, alpha=0.7,
              gid="borders")
    return show_view(ax, similarities, view, title)


def show_view(ax, similarities: np.ndarray, view: dict, title: str = ""):
    """Move the view's artists on a curve drawn by `plot_similarity_curve(..., view=...)` to `view`: the
    threshold line, the gaps below it (cut) and the chunk borders; then the legend and the title.

    >>> import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    >>> values = np.array([0.9, 0.2, 0.8])
    >>> ax = plot_similarity_curve(plt.figure().gca(), values, view={"threshold": 0.1, "cuts": [], "borders": []})
    >>> ax = show_view(ax, values, {"threshold": 0.5, "cuts": [1], "borders": [1]})
    >>> ax.collections[0].get_offsets().tolist(), [t.get_text() for t in ax.get_legend().get_texts()][1:]
    ([[1.0, 0.2]], ['threshold 0.50', 'below: cut'])
    """
    artists = {artist.get_gid(): artist for artist in [*ax.lines, *ax.collections] if artist.get_gid()}
    artists["threshold"].set_ydata([view["threshold"]] * 2)
    artists["threshold"].set_label(f"threshold {view['threshold']:.2f}")
    cuts = np.asarray(view["cuts"], dtype=int)
    artists["cuts"].set_offsets(np.column_stack([cuts, similarities[cuts]]))
    artists["borders"].set_segments([[(border, 0), (border, 1)] for border in view["borders"]])
    ax.set_title(title)
    outside_legend(ax)
    return ax


def threshold_slider(doc: Document, encoder, window: int = 3, min_size: int = 200, max_size: int = 800):
    """A slider over the threshold that redraws one document's cuts (`cut_view`, `show_view`) in place.

    >>> threshold_slider(doc, Encoder())  # doctest: +SKIP
    """
    import ipywidgets as widgets

    spans = sentence_spans(doc.text)
    similarities = adjacent_similarities(encoder.encode([doc.text[s:e] for s, e in spans]), window)
    slider = widgets.FloatSlider(value=round(rule_threshold(similarities, "gap"), 2), min=-0.2, max=1.0,
                                 step=0.01, description="threshold", continuous_update=False,
                                 style={"description_width": "initial"}, layout=SLIDER)

    def view_and_title(threshold: float) -> tuple[dict, str]:
        view = cut_view(doc.text, spans, similarities, threshold, min_size, max_size)
        gaps, chunks = len(view["cuts"]), len(view["sizes"])
        return view, (f"{doc.doc_id}: {gaps} gap{'s' * (gaps != 1)} below the threshold, {chunks} "
                      f"chunk{'s' * (chunks != 1)} after the size guards")

    figure = new_figure(9, 3.2)
    ax = plot_similarity_curve(figure.subplots(), similarities, None, *view_and_title(slider.value))
    ax.set_ylim(min(slider.min, float(similarities.min())) - 0.03, max(slider.max, float(similarities.max())) + 0.03)
    figure.tight_layout()  # the whole slider's range on the axis: a move redraws only what the view draws

    def moving() -> list:
        return [*ax.lines[1:], *ax.collections, ax.get_legend(), ax.title]

    image = figure_image(figure, moving)

    def redraw(change=None) -> None:
        show_view(ax, similarities, *view_and_title(slider.value))
        show_figure(image, figure, moving)

    slider.observe(redraw, names="value")
    return widgets.VBox([slider, image])
