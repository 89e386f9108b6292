"""The checks of notebook 09c's exercises (a language model reranks; rewrite, then refuse): how far the language
model's scores agree with the judgments on dev at a stricter cut, and a refusal rule, set on the English queries,
that refuses no answerable English dev query.

Each check takes the learner's answer, then the notebook's `pipe` (the default hybrid), and recomputes what it
needs from ragkit: the dev and test queries from the course data, the hybrid's top 15, the recorded scores
replayed through `pipe.using(rerank="llm")`, the judgments' labels, and the refusals of each setting. The AUC
is counted here pair by pair (a Mann–Whitney count), apart from scikit-learn's, so that a check never trusts
the learner's code.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np

from exercises.answers import number

DATA = Path(__file__).resolve().parents[2] / "data"
THRESHOLDS = (2, 3, 4, 5, 6)
REWRITES = ("none", "llm")


@cache
def split_queries(split: str, answerable_only: bool = True) -> list:
    """The queries of one split of the course data (the answerable ones only, unless told otherwise)."""
    from ragkit.corpus import load_queries

    return [q for q in load_queries(DATA / "queries.jsonl", split=split) if q.evidence or not answerable_only]


def judged_scores(pipe, split: str = "dev") -> tuple[np.ndarray, np.ndarray]:
    """The language model's score and the label (relevant or not) of every judged candidate in each answerable
    query's hybrid top 15."""
    from ragkit.evaluate.relevance import judged_units, judgments_from_queries, ranking_hits
    from ragkit.reranking import candidates, rerank_scores

    hybrid = pipe.using(method="hybrid", rerank="none", threshold=None, rewrite="none")
    queries = split_queries(split)
    texts = [q.text for q in queries]
    rows = candidates(hybrid, texts, 15)[0]
    scores = rerank_scores(hybrid.using(rerank="llm"), texts, rows)
    kept_scores, labels = [], []
    for row, row_scores, judgment in zip(rows, scores, judgments_from_queries(queries, hybrid.docs),
                                         strict=True):
        chunks = [hybrid.chunks[i] for i in row]
        for score, hit, known in zip(row_scores, ranking_hits(chunks, judgment), judged_units(chunks, judgment),
                                     strict=True):
            if known:
                kept_scores.append(float(score))
                labels.append(bool(hit))
    return np.array(kept_scores), np.array(labels)


def pairwise_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """The chance that a relevant candidate scores above a non-relevant one, ties counting half."""
    relevant, other = scores[labels], scores[~labels]
    wins = sum(float((a > other).sum() + 0.5 * (a == other).sum()) for a in relevant)
    return wins / (len(relevant) * len(other))


def check_agreement(share, auc, pipe=None):
    """On dev: the share judged relevant of the judged candidates scored 7 or more, and the score's AUC."""
    assert pipe is not None, "the check needs the notebook's pipe"
    share, auc = number(share, "the share"), number(auc, "the AUC")
    assert 0 <= share <= 1, "a share lies between 0 and 1"
    assert 0 <= auc <= 1, "an AUC lies between 0 and 1"
    scores, labels = judged_scores(pipe, "dev")
    assert abs(share - labels[scores >= 7].mean()) < 5.1e-4, \
        "the share is not the share judged relevant among the judged dev candidates scored 7 or more (3 decimals)"
    assert abs(auc - pairwise_auc(scores, labels)) < 5.1e-4, \
        "the AUC is not that of the score against the label over the judged dev candidates (3 decimals)"
    return "right"


def refusal(pipe, threshold: int, rewrite: str, queries: list) -> dict:
    """Refusal counts and F1 of the language model at `threshold` (with or without a rewrite) on `queries`."""
    from ragkit.evaluate.refusal import refusal_row

    variant = pipe.using(method="hybrid", rerank="llm", threshold=threshold, rewrite=rewrite)
    table = variant.evaluate(queries, ["failure@5"])
    return refusal_row(table["refused"], table["answerable"], table["failure@5"])


def english(split: str) -> list:
    """All English queries of one split, answerable or not."""
    return [q for q in split_queries(split, answerable_only=False) if q.lang == "en"]


def check_stricter_rule(threshold, rewrite, f1, answerable_refused, pipe=None):
    """On the English queries: the setting that refuses no answerable dev query with the best refusal F1 on dev,
    its refusal F1 on test, and how many answerable test queries it refuses."""
    assert pipe is not None, "the check needs the notebook's pipe"
    assert threshold in THRESHOLDS, "the threshold is not one of the table's (2 to 6)"
    assert rewrite in REWRITES, 'rewrite is "none" or "llm"'
    f1 = number(f1, "the F1")
    assert 0 <= f1 <= 1, "an F1 lies between 0 and 1"
    answerable_refused = number(answerable_refused, "the count of answerable queries refused")
    assert answerable_refused >= 0 and answerable_refused.is_integer(), \
        "the count of answerable queries refused is not a whole number of queries"
    dev = english("dev")
    chosen = refusal(pipe, threshold, rewrite, dev)
    assert chosen["answerable refused"] == 0, "this setting refuses an answerable English dev query"
    allowed = [row["f1"] for row in (refusal(pipe, t, r, dev) for t in THRESHOLDS for r in REWRITES)
               if row["answerable refused"] == 0 and not math.isnan(row["f1"])]
    assert chosen["f1"] >= max(allowed) - 1e-12, \
        "another setting that refuses no answerable English dev query has a higher refusal F1 on them"
    on_test = refusal(pipe, threshold, rewrite, english("test"))
    assert abs(f1 - on_test["f1"]) < 5.1e-4, \
        "the F1 is not this setting's refusal F1 on the English test queries (3 decimals)"
    assert answerable_refused == on_test["answerable refused"], \
        "the count is not the number of answerable English test queries this setting refuses"
    return "right"
