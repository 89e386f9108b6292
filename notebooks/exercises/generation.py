"""The checks of notebook 13's exercises (from retrieval to answers). Each takes the learner's answer first, then
what the notebook already has (`grades`, the graded table of recorded answers), and raises `AssertionError`
saying what is wrong with the answer.

The checks recount from the table's columns with plain loops, not with the notebook's own cells, and compare
with the slips a learner would make (correctness not split by evidence, retrieval's share instead of the
answers', the other pipeline, refusals counted over every query, swapped values). `tests/test_exercises_13.py` shows that each check accepts a
right answer computed another way and rejects plausible wrong ones.
"""

from __future__ import annotations

from exercises.answers import number

TOLERANCE = 5e-4


def health_counts(grades, pipeline: str = "dense") -> dict[bool, tuple[int, int]]:
    """evidence shown → (answerable queries, of them answered right) of one pipeline at k = 5 in rank order."""
    rows = grades[(grades["pipeline"] == pipeline) & (grades["k"] == 5) & (grades["order"] == "rank")
                  & ~grades["distractor"] & grades["answerable"]]
    counts = {True: [0, 0], False: [0, 0]}
    for shown, right in zip(rows["evidence shown"], rows["correct"], strict=True):
        counts[bool(shown)][0] += 1
        counts[bool(shown)][1] += int(right == 1.0)
    return {shown: (total, right) for shown, (total, right) in counts.items()}


def check_health(with_evidence, without_evidence, grades):
    answers = [number(with_evidence, "the share with evidence shown"),
               number(without_evidence, "the share without evidence shown")]
    counts = health_counts(grades)
    expected = [counts[True][1] / counts[True][0], counts[False][1] / counts[False][0]]
    if all(abs(a - e) <= TOLERANCE for a, e in zip(answers, expected, strict=True)):
        return "right"
    assert not (abs(answers[0] - expected[1]) <= TOLERANCE and abs(answers[1] - expected[0]) <= TOLERANCE), \
        "the two shares are swapped: the first is for the queries whose passages hold evidence"
    total = counts[True][0] + counts[False][0]
    best = health_counts(grades, "best")
    slips = [((counts[True][1] + counts[False][1]) / total, "it is the correctness over all answerable queries, "
                                                             "not split by whether evidence was shown"),
             (counts[True][0] / total, "it is the share of queries whose passages hold evidence (retrieval's "
                                       "health), not the share answered right among them"),
             (best[True][1] / best[True][0], "it is the best pipeline's, not naive dense retrieval's")]
    for value, wanted, name in zip(answers, expected, ("with evidence", "without evidence"), strict=True):
        if abs(value - wanted) <= TOLERANCE:
            continue
        for slip, message in slips:
            assert abs(value - slip) > TOLERANCE, f"the share {name} is wrong: {message}"
        raise AssertionError(f"the share {name} is not the share of those answerable queries answered right")
    raise AssertionError("the two shares are not both right")


def give_up_counts(grades, k: int, pipeline: str = "dense") -> tuple[int, int, int, int]:
    """(answerable queries, of them refused, unanswerable queries, of them refused) of one pipeline at `k` in rank
    order without the distractor."""
    rows = grades[(grades["pipeline"] == pipeline) & (grades["k"] == k) & (grades["order"] == "rank")
                  & ~grades["distractor"]]
    answerable = [refused for refused, known in zip(rows["refused"], rows["answerable"], strict=True) if known]
    unanswerable = [refused for refused, known in zip(rows["refused"], rows["answerable"], strict=True) if not known]
    return len(answerable), int(sum(answerable)), len(unanswerable), int(sum(unanswerable))


def check_give_up(share_at_1, share_at_20, grades):
    answers = [number(share_at_1, "the share at k = 1"), number(share_at_20, "the share at k = 20")]
    counts = {k: give_up_counts(grades, k) for k in (1, 20)}
    expected = [counts[k][1] / counts[k][0] for k in (1, 20)]
    if all(abs(a - e) <= TOLERANCE for a, e in zip(answers, expected, strict=True)):
        return "right"
    assert not (abs(answers[0] - expected[1]) <= TOLERANCE and abs(answers[1] - expected[0]) <= TOLERANCE), \
        "the two shares are swapped: the first is for k = 1"
    for value, k, wanted in zip(answers, (1, 20), expected, strict=True):
        if abs(value - wanted) <= TOLERANCE:
            continue
        answerable, refused, unanswerable, right = counts[k]
        best = give_up_counts(grades, k, "best")
        slips = [((refused + right) / (answerable + unanswerable), "it counts refusals over every query, the "
                                                                   "unanswerable ones included"),
                 (right / unanswerable, "it is the refusal recall (unanswerable queries refused), not answerable "
                                        "queries given up on"),
                 (1 - wanted, "it is the share of answerable queries the model did answer"),
                 (best[1] / best[0], "it is the best pipeline's share, not naive dense retrieval's")]
        for slip, message in slips:
            assert abs(value - slip) > TOLERANCE or abs(slip - wanted) <= TOLERANCE, f"at k = {k}: {message}"
        raise AssertionError(f"the share at k = {k} is not the share of answerable queries whose answer says the "
                             "sources do not hold it")
    raise AssertionError("the two shares are not both right")
