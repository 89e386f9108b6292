"""Sliders for notebook 05: BM25's `k1` and `b` over its two curves and over a live ranking.

A widget here only wires controls to plain functions, which are tested without a front end:
`saturation_curve`, `length_curve` (the curves), `ranking_table` and `mean_recall` (the ranking of one query
and the recall of a query set under any `k1`, `b`). Re-ranking uses the index's stored term statistics, so
a slider move costs milliseconds. Left out: saving a chosen setting, and tuning on more than one split.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragkit.bm25 import BM25Index, saturated_tf
from ragkit.chunking import Chunk
from ragkit.corpus import Query
from ragkit.evaluation import per_query_metrics
from ragkit.relevance import Judgment, ranking_hits
from ragkit.words import tokenize_all


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


def ranking_table(index: BM25Index, chunks: Sequence[Chunk], tokens: list[str], k1: float, b: float, k: int = 5,
                  judgment: Judgment | None = None) -> pd.DataFrame:
    """The top `k` chunks for one tokenized query under (k1, b): rank, chunk, score, relevant, text.

    >>> from ragkit.chunking import Chunk
    >>> chunks = [Chunk("a#0", "a", 0, 9, "rotate keys"), Chunk("b#0", "b", 0, 9, "rotate logs")]
    >>> ranking_table(BM25Index([["rotate", "keys"], ["rotate", "logs"]]), chunks, ["keys"], 1.5, 0.75, k=1).chunk.tolist()
    ['a#0']
    """
    scores = index.query_scores(tokens, k1, b)
    ranking = index.rankings([tokens], k, k1, b)[0]
    hits = ranking_hits([chunks[i] for i in ranking], judgment) if judgment is not None else [None] * k
    return pd.DataFrame({
        "rank": range(1, k + 1), "chunk": [chunks[i].chunk_id for i in ranking],
        "score": [round(float(scores[i]), 3) for i in ranking],
        "relevant": ["" if hit is None else ("yes" if hit else "no") for hit in hits],
        "text": [" ".join(chunks[i].text.split())[:70] for i in ranking],
    })


def mean_recall(index: BM25Index, chunks: Sequence[Chunk], query_tokens: list[list[str]],
                judgments: Sequence[Judgment], k1: float, b: float, k: int = 5) -> float:
    """Mean recall@k of the answerable queries when BM25 ranks the chunks with (k1, b).

    >>> from ragkit.chunking import Chunk
    >>> from ragkit.relevance import Target
    >>> chunks = [Chunk("a#0", "a", 0, 9, "rotate keys"), Chunk("b#0", "b", 0, 9, "rotate logs")]
    >>> index = BM25Index([["rotate", "keys"], ["rotate", "logs"]])
    >>> mean_recall(index, chunks, [["logs"]], [Judgment("q", "keyword", "dev", (Target("b", 0, 5),))], 1.5, 0.75, k=1)
    1.0
    """
    rankings = index.rankings(query_tokens, k, k1, b)
    table = per_query_metrics([[chunks[i] for i in row] for row in rankings], judgments, [f"recall@{k}"])
    return float(table.loc[table["answerable"], f"recall@{k}"].mean())


def curve_widget(parameter: str = "k1"):
    """A slider over one BM25 curve: "k1" draws saturation against tf, "b" draws weight against length."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    if parameter == "k1":
        slider = widgets.FloatSlider(value=1.5, min=0.0, max=5.0, step=0.1, description="k1")
    else:
        slider = widgets.FloatSlider(value=0.75, min=0.0, max=1.0, step=0.05, description="b")
    out = widgets.Output()

    def draw(_=None):
        with out:
            out.clear_output(wait=True)
            fig, ax = plt.subplots(figsize=(6, 3))
            if parameter == "k1":
                ax.plot(*saturation_curve(0.0), ":", color="grey", label="k1 = 0: only presence counts")
                ax.plot(*saturation_curve(slider.value), "o-", label=f"k1 = {slider.value:.1f}")
                ax.axhline(slider.value + 1, ls="--", color="C0", alpha=0.5, label="ceiling k1 + 1")
                ax.set(xlabel="term frequency in the chunk", ylabel="weight (× IDF)")
            else:
                ax.plot(*length_curve(0.0), ":", color="grey", label="b = 0: length ignored")
                ax.plot(*length_curve(slider.value), label=f"b = {slider.value:.2f} (k1 = 1.5, tf = 3)")
                ax.set(xlabel="chunk length / average length", ylabel="weight (× IDF)")
            ax.legend(loc="lower right")
            plt.show()

    slider.observe(draw, "value")
    draw()
    return widgets.VBox([slider, out])


def ranking_widget(index: BM25Index, chunks: Sequence[Chunk], queries: Sequence[Query],
                   judgments: Sequence[Judgment], k: int = 5):
    """Sliders for k1 and b and a query menu: the query's top k and the mean recall@k over all `queries`."""
    import ipywidgets as widgets
    from IPython.display import display

    tokens = tokenize_all(query.text for query in queries)
    menu = widgets.Dropdown(options=[(f"{q.query_id}: {q.text}", i) for i, q in enumerate(queries)],
                            description="query", layout={"width": "600px"})
    k1 = widgets.FloatSlider(value=index.k1, min=0.0, max=5.0, step=0.1, description="k1")
    b = widgets.FloatSlider(value=index.b, min=0.0, max=1.0, step=0.05, description="b")
    out = widgets.Output()
    baseline = mean_recall(index, chunks, tokens, judgments, index.k1, index.b, k)

    def draw(_=None):
        with out:
            out.clear_output(wait=True)
            recall = mean_recall(index, chunks, tokens, judgments, k1.value, b.value, k)
            print(f"recall@{k} over {len(queries)} queries: {recall:.3f} "
                  f"(k1={index.k1}, b={index.b}: {baseline:.3f})")
            display(ranking_table(index, chunks, tokens[menu.value], k1.value, b.value, k, judgments[menu.value]))

    for control in (menu, k1, b):
        control.observe(draw, "value")
    draw()
    return widgets.VBox([menu, widgets.HBox([k1, b]), out])
