"""Notebook 12's judging widget without a browser: bad folders get one line each, a selection is snapped to the
passage or refused (never stored wrong), two writers at once lose nothing, verdicts land in the course's formats
through `data record`'s code, reopening resumes at the next unjudged passage, and the demo folder's journal
replays to its shipped files byte for byte."""

import json
import multiprocessing
import re

import pytest
from helpers import ROOT

from ragkit.corpus import load_documents, read_jsonl
from ragkit.errors import RagkitError
from ragkit.labels.files import JOURNAL
from ragkit.labels.folder import (
    derivation_notes,
    folder_documents,
    labelled_queries,
    open_folder,
    skipped_notes,
)
from ragkit.labels.own_queries import add_query
from ragkit.labels.pool import snap_quote
from ragkit.labels.verdicts import record_verdict, replay_journal
from ragkit.llm.drafts import parse_drafts, prompt_lines
from ragkit.widgets.judging_drafts import drafts_widget, review_draft
from ragkit.widgets.judging_session import judge, key_verdict, load_query, open_session, start_query

DEMO = ROOT / "data" / "demo-handbook"
FRONT = "---\nid: {id}\ntitle: T\nsource: s\ndate: 2026-01-01\nlang: en\n---\n# T\nSome text about keys.\n"


def one_line(error) -> str:
    message = str(error.value)
    assert message and "\n" not in message, f"not one line: {message!r}"
    return message


def corpus_folder(tmp_path, files: dict) -> object:
    (tmp_path / "corpus").mkdir()
    for name, content in files.items():
        path = tmp_path / "corpus" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("files, says", [
    (None, "no corpus/ folder"),
    ({}, "no document ragkit can read.*: the folder is empty"),
    ({"b.md": b"\xff\xfe caf\xe9 au lait", "c.docx": "x"},
     r"no document ragkit can read.*b\.md: not UTF-8 text.*c\.docx: cannot read \.docx"),
    ({"a.md": FRONT.format(id="same"), "b.txt": "Plain text.", "same.txt": "More plain text."},
     r"same\.txt: id 'same' is already used by .*a\.md"),
], ids=["no corpus", "empty", "nothing readable", "duplicate id"])
def test_a_bad_folder_is_one_clear_line(tmp_path, files, says):
    if files is not None:
        corpus_folder(tmp_path, files)
    with pytest.raises(RagkitError) as error:
        open_folder(tmp_path)
    assert re.search(says, one_line(error)), one_line(error)


def test_files_that_cannot_be_read_are_named_once_with_their_reason_and_the_rest_loads(tmp_path):
    """A file that is not UTF-8, a dangling link, an empty file, a folder named like a document, a format ragkit
    cannot read and a hidden folder: each is skipped and named, and the readable documents load."""
    folder = corpus_folder(tmp_path, {"a.md": FRONT.format(id="a"), "b.md": b"\xff\xfe caf\xe9 au lait",
                                      "empty.txt": "\n", "plan.docx": b"PK\x03\x04", ".git/config": "[core]"})
    (folder / "corpus" / "gone.md").symlink_to(tmp_path / "nowhere.md")
    (folder / "corpus" / "c.md").mkdir()
    docs, skipped = folder_documents(folder)
    assert [doc.doc_id for doc in docs] == ["a"]
    assert [str(s) for s in skipped] == [
        ".git/: a hidden folder: not read", "b.md: not UTF-8 text (invalid start byte at byte 0): save it as UTF-8",
        "empty.txt: no text", "gone.md: cannot read the document: No such file or directory",
        "plan.docx: cannot read .docx: ragkit reads .md, .markdown, .mdx, .txt, .rst, .html, .htm, .pdf"]
    assert skipped_notes(skipped)[0] == "not loaded: corpus/.git/: a hidden folder: not read"


def test_an_unreadable_file_is_named_for_a_user_without_rights(tmp_path):
    import os

    folder = corpus_folder(tmp_path, {"a.md": FRONT.format(id="a"), "secret.md": FRONT.format(id="s")})
    (folder / "corpus" / "secret.md").chmod(0)
    if os.geteuid() == 0:
        pytest.skip("root reads any file: the dangling link above stands in for it")
    assert [str(s) for s in folder_documents(folder)[1]] == ["secret.md: cannot read the document: Permission denied"]


def test_missing_front_matter_is_derived_and_said(tmp_path):
    folder = corpus_folder(tmp_path, {"notes.txt": "Unused leave: five days carry over.",
                                      "zh.md": "# 年假\n每年二十五天年假。", "part.md": "---\nid: p\ntitle: P\n---\nBody."})
    docs = {doc.doc_id: doc for doc in open_folder(folder)}
    assert (docs["notes"].title, docs["notes"].lang, docs["notes"].source) == ("notes", "en", tmp_path.name)
    assert (docs["zh"].title, docs["zh"].lang, docs["zh"].derived) == ("年假", "zh", ("id", "title", "source", "date", "lang"))
    assert docs["p"].derived == ("source", "date", "lang") and docs["p"].text == "Body."
    notes = derivation_notes(list(docs.values()))
    assert len(notes) == 3 and any(note.startswith("part.md: no source, date, lang in front matter") for note in notes)
    strict = [doc for doc in load_documents(DEMO / "corpus") if not doc.derived]
    assert len(strict) == 10, "files with full front matter load as before, nothing derived"


@pytest.mark.parametrize("selection, expected", [
    ("Keys rotate every 90 days.", "Keys rotate every 90 days."),
    ("  Keys rotate every 90 days.\n", "Keys rotate every 90 days."),
    ("every 90 days. Old keys keep", "every 90 days.\nOld keys keep"),  # a line break handed over as a space
    ("every  90\tdays.   Old keys keep", "every 90 days.\nOld keys keep"),
])
def test_a_selection_is_snapped_to_an_exact_substring(selection, expected):
    passage = "Keys rotate every 90 days.\nOld keys keep working for 24 hours."
    snapped = snap_quote(passage, selection)
    assert snapped == expected and snapped in passage


@pytest.mark.parametrize("selection, says", [
    ("Keys rotate every 30 days.", "not in this passage"),
    ("Keys rotate every 90 days", "occurs 2 times"),  # without its full stop it is in both sentences
    ("Old keys keep", "at least 20 characters"),
    ("   ", "no quote"),
])
def test_a_selection_that_is_not_in_the_passage_is_refused(selection, says):
    passage = "Keys rotate every 90 days, said the old page. Keys rotate every 90 days. Old keys keep working."
    with pytest.raises(RagkitError, match=says) as error:
        snap_quote(passage, selection)
    one_line(error)


def snapshot(folder):
    return {name: (folder / name).read_bytes() for name in ("queries.jsonl", "judgments.jsonl", JOURNAL)}


def test_judging_writes_each_verdict_at_once_and_reopening_resumes(demo_pipe, demo_folder):
    session = open_session(demo_pipe, demo_folder)
    assert session.query is None, "every shipped query is judged: nothing to resume"
    start_query(session, "where are the spare laptops kept")
    pooled, first = session.progress["pooled"], session.unit
    assert session.query.query_id == "q-001" and session.progress["done"] == 0 and pooled >= 10
    before = snapshot(demo_folder)
    with pytest.raises(RagkitError, match="not in this passage"):
        judge(session, "answers", "tester", "words the passage does not hold, not at all")
    assert snapshot(demo_folder) == before and session.unit == first, "a refused quote writes nothing and stays put"
    spare = next(u for u in session.units if "cupboard B2" in u.text)
    session.position = session.units.index(spare)
    judge(session, "answers", "tester", "the spare laptops in cupboard B2 of the Lisbon office")
    for _ in range(4):
        verdict, _ = key_verdict("n")
        judge(session, verdict, "tester")
    skipped = session.unit
    judge(session, key_verdict("s")[0], "tester")
    query = next(q for q in labelled_queries(demo_folder) if q.query_id == "q-001")
    assert [(e.doc, e.quote, e.parts, e.origin) for e in query.evidence] == [
        ("equipment", "the spare laptops in cupboard B2 of the Lisbon office", (0,), "pooled")]
    lines = [r for _, r in read_jsonl(demo_folder / "judgments.jsonl") if r["query"] == "q-001"]
    assert len(lines) == 4 and all(r["relevant"] is False and r["verdict"] == "no" for r in lines)
    journal = [r for _, r in read_jsonl(demo_folder / JOURNAL) if r["query"] == "q-001"]
    assert [r["verdict"] for r in journal] == ["yes", "no", "no", "no", "no"]
    reopened = open_session(demo_pipe, demo_folder)
    assert reopened.query.query_id == "q-001" and reopened.progress["done"] == session.progress["done"] >= 5
    assert reopened.unit == skipped, "a skip lasts one session: reopening resumes at the first unjudged passage"


def test_a_part_needs_its_name_and_a_one_part_query_counts_it_as_not_answering(demo_pipe, demo_folder):
    session = open_session(demo_pipe, demo_folder)
    start_query(session, "meal allowance in 2023 and in 2026", parts="2023 allowance\n2026 allowance")
    assert session.parts == ["2023 allowance", "2026 allowance"] and session.query.type == "multi"
    with pytest.raises(RagkitError, match="name the part"):
        judge(session, "partly answers", "tester", session.unit.text[:40])
    unit = next(u for u in session.units if u.doc_id == "expenses-2023" and "25 euros" in u.text)
    session.position = session.units.index(unit)
    verdict, part = key_verdict("1")
    judge(session, verdict, "tester", "Meals while travelling are paid up to 25 euros a day.", part)
    query = next(q for q in labelled_queries(demo_folder) if q.query_id == session.query.query_id)
    assert [e.parts for e in query.evidence] == [(0,)]
    start_query(session, "how long is the code freeze")
    unit = next(u for u in session.units if "The code freeze starts" in u.text)
    session.position = session.units.index(unit)
    assert judge(session, "partly answers", "tester", "The code freeze starts on the Tuesday before").endswith(
        "(a one-part query: it counts as not answering, data/README.md)")
    lines = [r for _, r in read_jsonl(demo_folder / "judgments.jsonl") if r["query"] == session.query.query_id]
    assert [(r["doc"], r["verdict"], r["relevant"]) for r in lines] == [("release-checklist", "part", False)]
    assert session.query.evidence == (), "a partial answer to a one-part query is not evidence"


def writer(folder, name, count, queue, barrier):
    """One widget's worth of writes: queries and verdicts, as fast as possible, starting with the other writer."""
    try:
        barrier.wait(timeout=60)
        ids = [add_query(folder, f"{name} question {n}")["id"] for n in range(count)]
        for n, query_id in enumerate(ids):
            record_verdict(folder, {"id": query_id}, "leave", 0, 100 + n, "does not answer", name)
        queue.put((name, ids))
    except Exception as error:  # noqa: BLE001 (reported to the parent)
        queue.put((name, repr(error)))


def test_two_writers_at_once_lose_nothing(demo_folder):
    context = multiprocessing.get_context("fork")
    queue, barrier, count = context.Queue(), context.Barrier(2), 25
    workers = [context.Process(target=writer, args=(demo_folder, name, count, queue, barrier)) for name in ("ana", "bo")]
    for worker in workers:
        worker.start()
    results = dict(queue.get(timeout=120) for _ in workers)
    for worker in workers:
        worker.join(timeout=30)
    assert all(isinstance(ids, list) for ids in results.values()), results
    queries = [r for _, r in read_jsonl(demo_folder / "queries.jsonl")]
    ids = [r["id"] for r in queries]
    assert len(ids) == len(set(ids)) == 20 + 2 * count, "every query written, each id once"
    judged = [r for _, r in read_jsonl(demo_folder / "judgments.jsonl") if r["judge"] in results]
    journal = [r for _, r in read_jsonl(demo_folder / JOURNAL) if r["judge"] in results]
    assert len(judged) == len(journal) == 2 * count, "every verdict in judgments.jsonl and in the journal"
    assert not list(demo_folder.glob(".*.tmp")), "no temporary file left behind"


def test_a_writer_waits_for_the_folder_lock(demo_folder):
    import threading
    import time

    from ragkit.labels.files import folder_lock

    done = threading.Event()

    def write():
        record_verdict(demo_folder, {"id": "hb-001"}, "leave", 0, 50, "does not answer", "waiting")
        done.set()

    with folder_lock(demo_folder):  # another widget in the middle of its write
        thread = threading.Thread(target=write)
        thread.start()
        time.sleep(0.3)
        assert not done.is_set(), "the verdict was written while another writer held the folder"
    thread.join(timeout=10)
    assert done.is_set() and [r["judge"] for _, r in read_jsonl(demo_folder / JOURNAL)][-1] == "waiting"


def test_the_demo_journal_replays_to_the_shipped_files(tmp_path):
    assert replay_journal(DEMO, tmp_path / "replayed") == len(read_jsonl(DEMO / JOURNAL))
    for name in ("queries.jsonl", "judgments.jsonl", JOURNAL):
        assert (tmp_path / "replayed" / name).read_bytes() == (DEMO / name).read_bytes(), name
    with pytest.raises(RagkitError, match="already exists"):
        replay_journal(DEMO, tmp_path / "replayed")


def test_the_demo_labels_are_in_the_course_format():
    from ragkit.labels.record import written_parts

    rows = [r for _, r in read_jsonl(DEMO / "queries.jsonl")]
    queries = labelled_queries(DEMO)
    assert len(rows) == len(queries) == 20 and all(q.evidence for q in queries)
    assert all(item["origin"] == "pooled" and item["judge"] == "the course author"
               for r in rows for item in r["evidence"])
    texts = {doc.doc_id: doc.text for doc in load_documents(DEMO / "corpus")}
    assert all(texts[e.doc].count(e.quote) == 1 and len(e.quote) >= 20 for q in queries for e in q.evidence)
    assert all(0 <= p < written_parts(r) for r in rows for item in r["evidence"] for p in item["parts"])
    assert {r["split"] for r in rows} == {"dev", "test"} and {r["lang"] for r in rows} == {"en", "zh"}


def test_a_pipeline_over_other_documents_is_refused(demo_folder, tmp_path):
    from ragkit import Pipeline

    (tmp_path / "other").mkdir()
    other = corpus_folder(tmp_path / "other", {"a.md": FRONT.format(id="a")})
    with pytest.raises(RagkitError, match="the pipeline's documents are not") as error:
        open_session(Pipeline(load_documents(other / "corpus")), demo_folder)
    one_line(error)


def test_the_widget_records_a_key_forwarded_by_the_browser_hook(demo_pipe, demo_folder):
    from ragkit.widgets.judging import judging

    view = judging(demo_pipe, demo_folder, judge_name="tester")
    boxes = {cls: child for child in view.children for cls in child._dom_classes}
    assert "no query yet" in boxes["ragkit-judging-shown"].value
    assert boxes["ragkit-judging-passage"].value == "", "before a query nothing is pooled, so nothing is 'all judged'"
    boxes["ragkit-judging-query"].value = "who cleans the kitchen"
    assert "passage 1 of" in boxes["ragkit-judging-passage"].value
    assert "judged 0 /" in boxes["ragkit-judging-progress"].value
    journal = len(read_jsonl(demo_folder / JOURNAL))
    boxes["ragkit-judging-key"].value = "n 1712345678901"  # what the keys box's hook sends for the key n
    assert "judged 0 /" not in boxes["ragkit-judging-progress"].value
    assert "recorded: does not answer" in boxes["ragkit-judging-message"].value
    assert len(read_jsonl(demo_folder / JOURNAL)) == journal + 1
    boxes["ragkit-judging-quote"].value = "no such words in any passage of this folder"
    assert "quote refused" in boxes["ragkit-judging-message"].value
    assert [r["verdict"] for _, r in read_jsonl(demo_folder / JOURNAL)][-1] == "no"


def test_query_drafts_are_parsed_reviewed_and_their_prompts_shipped(demo_folder):
    shipped = [record for _, record in read_jsonl(DEMO / "llm" / "draft-prompts.jsonl")]
    assert shipped == prompt_lines(load_documents(DEMO / "corpus")), "the shipped prompts are current"
    assert parse_drafts("1. Who sets the alarm?\n2) who sets the alarm?\n- 成都访客怎么登记？\n") == [
        "Who sets the alarm?", "成都访客怎么登记？"]
    before = snapshot(demo_folder)
    assert review_draft(demo_folder, "who sets the alarm", "reject") == "rejected: nothing written"
    assert snapshot(demo_folder) == before
    assert review_draft(demo_folder, "who sets the alarm", "accept").startswith("accepted as q-001")
    assert json.loads((demo_folder / "queries.jsonl").read_text().splitlines()[-1])["evidence"] == []


def test_the_drafts_widget_shows_one_document_at_a_time_and_keeps_what_was_decided(demo_folder):
    view = drafts_widget(demo_folder, {"alarm": ["who sets the alarm", "when is the alarm tested"], "visitors": ["where do visitors sign in"]})
    menu, *rows = view.children
    assert [row.children[0].value for row in rows] == ["who sets the alarm", "when is the alarm tested"]
    rows[0].children[1].click()  # accept the first draft of the first document
    assert rows[0].children[-1].value.startswith("accepted as q-001") and rows[0].children[0].disabled
    menu.value = "visitors"
    assert [row.children[0].value for row in view.children[1:]] == ["where do visitors sign in"]
    menu.value = "alarm"
    assert view.children[1] is rows[0] and rows[0].children[0].disabled, "coming back shows the decision"
    assert [r["text"] for r in map(json.loads, (demo_folder / "queries.jsonl").read_text().splitlines())][-1] == \
        "who sets the alarm"
    assert drafts_widget(demo_folder, {}).children[0].value == "<i>no drafts</i>"


def test_load_query_orders_the_pool_the_same_every_time(demo_pipe, demo_folder):
    session = open_session(demo_pipe, demo_folder)
    query = labelled_queries(demo_folder)[0]
    first = [u.chunk_id for u in load_query(session, query).units]
    assert [u.chunk_id for u in load_query(session, query).units] == first
    assert first != sorted(first), "shuffled, not in the corpus's order"
