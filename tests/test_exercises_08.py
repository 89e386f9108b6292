"""Notebook 08's exercise checks (`notebooks/exercises/mmr.py`): each accepts a right answer computed here apart
from the check's code and the notebook's solution (the pipeline's cached embeddings and ragkit's `mmr_select`
for exercise 1, a literal loop over the library's rule for exercise 2), rejects the plausible wrong answers a
learner would give, and no message gives the answer away."""

import re

import numpy as np
import pytest
from helpers import exercise_checks, rejection_messages

from ragkit.rank.mmr import mmr_select, rescale

checks = exercise_checks("mmr")


# --- exercise 1: where MMR should win ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def copied(course_pipe):
    """The exercise's 60 chunks (30, then an exact copy of each) from the pipeline's cached embeddings."""
    pipe = course_pipe
    chunks = pipe.chunks[:30] * 2
    vectors = np.vstack([pipe.chunk_embeddings[:30]] * 2)
    scores = vectors @ pipe.encoder.encode([chunks[0].text[:80]])[0]
    full_scores = vectors @ pipe.encoder.encode([chunks[0].text])[0]   # a slip: the whole text as the query
    order, full_order = np.argsort(-scores, kind="stable"), np.argsort(-full_scores, kind="stable")

    def mmr(lambda_=0.7, relevance=rescale, fetch=20, full_query=False):
        best = (full_order if full_query else order)[:fetch]
        picks = mmr_select(relevance((full_scores if full_query else scores)[best]), vectors[best] @ vectors[best].T,
                           lambda_, 6)
        return [chunks[best[p]].text for p in picks]

    return {"pipe": pipe, "chunks": chunks, "order": order, "mmr": mmr,
            "similarity6": [chunks[i].text for i in order[:6]], "mmr6": mmr(),
            "full_query6": [chunks[i].text for i in full_order[:6]], "full_query_mmr6": mmr(full_query=True)}


def test_a_right_answer_is_accepted(copied):
    assert checks.check_duplicates(copied["similarity6"], copied["mmr6"], copied["pipe"]) == "right"
    assert len(set(copied["mmr6"])) > len(set(copied["similarity6"])), "MMR lets more distinct texts in"


def duplicates_wrong_answers(copied):
    chunks, order, mmr = copied["chunks"], copied["order"], copied["mmr"]
    similarity6, mmr6 = copied["similarity6"], copied["mmr6"]
    deduplicated = list(dict.fromkeys(chunks[i].text for i in order))   # by cosine, each text once
    return {
        "MMR not applied": (similarity6, similarity6),
        "copies dropped, no MMR": (similarity6, deduplicated[:6]),
        "lambda inverted (0.3)": (similarity6, mmr(0.3)),
        "another lambda (0.5)": (similarity6, mmr(0.5)),
        "another lambda (0.9)": (similarity6, mmr(0.9)),
        "raw cosine as relevance, not rescaled": (similarity6, mmr(relevance=lambda s: s)),
        "all 60 chunks as candidates": (similarity6, mmr(fetch=60)),
        "the best 10 as candidates": (similarity6, mmr(fetch=10)),
        "MMR's picks in reverse order": (similarity6, mmr6[::-1]),
        "a top 5, not a top 6": (similarity6[:5], mmr6[:5]),
        "a top 7, not a top 6": (similarity6 + [chunks[order[6]].text], mmr6 + [chunks[order[6]].text]),
        "made-up texts": (similarity6, ["a", "b", "c", "d", "e", "f"]),
        "chunk ids, not texts": ([chunks[i].chunk_id for i in order[:6]], mmr6),
        "no-MMR list worst first": (similarity6[::-1], mmr6),
        "no-MMR list without the copies": (deduplicated[:6], mmr6),
        "the two lists swapped": (mmr6, similarity6),
        "query from the whole first text": (copied["full_query6"], copied["full_query_mmr6"]),
        "query from the whole first text, MMR only": (similarity6, copied["full_query_mmr6"]),
    }


WRONG_DUPLICATES = ["MMR not applied", "copies dropped, no MMR", "lambda inverted (0.3)", "another lambda (0.5)",
                    "another lambda (0.9)", "raw cosine as relevance, not rescaled", "all 60 chunks as candidates",
                    "the best 10 as candidates", "MMR's picks in reverse order", "a top 5, not a top 6",
                    "a top 7, not a top 6", "made-up texts", "chunk ids, not texts", "no-MMR list worst first",
                    "no-MMR list without the copies", "the two lists swapped", "query from the whole first text",
                    "query from the whole first text, MMR only"]


@pytest.mark.parametrize("slip", WRONG_DUPLICATES)
def test_duplicates_rejects(copied, slip):
    wrong = duplicates_wrong_answers(copied)
    similarity6, mmr6 = wrong[slip]
    assert (similarity6, mmr6) != (copied["similarity6"], copied["mmr6"]), f"{slip} is a right answer"
    with pytest.raises(AssertionError):
        checks.check_duplicates(similarity6, mmr6, copied["pipe"])


def test_duplicates_messages_give_nothing_away(copied):
    wrong = duplicates_wrong_answers(copied)
    told = rejection_messages([lambda pair=wrong[slip]: checks.check_duplicates(*pair, copied["pipe"])
                               for slip in WRONG_DUPLICATES])
    for message in told:
        assert not any(text[:30] in message for text in copied["mmr6"] + copied["similarity6"]), message
        # the number of distinct texts in either right list, the exercise's question, is never told
        for count in {len(set(copied["mmr6"])), len(set(copied["similarity6"]))}:
            assert not re.search(rf"(?<![\d.]){count}(?![\d.])", message), message
    assert "re-ordered nothing" in told[0] and "swapped" in told[2] and "another λ" in told[3]
    assert "raw cosine" in told[5] and "60 candidates" in told[6] and "not in the order" in told[8]
    assert "no-MMR list holds 5 items" in told[9], "a top 5 is told as such"
    assert all("another query" in told[WRONG_DUPLICATES.index(slip)]
               for slip in ["query from the whole first text", "query from the whole first text, MMR only"]), \
        "a query built from the whole text is told as a query slip"


# --- exercise 2: λ inverted -------------------------------------------------------------------------------

def library_by_hand(relevance, similarity, lambda_, k):
    """The library's documented rule, by hand: (1 − λ) · relevance − λ · max similarity to the picks; the most
    relevant first; ties to the earlier candidate."""
    picked = [int(np.argmax(relevance))]
    for _ in range(k - 1):
        rest = [c for c in range(len(relevance)) if c not in picked]
        worth = [(1 - lambda_) * relevance[c] - lambda_ * max(similarity[c][p] for p in picked) for c in rest]
        picked.append(rest[int(np.argmax(worth))])
    return picked


def test_inverted_accepts_a_right_answer():
    assert checks.check_inverted(library_by_hand) == "right"


WRONG_INVERTED = {
    "not inverted": lambda rel, sim, lam, k: mmr_select(rel, sim, lam, k),
    "reversed picks": lambda rel, sim, lam, k: mmr_select(rel, sim, 1 - lam, k)[::-1],
    "relevance inverted instead of lambda": lambda rel, sim, lam, k: mmr_select(1 - rel, sim, lam, k),
    "similarity inverted instead of lambda": lambda rel, sim, lam, k: mmr_select(rel, 1 - sim, lam, k),
    "k - 1 picks": lambda rel, sim, lam, k: mmr_select(rel, sim, 1 - lam, k - 1),
    "k ignored, every candidate": lambda rel, sim, lam, k: mmr_select(rel, sim, 1 - lam),
    "plain ranking by relevance": lambda rel, sim, lam, k: np.argsort(-rel, kind="stable")[:k],
}


@pytest.mark.parametrize("slip", list(WRONG_INVERTED))
def test_inverted_rejects(slip):
    with pytest.raises(AssertionError):
        checks.check_inverted(WRONG_INVERTED[slip])


def test_inverted_messages_say_what_is_wrong_not_the_fix():
    told = dict(zip(WRONG_INVERTED,
                    rejection_messages(lambda f=f: checks.check_inverted(f) for f in WRONG_INVERTED.values()),
                    strict=True))
    for message in told.values():
        assert not re.search(r"1\s*[−-]\s*(λ|lambda)", message), f"the fix is named: {message}"
    assert "returned 3 picks" in told["k - 1 picks"], "a k − 1 slip is told as a count, not as λ"
    assert "returned 6 picks" in told["k ignored, every candidate"]
    assert "defined the other way round" in told["not inverted"]
    assert "not in the library's order" in told["reversed picks"]
