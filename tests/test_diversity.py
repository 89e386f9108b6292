"""α-nDCG from Clarke et al.'s definition on a hand-worked example and against TREC's ndeval (`pyndeval`), its
ideal ranking's tie rule, the other diversity measures, and the λ slider driving the shared pipeline."""

import math

import numpy as np
import pytest

from ragkit.errors import RagkitError
from ragkit.evaluate.diversity import (
    alpha_dcg,
    alpha_ndcg_at_k,
    distinct_documents,
    ideal_hits,
    intra_list_similarity,
)

A, B = frozenset({0}), frozenset({1})


def test_alpha_ndcg_by_hand():
    # ranking: quote 0, quote 0 again, quote 1. Gains 1, (1 − 0.5)^1 = 0.5, 1; discounts log2(2), log2(3), log2(4)
    dcg = 1 / math.log2(2) + 0.5 / math.log2(3) + 1 / math.log2(4)
    assert alpha_dcg([A, A, B], k=3) == pytest.approx(dcg, abs=1e-12)
    # ideal: quote 0, quote 1, then quote 0 again: 1 + 1/log2(3) + 0.5/log2(4)
    assert ideal_hits([A, A, B], k=3) == [A, B, A]
    ideal = 1 + 1 / math.log2(3) + 0.5 / math.log2(4)
    assert alpha_ndcg_at_k([A, A, B], [A, A, B], k=3) == pytest.approx(dcg / ideal, abs=1e-12)
    assert alpha_ndcg_at_k([A, B, A], [A, A, B], k=3) == pytest.approx(1.0), "the ideal order scores 1"
    assert alpha_dcg([A, A], k=2, alpha=0.0) == pytest.approx(1 + 1 / math.log2(3)), "α = 0: repeats count fully"
    assert alpha_dcg([A, A], k=2, alpha=1.0) == pytest.approx(1.0), "α = 1: a repeat counts nothing"
    assert math.isnan(alpha_ndcg_at_k([frozenset()], [], k=1)), "no subtopics: undefined"


def ndeval_alpha_ndcg(pool_ids, pool, run_ids, k=10):
    """ndeval's α-nDCG@k of one query: qrels from the units that answer a part, the run ranked as given."""
    import pyndeval
    from pyndeval import ScoredDoc, SubtopicQrel

    qrels = [SubtopicQrel("q", str(part), unit, 1) for unit, parts in zip(pool_ids, pool, strict=True)
             for part in parts]
    run = [ScoredDoc("q", unit, -float(rank)) for rank, unit in enumerate(run_ids)]
    return pyndeval.ndeval(qrels, run, measures=[f"alpha-nDCG@{k}"], alpha=0.5)["q"][f"alpha-nDCG@{k}"]


def test_ideal_ties_go_to_the_largest_id_as_in_ndeval():
    # four units whose first greedy pick is a four-way tie; which one wins changes the ideal's α-DCG
    ids = ["u1", "u2", "u3", "u4"]
    pool = [frozenset({2, 3}), frozenset({2, 3}), frozenset({0, 1}), frozenset({0, 3})]
    by_position, by_id = alpha_ndcg_at_k(pool, pool, k=4), alpha_ndcg_at_k(pool, pool, k=4, ids=ids)
    assert by_position != pytest.approx(by_id), "here the tie rule matters"
    assert ideal_hits(pool, k=1, ids=ids) == [frozenset({0, 3})], "u4, the largest id, wins the tie"
    assert by_id == pytest.approx(ndeval_alpha_ndcg(ids, pool, ids, k=4), abs=1e-12)
    with pytest.raises(RagkitError, match="one id per unit"):
        ideal_hits(pool, k=2, ids=ids[:3])


def test_alpha_ndcg_equals_ndeval_on_random_rankings():
    rng = np.random.default_rng(0)
    for case in range(200):
        n_units, n_parts = int(rng.integers(1, 12)), int(rng.integers(1, 5))
        ids = [f"d{i:02d}" for i in rng.permutation(40)[:n_units]]
        covers = [frozenset(np.flatnonzero(rng.random(n_parts) < 0.35).tolist()) for _ in ids]
        if not any(covers):
            continue
        pool_ids = [unit for unit, parts in zip(ids, covers, strict=True) if parts]
        pool = [parts for parts in covers if parts]
        order = rng.permutation(n_units)[: int(rng.integers(1, n_units + 1))]
        hits, run_ids = [covers[i] for i in order], [ids[i] for i in order]
        k = int(rng.integers(1, 11))
        ours = alpha_ndcg_at_k(hits, pool, k=k, ids=pool_ids)
        assert ours == pytest.approx(ndeval_alpha_ndcg(pool_ids, pool, run_ids, k), abs=1e-12), f"case {case}"


def test_alpha_ndcg_with_alpha_zero_is_graded_dcg_of_coverage_counts():
    rng = np.random.default_rng(0)
    for _ in range(50):
        hits = [frozenset(np.flatnonzero(rng.random(3) < 0.3).tolist()) for _ in range(8)]
        plain = sum(len(h) / math.log2(rank + 1) for rank, h in enumerate(hits[:5], start=1))
        assert alpha_dcg(hits, k=5, alpha=0.0) == pytest.approx(plain), "α = 0 counts every coverage: plain DCG"


def test_distinct_documents_and_intra_list_similarity():
    assert distinct_documents(["a", "a", "b"], k=2) == 1
    vectors = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    pairs = [1.0 * 0.6, 0.0, 0.8]  # the three pairwise cosines
    assert intra_list_similarity(vectors) == pytest.approx(np.mean(pairs))
    assert math.isnan(intra_list_similarity(vectors[:1]))
    with pytest.raises(RagkitError, match="alpha must be between 0 and 1"):
        alpha_dcg([A], k=1, alpha=2)


def test_lambda_slider_callback_drives_the_pipeline(course_docs, course_queries, encoder):
    from ragkit.pipeline import Pipeline
    from ragkit.widgets.mmr import diversity_table, lambda_curve, mmr_update

    pipe = Pipeline(course_docs, encoder=encoder, method="hybrid")
    dev = [q for q in course_queries if q.split == "dev"]
    off = mmr_update(pipe, dev, None)
    point = mmr_update(pipe, dev, 0.3)
    assert pipe.config.mmr_lambda == 0.3, "the slider sets the pipeline's mmr_lambda"
    table = diversity_table(pipe.using(mmr_lambda=0.3), dev)
    assert "intra-list similarity@5" in table.columns
    focused = table["type"] != "multi"
    assert point == {"relevance": pytest.approx(table.loc[focused, "recall@5"].mean()),
                     "diversity": pytest.approx(table.loc[~focused, "alpha-ndcg@10"].mean())}
    assert point != off, "λ = 0.3 moves the point"
    curve = lambda_curve(pipe, dev, [0.3, 1.0])
    assert curve.loc[1.0].equals(curve.loc["off"]), "λ = 1 is the ranking without MMR"
    assert pipe.config.mmr_lambda == 0.3, "the curve uses variants: the pipeline keeps its λ"


def test_the_slider_says_beside_itself_that_it_configures_the_pipeline(course_docs, course_queries, encoder):
    import matplotlib

    matplotlib.use("Agg")
    from ragkit.pipeline import Pipeline
    from ragkit.widgets.mmr import mmr_widget

    pipe = Pipeline(course_docs, encoder=encoder, method="hybrid")
    dev = [q for q in course_queries if q.split == "dev"]
    box = mmr_widget(pipe, dev, [0.5, 0.9], value=0.9)
    slider, note = box.children[:2]
    assert slider.description == "λ" and "pipe.config.mmr_lambda" in note.value and "configures" in note.value
    assert pipe.config.mmr_lambda == 0.9, "showing the slider sets the pipeline's λ, as the line says"
    image, before = box.children[2], bytes(box.children[2].value)
    slider.value = 0.5
    assert pipe.config.mmr_lambda == 0.5
    assert bytes(image.value) != before and bytes(image.value)[:4] == b"\x89PNG", "the marked λ moves in place"
    assert int(slider.layout.width.removesuffix("px")) >= 400, "a long slider: a drag moves it in small steps"


def test_the_lambda_plot_labels_every_point_where_no_label_covers_data_and_keeps_its_legend_off_the_axes():
    """Notebook 08's curve: λs near 1 (little diversity) pile up beside no MMR (here as on the course data), so the figure zooms on
    them; every λ gets a readable label in one panel or both, no label covers another or a point, and the legend
    sits below the plots."""
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from ragkit.widgets.mmr import lambda_figure

    points = {"off": (0.842, 0.703), 0.1: (0.574, 0.557), 0.3: (0.698, 0.653), 0.5: (0.809, 0.708),
              0.6: (0.826, 0.708), 0.7: (0.836, 0.705), 0.8: (0.842, 0.705), 0.9: (0.846, 0.704), 1.0: (0.842, 0.703)}
    curve = pd.DataFrame(points, index=["relevance", "diversity"]).T.rename_axis("mmr_lambda")
    figure, stars, legend = lambda_figure(curve)
    renderer = figure.canvas.get_renderer()
    texts = {ax: [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts] for ax in figure.axes}
    shown = {name for labels in texts.values() for text, _ in labels for name in text.split(" = ")}
    assert shown == {"no MMR", *(str(key) for key in points if key != "off")}, shown
    assert "1.0 = no MMR" in [text for text, _ in texts[figure.axes[1]]], "coinciding points share one label"
    for ax, labels in texts.items():
        markers = ax.transData.transform(curve.to_numpy(float))
        inside = [m for m in markers if ax.get_window_extent().contains(*m)]
        for i, (text, box) in enumerate(labels):
            assert not any(box.overlaps(other) for _, other in labels[i + 1:]), f"{text}: labels overlap"
            assert not any(box.x0 - 4 < x < box.x1 + 4 and box.y0 - 4 < y < box.y1 + 4 for x, y in inside), \
                f"{text} covers a point"
    xlim = figure.axes[1].get_xlim()
    assert xlim[1] - xlim[0] < 0.15 * (0.846 - 0.574), "the right panel zooms in over six times"
    legend_box = legend.get_window_extent(renderer)
    assert all(not legend_box.overlaps(ax.get_window_extent()) for ax in figure.axes), "the legend sits below"
    assert len(stars) == 2
