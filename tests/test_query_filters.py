"""Filters derived from the query text: each cue on its own, on the course's temporal queries (whose labelled
filters are the parser's test set), and through exact search and Chroma alike."""

import pytest

from ragkit.corpus import Document
from ragkit.index.filters import filter_mask, matches_filters
from ragkit.index.query_filters import parse_filters, superseded

DOCS = [
    Document("chg-5-2", "5.2 notes", "changelog", "2026-03-03", "en", "", version="5.2"),
    Document("chg-5-3", "5.3 notes", "changelog", "2026-09-15", "en", "", version="5.3"),
    Document("chg-4-0", "4.0 notes", "changelog", "2024-01-23", "en", "", version="4.0"),
    Document("chg-5-0", "5.0 notes", "changelog", "2025-06-10", "en", "", version="5.0"),
    Document("api-webhooks-v1", "Webhooks v1", "api-reference", "2024-02-01", "en", "", version="1"),
    Document("api-webhooks-v2", "Webhooks v2", "api-reference", "2025-01-20", "en", "", version="2"),
    Document("hr-remote-2024", "Remote", "hr-policy", "2024-02-12", "en", ""),
    Document("hr-remote-2026", "Remote", "hr-policy", "2026-01-20", "en", ""),
]


@pytest.mark.parametrize(("text", "expected"), [
    ("what got removed in 5.2", {"version": "5.2"}),
    ("session idle timeout before 5.3", {"date_to": "2026-09-14"}),
    ("webhook timeout since 5.2", {"date_from": "2026-03-03"}),
    ("rollback on sync 4.x", {"date_from": "2024-01-23", "date_to": "2025-06-09"}),
    ("which header did api v1 use", {"version": "1"}),
    ("core hours 2024 policy", {"date_from": "2024-01-01", "date_to": "2024-12-31"}),
    ("did we hit the mid-2025 target", {"date_from": "2025-01-01", "date_to": "2025-12-31"}),
    ("budget before the 2026 plan", {"date_to": "2025-12-31"}),
    ("incidents 2025 vs 2026", {}),
    ("core hours", {}),
    ("is home internet still reimbursed", {"exclude": "api-webhooks-v1,hr-remote-2024"}),
    ("what did the latest release deprecate", {"exclude": "api-webhooks-v1,hr-remote-2024", "version": "5.3"}),
    ("现在的核心时间", {"exclude": "api-webhooks-v1,hr-remote-2024"}),
])
def test_each_cue(text, expected):
    assert parse_filters(text, DOCS) == expected


def test_superseded_documents_are_the_older_members_of_a_family():
    assert superseded(DOCS) == ["api-webhooks-v1", "hr-remote-2024"]
    assert superseded(DOCS[:4]) == [], "releases are not versions of one another"


def test_exclude_filter_drops_the_listed_documents():
    mask = filter_mask(DOCS, {"exclude": "api-webhooks-v1,hr-remote-2024"})
    assert mask.tolist() == [True, True, True, True, False, True, False, True]


def test_on_the_course_temporal_queries(course_docs, course_queries):
    by_id = {doc.doc_id: doc for doc in course_docs}
    temporal = [q for q in course_queries if q.type == "temporal"]
    keeps, same = 0, 0
    for query in temporal:
        parsed = parse_filters(query.text, course_docs)
        written = [item.doc for item in query.evidence if item.origin == "written"]
        keeps += all(matches_filters(by_id[doc], parsed) for doc in written)
        same += ({d.doc_id for d in course_docs if matches_filters(d, parsed)}
                 == {d.doc_id for d in course_docs if matches_filters(d, query.filters)})
    assert (len(temporal), keeps, same) == (45, 43, 27), "the figures notebook 03 and data/README.md quote"
    assert all(parse_filters(q.text, course_docs) for q in temporal), "every temporal query has a cue"
