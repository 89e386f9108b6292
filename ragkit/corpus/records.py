"""What the course reads: a document, a labelled query, its evidence, a passage judged not relevant.

Plain frozen dataclasses with no behaviour; `ragkit.corpus.folder` makes documents from files and
`ragkit.corpus.queries` makes queries from `queries.jsonl`. Left out: anything about files or formats.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
