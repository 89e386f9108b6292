"""The language-model stages checked where the judge is not the model: learning to rank by query folds (no query
ranked by a model trained on it), the second set of situating contexts (Anthropic's prompt alone) behind
`context="llm-plain"`, and the recorded Cranfield rerank scores validated by `data check`."""

import json
import shutil

import pytest

from ragkit.chunk.base import Chunk
from ragkit.chunk.context import contextual_texts
from ragkit.cli import main
from ragkit.corpus import Document
from ragkit.evaluate.folds import cross_fitted_rankings, query_folds
from ragkit.labels.recordcheck import check_beir_rerank_records, check_contexts, check_rerank_records
from ragkit.llm.client import LanguageModel
from ragkit.llm.prompts import prompt_key, situate_prompt


def test_query_folds_are_balanced_and_stable():
    ids = [f"q{n}" for n in range(23)]
    folds = query_folds(ids)
    assert sorted(set(folds)) == [0, 1, 2, 3, 4] and max(folds.count(f) for f in range(5)) <= 5
    assert query_folds(list(reversed(ids))) == list(reversed(folds)), "a query's fold does not depend on order"


class Spy:
    """Records which queries each ranker was trained on and which it ranked."""

    def __init__(self):
        self.calls, self.trained = [], None

    def train_ranker(self, queries, judgments):
        assert len(queries) == len(judgments)
        self.trained = {q.query_id for q in queries}

    def rankings(self, texts, depth):
        self.calls.append((set(self.trained), list(texts)))
        return [[text] for text in texts]


def test_no_query_is_ranked_by_a_model_trained_on_it():
    class Q:
        def __init__(self, n):
            self.query_id, self.text = f"q{n}", f"text of q{n}"

    queries, spy = [Q(n) for n in range(12)], Spy()
    rankings = cross_fitted_rankings(spy, queries, [None] * 12, 10)
    assert rankings == [[q.text] for q in queries], "every query ranked once, in its own position"
    assert len(spy.calls) == 5
    for trained, texts in spy.calls:
        ranked = {text.split()[-1] for text in texts}
        assert not trained & ranked, "a fold is ranked by a model that never saw it"
        assert trained | ranked == {q.query_id for q in queries}, "trained on every other query"


def test_ltr_by_folds_on_a_beir_folder_with_only_a_test_split(root, tmp_path, capsys):
    data = tmp_path / "beir"
    shutil.copytree(root / "tests/fixtures/beir_tiny", data)
    assert main(["eval", "--data", str(data), "--method", "bm25", "--json", "--set", "rerank=ltr"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["ltr"]["train_split"] == "folds" and result["queries"] == 4


def test_llm_plain_replays_the_plain_writers_not_the_course_variant(tmp_path):
    doc = Document("d", "Guide", "faq", "2025-01-01", "en", "# Guide\nRotate keys yearly.")
    chunk = Chunk("d#0", "d", 0, len(doc.text), doc.text)
    key = prompt_key(situate_prompt(doc.text, chunk.text))
    (tmp_path / "contexts.jsonl").write_text(json.dumps({"key": key, "response": "Course variant."}) + "\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "contexts.jsonl").write_text(json.dumps({"key": key, "response": "Plain."}) + "\n")
    model = LanguageModel(mode="replay", recordings=tmp_path)
    assert contextual_texts([doc], [chunk], "llm", model)[0].startswith("Course variant.")
    assert contextual_texts([doc], [chunk], "llm-plain", model.variant("plain"))[0].startswith("Plain.")


def test_the_pipeline_indexes_the_plain_contexts_under_llm_plain(course_docs):
    from ragkit.pipeline import Pipeline

    pipe = Pipeline(course_docs, method="bm25")
    course = pipe.configure(context="llm").indexed_texts
    plain = pipe.configure(context="llm-plain").indexed_texts
    assert len(course) == len(plain) == len(pipe.chunks)
    assert all(c.endswith(chunk.text) and p.endswith(chunk.text) for c, p, chunk in zip(course, plain, pipe.chunks, strict=True))
    assert sum(c != p for c, p in zip(course, plain, strict=True)) > 0.9 * len(plain), "two different writers' contexts"


def test_data_check_rejects_a_cranfield_score_filed_under_another_prompt(root, tmp_path):
    data = tmp_path / "data"
    (data / "llm").mkdir(parents=True)
    shutil.copytree(root / "data" / "cranfield", data / "cranfield")
    lines = (root / "data" / "llm" / "cranfield-rerank-scores.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    lines[0] = json.dumps(first | {"key": prompt_key("another prompt")})
    lines[1] = json.dumps(json.loads(lines[1]) | {"response": "eleven"})
    (data / "llm" / "cranfield-rerank-scores.jsonl").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    problems = []
    assert check_beir_rerank_records(data, problems) == len(lines) - 1
    assert any(":1: its key is not the key of the prompt" in p for p in problems)
    assert any(":2: a score must be a whole number from 0 to 10" in p for p in problems)
    assert any("do not have 20 scores each" in p for p in problems), "a dropped line is caught by the count"


def test_cranfield_llm_rerank_replays_offline_against_human_judgments(root, capsys):
    # MaxSim and learning to rank on Cranfield (their token vectors take a minute to compute) run in notebook 09
    args = ["eval", "--data", str(root / "data" / "cranfield"), "--method", "hybrid", "--split", "test", "--json"]
    with pytest.warns(UserWarning, match="neither title nor text"):
        assert main(args) == 0
        first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert main([*args, "--set", "rerank=llm", "--set", "rerank_depth=20"]) == 0
    reranked = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert first["queries"] == reranked["queries"] == 225 and first["skipped_qrels"]["documents"] == 1
    assert reranked["metrics"]["ndcg@10"] != first["metrics"]["ndcg@10"], "the recorded scores reorder the top 20"
    assert reranked["metrics"]["recall@100"] == first["metrics"]["recall@100"], "a top-20 reranker keeps the top 100"


def test_data_check_wants_one_english_rendering_per_chinese_query(root, tmp_path):
    from ragkit.labels.recordcheck import check_rerank_records

    data = tmp_path / "data"
    shutil.copytree(root / "data", data, ignore=shutil.ignore_patterns("vectors", "cranfield"))
    path = data / "llm" / "query-translations.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    problems = []
    check_rerank_records(data, problems)
    missing = json.loads(lines[0])["query"]
    assert problems == [f"{path}: 1 Chinese queries do not have exactly one English rendering (first: {missing})"]


def own_folder(root, tmp_path, files):
    """A folder of the course's documents and queries whose `llm/` holds the first lines of each recorded file in
    `files`, with the responses given (by line) put in place of the recorded ones."""
    data = tmp_path / "data"
    shutil.copytree(root / "data" / "corpus", data / "corpus")
    shutil.copy(root / "data" / "queries.jsonl", data)
    for name, responses in files.items():
        (data / "llm" / name).parent.mkdir(parents=True, exist_ok=True)
        lines = (root / "data" / "llm" / name).read_text(encoding="utf-8").splitlines()[:len(responses) + 1]
        lines[:-1] = [json.dumps(json.loads(line) | {"response": response})
                      for line, response in zip(lines, responses, strict=False)]
        (data / "llm" / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def test_a_response_that_is_not_a_string_is_one_problem_not_a_crash(root, tmp_path, capsys):
    # people write these files themselves (data check --own): a number where "7" belongs is a likely slip
    files = {"query-rewrites.jsonl": [5], "rerank-scores.jsonl": [7, "²", None],
             "query-translations.jsonl": [["one", "line"]]}
    data = own_folder(root, tmp_path, files)
    problems = []
    assert check_rerank_records(data, problems) == 8
    llm = data / "llm"
    expected = [f"{llm / 'rerank-scores.jsonl'}:1: the response must be a JSON string, got 7",
                f"{llm / 'rerank-scores.jsonl'}:2: a score must be a whole number from 0 to 10, got '²'",
                f"{llm / 'rerank-scores.jsonl'}:3: the response must be a JSON string, got null",
                f"{llm / 'query-rewrites.jsonl'}:1: the response must be a JSON string, got 5",
                f"{llm / 'query-translations.jsonl'}:1: the response must be a JSON string, got [\"one\", \"line\"]"]
    assert problems[:-1] == expected, "one line each, and none for the recorded lines after them"
    assert "Chinese queries do not have exactly one English rendering" in problems[-1]
    assert main(["data", "check", "--data", str(data), "--own"]) == 1
    out = capsys.readouterr().out
    assert all(line in out for line in expected)


@pytest.mark.parametrize("variant", ["", "plain"])
def test_a_context_that_is_not_a_string_is_one_problem_not_a_crash(root, tmp_path, variant):
    name = f"{variant}/situating-contexts.jsonl".lstrip("/")
    data = own_folder(root, tmp_path, {})
    lines = (root / "data" / "llm" / name).read_text(encoding="utf-8").splitlines()
    lines[0] = json.dumps(json.loads(lines[0]) | {"response": 3.5})
    (data / "llm" / name).parent.mkdir(parents=True)
    (data / "llm" / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = []
    assert check_contexts(data, problems, variant=variant) == len(lines)
    assert problems == [f"{data / 'llm' / name}:1: the response must be a JSON string, got 3.5"]


def test_a_cranfield_score_that_is_not_a_string_is_one_problem_not_a_crash(root, tmp_path):
    data = tmp_path / "data"
    (data / "llm").mkdir(parents=True)
    shutil.copytree(root / "data" / "cranfield", data / "cranfield")
    path = data / "llm" / "cranfield-rerank-scores.jsonl"
    lines = (root / "data" / "llm" / path.name).read_text(encoding="utf-8").splitlines()
    lines[:2] = [json.dumps(json.loads(lines[0]) | {"response": 7}), json.dumps(json.loads(lines[1]) | {"response": "³"})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = []
    assert check_beir_rerank_records(data, problems) == len(lines)
    assert problems == [f"{path}:1: the response must be a JSON string, got 7",
                        f"{path}:2: a score must be a whole number from 0 to 10, got '³'"]


def test_the_last_rung_replays_at_depth_50_on_the_test_split(root, capsys):
    assert main(["eval", "--data", str(root / "data"), "--method", "hybrid", "--split", "test", "--json",
                 "--set", "context=llm", "--set", "rerank=llm", "--set", "rerank_depth=50"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["metrics"]["judged@10"] == 1.0 and result["metrics"]["failure@20"] < 0.044, \
        "reranking the top 50 can repair the top 20, which the top-15 rerank cannot"
