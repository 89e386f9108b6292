"""The version rule as a data check: a quote may not come from a document older than the state its query asks about.

A query about the current state can be answered wrongly by a passage that was true once: an FAQ written before
a policy changed, a v1 page, a 2024 price book. Two precise cases are checked, each from what the data itself
says: the query's labelled `filters` have a `date_from` and the quote's document is dated before it (it cannot
describe that period's state), or the query's text has a *now* cue ("current", "now", "still", ...) and the quote's
document is superseded, i.e. a newer document of its family exists (`ragkit.index.query_filters`, which a
search front end uses to drop such documents). Left out: outdated statements inside current documents, and
queries about now without a cue (the data README lists the ones that were given one); a reader finds those.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragkit.corpus import Document
from ragkit.index.query_filters import parse_filters


def outdated_evidence(records: Sequence[dict], documents: Sequence[Document]) -> list[str]:
    """One problem line per quote that the version rule rules out (see the module docstring).

    >>> docs = [Document("faq", "FAQ", "faq", "2025-02-20", "en", "30 days."),
    ...         Document("book", "Book", "finance", "2025-07-01", "en", "14 days.")]
    >>> outdated_evidence([{"id": "q", "text": "current refund window", "filters": {"date_from": "2025-07-01"},
    ...                     "evidence": [{"doc": "faq", "quote": "30 days."}, {"doc": "book", "quote": "14 days."}]}],
    ...                   docs)  # doctest: +NORMALIZE_WHITESPACE
    ["queries.jsonl: q: quote from faq (dated 2025-02-20) is older than the query's date_from 2025-07-01:
      '30 days.'"]
    """
    by_id = {doc.doc_id: doc for doc in documents}
    problems = []
    for record in records:
        filters = record.get("filters") or {}
        cued = parse_filters(str(record.get("text", "")), documents).get("exclude", "")
        superseded = set(cued.split(",")) - {""}
        for item in record.get("evidence") or []:
            doc = by_id.get(item.get("doc")) if isinstance(item, dict) else None
            if doc is None:
                continue  # an unknown document is reported by check_query
            quote = str(item.get("quote", ""))[:50]
            if "date_from" in filters and doc.date < filters["date_from"]:
                problems.append(f"queries.jsonl: {record.get('id')}: quote from {doc.doc_id} (dated {doc.date}) is "
                                f"older than the query's date_from {filters['date_from']}: {quote!r}")
            elif doc.doc_id in superseded:
                problems.append(f"queries.jsonl: {record.get('id')}: quote from {doc.doc_id}, which a newer document "
                                f"supersedes, for a query about now: {quote!r}")
    return problems
