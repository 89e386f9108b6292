"""Decide which retrieved chunks are relevant to a query, from evidence spans rather than chunk ids.

A query's evidence is a list of quotes, each an exact substring of one document. A retrieved unit (a chunk,
or a whole document) covers a quote when it comes from the same document and overlaps at least half of the
quote's characters. Because this is computed from character offsets, it stays valid when the chunking
changes. Quotes are grouped in *parts*: a `multi` query has one part per thing it asks, and every quote that
answers a part (the written one, or one found by pooled judging) satisfies it; recall counts parts. A unit is
*judged* when it covers a quote or lies mostly inside passages judged not relevant (`judged_units`). For
BEIR-style data the unit is the whole document and a judgment is a document id with a graded gain.
Left out: partial credit for covering less than half a quote, and answer-level relevance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

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
    parts: frozenset[int] = frozenset()  # the parts of the query it answers; empty: its own position


@dataclass(frozen=True)
class Judgment:
    """What counts as relevant for one query: its targets (empty when the query is unanswerable)."""

    query_id: str
    type: str
    split: str
    targets: tuple[Target, ...]
    lang: str = ""
    not_relevant: tuple[Target, ...] = ()  # passages judged not to answer the query

    @property
    def answerable(self) -> bool:
        return bool(self.targets)

    def target_parts(self) -> list[frozenset[int]]:
        """The parts each target answers (a target without parts answers the part at its own position)."""
        return [target.parts or frozenset({i}) for i, target in enumerate(self.targets)]

    def part_gains(self) -> list[float]:
        """The gain of each part: the largest gain among the targets that answer it.

        >>> Judgment("q", "multi", "dev", (Target("a"), Target("b", gain=2.0), Target("c", parts=frozenset({1})))).part_gains()
        [1.0, 2.0]
        """
        return self._part_gains

    @cached_property
    def _part_gains(self) -> list[float]:  # computed once per judgment: every metric of every move reads it
        gains: dict[int, float] = {}
        for target, parts in zip(self.targets, self.target_parts(), strict=True):
            for part in parts:
                gains[part] = max(gains.get(part, 0.0), target.gain)
        return [gains[part] for part in sorted(gains)]

    @cached_property
    def targets_by_doc(self) -> dict[str, list[tuple[frozenset[int], Target]]]:
        """Document id → (parts, target) of its targets: a unit is only compared with its own document's."""
        by_doc: dict[str, list[tuple[frozenset[int], Target]]] = {}
        for parts, target in zip(self.target_parts(), self.targets, strict=True):
            by_doc.setdefault(target.doc_id, []).append((parts, target))
        return by_doc

    @cached_property
    def judged_memo(self) -> dict[tuple[str, int, int], bool]:
        """(doc, start, end) → judged, filled by `judged_units`: a slider move re-ranks mostly the same chunks,
        and whether a span is judged depends on the span and this judgment alone."""
        return {}

    @cached_property
    def not_relevant_by_doc(self) -> dict[str, list[Target]]:
        """Document id → its passages judged not relevant (a slider move re-checks units against these)."""
        by_doc: dict[str, list[Target]] = {}
        for span in self.not_relevant:
            by_doc.setdefault(span.doc_id, []).append(span)
        return by_doc


def quote_target(docs: Mapping[str, Document], doc_id: str, quote: str, where: str = "") -> Target:
    """The span of `quote` in document `doc_id`; it must occur exactly once.

    >>> doc = Document("d", "T", "faq", "2025-01-01", "en", "Keys rotate every 90 days.")
    >>> quote_target({"d": doc}, "d", "every 90 days")
    Target(doc_id='d', start=12, end=25, gain=1.0, parts=frozenset())
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
    """Span judgments for the course's labelled queries: their evidence quotes, grouped in parts, and the
    passages judged not relevant.

    >>> from ragkit.corpus import Evidence
    >>> doc = Document("d", "T", "faq", "2025-01-01", "en", "Keys rotate every 90 days.")
    >>> q = Query("q1", "key rotation?", "en", "keyword", "dev", (Evidence("d", "90 days"),), "90 days")
    >>> judgments_from_queries([q], [doc])[0].targets[0].end
    25
    """
    by_id = {doc.doc_id: doc for doc in docs}

    def target(query: Query, item) -> Target:
        found = quote_target(by_id, item.doc, item.quote, where=f"query {query.query_id}")
        return replace(found, parts=frozenset(item.parts))

    return [
        Judgment(query.query_id, query.type, query.split, tuple(target(query, item) for item in query.evidence),
                 query.lang, tuple(Target(span.doc, span.start, span.end) for span in query.not_relevant))
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
    """For each retrieved unit, best first, the parts of the query it answers (the parts of the targets it covers).

    >>> chunks = [Chunk("d#1", "d", 20, 40, ""), Chunk("d#0", "d", 0, 20, "")]
    >>> ranking_hits(chunks, Judgment("q", "keyword", "dev", (Target("d", 2, 8),)))
    [frozenset(), frozenset({0})]
    >>> alternative = Target("d", 22, 30, parts=frozenset({0}))  # another passage that answers part 0
    >>> ranking_hits(chunks, Judgment("q", "keyword", "dev", (Target("e", 0, 5), alternative)))
    [frozenset({0}), frozenset()]
    """
    by_doc, hits, nothing = judgment.targets_by_doc, [], frozenset()
    for unit in ranking:  # most units share no document with the targets: answer those without a set union
        covered = [parts for parts, target in by_doc.get(unit.doc_id, ()) if covers(unit, target)]
        hits.append(frozenset().union(*covered) if covered else nothing)
    return hits


def judged_units(ranking: Sequence[Chunk], judgment: Judgment) -> list[bool]:
    """For each unit: was it judged? True when it covers a relevant target, or when at least half of its
    characters lie inside passages judged not relevant (so a judgment made on one chunking carries over to
    the chunks of another that mostly overlap it).

    >>> j = Judgment("q", "keyword", "dev", (Target("d", 2, 8),), not_relevant=(Target("d", 40, 80),))
    >>> judged_units([Chunk("d#0", "d", 0, 20, ""), Chunk("d#2", "d", 50, 90, ""), Chunk("d#3", "d", 70, 99, "")], j)
    [True, True, False]
    """
    memo, judged = judgment.judged_memo, []
    for unit in ranking:
        key = (unit.doc_id, unit.start, unit.end)
        if key not in memo:
            memo[key] = unit_is_judged(unit, judgment)
        judged.append(memo[key])
    return judged


def unit_is_judged(unit: Chunk, judgment: Judgment) -> bool:
    """`judged_units` for one unit, computed: it covers a target, or half its characters lie in not-relevant spans.

    >>> j = Judgment("q", "keyword", "dev", (Target("d", 2, 8),), not_relevant=(Target("d", 40, 80),))
    >>> unit_is_judged(Chunk("d#1", "d", 20, 50, ""), j), unit_is_judged(Chunk("d#2", "d", 50, 90, ""), j)
    (False, True)
    """
    spans = judgment.not_relevant_by_doc.get(unit.doc_id, ())
    if ranking_hits([unit], judgment)[0] or any(span.end is None for span in spans):
        return True
    # characters of the unit inside not-relevant spans, counted once where spans overlap (merged intervals)
    inside, reached = 0, unit.start
    for start, end in sorted((max(s.start, unit.start), min(s.end, unit.end)) for s in spans):
        start = max(start, reached)
        if end > start:
            inside, reached = inside + end - start, end
    return inside * 2 >= unit.end - unit.start > 0
