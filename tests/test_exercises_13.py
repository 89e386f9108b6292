"""Notebook 13's exercise checks (`notebooks/exercises/generation.py`): each accepts a right answer computed here
another way (sets of query ids rather than pivot tables), rejects the slips a learner would make, and no
message gives the answer away."""

import pytest
from helpers import ROOT, exercise_checks, rejection_messages

from ragkit.answering import course_grid
from ragkit.corpus import load_queries
from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.generate.grid import grade_grid
from ragkit.generate.keys import load_answer_keys
from ragkit.generate.recording import load_answers

checks = exercise_checks("generation")


@pytest.fixture(scope="module")
def grades(course_pipe, course_docs):
    test = load_queries(ROOT / "data" / "queries.jsonl", split="test")
    return grade_grid(course_grid(ROOT / "data"), load_answers(ROOT / "data" / "llm" / "answers" / "claude"), test,
                      judgments_from_queries(test, course_docs), load_answer_keys(ROOT / "data" / "answer-keys.jsonl"),
                      course_pipe.chunks)


def healths(grades, pipeline):
    rows = grades[(grades.pipeline == pipeline) & (grades.k == 5) & (grades.order == "rank") & ~grades.distractor
                  & grades.answerable]
    shown = set(rows.id[rows["evidence shown"]])
    right = set(rows.id[rows.correct == 1])
    everyone = set(rows.id)
    return len(right & shown) / len(shown), len(right - shown) / len(everyone - shown), len(right) / len(everyone), \
        len(shown) / len(everyone)


def test_health_accepts_a_right_answer_and_rejects_the_slips(grades):
    with_evidence, without, overall, retrieval = healths(grades, "dense")
    assert with_evidence > without, "evidence in the prompt helps"
    assert checks.check_health(with_evidence, without, grades) == "right"
    assert checks.check_health(round(with_evidence, 4), round(without, 4), grades) == "right"
    best_with = healths(grades, "best")[0]
    slips = [(without, with_evidence), (overall, without), (retrieval, without), (best_with, without), ("most", 0)]
    messages = rejection_messages([lambda a=a, b=b: checks.check_health(a, b, grades) for a, b in slips])
    assert "swapped" in messages[0] and "not split" in messages[1] and "retrieval's" in messages[2]
    assert "best pipeline" in messages[3] and "not a number" in messages[4]
    assert all(f"{value:.3f}" not in message for message in messages for value in (with_evidence, without))


def gave_up(grades, k, pipeline="dense"):
    rows = grades[(grades.pipeline == pipeline) & (grades.k == k) & (grades.order == "rank") & ~grades.distractor]
    answerable = rows[rows.answerable]
    unanswerable = rows[~rows.answerable]
    return answerable.refused.sum() / len(answerable), rows.refused.mean(), unanswerable.refused.mean()


def test_give_up_accepts_a_right_answer_and_rejects_the_slips(grades):
    (at_1, everyone_1, recall_1), (at_20, _, _) = gave_up(grades, 1), gave_up(grades, 20)
    assert at_1 > at_20, "with 20 passages naive RAG gives up less often than with one"
    assert checks.check_give_up(at_1, at_20, grades) == "right"
    best_1, best_20 = gave_up(grades, 1, "best")[0], gave_up(grades, 20, "best")[0]
    slips = [(at_20, at_1), (everyone_1, at_20), (recall_1, at_20), (1 - at_1, at_20), (best_1, best_20)]
    messages = rejection_messages([lambda a=a, b=b: checks.check_give_up(a, b, grades) for a, b in slips])
    assert "swapped" in messages[0] and "every query" in messages[1] and "refusal recall" in messages[2]
    assert "did answer" in messages[3] and "best pipeline" in messages[4]
    assert all(f"{value:.3f}" not in message for message in messages for value in (at_1, at_20))
