"""The multilingual encoder notebook's exercise checks (`notebooks/exercises/multilingual.py`): each accepts a right
answer computed here another way (the Python sentencepiece port called on pieces as strings; per-query tables
from `Pipeline.evaluate`), rejects the slips a learner would make, and no message gives the answer away."""

import pytest
from helpers import ROOT, assert_shows_none, exercise_checks, rejection_messages

from ragkit.corpus import load_queries

checks = exercise_checks("multilingual")


@pytest.fixture(scope="module")
def dev():
    return load_queries(ROOT / "data" / "queries.jsonl", split="dev")


def test_pieces_accepts_a_right_answer_and_rejects_the_slips(dev):
    tokenizer = checks.use_tokenizer()  # the package's tokenizer; the counting below is this test's own
    chinese = [q.text for q in dev if q.lang == "zh"]
    as_strings = [tokenizer.encode(text, out_type=str)[1:-1] for text in chinese]  # <s> and </s> dropped by hand
    right = sum(map(len, as_strings)) / len(as_strings)
    assert checks.check_pieces(right, dev) == "right"
    everyone = [len(tokenizer.encode(q.text, out_type=str)) - 2 for q in dev]
    slips = [right + 2, sum(map(len, chinese)) / len(chinese), sum(everyone) / len(everyone), right * 1.1, "many"]
    messages = rejection_messages([lambda s=s: checks.check_pieces(s, dev) for s in slips])
    assert "<s>" in messages[0] and "characters" in messages[1] and "every dev query" in messages[2]
    assert "not the mean" in messages[3] and "not a number" in messages[4]
    for message in messages:
        assert_shows_none(message, [f"{right:.2f}", f"{right:.1f}"])


def test_wins_accepts_a_right_answer_and_rejects_the_slips(course_pipe, dev):
    answerable = [q for q in dev if q.evidence]
    tables = {name: course_pipe.using(encoder=name).evaluate(answerable, ["recall@5"]).assign(
        lang=[q.lang for q in answerable]) for name in ("minilm", "e5-small")}
    chinese = tables["minilm"]["lang"] == "zh"
    e5_hit = tables["e5-small"].loc[chinese, "recall@5"] > 0
    minilm_hit = tables["minilm"].loc[chinese, "recall@5"] > 0
    e5_only, minilm_only = int((e5_hit & ~minilm_hit).sum()), int((minilm_hit & ~e5_hit).sum())
    assert e5_only > minilm_only, "e5-small finds more of the Chinese queries"
    assert checks.check_wins(e5_only, minilm_only, course_pipe, dev) == "right"
    every_e5 = tables["e5-small"]["recall@5"] > 0
    every_minilm = tables["minilm"]["recall@5"] > 0
    every = (int((every_e5 & ~every_minilm).sum()), int((every_minilm & ~every_e5).sum()))
    slips = [(minilm_only, e5_only), every, (int(e5_hit.sum()), minilm_only), (e5_only + 1, minilm_only), ("x", 1)]
    messages = rejection_messages([lambda s=s: checks.check_wins(*s, course_pipe, dev) for s in slips])
    assert "swapped" in messages[0] and "every language" in messages[1] and "MiniLM misses" in messages[2]
    assert "not the queries" in messages[3] and "not a number" in messages[4]
    for message in messages:
        assert_shows_none(message, [str(e5_only), str(minilm_only)])
