"""`python -m ragkit data record`: a judging round in one command, and bad input refused with nothing written;
and the data check's rule against opposite verdicts on the same words for queries that share evidence."""

import json
import shutil

import pytest

from ragkit.cli import main
from ragkit.errors import RagkitError
from ragkit.labels.judgecheck import inconsistent_verdicts
from ragkit.labels.record import record_verdicts, unique_quote

BODY = ("Keys rotate every 90 days. Admins can shorten it.\n"
        "Old keys keep working for 24 hours after a rotation.\n"
        "Keys rotate every 90 days. Tokens are separate.\n")


def write_folder(tmp_path, queries, judgments=()):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "keys.md").write_text(
        "---\nid: keys\ntitle: Key rotation\nsource: security\ndate: 2026-01-05\nlang: en\n---\n" + BODY,
        encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    (tmp_path / "judgments.jsonl").write_text("".join(json.dumps(j) + "\n" for j in judgments), encoding="utf-8")
    return tmp_path


def query(qid, *quotes):
    return {"id": qid, "text": f"question {qid}", "lang": "en", "type": "keyword", "split": "dev", "answer": "",
            "evidence": [{"doc": "keys", "quote": quote} for quote in quotes]}


def verdict(qid, start, end, value, quote=None, **extra):
    line = {"query": qid, "doc": "keys", "start": start, "end": end, "verdict": value, "judge": "judge A"}
    return line | ({"quote": quote} if quote else {}) | extra


def snapshot(folder):
    return {name: (folder / name).read_bytes() for name in ("queries.jsonl", "judgments.jsonl")}


def test_unique_quote_extends_a_repeated_excerpt_within_its_passage():
    second = BODY.rindex("Keys rotate")
    assert unique_quote(BODY, second, len(BODY), "Keys rotate every 90 days") == "Keys rotate every 90 days. T"
    assert BODY.count(unique_quote(BODY, second, len(BODY), "Keys rotate every 90 days")) == 1
    with pytest.raises(RagkitError, match="occurs more than once"):
        unique_quote("ab ab", 0, 2, "ab")


def test_a_yes_becomes_a_pooled_quote_answering_every_part_and_a_no_a_judgment(tmp_path):
    folder = write_folder(tmp_path, [query("q1", "Admins can shorten it."), query("q2", "Tokens are separate.")])
    middle = BODY.index("Old keys")
    second = BODY.rindex("Keys rotate")
    lines = [("f:1", verdict("q1", middle, middle + 52, "yes", "keep working for 24 hours")),
             ("f:2", verdict("q1", second, len(BODY), "no")),
             ("f:3", verdict("q2", 0, 26, "part", "Keys rotate every 90 days"))]
    done = record_verdicts(folder, lines)
    assert done == {"quotes added": 1, "judged not relevant": 2, "already recorded": 0, "replaced": 0}
    records = [json.loads(line) for line in (folder / "queries.jsonl").read_text().splitlines()]
    added = records[0]["evidence"][1]
    assert added == {"doc": "keys", "quote": "keep working for 24 hours", "parts": [0], "origin": "pooled",
                     "judge": "judge A"}
    judged = [json.loads(line) for line in (folder / "judgments.jsonl").read_text().splitlines()]
    assert [(j["query"], j["verdict"]) for j in judged] == [("q1", "no"), ("q2", "part")], \
        "a part on a one-part query is not relevant"
    assert record_verdicts(folder, lines)["already recorded"] == 3, "recording the same round twice adds nothing"


def test_a_part_on_a_two_part_query_is_credited_to_the_closest_written_part(tmp_path):
    two = query("q1", "Admins can shorten it.", "Tokens are separate.") | {"type": "multi"}
    folder = write_folder(tmp_path, [two])
    middle = BODY.index("Old keys")
    record_verdicts(folder, [("f:1", verdict("q1", middle, middle + 52, "part", "Old keys keep working"))],
                    closest_part=lambda record, quote: 1)
    evidence = json.loads((folder / "queries.jsonl").read_text().splitlines()[0])["evidence"]
    assert evidence[2]["parts"] == [1]
    record_verdicts(folder, [("f:1", verdict("q1", middle, middle + 52, "part", "24 hours after a rotation",
                                             parts=[0]))], closest_part=lambda record, quote: 1)
    evidence = json.loads((folder / "queries.jsonl").read_text().splitlines()[0])["evidence"]
    assert evidence[-1]["parts"] == [0], "parts named by the line win over the heuristic"


@pytest.mark.parametrize(("line", "message"), [
    (verdict("nope", 0, 10, "no"), "unknown query 'nope'"),
    (verdict("q1", 0, 10, "no") | {"doc": "gone"}, "unknown document 'gone'"),
    (verdict("q1", 100, 10_000, "no"), "span [100, 10000) is not inside keys"),
    (verdict("q1", 0, 26, "maybe"), "verdict must be one of yes, part, no"),
    (verdict("q1", 0, 26, "yes", "Tokens are separate"), "does not occur inside the passage"),
    (verdict("q1", 27, 50, "no"), "has evidence in this passage"),
    ({"query": "q1"}, "missing doc, start, end, verdict, judge"),
])
def test_bad_lines_get_one_clear_line_and_nothing_is_written(tmp_path, capsys, line, message):
    folder = write_folder(tmp_path, [query("q1", "Admins can shorten it.")], [verdict("q1", 0, 26, "no")])
    before = snapshot(folder)
    (tmp_path / "verdicts.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert main(["data", "record", "--data", str(folder), "--judgments", str(tmp_path / "verdicts.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err
    assert snapshot(folder) == before, "a refused round must not touch the data"


def test_a_verdict_against_an_earlier_one_is_refused_unless_it_replaces_it(tmp_path, capsys):
    middle = BODY.index("Old keys")
    folder = write_folder(tmp_path, [query("q1", "Admins can shorten it.")], [verdict("q1", middle, middle + 52, "no")])
    line = verdict("q1", middle, middle + 52, "yes", "Old keys keep working for 24 hours")
    (tmp_path / "v.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    before = snapshot(folder)
    assert main(["data", "record", "--data", str(folder), "--judgments", str(tmp_path / "v.jsonl")]) == 2
    assert "was judged not relevant here by judge A" in capsys.readouterr().err
    assert snapshot(folder) == before
    assert main(["data", "record", "--data", str(folder), "--judgments", str(tmp_path / "v.jsonl"),
                 "--replace"]) == 0
    assert (folder / "judgments.jsonl").read_text() == "", "the resolving yes replaced the earlier no"
    assert "Old keys keep working" in (folder / "queries.jsonl").read_text()


def test_a_judgment_never_replaces_a_written_quote(tmp_path):
    folder = write_folder(tmp_path, [query("q1", "Admins can shorten it.")])
    with pytest.raises(RagkitError, match="cannot replace the query writer's evidence"):
        record_verdicts(folder, [("f:1", verdict("q1", 27, 50, "no"))], replace=True)


def test_data_record_without_a_file_is_one_clear_line(capsys):
    assert main(["data", "record", "--data", "data"]) == 2
    assert capsys.readouterr().err.strip() == "error: data record needs --judgments FILE (JSON lines of verdicts)"


def test_opposite_verdicts_on_shared_evidence_are_flagged_unless_marked_distinct():
    bodies = {"keys": BODY}
    records = [query("a", "Keys rotate every 90 days. Admins"), query("b", "Admins can shorten it.")]
    no_for_b = {"query": "b", "doc": "keys", "start": 0, "end": 30}
    problems = inconsistent_verdicts([no_for_b], records, bodies)
    assert len(problems) == 1 and "holds the evidence 'Keys rotate every 90 days. Admins' of a" in problems[0]
    assert inconsistent_verdicts([no_for_b | {"distinct_from": ["a"]}], records, bodies) == []
    unrelated = [query("a", "Keys rotate every 90 days. Admins"), query("b", "Tokens are separate.")]
    assert inconsistent_verdicts([no_for_b], unrelated, bodies) == [], "queries without shared evidence differ"


def test_a_resolving_yes_on_a_quote_already_recorded_clears_the_opposite_verdict(tmp_path):
    middle = BODY.index("Old keys")
    pooled = {"doc": "keys", "quote": "keep working for 24 hours", "parts": [0], "origin": "pooled"}
    record = query("q1", "Admins can shorten it.")
    record["evidence"].append(pooled)
    folder = write_folder(tmp_path, [record], [verdict("q1", middle, middle + 52, "no")])
    line = ("f:1", verdict("q1", middle, middle + 52, "yes", "keep working for 24 hours"))
    assert record_verdicts(folder, [line])["replaced"] == 0, "without --replace nothing is cleared"
    assert (folder / "judgments.jsonl").read_text() != ""
    done = record_verdicts(folder, [line], replace=True)
    assert done["already recorded"] == 1 and done["replaced"] == 1
    assert (folder / "judgments.jsonl").read_text() == "", "the passage is no longer judged both ways"


def test_a_translated_pool_retrieves_by_the_rendering_and_shows_the_judge_the_original(root, tmp_path):
    from ragkit.commands import pool_units

    data = tmp_path / "data"
    shutil.copytree(root / "data", data, ignore=shutil.ignore_patterns("vectors", "cranfield", "plain"))
    original = {json.loads(line)["id"]: json.loads(line) for line in (data / "queries.jsonl").read_text().splitlines()}
    # one Chinese query, rendered as the words of an English passage that no Chinese query retrieves
    target = next(q for q in original.values() if q["lang"] == "zh" and q["evidence"] and q["split"] == "test")
    rendering = {"key": "k", "query": target["id"], "response": "TS-417 API version retired migrate v1 to v2"}
    (data / "llm" / "query-translations.jsonl").write_text(json.dumps(rendering) + "\n", encoding="utf-8")
    units = pool_units(str(data), "bm25", "test", 10, translated=True)
    assert {u["query"] for u in units} == {target["id"]}, "only queries with a rendering are pooled"
    assert {u["text"] for u in units} == {target["text"]}, "the judge reads the original Chinese question"
    assert any(u["doc"] in ("api-error-codes", "api-migration-v1-to-v2") for u in units), "retrieved by the rendering"
    (data / "llm" / "query-translations.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(RagkitError, match=r"query-translations.jsonl:1: not valid JSON"):
        pool_units(str(data), "bm25", "test", 10, translated=True)
    (data / "llm" / "query-translations.jsonl").unlink()
    with pytest.raises(RagkitError, match="no recorded translations to pool with"):
        pool_units(str(data), "bm25", "test", 10, translated=True)
