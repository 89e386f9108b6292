"""Notebook 08's measures and λ slider: relevance against diversity as MMR's `mmr_lambda` moves.

`diversity_table` scores one pipeline's rankings per query (recall@5, α-nDCG@10, distinct documents and
intra-list similarity of the top 5); `tradeoff_point` reduces it to the two numbers the curve plots: relevance
(recall@5 on the focused query types) and diversity (α-nDCG@10 on the `multi` queries, whose evidence comes
from several documents). The slider calls `mmr_update`, which sets `pipe.configure(mmr_lambda=...)` (a line
beside the slider says so); nothing is embedded again, and only the curve's marked point moves
(`ragkit.widgets.figures`). Left out: choosing λ per query type.
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


def mmr_widget(pipe, queries: Sequence[Query], lambdas: Sequence[float], value: float = 0.7, name: str = "pipe"):
    """A λ slider over the relevance-diversity curve of `lambda_curve`; the current λ is marked. A line beside
    the slider says that it configures the pipeline (`name` is what the notebook calls it).

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
    figure = new_figure(6, 3.6)
    ax = figure.subplots()
    mmr = curve.drop(index="off")
    ax.plot(mmr["relevance"], mmr["diversity"], "o-", color="#7570b3", label="MMR, λ from the grid")
    ax.plot(*curve.loc["off"], "s", color="#333333", label="no MMR")
    star = ax.plot([], [], "*", markersize=16, color="#d95f02")[0]
    ax.set(xlabel="relevance: recall@5, focused queries", ylabel="diversity: α-nDCG@10, multi queries")

    def moving() -> list:  # the curve, axes and labels are drawn once; a move redraws the star and legend
        return [star, ax.get_legend()]

    def redraw(_change=None) -> None:
        point = mmr_update(pipe, queries, slider.value)
        star.set_data([point["relevance"]], [point["diversity"]])
        star.set_label(f"pipe: λ = {slider.value:.2f}")
        ax.legend(fontsize=8)
        show_figure(image, figure, moving)

    ax.update_datalim(np.column_stack([curve["relevance"], curve["diversity"]]))  # the stars lie on the curve
    ax.autoscale_view()
    ax.legend(fontsize=8)
    figure.tight_layout()
    slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([slider, note, image])
