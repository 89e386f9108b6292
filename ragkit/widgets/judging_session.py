"""The judging widget's callbacks: plain functions over one widget's `Session`, unit-tested without a browser.

`open_session` reads a labels folder (`ragkit.labels.folder`) and resumes the last answerable query that still has
an unjudged pooled passage; `start_query` adds a query (or reopens one with the same text) and pools it
(`ragkit.labels.pool`); `judge` records one verdict on the passage shown and moves to the next unjudged one. Every
verdict is in the folder's files before the next passage appears; `key_verdict` says which verdict a key stands
for. A verdict that contradicts an earlier judge's is held (`Session.pending`) with the earlier verdicts, and
`resolve` applies it by replacing theirs or keeping both, marked (`ragkit.labels.verdicts`). `set_type` sets the
query's type, `not_answered` marks it as not answered in these documents (type `unanswerable`, scored as refusal)
and `remove` takes back a query typed by mistake (`ragkit.labels.own_queries`). `ragkit.widgets.judging` wires
ipywidgets to these. Left out: undo, judging several queries side by side, and reordering the pool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ragkit.chunk.base import Chunk
from ragkit.corpus import Document, Query, read_jsonl
from ragkit.errors import RagkitError
from ragkit.labels.folder import labelled_queries, open_folder
from ragkit.labels.own_queries import add_query, remove_query, set_query_type
from ragkit.labels.pool import next_unjudged, pool_for, pool_progress, snap_quote
from ragkit.labels.record import ConflictingVerdict
from ragkit.labels.verdicts import record_verdict
from ragkit.widgets.judging_view import KEYS


@dataclass
class Session:
    """One judging widget's state: the folder, its documents, the query being judged and its pool."""

    pipe: object
    folder: Path
    docs: dict[str, Document]
    query: Query | None = None
    parts: list[str] = field(default_factory=list)
    units: list[Chunk] = field(default_factory=list)
    tops: dict[str, list[Chunk]] = field(default_factory=dict)
    progress: dict = field(default_factory=dict)
    skipped: set[str] = field(default_factory=set)
    position: int | None = None
    pending: dict | None = None  # a verdict held back by a disagreement, and the earlier verdicts

    @property
    def unit(self) -> Chunk | None:
        return None if self.position is None else self.units[self.position]


def open_session(pipe, folder: str | Path) -> Session:
    """A session on `folder` whose pipeline `pipe` holds the folder's documents, resumed at the last query that
    still has an unjudged pooled passage (none: no query yet).

    >>> open_session(pipe, "data/demo-handbook").query  # doctest: +SKIP
    """
    docs = {doc.doc_id: doc for doc in open_folder(folder)}
    if {doc.doc_id: doc.text for doc in pipe.docs} != {key: doc.text for key, doc in docs.items()}:
        raise RagkitError(f"the pipeline's documents are not {folder}'s: build it with "
                          f"Pipeline(load_documents('{Path(folder) / 'corpus'}'))")
    session = Session(pipe, Path(folder), docs)
    for query in reversed([q for q in labelled_queries(folder) if q.type != "unanswerable"]):
        if load_query(session, query).position is not None:
            return session
    return Session(pipe, Path(folder), docs)


def load_query(session: Session, query: Query) -> Session:
    """Pool `query` and place the session at its first unjudged passage.

    >>> load_query(session, labelled_queries(session.folder)[0]).progress["pooled"]  # doctest: +SKIP
    14
    """
    record = next(r for _, r in read_jsonl(session.folder / "queries.jsonl") if r["id"] == query.query_id)
    session.query, session.parts, session.skipped = query, list(record.get("parts") or [query.text]), set()
    session.pending = None
    session.units, session.tops = pool_for(session.pipe, query.text)
    return refresh(session)


def refresh(session: Session) -> Session:
    """Re-read the labels from the files, recount the progress and move to the next unjudged passage."""
    query = next(q for q in labelled_queries(session.folder) if q.query_id == session.query.query_id)
    session.query, session.progress = query, pool_progress(session.units, session.tops, query,
                                                           list(session.docs.values()))
    session.position = next_unjudged(session.progress["judged"], session.skipped,
                                     [unit.chunk_id for unit in session.units])
    return session


def start_query(session: Session, text: str, parts: str = "", query_type: str | None = None,
                prefix: str = "q") -> Session:
    """Add a query (`parts`: one name per line; empty: one part) and pool it; the same text reopens its query.

    >>> start_query(session, "Who sets the alarm when the office closes?").query.query_id  # doctest: +SKIP
    'q-001'
    """
    record = add_query(session.folder, text, parts.splitlines(), query_type or None, prefix)
    query = next(q for q in labelled_queries(session.folder) if q.query_id == record["id"])
    return load_query(session, query)


def key_verdict(key: str) -> tuple[str, int | None]:
    """The verdict (and part) a key stands for; digits 1-9 mean "partly answers" that part.

    >>> key_verdict("n"), key_verdict("2")
    (('does not answer', None), ('partly answers', 1))
    """
    if key in KEYS:
        return KEYS[key], None
    if len(key) == 1 and key in "123456789":
        return "partly answers", int(key) - 1
    raise RagkitError(f"no verdict on key {key!r}: {', '.join(f'{k} {v}' for k, v in KEYS.items())}, 1-9 a part")


def judge(session: Session, verdict: str, judge_name: str, selection: str = "", part: int | None = None) -> str:
    """Record `verdict` on the passage shown ("answers" and "partly answers" need `selection`, snapped to the
    passage; "skip" records nothing and comes back next session), then move on; returns what was done.

    >>> judge(session, "does not answer", "the course author")  # doctest: +SKIP
    'recorded: does not answer'
    """
    unit = session.unit
    if verdict not in KEYS.values():
        raise RagkitError(f"verdict must be one of {', '.join(KEYS.values())}, got {verdict!r}")
    if unit is None or session.query is None:
        raise RagkitError("nothing to judge: type a query first")
    if session.query.type == "unanswerable":
        raise RagkitError(f"{session.query.query_id} is marked not answered in these documents: set its type first")
    if verdict == "skip":
        session.skipped.add(unit.chunk_id)
        refresh(session)
        return "skipped: it stays unjudged"
    if verdict == "partly answers":
        part = 0 if part is None and len(session.parts) == 1 else part
        if part is None or not 0 <= part < len(session.parts):
            raise RagkitError(f"name the part this passage answers: 1 to {len(session.parts)}")
    quote = snap_quote(unit.text, selection) if verdict != "does not answer" else ""
    try:
        record_verdict(session.folder, session.query, unit.doc_id, unit.start, unit.end, verdict, judge_name,
                       quote, part)
    except ConflictingVerdict as conflict:  # held until the judge says how to resolve it
        session.pending = {"verdict": verdict, "judge": judge_name, "quote": quote, "part": part, "unit": unit,
                           "earlier": conflict.earlier}
        raise
    refresh(session)
    done = f"recorded: {verdict}" + (f" part {part + 1}" if verdict == "partly answers" else "")
    if verdict == "partly answers" and len(session.parts) == 1:
        done += " (a one-part query: it counts as not answering, data/README.md)"
    return done


def resolve(session: Session, resolution: str) -> str:
    """Apply the verdict held by a disagreement: `replace` the earlier verdict, or `keep both` (marked).

    >>> resolve(session, "replace")  # doctest: +SKIP
    'recorded: answers, replacing tester's does not answer'
    """
    held, session.pending = session.pending, None
    if held is None:
        raise RagkitError("no disagreement to resolve")
    unit = held["unit"]
    record_verdict(session.folder, session.query, unit.doc_id, unit.start, unit.end, held["verdict"], held["judge"],
                   held["quote"], held["part"], resolution=resolution)
    refresh(session)
    theirs = ", ".join(f"{e['judge']}'s {e['verdict']}" for e in held["earlier"])
    return f"recorded: {held['verdict']}, " + (f"replacing {theirs}" if resolution == "replace" else
                                                 f"beside {theirs} (a disagreement, marked; theirs stays the label)")


def set_type(session: Session, kind: str) -> str:
    """Set the type of the query being judged (`unanswerable`: use `not_answered`).

    >>> set_type(session, "keyword")  # doctest: +SKIP
    'q-001 is now a keyword query'
    """
    if session.query is None:
        raise RagkitError("no query yet: type one first")
    set_query_type(session.folder, session.query.query_id, kind)
    refresh(session)
    return f"{session.query.query_id} is now a {kind} query"


def not_answered(session: Session) -> str:
    """Mark the query being judged as not answered in these documents, and put it aside.

    >>> not_answered(session)  # doctest: +SKIP
    'q-002 marked not answered in these documents: the eval command scores it as refusal'
    """
    query_id = set_type(session, "unanswerable").split()[0]
    session.query, session.units, session.position, session.pending = None, [], None, None
    return f"{query_id} marked not answered in these documents: the eval command scores it as refusal"


def remove(session: Session) -> str:
    """Remove the query being judged, when no verdict names it yet.

    >>> remove(session)  # doctest: +SKIP
    'q-003 removed'
    """
    if session.query is None:
        raise RagkitError("no query to remove")
    remove_query(session.folder, session.query.query_id)
    query_id, session.query, session.units, session.position = session.query.query_id, None, [], None
    return f"{query_id} removed"
