"""Grading an answer without a judge: do the key facts appear in it, do its citations hold, does it refuse.

- **Correctness** is the metric of Liu et al. ("Lost in the Middle"): an answer is right when a key appears in
  it after SQuAD's normalisation (lower case, no punctuation, no English articles, single spaces). A query
  with several parts is right only when every part's key appears (any one of a part's alternatives).
- **Citations**: the `[n]` numbers an answer cites, against the passages that hold evidence; precision is the
  share of cited passages that hold evidence, recall the share of evidence-holding passages shown that are cited.
- **Refusal**: an answer that says the sources do not hold the answer (English or Chinese phrasings); on
  unanswerable queries a refusal is right.

Left out: partial credit, paraphrases a key does not list (a right answer in other words counts as wrong, so
correctness is a lower bound), and any model-judged grade.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence

from ragkit.chunk.base import Chunk
from ragkit.evaluate.relevance import Judgment, ranking_hits

ARTICLES = re.compile(r"\b(a|an|the)\b")
CITATION = re.compile(r"\[(\d+(?:\s*[,，、]\s*\d+)*)\]")
REFUSALS = re.compile(
    r"(?:do|does) not know|don't know|\b(?:cannot|can't|unable to) (?:answer|determine|find|tell)|"
    r"\bno (?:information|answer|mention)\b|"
    r"\b(?:sources?|passages?|documents?|search results?|context|provided (?:information|text))\b[^.。\n]{0,60}?"
    r"\b(?:do not|does not|don't|doesn't|did not|didn't|not) (?:contain|include|mention|say|state|specify|provide|"
    r"cover|give|address|answer|list|describe|explain)|"
    r"不知道|无法(?:回答|确定|找到|得知|判断)|(?:资料|来源|文档|材料|内容|信息)[^。\n]{0,30}?(?:没有|未|并未|并没有)"
    r"(?:提供|提到|提及|包含|涉及|说明|给出|记载)|没有(?:提供|提到|提及|相关)",
    re.IGNORECASE)


def normalize(text: str) -> str:
    """SQuAD's answer normalisation: lower case, drop ASCII punctuation and the articles a/an/the, one space.

    >>> normalize("The  Eiffel-Tower, in Paris!")
    'eiffeltower in paris'
    """
    text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    return " ".join(ARTICLES.sub(" ", text).split())


def contains_key(answer: str, key: str) -> bool:
    """Whether the normalised key appears in the normalised answer (an empty key never does).

    >>> contains_key("It was Wilhelm Röntgen, in 1901.", "Wilhelm Röntgen"), contains_key("1,000 calls", "1000")
    (True, True)
    """
    key = normalize(key)
    return bool(key) and key in normalize(answer)


def correct(answer: str, parts: Sequence[Iterable[str]]) -> bool:
    """Right when every part has one of its keys in the answer (a part is a list of alternatives).

    >>> correct("Rotate it every 90 days; old keys stop after 24 hours.", [["90 days"], ["24 hours", "a day"]])
    True
    >>> correct("Rotate it every 90 days.", [["90 days"], ["24 hours"]])
    False
    """
    parts = [list(part) for part in parts]
    return bool(parts) and all(any(contains_key(answer, key) for key in part) for part in parts)


def cited(answer: str) -> list[int]:
    """The passage numbers an answer cites as [n] or [n, m], each once, in order of first citation.

    >>> cited("Yes [2]. Also [1, 3] and again [2].")
    [2, 1, 3]
    """
    numbers: list[int] = []
    for group in CITATION.findall(answer):
        for number in re.split(r"\s*[,，、]\s*", group):
            if int(number) not in numbers:
                numbers.append(int(number))
    return numbers


def evidence_numbers(shown: Sequence[Chunk], judgment: Judgment) -> list[int]:
    """The prompt numbers (1, 2, ...) of the passages shown that hold evidence for the query (cover half of an
    evidence quote, `ragkit.evaluate.relevance`): what a citation should point at.

    >>> from ragkit.evaluate.relevance import Target
    >>> judgment = Judgment("q", "keyword", "test", (Target("a", 0, 5),))
    >>> evidence_numbers([Chunk("b#0", "b", 0, 5, "bbbbb"), Chunk("a#0", "a", 0, 5, "aaaaa")], judgment)
    [2]
    """
    return [n for n, hit in enumerate(ranking_hits(shown, judgment), start=1) if hit]


def citation_scores(cited_numbers: Sequence[int], evidence_numbers: Sequence[int], shown: int) -> dict[str, float]:
    """Citation precision (cited passages that hold evidence; NaN when nothing valid is cited) and recall
    (evidence passages shown that are cited; NaN when none is shown). Numbers outside 1..shown count as wrong.

    >>> citation_scores([1, 4], [1, 2], shown=5)
    {'citation_precision': 0.5, 'citation_recall': 0.5}
    """
    cited_set, evidence = set(cited_numbers), set(evidence_numbers)
    precision = len(cited_set & evidence) / len(cited_set) if cited_set else float("nan")
    shown_evidence = {n for n in evidence if 1 <= n <= shown}
    recall = len(cited_set & shown_evidence) / len(shown_evidence) if shown_evidence else float("nan")
    return {"citation_precision": precision, "citation_recall": recall}


def refuses(answer: str) -> bool:
    """Whether the answer says the sources do not hold the answer (or that it does not know).

    >>> refuses("The sources do not contain the answer."), refuses("资料中没有提供相关信息。"), refuses("It is 42 [1].")
    (True, True, False)
    """
    return bool(REFUSALS.search(answer))
