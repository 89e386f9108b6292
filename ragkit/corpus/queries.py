"""Labelled queries: one JSON object a line in `queries.jsonl`, and the passages judged not relevant beside it.

A query's fields are described in `data/README.md`. Loading stops at the first problem with `file:line: what is
wrong`; `ragkit.labels.datacheck` reports every problem at once. Left out: writing queries (the labels stage,
`ragkit.labels`), and any format but JSON lines.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from ragkit.corpus.records import Evidence, Query, Span
from ragkit.errors import RagkitError


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
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RagkitError(f"{path}: cannot read the file: {error}") from None
    for number, line in enumerate(text.split("\n"), start=1):  # as iterating a handle
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
