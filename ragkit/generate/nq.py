"""The human-answered check: Natural Questions with 20-passage contexts, the answering passage moved through them.

`data/nq-open/` ships 300 questions of NQ-open with the short answers people wrote and each question's gold
Wikipedia passage (from the data of Liu et al., "Lost in the Middle", TACL 2024; attribution in its README).
`build_subset` made it: for each question, the 19 passages nearest to it under the course's own dense
retriever (all-MiniLM-L6-v2) among the other questions' gold passages that contain no answer string are its
distractors, nearest first. `context_passages` places the gold passage at a position among them, and
`nq_prompt` asks for a short answer from numbered passages (or, closed-book, from no passage). Left out: the
paper's retrieved Wikipedia distractors (21 million passages are not shipped), and its 10- and 30-passage
settings.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.errors import RagkitError
from ragkit.generate.grade import contains_key

POSITIONS = (1, 5, 10, 15, 20)  # the paper's positions of the answering passage among 20
CONDITIONS = (*(f"position-{p}" for p in POSITIONS), "closed-book", "gold-only")
PASSAGES = """Answer the question using only the numbered search results below; some of them may not be \
relevant. Give a short answer.

{passages}

Question: {question}
Answer:"""
CLOSED_BOOK = """Answer the question with a short answer.

Question: {question}
Answer:"""


def load_nq(folder: str | Path = "data/nq-open") -> tuple[list[dict], dict[str, dict]]:
    """(questions, passages by id) of the shipped subset; a clear error when it is missing or broken.

    >>> questions, passages = load_nq()
    >>> len(questions), len(questions[0]["distractors"]), questions[0]["gold"] in passages
    (300, 19, True)
    """
    folder = Path(folder)
    try:
        questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text("utf-8").splitlines()]
        passages = {p["id"]: p for p in map(json.loads, (folder / "passages.jsonl").read_text("utf-8").splitlines())}
    except (OSError, json.JSONDecodeError, KeyError) as error:
        raise RagkitError(f"{folder}: not a Natural Questions subset ({error})") from None
    return questions, passages


def context_passages(question: dict, passages: dict[str, dict], condition: str) -> list[dict]:
    """The passages a condition shows, in order: the gold one at `position-p` among the 19 distractors (nearest
    first), the gold one alone, or none (closed-book).

    >>> questions, passages = load_nq()
    >>> shown = context_passages(questions[0], passages, "position-5")
    >>> len(shown), shown[4]["id"] == questions[0]["gold"]
    (20, True)
    """
    if condition not in CONDITIONS:
        raise RagkitError(f"unknown condition {condition!r}; choose one of {', '.join(CONDITIONS)}")
    gold = passages[question["gold"]]
    if condition == "closed-book":
        return []
    if condition == "gold-only":
        return [gold]
    position = int(condition.split("-")[1])
    others = [passages[i] for i in question["distractors"]]
    return others[:position - 1] + [gold] + others[position - 1:]


def nq_prompt(question: str, shown: Sequence[dict]) -> str:
    """The prompt for one question: numbered passages `[n] (Title: ...) text`, or closed-book without any.

    >>> print(nq_prompt("who wrote hamlet", [{"title": "Hamlet", "text": "A play by Shakespeare."}]))
    ... # doctest: +ELLIPSIS
    Answer the question using only the numbered search results below; ...
    <BLANKLINE>
    [1] (Title: Hamlet) A play by Shakespeare.
    <BLANKLINE>
    Question: who wrote hamlet
    Answer:
    """
    if not shown:
        return CLOSED_BOOK.format(question=question)
    lines = "\n".join(f"[{n}] (Title: {p['title']}) {p['text']}" for n, p in enumerate(shown, start=1))
    return PASSAGES.format(passages=lines, question=question)


def nearest_without_answer(question_vectors: np.ndarray, passage_vectors: np.ndarray, answers: Sequence[list[str]],
                           texts: Sequence[str], gold_of: Sequence[int], n: int = 19) -> list[list[int]]:
    """For each question, the indices of the `n` passages most similar to it (cosine of unit vectors) that are
    not its gold passage and contain none of its answers, most similar first.

    >>> q, p = np.eye(2), np.array([[1.0, 0], [0.9, 0.1], [0, 1.0]])
    >>> nearest_without_answer(q, p, [["x"], ["y"]], ["x", "abc", "y"], gold_of=[0, 2], n=1)
    [[1], [1]]
    """
    chosen = []
    for row, scores in enumerate(question_vectors @ passage_vectors.T):
        picked = []
        for index in np.argsort(-scores, kind="stable"):
            if index != gold_of[row] and not any(contains_key(texts[index], a) for a in answers[row]):
                picked.append(int(index))
                if len(picked) == n:
                    break
        chosen.append(picked)
    return chosen


def build_subset(source: str | Path, out: str | Path, encoder, count: int = 300) -> int:
    """Write `questions.jsonl` and `passages.jsonl` for the first `count` questions of an NQ-open oracle file
    (one gold passage each), distractors drawn from every question's gold passage. Returns the count written.

    >>> build_subset("nq-open-oracle.jsonl.gz", "data/nq-open", Encoder())  # doctest: +SKIP
    300
    """
    rows = [json.loads(line) for line in gzip.open(source, "rt", encoding="utf-8")]
    if len(rows) < count:
        raise RagkitError(f"{source} holds {len(rows)} questions, fewer than {count}")
    texts = [row["ctxs"][0]["text"] for row in rows]
    passage_vectors = encoder.encode([f"{row['ctxs'][0]['title']}. {text}" for row, text in zip(rows, texts, strict=False)],
                                     desc="passages")
    question_vectors = encoder.encode([row["question"] for row in rows[:count]], desc="questions")
    distractors = nearest_without_answer(question_vectors, passage_vectors, [r["answers"] for r in rows[:count]],
                                         texts, gold_of=list(range(count)))
    used = sorted({i for picks in distractors for i in picks} | set(range(count)))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "questions.jsonl").open("w", encoding="utf-8") as handle:
        for number, (row, picks) in enumerate(zip(rows[:count], distractors, strict=True)):
            handle.write(json.dumps({"id": f"nq-{number:03d}", "question": row["question"], "answers": row["answers"],
                                     "gold": f"p{number:04d}", "distractors": [f"p{i:04d}" for i in picks]},
                                    ensure_ascii=False) + "\n")
    with (out / "passages.jsonl").open("w", encoding="utf-8") as handle:
        for i in used:
            handle.write(json.dumps({"id": f"p{i:04d}", "title": rows[i]["ctxs"][0]["title"], "text": texts[i]},
                                    ensure_ascii=False) + "\n")
    return count
