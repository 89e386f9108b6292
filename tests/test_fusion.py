"""Rank and score fusion: hand-computed cases, loop references (RRF, Anthropic's cookbook), scikit-learn and
scipy rescaling, depth-limited lists, ties, bad input, and the widget's callback."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy.stats import zscore  # noqa: E402
from sklearn.preprocessing import minmax_scale  # noqa: E402

from ragkit.errors import RagkitError  # noqa: E402
from ragkit.evaluate.relevance import judgments_from_queries  # noqa: E402
from ragkit.evaluate.tables import per_query_metrics  # noqa: E402
from ragkit.index.bm25 import BM25Index  # noqa: E402
from ragkit.index.exact import top_k  # noqa: E402
from ragkit.rank.fusion import FUSIONS, fuse  # noqa: E402
from ragkit.rank.rank_fusion import (
    ranks_from_rankings,
    ranks_from_scores,
    retrieved_mask,
    rrf_fuse,
    rrf_scores,
    weighted_rank_fuse,
)
from ragkit.rank.score_fusion import minmax_fuse, minmax_normalize, zscore_fuse, zscore_normalize  # noqa: E402
from ragkit.text.analyzer import Analyzer  # noqa: E402
from ragkit.widgets.fusion import fusion_explorer, fusion_table, fusion_update  # noqa: E402


def loop_rrf(rankings, rrf_k=60, weights=None):
    """Textbook RRF with dicts: rank starts at 1 (seed 001 started at 0, which is a different constant)."""
    weights = weights or [1.0] * len(rankings)
    fused = {}
    for weight, ranking in zip(weights, rankings, strict=True):
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (rrf_k + rank)
    return fused


def cookbook_blend(dense_ids, sparse_ids, semantic_weight=0.8, bm25_weight=0.2):
    """The scoring loop of Anthropic's contextual-retrieval cookbook (indices from 0)."""
    scores = {}
    for chunk_id in set(dense_ids) | set(sparse_ids):
        score = 0.0
        if chunk_id in dense_ids:
            score += semantic_weight * (1 / (dense_ids.index(chunk_id) + 1))
        if chunk_id in sparse_ids:
            score += bm25_weight * (1 / (sparse_ids.index(chunk_id) + 1))
        scores[chunk_id] = score
    return scores


def test_rrf_by_hand_with_a_missing_item():
    # dense ranks A, B, C; sparse ranks C, A and never returns B
    ranks = ranks_from_rankings([[0, 1, 2], [2, 0]], n_items=3)
    fused = rrf_scores([ranks[:1], ranks[1:]], rrf_k=60)[0]
    expected = [1 / 61 + 1 / 62, 1 / 62, 1 / 63 + 1 / 61]
    np.testing.assert_allclose(fused, expected, rtol=1e-12, err_msg="RRF = sum 1/(60 + rank), rank from 1")
    assert top_k(fused, 3).tolist() == [0, 2, 1], "A (ranks 1 and 2) beats C (ranks 3 and 1) by a hair"


def test_rank_starts_at_one():
    fused = rrf_scores([np.array([[1.0, 2.0]])], rrf_k=0)
    assert fused.tolist() == [[1.0, 0.5]], "with rrf_k = 0 the top item scores 1/1, not 1/0"


def test_rrf_equals_the_dict_loop_on_random_depth_limited_lists():
    rng = np.random.default_rng(0)
    n = 50
    for trial in range(20):
        dense, sparse = rng.normal(size=(1, n)), rng.exponential(size=(1, n)) * (rng.random((1, n)) < 0.6)
        depth = int(rng.integers(1, n + 1))
        fused = rrf_fuse(dense, sparse, rrf_k=60, depth=depth, weights=(1.0, 0.7))[0]
        dense_list = np.argsort(-dense[0], kind="stable")[:depth].tolist()
        sparse_list = [i for i in np.argsort(-sparse[0], kind="stable")[:depth].tolist() if sparse[0, i] > 0]
        expected = loop_rrf([dense_list, sparse_list], 60, [1.0, 0.7])
        reference = np.array([expected.get(i, 0.0) for i in range(n)])
        np.testing.assert_allclose(fused, reference, atol=1e-12, err_msg=f"trial {trial}: RRF differs from the loop")


def test_weighted_blend_equals_anthropics_cookbook_loop():
    rng = np.random.default_rng(1)
    dense, sparse = rng.normal(size=(3, 200)), rng.exponential(size=(3, 200))
    fused = weighted_rank_fuse(dense, sparse, weights=(0.8, 0.2), depth=150)
    for row in range(3):
        expected = cookbook_blend(np.argsort(-dense[row], kind="stable")[:150].tolist(),
                                  np.argsort(-sparse[row], kind="stable")[:150].tolist())
        reference = np.array([expected.get(i, 0.0) for i in range(200)])
        np.testing.assert_allclose(fused[row], reference, atol=1e-12, err_msg="cookbook blend differs from its loop")


def test_ranks_ties_keep_the_lower_index_first_and_zero_sparse_scores_are_not_ranked():
    assert ranks_from_scores([[0.5, 0.9, 0.5, 0.5]]).tolist() == [[2.0, 1.0, 3.0, 4.0]], "ties: lower index first"
    assert ranks_from_scores([[0.0, 2.0, 0.0]], min_score=0).tolist() == [[np.inf, 1.0, np.inf]], \
        "a sparse score of 0 (no word matched) has no rank"
    assert ranks_from_scores([[0.1, 0.3, 0.2]], depth=2).tolist() == [[np.inf, 1.0, 2.0]], "beyond depth: inf"
    assert retrieved_mask([[0.1, 0.3, 0.2]], depth=1).tolist() == [[False, True, False]], "depth 1 keeps the best"


def test_a_depth_cut_through_ties_keeps_the_lowest_indices():
    scores = np.zeros((1, 300))
    scores[0, 7] = 1.0
    ranks = ranks_from_scores(scores, depth=3)
    assert np.flatnonzero(np.isfinite(ranks[0])).tolist() == [0, 1, 7], "ties at the cut: lowest indices kept"
    assert ranks[0, [7, 0, 1]].tolist() == [1.0, 2.0, 3.0], "ranks agree with the cut"


def test_ties_in_the_fused_scores_are_deterministic():
    # items 0 and 1 swap places between the lists: equal RRF scores, so the lower index comes first
    fused = rrf_fuse([[0.9, 0.8, 0.1]], [[1.0, 2.0, 0.0]])
    assert fused[0, 0] == fused[0, 1], "swapped ranks give equal RRF scores"
    assert top_k(fused, 3).tolist() == [[0, 1, 2]], "equal fused scores: lower index first"


def test_minmax_and_zscore_equal_scikit_learn_and_scipy():
    scores = np.random.default_rng(2).normal(size=(4, 30))
    np.testing.assert_allclose(minmax_normalize(scores), minmax_scale(scores, axis=1), atol=1e-12,
                               err_msg="min-max must equal scikit-learn's minmax_scale per query")
    np.testing.assert_allclose(zscore_normalize(scores), zscore(scores, axis=1), atol=1e-12,
                               err_msg="z-score must equal scipy.stats.zscore (population std) per query")


def test_rescaling_depth_limited_lists_and_constant_rows():
    scores = np.array([[4.0, 1.0, 3.0, 2.0]])
    top2 = retrieved_mask(scores, depth=2)
    assert minmax_normalize(scores, top2).tolist() == [[1.0, 0.0, 0.0, 0.0]], "min-max over the top 2; others 0"
    np.testing.assert_allclose(zscore_normalize(scores, top2), [[1.0, -1.0, -1.0, -1.0]], atol=1e-12,
                               err_msg="z over the top 2; the others get the lowest z")
    assert minmax_normalize([[2.0, 2.0]]).tolist() == [[0.0, 0.0]], "a constant row carries no preference"
    assert zscore_normalize([[2.0, 2.0]]).tolist() == [[0.0, 0.0]], "a constant row carries no preference"


def test_score_fusion_by_hand():
    # dense min-max: 1, 0.5, 0; sparse min-max: 0, 1, 0.5
    fused = minmax_fuse([[0.9, 0.5, 0.1]], [[0.0, 2.0, 1.0]], alpha=0.25)
    np.testing.assert_allclose(fused, [[0.25, 0.875, 0.375]], atol=1e-12, err_msg="0.25 dense + 0.75 sparse")
    fused = zscore_fuse([[1.0, 2.0, 3.0]], [[0.0, 0.0, 6.0]], alpha=0.5)
    expected = 0.5 * np.array([-1.5 ** 0.5, 0, 1.5 ** 0.5]) + 0.5 * np.array([-(0.5 ** 0.5), -(0.5 ** 0.5), 2 ** 0.5])
    np.testing.assert_allclose(fused[0], expected, atol=1e-12, err_msg="z-scores by hand")


@pytest.mark.parametrize("fuse", [minmax_fuse, zscore_fuse])
def test_alpha_one_is_pure_dense_and_zero_pure_sparse(fuse):
    rng = np.random.default_rng(3)
    dense, sparse = rng.normal(size=(5, 40)), rng.exponential(size=(5, 40))
    assert (top_k(fuse(dense, sparse, alpha=1.0), 10) == top_k(dense, 10)).all(), "alpha = 1 must rank as dense"
    assert (top_k(fuse(dense, sparse, alpha=0.0), 10) == top_k(sparse, 10)).all(), "alpha = 0 must rank as sparse"


def test_rrf_with_one_weight_zero_ranks_as_that_retriever():
    rng = np.random.default_rng(4)
    dense, sparse = rng.normal(size=(5, 40)), rng.exponential(size=(5, 40))
    assert (top_k(rrf_fuse(dense, sparse, weights=(1, 0)), 10) == top_k(dense, 10)).all(), "weights (1, 0) = dense"


def test_bad_input_is_explained():
    dense, sparse = np.zeros((1, 3)), np.ones((1, 3))
    for rrf_k in [-1, float("nan"), float("inf"), True, "60"]:
        with pytest.raises(RagkitError, match="rrf_k"):
            rrf_fuse(dense, sparse, rrf_k=rrf_k)
    for alpha in [-0.1, 1.5, float("nan"), True]:
        with pytest.raises(RagkitError, match="alpha"):
            minmax_fuse(dense, sparse, alpha=alpha)
    for weights in [(1, -1), (0, 0), (1,), (1, float("nan"))]:
        with pytest.raises(RagkitError, match="weight"):
            rrf_fuse(dense, sparse, weights=weights)
    for depth in [0, -2, 4]:
        with pytest.raises(RagkitError, match="depth|k must"):
            rrf_fuse(dense, sparse, depth=depth)
    with pytest.raises(RagkitError, match="same shape"):
        zscore_fuse(dense, np.ones((1, 4)))
    with pytest.raises(RagkitError, match="corpus is empty"):
        rrf_fuse(np.zeros((1, 0)), np.zeros((1, 0)))
    with pytest.raises(RagkitError, match="finite"):
        minmax_fuse([[np.nan, 1.0, 0.0]], sparse)
    with pytest.raises(RagkitError, match="start at 1"):
        rrf_scores([np.array([[0.0, 1.0]])])
    with pytest.raises(RagkitError, match="twice"):
        ranks_from_rankings([[1, 1]], n_items=3)
    with pytest.raises(RagkitError, match="outside"):
        ranks_from_rankings([[3]], n_items=3)


def tiny_case():
    """Three chunks; query 1 needs chunk 0, query 2 needs chunk 2 (worked out by hand below)."""
    dense = np.array([[0.5, 0.9, 0.1], [0.2, 0.1, 0.9]])   # top 1: misses q1's chunk 0, finds q2's chunk 2
    sparse = np.array([[3.0, 0.0, 1.0], [0.0, 2.0, 0.0]])  # top 1: finds q1's chunk 0, misses q2's chunk 2
    return dense, sparse


def test_each_fusion_by_name_by_hand():
    dense, sparse = tiny_case()
    best = {fusion: top_k(fuse(dense, sparse, fusion, rrf_k=60, alpha=0.5), 1)[:, 0].tolist() for fusion in FUSIONS}
    # q1: RRF c0 = 1/62 + 1/61 > c1 = 1/61; min-max c0 = 0.75 > c1 = 0.5; z-score c0 = 0.668 > c1 = 0.078;
    #     weighted c0 = 0.5/2 + 0.5/1 > c1 = 0.5/1
    # q2: RRF c1 = 1/63 + 1/61 > c2 = 1/61; min-max c1 = c2 = 0.5 (tie: the lower index c1); z-score c2 0.349 >
    #     c1 0.286; weighted c1 = 0.5/3 + 0.5/1 > c2 = 0.5/1
    assert best == {"rrf": [0, 1], "weighted": [0, 1], "minmax": [0, 1], "zscore": [0, 2]}, best
    assert fuse(dense, sparse, "weighted", alpha=1.0).argmax(axis=1).tolist() == [1, 2], "alpha = 1: dense alone"
    with pytest.raises(RagkitError, match="unknown fusion 'max'"):
        fuse(dense, sparse, "max")
    with pytest.raises(RagkitError, match="alpha"):
        fuse(dense, sparse, "weighted", alpha=2)


@pytest.fixture(scope="module")
def course_pipe(course_docs, encoder):
    from ragkit.pipeline import Pipeline

    return Pipeline(course_docs, encoder=encoder, method="hybrid")


def recall_from_scratch(pipe, encoder, queries, fused_scores_of, k=5):
    """recall@k of one fusion computed apart from the pipeline: vectors from the encoder, a BM25 index built
    anew over the analyzer's terms, the fusion function, a full stable sort."""
    texts = [q.text for q in queries]
    dense = encoder.encode(texts) @ encoder.encode([c.text for c in pipe.chunks]).T
    analyzer = Analyzer(pipe.config.stemmer, pipe.config.stopwords, pipe.config.identifiers)
    sparse = BM25Index(analyzer.tokens_of_all(c.text for c in pipe.chunks), pipe.config.k1, pipe.config.b).scores(
        analyzer.tokens_of_all(texts))
    order = np.argsort(-fused_scores_of(dense, sparse), axis=1, kind="stable")[:, :k]
    table = per_query_metrics([[pipe.chunks[i] for i in row] for row in order],
                              judgments_from_queries(queries, pipe.docs), [f"recall@{k}"])
    return round(float(table[f"recall@{k}"].mean()), 3)


def test_fusion_update_configures_the_pipeline_and_the_bars_follow(course_pipe, course_queries, encoder):
    dev = [q for q in course_queries if q.split == "dev" and q.evidence]
    pipe = course_pipe.using(k1=1.2, b=0.75)
    table = fusion_update(pipe, dev, 5, rrf_k=10, alpha=0.8, fusion="minmax")
    assert (pipe.config.rrf_k, pipe.config.alpha, pipe.config.fusion) == (10, 0.8, "minmax"), "knobs are set"
    assert list(table.columns) == ["dense", "bm25", "rrf", "weighted", "minmax", "zscore"]
    assert list(table.index)[-1] == "all" and "unanswerable" not in table.index
    assert table.loc["all", "rrf"] == recall_from_scratch(pipe, encoder, dev, lambda d, s: rrf_fuse(d, s, rrf_k=10))
    assert table.loc["all", "minmax"] == recall_from_scratch(pipe, encoder, dev, lambda d, s: minmax_fuse(d, s, 0.8))
    assert table.loc["all", "bm25"] == recall_from_scratch(pipe, encoder, dev, lambda d, s: s), \
        "the BM25 column uses the pipeline's own k1 and b"
    moved = fusion_update(pipe, dev, 5, rrf_k=0)
    assert moved.loc["all", "rrf"] == recall_from_scratch(pipe, encoder, dev, lambda d, s: rrf_fuse(d, s, rrf_k=0))
    assert moved.loc["all", "rrf"] != table.loc["all", "rrf"], "rrf_k = 0 and 10 rank the dev queries differently"
    assert moved[["dense", "bm25", "minmax"]].equals(table[["dense", "bm25", "minmax"]]), \
        "rrf_k moves only the RRF bars"
    with pytest.raises(RagkitError, match="rrf_k"):
        fusion_update(pipe, dev, 5, rrf_k=-1)
    assert pipe.config.rrf_k == 0, "a refused value leaves the pipeline as it was"


def test_widget_builds_and_redraws_on_a_slider_change(course_pipe, course_queries):
    dev = [q for q in course_queries if q.split == "dev" and q.evidence][:30]
    pipe = course_pipe.using()
    box = fusion_explorer(pipe, dev, k=1)
    (rrf_k, alpha, fusion), image = box.children[0].children, box.children[1]
    pictures = [bytes(image.value)]
    for control, value in ((rrf_k, 10), (alpha, 0.8), (fusion, "weighted")):
        control.value = value  # each change calls the redraw callback
        pictures.append(bytes(image.value))
    assert (pipe.config.rrf_k, pipe.config.alpha, pipe.config.fusion) == (10, 0.8, "weighted"), \
        "the sliders and the menu drive the pipeline"
    assert len(set(pictures)) == 4, "every change redraws the bars"
    assert all(int(s.layout.width.removesuffix("px")) >= 400 for s in (rrf_k, alpha)), "long sliders"


def test_the_bars_move_in_place():
    from ragkit.widgets.fusion import fusion_bars, update_fusion_bars

    table = pd.DataFrame({"dense": [0.5, 0.4], "rrf": [0.7, 0.5], "zscore": [0.6, 0.45]}, index=["factoid", "all"])
    ax = fusion_bars(table, "rrf")
    patches = list(ax.patches)
    update_fusion_bars(ax, table.assign(rrf=[0.2, 0.3]), "zscore")
    assert list(ax.patches) == patches, "the same bars, not new ones"
    assert [bar.get_width() for bar in ax.containers[1]] == [0.2, 0.3], "the rrf bars got their new lengths"
    assert [bar.get_hatch() for bar in ax.patches] == [None, None, None, None, "//", "//"], "only zscore hatched"
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["zscore (pipe)", "rrf", "dense"]


def test_hybrid_on_the_course_data(course_pipe, course_queries):
    dev = [q for q in course_queries if q.split == "dev" and q.evidence]
    table = fusion_table(course_pipe, dev, k=20)
    assert table.loc["all", "rrf"] >= max(table.loc["all", "dense"], table.loc["all", "bm25"]) - 0.02, \
        f"RRF recall@20 should not fall clearly below the better single retriever:\n{table}"


def test_fusion_bars_one_colour_each_and_the_legend_in_drawing_order():
    from ragkit.widgets.fusion import fusion_bars

    table = pd.DataFrame({"dense": [0.5, 0.4], "bm25": [0.6, 0.3], "rrf": [0.7, 0.5], "weighted": [0.65, 0.45],
                          "minmax": [0.6, 0.4], "zscore": [0.62, 0.41]}, index=["factoid", "all"])
    ax = fusion_bars(table, "weighted")
    colours = {container.get_label(): container.patches[0].get_facecolor() for container in ax.containers}
    assert len(set(colours.values())) == 6, "each fusion needs its own colour"
    # top to bottom on screen within a group, as the legend lists them
    drawn = sorted(ax.containers, key=lambda container: -container.patches[0].get_y())
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend == [container.get_label() for container in drawn]
    assert legend[2] == "weighted (pipe)" and drawn[2].patches[0].get_hatch() == "//"
    bbox = ax.get_legend().get_bbox_to_anchor().transformed(ax.transAxes.inverted())
    assert bbox.x0 >= 1.0, "the legend sits outside the bars"
