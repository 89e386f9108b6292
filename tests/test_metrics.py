"""Evaluation core: hand-computed known answers, and agreement with trec_eval (pytrec_eval) on random runs."""

import math
import random

import numpy as np
import pytest
import pytrec_eval

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
    assert paired_bootstrap(a, b, seed=1) == (diff, low, high), "a fixed seed gives the same interval"
    with pytest.raises(RagkitError, match="equal-length"):
        paired_bootstrap([1.0], [1.0, 2.0])
    with pytest.raises(RagkitError, match="confidence level"):
        paired_bootstrap([1.0], [1.0], level=1.5)


def test_refusal_scores_known_answer():
    scores = refusal_scores(refused=[True, False, True, False, False], answerable=[False, False, True, True, True])
    assert scores == {"precision": 0.5, "recall": 0.5, "accuracy": 0.6}
    assert math.isnan(refusal_scores([False], [True])["precision"]), "no refusals: precision is undefined"
