"""Answer keys: for every answerable query, per part, the short facts a right answer must contain.

`data/answer-keys.jsonl` holds one line per answerable dev and test query: `id` and `parts`, each part with
`keys` (1 to 3 alternatives, each found in an evidence quote of that part after SQuAD normalisation),
`also` (other renderings of the same fact, for example in the other language, not in any quote) and
`quote_no` (the evidence the first key comes from). An unanswerable query has no keys: its right answer is a
refusal. `check_answer_keys` is what `data check` runs. Left out: keys for facts that no quote states (a key
must be traceable), and weights between parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ragkit.corpus import Query, read_jsonl
from ragkit.errors import RagkitError
from ragkit.generate.grade import contains_key


def query_parts(query: Query) -> dict[int, list[int]]:
    """part → the numbers of the evidence quotes that answer it (an evidence without parts answers its own
    position's part, as in `ragkit.evaluate.relevance`).

    >>> from ragkit.corpus import Evidence
    >>> query_parts(Query("q", "x", "en", "multi", "dev", (Evidence("a", "A"), Evidence("b", "B"), Evidence("c", "C", parts=(0,))), ""))
    {0: [0, 2], 1: [1]}
    """
    parts: dict[int, list[int]] = {}
    for number, evidence in enumerate(query.evidence):
        for part in evidence.parts or (number,):
            parts.setdefault(part, []).append(number)
    return dict(sorted(parts.items()))


def load_answer_keys(path: str | Path) -> dict[str, list[list[str]]]:
    """query id → one list of accepted strings (keys, then `also`) per part, in part order.

    >>> keys = load_answer_keys("data/answer-keys.jsonl")
    >>> all(parts and all(part for part in parts) for parts in keys.values())
    True
    """
    keys = {}
    for number, record in read_jsonl(path):
        try:
            parts = sorted(record["parts"], key=lambda part: part["part"])
            keys[record["id"]] = [list(part["keys"]) + list(part.get("also", [])) for part in parts]
        except (KeyError, TypeError):
            raise RagkitError(f"{path}:{number}: an answer key needs 'id' and 'parts' with 'part' and 'keys'") from None
    return keys


def check_answer_keys(path: str | Path, queries: Sequence[Query]) -> list[str]:
    """Every problem with the answer keys: a missing or unknown query, a part that does not match the query's
    parts, an empty part, a key that is not in an evidence quote of its part, or a key for an unanswerable query.

    >>> check_answer_keys("data/answer-keys.jsonl", [])[:1]
    ['data/answer-keys.jsonl: keys for a query that is not in queries.jsonl: api-001']
    """
    problems, seen = [], set()
    by_id = {query.query_id: query for query in queries}
    for number, record in read_jsonl(path):
        where, query_id = f"{path}:{number}", record.get("id")
        if query_id not in by_id:
            problems.append(f"{path}: keys for a query that is not in queries.jsonl: {query_id}")
            continue
        if query_id in seen:
            problems.append(f"{where}: {query_id} has keys twice")
        seen.add(query_id)
        query = by_id[query_id]
        if not query.evidence:
            problems.append(f"{where}: {query_id} is unanswerable: its right answer is a refusal, not a key")
            continue
        parts = query_parts(query)
        given = {part.get("part"): part for part in record.get("parts", []) if isinstance(part, dict)}
        if sorted(given) != sorted(parts):
            problems.append(f"{where}: {query_id} has parts {sorted(parts)}, the keys give {sorted(given, key=str)}")
            continue
        for part, quotes in parts.items():
            keys = given[part].get("keys")
            if not isinstance(keys, list) or not keys or not all(isinstance(key, str) and key.strip() for key in keys):
                problems.append(f"{where}: {query_id} part {part} needs 1 or more non-empty keys")
                continue
            for key in keys:
                if not any(contains_key(query.evidence[n].quote, key) for n in quotes):
                    problems.append(f"{where}: {query_id} part {part}: key {key!r} is in no evidence quote of that part")
    missing = [q.query_id for q in queries if q.evidence and q.split in ("dev", "test") and q.query_id not in seen]
    if missing:
        problems.append(f"{path}: {len(missing)} answerable queries have no answer keys, first {missing[0]}")
    return problems
