"""Check the recorded language-model responses in `data/llm/` against the chunks they were written for.

The situating contexts of notebook 07 were recorded for the chunkings in `RECORDED_CHUNKINGS` (chunk size,
overlap). Every chunk of each must have exactly one recorded context, filed under the key of its prompt, and
each context must be 1 to 3 sentences. The rerank scores and query rewrites of notebook 09, and the English
renderings of Chinese queries used for pooling, must each be filed under the key of the prompt rebuilt from the
query and chunk they name, a score must be a whole number from 0 to 10 and a rewrite or rendering one line
(every response a JSON string: 7 for "7" is one problem line, as people write these files too). `python -m
ragkit data check` runs this when `data/llm/` exists (`--own`: on the files of a folder of your own).
Left out: judging whether a context is true to its document (people read samples: see data/llm/README.md).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from ragkit.chunk.base import chunk_corpus
from ragkit.chunk.fixed import fixed_size_chunks
from ragkit.corpus import load_documents
from ragkit.errors import RagkitError
from ragkit.llm.prompts import prompt_key, rerank_prompt, rewrite_prompt, situate_prompt, translate_prompt

RECORDED_CHUNKINGS = ((800, 100),)
CONTEXTS_FILE = "situating-contexts.jsonl"
RERANK_FILE, REWRITE_FILE, TRANSLATE_FILE = "rerank-scores.jsonl", "query-rewrites.jsonl", "query-translations.jsonl"
SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]")
SCORE = re.compile(r"0*(?:[0-9]|10)")  # 0 to 10 in ASCII digits ("²".isdigit() is True, and int("²") fails)


def sentences(text: str) -> int:
    """How many sentences a context has (a final sentence without its full stop still counts).

    >>> sentences("From the 2025 price book. It covers refunds."), sentences("本段出自价格手册。涵盖退款")
    (2, 2)
    """
    ends = len(SENTENCE_END.findall(text.strip()))
    return ends + (0 if SENTENCE_END.search(text.strip()[-1:] or ".") else 1)


def is_text(response: object, where: str, problems: list[str]) -> bool:
    """Whether a recorded response is a JSON string; where it is not (a number, null, a list), appends a problem.

    >>> is_text(7, "rerank-scores.jsonl:3", problems := []), problems
    (False, ['rerank-scores.jsonl:3: the response must be a JSON string, got 7'])
    """
    if not isinstance(response, str):
        problems.append(f"{where}: the response must be a JSON string, got {json.dumps(response)[:40]}")
    return isinstance(response, str)


def check_contexts(folder: str | Path, problems: list[str], variant: str = "") -> int:
    """Append a problem for every chunk without exactly one recorded context, and for every context that is not
    1 to 3 sentences (the course's writers were asked for that; the `plain` variant's writers were asked
    nothing beyond Anthropic's prompt, so theirs need only be one non-empty paragraph); returns how many
    contexts were checked.

    >>> check_contexts("data", problems := [], variant="plain")  # doctest: +SKIP
    382
    """
    folder = Path(folder)
    path = folder / "llm" / variant / CONTEXTS_FILE
    if not path.is_file():
        problems.append(f"{path}: missing: the recorded situating contexts")
        return 0
    records = {}
    keys: Counter[str] = Counter()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
            keys[record["key"]] += 1
            records[record["key"]] = (number, record["response"])
        except (json.JSONDecodeError, KeyError, TypeError):
            problems.append(f"{path}:{number}: not a JSON object with 'key' and 'response'")
    try:
        docs = load_documents(folder / "corpus")
    except RagkitError as error:
        problems.append(str(error))
        return 0
    by_id = {doc.doc_id: doc for doc in docs}
    for size, overlap in RECORDED_CHUNKINGS:
        for chunk in chunk_corpus(docs, fixed_size_chunks, size=size, overlap=overlap):
            doc = by_id[chunk.doc_id]
            key = prompt_key(situate_prompt(doc.text, chunk.text, doc.lang))
            if keys[key] != 1:
                problems.append(f"{path}: chunk {chunk.chunk_id} (size {size}, overlap {overlap}) has {keys[key]} "
                                "recorded contexts, not exactly one")
    for number, response in records.values():
        if not is_text(response, f"{path}:{number}", problems):
            continue
        if variant and (not response.strip() or "\n\n" in response.strip()):
            problems.append(f"{path}:{number}: a context must be one non-empty paragraph")
        elif not variant and not 1 <= sentences(response) <= 3:
            problems.append(f"{path}:{number}: a context of {sentences(response)} sentences (1 to 3 expected)")
    return len(records)


def check_rerank_records(folder: str | Path, problems: list[str]) -> int:
    """Append a problem for every recorded rerank score or rewrite whose key is not its prompt's (rebuilt from
    the query and chunk it names), whose query or chunk does not exist, or whose answer is malformed; returns
    how many records were checked.

    >>> check_rerank_records("data", problems := [])  # doctest: +SKIP
    8306
    """
    from ragkit.chunk.base import chunk_corpus as chunked
    from ragkit.corpus import load_queries

    folder, checked = Path(folder), 0
    try:
        docs, queries = load_documents(folder / "corpus"), load_queries(folder / "queries.jsonl")
    except RagkitError as error:
        problems.append(str(error))
        return 0
    texts = {query.query_id: query.text for query in queries}
    chunks = {chunk.chunk_id: chunk for size, overlap in RECORDED_CHUNKINGS
              for chunk in chunked(docs, fixed_size_chunks, size=size, overlap=overlap)}
    prompts = {REWRITE_FILE: rewrite_prompt, TRANSLATE_FILE: translate_prompt}
    rendered: Counter[str] = Counter()
    for name in (RERANK_FILE, REWRITE_FILE, TRANSLATE_FILE):
        path = folder / "llm" / name
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        for number, line in enumerate(lines, start=1):
            checked += 1
            try:
                record = json.loads(line)
                query, response, key = texts.get(record["query"]), record["response"], record["key"]
                chunk = chunks.get(record["chunk"]) if name == RERANK_FILE else None
            except (json.JSONDecodeError, KeyError, TypeError):
                problems.append(f"{path}:{number}: not a JSON object with key, query, response (and chunk)")
                continue
            if query is None or (name == RERANK_FILE and chunk is None):
                problems.append(f"{path}:{number}: names a query or chunk that does not exist")
                continue
            prompt = rerank_prompt(query, chunk.title, chunk.text) if chunk else prompts[name](query)
            if key != prompt_key(prompt):
                problems.append(f"{path}:{number}: its key is not the key of the prompt for its query and chunk")
            if is_text(response, f"{path}:{number}", problems) and (
                    not SCORE.fullmatch(response) if chunk else not response.strip() or "\n" in response):
                problems.append(f"{path}:{number}: {'a score must be a whole number from 0 to 10' if chunk else 'a rewrite or rendering must be one line'}, got {response[:40]!r}")
            rendered[record["query"]] += name == TRANSLATE_FILE
    if (folder / "llm" / TRANSLATE_FILE).is_file():
        wrong = sorted(q.query_id for q in queries if q.lang == "zh" and rendered[q.query_id] != 1)
        if wrong:
            problems.append(f"{folder / 'llm' / TRANSLATE_FILE}: {len(wrong)} Chinese queries do not have exactly "
                            f"one English rendering (first: {wrong[0]})")
    return checked


BEIR_RERANK_FILES = {"cranfield": ("cranfield-rerank-scores.jsonl", 20)}  # folder → (scores file, per query)


def check_beir_rerank_records(folder: str | Path, problems: list[str]) -> int:
    """Append a problem for every recorded rerank score of a shipped BEIR collection (`BEIR_RERANK_FILES`) whose
    key is not its prompt's (rebuilt from the query and document it names), whose answer is not 0 to 10, or
    whose query does not have exactly the recorded number of scored documents; returns how many were checked.

    >>> check_beir_rerank_records("data", problems := [])  # doctest: +SKIP
    4500
    """
    from ragkit.chunk.base import whole_document_chunks
    from ragkit.evaluate.beir import load_beir

    folder, checked = Path(folder), 0
    for name, (file, per_query) in BEIR_RERANK_FILES.items():
        path = folder / "llm" / file
        if not (folder / name).is_dir() or not path.is_file():
            continue
        docs, queries, _ = load_beir(folder / name, "test")
        units = {chunk.doc_id: chunk for chunk in whole_document_chunks(docs)}
        texts, counts = {query.query_id: query.text for query in queries}, Counter()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            checked += 1
            try:
                record = json.loads(line)
                unit, text = units.get(record["doc"]), texts.get(record["query"])
                response, key = record["response"], record["key"]
            except (json.JSONDecodeError, KeyError, TypeError):
                problems.append(f"{path}:{number}: not a JSON object with key, query, doc and response")
                continue
            if unit is None or text is None:
                problems.append(f"{path}:{number}: names a query or document that {name} does not have")
                continue
            counts[record["query"]] += 1
            if key != prompt_key(rerank_prompt(text, unit.title, unit.text)):
                problems.append(f"{path}:{number}: its key is not the key of the prompt for its query and document")
            if is_text(response, f"{path}:{number}", problems) and not SCORE.fullmatch(response):
                problems.append(f"{path}:{number}: a score must be a whole number from 0 to 10, got {response[:40]!r}")
        wrong = sorted(q for q in texts if counts[q] != per_query)
        if wrong:
            problems.append(f"{path}: {len(wrong)} queries do not have {per_query} scores each (first: {wrong[0]})")
    return checked
