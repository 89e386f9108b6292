"""The fusion sliders of notebook 06: recall@k per query type as the RRF constant and `alpha` move.

`fusion_recall_table` is the slider callback, a plain function over precomputed dense and sparse scores (so a
move re-fuses in milliseconds and is unit-tested); `fusion_explorer` only wires ipywidgets to it. The fusion
formulas themselves are in `ragkit.fusion`. Left out: fusing more than two retrievers in the widget.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragkit.chunking import Chunk
from ragkit.errors import RagkitError
from ragkit.evaluation import per_query_metrics
from ragkit.fusion import FUSION_METHODS, check_score_pair, minmax_fuse, rrf_fuse, zscore_fuse
from ragkit.relevance import Judgment
from ragkit.search import top_k


def fusion_recall_table(dense_scores: np.ndarray, sparse_scores: np.ndarray, chunks: Sequence[Chunk],
                        judgments: Sequence[Judgment], rrf_k: float = 60, alpha: float = 0.5, k: int = 5,
                        methods: Sequence[str] = FUSION_METHODS) -> pd.DataFrame:
    """Mean recall@k per query type (and "all") for dense, sparse, RRF(rrf_k), min-max and z-score(alpha).

    >>> table = fusion_recall_table(dense, bm25, pipe.chunks, judgments, rrf_k=60, alpha=0.5)  # doctest: +SKIP
    >>> list(table.columns)  # doctest: +SKIP
    ['dense', 'sparse', 'rrf', 'minmax', 'zscore']
    """
    dense, sparse = check_score_pair(dense_scores, sparse_scores)
    if len(chunks) != dense.shape[1] or len(judgments) != dense.shape[0]:
        raise RagkitError("need one score column per chunk and one score row per judgment")
    fuse = {"dense": lambda: dense, "sparse": lambda: sparse, "rrf": lambda: rrf_fuse(dense, sparse, rrf_k),
            "minmax": lambda: minmax_fuse(dense, sparse, alpha), "zscore": lambda: zscore_fuse(dense, sparse, alpha)}
    if not methods or set(methods) - set(fuse):
        raise RagkitError(f"methods must be some of {', '.join(FUSION_METHODS)}, got {list(methods)}")
    per_query = pd.DataFrame({"type": [judgment.type for judgment in judgments]})
    for name in methods:
        rankings = [[chunks[i] for i in row] for row in top_k(fuse[name](), k)]
        per_query[name] = per_query_metrics(rankings, judgments, [f"recall@{k}"])[f"recall@{k}"]
    answerable = per_query[[judgment.answerable for judgment in judgments]]
    if answerable.empty:
        raise RagkitError("no answerable queries to measure recall on")
    table = answerable.groupby("type").mean()
    table.loc["all"] = answerable[list(methods)].mean()
    return table.round(3)


def fusion_explorer(dense_scores: np.ndarray, sparse_scores: np.ndarray, chunks: Sequence[Chunk],
                    judgments: Sequence[Judgment], k: int = 5):
    """Sliders for rrf_k and alpha redrawing `fusion_recall_table` as bars.

    >>> fusion_explorer(dense, bm25, pipe.chunks, judgments)  # doctest: +SKIP
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    rrf_k = widgets.IntSlider(value=60, min=0, max=200, step=5, description="rrf_k")
    alpha = widgets.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.05, description="alpha (dense)")
    output = widgets.Output()
    single = fusion_recall_table(dense_scores, sparse_scores, chunks, judgments, k=k, methods=("dense", "sparse"))

    def redraw(_change=None) -> None:  # only the fused columns depend on the sliders
        table = single.join(fusion_recall_table(dense_scores, sparse_scores, chunks, judgments, rrf_k.value,
                                                alpha.value, k, methods=("rrf", "minmax", "zscore")))
        with output:
            output.clear_output(wait=True)
            ax = table.plot.barh(figsize=(8, 4.5), width=0.8)
            ax.set_xlim(0, 1)
            ax.set_xlabel(f"mean recall@{k} (higher is better)")
            ax.set_title(f"rrf_k = {rrf_k.value}, alpha = {alpha.value:.2f}")
            plt.tight_layout()
            plt.show()

    rrf_k.observe(redraw, names="value")
    alpha.observe(redraw, names="value")
    redraw()
    return widgets.VBox([widgets.HBox([rrf_k, alpha]), output])
