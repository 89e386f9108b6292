"""Check the course data against its contract.

`check_data` reads `data/corpus/*.md` and `data/queries.jsonl` and returns every problem at once as
`file:line: what is wrong`, with the statistics of `ragkit.labels.datastats`. The command line is
`python -m ragkit data check --data data`. Left out: counting what is in the data
(`ragkit.labels.datastats`), a labels folder of your own (`--own`: `ragkit.labels.owncheck`), judging
whether a quote really answers its query (people do that: see the datasheet) and checking the prose.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from pathlib import Path

from ragkit.corpus import REQUIRED_FIELDS, load_documents, parse_front_matter
from ragkit.errors import RagkitError
from ragkit.index.filters import FILTER_KEYS, matches_filters
from ragkit.labels.datastats import data_statistics
from ragkit.labels.judgecheck import check_judgments
from ragkit.labels.recordcheck import check_beir_rerank_records, check_contexts, check_rerank_records
from ragkit.labels.versioncheck import outdated_evidence

QUERY_TYPES = ("keyword", "paraphrase", "context", "multi", "temporal", "multilingual", "unanswerable")


MINIMUMS = {"documents": 60, "characters": 150_000, "sources": 8, "zh_documents": 10, "queries": 240,
            "per_type": 20}


def check_documents(folder: Path, problems: list[str]) -> dict[str, dict]:
    """Parse every document, appending problems; returns id → {meta, body, path} for the good ones.

    >>> problems = []
    >>> check_documents(Path("no-such-folder"), problems), problems
    ({}, ['no-such-folder: no .md documents found'])
    """
    docs: dict[str, dict] = {}
    paths = sorted(folder.glob("*.md")) if folder.is_dir() else []
    if not paths:
        problems.append(f"{folder}: no .md documents found")
    for path in paths:
        raw = path.read_text(encoding="utf-8", errors="replace")
        try:
            meta, body, _ = parse_front_matter(raw, str(path))
        except RagkitError as error:
            problems.append(str(error))
            continue
        line_of = {key: n for n, line in enumerate(raw.split("\n")[:40], 1) for key in [line.partition(":")[0]]}
        for name in REQUIRED_FIELDS:
            if not meta.get(name):
                problems.append(f"{path}:1: front matter lacks {name!r}")
        doc_id = meta.get("id", "")
        if doc_id and doc_id != path.stem:
            problems.append(f"{path}:{line_of.get('id', 1)}: id {doc_id!r} differs from the file name {path.stem!r}")
        if doc_id in docs:
            problems.append(f"{path}:{line_of.get('id', 1)}: id {doc_id!r} is also used by {docs[doc_id]['path']}")
        problems += content_problems(meta, body, str(path), line_of)
        if doc_id and doc_id not in docs:
            docs[doc_id] = {"meta": meta, "body": body, "path": str(path)}
    return docs


def content_problems(meta: dict, body: str, path: str, line_of: dict[str, int] | None = None) -> list[str]:
    """A document's language the analyzers lack, a date that is not ISO (filters compare dates), an empty body;
    `line_of` gives a front-matter field's line.

    >>> content_problems({"lang": "fr", "date": "2026-01-02"}, "Bonjour", "faq.md")
    ["faq.md: lang must be 'en' or 'zh', got 'fr'"]
    """
    def where(field: str) -> str:
        return f"{path}:{line_of.get(field, 1)}" if line_of is not None else path

    problems = [] if meta.get("lang") in ("en", "zh") else [
        f"{where('lang')}: lang must be 'en' or 'zh', got {meta.get('lang')!r}"]
    try:
        date.fromisoformat(meta.get("date", ""))
    except ValueError:
        problems.append(f"{where('date')}: date must be ISO YYYY-MM-DD, got {meta.get('date')!r}")
    return problems + ([] if body.strip() else [f"{path}: the document has no body text"])


class _Meta:
    """Adapter so `matches_filters` can read a document's front matter."""

    def __init__(self, meta: dict):
        self.date, self.version = meta.get("date", ""), meta.get("version")
        self.source, self.lang = meta.get("source", ""), meta.get("lang", "")


def check_query(record: dict, where: str, docs: dict[str, dict], problems: list[str], own: bool = False) -> None:
    """Append every problem of one query record (`own`: a query without evidence yet, or a multi query whose parts
    are answered in one document or not all yet, is no problem: `ragkit.labels.owncheck` notes what is missing).

    >>> problems = []
    >>> check_query({"id": "q", "text": "x", "lang": "en", "type": "keyword", "split": "dev", "answer": "",
    ...              "evidence": []}, "q.jsonl:1", {}, problems)
    >>> problems
    ['q.jsonl:1: a keyword query needs evidence']
    """
    for name in ("id", "text", "lang", "type", "split", "answer"):
        if not isinstance(record.get(name), str) or (name != "answer" and not record[name].strip()):
            problems.append(f"{where}: field {name!r} is missing or not a string")
    kind = record.get("type")
    if kind not in QUERY_TYPES:
        problems.append(f"{where}: type {kind!r} is not one of {', '.join(QUERY_TYPES)}")
    if record.get("split") not in ("dev", "test"):
        problems.append(f"{where}: split must be 'dev' or 'test', got {record.get('split')!r}")
    if record.get("lang") not in ("en", "zh"):
        problems.append(f"{where}: lang must be 'en' or 'zh', got {record.get('lang')!r}")
    evidence = record.get("evidence")
    if not isinstance(evidence, list):
        problems.append(f"{where}: evidence must be a list")
        return
    if kind == "unanswerable" and evidence:
        problems.append(f"{where}: an unanswerable query must have no evidence")
    if kind != "unanswerable" and not evidence and not own:
        problems.append(f"{where}: a {kind} query needs evidence")
    written = [item for item in evidence if isinstance(item, dict) and item.get("origin", "written") == "written"]
    if kind == "multi" and len({item.get("doc") for item in written}) < 2 and not own:
        problems.append(f"{where}: a multi query needs written evidence from at least two documents")
    named = record.get("parts")  # a query labelled in notebook 12's widget names its parts; else one per quote
    n_parts = len(named) if isinstance(named, list) and named else len(written)
    for item in evidence:
        parts = item.get("parts", []) if isinstance(item, dict) else []
        if item not in written and not parts or not all(isinstance(p, int) and 0 <= p < n_parts for p in parts):
            problems.append(f"{where}: evidence parts {parts} must name the query's parts (0 to {n_parts - 1}); "
                            "pooled evidence must name at least one")
        if isinstance(item, dict) and item.get("origin", "written") not in ("written", "pooled", "review"):
            problems.append(f"{where}: evidence origin must be written, pooled or review, got {item.get('origin')!r}")
    filters = record.get("filters") or {}
    if not isinstance(filters, dict) or set(filters) - set(FILTER_KEYS):
        problems.append(f"{where}: filters must be an object with keys among {', '.join(FILTER_KEYS)}")
        filters = {}
    for item in evidence:
        if not isinstance(item, dict) or not isinstance(item.get("doc"), str) or not isinstance(item.get("quote"), str):
            problems.append(f"{where}: each evidence item needs string fields 'doc' and 'quote'")
            continue
        doc = docs.get(item["doc"])
        if doc is None:
            problems.append(f"{where}: evidence names unknown document {item['doc']!r}")
            continue
        count = doc["body"].count(item["quote"]) if item["quote"] else 0
        if count != 1:
            problems.append(f"{where}: quote occurs {count} times in {item['doc']} (must be once): {item['quote'][:60]!r}")
        if filters and item in written and not matches_filters(_Meta(doc["meta"]), filters):
            problems.append(f"{where}: filters {filters} exclude evidence document {item['doc']}")


def check_queries(path: Path, docs: dict[str, dict], problems: list[str], own: bool = False) -> list[dict]:
    """Check every query line, appending problems (`own`: as `check_query`); returns the records that parsed.

    >>> problems = []
    >>> check_queries(Path("missing.jsonl"), {}, problems), problems
    ([], ['missing.jsonl: no such file'])
    """
    if not path.is_file():
        problems.append(f"{path}: no such file")
        return []
    records, seen = [], {}
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{where}: not valid JSON ({error.msg})")
            continue
        if not isinstance(record, dict):
            problems.append(f"{where}: expected a JSON object")
            continue
        if record.get("id") in seen:
            problems.append(f"{where}: id {record.get('id')!r} repeats line {seen[record.get('id')]}")
        seen[record.get("id")] = number
        check_query(record, where, docs, problems, own)
        records.append(record)
    return records


def check_data(folder: str | Path, minimums: dict | None = None) -> tuple[list[str], dict]:
    """All problems in a course data folder (empty when it is valid), and its statistics.

    >>> problems, stats = check_data("data")  # doctest: +SKIP
    >>> problems  # doctest: +SKIP
    []
    """
    folder, minimums = Path(folder), {**MINIMUMS, **(minimums or {})}
    problems: list[str] = []
    docs = check_documents(folder / "corpus", problems)
    records = check_queries(folder / "queries.jsonl", docs, problems)
    if (folder / "judgments.jsonl").is_file():  # the passages judged not relevant by pooling
        check_judgments(folder / "judgments.jsonl", docs, records, problems)
        problems += outdated_evidence(records, load_documents(folder / "corpus"))  # pooled quotes meet the version rule
    stats = data_statistics(docs, records)
    if (folder / "llm").is_dir():  # the recorded language-model responses of notebook 07
        check_contexts(folder, problems)
        if (folder / "llm" / "plain").is_dir():  # Anthropic's prompt alone (context="llm-plain")
            check_contexts(folder, problems, variant="plain")
        check_rerank_records(folder, problems)
        check_beir_rerank_records(folder, problems)
    totals = stats["totals"]
    for name, value in totals.items():
        if name in minimums and value < minimums[name]:
            problems.append(f"{folder}: {value} {name.replace('_', ' ')}, fewer than the required {minimums[name]}")
    by_type = Counter((r.get("type"), r.get("split")) for r in records)
    for kind in QUERY_TYPES:
        dev, test = by_type[(kind, "dev")], by_type[(kind, "test")]
        if dev + test < minimums["per_type"]:
            problems.append(f"{folder}/queries.jsonl: {dev + test} {kind} queries, fewer than {minimums['per_type']}")
        if abs(dev - test) > max(2, (dev + test) // 10):
            problems.append(f"{folder}/queries.jsonl: {kind} queries are split {dev} dev / {test} test, not about half each")
    return problems, stats
