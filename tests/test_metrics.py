"""Evaluation core: hand-computed known answers, and agreement with trec_eval (pytrec_eval) on random runs."""

import math
import random

import numpy as np
import pytest
import pytrec_eval
from helpers import end_tolerance, holm_step_down, sign_flip_p_by_the_loop
from scipy import stats

from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError
from ragkit.evaluate.metrics import (
    failure_at_k,
    ndcg_at_k,
    paired_bootstrap,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    refusal_scores,
)
from ragkit.evaluate.relevance import Judgment, Target, covers, ranking_hits
from ragkit.evaluate.significance import benjamini_hochberg, holm, sign_flip_test
from ragkit.evaluate.tables import metric_value, parse_metric, per_query_metrics, summarize


def unit(doc_id: str, start: int = 0, end: int = 100) -> Chunk:
    return Chunk(f"{doc_id}#{start}", doc_id, start, end, "")


def test_known_answers_on_a_tiny_ranking():
    # targets: A in doc a, B in doc b; ranking: x, a (covers A), a again, b (covers B)
    judgment = Judgment("q", "multi", "dev", (Target("a", 10, 30), Target("b", 0, 10)))
    ranking = [unit("x"), unit("a"), unit("a"), unit("b")]
    hits = ranking_hits(ranking, judgment)
    assert hits == [frozenset(), frozenset({0}), frozenset({0}), frozenset({1})]
    assert recall_at_k(hits, 2, 1) == 0.0
    assert recall_at_k(hits, 2, 3) == 0.5
    assert recall_at_k(hits, 2, 4) == 1.0
    assert failure_at_k(hits, 2, 3) == 0.5
    assert precision_at_k(hits, 4) == 0.75
    assert reciprocal_rank(hits, 10) == 0.5
    assert reciprocal_rank(hits, 1) == 0.0
    # DCG = 1/log2(3) + 1/log2(5); the duplicate at rank 3 adds nothing; IDCG = 1 + 1/log2(3)
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(hits, [1.0, 1.0], 10) == pytest.approx(expected, abs=1e-12)


def test_half_a_quote_is_the_relevance_line():
    target = Target("d", 100, 140)  # 40 characters
    assert covers(unit("d", 0, 120), target), "20 of 40 characters is half: relevant"
    assert not covers(unit("d", 0, 119), target), "19 of 40 is less than half"
    assert not covers(unit("e", 0, 500), target), "another document never covers"


def test_metric_names_are_checked():
    assert parse_metric("failure@20") == ("failure", 20)
    for bad in ["recall", "recall@0", "hits@5", "mrr@x"]:
        with pytest.raises(RagkitError):
            parse_metric(bad)
    with pytest.raises(RagkitError, match="k must be a positive integer"):
        recall_at_k([], 1, 0)


def test_unanswerable_queries_are_skipped_by_the_means():
    answerable = Judgment("a", "keyword", "dev", (Target("d", 0, 5),))
    unanswerable = Judgment("u", "unanswerable", "dev", ())
    table = per_query_metrics([[unit("d")], [unit("d")]], [answerable, unanswerable], ["recall@1", "mrr@1"])
    assert math.isnan(table.loc[1, "recall@1"]) and math.isnan(metric_value("mrr@1", [unit("d")], unanswerable))
    summary = summarize(table)
    assert summary["queries"].iloc[0] == 1 and summary["recall@1"].iloc[0] == 1.0
    by_type = summarize(table, by="type")
    assert list(by_type.index) == ["keyword"]


def test_rankings_and_judgments_must_pair_up():
    with pytest.raises(RagkitError, match="one per query"):
        per_query_metrics([[]], [], ["recall@1"])


def random_case(rng: random.Random, n_docs: int = 30):
    qrels, run, rankings, judgments = {}, {}, [], []
    for q in range(25):
        relevant = rng.sample(range(n_docs), rng.randint(1, 6))
        gains = {f"d{d}": rng.choice([1, 1, 2, 3]) for d in relevant}
        ranked = rng.sample(range(n_docs), rng.randint(1, n_docs))
        qid = f"q{q}"
        qrels[qid] = gains
        # descending scores in rank order; trec_eval sorts by score
        run[qid] = {f"d{d}": float(len(ranked) - i) for i, d in enumerate(ranked)}
        rankings.append([unit(f"d{d}") for d in ranked])
        judgments.append(Judgment(qid, "beir", "test", tuple(Target(doc, gain=g) for doc, g in gains.items())))
    return qrels, run, rankings, judgments


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_trec_eval_on_random_runs(seed):
    qrels, run, rankings, judgments = random_case(random.Random(seed))
    measures = {"ndcg_cut.5", "ndcg_cut.10", "recall.5", "recall.10", "P.5", "recip_rank"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    table = per_query_metrics(rankings, judgments, ["ndcg@5", "ndcg@10", "recall@5", "recall@10", "precision@5",
                                                    "mrr@1000"])
    names = {"ndcg@5": "ndcg_cut_5", "ndcg@10": "ndcg_cut_10", "recall@5": "recall_5", "recall@10": "recall_10",
             "precision@5": "P_5", "mrr@1000": "recip_rank"}
    for ours, theirs in names.items():
        got = table[ours].to_numpy()
        expected = np.array([reference[qid][theirs] for qid in table["query_id"]])
        np.testing.assert_allclose(got, expected, atol=1e-9, err_msg=f"{ours} differs from trec_eval {theirs}")


def test_paired_bootstrap_interval():
    rng = np.random.default_rng(0)
    a = rng.random(200)
    diff, low, high = paired_bootstrap(a, a + 0.1, seed=1)
    assert diff == pytest.approx(0.1) and low == pytest.approx(0.1) and high == pytest.approx(0.1)
    b = a + rng.normal(0.05, 0.2, 200)
    diff, low, high = paired_bootstrap(a, b, seed=1)
    assert low < diff < high and high - low < 0.1
    with pytest.raises(RagkitError, match="equal-length"):
        paired_bootstrap([1.0], [1.0, 2.0])
    with pytest.raises(RagkitError, match="confidence level"):
        paired_bootstrap([1.0], [1.0], level=1.5)


def correlated_scores(seed: int, n: int = 150):
    """Two systems' per-query scores in halves, equal on most queries (as recall@5 of two close pipelines)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n) / 2
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n) / 2)
    return a, b


def bootstrap_by_the_loop(a, b, n_resamples, seed, level=0.95):
    """The paired bootstrap as worded: each resample draws n query numbers with replacement (the same draw as
    ragkit's), averages b − a over them, and the interval is the middle `level` of those averages."""
    picks = np.random.default_rng(seed).integers(0, len(a), size=(n_resamples, len(a)))
    means = [sum(b[i] - a[i] for i in row) / len(a) for row in picks]
    tail = (1 - level) / 2 * 100
    return np.percentile(means, [tail, 100 - tail])


def scipy_paired_interval(a, b, n_resamples, seed):
    return stats.bootstrap((a, b), lambda x, y, axis: np.mean(y - x, axis=axis), paired=True, vectorized=True,
                           n_resamples=n_resamples, method="percentile",
                           rng=np.random.default_rng(seed)).confidence_interval


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paired_bootstrap_equals_the_loop_with_the_same_draw(seed):
    a, b = correlated_scores(seed, 60)
    diff, low, high = paired_bootstrap(a, b, n_resamples=500, level=0.9, seed=seed)
    assert diff == pytest.approx(np.mean(b - a), abs=1e-12)
    assert (low, high) == pytest.approx(tuple(bootstrap_by_the_loop(a, b, 500, seed, level=0.9)), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paired_bootstrap_agrees_with_scipys_paired_bootstrap_and_an_unpaired_one_would_not(seed):
    a, b = correlated_scores(seed)
    _, low, high = paired_bootstrap(a, b, seed=seed)
    theirs = scipy_paired_interval(a, b, 10_000, seed + 100)
    tolerance = end_tolerance(a, b, 10_000)
    assert abs(low - theirs.low) < tolerance and abs(high - theirs.high) < tolerance
    rng = np.random.default_rng(seed)   # each system's queries resampled on their own: the pairs broken
    apart = np.percentile(b[rng.integers(0, len(b), (10_000, len(b)))].mean(axis=1)
                          - a[rng.integers(0, len(a), (10_000, len(a)))].mean(axis=1), [2.5, 97.5])
    assert abs(apart[0] - theirs.low) > tolerance and abs(apart[1] - theirs.high) > tolerance


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sign_flip_test_equals_the_loop_and_agrees_with_scipys_permutation_test(seed):
    a, b = correlated_scores(seed, 80)
    b = b + 0.05 * (np.arange(80) % 3 == 0)   # a small real difference on some queries
    means, p = sign_flip_test(np.column_stack([b - a, a - b]), n_resamples=1_500, seed=seed)
    assert means[0] == pytest.approx(np.mean(b - a), abs=1e-12) and p[0] == p[1], "the sign of the difference is irrelevant"
    assert p[0] == sign_flip_p_by_the_loop(b - a, 1_500, seed)
    mine = sign_flip_test(b - a, n_resamples=20_000, seed=seed)[1][0]
    theirs = stats.permutation_test((a, b), lambda x, y, axis: np.mean(y - x, axis=axis), permutation_type="samples",
                                    vectorized=True, n_resamples=20_000, rng=np.random.default_rng(seed + 100)).pvalue
    assert abs(mine - theirs) < 4 * np.sqrt(2) * np.sqrt(mine * (1 - mine) / 20_000) + 1e-4


def test_sign_flip_test_batches_its_draws_as_one_draw():
    d = np.random.default_rng(4).normal(0.1, 1.0, 40)
    whole = sign_flip_test(d, n_resamples=25_000, seed=3)[1][0]
    by_hand = np.where(np.random.default_rng(3).random((25_000, 40)) < 0.5, -1.0, 1.0) @ d / 40
    assert whole == (1 + np.sum(np.abs(by_hand) >= abs(d.mean()) - 1e-12)) / 25_001


def test_sign_flip_test_rejects_bad_input():
    for bad in ([], [[1.0, np.nan]], np.zeros((2, 2, 2))):
        with pytest.raises(RagkitError, match="sign-flip test needs"):
            sign_flip_test(bad)
    with pytest.raises(RagkitError, match="resamples"):
        sign_flip_test([1.0, 2.0], n_resamples=0)


def random_p_values(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(rng.integers(1, 60)) ** 3   # many small p-values, as in a family with real differences
    p[rng.random(len(p)) < 0.2] = p[0]          # and some ties
    return p


@pytest.mark.parametrize("seed", range(20))
def test_holm_matches_the_step_down_procedure(seed):
    p = random_p_values(seed)
    for alpha in (0.001, 0.01, 0.05, 0.1, 0.3):
        assert set(np.flatnonzero(holm(p) <= alpha)) == holm_step_down(p, alpha), alpha


@pytest.mark.parametrize("seed", range(20))
def test_benjamini_hochberg_matches_scipy(seed):
    p = random_p_values(seed)
    np.testing.assert_allclose(benjamini_hochberg(p), stats.false_discovery_control(p), rtol=0, atol=1e-12)


def test_corrections_known_answers_and_bad_input():
    assert holm([0.01, 0.04, 0.03, 0.5]).round(3).tolist() == [0.04, 0.09, 0.09, 0.5]
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.5]).round(4).tolist() == [0.04, 0.0533, 0.0533, 0.5]
    for bad in ([], [0.5, 1.5], [[0.1]]):
        with pytest.raises(RagkitError, match="p-values"):
            holm(bad)


def test_refusal_scores_known_answer():
    scores = refusal_scores(refused=[True, False, True, False, False], answerable=[False, False, True, True, True])
    assert scores == {"precision": 0.5, "recall": 0.5, "accuracy": 0.6}
    assert math.isnan(refusal_scores([False], [True])["precision"]), "no refusals: precision is undefined"
