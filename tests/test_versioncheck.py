"""The version rule as a data check: the two outdated quotes the fourth-round audit found come back as problems,
and a quote about the past from a later document (a migration guide describing v1) is no problem."""

import json

from ragkit.corpus import load_documents
from ragkit.labels.versioncheck import outdated_evidence

FAQ_30_DAYS = {"doc": "fin-billing-faq", "quote": "Only if they cancel within the first 30 days of the term; then they receive a",
               "parts": [0], "origin": "pooled"}
FAQ_8_DAYS = {"doc": "zh-faq-new-hires", "quote": "公司福利年假入职当年就有 5 天，之后每满一年加 1 天，最多 8 天。", "parts": [0],
              "origin": "pooled"}


def test_the_course_data_meets_the_version_rule_and_the_audits_quotes_would_not(root, course_docs):
    records = [json.loads(line) for line in (root / "data/queries.jsonl").read_text(encoding="utf-8").splitlines()]
    assert outdated_evidence(records, course_docs) == []
    by_id = {record["id"]: record for record in records}
    planted = [{**by_id["fin-047"], "evidence": [*by_id["fin-047"]["evidence"], FAQ_30_DAYS]},
               {**by_id["zh-028"], "evidence": [*by_id["zh-028"]["evidence"], FAQ_8_DAYS]}]
    problems = outdated_evidence(planted, course_docs)
    assert len(problems) == 2 and "fin-047: quote from fin-billing-faq (dated 2025-02-20)" in problems[0]
    assert "older than the query's date_from 2026-01-01" in problems[1]


def test_a_now_cue_rules_out_a_superseded_document_but_not_a_later_one(root):
    docs = load_documents(root / "data/corpus")
    old = {"doc": "hr-remote-work-2024", "quote": "work from the office at least **3 days a week**"}
    new = {"doc": "hr-remote-work-2026", "quote": "Minimum in-office attendance drops from three days to two days a week."}
    now = {"id": "q", "text": "office days per week now", "evidence": [old, new]}
    assert outdated_evidence([now], docs) == [
        "queries.jsonl: q: quote from hr-remote-work-2024, which a newer document supersedes, for a query about now: "
        "'work from the office at least **3 days a week**'"]
    assert outdated_evidence([{**now, "text": "office days per week in 2024"}], docs) == [], "a question about 2024"
