"""Notebook 11's exercise checks accept a right answer computed apart from them (through the shared pipeline, not
the eval command or the pipeline of their own that the checks use), reject plausible wrong ones with a message
that names the slip, and give no answer away in their messages."""

import re

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
def naive_top(course_pipe, course_queries):
    """Naive RAG's top 50 and the judgment of every answerable dev query, and the dev queries themselves."""
    from ragkit.evaluate.relevance import judgments_from_queries
    from ragkit.widgets.playground import preset_settings

    dev = [q for q in course_queries if q.split == "dev"]
    answerable = [q for q in dev if q.evidence]
    naive = course_pipe.using(**preset_settings(course_pipe.config, NAIVE)[0])
    return naive.rankings([q.text for q in answerable], 50), judgments_from_queries(answerable, course_pipe.docs), dev


def parts_missed(naive_top, depth=10):
    """Per query, the share of its parts that no chunk of its top `depth` answers: a literal loop over parts."""
    from ragkit.evaluate.relevance import ranking_hits

    rankings, judgments, _ = naive_top
    shares = []
    for ranking, judgment in zip(rankings, judgments, strict=True):
        answered = set().union(*ranking_hits(ranking[:depth], judgment))
        parts = range(len(judgment.part_gains()))
        shares.append(sum(part not in answered for part in parts) / len(parts))
    return np.array(shares)


def quotes_missed(naive_top, depth=10):
    """Per query, the share of its evidence quotes (not parts) that no chunk of its top `depth` covers."""
    from ragkit.evaluate.relevance import covers

    rankings, judgments, _ = naive_top
    return np.array([np.mean([not any(covers(chunk, target) for chunk in ranking[:depth])
                               for target in judgment.targets])
                     for ranking, judgment in zip(rankings, judgments, strict=True)])


def right_gain(measure):
    return measure(SEED, "mrr@10", "zh") - measure(SEED, "mrr@10", "zh", rerank="none")


def test_check_rerank_gain_accepts_a_right_answer(measure):
    assert checks.check_rerank_gain(right_gain(measure)) == "right"
    assert checks.check_rerank_gain(round(right_gain(measure), 3)) == "right", "three decimals are enough"


RERANK_WRONG = {  # slip: (wrong answer, what the message must say)
    "sign flipped": (lambda m: -right_gain(m), "wrong sign"),
    "all queries, not Chinese": (lambda m: m(SEED, "mrr@10") - m(SEED, "mrr@10", rerank="none"), "all dev queries"),
    "English queries": (lambda m: m(SEED, "mrr@10", "en") - m(SEED, "mrr@10", "en", rerank="none"), "English"),
    "against naive RAG, not the same pipeline without its reranker": (
        lambda m: m(SEED, "mrr@10", "zh") - m(NAIVE, "mrr@10", "zh"), "naive RAG"),
    "the test split": (lambda m: (m(SEED, "mrr@10", "zh", split="test")
                                  - m(SEED, "mrr@10", "zh", split="test", rerank="none")), "test queries"),
    "MRR@10 with the reranker, not the change": (lambda m: m(SEED, "mrr@10", "zh"), "one pipeline's MRR@10"),
    "MRR@10 without the reranker, not the change": (
        lambda m: m(SEED, "mrr@10", "zh", rerank="none"), "one pipeline's MRR@10"),
    "a ratio, not a difference": (
        lambda m: m(SEED, "mrr@10", "zh") / m(SEED, "mrr@10", "zh", rerank="none"), "between −1 and 1"),
    "nDCG@10, not MRR@10": (lambda m: m(SEED, "ndcg@10", "zh") - m(SEED, "ndcg@10", "zh", rerank="none"), "nDCG@10"),
    "percentage points": (lambda m: 100 * right_gain(m), "between −1 and 1"),
    "a rounding slip in the second decimal": (lambda m: right_gain(m) + 0.01, "is not the change in MRR@10"),
}


@pytest.mark.parametrize("slip", RERANK_WRONG, ids=list(RERANK_WRONG))
def test_check_rerank_gain_rejects_a_wrong_answer(measure, slip):
    wrong, says = RERANK_WRONG[slip]
    with pytest.raises(AssertionError, match=re.escape(says)):
        checks.check_rerank_gain(wrong(measure))


def test_check_failure_accepts_a_right_answer(naive_top):
    shares = parts_missed(naive_top)
    assert checks.check_failure(shares) == "right"
    assert checks.check_failure([round(float(share), 3) for share in shares]) == "right", "three decimals are enough"


def with_unanswerable(naive_top):
    """The right shares, with a 0 for every unanswerable dev query, in the order of all dev queries."""
    shares, dev = iter(parts_missed(naive_top)), naive_top[2]
    return [next(shares) if q.evidence else 0.0 for q in dev]


FAILURE_WRONG = {  # slip: (wrong answer, what the message must say)
    "recall@10, not failure@10": (lambda m, top: 1 - parts_missed(top), "not of the parts it misses"),
    "the top 20: failure@20, the notebook's own per-query figure": (
        lambda m, top: m.per_query(metric="failure@20"), "its failure@20"),
    "a query failed if any part is missing": (lambda m, top: parts_missed(top) > 0, "failed or not"),
    "a query failed only if every part is missing": (lambda m, top: parts_missed(top) == 1, "failed or not"),
    "quotes, not parts": (lambda m, top: quotes_missed(top), "more evidence quotes than parts"),
    "the top 5, not the top 10": (lambda m, top: parts_missed(top, 5), "missed a part that a chunk of naive RAG's top 10"),
    "the top 50, not the top 10": (lambda m, top: parts_missed(top, 50), "answered a part that no chunk of naive RAG's"),
    "sorted, not in the queries' order": (lambda m, top: np.sort(parts_missed(top)), "not in the order"),
    "unanswerable queries counted as never failing": (lambda m, top: with_unanswerable(top), "this has 187 values"),
    "Chinese queries only": (lambda m, top: [s for s, j in zip(parts_missed(top), top[1], strict=True) if j.lang == "zh"],
                             "this has 52 values"),
    "the mean, not one share per query": (lambda m, top: np.mean(parts_missed(top)), "not a list of numbers"),
    "a percentage, not a share": (lambda m, top: 100 * parts_missed(top), "between 0 and 1"),
    "seed 003's pipeline, not naive RAG": (lambda m, top: m.per_query(**m.knobs(SEED)),
                                           "answered a part that no chunk of naive RAG's"),
    "naive RAG's knobs with method=hybrid, not naive RAG": (
        lambda m, top: m.per_query(method="hybrid"), "values are not the share of parts that naive RAG's top 10"),
}


@pytest.fixture(scope="module")
def variants(measure, course_pipe, course_queries):
    """`measure`, and the per-query failure@10 (or `metric`) of naive RAG's knobs with `changes`."""
    from ragkit.widgets.playground import preset_settings

    answerable = [q for q in course_queries if q.split == "dev" and q.evidence]

    class Variants:
        def knobs(self, name):
            return preset_settings(course_pipe.config, name)[0]

        def per_query(self, metric="failure@10", **changes):
            knobs, _ = preset_settings(course_pipe.config, NAIVE)
            return course_pipe.using(**{**knobs, **changes}).evaluate(answerable, [metric])[metric]

    return Variants()


@pytest.mark.parametrize("slip", FAILURE_WRONG, ids=list(FAILURE_WRONG))
def test_check_failure_rejects_a_wrong_answer(variants, naive_top, slip):
    wrong, says = FAILURE_WRONG[slip]
    with pytest.raises(AssertionError, match=re.escape(says)):
        checks.check_failure(wrong(variants, naive_top))


def test_no_message_gives_the_answer_away(measure, variants, naive_top):
    gain, shares = right_gain(measure), parts_missed(naive_top)
    messages = []
    for wrong, _ in RERANK_WRONG.values():
        with pytest.raises(AssertionError) as error:
            checks.check_rerank_gain(wrong(measure))
        messages.append(str(error.value))
        for shown in {f"{gain:.2f}", f"{gain:.3f}", f"{gain:.1%}", f"{gain:g}"}:
            assert shown not in messages[-1], f"{messages[-1]!r} gives away {shown}"
    for wrong, _ in FAILURE_WRONG.values():
        with pytest.raises(AssertionError) as error:
            checks.check_failure(wrong(variants, naive_top))
        messages.append(str(error.value))
        assert not re.search(r"\d\.\d", messages[-1]), f"{messages[-1]!r} shows a share"
        assert f"{shares.mean():.3f}"[1:] not in messages[-1]
    for message in messages:
        assert message, "every rejection says what is wrong"
        for fix in ("minus", "instead", "should", "divide", "reverse", "1 −", "use "):
            assert fix not in message, f"{message!r} says how to fix the answer"
