"""Recording verdicts on your own folder: one at a time, journalled, with disagreements resolved or marked.

`record_verdict` writes one verdict through `ragkit.labels.record.record_verdicts`, the code of
`python -m ragkit data record`, under the folder's lock, and appends it to the journal `verdicts.jsonl` in the
same locked step. When it contradicts an earlier judge's verdict on the same passage it is refused with
`ConflictingVerdict`, which names the earlier verdicts; the judge then replaces the earlier verdict (a resolving
judgment, journalled with `"resolution": "replace"`) or keeps both (journalled with `"resolution": "keep both"`
and the earlier verdicts; the earlier one stays the label). `replay_journal` applies a journal to a copy of the
folder, one verdict at a time, as it was made, and must give back the folder's files byte for byte. Left out:
undoing a verdict (a resolving verdict replaces it) and agreement statistics (`ragkit.labels.agreement`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ragkit.corpus import Query, read_jsonl
from ragkit.errors import RagkitError
from ragkit.labels.files import JOURNAL, append_jsonl, folder_lock, write_jsonl
from ragkit.labels.record import ConflictingVerdict, record_verdicts

VERDICTS = {"answers": "yes", "partly answers": "part", "does not answer": "no"}  # the widget's words → data record's
RESOLUTIONS = (None, "replace", "keep both")


def record_verdict(folder: str | Path, query: Query | dict, doc: str, start: int, end: int, verdict: str,
                   judge: str, quote: str = "", part: int | None = None, resolution: str | None = None) -> dict[str, int]:
    """Write one verdict on the passage [start, end) of `doc` for `query` ("answers", "partly answers" with the
    `part` it answers, or "does not answer"), as `data record` would, and journal it, in one locked step. A verdict
    that contradicts an earlier one raises `ConflictingVerdict` (with the earlier verdicts) unless `resolution`
    says what to do: `replace` the earlier verdict, or `keep both` (the earlier stays the label; the disagreement
    is journalled, marked, for `disagreements` and `data check --own` to report).

    >>> record_verdict("data", {"id": "api-001"}, "api-error-codes", 0, 10, "maybe", "me")
    Traceback (most recent call last):
    ragkit.errors.RagkitError: verdict must be one of answers, partly answers, does not answer, got 'maybe'
    """
    if resolution not in RESOLUTIONS:
        raise RagkitError(f"resolution must be one of {', '.join(map(str, RESOLUTIONS))}, got {resolution!r}")
    if verdict not in VERDICTS:
        raise RagkitError(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    if not isinstance(judge, str) or not judge.strip():
        raise RagkitError("say who judges: the judge's name goes into every line")
    query_id = query.query_id if isinstance(query, Query) else query["id"]
    line = {"query": query_id, "doc": doc, "start": start, "end": end, "verdict": VERDICTS[verdict],
            "judge": judge.strip()}
    if verdict != "does not answer":
        line["quote"] = quote
    if verdict == "partly answers":
        if part is None:
            raise RagkitError("a passage that partly answers names the part it answers")
        line["parts"] = [part]
    where = f"{query_id} {doc} [{start}, {end})"
    if resolution != "keep both":
        return record_verdicts(folder, [(where, {**line, **({"resolution": resolution} if resolution else {})})],
                               replace=resolution == "replace", journal=JOURNAL)
    try:
        return record_verdicts(folder, [(where, line)], journal=JOURNAL)  # no conflict after all: an ordinary verdict
    except ConflictingVerdict as conflict:
        with folder_lock(folder):
            append_jsonl(Path(folder) / JOURNAL, [{**line, "resolution": "keep both", "earlier": conflict.earlier}])
        return {"kept both": 1}




def replay_journal(source: str | Path, target: str | Path) -> int:
    """Rebuild `source`'s labels in a new folder `target` from its documents, its queries as written (their
    evidence emptied) and its journal, applied one verdict at a time in the order they were made; returns how
    many verdicts were applied. The files that come out must equal `source`'s.

    >>> replay_journal("data/demo-handbook", "a-new-folder")  # doctest: +SKIP
    263
    """
    source, target = Path(source), Path(target)
    if target.exists():
        raise RagkitError(f"{target}: already exists: replay into a new folder")
    shutil.copytree(source / "corpus", target / "corpus")
    rows = [record for _, record in read_jsonl(source / "queries.jsonl")]
    write_jsonl(target / "queries.jsonl", [{**record, "evidence": []} for record in rows])
    lines = read_jsonl(source / JOURNAL)
    for number, line in lines:
        if line.get("resolution") == "keep both":  # a marked disagreement: journalled, not applied
            with folder_lock(target):
                append_jsonl(target / JOURNAL, [line])
            continue
        record_verdicts(target, [(f"{source / JOURNAL}:{number}", line)], replace=line.get("resolution") == "replace",
                        journal=JOURNAL)
    return len(lines)


def disagreements(folder: str | Path) -> list[dict]:
    """The journal's marked disagreements: verdicts kept beside an earlier, contradicting one.

    >>> disagreements("data/demo-handbook")
    []
    """
    path = Path(folder) / JOURNAL
    return [line for _, line in read_jsonl(path) if line.get("resolution") == "keep both"] if path.exists() else []


def disagreement_notes(folder: str | Path) -> list[str]:
    """One line per marked disagreement: the passage, the judges and their verdicts, and which one is the label.

    >>> disagreement_notes("data/demo-handbook")
    []
    """
    return [f"{line['query']}: {line['doc']} [{line['start']}, {line['end']}): judges disagree (both kept): "
            + ", ".join(f"{e['judge']} {e['verdict']}" for e in line.get("earlier", [])) + f" (the label), "
            f"{line['judge']} {line['verdict']}" for line in disagreements(folder)]
