"""Check a labels folder of your own (`python -m ragkit data check --data FOLDER --own`).

A labels folder is laid out as the course's `data/` (`ragkit.labels.folder`): documents in `corpus/`, `.md`
or `.txt`, front matter optional, and `queries.jsonl` and `judgments.jsonl` beside it. `check_own_data` reads the
documents as the judging widget does (`ragkit.corpus.read_folder` deriving what front matter lacks; each derived
field, and each file not loaded with its reason, comes back as a note, not a problem) and checks the queries and judgments with the course's own code
(`ragkit.labels.datacheck.check_queries`, `ragkit.labels.judgecheck.check_judgments`): unique ids, evidence
that names a known document (by its derived id too), quotes that occur exactly once, judgments that agree with
the evidence; a query, or a named part of one, that no passage answers yet (being judged, or none of its pool
answered) is a note, and so are a multi query answered within one document and a disagreement two judges kept
(`ragkit.labels.verdicts`). A folder that cannot be read (no `corpus/`, no document ragkit can read, two documents
with one id) raises a `RagkitError` of one line. Left out, as only the course's data is held to them: the course's
minimum sizes (documents, characters, sources, queries, queries per type), the dev/test balance of each query
type, full front matter, `.md` only, an id equal to the file name, and a recorded language-model file in `llm/`
that does not exist (the ones that exist are checked). Also left out: the query drafts (`llm/draft-prompts.jsonl`,
`llm/drafts/`: nothing is labelled from them) and the journal `verdicts.jsonl`
(`ragkit.labels.verdicts.replay_journal` rebuilds the labels from it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ragkit.corpus import load_queries
from ragkit.errors import RagkitError
from ragkit.labels import recordcheck
from ragkit.labels.datacheck import check_queries, content_problems
from ragkit.labels.datastats import data_statistics
from ragkit.labels.folder import derivation_notes, folder_documents, skipped_notes
from ragkit.labels.judgecheck import check_judgments
from ragkit.labels.verdicts import disagreement_notes

SKIPPED = ("a labels folder of your own: the course's minimum sizes and the dev/test balance of each query type "
           "are not checked, nor llm/ record files that do not exist")
HINT = "a labels folder of your own is checked with --own (front matter optional, no minimum sizes)"
COURSE_ONLY = ("fewer than the required", "queries, fewer than", ": no front matter", "front matter lacks",
               "no .md documents found")  # the course's problems that a folder of your own is not held to


def own_documents(folder: str | Path) -> tuple[dict[str, dict], list[str]]:
    """The documents of a labels folder as the judging widget reads them, as id → {meta, body, path} (the form
    the course's checks read), and a note for every document whose front matter lacked fields.

    >>> docs, notes = own_documents("data/demo-handbook")
    >>> len(docs), docs["release-checklist"]["meta"]["source"], notes[0].split(":")[0]
    (16, 'demo-handbook', 'incident-response.md')
    """
    loaded, skipped = folder_documents(folder)  # no document, a duplicate id: one line; unreadable files: skipped
    docs = {doc.doc_id: {"meta": {"id": doc.doc_id, "title": doc.title, "source": doc.source, "date": doc.date,
                                  "lang": doc.lang, "version": doc.version}, "body": doc.text, "path": doc.path}
            for doc in loaded}
    return docs, skipped_notes(skipped) + derivation_notes(loaded)


def document_problems(docs: dict[str, dict]) -> list[str]:
    """What is wrong with documents read with their front matter optional: a language the pipeline has no
    analyzer for, a date that is not ISO (filters compare dates), no body text.

    >>> document_problems({"faq": {"meta": {"lang": "fr", "date": "2026-01-02"}, "body": "Bonjour", "path": "faq.md"}})
    ["faq.md: lang must be 'en' or 'zh', got 'fr'"]
    """
    return [problem for doc in docs.values() for problem in content_problems(
        {**doc["meta"], "date": doc["meta"]["date"] or "0001-01-01"}, doc["body"], doc["path"])]  # undated is fine


def readable(path: Path) -> Path:
    """`path`, once it is known to read as UTF-8 text when it exists; else a `RagkitError` of one line.

    >>> readable(Path("no-such-file.jsonl")).name
    'no-such-file.jsonl'
    """
    try:
        if path.is_file():
            path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RagkitError(f"{path}: cannot read the file: {error}") from None
    return path


def check_own_data(folder: str | Path) -> tuple[list[str], list[str], dict]:
    """Every problem of a labels folder of your own (empty when it is valid), the notes of what was derived for
    documents without full front matter, and its statistics (as `ragkit.labels.datacheck.check_data` gives).

    >>> problems, notes, stats = check_own_data("data/demo-handbook")
    >>> problems, len(notes), stats["totals"]["queries"]
    ([], 6, 20)
    """
    folder = Path(folder)
    docs, notes = own_documents(folder)
    problems = document_problems(docs)
    records = check_queries(readable(folder / "queries.jsonl"), docs, problems, own=True)
    if readable(folder / "judgments.jsonl").is_file():
        check_judgments(folder / "judgments.jsonl", docs, records, problems)
    llm = folder / "llm"  # the recorded language-model files: only those that exist
    for variant in ("", "plain"):
        if (llm / variant / recordcheck.CONTEXTS_FILE).is_file():
            recordcheck.check_contexts(folder, problems, variant=variant)
    if any((llm / name).is_file() for name in (recordcheck.RERANK_FILE, recordcheck.REWRITE_FILE,
                                               recordcheck.TRANSLATE_FILE)):
        recordcheck.check_rerank_records(folder, problems)
    recordcheck.check_beir_rerank_records(folder, problems)
    notes += [note for record in records for note in answer_notes(record)] + disagreement_notes(folder)
    return problems, notes, data_statistics(docs, records)


def answer_notes(record: dict) -> list[str]:
    """What a query of your own still lacks: any answer at all (the eval command then leaves it out), an answer
    to one of its named parts (it then counts as a miss for every method), or, for a multi query, a second
    document among its answers.

    >>> answer_notes({"id": "q-1", "type": "multi", "parts": ["fee", "deadline"],
    ...               "evidence": [{"doc": "faq", "quote": "The fee is 5 euros.", "parts": [0]}]})[0]
    "q-1: part 2 of 2 ('deadline') has no passage judged as answering it yet"
    """
    evidence = [item for item in record.get("evidence") or [] if isinstance(item, dict)]
    if record.get("type") == "unanswerable":
        return []
    if not evidence:
        return [f"{record.get('id')}: no passage judged as answering it yet, so the eval command leaves it out"]
    parts = record.get("parts") if isinstance(record.get("parts"), list) else []
    answered = {part for item in evidence for part in item.get("parts") or [] if isinstance(part, int)}
    notes = [f"{record.get('id')}: part {n + 1} of {len(parts)} ({name!r}) has no passage judged as answering it yet"
             for n, name in enumerate(parts) if n not in answered]
    documents = sorted({str(item.get("doc")) for item in evidence})
    if record.get("type") == "multi" and len(documents) == 1:
        notes.append(f"{record.get('id')}: every passage answering it is in one document ({documents[0]}), so it "
                     "does not test combining documents as the course's multi queries do")
    return notes


def course_only(problems: Sequence[str]) -> bool:
    """Whether a course check failed in a way a labels folder of your own is not held to (minimum sizes,
    front matter, `.md` only): then `python -m ragkit data check` ends with `HINT`.

    >>> course_only(["data/x: 11 documents, fewer than the required 60"]), course_only(["q.jsonl:3: bad quote"])
    (True, False)
    """
    return any(marker in problem for problem in problems for marker in COURSE_ONLY)


def eval_warnings(folder: str | Path) -> list[str]:
    """What the eval command says before its figures on a folder with `corpus/`: each file not loaded, and how
    many problems `data check --own` finds (the figures still use the labels as they are). Other folders: none.

    >>> eval_warnings("data/demo-handbook"), eval_warnings("data/cranfield")
    ([], [])
    """
    if not (Path(folder) / "corpus").is_dir():
        return []
    problems, notes, _ = check_own_data(folder)
    return [note for note in notes if note.startswith("not loaded: ")] + ([
        f"the labels fail `data check --own` ({len(problems)} problems; the first: {problems[0]}): the figures "
        "below use them as they are"] if problems else [])


def unanswerable_in(folder: str | Path, split: str) -> int:
    """How many queries of `split` (`all`: every split) a folder with `corpus/` marks unanswerable; else 0.

    >>> unanswerable_in("data", "dev") > 0, unanswerable_in("data/cranfield", "test")
    (True, 0)
    """
    if not (path := Path(folder) / "queries.jsonl").is_file() or not (Path(folder) / "corpus").is_dir():
        return 0
    return sum(query.type == "unanswerable" for query in load_queries(path, None if split == "all" else split))
