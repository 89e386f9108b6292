"""Metadata filters: keep only the chunks whose document matches a query's `filters`.

Keys: `date_from` and `date_to` (inclusive ISO dates, compared with the document's `date`), `version`,
`source` and `lang` (equal to the document's field), and `exclude` (comma-separated document ids to drop: the
superseded documents, see `ragkit.index.query_filters`). Left out: boolean combinations, ranges of versions,
and Chroma's `where` syntax (notebook 03 translates to it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ragkit.errors import RagkitError

FILTER_KEYS = ("date_from", "date_to", "version", "source", "lang", "exclude")


def check_filters(filters: Mapping[str, str]) -> None:
    """Raise `RagkitError` on an unknown key or a value that is not a string.

    >>> check_filters({"date_from": "2025-07-01"})
    """
    for key, value in filters.items():
        if key not in FILTER_KEYS:
            raise RagkitError(f"unknown filter {key!r}; use {', '.join(FILTER_KEYS)}")
        if not isinstance(value, str) or not value:
            raise RagkitError(f"filter {key!r} needs a non-empty string value, got {value!r}")


def matches_filters(item, filters: Mapping[str, str]) -> bool:
    """True when a document or chunk (anything with date, version, source, lang) passes every filter.

    >>> from ragkit.corpus import Document
    >>> doc = Document("d", "T", "changelog", "2025-06-10", "en", "", version="5.0")
    >>> matches_filters(doc, {"date_from": "2025-01-01", "version": "5.0"}), matches_filters(doc, {"lang": "zh"})
    (True, False)
    """
    check_filters(filters)
    if "date_from" in filters and not (item.date and item.date >= filters["date_from"]):
        return False
    if "date_to" in filters and not (item.date and item.date <= filters["date_to"]):
        return False
    if "exclude" in filters and getattr(item, "doc_id", None) in filters["exclude"].split(","):
        return False
    return all(str(getattr(item, key) or "") == filters[key] for key in ("version", "source", "lang")
               if key in filters)


def filter_mask(items: Sequence, filters: Mapping[str, str] | None) -> np.ndarray:
    """A boolean array: which items pass the filters (all of them when there are none).

    >>> filter_mask([], None).shape
    (0,)
    """
    if not filters:
        return np.ones(len(items), dtype=bool)
    return np.array([matches_filters(item, filters) for item in items], dtype=bool)
