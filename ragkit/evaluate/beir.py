"""Read a BEIR-format folder so practitioners can evaluate on their own data.

The layout is `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`, `text`) and
`qrels/<split>.tsv` (header, then `query-id`, `corpus-id`, `score` tab-separated). The retrieval unit is the
whole document, title then text; relevance comes from the qrels, with the score as a graded gain. Left out:
downloading datasets (bring the folder), and BEIR's optional per-document metadata. Qrels rows that name a
missing query or document are skipped with a warning (`skipped_qrels` counts them), and so are documents with
neither title nor text (Cranfield has two).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from ragkit.corpus import Document, Query, read_jsonl
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import Judgment, Target


def is_beir_folder(folder: str | Path) -> bool:
    """True when `folder` looks like BEIR data (it has corpus.jsonl).

    >>> is_beir_folder("tests/fixtures/beir_tiny")  # doctest: +SKIP
    True
    """
    return (Path(folder) / "corpus.jsonl").is_file()


def read_qrels(path: Path) -> dict[str, dict[str, float]]:
    """query id → {document id: gain} from a qrels TSV file (the first line is a header).

    >>> read_qrels(Path("tests/fixtures/beir_tiny/qrels/test.tsv"))["q1"]  # doctest: +SKIP
    {'d1': 1.0}
    """
    if not path.is_file():
        raise RagkitError(f"{path}: no such qrels file")
    qrels: dict[str, dict[str, float]] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.rstrip("\n").split("\t")
            if number == 1 and fields[0] in ("query-id", "query_id", "qid"):
                continue
            if not line.strip():
                continue
            if len(fields) != 3:
                raise RagkitError(f"{path}:{number}: expected 3 tab-separated fields (query-id, corpus-id, score)")
            try:
                gain = float(fields[2])
            except ValueError:
                raise RagkitError(f"{path}:{number}: score {fields[2]!r} is not a number") from None
            qrels.setdefault(fields[0], {})[fields[1]] = gain
    return qrels


def load_beir(folder: str | Path, split: str = "test") -> tuple[list[Document], list[Query], list[Judgment]]:
    """Documents, the queries of `split` that have qrels, and their judgments.

    >>> docs, queries, judgments = load_beir("tests/fixtures/beir_tiny")  # doctest: +SKIP
    >>> len(queries) == len(judgments)  # doctest: +SKIP
    True
    """
    folder = Path(folder)
    docs, empty = [], []
    corpus_path = folder / "corpus.jsonl"
    for number, record in read_jsonl(corpus_path):
        if not isinstance(record.get("_id"), str | int) or not isinstance(record.get("text"), str):
            raise RagkitError(f"{corpus_path}:{number}: a document needs '_id' and 'text'")
        title = str(record.get("title") or "")
        if not title.strip() and not record["text"].strip():
            empty.append(str(record["_id"]))  # nothing to index or to read; said below, not silently dropped
            continue
        docs.append(Document(doc_id=str(record["_id"]), title=title, source="beir", date="", lang="en",
                             text=f"{title}\n\n{record['text']}" if title else record["text"]))
    if not docs:
        raise RagkitError(f"{corpus_path}: the corpus is empty")
    if empty:
        warnings.warn(f"{corpus_path}: {len(empty)} documents have neither title nor text and are left out: "
                      f"{', '.join(empty[:5])}", stacklevel=2)
    query_text: dict[str, str] = {}
    queries_path = folder / "queries.jsonl"
    for number, record in read_jsonl(queries_path):
        if not isinstance(record.get("_id"), str | int) or not isinstance(record.get("text"), str):
            raise RagkitError(f"{queries_path}:{number}: a query needs '_id' and 'text'")
        query_text[str(record["_id"])] = record["text"]
    qrels_path = folder / "qrels" / f"{split}.tsv"
    qrels = read_qrels(qrels_path)
    known_docs = {doc.doc_id for doc in docs}
    skipped = {"queries": sorted(set(qrels) - set(query_text)),
               "documents": sorted({doc_id for gains in qrels.values() for doc_id in gains} - known_docs)}
    for what, ids in skipped.items():
        if ids:  # counted, not silently scored as misses
            warnings.warn(f"{qrels_path}: {len(ids)} qrels rows name {what} that do not exist; skipped: "
                          f"{', '.join(ids[:5])}{' …' if len(ids) > 5 else ''}", stacklevel=2)
    queries, judgments = [], []
    for query_id, gains in qrels.items():
        if query_id not in query_text:
            continue
        gains = {doc_id: gain for doc_id, gain in gains.items() if doc_id in known_docs}
        targets = tuple(Target(doc_id, gain=gain) for doc_id, gain in gains.items() if gain > 0)
        if not targets:
            continue
        judged_out = tuple(Target(doc_id) for doc_id, gain in gains.items() if gain <= 0)  # for judged@k
        queries.append(Query(query_id, query_text[query_id], "en", "beir", split, (), ""))
        judgments.append(Judgment(query_id, "beir", split, targets, "en", judged_out))
    if not queries:
        raise RagkitError(f"{qrels_path}: no query has a relevant document")
    return docs, queries, judgments


def skipped_qrels(folder: str | Path, split: str = "test") -> dict[str, int]:
    """How many qrels rows of `split` name a query or a document that does not exist (they are skipped).

    >>> skipped_qrels("tests/fixtures/beir_tiny")
    {'queries': 0, 'documents': 0}
    """
    folder = Path(folder)
    qrels = read_qrels(folder / "qrels" / f"{split}.tsv")
    queries = {str(record.get("_id")) for _, record in read_jsonl(folder / "queries.jsonl")}
    documents = {str(record.get("_id")) for _, record in read_jsonl(folder / "corpus.jsonl")
                 if str(record.get("title") or "").strip() or str(record.get("text") or "").strip()}  # as load_beir
    return {"queries": sum(len(gains) for query_id, gains in qrels.items() if query_id not in queries),
            "documents": sum(doc_id not in documents for gains in qrels.values() for doc_id in gains)}
