"""The checks of notebook 09's exercises (rerank): seed 001's diagnose for the contextual hybrid at the default
rerank depth, and MaxSim without the special tokens.

Each check takes the learner's answer, then the notebook's `pipe` (the default hybrid), and recomputes what it
needs from ragkit: the answerable dev queries from the course data, the contextual hybrid's recall from
`pipe.using(context="llm")`, the token vectors from the pipeline's numpy encoder. MaxSim is written out here as
a loop over the query's tokens, apart from ragkit's `maxsim_scores` and the notebook's own versions, so that a
check never trusts the learner's code.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from exercises.answers import number

DATA = Path(__file__).resolve().parents[2] / "data"
TYPES = ("keyword", "paraphrase", "context", "multi", "temporal", "multilingual")


@cache
def answerable_dev_queries() -> list:
    """The answerable dev queries of the course data."""
    from ragkit.corpus import load_queries

    return [q for q in load_queries(DATA / "queries.jsonl", split="dev") if q.evidence]


def check_diagnose(query_type, gap, pipe=None):
    """The query type with the largest gap between the contextual hybrid's recall@15 and recall@5 (dev), and
    that gap."""
    assert pipe is not None, "the check needs the notebook's pipe"
    assert query_type in TYPES, f"{query_type!r} is not one of the six query types of the course data"
    gap = number(gap, "the gap")
    assert 0 <= gap <= 1, "a gap between two recalls of one type lies between 0 and 1"
    table = pipe.using(method="hybrid", context="llm").evaluate(answerable_dev_queries(), ["recall@5", "recall@15"])
    means = table.groupby("type")[["recall@5", "recall@15"]].mean()
    gaps = means["recall@15"] - means["recall@5"]
    assert gaps[query_type] >= gaps.max() - 1e-12, \
        "another query type has a larger gap between the contextual hybrid's recall@15 and recall@5 on dev"
    assert abs(gap - gaps[query_type]) < 5.1e-4, \
        "the gap is not this type's mean recall@15 minus its mean recall@5 (contextual hybrid, dev, 3 decimals)"
    return "right"


def maxsim_loop(query_vectors: np.ndarray, chunk_vectors: np.ndarray) -> float:
    """Each query token's best dot product with any chunk token, averaged over the query tokens."""
    chunk = chunk_vectors.astype(np.float64)
    best = [max(float(np.dot(token, other)) for other in chunk) for token in query_vectors.astype(np.float64)]
    return sum(best) / len(best)


def without_special_answer(pipe) -> tuple[list[float], list[str]]:
    """The MaxSim of ops-021's word pieces with each of its 15 hybrid candidates, and the top 3 chunk ids."""
    from ragkit.reranking import candidates, chunk_token_vectors, numpy_encoder

    hybrid = pipe.using(method="hybrid", rerank="none")
    query = next(q for q in answerable_dev_queries() if q.query_id == "ops-021")
    rows = candidates(hybrid, [query.text], 15)[0][0]
    chunk_vectors = chunk_token_vectors(hybrid)
    words = numpy_encoder(hybrid).token_vectors([query.text])[0][1:-1]
    scores = [maxsim_loop(words, chunk_vectors[i]) for i in rows]
    order = sorted(range(len(rows)), key=lambda n: -scores[n])  # stable: ties keep first-stage order
    return scores, [hybrid.chunks[rows[n]].chunk_id for n in order[:3]]


def check_without_special(scores, top3, pipe=None):
    """MaxSim of ops-021's word pieces (no [CLS], no [SEP]) with its 15 hybrid candidates, and the new top 3."""
    assert pipe is not None, "the check needs the notebook's pipe"
    try:
        given = np.asarray(scores, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise AssertionError("the scores are not a list of numbers") from None
    assert len(given) == 15, "there are 15 candidates, so 15 scores"
    assert np.isfinite(given).all(), "a score is not a finite number"
    assert (np.abs(given) <= 1 + 1e-6).all(), "a mean of cosines lies between −1 and 1"
    expected, best3 = without_special_answer(pipe)
    if not np.allclose(given, expected, rtol=0, atol=1e-4):
        assert not np.allclose(given, expected, rtol=0, atol=5.1e-4), \
            "the scores are close to the right ones but not within 1e-4: the check wants them unrounded"
        assert not np.allclose(np.sort(given), np.sort(expected), rtol=0, atol=1e-4), \
            "these are the right scores, but not in the candidates' first-stage order"
        raise AssertionError("the scores are not MaxSim of the query's word pieces alone with every token of "
                             "each candidate")
    assert isinstance(top3, list | tuple) and len(top3) == 3, "the top 3 is a list of three chunk ids"
    assert list(top3) == best3, "these are not the chunk ids of the three highest of these scores, best first"
    return "right"
