"""MMR: a literal transcription of Carbonell & Goldstein's formula, its edge cases, and the pipeline stage."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ragkit.errors import RagkitError
from ragkit.rank.mmr import metadata_similarity, mmr_rerank, mmr_select, rescale, rescaled_pairs


def mmr_by_the_formula(relevance, similarity, lambda_, k):
    """argmax over unpicked d of [λ·Sim1(d, q) − (1 − λ)·max over picked d' of Sim2(d, d')], written as a loop.
    The first pick is the most relevant candidate (the formula's value at any λ > 0; at λ = 0 it ties them all).
    Ties: the earlier candidate."""
    picked = [max(range(len(relevance)), key=lambda d: (relevance[d], -d))]
    while len(picked) < k:
        best, best_value = None, None
        for d in range(len(relevance)):
            if d in picked:
                continue
            redundancy = max(similarity[d][p] for p in picked)
            value = lambda_ * relevance[d] - (1 - lambda_) * redundancy
            if best_value is None or value > best_value:
                best, best_value = d, value
        picked.append(best)
    return picked


def random_case(n, seed):
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, 8))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return rng.random(n), vectors @ vectors.T


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 12), seed=st.integers(0, 10_000), lambda_=st.floats(0, 1), k=st.integers(1, 12))
def test_equals_the_formula_written_as_a_loop(n, seed, lambda_, k):
    relevance, similarity = random_case(n, seed)
    assert mmr_select(relevance, similarity, lambda_, k).tolist() == mmr_by_the_formula(relevance, similarity,
                                                                                        lambda_, min(k, n))


@settings(max_examples=100, deadline=None)
@given(scores=arrays(float, st.integers(1, 15), elements=st.floats(-5, 5)), seed=st.integers(0, 1000))
def test_lambda_one_is_exactly_the_input_ranking(scores, seed):
    order = np.argsort(-scores, kind="stable")  # the first stage's ranking, ties by index
    _, similarity = random_case(len(scores), seed)
    picked = mmr_select(rescale(scores[order]), similarity, lambda_=1.0)
    assert picked.tolist() == list(range(len(scores))), "λ = 1 must keep the input order, ties included"


def test_edge_cases_by_hand():
    relevance = np.array([0.9, 1.0, 0.8])
    similarity = np.array([[1.0, 0.9, 0.0], [0.9, 1.0, 0.2], [0.0, 0.2, 1.0]])
    assert mmr_select(relevance, similarity, 0.0, 1).tolist() == [1], "the first pick is the most relevant, any λ"
    assert mmr_select(relevance, similarity, 0.0).tolist() == [1, 2, 0], "λ = 0: then the least similar"
    assert mmr_select(np.array([0.5, 0.5]), np.eye(2), 0.7).tolist() == [0, 1], "ties go to the earlier candidate"
    assert mmr_select(relevance, similarity, 0.7, k=2).tolist() == [1, 2], "0.7·0.8 − 0.3·0.2 > 0.7·0.9 − 0.3·0.9"


def test_metadata_approximation_and_rerank_keep_the_tail():
    assert metadata_similarity(["a", "b", "a"]).tolist() == [[1, 0, 1], [0, 1, 0], [1, 0, 1]]
    ranking = np.array([3, 0, 1, 2, 4])
    scores = np.array([0.5, 0.4, 0.1, 1.0, 0.0])
    reranked = mmr_rerank(ranking, scores, None, ["x", "y", "z", "x", "w"], lambda_=0.3, fetch=3)[0]
    assert reranked.tolist()[3:] == [2, 4], "only the first `fetch` are re-ordered"
    assert sorted(reranked.tolist()[:3]) == [0, 1, 3] and reranked[0] == 3


def test_rescaled_redundancy_puts_the_pairs_on_zero_to_one():
    similarity = np.array([[1.0, 0.5, 0.9, 0.7], [0.5, 1.0, 0.6, 0.8], [0.9, 0.6, 1.0, 0.5], [0.7, 0.8, 0.5, 1.0]])
    by_hand = [[1, 0, 1, 0.5], [0, 1, 0.25, 0.75], [1, 0.25, 1, 0], [0.5, 0.75, 0, 1]]  # (s − 0.5) / (0.9 − 0.5)
    assert rescaled_pairs(similarity) == pytest.approx(np.array(by_hand))
    assert rescaled_pairs(np.stack([similarity, np.eye(4)])).tolist()[1] == np.eye(4).tolist(), "all pairs equal: kept"
    # one query where it changes the picks: relevance 1, 0.9, 0.6; the raw cosines all high, the third less so
    scores = np.array([[1.0, 0.9, 0.6]])
    vectors = np.array([[1.0, 0.0], [0.96, 0.28], [0.8, 0.6]])  # cosines: 0.96 (0, 1), 0.8 (0, 2), 0.936 (1, 2)
    plain = mmr_rerank(np.array([[0, 1, 2]]), scores, vectors, ["a", "b", "c"], 0.5, 3)
    rescaled = mmr_rerank(np.array([[0, 1, 2]]), scores, vectors, ["a", "b", "c"], 0.5, 3, rescale_redundancy=True)
    # raw: 0.5·0.75 − 0.5·0.96 = −0.105 against 0.5·0 − 0.5·0.8 = −0.4; rescaled (0.8 → 0, 0.96 → 1): −0.125 against 0
    assert plain.tolist() == [[0, 1, 2]] and rescaled.tolist() == [[0, 2, 1]]


def test_a_batch_of_queries_equals_one_query_at_a_time():
    cases = [random_case(9, seed) for seed in range(5)]
    batch = mmr_select(np.stack([r for r, _ in cases]), np.stack([s for _, s in cases]), 0.6, k=7)
    assert batch.tolist() == [mmr_select(r, s, 0.6, k=7).tolist() for r, s in cases]


def test_bad_input_is_explained():
    for lambda_ in [-0.1, 1.5, float("nan"), True, "0.7"]:
        with pytest.raises(RagkitError, match="lambda must be between 0"):
            mmr_select(np.ones(2), np.eye(2), lambda_)
    with pytest.raises(RagkitError, match="2 x 2 similarity"):
        mmr_select(np.ones(2), np.eye(3), 0.5)
    with pytest.raises(RagkitError, match="positive integer"):
        mmr_select(np.ones(2), np.eye(2), 0.5, k=0)


@pytest.fixture(scope="module")
def course(course_docs, course_queries, encoder):
    from ragkit.pipeline import Pipeline

    return Pipeline(course_docs, encoder=encoder), [q for q in course_queries if q.split == "dev" and q.evidence]


@pytest.mark.parametrize("method", ["dense", "bm25", "hybrid"])
def test_mmr_lambda_one_gives_exactly_the_metrics_without_mmr(course, method):
    pipe, dev = course
    metrics = ["recall@5", "ndcg@10", "mrr@10", "failure@20"]
    plain = pipe.using(method=method).evaluate(dev, metrics)
    same = pipe.using(method=method, mmr_lambda=1.0, mmr_fetch=20).evaluate(dev, metrics)
    assert plain[metrics].equals(same[metrics]), "λ = 1 must change nothing"


def test_mmr_changes_rankings_without_reembedding(course):
    pipe, dev = course
    texts = [q.text for q in dev[:30]]
    plain = pipe.using(method="hybrid").rankings(texts, 10)
    computed, runs = pipe.encoder.computed, pipe.runs["embeddings"]
    diverse = pipe.using(method="hybrid", mmr_lambda=0.3).rankings(texts, 10)
    by_metadata = pipe.using(method="hybrid", mmr_lambda=0.3, mmr_similarity="metadata").rankings(texts, 10)
    assert diverse != plain and by_metadata != plain, "λ = 0.3 re-orders some rankings"
    assert pipe.encoder.computed == computed and pipe.runs["embeddings"] == runs, "nothing is embedded again"
    top5_docs = [len({c.doc_id for c in r[:5]}) for r in by_metadata]
    assert np.mean(top5_docs) > np.mean([len({c.doc_id for c in r[:5]}) for r in plain]), \
        "the metadata similarity spreads the top 5 over more documents"


def test_diversity_table_recall_counts_parts_like_the_evaluation(course):
    # pooled judging gave many queries several quotes for one part: recall must count parts, as evaluate does
    from ragkit.widgets.mmr import diversity_table

    pipe, dev = course
    for variant in (pipe.using(method="bm25"), pipe.using(method="bm25", mmr_lambda=0.5)):
        ours = diversity_table(variant, dev)["recall@5"].to_numpy()
        expected = variant.evaluate(dev, ["recall@5"])["recall@5"].to_numpy()
        assert np.allclose(ours, expected), "diversity_table's recall@5 differs from the evaluation's"
    assert any(len(q.evidence) > len({p for e in q.evidence for p in e.parts} | {0}) for q in dev)
