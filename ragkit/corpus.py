"""Load the course corpus (markdown with front matter) and the labelled queries.

A document is a markdown file that starts with a front-matter block of plain `key: value` lines between two `---`
lines (`load_documents` also reads `.txt` files, and files without it: `derived_fields`). A query is one JSON object
a line (see `data/README.md`). Loading stops at the first problem with `file:line: what is wrong`;
`ragkit.labels.datacheck` reports every problem at once. Left out: YAML beyond flat `key: value` pairs, other
formats (PDF, HTML), and fetching anything over the network.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from ragkit.errors import RagkitError

REQUIRED_FIELDS = ("id", "title", "source", "date", "lang")


@dataclass(frozen=True)
class Document:
    """One document: its front matter, its body (the text after it) and `derived`, the fields it lacked."""

    doc_id: str
    title: str
    source: str
    date: str
    lang: str
    text: str
    version: str | None = None
    path: str = ""
    derived: tuple[str, ...] = ()


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

    >>> parse_front_matter("---\\nid: a\\ntitle: A\\n---\\nHello")
    ({'id': 'a', 'title': 'A'}, 'Hello', 5)
    """
    lines, meta = raw.split("\n"), {}
    if lines[0].strip() != "---":
        raise RagkitError(f"{where}:1: no front matter: the file must start with a line '---'")
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            return meta, "\n".join(lines[number:]), number + 1
        key, sep, value = line.partition(":")
        if line.strip() and (not sep or not key.strip()):
            raise RagkitError(f"{where}:{number}: front matter line is not 'key: value': {line!r}")
        if line.strip():
            meta[key.strip()] = value.strip()
    raise RagkitError(f"{where}:1: front matter is never closed by a line '---'")


def derived_fields(path: Path, meta: dict[str, str], body: str) -> dict[str, str]:
    """The `REQUIRED_FIELDS` that `meta` lacks, derived from the file: `id` from its name, `title` from its first
    `# ` heading (else its name), `source` from its folder (above `corpus/`), `date` from its last change, `lang`
    `zh` when a quarter or more of its letters are Chinese characters, else `en`.

    >>> derived_fields(Path("notes/leave.txt"), {"date": "2026-01-05"}, "# Annual leave\\nTwenty-five days.")
    {'id': 'leave', 'title': 'Annual leave', 'source': 'notes', 'lang': 'en'}
    """
    heading = next((line[2:].strip() for line in body.split("\n") if line.startswith("# ")), "")
    folder = path.parent.parent if path.parent.name == "corpus" else path.parent
    found = {"id": lambda: path.stem, "title": lambda: heading or path.stem.replace("-", " ").replace("_", " "),
             "source": lambda: folder.resolve().name or "own", "date": lambda: date.fromtimestamp(
                 path.stat().st_mtime).isoformat(), "lang": lambda: "zh" if 4 * sum(
                 "\u4e00" <= c <= "\u9fff" for c in body) >= sum(c.isalpha() for c in body) > 0 else "en"}
    return {name: found[name]() for name in REQUIRED_FIELDS if not meta.get(name)}  # only what is missing


def document_from_file(path: str | Path, derive: bool = False) -> Document:
    """Read one markdown document; raise `RagkitError` naming the file and line on a problem. With `derive`,
    front matter is optional and a missing field is derived (`derived_fields`).

    >>> document_from_file("data/corpus/api-sessions-v2.md").source  # doctest: +SKIP
    'api-reference'
    """
    try:
        raw = (path := Path(path)).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RagkitError(f"{path}: cannot read the document: {error}") from None
    meta, body, _ = ({}, raw, 1) if derive and raw.split("\n", 1)[0].strip() != "---" else \
        parse_front_matter(raw, str(path))
    meta = {**meta, **(derived := derived_fields(path, meta, body) if derive else {})}
    if missing := [name for name in REQUIRED_FIELDS if not meta.get(name)]:
        raise RagkitError(f"{path}:1: front matter lacks {', '.join(missing)}")
    return Document(meta["id"], meta["title"], meta["source"], meta["date"], meta["lang"], body,
                    meta.get("version") or None, str(path), tuple(derived))


def load_documents(folder: str | Path, derive: bool = True) -> list[Document]:
    """Every `*.md` and `*.txt` document in `folder`, sorted by id; with `derive`, a field the front matter
    lacks (or all, without front matter) is derived and named in the document's `derived`.

    >>> len(load_documents("data/corpus")) >= 60  # doctest: +SKIP
    True
    """
    if not (folder := Path(folder)).is_dir():
        raise RagkitError(f"{folder}: no such corpus folder")
    docs = [document_from_file(path, derive) for path in sorted([*folder.glob("*.md"), *folder.glob("*.txt")])]
    if not docs:
        raise RagkitError(f"{folder}: the corpus folder holds no .md documents (nor .txt)")
    seen: dict[str, str] = {}
    for doc in docs:
        if seen.setdefault(doc.doc_id, doc.path) != doc.path:
            raise RagkitError(f"{doc.path}:1: id {doc.doc_id!r} is already used by {seen[doc.doc_id]}")
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
    if not isinstance(evidence, list) or not all(isinstance(item, dict) and isinstance(item.get("doc"), str)
                                                 and isinstance(item.get("quote"), str) for item in evidence):
        raise RagkitError(f"{where}: 'evidence' must be a list of {{'doc': ..., 'quote': ...}} objects")
    items = tuple(Evidence(item["doc"], item["quote"], tuple(item.get("parts", ())), item.get("origin", "written"))
                  for item in evidence)
    return Query(record["id"], record["text"], record.get("lang", "en"), record["type"], record.get("split", ""),
                 items, record.get("answer", ""), dict(record.get("filters") or {}))


def read_jsonl(path: str | Path) -> list[tuple[int, dict]]:
    """(line number, object) for every non-blank line of a JSON-lines file.

    >>> read_jsonl("data/queries.jsonl")[0][0]  # doctest: +SKIP
    1
    """
    if not (path := Path(path)).is_file():
        raise RagkitError(f"{path}: no such file")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):  # as iterating a handle
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
    """query id → the spans judged not relevant to it, from a judgments file (`query`, `doc`, `start`, `end`, `relevant` false).

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
            raise RagkitError(f"{path}:{number}: only passages judged not relevant go here; relevant ones are evidence in queries.jsonl")
        spans.setdefault(query_id, []).append(span)
    return {query_id: tuple(found) for query_id, found in spans.items()}


def load_queries(path: str | Path, split: str | None = None) -> list[Query]:
    """The labelled queries in `path`, optionally only one split (`dev` or `test`), with the passages judged
    not relevant to each from `judgments.jsonl` beside it, when there is one.

    >>> [q.split for q in load_queries("data/queries.jsonl", split="dev")][:1]  # doctest: +SKIP
    ['dev']
    """
    queries = [query_from_record(record, f"{path}:{number}") for number, record in read_jsonl(path)]
    if (judged := Path(path).with_name("judgments.jsonl")).is_file():
        not_relevant = load_not_relevant(judged)
        queries = [replace(q, not_relevant=not_relevant.get(q.query_id, ())) for q in queries]
    if split is not None and split not in (splits := sorted({q.split for q in queries})):
        raise RagkitError(f"{path}: no queries in split {split!r}; the splits are {splits}")
    return queries if split is None else [q for q in queries if q.split == split]
