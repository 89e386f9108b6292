"""Notebook 12's exercise checks accept a right answer computed apart from them (through the pipeline's own
evaluation and pooling, not the eval command's loading and `search` the checks use), reject plausible wrong
ones, and give no answer away in their messages."""

import math
import re

import numpy as np
import pytest
from helpers import ROOT, exercise_checks

checks = exercise_checks("own_data")
DEMO = ROOT / "data" / "demo-handbook"


@pytest.fixture(scope="module")
def demo():
    """The demo's pipeline, its answerable queries and each method's per-query nDCG@10 and MRR@10."""
    from ragkit import Pipeline, load_documents, load_queries

    pipe = Pipeline(load_documents(DEMO / "corpus"))
    queries = [q for q in load_queries(DEMO / "queries.jsonl") if q.evidence]
    scores = {method: pipe.using(method=method).evaluate(queries, ["ndcg@10", "mrr@10"])
              for method in ("dense", "bm25", "hybrid")}
    return pipe, queries, scores


def needed(differences, size=0.05, z=1.96, ddof=1):
    return (z * np.std(differences, ddof=ddof) / size) ** 2


def differences(demo, new="hybrid", old="dense", metric="ndcg@10"):
    return (demo[2][new][metric] - demo[2][old][metric]).to_numpy()


def test_check_queries_needed_accepts_a_right_answer(demo):
    assert checks.check_queries_needed(needed(differences(demo))) == "right"
    assert checks.check_queries_needed(math.ceil(needed(differences(demo)))) == "right", "rounded up"
    assert checks.check_queries_needed(needed(differences(demo), ddof=0)) == "right", "either standard deviation"


NEEDED_WRONG = {
    "the whole width below the difference": lambda d: needed(differences(d), size=0.025),
    "not squared": lambda d: math.sqrt(needed(differences(d))),
    "the variance for the spread": lambda d: (1.96 * np.var(differences(d), ddof=1) / 0.05) ** 2,
    "a 90 % interval": lambda d: needed(differences(d), z=1.645),
    "a difference of 0.10": lambda d: needed(differences(d), size=0.10),
    "MRR@10, not nDCG@10": lambda d: needed(differences(d, metric="mrr@10")),
    "hybrid against BM25": lambda d: needed(differences(d, old="bm25")),
    "the spread of the hybrid's scores, not of the differences": lambda d: needed(d[2]["hybrid"]["ndcg@10"]),
    "the standard error for the spread": lambda d: needed(differences(d) / math.sqrt(20)),
    "the queries already labelled": lambda d: 20,
}


@pytest.mark.parametrize("slip", NEEDED_WRONG, ids=list(NEEDED_WRONG))
def test_check_queries_needed_rejects_a_wrong_answer(demo, slip):
    with pytest.raises(AssertionError):
        checks.check_queries_needed(NEEDED_WRONG[slip](demo))


def pool_sets(demo):
    from ragkit.labels.pool import pool_for

    pipe, queries, _ = demo
    text = next(q.text for q in queries if q.query_id == "hb-001")
    units, tops = pool_for(pipe, text)
    return units, [{unit.chunk_id for unit in top} for top in tops.values()]


def test_check_pool_accepts_a_right_answer(demo):
    units, found = pool_sets(demo)
    assert checks.check_pool(len(units), len(set.intersection(*found))) == "right"


POOL_WRONG = {
    "every result, duplicates included": lambda u, f: (sum(map(len, f)), len(set.intersection(*f))),
    "one method's top 10": lambda u, f: (len(f[0]), len(set.intersection(*f))),
    "in two methods or more, not all three": lambda u, f: (len(u), sum(sum(c in s for s in f) >= 2 for c in set().union(*f))),
    "in one method only": lambda u, f: (len(u), sum(sum(c in s for s in f) == 1 for c in set().union(*f))),
    "the two numbers swapped": lambda u, f: (len(set.intersection(*f)), len(u)),
    "the passages no other method found": lambda u, f: (len(u), len(u) - len(set.intersection(*f))),
}


@pytest.mark.parametrize("slip", POOL_WRONG, ids=list(POOL_WRONG))
def test_check_pool_rejects_a_wrong_answer(demo, slip):
    units, found = pool_sets(demo)
    with pytest.raises(AssertionError):
        checks.check_pool(*POOL_WRONG[slip](units, found))


def test_no_message_gives_the_answer_away(demo):
    units, found = pool_sets(demo)
    answers = [needed(differences(demo)), float(len(units)), float(len(set.intersection(*found)))]
    raised = []
    for slip in NEEDED_WRONG.values():
        with pytest.raises(AssertionError) as error:
            checks.check_queries_needed(slip(demo))
        raised.append(str(error.value))
    for slip in POOL_WRONG.values():
        with pytest.raises(AssertionError) as error:
            checks.check_pool(*slip(units, found))
        raised.append(str(error.value))
    for message in raised:
        assert message, "every rejection says what is wrong"
        numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", message)]  # the question's own: 0.05, 95, 10
        for answer in answers:
            assert not any(abs(n - answer) < 0.5 or n == math.ceil(answer) for n in numbers), \
                f"{message!r} gives away {answer:g}"
        assert "1.96 *" not in message and "(1.96" not in message, f"{message!r} gives the formula"
