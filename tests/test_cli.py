"""`python -m ragkit eval` and `data check` on the course data and on a BEIR-format fixture."""

import json
import shutil
import subprocess
import sys

import pytest

from ragkit.cli import main
from ragkit.errors import RagkitError
from ragkit.evaluate.beir import load_beir

KEYS = {"ndcg@10", "recall@5", "recall@10", "recall@100", "mrr@10", "failure@20"}


def run_cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ragkit", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def test_eval_json_on_the_beir_fixture(root):
    done = run_cli("eval", "--data", "tests/fixtures/beir_tiny", "--method", "dense", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(result) == {"data", "method", "split", "lang", "type", "queries", "metrics", "by_type", "by_lang",
                           "config", "skipped_qrels", "seconds", "warnings"}
    assert result["skipped_qrels"] == {"queries": 0, "documents": 0} and result["warnings"] == []
    assert result["config"]["chunk_size"] is None, "BEIR documents are the retrieval units"
    assert result["queries"] == 4, "q5 has no qrels, so 4 of the 5 queries are judged"
    assert KEYS <= set(result["metrics"])
    assert result["metrics"]["recall@100"] == 1.0


def test_eval_json_on_the_course_data(root, capsys):
    assert main(["eval", "--data", str(root / "data"), "--split", "dev", "--k", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["split"] == "dev" and result["queries"] > 100
    assert KEYS | {"recall@3", "ndcg@3", "mrr@3"} <= set(result["metrics"])
    metrics = result["metrics"]
    assert all(0 <= value <= 1 for value in metrics.values())
    assert metrics["recall@5"] <= metrics["recall@10"] <= metrics["recall@100"], "recall grows with k"
    assert metrics["failure@20"] >= 1 - metrics["recall@100"] - 1e-9, "failure@20 = 1 - recall@20 >= 1 - recall@100"


@pytest.mark.parametrize("args, message", [
    (["eval", "--data", "nowhere"], "not a data folder"),
    (["eval", "--data", "tests/fixtures/beir_tiny", "--method", "magic"], "method='magic' is out of range"),
    (["eval", "--data", "tests/fixtures/beir_tiny", "--set", "nonsense=1"], "unknown setting 'nonsense'; the settings"),
    (["eval", "--data", "tests/fixtures/beir_tiny", "--set", "k1"], "--set takes name=value"),
    (["eval", "--data", "tests/fixtures/beir_tiny", "--set", "b=2"], "b=2.0 is out of range: b (BM25 length"),
    (["eval", "--data", "tests/fixtures/beir_tiny", "--set", "k1=fast"], "k1='fast' is not a number"),
    (["eval", "--data", "data", "--set", "chunk_overlap=900"], "chunk_overlap=900 must be smaller than chunk_size"),
    (["eval", "--data", "tests/fixtures/beir_tiny", "--set", "context=llm"], "nothing recorded for this prompt"),
    (["eval", "--data", "tests/fixtures/beir_tiny", "--split", "train"], "train.tsv: no such qrels file"),
    (["eval", "--data", "tests/fixtures/beir_tiny", "--k", "0"], "--k must be at least 1"),
])
def test_eval_errors_are_one_clear_line(root, capsys, monkeypatch, args, message):
    monkeypatch.chdir(root)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_beir_malformed_lines_name_file_and_line(tmp_path, root):
    folder = tmp_path / "beir"
    shutil.copytree(root / "tests/fixtures/beir_tiny", folder)
    with (folder / "corpus.jsonl").open("a") as handle:
        handle.write("{broken\n")
    with pytest.raises(RagkitError, match=r"corpus\.jsonl:9: not valid JSON"):
        load_beir(folder)
    shutil.copy(root / "tests/fixtures/beir_tiny/corpus.jsonl", folder / "corpus.jsonl")
    with (folder / "qrels/test.tsv").open("a") as handle:
        handle.write("q1\td3\n")
    with pytest.raises(RagkitError, match=r"test\.tsv:9: expected 3 tab-separated fields"):
        load_beir(folder)
    (folder / "qrels/test.tsv").write_text("query-id\tcorpus-id\tscore\nq9\td1\t1\n")
    with pytest.warns(UserWarning, match="1 qrels rows name queries that do not exist; skipped: q9"):
        with pytest.raises(RagkitError, match="no query has a relevant document"):
            load_beir(folder)
    (folder / "queries.jsonl").unlink()
    with pytest.raises(RagkitError, match=r"queries\.jsonl: no such file"):
        load_beir(folder)


def test_beir_graded_gains_are_kept(root):
    _, queries, judgments = load_beir(root / "tests/fixtures/beir_tiny")
    q1 = next(j for j in judgments if j.query_id == "q1")
    assert {(t.doc_id, t.gain) for t in q1.targets} == {("d1", 2.0), ("d2", 1.0)}
    assert "q5" not in {q.query_id for q in queries}


@pytest.mark.parametrize("method", ["bm25", "hybrid"])
def test_eval_sparse_and_hybrid_methods(root, capsys, method):
    assert main(["eval", "--data", str(root / "tests/fixtures/beir_tiny"), "--method", method, "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["method"] == method and result["queries"] == 4
    assert result["metrics"]["recall@100"] == 1.0


def test_set_reaches_the_pipeline_and_the_json_echoes_every_field(root, capsys):
    from ragkit.config import KNOBS

    data = str(root / "data")
    assert main(["eval", "--data", data, "--method", "bm25", "--split", "dev", "--json"]) == 0
    default = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert main(["eval", "--data", data, "--method", "bm25", "--split", "dev", "--set", "k1=0.9", "--set", "b=0.4",
                 "--json"]) == 0
    tuned = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(tuned["config"]) == set(KNOBS), "the JSON names every config field"
    assert (tuned["config"]["k1"], tuned["config"]["b"], tuned["config"]["method"]) == (0.9, 0.4, "bm25")
    assert (default["config"]["k1"], default["config"]["b"]) == (1.5, 0.75)
    assert tuned["metrics"] != default["metrics"], "k1=0.9, b=0.4 ranks the dev queries differently"


def test_set_on_a_beir_folder_with_the_published_bm25_setting(root, capsys):
    folder = str(root / "tests/fixtures/beir_tiny")
    assert main(["eval", "--data", folder, "--method", "bm25", "--set", "k1=1.2", "--set", "b=0.75", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (result["config"]["k1"], result["config"]["b"]) == (1.2, 0.75) and result["queries"] == 4
    assert main(["eval", "--data", folder, "--set", "method=hybrid", "--set", "fusion=zscore", "--set", "alpha=0.3",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (result["method"], result["config"]["fusion"], result["config"]["alpha"]) == ("hybrid", "zscore", 0.3)


def test_bad_set_exits_2_from_the_command_line(root):
    done = run_cli("eval", "--data", "tests/fixtures/beir_tiny", "--set", "nonsense=1", cwd=root)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [done.stderr.strip()], "one line"
    assert done.stderr.startswith("error: unknown setting 'nonsense'"), done.stderr
