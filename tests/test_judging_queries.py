"""What a judge needs beyond verdicts, without a browser: a query's type, "not answered in these documents" (scored
as refusal by the eval command), removing a query typed by mistake, an earlier judge's verdict shown and a
disagreement resolved (replaced, or both kept and marked), `data record` journalled, and every journal replayed to
the folder's files byte for byte."""

import json

import pytest

from ragkit.cli import main
from ragkit.commands import run_eval
from ragkit.corpus import read_jsonl
from ragkit.errors import RagkitError
from ragkit.labels.files import JOURNAL
from ragkit.labels.folder import labelled_queries
from ragkit.labels.owncheck import check_own_data
from ragkit.labels.pool import pool_for
from ragkit.labels.record import ConflictingVerdict
from ragkit.labels.verdicts import disagreement_notes, record_verdict, replay_journal
from ragkit.widgets.judging_session import (
    judge,
    not_answered,
    open_session,
    remove,
    resolve,
    set_type,
    start_query,
)

FILES = ("queries.jsonl", "judgments.jsonl", JOURNAL)


def record_of(folder, query_id):
    return next(r for _, r in read_jsonl(folder / "queries.jsonl") if r["id"] == query_id)


def replays_exactly(folder, target):
    replay_journal(folder, target)
    return all((target / name).read_bytes() == (folder / name).read_bytes() for name in FILES)


def test_a_query_type_is_set_when_typed_and_changed_later(demo_pipe, demo_folder):
    session = open_session(demo_pipe, demo_folder)
    start_query(session, "TS-203 meaning", query_type="keyword")
    assert record_of(demo_folder, session.query.query_id)["type"] == "keyword" and session.query.type == "keyword"
    assert set_type(session, "temporal") == f"{session.query.query_id} is now a temporal query"
    assert record_of(demo_folder, session.query.query_id)["type"] == session.query.type == "temporal"
    with pytest.raises(RagkitError, match="query type 'kind' is not one of keyword"):
        set_type(session, "kind")


def test_not_answered_in_these_documents_is_an_unanswerable_query_scored_as_refusal(demo_pipe, demo_folder, tmp_path, capsys):
    session = open_session(demo_pipe, demo_folder)
    start_query(session, "Who feeds the office cat on Sundays?")
    query_id = session.query.query_id
    judge(session, "does not answer", "tester")
    assert not_answered(session).startswith(f"{query_id} marked not answered in these documents")
    assert session.query is None and record_of(demo_folder, query_id)["type"] == "unanswerable"
    assert open_session(demo_pipe, demo_folder).query is None, "an unanswerable query is not resumed for judging"
    start_query(session, "Who feeds the office cat on Sundays?")
    with pytest.raises(RagkitError, match="marked not answered in these documents"):
        judge(session, "answers", "tester", session.unit.text[:40])
    answered = next(q for q in labelled_queries(demo_folder) if q.evidence)
    with pytest.raises(RagkitError, match=f"{answered.query_id} has 1 passage.* judged as answering it"):
        set_query_type_of(demo_folder, answered.query_id)
    split = record_of(demo_folder, query_id)["split"]
    plain = run_eval(str(demo_folder), "hybrid", split, 5, refusal=True)["refusal"]
    assert (plain["unanswerable"], plain["refused"], plain["recall"]) == (1, 0, 0.0), "no threshold: nothing refused"
    strict = run_eval(str(demo_folder), "dense", split, 5, [("threshold", 0.99)])["refusal"]  # a cosine: all refused
    assert (strict["recall"], strict["precision"]) == (1.0, round(1 / strict["refused"], 4))
    assert main(["eval", "--data", str(demo_folder), "--split", split]) == 0
    assert "refusal: refused 0, " in capsys.readouterr().out, "the eval command scores it without being asked"
    assert replays_exactly(demo_folder, tmp_path / "replayed")


def set_query_type_of(folder, query_id):
    from ragkit.labels.own_queries import set_query_type

    return set_query_type(folder, query_id, "unanswerable")


def test_a_query_typed_by_mistake_is_removed_unless_it_has_verdicts(demo_pipe, demo_folder, tmp_path):
    session = open_session(demo_pipe, demo_folder)
    start_query(session, "asdfgh")
    query_id = session.query.query_id
    assert remove(session) == f"{query_id} removed" and session.query is None
    assert query_id not in {r["id"] for _, r in read_jsonl(demo_folder / "queries.jsonl")}
    start_query(session, "where are the spare laptops kept")
    judge(session, "does not answer", "tester")
    with pytest.raises(RagkitError, match="has verdicts in judgments.jsonl: it stays"):
        remove(session)
    assert replays_exactly(demo_folder, tmp_path / "replayed")


@pytest.mark.parametrize("resolution", ["replace", "keep both"])
def test_a_disagreement_shows_the_earlier_verdict_and_is_resolved(demo_pipe, demo_folder, tmp_path, resolution):
    """Two judges on one folder: Ana records "does not answer" on the passage Ben's widget shows; Ben's "answers"
    is held, with Ana's verdict, until he replaces it or keeps both (marked); the journal replays either way."""
    session = open_session(demo_pipe, demo_folder)
    start_query(session, "where are the spare laptops kept")
    unit = next(u for u in session.units if "cupboard B2" in u.text)
    session.position = session.units.index(unit)
    record_verdict(demo_folder, session.query, unit.doc_id, unit.start, unit.end, "does not answer", "Ana")
    before = {name: (demo_folder / name).read_bytes() for name in FILES}
    with pytest.raises(ConflictingVerdict) as conflict:
        judge(session, "answers", "Ben", "the spare laptops in cupboard B2 of the Lisbon office")
    assert conflict.value.earlier == [{"judge": "Ana", "verdict": "no"}] and session.pending["judge"] == "Ben"
    assert {name: (demo_folder / name).read_bytes() for name in FILES} == before, "nothing is written before the choice"
    done = resolve(session, resolution)
    query = next(q for q in labelled_queries(demo_folder) if q.query_id == session.query.query_id)
    last = [r for _, r in read_jsonl(demo_folder / JOURNAL)][-1]
    assert (last["judge"], last["verdict"], last["resolution"]) == ("Ben", "yes", resolution)
    if resolution == "replace":
        assert done == "recorded: answers, replacing Ana's no"
        assert [e.quote for e in query.evidence] == ["the spare laptops in cupboard B2 of the Lisbon office"]
        assert not [r for _, r in read_jsonl(demo_folder / "judgments.jsonl") if r["query"] == query.query_id]
    else:
        assert done.startswith("recorded: answers, beside Ana's no (a disagreement, marked")
        assert query.evidence == () and last["earlier"] == [{"judge": "Ana", "verdict": "no"}]
        assert disagreement_notes(demo_folder) == [f"{query.query_id}: {unit.doc_id} [{unit.start}, {unit.end}): judges "
                                            "disagree (both kept): Ana no (the label), Ben yes"]
        assert disagreement_notes(demo_folder)[0] in check_own_data(demo_folder)[1]
    assert session.pending is None and session.unit != unit, "the widget moves on"
    assert replays_exactly(demo_folder, tmp_path / "replayed")


def test_data_record_writes_the_journal_so_a_replay_rebuilds_the_labels(demo_folder, tmp_path, capsys):
    line = {"query": "hb-001", "doc": "welcome", "start": 0, "end": 50, "verdict": "no", "judge": "cli judge"}
    (tmp_path / "round.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert main(["data", "record", "--data", str(demo_folder), "--judgments", str(tmp_path / "round.jsonl")]) == 0
    assert [r for _, r in read_jsonl(demo_folder / JOURNAL)][-1] == line
    assert replays_exactly(demo_folder, tmp_path / "replayed")


def widgets_by_class(view) -> dict:
    """Every widget of the judging widget under its `ragkit-judging-*` class, however deep in its boxes."""
    found, stack = {}, [view]
    while stack:
        widget = stack.pop()
        found.update({cls: widget for cls in getattr(widget, "_dom_classes", ())})
        stack += list(getattr(widget, "children", ()))
    return found


def test_the_widget_wires_type_refusal_removal_and_a_disagreement_to_the_callbacks(demo_pipe, demo_folder, tmp_path):
    from ragkit.widgets.judging import judging

    (demo_folder / "corpus" / "minutes.docx").write_bytes(b"PK\x03\x04")
    view = judging(demo_pipe, demo_folder, judge_name="Ben")
    w = widgets_by_class(view)
    assert "not loaded: corpus/minutes.docx: cannot read .docx" in w["ragkit-judging-message"].value
    w["ragkit-judging-type"].value = "keyword"  # before a query: the type the next query gets
    w["ragkit-judging-query"].value = "asdf"
    assert record_of(demo_folder, "q-001")["type"] == "keyword"
    w["ragkit-judging-remove"].click()
    assert "q-001 removed" in w["ragkit-judging-message"].value
    w["ragkit-judging-query"].value = "who feeds the office cat"
    w["ragkit-judging-type"].value = "paraphrase"
    assert "is now a paraphrase query" in w["ragkit-judging-message"].value
    w["ragkit-judging-unanswered"].click()
    assert "marked not answered in these documents" in w["ragkit-judging-message"].value
    assert record_of(demo_folder, "q-001")["type"] == "unanswerable"
    w["ragkit-judging-query"].value = "where are the spare laptops kept"
    first = pool_for(demo_pipe, "where are the spare laptops kept")[0][0]  # the passage the widget shows first
    assert first.text.replace("&", "&amp;")[:30] in w["ragkit-judging-passage"].value.replace("&#x27;", "'")
    query = next(q for q in labelled_queries(demo_folder) if q.text == "where are the spare laptops kept")
    record_verdict(demo_folder, query, first.doc_id, first.start, first.end, "does not answer", "Ana")  # another widget
    assert view.children[-1].layout.display == "none", "no disagreement yet: the two resolutions are hidden"
    w["ragkit-judging-quote"].value = next(line for line in first.text.split("\n") if len(line.strip()) >= 30
                                           and first.text.count(line.strip()) == 1).strip()
    w["ragkit-judging-key"].value = "a 1"
    assert "a disagreement: Ana judged it no; you say answers" in w["ragkit-judging-message"].value
    assert view.children[-1].layout.display == "flex", "the two resolutions are offered"
    w["ragkit-judging-replace"].click()
    assert "replacing Ana&#x27;s no" in w["ragkit-judging-message"].value
    assert view.children[-1].layout.display == "none"
    assert [r.get("resolution") for _, r in read_jsonl(demo_folder / JOURNAL)][-1] == "replace"
    assert replays_exactly(demo_folder, tmp_path / "replayed")
