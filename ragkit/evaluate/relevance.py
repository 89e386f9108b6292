"""Decide which retrieved chunks are relevant to a query, from evidence spans rather than chunk ids.

A query's evidence is a list of quotes, each an exact substring of one document. A retrieved unit (a chunk,
or a whole document) covers a quote when it comes from the same document and overlaps at least half of the
quote's characters. Because this is computed from character offsets, it stays valid when the chunking
changes. For BEIR-style data the unit is the whole document and a judgment is a document id with a graded
gain. Left out: partial credit for covering less than half a quote, and answer-level relevance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragkit.chunk.base import Chunk
from ragkit.corpus import Document, Query
from ragkit.errors import RagkitError


@dataclass(frozen=True)
class Target:
    """One thing a query needs: `[start, end)` of a document body, or the whole document when `end` is None."""

    doc_id: str
    start: int = 0
    end: int | None = None
    gain: float = 1.0


@dataclass(frozen=True)
class Judgment:
    """What counts as relevant for one query: its targets (empty when the query is unanswerable)."""

    query_id: str
    type: str
    split: str
    targets: tuple[Target, ...]

    @property
    def answerable(self) -> bool:
        return bool(self.targets)


def quote_target(docs: Mapping[str, Document], doc_id: str, quote: str, where: str = "") -> Target:
    """The span of `quote` in document `doc_id`; it must occur exactly once.

    >>> doc = Document("d", "T", "faq", "2025-01-01", "en", "Keys rotate every 90 days.")
    >>> quote_target({"d": doc}, "d", "every 90 days")
    Target(doc_id='d', start=12, end=25, gain=1.0)
    """
    prefix = f"{where}: " if where else ""
    if doc_id not in docs:
        raise RagkitError(f"{prefix}evidence names document {doc_id!r}, which is not in the corpus")
    text = docs[doc_id].text
    count = text.count(quote)
    if count != 1:
        raise RagkitError(f"{prefix}quote occurs {count} times in {doc_id} (must be exactly once): {quote[:60]!r}")
    start = text.index(quote)
    return Target(doc_id, start, start + len(quote))


def judgments_from_queries(queries: Sequence[Query], docs: Sequence[Document]) -> list[Judgment]:
    """Span judgments for the course's labelled queries.

    >>> from ragkit.corpus import Evidence
    >>> doc = Document("d", "T", "faq", "2025-01-01", "en", "Keys rotate every 90 days.")
    >>> q = Query("q1", "key rotation?", "en", "keyword", "dev", (Evidence("d", "90 days"),), "90 days")
    >>> judgments_from_queries([q], [doc])[0].targets[0].end
    25
    """
    by_id = {doc.doc_id: doc for doc in docs}
    return [
        Judgment(query.query_id, query.type, query.split, tuple(
            quote_target(by_id, item.doc, item.quote, where=f"query {query.query_id}") for item in query.evidence
        ))
        for query in queries
    ]


def covers(unit: Chunk, target: Target) -> bool:
    """True when `unit` is from the target's document and overlaps at least half of the target span.

    >>> chunk = Chunk("d#0", "d", 0, 20, "x" * 20)
    >>> covers(chunk, Target("d", 10, 30)), covers(chunk, Target("d", 12, 30)), covers(chunk, Target("d"))
    (True, False, True)
    """
    if unit.doc_id != target.doc_id:
        return False
    if target.end is None:
        return True
    overlap = min(unit.end, target.end) - max(unit.start, target.start)
    return overlap * 2 >= target.end - target.start


def ranking_hits(ranking: Sequence[Chunk], judgment: Judgment) -> list[frozenset[int]]:
    """For each retrieved unit, best first, the indices of the judgment's targets it covers.

    >>> chunks = [Chunk("d#1", "d", 20, 40, ""), Chunk("d#0", "d", 0, 20, "")]
    >>> ranking_hits(chunks, Judgment("q", "keyword", "dev", (Target("d", 2, 8),)))
    [frozenset(), frozenset({0})]
    """
    by_doc: dict[str, list[tuple[int, Target]]] = {}  # a unit is only compared with its own document's targets
    for i, target in enumerate(judgment.targets):
        by_doc.setdefault(target.doc_id, []).append((i, target))
    return [frozenset(i for i, target in by_doc.get(unit.doc_id, ()) if covers(unit, target)) for unit in ranking]
