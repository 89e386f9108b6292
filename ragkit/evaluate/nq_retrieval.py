"""Natural Questions (`data/nq-open`) as a retrieval collection: find each question's gold passage.

The answer stage's subset (notebook 13) holds 300 real Google questions and the gold Wikipedia passages of
1,062 questions (1,044 after de-duplication), each chosen by a human annotator as the passage that answers
its question. Searching all 1,044 for each of the 300 questions, with the annotator's passage as the one
relevant document, is a small public English retrieval test that no language model labelled: the check the
course uses for English parity between encoders (beside Cranfield). The unit is the whole passage, title then
text. Left out: counting another passage that happens to contain an answer string as relevant (open-domain
QA's "answer recall"): only the annotator's choice counts, so the figures are lower bounds; and a dev split
(the 300 questions are all `test`).
"""

from __future__ import annotations

from pathlib import Path

from ragkit.corpus import Document, Query, read_jsonl
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import Judgment, Target


def is_nq_folder(folder: str | Path) -> bool:
    """True for a folder laid out like `data/nq-open` (questions.jsonl and passages.jsonl).

    >>> is_nq_folder("data/nq-open"), is_nq_folder("data")
    (True, False)
    """
    return (Path(folder) / "questions.jsonl").is_file() and (Path(folder) / "passages.jsonl").is_file()


def load_nq_retrieval(folder: str | Path = "data/nq-open", split: str = "test"
                      ) -> tuple[list[Document], list[Query], list[Judgment]]:
    """Passages as documents, questions as queries, each judged by its gold passage.

    >>> docs, queries, judgments = load_nq_retrieval()
    >>> len(docs), len(queries), judgments[0].targets[0].doc_id
    (1044, 300, 'p0000')
    """
    folder = Path(folder)
    if split not in ("test", "all"):
        raise RagkitError(f"{folder}: the Natural Questions subset has one split, test (or all); got {split!r}")
    docs = [Document(doc_id=record["id"], title=record["title"], source="nq-open", date="", lang="en",
                     text=f"{record['title']}\n\n{record['text']}") for _, record in read_jsonl(folder / "passages.jsonl")]
    known = {doc.doc_id for doc in docs}
    queries, judgments = [], []
    for number, record in read_jsonl(folder / "questions.jsonl"):
        if record.get("gold") not in known:
            raise RagkitError(f"{folder / 'questions.jsonl'}:{number}: gold passage {record.get('gold')!r} "
                              "is not in passages.jsonl")
        queries.append(Query(record["id"], record["question"], "en", "nq", "test", (), ""))
        judgments.append(Judgment(record["id"], "nq", "test", (Target(record["gold"]),), "en"))
    return docs, queries, judgments
