"""`python -m ragkit answer`: replay on the course data and on Natural Questions, clear errors, and `data check`'s
validation of the answer keys and recorded answers; notebook 13's answer viewer callback."""

import json
import shutil

import pytest
from helpers import ROOT

from ragkit.answering import check_answer_records, course_grid
from ragkit.cli import main
from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.generate.recording import load_answers
from ragkit.llm.prompts import prompt_key

METRICS = {"correctness", "citation_precision", "citation_recall"}


def test_answer_replays_the_course_grid(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["answer", "--data", "data", "--split", "test", "--set", "k=10", "--set", "order=edges", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["queries"] == 181 and result["config"]["order"] == "edges" and result["config"]["k"] == 10
    assert METRICS | {"refusal_precision", "refusal_recall"} <= set(result["metrics"])
    for entry in result["metrics"].values():
        assert 0 <= entry["low"] <= entry["mean"] <= entry["high"] <= 1
    assert result["metrics"]["correctness"]["n"] == 159 and set(result["by_lang"]) == {"en", "zh"}


def test_answer_replays_natural_questions(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["answer", "--data", "data/nq-open", "--condition", "position-10", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["questions"] == 300 and 0.3 < result["metrics"]["correctness"]["mean"] <= 1
    assert main(["answer", "--data", "data/nq-open", "--condition", "position-20", "--writer", "smollm2",
                 "--limit", "100", "--json"]) == 0
    small = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert small["questions"] == 100 and small["metrics"]["correctness"]["mean"] < result["metrics"]["correctness"]["mean"]


@pytest.mark.parametrize("args, message", [
    (["answer", "--data", "data", "--set", "k=7"], "181 of 181 prompts (k=7, order=rank) have no recorded answer from"),
    (["answer", "--data", "data", "--set", "order=middle"], "have no recorded answer from claude; recorded: best k=1"),
    (["answer", "--data", "data", "--set", "k=0"], "k=0.0 is out of range"),
    (["answer", "--data", "data", "--split", "all"], "--split must be dev or test"),
    (["answer", "--data", "data/nq-open", "--set", "k=5"], "--set applies to course data"),
    (["answer", "--data", "data/nq-open", "--limit", "0"], "--limit must be at least 1"),
    (["answer", "--data", "nowhere"], "not a data folder"),
    (["answer", "--data", "data", "--lang", "fr"], "no test queries in language 'fr'"),
])
def test_answer_errors_are_one_clear_line(capsys, monkeypatch, args, message):
    monkeypatch.chdir(ROOT)
    assert main(args) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: ") and message in error and "\n" not in error


def test_an_unreachable_server_is_one_clear_line(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("RAGKIT_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("RAGKIT_LLM_MODEL", "any")
    assert main(["answer", "--data", "data/nq-open", "--model", "server", "--limit", "1"]) == 2
    assert "cannot reach a language model server" in capsys.readouterr().err


def test_data_check_verifies_every_recorded_answer(tmp_path):
    problems, notes = check_answer_records(ROOT / "data")
    assert problems == []
    assert any(note.startswith("claude: ") for note in notes) and any(note.startswith("smollm2: ") for note in notes)
    copy = tmp_path / "data"
    shutil.copytree(ROOT / "data", copy, ignore=shutil.ignore_patterns("vectors", "cranfield", "demo-handbook"))
    course = copy / "llm" / "answers" / "claude" / "course.jsonl"
    lines = course.read_text(encoding="utf-8").splitlines()
    tampered = json.loads(lines[0])
    tampered["key"] = prompt_key("another prompt")
    unsigned = json.loads(lines[1])
    unsigned["model"] = ""
    course.write_text("\n".join([json.dumps(tampered), json.dumps(unsigned), *lines[2:], lines[3]]) + "\n",
                      encoding="utf-8")
    problems, _ = check_answer_records(copy)
    assert any("its key is not the key of the prompt this condition builds now" in p for p in problems)
    assert any("needs a non-empty 'model'" in p for p in problems)
    assert any("answered twice" in p for p in problems)
    assert any("1 grid prompts and 0 Natural Questions prompts have no recorded answer" in p for p in problems)


def test_the_answer_viewer_grades_the_recorded_answer(course_pipe, course_docs, course_queries):
    from ragkit.answering import GRID_PIPELINES
    from ragkit.generate.keys import load_answer_keys
    from ragkit.widgets.answers import answer_html, answer_update

    test = [q for q in course_queries if q.split == "test"]
    keys, records = load_answer_keys(ROOT / "data" / "answer-keys.jsonl"), load_answers(ROOT / "data" / "llm" / "answers" / "claude")
    best = course_pipe.using(**GRID_PIPELINES["best"])
    query = next(q for q in test if q.query_id == "api-004")
    judgment = judgments_from_queries([query], course_docs)[0]
    state = answer_update(best, query, judgment, keys, records, 10, "edges")
    assert best.config.k == 10 and best.config.order == "edges"
    item = next(i for i in course_grid(ROOT / "data") if i["id"] == "api-004" and i["condition"] == "best k=10 order=edges")
    assert state["recorded"] and state["answer"] == records[prompt_key(item["prompt"])]["response"]
    assert state["shown"] == item["shown"] and state["correct"] in (True, False)
    assert "<b>right</b>" in answer_html(state) or "<b>wrong</b>" in answer_html(state)
    missing = answer_update(best, query, judgment, keys, records, 3, "middle")
    assert not missing["recorded"] and "not recorded" in answer_html(missing)


def test_the_playground_answer_button_shows_the_answer_or_one_clear_line(course_pipe):
    from ragkit.errors import RagkitError
    from ragkit.widgets.answers import live_answer_html

    class Echo:
        mode, model = "live", "echo"

        def complete(self, prompt, purpose=""):
            assert "Question: TS-105 after refresh" in prompt
            return "Sign in again [2]."

    class Down:
        mode, model = "live", "down"

        def complete(self, prompt, purpose=""):
            raise RagkitError("cannot reach a language model server at http://127.0.0.1:9/v1: is it running?")

    pipe = course_pipe.using(k=3, order="edges")
    shown = live_answer_html(pipe, "TS-105 after refresh", Echo())
    assert "Sign in again [2]." in shown and shown.count("<li>") == 3 and shown.count("— cited") == 1
    assert "k = 3, order = edges" in shown and "generation" in shown
    assert "<b>no answer</b>: cannot reach" in live_answer_html(pipe, "TS-105 after refresh", Down())
    assert "<b>no answer</b>: the query is empty" in live_answer_html(pipe, "  ", Echo())


def test_the_local_model_answers_from_the_command_line(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["answer", "--data", "data/nq-open", "--condition", "gold-only", "--model", "local", "--limit", "2",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["questions"] == 2 and result["writer"].startswith("SmolLM2-135M-Instruct")
