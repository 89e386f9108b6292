"""α-nDCG from Clarke et al.'s definition on a hand-worked example, the other diversity measures, and the λ
slider's callback driving the shared pipeline."""

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
    focused = table["type"] != "multi"
    assert point == {"relevance": pytest.approx(table.loc[focused, "recall@5"].mean()),
                     "diversity": pytest.approx(table.loc[~focused, "alpha-ndcg@10"].mean())}
    assert point != off, "λ = 0.3 moves the point"
    curve = lambda_curve(pipe, dev, [0.3, 1.0])
    assert curve.loc[1.0].equals(curve.loc["off"]), "λ = 1 is the ranking without MMR"
    assert pipe.config.mmr_lambda == 0.3, "the curve uses variants: the pipeline keeps its λ"
