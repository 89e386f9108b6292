"""Check the judgments file: every passage judged not relevant exists, and none is also judged relevant.

`data/judgments.jsonl` holds one passage a line that a judge found does not answer a query (`query`, `doc`,
`start`, `end` over the document body, `relevant` false, the judge's `verdict` and who the `judge` was).
Passages found relevant are evidence quotes in `queries.jsonl` instead. A passage is judged both ways when a
not-relevant span covers at least half of one of that query's evidence quotes (the rule that makes a chunk
relevant). `inconsistent_verdicts` flags a passage judged not relevant to one query that holds the evidence of
another query sharing evidence with it. Left out: agreement between judges (`data/README.md` reports a second
judge's sample).
"""

from __future__ import annotations

import json
from pathlib import Path

REQUIRED = ("query", "doc", "start", "end", "relevant", "verdict", "judge")


def check_judgments(path: Path, docs: dict[str, dict], records: list[dict], problems: list[str]) -> int:
    """Append every problem of the judgments file; returns the number of judgments read.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "j.jsonl").write_text('{"query": "q", "doc": "d", "start": 0, "end": 9, "relevant": false, '
    ...                                     '"verdict": "no", "judge": "me"}\\n')
    >>> problems = []
    >>> check_judgments(folder / "j.jsonl", {"d": {"body": "Keys rotate every 90 days."}},
    ...                 [{"id": "q", "evidence": [{"doc": "d", "quote": "Keys rotate"}]}], problems)
    1
    >>> problems[0].endswith("judged not relevant but covers its evidence 'Keys rotate'")
    True
    """
    queries = {record.get("id"): record for record in records}
    count, good = 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        where, count = f"{path}:{number}", count + 1
        try:
            judgment = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{where}: not valid JSON ({error.msg})")
            continue
        missing = [name for name in REQUIRED if name not in judgment]
        if missing:
            problems.append(f"{where}: missing {', '.join(missing)}")
            continue
        query, doc = queries.get(judgment["query"]), docs.get(judgment["doc"])
        start, end = judgment["start"], judgment["end"]
        if query is None or doc is None:
            problems.append(f"{where}: unknown {'query' if query is None else 'document'} "
                            f"{judgment['query'] if query is None else judgment['doc']!r}")
            continue
        if judgment["relevant"] is not False:
            problems.append(f"{where}: only passages judged not relevant belong here (relevant ones are evidence)")
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(doc["body"])):
            problems.append(f"{where}: span [{start}, {end}) is not inside {judgment['doc']} "
                            f"({len(doc['body'])} characters)")
            continue
        good.append(judgment)
        for item in query.get("evidence", []):
            if item.get("doc") != judgment["doc"] or item.get("quote", "") not in doc["body"]:
                continue
            quote_start = doc["body"].index(item["quote"])
            quote_end = quote_start + len(item["quote"])
            if (min(end, quote_end) - max(start, quote_start)) * 2 >= quote_end - quote_start:
                problems.append(f"{where}: passage [{start}, {end}) of {judgment['doc']} is judged not relevant "
                                f"but covers its evidence {item['quote'][:40]!r}")
    problems.extend(f"{path}: {problem}" for problem in
                    inconsistent_verdicts(good, records, {name: doc["body"] for name, doc in docs.items()}))
    return count


def evidence_by_doc(records: list[dict], bodies: dict[str, str]) -> dict[str, list[tuple[str, int, int, str]]]:
    """doc → (query, start, end, quote) of every evidence quote found in that document's body."""
    spans: dict[str, list[tuple[str, int, int, str]]] = {}
    for record in records:
        for item in record.get("evidence", []):
            body = bodies.get(item.get("doc"), "")
            found = body.find(item.get("quote") or "\0")
            if found >= 0:
                spans.setdefault(item["doc"], []).append((record["id"], found, found + len(item["quote"]),
                                                          item["quote"]))
    return spans


def inconsistent_verdicts(judgments: list[dict], records: list[dict], bodies: dict[str, str]) -> list[str]:
    """A problem for every passage judged not relevant to query B that holds an evidence quote of query A,
    when A and B share evidence (an overlapping quote): two queries that ask the same thing got opposite
    verdicts on the same words. A judgment that names A in `distinct_from` (with its reason in `judge`) was
    checked by hand and is not flagged.

    >>> bodies = {"d": "Sign with HMAC-SHA256 over a timestamp and the body. Other text here."}
    >>> records = [{"id": "a", "evidence": [{"doc": "d", "quote": "HMAC-SHA256 over a timestamp"}]},
    ...            {"id": "b", "evidence": [{"doc": "d", "quote": "Sign with HMAC-SHA256"}]}]
    >>> inconsistent_verdicts([{"query": "b", "doc": "d", "start": 10, "end": 52}], records, bodies)[0].split(", which")[0]
    "b: passage [10, 52) of d is judged not relevant, but holds the evidence 'HMAC-SHA256 over a timestamp' of a"
    """
    spans = evidence_by_doc(records, bodies)
    shared: dict[str, set[str]] = {}
    for items in spans.values():
        for query_a, start_a, end_a, _ in items:
            for query_b, start_b, end_b, _ in items:
                if query_a != query_b and min(end_a, end_b) > max(start_a, start_b):
                    shared.setdefault(query_a, set()).add(query_b)
    problems = []
    for judgment in judgments:
        query_b, doc = judgment["query"], judgment["doc"]
        for query_a, start, end, quote in spans.get(doc, []):
            if query_a in shared.get(query_b, ()) and query_a not in judgment.get("distinct_from", ()) and \
                    (min(judgment["end"], end) - max(judgment["start"], start)) * 2 >= end - start:
                problems.append(f"{query_b}: passage [{judgment['start']}, {judgment['end']}) of {doc} is judged "
                                f"not relevant, but holds the evidence {quote[:40]!r} of {query_a}, which shares "
                                f"evidence with {query_b}: judge both the same way, or name {query_a} in "
                                "distinct_from with the reason")
                break
    return problems
