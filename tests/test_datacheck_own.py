"""`python -m ragkit data check --own`: a labels folder of your own is checked as the judging widget reads it,
without the course's minimum sizes, and the course check points such a folder to `--own`."""

import json
import re
import shutil

import pytest

from ragkit.cli import main
from ragkit.errors import RagkitError
from ragkit.labels.datacheck import check_data, check_query
from ragkit.labels.owncheck import HINT, SKIPPED, check_own_data, course_only

FAQ = "# Parking\n\nVisitors park in bay 4 behind the building. Staff park anywhere else.\n"
WELCOME = ("---\nid: welcome\ntitle: Welcome\nsource: handbook\ndate: 2026-01-05\nlang: en\n---\n"
           "Welcome to the studio. The door code changes every month.\n")


def query(query_id="q-001", doc="faq", quote="Visitors park in bay 4", kind="paraphrase", evidence=None,
          parts=("where do visitors park",)):
    """A query as the judging widget writes it: named parts, pooled evidence."""
    items = evidence or [{"doc": doc, "quote": quote, "parts": [0], "origin": "pooled", "judge": "me"}]
    return {"id": query_id, "text": "where do visitors park", "lang": "en", "type": kind, "split": "dev",
            "parts": list(parts), "evidence": items, "answer": ""}


def judgment(query_id="q-001", doc="welcome", start=0, end=22):
    return {"query": query_id, "doc": doc, "start": start, "end": end, "relevant": False, "verdict": "no",
            "judge": "me"}


def labels_folder(tmp_path, queries=None, judgments=None):
    """A folder of your own: a .txt document without front matter, a .md with all of it, and labels beside them."""
    folder = tmp_path / "own"
    (folder / "corpus").mkdir(parents=True)
    (folder / "corpus" / "faq.txt").write_text(FAQ, encoding="utf-8")
    (folder / "corpus" / "welcome.md").write_text(WELCOME, encoding="utf-8")
    lines = [json.dumps(record) for record in (queries if queries is not None else [query()])]
    (folder / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = [json.dumps(record) for record in (judgments if judgments is not None else [judgment()])]
    (folder / "judgments.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def run(capsys, *args):
    code = main(["data", "check", *args])
    out, err = capsys.readouterr()
    return code, out.strip().splitlines(), err


def test_the_demo_folder_passes_with_own_and_fails_the_course_check_with_the_hint(root, capsys):
    demo = str(root / "data" / "demo-handbook")
    code, lines, err = run(capsys, "--data", demo, "--own")
    assert (code, lines[-1], err) == (0, "data check passed: 0 problems", "")
    assert lines.count(f"note: {SKIPPED}") == 1, "what own mode skips is said once"
    notes = [line for line in lines if line.startswith("note: ") and line != f"note: {SKIPPED}"]
    assert len(notes) == 6, notes
    assert any(note.startswith("note: release-checklist.txt: no front matter: id 'release-checklist'") for note in notes)
    assert check_own_data(demo)[:2] == ([], [note.removeprefix("note: ") for note in notes])
    code, lines, _ = run(capsys, "--data", demo)
    assert code == 1
    assert re.fullmatch(rf"\d+ problems; {re.escape(HINT)}", lines[-1]), lines[-1]
    assert int(lines[-1].split()[0]) > 10, "the course check still holds the demo to the course's sizes"
    assert not any(HINT in line for line in lines[:-1]), "the hint is on the last line only"


def test_a_txt_document_without_front_matter_is_checked_by_its_derived_id(tmp_path, capsys):
    folder = labels_folder(tmp_path)
    code, lines, _ = run(capsys, "--data", str(folder), "--own")
    assert code == 0 and lines[-1] == "data check passed: 0 problems", lines
    derived = [line for line in lines if line.startswith("note: faq.txt: no front matter: id 'faq', title 'Parking'")]
    assert len(derived) == 1, lines
    assert not any(line.startswith("note: welcome.md") for line in lines), "full front matter derives nothing"
    problems, notes, stats = check_own_data(folder)
    assert (problems, len(notes), stats["totals"]["documents"], stats["totals"]["queries"]) == ([], 1, 2, 1)
    code, lines, _ = run(capsys, "--data", str(folder))  # the course check reads .md only, so 'faq' is unknown
    assert code == 1 and lines[-1].endswith(f"problems; {HINT}")
    assert any("evidence names unknown document 'faq'" in line for line in lines)


@pytest.mark.parametrize("queries, judgments, expected", [
    ([query(quote="Visitors park in bay 5")], None, "queries.jsonl:1: quote occurs 0 times in faq (must be once)"),
    ([query(quote="park")], None, "queries.jsonl:1: quote occurs 2 times in faq (must be once)"),
    ([query(doc="faq.txt")], None, "queries.jsonl:1: evidence names unknown document 'faq.txt'"),
    ([query(), query()], None, "queries.jsonl:2: id 'q-001' repeats line 1"),
    (None, [judgment(doc="faq", start=0, end=40)], "judgments.jsonl:1: passage [0, 40) of faq is judged not relevant"),
    (None, [judgment(doc="parking")], "judgments.jsonl:1: unknown document 'parking'"),
])
def test_own_mode_checks_queries_and_judgments_as_the_course_does(tmp_path, capsys, queries, judgments, expected):
    assert check_own_data(labels_folder(tmp_path / "good"))[0] == [], "the folder passes before the one change"
    folder = labels_folder(tmp_path, queries, judgments)
    problems = check_own_data(folder)[0]
    assert len(problems) == 1 and expected in problems[0], problems
    code, lines, _ = run(capsys, "--data", str(folder), "--own")
    assert code == 1 and lines[-1] == "1 problems" and expected in lines[-2], lines[-2:]


def test_a_multi_query_judged_in_two_documents_passes_in_own_mode_only(tmp_path):
    two = [{"doc": doc, "quote": quote, "parts": [part], "origin": "pooled", "judge": "me"} for part, (doc, quote)
           in enumerate([("faq", "Visitors park in bay 4"), ("welcome", "The door code changes every month.")])]
    folder = labels_folder(tmp_path, [query(kind="multi", evidence=two, parts=("parking", "door code"))], [])
    assert check_own_data(folder)[0] == []
    course = check_data(folder, minimums=dict.fromkeys(("documents", "characters", "sources", "zh_documents",
                                                        "queries", "per_type"), 0))[0]
    assert any("a multi query needs written evidence from at least two documents" in p for p in course), course


def test_recorded_llm_files_are_checked_only_where_they_exist(tmp_path):
    folder = labels_folder(tmp_path)
    (folder / "llm").mkdir()
    assert check_own_data(folder)[0] == [], "an llm/ folder without record files is no problem"
    (folder / "llm" / "situating-contexts.jsonl").write_text("not json\n", encoding="utf-8")
    problems = check_own_data(folder)[0]
    assert any("situating-contexts.jsonl:1: not a JSON object with 'key' and 'response'" in p for p in problems)
    assert any("has 0 recorded contexts, not exactly one" in p for p in problems), problems


def test_the_hint_comes_only_for_what_a_folder_of_your_own_need_not_meet(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "notes.md").write_text("# Notes\n\nNo front matter here.\n", encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text(json.dumps(query(doc="notes", quote="front matter")) + "\n")
    problems = check_data(tmp_path, minimums=dict.fromkeys(("documents", "characters", "sources", "zh_documents",
                                                            "queries", "per_type"), 0))[0]
    assert course_only(problems), problems
    assert not course_only([p for p in problems if "front matter" not in p]), "an unknown document needs no hint"
    assert course_only(check_data(tmp_path)[0]), "the minimum sizes"


@pytest.mark.parametrize("breakage, message", [
    ("no corpus", "own: no corpus/ folder (it holds 1 documents itself): the documents go in corpus/"),
    ("no folder", "own: no such folder"),
    ("not utf-8 queries", "queries.jsonl: cannot read the file"),
    ("one id twice", "id 'faq' is already used by"),
])
def test_a_broken_folder_is_one_clear_line(tmp_path, capsys, breakage, message):
    folder = labels_folder(tmp_path)
    if breakage == "no corpus":
        shutil.move(folder / "corpus" / "faq.txt", folder / "faq.txt")
        shutil.rmtree(folder / "corpus")
    elif breakage == "no folder":
        shutil.rmtree(folder)
    elif breakage == "not utf-8 queries":
        (folder / "queries.jsonl").write_bytes(b"\xff\xfe{}\n")
    else:  # ids come from paths (faq.md beside faq.txt is no clash): a front-matter id is the way to repeat one
        (folder / "corpus" / "guide").mkdir()
        (folder / "corpus" / "guide" / "parking.md").write_text("---\nid: faq\n---\n" + FAQ, encoding="utf-8")
    code, lines, err = run(capsys, "--data", str(folder), "--own")
    assert (code, lines) == (2, []), "an error, as main gives for every RagkitError"
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ") and message in err, err
    with pytest.raises(RagkitError, match=re.escape(message)):
        check_own_data(folder)


def test_own_goes_with_data_check_only(capsys):
    assert main(["data", "pool", "--own"]) == 2
    assert "--own goes with data check only" in capsys.readouterr().err


def test_front_matter_that_is_given_must_still_be_usable(tmp_path):
    folder = labels_folder(tmp_path)
    (folder / "corpus" / "welcome.md").write_text(WELCOME.replace("date: 2026-01-05", "date: March 2026")
                                                  .replace("lang: en", "lang: fr"), encoding="utf-8")
    (folder / "corpus" / "empty.txt").write_text("\n", encoding="utf-8")
    problems, notes, _ = check_own_data(folder)
    assert [p.split("/corpus/")[1] for p in problems] == [
        "welcome.md: lang must be 'en' or 'zh', got 'fr'",
        "welcome.md: date must be ISO YYYY-MM-DD, got 'March 2026'"], problems
    assert "not loaded: corpus/empty.txt: no text" in notes, "an empty file is named, not indexed"


def test_a_query_no_passage_answers_yet_is_a_note_in_own_mode_and_a_problem_for_the_course(tmp_path, capsys):
    """A widget's query whose pool held no answer (or is still being judged) is legitimate in a folder of your own:
    a note that eval leaves it out, not a problem; the course's contract still wants evidence."""
    waiting = {**query(query_id="q-002"), "evidence": []}
    for kind in ("paraphrase", "multi"):
        folder = labels_folder(tmp_path / kind, [query(), {**waiting, "type": kind}])
        problems, notes, _ = check_own_data(folder)
        assert problems == [] and [n for n in notes if n.startswith("q-002:")] == [
            "q-002: no passage judged as answering it yet, so the eval command leaves it out"], (problems, notes)
    code, lines, _ = run(capsys, "--data", str(folder), "--own")
    assert code == 0 and "note: q-002: no passage judged as answering it yet" in "\n".join(lines)
    course = []
    check_query({**waiting, "type": "paraphrase"}, "q.jsonl:2", {}, course)
    assert course == ["q.jsonl:2: a paraphrase query needs evidence"]


def test_a_multi_query_answered_in_one_document_or_not_in_every_part_is_noted_in_own_mode(tmp_path):
    """The widget types a query with two named parts multi; both may be answered by one document, or one part by
    none yet: notes for a folder of your own, while the course's contract wants written evidence in two documents."""
    one = [{"doc": "faq", "quote": "Visitors park in bay 4", "parts": [0], "origin": "pooled", "judge": "me"}]
    folder = labels_folder(tmp_path, [query(kind="multi", evidence=one, parts=("parking", "door code"))], [])
    problems, notes, _ = check_own_data(folder)
    assert problems == [] and "q-001: part 2 of 2 ('door code') has no passage judged as answering it yet" in notes
    assert "q-001: every passage answering it is in one document (faq), so it does not test combining documents " \
           "as the course's multi queries do" in notes
    both = one + [{"doc": "faq", "quote": "Staff park anywhere else", "parts": [1], "origin": "pooled",
                   "judge": "me"}]
    problems, notes, _ = check_own_data(labels_folder(tmp_path / "both", [query(kind="multi", evidence=both,
                                                                                 parts=("parking", "door code"))], []))
    assert problems == [] and [note for note in notes if note.startswith("q-001")] == [
        "q-001: every passage answering it is in one document (faq), so it does not test combining documents as the "
        "course's multi queries do"]
    two = one + [{"doc": "welcome", "quote": "The door code changes every month", "parts": [1], "origin": "pooled",
                  "judge": "me"}]
    _, notes, _ = check_own_data(labels_folder(tmp_path / "two", [query(kind="multi", evidence=two,
                                                                        parts=("parking", "door code"))], []))
    assert not [note for note in notes if note.startswith("q-001")], "two documents answer it: nothing to note"
    course = []
    check_query(query(kind="multi", evidence=one, parts=("parking", "door code")), "q.jsonl:1", {}, course)
    assert "q.jsonl:1: a multi query needs written evidence from at least two documents" in course
