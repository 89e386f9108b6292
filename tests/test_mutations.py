"""The core derivations' checks can fail: plant a plausible bug in ragkit, run the same comparison that the
reference tests and notebooks run, and see it reject the result.

A check that passes whatever the code does proves nothing (the course's rule: every assert must be able to
fail on a plausible bug). Each test here patches one function with a bug a learner or a contributor could
write, then expects the independent comparison to raise.
"""

import bm25s
import numpy as np
import pytest
from helpers import end_tolerance, holm_step_down, sign_flip_p_by_the_loop
from scipy import stats

import ragkit.evaluate.metrics as metrics
import ragkit.evaluate.significance as significance
import ragkit.index.bm25 as bm25_module
import ragkit.rank.rank_fusion as rank_fusion
from ragkit.chunk.base import Chunk
from ragkit.evaluate.relevance import Judgment, Target
from ragkit.evaluate.tables import metric_value
from ragkit.index.bm25 import BM25Index
from ragkit.rank.mmr import mmr_select

CORPUS = [["ts", "203", "quota", "daily"], ["quota", "raise", "ask"], ["retry", "after", "seconds", "quota"],
          ["daily", "reset", "utc"], ["ts", "201", "retry"]]
QUERIES = [["ts", "203"], ["quota", "retry"], ["daily", "utc", "reset"]]


def bm25s_lucene(k1=1.5, b=0.75):
    retriever = bm25s.BM25(method="lucene", k1=k1, b=b, dtype="float64")
    retriever.index(CORPUS, show_progress=False)
    return np.array([retriever.get_scores(tokens) for tokens in QUERIES])


def test_bm25_matches_bm25s_and_a_robertson_idf_bug_does_not(monkeypatch):
    np.testing.assert_allclose(BM25Index(CORPUS).scores(QUERIES), bm25s_lucene(), rtol=1e-6)
    original = bm25_module.idf_values
    monkeypatch.setattr(bm25_module, "idf_values", lambda df, n, idf="lucene", epsilon=0.25:
                        original(df, n, "robertson", epsilon))  # the +1 of Lucene's IDF forgotten
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(BM25Index(CORPUS).scores(QUERIES), bm25s_lucene(), rtol=1e-6)


def rrf_by_the_loop(rankings, rrf_k=60):
    scores = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (rrf_k + rank)
    return scores


def test_rrf_matches_the_loop_and_a_zero_based_rank_bug_does_not(monkeypatch):
    rankings = [[2, 0, 1, 3], [1, 3, 2]]
    ranks = [np.full((1, 4), np.inf), np.full((1, 4), np.inf)]
    for matrix, ranking in zip(ranks, rankings, strict=True):
        matrix[0, ranking] = np.arange(1, len(ranking) + 1)
    expected = rrf_by_the_loop(rankings)
    ours = rank_fusion.rrf_scores(ranks)[0]
    assert all(abs(ours[item] - value) < 1e-12 for item, value in expected.items())
    original = rank_fusion.rrf_scores
    monkeypatch.setattr(rank_fusion, "rrf_scores", lambda r, rrf_k=60, weights=None:
                        original(r, rrf_k - 1, weights))  # ranks counted from 0, as seed 001's enumerate does
    buggy = rank_fusion.rrf_scores(ranks)[0]
    assert not all(abs(buggy[item] - value) < 1e-12 for item, value in expected.items())


def mmr_by_the_formula(relevance, similarity, lambda_, k):
    picked = [int(np.argmax(relevance))]
    while len(picked) < k:
        rest = [d for d in range(len(relevance)) if d not in picked]
        values = [lambda_ * relevance[d] - (1 - lambda_) * max(similarity[d][p] for p in picked) for d in rest]
        picked.append(rest[int(np.argmax(values))])
    return picked


def test_mmr_matches_the_formula_and_an_inverted_lambda_does_not():
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(10, 6))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    relevance, similarity = rng.random(10), vectors @ vectors.T
    assert mmr_select(relevance, similarity, 0.7, 6).tolist() == mmr_by_the_formula(relevance, similarity, 0.7, 6)
    inverted = mmr_select(relevance, similarity, 0.3, 6).tolist()  # λ read as the weight of novelty
    assert inverted != mmr_by_the_formula(relevance, similarity, 0.7, 6)


def test_recall_counts_parts_and_counting_quotes_would_be_caught(monkeypatch):
    # one part answered by either of two quotes, a second part by a third: one unit answering part 0 is half
    judgment = Judgment("q", "multi", "dev", (Target("d", 0, 10), Target("f", 0, 10),
                                               Target("e", 0, 10, parts=frozenset({0}))))
    ranking = [Chunk("e#0", "e", 0, 20, "")]
    assert metric_value("recall@5", ranking, judgment) == 0.5
    monkeypatch.setattr(Judgment, "part_gains", lambda self: [t.gain for t in self.targets])  # quotes, not parts
    assert metric_value("recall@5", ranking, judgment) != 0.5


def maxsim_by_the_loop(query_vectors, chunk_vectors):
    """MaxSim as written: for each query token, its best cosine over the chunk's tokens; then the mean."""
    best = [max(float(q @ d) for d in chunk_vectors) for q in query_vectors]
    return sum(best) / len(best)


def test_maxsim_matches_the_loop_and_a_wrong_axis_bug_does_not():
    from ragkit.rank.maxsim import maxsim_scores

    rng = np.random.default_rng(3)

    def unit(rows):
        vectors = rng.normal(size=(rows, 8))
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    query, chunks = unit(3), [unit(5), unit(7), unit(2)]
    expected = [maxsim_by_the_loop(query, chunk) for chunk in chunks]
    np.testing.assert_allclose(maxsim_scores(query, chunks), expected, atol=1e-6)

    def wrong_axis(query_vectors, chunk_list):  # each chunk token's best query token, averaged: max over the wrong axis
        return [float((query_vectors @ chunk.T).max(axis=0).mean()) for chunk in chunk_list]

    with pytest.raises(AssertionError):
        np.testing.assert_allclose(wrong_axis(query, chunks), expected, atol=1e-6)


def scipy_paired_ends(a, b):
    ends = stats.bootstrap((a, b), lambda x, y, axis: np.mean(y - x, axis=axis), paired=True, vectorized=True,
                           method="percentile", n_resamples=10_000, rng=np.random.default_rng(9)).confidence_interval
    return np.array([ends.low, ends.high])


def test_paired_bootstrap_matches_scipy_and_an_unpaired_bug_does_not(monkeypatch):
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, 150) / 2
    b = np.where(rng.random(150) < 0.8, a, rng.integers(0, 3, 150) / 2)   # equal on most queries, as two pipelines
    tolerance = end_tolerance(a, b, 10_000)
    np.testing.assert_allclose(metrics.paired_bootstrap(a, b)[1:], scipy_paired_ends(a, b), atol=tolerance, rtol=0)

    def unpaired(a, b, n_resamples=10_000, level=0.95, seed=0):  # each system's queries drawn on their own
        rng = np.random.default_rng(seed)
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        means = (b[rng.integers(0, len(b), (n_resamples, len(b)))].mean(axis=1)
                 - a[rng.integers(0, len(a), (n_resamples, len(a)))].mean(axis=1))
        return float(np.mean(b - a)), *np.percentile(means, [2.5, 97.5])

    monkeypatch.setattr(metrics, "paired_bootstrap", unpaired)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(metrics.paired_bootstrap(a, b)[1:], scipy_paired_ends(a, b), atol=tolerance, rtol=0)


def holm_agrees(p_values):
    return all(set(np.flatnonzero(significance.holm(p_values) <= alpha)) == holm_step_down(p_values, alpha)
               for alpha in (0.01, 0.02, 0.035, 0.045, 0.05, 0.1))


def test_holm_matches_the_procedure_and_a_missing_running_maximum_does_not(monkeypatch):
    p_values = np.array([0.01, 0.011, 0.02, 0.5, 0.004, 0.3])
    assert holm_agrees(p_values)

    def no_running_maximum(p_values):  # (m − i + 1)·p alone: a larger p can get a smaller adjusted value
        p = np.asarray(p_values, dtype=float)
        order, adjusted = np.argsort(p), np.empty(len(p))
        adjusted[order] = np.minimum(1.0, (len(p) - np.arange(len(p))) * p[order])
        return adjusted

    monkeypatch.setattr(significance, "holm", no_running_maximum)
    assert not holm_agrees(p_values)


def test_benjamini_hochberg_matches_scipy_and_a_missing_running_minimum_does_not(monkeypatch):
    p_values = np.array([0.01, 0.04, 0.03, 0.5, 0.041, 0.2])
    np.testing.assert_allclose(significance.benjamini_hochberg(p_values), stats.false_discovery_control(p_values),
                               atol=1e-12, rtol=0)

    def no_running_minimum(p_values):  # (m / i)·p alone: a smaller p can get a larger adjusted value
        p = np.asarray(p_values, dtype=float)
        order, adjusted = np.argsort(p), np.empty(len(p))
        adjusted[order] = np.minimum(1.0, len(p) / np.arange(1, len(p) + 1) * p[order])
        return adjusted

    monkeypatch.setattr(significance, "benjamini_hochberg", no_running_minimum)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(significance.benjamini_hochberg(p_values), stats.false_discovery_control(p_values),
                                   atol=1e-12, rtol=0)


def test_sign_flip_test_matches_the_loop_and_a_one_sided_bug_does_not(monkeypatch):
    d = np.random.default_rng(5).normal(0.05, 0.5, 60)
    assert significance.sign_flip_test(d, 2_000)[1][0] == sign_flip_p_by_the_loop(d, 2_000)

    def one_sided(differences, n_resamples=10_000, seed=0):  # counts only flipped means above the observed one
        d = np.asarray(differences, dtype=float)
        signs = np.where(np.random.default_rng(seed).random((n_resamples, len(d))) < 0.5, -1.0, 1.0)
        reach = ((signs @ d / len(d)) >= d.mean() - 1e-12).sum()
        return np.array([d.mean()]), np.array([(1 + reach) / (1 + n_resamples)])

    monkeypatch.setattr(significance, "sign_flip_test", one_sided)
    assert significance.sign_flip_test(d, 2_000)[1][0] != sign_flip_p_by_the_loop(d, 2_000)
