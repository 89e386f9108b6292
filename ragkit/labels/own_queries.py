"""Writing your own queries: add one, set its type (or mark it not answered in these documents), remove one.

`add_query` appends a query in the course's format, with the `parts` it asks for named (one by default), a
language guessed as for documents and a split drawn from a hash of its id. `set_query_type` changes a query's
type; `unanswerable` means the documents do not answer it (a query with a passage judged as answering it cannot
be), which the eval command scores as refusal. `remove_query` takes back a query typed by mistake, as long as no
verdict names it. Each change rewrites `queries.jsonl` whole under the folder's lock (`ragkit.labels.files`).
Left out: editing a query's text (remove it and add it again) and removing a query that has verdicts (its labels
would be lost: edit the files by hand).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from ragkit.corpus import derived_fields, read_jsonl
from ragkit.errors import RagkitError
from ragkit.labels.datacheck import QUERY_TYPES
from ragkit.labels.files import JOURNAL, folder_lock, write_jsonl


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
    if kind not in QUERY_TYPES:
        raise RagkitError(f"query type {kind!r} is not one of {', '.join(QUERY_TYPES)}")
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


def _rewrite(folder: Path, query_id: str, change) -> dict:
    """Apply `change(rows, index)` to the query `query_id` under the folder's lock; returns its record."""
    with folder_lock(folder):
        rows = [record for _, record in read_jsonl(folder / "queries.jsonl")] if (folder / "queries.jsonl").exists() \
            else []
        found = [n for n, record in enumerate(rows) if record.get("id") == query_id]
        if not found:
            raise RagkitError(f"{folder / 'queries.jsonl'}: no query {query_id!r}")
        record = change(rows, found[0])
        write_jsonl(folder / "queries.jsonl", rows)
    return record


def set_query_type(folder: str | Path, query_id: str, kind: str) -> dict:
    """Set a query's type; `unanswerable` (not answered in these documents) only while no passage answers it.

    >>> import shutil, tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = shutil.copytree("data/demo-handbook/corpus", folder / "corpus")
    >>> set_query_type(folder, add_query(folder, "Who feeds the office cat?")["id"], "unanswerable")["type"]
    'unanswerable'
    """
    if kind not in QUERY_TYPES:
        raise RagkitError(f"query type {kind!r} is not one of {', '.join(QUERY_TYPES)}")

    def change(rows: list[dict], index: int) -> dict:
        if kind == "unanswerable" and rows[index].get("evidence"):
            raise RagkitError(f"{query_id} has {len(rows[index]['evidence'])} passage(s) judged as answering it: "
                              "it is answered in these documents")
        rows[index] = {**rows[index], "type": kind}
        return rows[index]

    return _rewrite(Path(folder), query_id, change)


def remove_query(folder: str | Path, query_id: str) -> dict:
    """Remove a query that no verdict names yet (typed by mistake); returns the removed record.

    >>> import shutil, tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = shutil.copytree("data/demo-handbook/corpus", folder / "corpus")
    >>> remove_query(folder, add_query(folder, "asdf")["id"])["text"], (folder / "queries.jsonl").read_text()
    ('asdf', '')
    """
    folder = Path(folder)
    for name in ("judgments.jsonl", JOURNAL):
        if (folder / name).exists() and any(r.get("query") == query_id for _, r in read_jsonl(folder / name)):
            raise RagkitError(f"{query_id} has verdicts in {name}: it stays (removing it would lose them)")

    def change(rows: list[dict], index: int) -> dict:
        if rows[index].get("evidence"):
            raise RagkitError(f"{query_id} has evidence: it stays (removing it would lose its labels)")
        return rows.pop(index)

    return _rewrite(folder, query_id, change)
