"""The checks of notebook 13's exercises (from retrieval to answers). Each takes the learner's answer first, then
what the notebook already has (`grades`, the graded table of recorded answers), and raises `AssertionError`
saying what is wrong with the answer.

The checks recount from the table's columns with plain loops, not with the notebook's own cells, and compare
with the slips a learner would make (the flip rate over all queries instead of those answered right, the
reverse flip, the other pipeline, refusal precision instead of recall). `tests/test_exercises_13.py` shows that each check accepts a
right answer computed another way and rejects plausible wrong ones.
"""

from __future__ import annotations

from exercises.answers import number

TOLERANCE = 5e-4


def paired(grades, pipeline: str, with_distractor: bool) -> dict[str, float]:
    """query id → correct (1.0 or 0.0) of one pipeline at k = 5 in rank order, with or without the distractor."""
    rows = grades[(grades["pipeline"] == pipeline) & (grades["k"] == 5) & (grades["order"] == "rank")
                  & (grades["distractor"] == with_distractor) & grades["answerable"]]
    return dict(zip(rows["id"], rows["correct"], strict=True))


def flip_counts(grades, pipeline: str) -> tuple[int, int, int, int]:
    """(right before, right → wrong, wrong before, wrong → right) over the queries with both answers."""
    before, after = paired(grades, pipeline, False), paired(grades, pipeline, True)
    both = [query for query in before if query in after]
    right = [q for q in both if before[q] == 1.0]
    wrong = [q for q in both if before[q] == 0.0]
    return (len(right), sum(after[q] == 0.0 for q in right), len(wrong), sum(after[q] == 1.0 for q in wrong))


def check_flip_rate(rate, grades):
    rate = number(rate, "the flip rate")
    right, flipped, wrong, rescued = flip_counts(grades, "dense")
    expected = flipped / right
    if abs(rate - expected) <= TOLERANCE:
        return "right"
    both = right + wrong
    slips = [(flipped / both, "it divides by every query with both answers, not by those answered right without "
                              "the distractor"),
             (rescued / wrong if wrong else -1.0, "it counts wrong answers the distractor turned right: the "
                                                  "reverse flip"),
             (1 - flipped / right, "it is the share of right answers that stayed right")]
    best_right, best_flipped, _, _ = flip_counts(grades, "best")
    slips.append((best_flipped / best_right, "it is the flip rate of the course's best pipeline, not of naive "
                                             "dense retrieval"))
    for value, message in slips:
        assert abs(rate - value) > TOLERANCE, f"the flip rate is wrong: {message}"
    assert 0 <= rate <= 1, "a rate lies between 0 and 1"
    raise AssertionError("the flip rate is not the share of dense retrieval's right answers at k = 5 that turn wrong "
                         "when the distractor is added")


def refusal_counts(grades, k: int, pipeline: str = "dense") -> tuple[int, int, int]:
    """(unanswerable queries, of them refused, all refusals) of one pipeline at `k` in rank order."""
    rows = grades[(grades["pipeline"] == pipeline) & (grades["k"] == k) & (grades["order"] == "rank")
                  & ~grades["distractor"]]
    unanswerable = [refused for refused, answerable in zip(rows["refused"], rows["answerable"], strict=True)
                    if not answerable]
    return len(unanswerable), int(sum(unanswerable)), int(rows["refused"].sum())


def check_refusal_recall(recall_at_1, recall_at_20, grades):
    answers = [number(recall_at_1, "the refusal recall at k = 1"), number(recall_at_20, "the refusal recall at k = 20")]
    expected = []
    for k in (1, 20):
        unanswerable, refused, _ = refusal_counts(grades, k)
        expected.append(refused / unanswerable)
    if all(abs(a - e) <= TOLERANCE for a, e in zip(answers, expected, strict=True)):
        return "right"
    for (value, k), wanted in zip(zip(answers, (1, 20), strict=True), expected, strict=True):
        if abs(value - wanted) <= TOLERANCE:
            continue
        unanswerable, refused, refusals = refusal_counts(grades, k)
        assert abs(value - (refused / refusals if refusals else -1.0)) > TOLERANCE, \
            f"at k = {k} it is the refusal precision (right refusals over all refusals), not the recall"
        assert abs(value - (1 - wanted)) > TOLERANCE, f"at k = {k} it is the share of unanswerable queries answered"
        best_unanswerable, best_refused, _ = refusal_counts(grades, k, "best")
        assert abs(value - best_refused / best_unanswerable) > TOLERANCE or abs(wanted - best_refused /
                                                                                best_unanswerable) <= TOLERANCE, \
            f"at k = {k} it is the best pipeline's refusal recall, not naive dense retrieval's"
        assert abs(value - expected[1 - (k == 20)]) > TOLERANCE or expected[0] == expected[1], \
            f"the value for k = {k} belongs to the other k"
        raise AssertionError(f"the refusal recall at k = {k} is not the share of naive dense retrieval's "
                             "unanswerable queries that it refuses")
    raise AssertionError("the two refusal recalls are not both right")
