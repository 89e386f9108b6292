"""Derive metadata filters from the words of a query, as a search front end would, instead of reading them
from the labels.

Cues, in the order they are tried:
- a release version ("5.3", "4.0", "4.x"): `version` for a plain mention; "before 5.3" and "since 5.2" (or
  "after") become date bounds at that release's date (the date of the changelog page with that version);
- an API version ("v1", "api v2"): `version` "1" or "2";
- one year ("in 2024", "mid-2025", "the 2024 policy"): that calendar year as `date_from` and `date_to`; two
  different years (a comparison) give no date filter;
- "now", "current", "latest", "still", "today": `exclude` the superseded documents, those with a newer
  document of the same family (same id up to a `-v1` / `-2024` style suffix); "latest release" also sets
  `version` to the newest release.
Left out: relative dates ("last quarter", "two years ago"), month names, fiscal years, and any cue this list
does not name; such queries get fewer filters, and notebook 03 measures what that costs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta

from ragkit.corpus import Document

RELEASE = re.compile(r"(?<![\w.])(?:(before|since|after|until|up to)\s+)?(?:release\s+|sync\s+)?(\d)\.(\d|x)(?![\w.])",
                     re.IGNORECASE)
API_VERSION = re.compile(r"\b(?:api\s+)?v([12])\b", re.IGNORECASE)
YEAR = re.compile(r"(?<!\d)(20[2-3]\d)(?!\d)")
NOW = re.compile(r"\b(now|current(?:ly)?|latest|still|today|newest)\b|现在|目前|最新", re.IGNORECASE)
FAMILY_SUFFIX = re.compile(r"-(?:v\d+|20\d\d|\d+x)$")


def release_dates(docs: Sequence[Document]) -> dict[str, str]:
    """Release version → the date of its changelog page (the earliest, when several pages share a version).

    >>> release_dates([Document("chg-5-3", "5.3", "changelog", "2026-09-15", "en", "", version="5.3")])
    {'5.3': '2026-09-15'}
    """
    found: dict[str, str] = {}
    for doc in docs:
        if doc.source == "changelog" and doc.version and re.fullmatch(r"\d\.\d", doc.version):
            found[doc.version] = min(found.get(doc.version, doc.date), doc.date)
    return found


def superseded(docs: Sequence[Document]) -> list[str]:
    """Ids of the documents that have a newer document of the same family (`api-webhooks-v1` → `api-webhooks`).

    >>> old = Document("hr-remote-2024", "R", "hr", "2024-03-01", "en", "")
    >>> new = Document("hr-remote-2026", "R", "hr", "2026-01-20", "en", "")
    >>> superseded([old, new])
    ['hr-remote-2024']
    """
    families: dict[str, list[Document]] = {}
    for doc in docs:
        families.setdefault(FAMILY_SUFFIX.sub("", doc.doc_id), []).append(doc)
    return sorted(doc.doc_id for family in families.values() if len(family) > 1
                  for doc in family if doc.date < max(member.date for member in family))


def parse_filters(text: str, docs: Sequence[Document]) -> dict[str, str]:
    """The filters the cues in `text` call for (an empty dict when it has none).

    >>> docs = [Document("chg-5-2", "5.2", "changelog", "2026-03-03", "en", "", version="5.2")]
    >>> parse_filters("webhook timeout since 5.2", docs), parse_filters("core hours 2024 policy", docs)
    ({'date_from': '2026-03-03'}, {'date_from': '2024-01-01', 'date_to': '2024-12-31'})
    >>> parse_filters("which header did api v1 use", docs), parse_filters("what got removed in 5.2", docs)
    ({'version': '1'}, {'version': '5.2'})
    """
    filters: dict[str, str] = {}
    releases = release_dates(docs)
    match = RELEASE.search(text)
    if match:
        word, major, minor = (match.group(1) or "").lower(), match.group(2), match.group(3).lower()
        if minor == "x":  # a whole major line: from its first release to the day before the next line's
            starts = sorted(day for version, day in releases.items() if version.startswith(f"{major}."))
            later = sorted(day for version, day in releases.items() if int(version[0]) > int(major))
            if starts:
                filters["date_from"] = starts[0]
            if later:
                filters["date_to"] = day_before(later[0])
        elif word in ("before", "until", "up to") and f"{major}.{minor}" in releases:
            filters["date_to"] = day_before(releases[f"{major}.{minor}"])
        elif word in ("since", "after") and f"{major}.{minor}" in releases:
            filters["date_from"] = releases[f"{major}.{minor}"]
        else:
            filters["version"] = f"{major}.{minor}"
    elif API_VERSION.search(text):
        filters["version"] = API_VERSION.search(text).group(1)
    years = sorted(set(YEAR.findall(text)))
    if len(years) == 1 and "date_from" not in filters and "date_to" not in filters:
        if re.search(rf"before\s+(?:the\s+)?{years[0]}", text, re.IGNORECASE):
            filters["date_to"] = f"{int(years[0]) - 1}-12-31"
        else:
            filters["date_from"], filters["date_to"] = f"{years[0]}-01-01", f"{years[0]}-12-31"
    if NOW.search(text) and not years:
        old = superseded(docs)
        if old:
            filters["exclude"] = ",".join(old)
        if re.search(r"latest\s+(release|version)", text, re.IGNORECASE) and releases:
            filters["version"] = max(releases, key=lambda version: tuple(map(int, version.split("."))))
    return filters


def day_before(iso: str) -> str:
    """The ISO date one day before `iso`.

    >>> day_before("2026-03-01")
    '2026-02-28'
    """
    return (date.fromisoformat(iso) - timedelta(days=1)).isoformat()
