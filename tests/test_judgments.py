"""Pooled judgments: parts and alternatives in the metrics, judged@k, the judgments file's validator, the pool
command, and the goal that the judgments cover the top 10 and top 20 of every method the README reports."""

import json
import shutil

import numpy as np
import pytest

from ragkit.chunk.base import Chunk
from ragkit.cli import main
from ragkit.commands import run_eval
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import Judgment, Target, judged_units, ranking_hits
from ragkit.evaluate.tables import metric_value
from ragkit.labels.datacheck import check_data


def chunk(doc, start, end):
    return Chunk(f"{doc}#{start}", doc, start, end, "")


def test_an_alternative_passage_satisfies_its_part_and_recall_counts_parts():
    # part 0 answered by a written quote in d or a pooled one in e; part 1 only by f
    judgment = Judgment("q", "multi", "dev", (Target("d", 0, 10), Target("f", 0, 10),
                                               Target("e", 50, 60, parts=frozenset({0}))))
    ranking = [chunk("e", 40, 80), chunk("d", 0, 20)]
    assert ranking_hits(ranking, judgment) == [frozenset({0}), frozenset({0})]
    assert metric_value("recall@5", ranking, judgment) == 0.5, "two parts, one answered (twice)"
    assert metric_value("recall@1", ranking, judgment) == 0.5, "the pooled alternative answers part 0 at rank 1"
    assert metric_value("ndcg@5", ranking, judgment) == pytest.approx(1 / (1 + 1 / 1.5849625), rel=1e-6)


def test_a_passage_that_answers_every_part_gives_full_recall():
    judgment = Judgment("q", "multi", "dev", (Target("d", 0, 10), Target("f", 0, 10),
                                               Target("g", 0, 10, parts=frozenset({0, 1}))))
    assert metric_value("recall@1", [chunk("g", 0, 30)], judgment) == 1.0


def test_judged_at_k_counts_relevant_and_mostly_judged_units():
    judgment = Judgment("q", "keyword", "dev", (Target("d", 0, 10),),
                        not_relevant=(Target("x", 0, 800), Target("x", 700, 1500)))
    ranking = [chunk("d", 0, 20), chunk("x", 100, 900), chunk("x", 1400, 2000), chunk("y", 0, 100)]
    assert judged_units(ranking, judgment) == [True, True, False, False], "x 1400-2000 is only 1/6 inside"
    assert metric_value("judged@10", ranking, judgment) == 0.5
    assert metric_value("judged@2", ranking, judgment) == 1.0


@pytest.fixture()
def data_copy(tmp_path, root):
    data = tmp_path / "data"
    shutil.copytree(root / "data", data, ignore=shutil.ignore_patterns("llm"))
    return data


def test_validator_rejects_a_span_outside_its_document_and_a_passage_judged_both_ways(data_copy):
    lines = (data_copy / "judgments.jsonl").read_text(encoding="utf-8").splitlines()
    queries = {json.loads(line)["id"]: json.loads(line) for line in (data_copy / "queries.jsonl").read_text().splitlines()}
    outside = json.loads(lines[0]) | {"end": 10_000_000}
    evidence = queries["api-001"]["evidence"][0]
    body = (data_copy / "corpus" / f"{evidence['doc']}.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    start = body.index(evidence["quote"])
    both_ways = {"query": "api-001", "doc": evidence["doc"], "start": start, "end": start + len(evidence["quote"]),
                 "relevant": False, "verdict": "no", "judge": "test"}
    relevant = json.loads(lines[1]) | {"relevant": True}
    (data_copy / "judgments.jsonl").write_text("\n".join([json.dumps(outside), json.dumps(both_ways),
                                                          json.dumps(relevant), *lines[2:]]) + "\n")
    problems, _ = check_data(data_copy)
    assert any("judgments.jsonl:1: span" in p and "is not inside" in p for p in problems), problems
    assert any("judgments.jsonl:2:" in p and "judged not relevant but covers its evidence" in p for p in problems)
    assert any("judgments.jsonl:3: only passages judged not relevant" in p for p in problems)


def test_validator_rejects_pooled_evidence_without_a_part(data_copy):
    lines = (data_copy / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["evidence"].append({"doc": record["evidence"][0]["doc"], "quote": record["evidence"][0]["quote"][:30],
                               "origin": "pooled"})
    (data_copy / "queries.jsonl").write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    problems, _ = check_data(data_copy)
    assert any("queries.jsonl:1: evidence parts [] must name the query's parts" in p for p in problems), problems


def test_pool_lists_exactly_the_unjudged_units(data_copy, capsys):
    assert main(["data", "pool", "--data", str(data_copy), "--method", "bm25", "--split", "dev"]) == 0
    assert capsys.readouterr().out.strip() == "", "the course judgments cover BM25's top 10"
    (data_copy / "judgments.jsonl").write_text("")  # forget the not-relevant judgments: BM25's misses reappear
    assert main(["data", "pool", "--data", str(data_copy), "--method", "bm25", "--split", "dev",
                 "--set", "k1=1.2"]) == 0
    out = capsys.readouterr()
    units = [json.loads(line) for line in out.out.splitlines()]
    assert len(units) > 100 and f"{len(units)} units to judge" in out.err
    assert set(units[0]) == {"query", "text", "doc", "title", "date", "start", "end", "passage"}


@pytest.mark.parametrize("method", ["dense", "bm25", "hybrid"])
@pytest.mark.parametrize("split", ["dev", "test"])
def test_judgments_cover_the_top_20_of_every_reported_method(root, method, split):
    result = run_eval(str(root / "data"), method, split, 10)
    assert result["metrics"]["judged@10"] >= 0.95, result["metrics"]
    assert result["metrics"]["judged@20"] >= 0.95, "failure@20 would count unjudged chunks as misses"
    assert all(row["judged@20"] >= 0.95 for row in result["by_lang"].values()), result["by_lang"]


def test_eval_slices_by_language_and_type(root, capsys):
    assert main(["eval", "--data", str(root / "data"), "--method", "bm25", "--split", "dev", "--lang", "zh",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(result["by_lang"]) == {"zh"} and result["lang"] == "zh"
    assert result["queries"] == result["by_lang"]["zh"]["queries"] > 20
    assert main(["eval", "--data", str(root / "data"), "--method", "bm25", "--split", "dev", "--json"]) == 0
    everything = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(everything["by_lang"]) == {"en", "zh"} and "multi" in everything["by_type"]
    assert sum(row["queries"] for row in everything["by_type"].values()) == everything["queries"]
    zh_mean = everything["by_lang"]["zh"]["recall@5"]
    assert zh_mean == pytest.approx(result["metrics"]["recall@5"], abs=1e-4)
    assert main(["eval", "--data", str(root / "data"), "--method", "bm25", "--split", "dev", "--type", "multi",
                 "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out.strip().splitlines()[-1])["by_type"]) == {"multi"}


@pytest.mark.parametrize(("args", "message"), [
    (["--data", "tests/fixtures/beir_tiny", "--type", "keyword"], "--type needs queries with a type; BEIR"),
    (["--data", "data", "--type", "nonsense"], "no test queries with type 'nonsense'; the values are context"),
    (["--data", "data", "--lang", "fr"], "no test queries with lang 'fr'; the values are en, zh"),
])
def test_bad_slices_get_one_clear_line(root, capsys, args, message, monkeypatch):
    monkeypatch.chdir(root)
    assert main(["eval", "--method", "bm25", *args]) == 2
    assert message in capsys.readouterr().err


def test_beir_qrels_naming_missing_documents_are_counted(tmp_path, root, capsys):
    folder = tmp_path / "beir"
    shutil.copytree(root / "tests/fixtures/beir_tiny", folder)
    with (folder / "qrels/test.tsv").open("a") as handle:
        handle.write("q1\tgone-1\t1\nq2\tgone-2\t1\n")
    with pytest.warns(UserWarning, match="2 qrels rows name documents that do not exist; skipped: gone-1, gone-2"):
        result = run_eval(str(folder), "bm25", "test", 10)
    assert result["skipped_qrels"] == {"queries": 0, "documents": 2}
    assert result["metrics"]["recall@100"] == 1.0, "a skipped row is not a silent miss"
    q4 = run_eval(str(root / "tests/fixtures/beir_tiny"), "bm25", "test", 10)["metrics"]["judged@10"]
    assert 0 < q4 < 1, "documents in the qrels with score 0 count as judged, the others do not"


def test_lang_works_on_a_beir_folder(root):
    everything = run_eval(str(root / "tests/fixtures/beir_tiny"), "bm25", "test", 10)
    english = run_eval(str(root / "tests/fixtures/beir_tiny"), "bm25", "test", 10, lang="en")
    assert english["queries"] == everything["queries"] == 4 and english["by_lang"].keys() == {"en"}
    with pytest.raises(RagkitError, match="no test queries with lang 'zh'; the values are en"):
        run_eval(str(root / "tests/fixtures/beir_tiny"), "bm25", "test", 10, lang="zh")


@pytest.mark.parametrize(("args", "message"), [
    (["data", "pool", "--data", "data", "--depth", "0"], "--depth must be at least 1, got 0"),
    (["data", "pool", "--data", "nowhere"], "nowhere: not a data folder"),
    (["data", "pool", "--data", "data", "--set", "k1=fast"], "k1='fast' is not a number"),
])
def test_pool_bad_input_gets_one_clear_line(root, capsys, args, message, monkeypatch):
    monkeypatch.chdir(root)
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_a_broken_judgments_line_names_file_and_line(data_copy):
    from ragkit.corpus import load_queries

    (data_copy / "judgments.jsonl").write_text('{"query": "api-001", "doc": "api-faq", "relevant": false}\n')
    with pytest.raises(RagkitError, match=r"judgments\.jsonl:1: a judgment needs query, doc, start, end"):
        load_queries(data_copy / "queries.jsonl")
    (data_copy / "judgments.jsonl").write_text('{"query": "api-001", "doc": "api-faq", "start": 0, "end": 5, '
                                               '"relevant": true}\n')
    with pytest.raises(RagkitError, match="only passages judged not relevant go here"):
        load_queries(data_copy / "queries.jsonl")


def test_a_query_that_names_its_parts_is_checked_against_them():
    # notebook 12's widget writes queries with named parts and only pooled quotes: part 1 exists without a
    # second written quote, and part 2 does not
    from ragkit.labels.datacheck import check_query

    docs = {"d": {"meta": {}, "body": "The limit is 40 euros a night. Claims are due within 30 days.", "path": "d.md"}}
    record = {"id": "q", "text": "limit and deadline?", "lang": "en", "type": "paraphrase", "split": "dev",
              "answer": "", "parts": ["limit", "deadline"],
              "evidence": [{"doc": "d", "quote": "The limit is 40 euros a night.", "origin": "pooled", "parts": [0]},
                           {"doc": "d", "quote": "Claims are due within 30 days.", "origin": "pooled", "parts": [1]}]}
    problems = []
    check_query(record, "q.jsonl:1", docs, problems)
    assert problems == []
    record["evidence"][1]["parts"] = [2]
    check_query(record, "q.jsonl:1", docs, problems)
    assert problems == ["q.jsonl:1: evidence parts [2] must name the query's parts (0 to 1); pooled evidence must "
                        "name at least one"]


def judged_by_characters(ranking, judgment):
    """judged_units written literally: the set of the unit's characters inside any not-relevant span."""
    hits = ranking_hits(ranking, judgment)
    flags = []
    for unit, hit in zip(ranking, hits, strict=True):
        if hit or any(s.end is None and s.doc_id == unit.doc_id for s in judgment.not_relevant):
            flags.append(True)
            continue
        inside = {c for s in judgment.not_relevant if s.doc_id == unit.doc_id
                  for c in range(max(s.start, unit.start), min(s.end, unit.end))}
        flags.append(len(inside) * 2 >= unit.end - unit.start > 0)
    return flags


@pytest.mark.parametrize("seed", range(30))
def test_judged_units_counts_overlapping_spans_once_as_the_literal_character_set_does(seed):
    rng = np.random.default_rng(seed)
    spans = []
    for _ in range(int(rng.integers(0, 12))):  # overlapping, nested and touching spans over two documents
        start = int(rng.integers(0, 300))
        spans.append(Target(str(rng.choice(["d", "e"])), start, start + int(rng.integers(1, 200))))
    judgment = Judgment("q", "keyword", "dev", (Target("d", 500, 520),), not_relevant=tuple(spans))
    ranking = []
    for _ in range(20):
        start = int(rng.integers(0, 450))
        ranking.append(chunk(str(rng.choice(["d", "e", "f"])), start, start + int(rng.integers(1, 120))))
    assert judged_units(ranking, judgment) == judged_by_characters(ranking, judgment)
    assert judged_units(ranking[::-1], judgment) == judged_by_characters(ranking, judgment)[::-1], "memo reused"
    other = Judgment("q", "keyword", "dev", (Target("d", 500, 520),))  # same spans, nothing judged not relevant
    assert judged_units(ranking, other) == judged_by_characters(ranking, other), "each judgment keeps its own memo"


def test_judged_units_on_the_course_rankings_equal_the_literal_character_set(root):
    from ragkit.corpus import load_documents, load_queries
    from ragkit.evaluate.relevance import judgments_from_queries
    from ragkit.pipeline import Pipeline
    docs = load_documents(root / "data/corpus")
    queries = [q for q in load_queries(root / "data/queries.jsonl", split="dev") if q.evidence]
    rankings = Pipeline(docs, method="hybrid").rankings([q.text for q in queries], 50)
    flags = [judged_units(r, j) for r, j in zip(rankings, judgments_from_queries(queries, docs), strict=True)]
    assert flags == [judged_by_characters(r, j) for r, j in zip(rankings, judgments_from_queries(queries, docs),
                                                                   strict=True)]
    assert 0 < sum(map(sum, flags)) < sum(map(len, flags)), "some units of a top 50 are judged and some are not"
