"""Notebook 08's measures and λ slider: relevance against diversity as MMR's `mmr_lambda` moves.

`diversity_table` scores one pipeline's rankings per query (recall@5, α-nDCG@10, distinct documents and
intra-list similarity of the top 5); `tradeoff_point` reduces it to the two numbers the curve plots: relevance
(recall@5 on the focused query types) and diversity (α-nDCG@10 on the `multi` queries, whose evidence comes
from several documents). The slider calls `mmr_update`, which sets `pipe.configure(mmr_lambda=...)` (a line
beside the slider says so); nothing is embedded again, and only the curve's marked point moves
(`ragkit.widgets.figures`). `lambda_figure` draws the curve whole and zoomed near no MMR (where the λs near 1,
little diversity, pile up), each point labelled with its λ where the label covers no data (`place_labels`), the legend below the plots.
Left out: choosing λ per query type.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragkit.corpus import Query
from ragkit.errors import RagkitError
from ragkit.evaluate.diversity import alpha_dcg, distinct_documents, ideal_hits, intra_list_similarity
from ragkit.evaluate.metrics import recall_at_k
from ragkit.evaluate.relevance import ranking_hits
from ragkit.evaluate.runs import cached_judgments
from ragkit.widgets.figures import SLIDER, new_figure, show_figure

FOCUSED = ("keyword", "paraphrase", "context", "temporal", "multilingual")
# label offsets in points, ring by ring around a point (a leader line from the second ring on)
OFFSETS = [(dx * r, dy * r) for r in (5, 12, 20) for dx, dy in [(1, 1), (1, -1), (-1, 1), (-1, -1), (1.4, 0), (-1.4, 0), (0, 1.4), (0, -1.4)]]


def diversity_table(pipe, queries: Sequence[Query], k: int = 5, depth: int = 10) -> pd.DataFrame:
    """One row per answerable query: id, type, lang, recall@k, α-nDCG@depth, distinct documents and intra-list
    similarity of the top k, under the pipeline's current config. The ideal ranking of α-nDCG is built from
    every chunk that answers a part, its ties broken by chunk id as TREC's `ndeval` breaks them.

    >>> diversity_table(pipe.using(mmr_lambda=0.5), dev).columns.tolist()  # doctest: +SKIP
    ['query_id', 'type', 'lang', 'recall@5', 'alpha-ndcg@10', 'distinct docs@5', 'intra-list similarity@5']
    """
    queries = [query for query in queries if query.evidence]
    if not queries:
        raise RagkitError("no answerable queries: diversity is measured over evidence quotes")
    judgments = cached_judgments(pipe, queries)  # built once per list of queries, not per slider move
    chunks, embeddings, chunk_key = pipe.chunks, pipe.chunk_embeddings, pipe.chunk_key
    position = {chunk.chunk_id: i for i, chunk in enumerate(chunks)}
    ids = [chunk.chunk_id for chunk in chunks]
    rows = []
    for query, judgment, ranking in zip(queries, judgments, pipe.rankings([q.text for q in queries], depth),
                                        strict=True):
        hits = ranking_hits(ranking, judgment)
        # the ideal ranking depends on the chunks and the labels only, not on λ: computed once per query
        ideal = pipe.cache.stage(("ideal alpha-dcg", chunk_key, query.query_id, query.evidence, depth),
                                 lambda judgment=judgment: alpha_dcg(ideal_hits(
                                     ranking_hits(chunks, judgment), depth, ids=ids), depth))
        vectors = embeddings[[position[chunk.chunk_id] for chunk in ranking[:k]]]
        rows.append({"query_id": query.query_id, "type": query.type, "lang": query.lang,
                     f"recall@{k}": recall_at_k(hits, len(judgment.part_gains()), k),  # parts, not quotes
                     f"alpha-ndcg@{depth}": alpha_dcg(hits, depth) / ideal,
                     f"distinct docs@{k}": distinct_documents([chunk.doc_id for chunk in ranking], k),
                     f"intra-list similarity@{k}": intra_list_similarity(vectors)})
    return pd.DataFrame(rows)


def tradeoff_point(pipe, queries: Sequence[Query]) -> dict[str, float]:
    """Relevance (mean recall@5 of the focused types) and diversity (mean α-nDCG@10 of `multi` queries).

    >>> tradeoff_point(pipe, dev)  # doctest: +SKIP
    {'relevance': 0.523, 'diversity': 0.402}
    """
    table = diversity_table(pipe, queries)
    multi = table["type"] == "multi"
    if not multi.any() or multi.all():
        raise RagkitError("the curve needs both multi queries and focused ones")
    return {"relevance": float(table.loc[table["type"].isin(FOCUSED), "recall@5"].mean()),
            "diversity": float(table.loc[multi, "alpha-ndcg@10"].mean())}


def mmr_update(pipe, queries: Sequence[Query], lambda_: float | None) -> dict[str, float]:
    """The slider's callback: `pipe.configure(mmr_lambda=lambda_)`, then `tradeoff_point`.

    >>> mmr_update(pipe, dev, 0.5)["diversity"]  # doctest: +SKIP
    0.43
    """
    pipe.configure(mmr_lambda=lambda_)
    return tradeoff_point(pipe, queries)


def lambda_curve(pipe, queries: Sequence[Query], lambdas: Sequence[float]) -> pd.DataFrame:
    """`tradeoff_point` for each λ (a variant of `pipe` each; `pipe` itself is unchanged), and without MMR.

    >>> lambda_curve(pipe, dev, [0.3, 0.7]).index.tolist()  # doctest: +SKIP
    ["off", 0.3, 0.7]
    """
    points = {"off": tradeoff_point(pipe.using(mmr_lambda=None), queries)}
    points.update({float(value): tradeoff_point(pipe.using(mmr_lambda=float(value)), queries) for value in lambdas})
    return pd.DataFrame(points).T.rename_axis("mmr_lambda")


def place_labels(ax, points: dict[str, tuple[float, float]]) -> list:
    """Label each point (text → x, y in data units) at the first offset of `OFFSETS` where the text lies inside the
    axes, covers no other label, no point and no line of `ax`, and is nearer its own point than any other marker;
    a label with no such place is left out. Call it once the axes' limits and position are final (the figure
    needs an Agg canvas).

    >>> from matplotlib.backends.backend_agg import FigureCanvasAgg
    >>> figure = new_figure(3, 2); ax = figure.subplots(); _ = FigureCanvasAgg(figure)
    >>> _ = ax.plot([0, 1], [0, 1], "o-")
    >>> [label.get_text() for label in place_labels(ax, {"a": (0, 0), "b": (1, 1)})]
    ['a', 'b']
    """
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    renderer, frame, pixels = ax.figure.canvas.get_renderer(), ax.get_window_extent(), ax.transData.transform
    lines = [pixels(np.asarray(line.get_xydata(), dtype=float)) for line in ax.get_lines() if len(line.get_xdata())]
    marks = np.concatenate([*lines, pixels(np.array(list(points.values())))])
    taken = [Bbox.from_bounds(x - 5, y - 5, 10, 10) for x, y in marks]
    for xy in lines:  # every line as small boxes 3 pixels apart
        for start, end in zip(xy[:-1], xy[1:], strict=True):
            taken += [Bbox.from_bounds(x - 1.5, y - 1.5, 3, 3)
                      for x, y in np.linspace(start, end, int(np.hypot(*(end - start)) // 3) + 2)]
    placed = []
    for text, xy in points.items():
        own = pixels(np.array([xy], dtype=float))[0]
        for ring, (dx, dy) in enumerate(OFFSETS):
            label = ax.annotate(text, xy, xytext=(dx, dy), textcoords="offset points", fontsize=8,
                                ha="left" if dx > 0 else "right" if dx < 0 else "center",
                                va="bottom" if dy > 0 else "top" if dy < 0 else "center",
                                arrowprops={"arrowstyle": "-", "color": "#999999", "lw": 0.6} if ring >= 8 else None)
            label.update_positions(renderer)
            box = Text.get_window_extent(label, renderer)  # the text alone, without its leader line
            gap = np.hypot(np.maximum(0, np.maximum(box.x0 - marks[:, 0], marks[:, 0] - box.x1)),
                           np.maximum(0, np.maximum(box.y0 - marks[:, 1], marks[:, 1] - box.y1)))
            mine = np.hypot(*(marks - own).T) < 1  # the markers drawn where this point is
            if (frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1) and gap[mine].min() < gap[~mine].min(initial=np.inf)
                    and not any(box.overlaps(other) for other in taken)):
                taken.append(box.padded(2))
                placed.append(label)
                break
            label.remove()
    return placed


def lambda_figure(curve: pd.DataFrame, near: float = 0.1):
    """The curve of `lambda_curve` twice: left the whole grid, right zoomed on the points within `near` of each
    axis's span from no MMR (the grey box on the left). Points are labelled with their λ (`place_labels`); the
    legend sits below the plots. Returns the figure, the two stars (the slider's point) and the legend.

    >>> curve = pd.DataFrame({"relevance": [0.84, 0.57, 0.84], "diversity": [0.70, 0.56, 0.71]},
    ...                      index=pd.Index(["off", 0.1, 0.9], name="mmr_lambda"))
    >>> figure, stars, legend = lambda_figure(curve); len(figure.axes), len(stars)
    (2, 2)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = new_figure(8.6, 3.9)
    FigureCanvasAgg(figure)
    axes, mmr, xy = figure.subplots(1, 2), curve.drop(index="off"), curve[["relevance", "diversity"]].to_numpy(float)
    off, span = curve.loc["off"].to_numpy(float), np.maximum(np.ptp(xy, axis=0), 1e-9)
    close = (np.abs(xy - off) <= near * span).all(axis=1)
    low, high = xy[close].min(axis=0), xy[close].max(axis=0)
    box = np.array([low, high]) + np.outer([-1, 1], np.maximum((high - low) * 0.35, np.maximum(span, 1e-3) * 0.01))
    stars = []
    for ax, title in zip(axes, ["λ's whole grid", "zoomed: the grey box"], strict=True):
        ax.plot(mmr["relevance"], mmr["diversity"], "o-", color="#7570b3", label="MMR, each point labelled by its λ")
        ax.plot(*off, "s", color="#333333", label="no MMR")
        stars.append(ax.plot([], [], "*", markersize=16, color="#d95f02", label="pipe")[0])
        ax.set(title=title, xlabel="relevance: recall@5, focused queries")
    axes[0].plot(box[[0, 1, 1, 0, 0], 0], box[[0, 0, 1, 1, 0], 1], color="#aaaaaa", lw=1, label="the zoomed area")
    axes[0].set(ylabel="diversity: α-nDCG@10, multi queries")
    axes[0].margins(0.12)
    axes[1].set(xlim=box[:, 0], ylim=box[:, 1])
    legend = figure.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=4, fontsize=8, frameon=False)
    figure.tight_layout(rect=(0, 0.09, 1, 1))
    names = {}  # points drawn at the same place share one label: "1.0 = no MMR"
    for key, point, near_off in zip(curve.index, map(tuple, xy), close, strict=True):
        names.setdefault(point, [near_off]).append("no MMR" if key == "off" else str(float(key)))
    labels = {" = ".join(sorted(keys[1:], key=lambda k: (k == "no MMR", k))): (point, keys[0])
              for point, keys in names.items()}
    place_labels(axes[0], {text: point for text, (point, near_off) in labels.items() if not near_off})
    place_labels(axes[1], {text: point for text, (point, _) in labels.items()
                           if (box[0] <= point).all() and (np.array(point) <= box[1]).all()})
    return figure, stars, legend


def mmr_widget(pipe, queries: Sequence[Query], lambdas: Sequence[float], value: float = 0.7, name: str = "pipe"):
    """A λ slider over the relevance-diversity curve of `lambda_curve` (`lambda_figure`); the current λ is marked
    and named, with its two values, in the legend. A line beside the slider says that it configures the
    pipeline (`name` is what the notebook calls it).

    >>> mmr_widget(pipe, dev, [0.3, 0.5, 0.7]).children[0].description  # doctest: +SKIP
    'λ'
    """
    import ipywidgets as widgets

    curve = lambda_curve(pipe, queries, lambdas)
    slider = widgets.FloatSlider(value=value, min=float(min(lambdas)), max=float(max(lambdas)),
                                 step=float(np.min(np.diff(sorted(lambdas)))), description="λ",
                                 continuous_update=False, layout=SLIDER)
    image = widgets.Image(format="png")
    note = widgets.HTML(f"This slider configures <code>{name}</code>: it sets <code>{name}.config.mmr_lambda</code> "
                        f"to its λ (when shown and at every move), and later cells that use <code>{name}</code> "
                        "rank with it.")
    figure, stars, legend = lambda_figure(curve)
    star_label = next(text for text in legend.get_texts() if text.get_text() == "pipe")

    def moving() -> list:  # the curves, labels and axes are drawn once; a move redraws the stars and the legend
        return [*stars, legend]

    def redraw(_change=None) -> None:
        point = mmr_update(pipe, queries, slider.value)
        for star in stars:
            star.set_data([point["relevance"]], [point["diversity"]])
        star_label.set_text(f"{name}: λ = {slider.value:.2f} ({point['relevance']:.3f}, {point['diversity']:.3f})")
        show_figure(image, figure, moving)

    slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([slider, note, image])
