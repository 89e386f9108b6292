"""Check the judgments file: every passage judged not relevant exists, and none is also judged relevant.

`data/judgments.jsonl` holds one passage a line that a judge found does not answer a query (`query`, `doc`,
`start`, `end` over the document body, `relevant` false, the judge's `verdict` and who the `judge` was).
Passages found relevant are evidence quotes in `queries.jsonl` instead. A passage is judged both ways when a
not-relevant span covers at least half of one of that query's evidence quotes (the rule that makes a chunk
relevant). Left out: agreement between judges (each passage was judged once).
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
    count = 0
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
        for item in query.get("evidence", []):
            if item.get("doc") != judgment["doc"] or item.get("quote", "") not in doc["body"]:
                continue
            quote_start = doc["body"].index(item["quote"])
            quote_end = quote_start + len(item["quote"])
            if (min(end, quote_end) - max(start, quote_start)) * 2 >= quote_end - quote_start:
                problems.append(f"{where}: passage [{start}, {end}) of {judgment['doc']} is judged not relevant "
                                f"but covers its evidence {item['quote'][:40]!r}")
    return count
