"""Your own labels folder: its documents, the queries you write, and every verdict recorded as you make it.

A labels folder is laid out as the course's `data/`: documents in `corpus/` (`.md` or `.txt`, front matter
optional: `ragkit.corpus.derived_fields` fills in what is missing, and `derivation_notes` says what it did), labels
beside it in `queries.jsonl` and `judgments.jsonl`. `open_folder` turns every problem with the folder into one
line. `add_query` appends a query in the course's format, with the `parts` it asks for named (one by default), a
language guessed as for documents and a split drawn from a hash of its id. `record_verdict` writes one verdict
through `ragkit.labels.record.record_verdicts`, the code of `python -m ragkit data record`, under the folder's
lock, and appends it to the journal `verdicts.jsonl` in the same locked step; `replay_journal` applies a journal
to a copy of the folder, one verdict at a time, as it was made. Left out: editing or deleting a query (edit
`queries.jsonl`), undoing a verdict (a resolving verdict needs `data record --replace`), and several judges'
verdicts on one passage.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path

from ragkit.cache import cache_dir
from ragkit.corpus import Document, Query, derived_fields, load_documents, load_queries, read_jsonl
from ragkit.errors import RagkitError
from ragkit.labels.datacheck import QUERY_TYPES
from ragkit.labels.files import folder_lock, write_jsonl
from ragkit.labels.record import record_verdicts

JOURNAL = "verdicts.jsonl"
VERDICTS = {"answers": "yes", "partly answers": "part", "does not answer": "no"}  # the widget's words → data record's
HOW = {"id": "the file name", "title": "its first '# ' heading (else the file name)", "source": "the folder's name",
       "date": "the file's last change", "lang": "its characters (zh: a quarter or more Chinese)"}


def corpus_of(folder: str | Path) -> Path:
    """The documents' folder of a labels folder, `<folder>/corpus/`, or a `RagkitError` of one line.

    >>> corpus_of("data/demo-handbook").name
    'corpus'
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise RagkitError(f"{folder}: no such folder")
    if not (folder / "corpus").is_dir():
        held = len([*folder.glob("*.md"), *folder.glob("*.txt")])
        raise RagkitError(f"{folder}: no corpus/ folder" + (f" (it holds {held} documents itself)" if held else "") +
                          ": the documents go in corpus/ inside the folder you pick, the labels beside it, as in data/")
    return folder / "corpus"


def open_folder(folder: str | Path) -> list[Document]:
    """The documents of a labels folder (`<folder>/corpus/`), or a `RagkitError` of one line saying what is wrong.

    >>> len(open_folder("data/demo-handbook"))
    16
    """
    docs = load_documents(corpus_of(folder))  # empty, unreadable, not UTF-8, a duplicate id: one line each
    labelled_queries(folder)  # labels that do not parse: one line, file and line number
    return docs


def derivation_notes(docs: Sequence[Document]) -> list[str]:
    """One line per document whose front matter lacked fields: what each was derived as (`HOW` says from what).

    >>> derivation_notes([Document("faq", "FAQ", "own", "2026-01-02", "en", "", path="c/faq.txt", derived=("id",))])
    ["faq.txt: no id in front matter: id 'faq'"]
    """
    notes = []
    for doc in (doc for doc in docs if doc.derived):
        lacks = "no front matter" if len(doc.derived) == len(HOW) else f"no {', '.join(doc.derived)} in front matter"
        values = ", ".join(f"{name} {getattr(doc, 'doc_id' if name == 'id' else name)!r}" for name in doc.derived)
        notes.append(f"{Path(doc.path).name}: {lacks}: {values}")
    return notes


def query_record(query_id: str, text: str, parts: Sequence[str] = (), query_type: str | None = None) -> dict:
    """A new query in the course's format: `parts` names what it asks (empty: one part, the question itself),
    `lang` is guessed from its characters and `split` is `dev` or `test` by a hash of its id.

    >>> query_record("q-001", "How long is the code freeze?")["parts"]
    ['How long is the code freeze?']
    """
    text = " ".join(str(text).split())
    if not text:
        raise RagkitError("the query is empty: type a question")
    names = [" ".join(part.split()) for part in parts if part.strip()] or [text]
    lang = derived_fields(Path("query"), dict.fromkeys(("id", "title", "source", "date"), "-"), text)["lang"]
    kind = query_type or ("multi" if len(names) > 1 else "multilingual" if lang == "zh" else "paraphrase")
    if kind not in QUERY_TYPES or kind == "unanswerable":
        raise RagkitError(f"query type {kind!r} is not one of {', '.join(QUERY_TYPES[:-1])}")
    split = "dev" if int(hashlib.sha256(query_id.encode()).hexdigest(), 16) % 2 == 0 else "test"
    return {"id": query_id, "text": text, "lang": lang, "type": kind, "split": split, "parts": names,
            "evidence": [], "answer": ""}


def add_query(folder: str | Path, text: str, parts: Sequence[str] = (), query_type: str | None = None,
              prefix: str = "q") -> dict:
    """Append a query to `<folder>/queries.jsonl` under the folder's lock and return its record; a query with
    the same text is returned as it is (judging it again resumes it). Ids are `<prefix>-001`, `<prefix>-002`, …

    >>> import shutil, tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = shutil.copytree("data/demo-handbook/corpus", folder / "corpus")
    >>> add_query(folder, "Who sets the alarm?")["id"], add_query(folder, "Who sets the  alarm?")["id"]
    ('q-001', 'q-001')
    """
    folder, text = Path(folder), " ".join(str(text).split())
    with folder_lock(folder):
        path = folder / "queries.jsonl"
        rows = [record for _, record in read_jsonl(path)] if path.exists() else []
        same = [record for record in rows if record.get("text") == text]
        if same:
            return same[0]
        taken = {record.get("id") for record in rows}
        number = next(n for n in range(1, len(rows) + 2) if f"{prefix}-{n:03d}" not in taken)
        record = query_record(f"{prefix}-{number:03d}", text, parts, query_type)
        write_jsonl(path, [*rows, record])
    return record


def record_verdict(folder: str | Path, query: Query | dict, doc: str, start: int, end: int, verdict: str,
                   judge: str, quote: str = "", part: int | None = None) -> dict[str, int]:
    """Write one verdict on the passage [start, end) of `doc` for `query` ("answers", "partly answers" with the
    `part` it answers, or "does not answer"), as `data record` would, and journal it, in one locked step.

    >>> record_verdict("data", {"id": "api-001"}, "api-error-codes", 0, 10, "maybe", "me")
    Traceback (most recent call last):
    ragkit.errors.RagkitError: verdict must be one of answers, partly answers, does not answer, got 'maybe'
    """
    if verdict not in VERDICTS:
        raise RagkitError(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    if not isinstance(judge, str) or not judge.strip():
        raise RagkitError("say who judges: the judge's name goes into every line")
    query_id = query.query_id if isinstance(query, Query) else query["id"]
    line = {"query": query_id, "doc": doc, "start": start, "end": end, "verdict": VERDICTS[verdict],
            "judge": judge.strip()}
    if verdict != "does not answer":
        line["quote"] = quote
    if verdict == "partly answers":
        if part is None:
            raise RagkitError("a passage that partly answers names the part it answers")
        line["parts"] = [part]
    return record_verdicts(folder, [(f"{query_id} {doc} [{start}, {end})", line)], journal=JOURNAL)


def working_copy(source: str | Path, target: str | Path | None = None) -> Path:
    """A copy of the labels folder `source` to judge in (default: `own-data/<its name>` in ragkit's cache folder),
    made only when it is missing: verdicts never change the original, and reopening finds the copy's verdicts.

    >>> working_copy("data/demo-handbook").name  # doctest: +SKIP
    'demo-handbook'
    """
    source = Path(source)
    target = Path(target) if target is not None else cache_dir() / "own-data" / source.resolve().name
    if not target.exists():
        open_folder(source)
        shutil.copytree(source, target)
    return target


def labelled_queries(folder: str | Path) -> list[Query]:
    """The folder's queries with their judgments, read under a shared lock (none yet: an empty list).

    >>> [q.query_id for q in labelled_queries("data/demo-handbook")][:2]
    ['hb-001', 'hb-002']
    """
    folder = Path(folder)
    with folder_lock(folder, shared=True):
        return load_queries(folder / "queries.jsonl") if (folder / "queries.jsonl").exists() else []


def replay_journal(source: str | Path, target: str | Path) -> int:
    """Rebuild `source`'s labels in a new folder `target` from its documents, its queries as written (their
    evidence emptied) and its journal, applied one verdict at a time in the order they were made; returns how
    many verdicts were applied. The files that come out must equal `source`'s.

    >>> replay_journal("data/demo-handbook", "a-new-folder")  # doctest: +SKIP
    263
    """
    source, target = Path(source), Path(target)
    if target.exists():
        raise RagkitError(f"{target}: already exists: replay into a new folder")
    shutil.copytree(source / "corpus", target / "corpus")
    rows = [record for _, record in read_jsonl(source / "queries.jsonl")]
    write_jsonl(target / "queries.jsonl", [{**record, "evidence": []} for record in rows])
    lines = read_jsonl(source / JOURNAL)
    for number, line in lines:
        record_verdicts(target, [(f"{source / JOURNAL}:{number}", line)], journal=JOURNAL)
    return len(lines)
