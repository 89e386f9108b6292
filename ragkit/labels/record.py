"""Record a judging round: a judge's verdicts become pooled quotes and judged-not-relevant passages.

`record_verdicts` applies the protocol of `data/README.md` ("Pooled judgments") to verdict lines
`{"query", "doc", "start", "end", "verdict", "quote", "judge"}` (a unit that `python -m ragkit data pool`
printed, plus the judge's verdict): a `yes` becomes a pooled quote, extended within its passage until it occurs
once in the document, answering every part; a `part` on a query with several parts answers the parts named in
`parts`, or else the part whose written quote is closest in embedding space (a heuristic, and the data README
says so); a `part` on a one-part query and a `no` go to `judgments.jsonl`. Every line is checked before
anything is written and both files are replaced whole (written to a temporary file, then renamed), so a bad line
or a crash loses nothing; an exclusive lock on the folder (`ragkit.labels.files`) keeps two writers at once
(two judging widgets, or a widget and this command) from losing each other's verdicts. A verdict that contradicts an earlier
one for the same passage is refused unless `replace` is set (how a third judge's resolution is applied). A query
that lists its `parts` by name (the judging widget writes such queries) has that many parts. Left out: running
the judges, merging several judges' verdicts (resolve first), and locks on systems without `fcntl` (Windows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ragkit.corpus import load_documents, read_jsonl
from ragkit.errors import RagkitError
from ragkit.labels.files import append_jsonl, folder_lock, write_jsonl

VERDICTS = ("yes", "part", "no")
FIELDS = ("query", "doc", "start", "end", "verdict", "judge")


class ConflictingVerdict(RagkitError):
    """A verdict that contradicts an earlier one on the same passage; `earlier` holds the earlier verdicts
    (`judge`, `verdict`), so a judging widget can show them and offer a resolution."""

    def __init__(self, message: str, earlier: list[dict]):
        super().__init__(message)
        self.earlier = earlier


def covers_half(start: int, end: int, quote_start: int, quote_end: int) -> bool:
    """Does [start, end) overlap at least half of [quote_start, quote_end)? (The rule of relevance.)

    >>> covers_half(0, 10, 5, 15), covers_half(0, 10, 6, 16)
    (True, False)
    """
    return (min(end, quote_end) - max(start, quote_start)) * 2 >= quote_end - quote_start


def unique_quote(body: str, start: int, end: int, quote: str) -> str:
    """`quote` as found inside body[start:end], extended within that passage until it occurs once in `body`.

    >>> unique_quote("a b. a b. a b c.", 10, 16, "a b")
    'a b '
    """
    left = body.find(quote, start, end)
    right = left + len(quote)
    while body.count(body[left:right]) > 1:
        if left == start and right == end:
            raise RagkitError(f"the passage [{start}, {end}) occurs more than once: no quote in it is unique")
        left, right = (left, right + 1) if right < end else (left - 1, right)
    return body[left:right]


def line_problem(record: dict, bodies: dict[str, str], queries: dict[str, dict]) -> str | None:
    """What is wrong with one verdict line, or None.

    >>> line_problem({"query": "q9", "doc": "d", "start": 0, "end": 4, "verdict": "no", "judge": "me"},
    ...              {"d": "text"}, {"q1": {}})
    "unknown query 'q9'"
    """
    missing = [name for name in FIELDS if name not in record]
    if record.get("verdict") in ("yes", "part") and not isinstance(record.get("quote"), str):
        missing.append("quote")
    if missing:
        return f"missing {', '.join(missing)}"
    if record["query"] not in queries:
        return f"unknown query {record['query']!r}"
    body = bodies.get(record["doc"])
    if body is None:
        return f"unknown document {record['doc']!r}"
    start, end = record["start"], record["end"]
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(body)):
        return f"span [{start}, {end}) is not inside {record['doc']} ({len(body)} characters)"
    if record["verdict"] not in VERDICTS:
        return f"verdict must be one of {', '.join(VERDICTS)}, got {record['verdict']!r}"
    if record["verdict"] != "no" and (len(record["quote"]) < 3 or body.find(record["quote"], start, end) < 0):
        return f"the quote {record['quote'][:40]!r} does not occur inside the passage [{start}, {end})"
    return None


def evidence_spans(query: dict, bodies: dict[str, str]) -> list[tuple[int, dict, int, int]]:
    """(index, item, start, end) of each evidence quote of a query record."""
    spans = []
    for index, item in enumerate(query.get("evidence", [])):
        found = bodies[item["doc"]].find(item["quote"])
        spans.append((index, item, found, found + len(item["quote"])))
    return spans


def written_parts(query: dict) -> int:
    """How many parts a query has: one per name in its `parts`, else one per written quote.

    >>> written_parts({"evidence": [{"quote": "a"}, {"quote": "b", "origin": "pooled"}]})
    1
    """
    if isinstance(query.get("parts"), list) and query["parts"]:
        return len(query["parts"])
    return sum(item.get("origin", "written") == "written" for item in query.get("evidence", []))


def record_verdicts(folder: str | Path, lines: Sequence[tuple[str, dict]], replace: bool = False,
                    closest_part: Callable[[dict, str], int] | None = None, journal: str | None = None) -> dict[str, int]:
    """Apply verdict lines ((where, record) pairs) to `<folder>/queries.jsonl` and `<folder>/judgments.jsonl`
    under the folder's lock; returns what was done. Any bad line raises one `RagkitError` naming every bad line,
    and nothing is written. With `journal` (a file name in the folder), the applied lines are appended to it too.

    >>> record_verdicts("data", [("f:1", {"query": "nope"})])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ragkit.errors.RagkitError: f:1: missing doc, start, end, verdict, judge
    """
    with folder_lock(folder):
        done = apply_verdicts(Path(folder), lines, replace, closest_part)
        if journal:
            append_jsonl(Path(folder) / journal, [record for _, record in lines])
    return done


def apply_verdicts(folder: Path, lines: Sequence[tuple[str, dict]], replace: bool,
                   closest_part: Callable[[dict, str], int] | None) -> dict[str, int]:
    """`record_verdicts` without the lock: the caller holds it."""
    bodies = {doc.doc_id: doc.text for doc in load_documents(folder / "corpus")}
    query_rows = [record for _, record in read_jsonl(folder / "queries.jsonl")]
    queries = {record["id"]: record for record in query_rows}
    judgments_path = folder / "judgments.jsonl"
    judged = [record for _, record in read_jsonl(judgments_path)] if judgments_path.is_file() else []
    problems = [f"{where}: {problem}" for where, record in lines
                if (problem := line_problem(record, bodies, queries)) is not None]
    if problems:
        raise RagkitError("\n".join(problems))
    done = {"quotes added": 0, "judged not relevant": 0, "already recorded": 0, "replaced": 0}
    conflicts, earlier = [], []  # verdicts that contradict earlier ones: resolvable with `replace`
    relevant = [(w, r) for w, r in lines if r["verdict"] == "yes" or
                r["verdict"] == "part" and written_parts(queries[r["query"]]) > 1]
    for where, record in relevant:
        query, body = queries[record["query"]], bodies[record["doc"]]
        quote = unique_quote(body, record["start"], record["end"], record["quote"])
        start = body.find(quote)
        spans = evidence_spans(query, bodies)
        clash = [j for j in judged if j["query"] == record["query"] and j["doc"] == record["doc"]
                 and covers_half(j["start"], j["end"], start, start + len(quote))]
        if any(item["doc"] == record["doc"] and (covers_half(s, e, start, start + len(quote)) or
                                                 covers_half(start, start + len(quote), s, e))
               for _, item, s, e in spans):
            done["already recorded"] += 1
            if replace:  # the quote is evidence already: a resolving yes clears the passages judged otherwise
                judged = [j for j in judged if not any(j is c for c in clash)]
                done["replaced"] += len(clash)
            continue
        if clash and not replace:
            conflicts.append(f"{where}: {record['query']} was judged not relevant here by {clash[0]['judge']}; "
                             "pass --replace to apply a resolving judgment")
            earlier += [{"judge": j["judge"], "verdict": j.get("verdict", "no")} for j in clash]
            continue
        judged = [j for j in judged if not any(j is c for c in clash)]
        done["replaced"] += len(clash)
        n_parts = written_parts(query)
        if record["verdict"] == "yes":
            parts = list(range(n_parts))
        else:
            parts = record.get("parts") or [(closest_part or embedding_closest_part)(query, quote)]
        query["evidence"].append({"doc": record["doc"], "quote": quote, "parts": sorted(parts),
                                  "origin": "pooled", "judge": record["judge"]})
        done["quotes added"] += 1
    taken = {id(record) for _, record in relevant}
    for where, record in lines:
        if id(record) in taken:
            continue
        query, key = queries[record["query"]], (record["query"], record["doc"], record["start"], record["end"])
        if any((j["query"], j["doc"], j["start"], j["end"]) == key for j in judged):
            done["already recorded"] += 1
            continue
        covered = [(i, item) for i, item, s, e in evidence_spans(query, bodies)
                   if item["doc"] == record["doc"] and covers_half(record["start"], record["end"], s, e)]
        if covered and not replace:
            message = (f"{where}: {record['query']} has evidence in this passage ({covered[0][1]['quote'][:40]!r}); "
                       "pass --replace to apply a resolving judgment")
            written = any(item.get("origin", "written") == "written" for _, item in covered)
            (problems if written else conflicts).append(message)  # a written quote is no judge's verdict
            earlier += [{"judge": item.get("judge", "?"), "verdict": "yes" if len(set(item.get("parts") or [0])) >=
                         written_parts(query) else "part"} for _, item in covered]
            continue
        if any(item.get("origin", "written") == "written" for _, item in covered):
            problems.append(f"{where}: the passage holds a written quote of {record['query']}: a judgment "
                            "cannot replace the query writer's evidence; edit queries.jsonl by hand")
            continue
        query["evidence"] = [item for i, item in enumerate(query["evidence"]) if i not in {c for c, _ in covered}]
        done["replaced"] += len(covered)
        judged.append({"query": record["query"], "doc": record["doc"], "start": record["start"],
                       "end": record["end"], "relevant": False, "verdict": record["verdict"],
                       "judge": record["judge"]})
        done["judged not relevant"] += 1
    if problems or conflicts:
        raise RagkitError("\n".join(problems + conflicts)) if problems else \
            ConflictingVerdict("\n".join(conflicts), earlier)
    write_jsonl(folder / "queries.jsonl", query_rows)
    write_jsonl(judgments_path, sorted(judged, key=lambda j: (j["query"], j["doc"], j["start"], j["end"])))
    return done


def embedding_closest_part(query: dict, quote: str) -> int:
    """The part whose written quote is closest to `quote` in the course model's embedding space."""
    from ragkit.embed.model import Encoder

    written = [item["quote"] for item in query["evidence"] if item.get("origin", "written") == "written"]
    vectors = Encoder().encode([quote, *written])
    return int((vectors[1:] @ vectors[0]).argmax())


def read_verdicts(path: str | Path) -> list[tuple[str, dict]]:
    """(file:line, record) for every line of a verdicts file."""
    return [(f"{path}:{number}", record) for number, record in read_jsonl(path)]
