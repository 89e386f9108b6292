"""Load the course corpus (markdown with front matter) and the labelled queries.

A document is a markdown file that starts with a front-matter block of plain `key: value` lines between two
`---` lines. A query is one JSON object a line (see `data/README.md`). Loading stops at the first problem with
`file:line: what is wrong`; `ragkit.evaluate.datacheck` reports every problem at once. Left out: YAML beyond flat
`key: value` pairs, other document formats (PDF, HTML), and fetching anything over the network.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from ragkit.errors import RagkitError

REQUIRED_FIELDS = ("id", "title", "source", "date", "lang")


@dataclass(frozen=True)
class Document:
    """One document: its front matter and its body (the text after the front matter)."""

    doc_id: str
    title: str
    source: str
    date: str
    lang: str
    text: str
    version: str | None = None
    path: str = ""


@dataclass(frozen=True)
class Evidence:
    """A passage that answers a query: an exact substring `quote` of document `doc`. `parts`: the parts of the
    query it answers (empty: its own position); `origin`: "written" with the query, or "pooled" (`data/README.md`)."""

    doc: str
    quote: str
    parts: tuple[int, ...] = ()
    origin: str = "written"


@dataclass(frozen=True)
class Span:  # a judged passage: characters [start, end) of document `doc`'s body
    doc: str
    start: int
    end: int


@dataclass(frozen=True)
class Query:
    """One labelled query; `evidence` is empty for unanswerable ones."""

    query_id: str
    text: str
    lang: str
    type: str
    split: str
    evidence: tuple[Evidence, ...]
    answer: str
    filters: dict = field(default_factory=dict)
    not_relevant: tuple[Span, ...] = ()  # passages judged not to answer it (`data/judgments.jsonl`)


def parse_front_matter(raw: str, where: str = "<text>") -> tuple[dict[str, str], str, int]:
    """Split a markdown file into (front matter, body, line number where the body starts).

    >>> meta, body, line = parse_front_matter("---\\nid: a\\ntitle: A\\n---\\nHello")
    >>> meta["title"], body, line
    ('A', 'Hello', 5)
    """
    lines = raw.split("\n")
    if not lines or lines[0].strip() != "---":
        raise RagkitError(f"{where}:1: no front matter: the file must start with a line '---'")
    meta: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            return meta, "\n".join(lines[number:]), number + 1
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise RagkitError(f"{where}:{number}: front matter line is not 'key: value': {line!r}")
        meta[key.strip()] = value.strip()
    raise RagkitError(f"{where}:1: front matter is never closed by a line '---'")


def document_from_file(path: str | Path) -> Document:
    """Read one markdown document; raise `RagkitError` naming the file and line on a problem.

    >>> document_from_file("data/corpus/api-sessions-v2.md").source  # doctest: +SKIP
    'api-reference'
    """
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RagkitError(f"{path}: cannot read the document: {error}") from None
    meta, body, _ = parse_front_matter(raw, str(path))
    missing = [name for name in REQUIRED_FIELDS if not meta.get(name)]
    if missing:
        raise RagkitError(f"{path}:1: front matter lacks {', '.join(missing)}")
    return Document(
        doc_id=meta["id"], title=meta["title"], source=meta["source"], date=meta["date"], lang=meta["lang"],
        text=body, version=meta.get("version") or None, path=str(path),
    )


def load_documents(folder: str | Path) -> list[Document]:
    """Every `*.md` document in `folder`, sorted by id.

    >>> docs = load_documents("data/corpus")  # doctest: +SKIP
    >>> len(docs) >= 60  # doctest: +SKIP
    True
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise RagkitError(f"{folder}: no such corpus folder")
    docs = [document_from_file(path) for path in sorted(folder.glob("*.md"))]
    if not docs:
        raise RagkitError(f"{folder}: the corpus folder holds no .md documents")
    seen: dict[str, str] = {}
    for doc in docs:
        if doc.doc_id in seen:
            raise RagkitError(f"{doc.path}:1: id {doc.doc_id!r} is already used by {seen[doc.doc_id]}")
        seen[doc.doc_id] = doc.path
    return sorted(docs, key=lambda doc: doc.doc_id)


def query_from_record(record: dict, where: str) -> Query:
    """Build a `Query` from one parsed JSON line; `where` ("file:line") prefixes any error.

    >>> query_from_record({"id": "q1", "text": "hi", "type": "keyword", "evidence": []}, "x:1").query_id
    'q1'
    """
    for name in ("id", "text", "type"):
        if not isinstance(record.get(name), str) or not record[name].strip():
            raise RagkitError(f"{where}: field {name!r} is missing or empty")
    evidence = record.get("evidence", [])
    if not isinstance(evidence, list) or not all(
        isinstance(item, dict) and isinstance(item.get("doc"), str) and isinstance(item.get("quote"), str)
        for item in evidence
    ):
        raise RagkitError(f"{where}: 'evidence' must be a list of {{'doc': ..., 'quote': ...}} objects")
    return Query(
        query_id=record["id"], text=record["text"], lang=record.get("lang", "en"), type=record["type"],
        split=record.get("split", ""),
        evidence=tuple(Evidence(item["doc"], item["quote"], tuple(item.get("parts", ())), item.get("origin", "written"))
                       for item in evidence),
        answer=record.get("answer", ""), filters=dict(record.get("filters") or {}),
    )


def read_jsonl(path: str | Path) -> list[tuple[int, dict]]:
    """(line number, object) for every non-blank line of a JSON-lines file.

    >>> read_jsonl("data/queries.jsonl")[0][0]  # doctest: +SKIP
    1
    """
    path = Path(path)
    if not path.is_file():
        raise RagkitError(f"{path}: no such file")
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise RagkitError(f"{path}:{number}: not valid JSON ({error.msg})") from None
            if not isinstance(record, dict):
                raise RagkitError(f"{path}:{number}: expected a JSON object, got {type(record).__name__}")
            rows.append((number, record))
    return rows


def load_not_relevant(path: str | Path) -> dict[str, tuple[Span, ...]]:
    """query id → the spans judged not relevant to it, from a judgments file (one JSON object a line:
    `query`, `doc`, `start`, `end`, `relevant` false).

    >>> load_not_relevant("data/judgments.jsonl")["api-002"][0].doc  # doctest: +SKIP
    'api-auth-v1'
    """
    spans: dict[str, list[Span]] = {}
    for number, record in read_jsonl(path):
        try:
            span = Span(str(record["doc"]), int(record["start"]), int(record["end"]))
            query_id, relevant = str(record["query"]), record["relevant"]
        except (KeyError, TypeError, ValueError):
            raise RagkitError(f"{path}:{number}: a judgment needs query, doc, start, end and relevant") from None
        if relevant is not False:
            raise RagkitError(f"{path}:{number}: only passages judged not relevant go here; relevant ones are "
                              "evidence in queries.jsonl")
        spans.setdefault(query_id, []).append(span)
    return {query_id: tuple(found) for query_id, found in spans.items()}


def load_queries(path: str | Path, split: str | None = None) -> list[Query]:
    """The labelled queries in `path`, optionally only one split (`dev` or `test`), with the passages judged
    not relevant to each from `judgments.jsonl` beside it, when there is one.

    >>> [q.split for q in load_queries("data/queries.jsonl", split="dev")][:1]  # doctest: +SKIP
    ['dev']
    """
    queries = [query_from_record(record, f"{path}:{number}") for number, record in read_jsonl(path)]
    judged = Path(path).with_name("judgments.jsonl")
    if judged.is_file():
        not_relevant = load_not_relevant(judged)
        queries = [replace(q, not_relevant=not_relevant.get(q.query_id, ())) for q in queries]
    if split is not None:
        splits = sorted({q.split for q in queries})
        if split not in splits:
            raise RagkitError(f"{path}: no queries in split {split!r}; the splits are {splits}")
        queries = [q for q in queries if q.split == split]
    return queries
