"""Notebook 11's exercise checks accept a right answer computed apart from them (through the shared pipeline, not
the eval command the checks use), reject plausible wrong ones, and give no answer away in their messages."""

import numpy as np
import pytest
from helpers import exercise_checks

checks = exercise_checks("playground")
SEED, NAIVE = "seed 003's pipeline", "naive RAG"


@pytest.fixture(scope="module")
def measure(course_pipe, course_queries):
    """Mean of `metric` for a preset (with `changes`) over the answerable queries of a split and language."""
    from ragkit.widgets.playground import preset_settings

    memo = {}

    def compute(name, metric, lang="all", split="dev", **changes):
        key = (name, metric, lang, split, tuple(sorted(changes.items())))
        if key not in memo:
            chosen = [q for q in course_queries if q.split == split and q.evidence and lang in ("all", q.lang)]
            knobs, _ = preset_settings(course_pipe.config, name)
            table = course_pipe.using(**{**knobs, **changes}).evaluate(chosen, [metric])
            memo[key] = float(table[metric].mean())
        return memo[key]

    return compute


@pytest.fixture(scope="module")
def naive_top20(course_pipe, course_queries):
    """Naive RAG's top 20 and the judgment of every answerable dev query, and the dev queries themselves."""
    from ragkit.evaluate.relevance import judgments_from_queries
    from ragkit.widgets.playground import preset_settings

    dev = [q for q in course_queries if q.split == "dev"]
    answerable = [q for q in dev if q.evidence]
    naive = course_pipe.using(**preset_settings(course_pipe.config, NAIVE)[0])
    return naive.rankings([q.text for q in answerable], 20), judgments_from_queries(answerable, course_pipe.docs), dev


def parts_missed(naive_top20):
    """Per query, the share of its parts that no chunk of its top 20 answers: a literal loop over parts."""
    from ragkit.evaluate.relevance import ranking_hits

    rankings, judgments, _ = naive_top20
    shares = []
    for ranking, judgment in zip(rankings, judgments, strict=True):
        answered = set().union(*ranking_hits(ranking, judgment))
        parts = range(len(judgment.part_gains()))
        shares.append(sum(part not in answered for part in parts) / len(parts))
    return shares


def quotes_missed(naive_top20):
    """Per query, the share of its evidence quotes (not parts) that no chunk of its top 20 covers."""
    from ragkit.evaluate.relevance import covers

    rankings, judgments, _ = naive_top20
    return [np.mean([not any(covers(chunk, target) for chunk in ranking) for target in judgment.targets])
            for ranking, judgment in zip(rankings, judgments, strict=True)]


def right_gain(measure):
    return measure(SEED, "mrr@10", "zh") - measure(SEED, "mrr@10", "zh", rerank="none")


def test_check_rerank_gain_accepts_a_right_answer(measure):
    assert checks.check_rerank_gain(right_gain(measure)) == "right"
    assert checks.check_rerank_gain(round(right_gain(measure), 3)) == "right", "three decimals are enough"


RERANK_WRONG = {
    "sign flipped": lambda m: -right_gain(m),
    "all queries, not Chinese": lambda m: m(SEED, "mrr@10") - m(SEED, "mrr@10", rerank="none"),
    "English queries": lambda m: m(SEED, "mrr@10", "en") - m(SEED, "mrr@10", "en", rerank="none"),
    "against naive RAG, not the same pipeline without its reranker": lambda m: (
        m(SEED, "mrr@10", "zh") - m(NAIVE, "mrr@10", "zh")),
    "the test split": lambda m: (m(SEED, "mrr@10", "zh", split="test")
                                 - m(SEED, "mrr@10", "zh", split="test", rerank="none")),
    "MRR@10 with the reranker, not the change": lambda m: m(SEED, "mrr@10", "zh"),
    "a ratio, not a difference": lambda m: m(SEED, "mrr@10", "zh") / m(SEED, "mrr@10", "zh", rerank="none"),
    "nDCG@10, not MRR@10": lambda m: m(SEED, "ndcg@10", "zh") - m(SEED, "ndcg@10", "zh", rerank="none"),
    "percentage points": lambda m: 100 * right_gain(m),
}


@pytest.mark.parametrize("slip", RERANK_WRONG, ids=list(RERANK_WRONG))
def test_check_rerank_gain_rejects_a_wrong_answer(measure, slip):
    with pytest.raises(AssertionError):
        checks.check_rerank_gain(RERANK_WRONG[slip](measure))


def test_check_failure_accepts_a_right_answer(naive_top20):
    shares = parts_missed(naive_top20)
    assert checks.check_failure(np.mean(shares)) == "right"
    assert checks.check_failure(round(float(np.mean(shares)), 3)) == "right", "three decimals are enough"


FAILURE_WRONG = {
    "recall@20, not failure@20": lambda m, top: 1 - np.mean(parts_missed(top)),
    "the share of queries missing any part": lambda m, top: np.mean([share > 0 for share in parts_missed(top)]),
    "the share of queries missing every part": lambda m, top: np.mean([share == 1 for share in parts_missed(top)]),
    "quotes, not parts": lambda m, top: np.mean(quotes_missed(top)),
    "the top 5, not the top 20": lambda m, top: m(NAIVE, "failure@5"),
    "Chinese queries only": lambda m, top: m(NAIVE, "failure@20", "zh"),
    "the default hybrid, not naive RAG": lambda m, top: m(NAIVE, "failure@20", method="hybrid"),
    "unanswerable queries counted as never failing": lambda m, top: sum(parts_missed(top)) / len(top[2]),
    "the test split": lambda m, top: m(NAIVE, "failure@20", split="test"),
    "a percentage, not a share": lambda m, top: 100 * np.mean(parts_missed(top)),
}


@pytest.mark.parametrize("slip", FAILURE_WRONG, ids=list(FAILURE_WRONG))
def test_check_failure_rejects_a_wrong_answer(measure, naive_top20, slip):
    with pytest.raises(AssertionError):
        checks.check_failure(FAILURE_WRONG[slip](measure, naive_top20))


def test_no_message_gives_the_answer_away(measure, naive_top20):
    answers = {"check_rerank_gain": right_gain(measure), "check_failure": float(np.mean(parts_missed(naive_top20)))}
    raised = []
    for slip in RERANK_WRONG.values():
        with pytest.raises(AssertionError) as error:
            checks.check_rerank_gain(slip(measure))
        raised.append((str(error.value), answers["check_rerank_gain"]))
    for slip in FAILURE_WRONG.values():
        with pytest.raises(AssertionError) as error:
            checks.check_failure(slip(measure, naive_top20))
        raised.append((str(error.value), answers["check_failure"]))
    for message, answer in raised:
        assert message, "every rejection says what is wrong"
        for shown in {f"{answer:.2f}", f"{answer:.3f}", f"{answer:.1%}", f"{answer:g}"}:
            assert shown not in message, f"{message!r} gives away {shown}"
        for fix in ("parts (not quotes)", "minus", "per query"):
            assert fix not in message, f"{message!r} says how to fix the answer"
