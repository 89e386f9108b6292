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


def outcomes(grades, pipeline, distractor):
    rows = grades[(grades.pipeline == pipeline) & (grades.k == 5) & (grades.order == "rank")
                  & (grades.distractor == distractor) & grades.answerable]
    return {query for query, right in zip(rows.id, rows.correct, strict=True) if right == 1}, set(rows.id)


def flips(grades, pipeline):
    right_before, seen_before = outcomes(grades, pipeline, False)
    right_after, seen_after = outcomes(grades, pipeline, True)
    right = right_before & seen_after
    wrong = (seen_before - right_before) & seen_after
    return right, right - right_after, wrong, wrong & right_after


def test_flip_rate_accepts_a_right_answer(grades):
    right, flipped, _, _ = flips(grades, "dense")
    assert checks.check_flip_rate(len(flipped) / len(right), grades) == "right"
    assert checks.check_flip_rate(round(len(flipped) / len(right), 4), grades) == "right"


def test_flip_rate_rejects_the_slips(grades):
    right, flipped, wrong, rescued = flips(grades, "dense")
    best_right, best_flipped, _, _ = flips(grades, "best")
    slips = [len(flipped) / (len(right) + len(wrong)), len(rescued) / len(wrong), 1 - len(flipped) / len(right),
             len(best_flipped) / len(best_right), "a lot"]
    messages = rejection_messages([lambda value=value: checks.check_flip_rate(value, grades) for value in slips])
    assert "divides by every query" in messages[0] and "reverse flip" in messages[1]
    assert "stayed right" in messages[2] and "best pipeline" in messages[3] and "not a number" in messages[4]
    assert not any(f"{len(flipped) / len(right):.3f}" in message for message in messages)


def recall(grades, k, pipeline="dense"):
    rows = grades[(grades.pipeline == pipeline) & (grades.k == k) & (grades.order == "rank") & ~grades.distractor]
    unanswerable = [refused for refused, answerable in zip(rows.refused, rows.answerable, strict=True) if not answerable]
    return sum(unanswerable) / len(unanswerable), sum(unanswerable) / rows.refused.sum()


def test_refusal_recall_accepts_a_right_answer_and_rejects_the_slips(grades):
    (at_1, precision_1), (at_20, _) = recall(grades, 1), recall(grades, 20)
    assert checks.check_refusal_recall(at_1, at_20, grades) == "right"
    (best_1, _), (best_20, _) = recall(grades, 1, "best"), recall(grades, 20, "best")
    slips = [(precision_1, at_20), (1 - at_1, at_20)] + ([(at_20, at_1)] if at_1 != at_20 else [])
    slips += [(best_1, best_20)] if (best_1, best_20) != (at_1, at_20) else []
    messages = rejection_messages([lambda a=a, b=b: checks.check_refusal_recall(a, b, grades) for a, b in slips])
    assert "precision" in messages[0] and "answered" in messages[1]
    assert all(f"{value:.3f}" not in message for message in messages for value in (at_1, at_20))
