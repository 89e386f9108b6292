"""The check of notebook 09b's exercise (the course's bi-encoder reading the pair, with a linear head: the MiniLM
pair head, not a trained cross-encoder): a head that reads the passage alone.

The check takes the learner's answer, then the notebook's `pipe` (the default hybrid), and recomputes the
answer from ragkit and scikit-learn: the answerable dev and test queries from the course data, each query's
hybrid top 20, labels from the judgments, the chunks' own embeddings, the notebook's `make_head(1.0)` (a
logistic regression fitted to the loss's minimum, tol=1e-10), and nDCG@10 of the re-ordered rankings. The
re-ordering is written out here, apart from the notebook's `reranked`, so that the check never trusts the
learner's code. A wrong answer is compared with the plausible slips (the hybrid's own order, the head that
reads the pair, another C, scikit-learn's default tolerance) to say which one it is.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from exercises.answers import number

DATA = Path(__file__).resolve().parents[2] / "data"
SLIPS = {
    "hybrid": "this is the hybrid's own order: the top 15 is not re-ordered by a head",
    "pair head": "this is the head that reads the pair (query and passage), not the passage alone",
    "other C": "this head's penalty strength C is not the one the exercise sets",
    "loose tol": "this head stopped short of the loss's minimum (a looser tolerance than the exercise's head)",
}


@cache
def answerable_queries(split: str) -> list:
    """The answerable queries of one split of the course data."""
    from ragkit.corpus import load_queries

    return [q for q in load_queries(DATA / "queries.jsonl", split=split) if q.evidence]


def head_ndcgs(pipe, settings) -> list[float]:
    """Test nDCG@10 of the hybrid's top 15 re-ordered by heads trained on the dev candidates, one per setting
    (features "passage" or "pair", C, tol); C None leaves the hybrid's order."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ragkit.embed.pairs import PairEncoder
    from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits
    from ragkit.evaluate.tables import per_query_metrics
    from ragkit.reranking import candidates

    hybrid = pipe.using(method="hybrid", rerank="none", threshold=None, rewrite="none")
    split = {name: answerable_queries(name) for name in ("dev", "test")}
    rows = {name: candidates(hybrid, [q.text for q in qs], 20)[0] for name, qs in split.items()}
    judgments = {name: judgments_from_queries(qs, hybrid.docs) for name, qs in split.items()}
    labels = [bool(hit) for row, judgment in zip(rows["dev"], judgments["dev"], strict=True)
              for hit in ranking_hits([hybrid.chunks[i] for i in row[:15]], judgment)]
    vectors = hybrid.chunk_embeddings.astype(np.float64)
    features = {("passage", name): np.vstack([vectors[row[:15]] for row in rows[name]]) for name in rows}
    if any(kind == "pair" for kind, _, _ in settings):  # the notebook's pair head reads the [CLS] pooler
        features |= {("pair", name): PairEncoder().features(
            [(q.text, hybrid.indexed_texts[i]) for q, row in zip(split[name], rows[name], strict=True)
             for i in row[:15]], "pooler").astype(np.float64) for name in rows}
    results = []
    for kind, C, tol in settings:
        probability = np.zeros(len(features["passage", "test"]))
        if C is not None:
            head = make_pipeline(StandardScaler(), LogisticRegression(C=C, solver="newton-cholesky", tol=tol))
            probability = head.fit(features[kind, "dev"], labels).predict_proba(features[kind, "test"])[:, 1]
        rankings = []
        for n, row in enumerate(rows["test"]):
            p = probability[15 * n:15 * n + 15]
            order = sorted(range(15), key=lambda m: -p[m])  # stable: ties keep the hybrid's order
            rankings.append([hybrid.chunks[row[m]] for m in order] + [hybrid.chunks[i] for i in row[15:]])
        results.append(float(per_query_metrics(rankings, judgments["test"], ["ndcg@10"])["ndcg@10"].mean()))
    return results


def passage_alone_ndcg(pipe) -> float:
    """Test nDCG@10 of the hybrid's top 15 re-ordered by make_head(1.0) trained on the candidates' own embeddings."""
    return head_ndcgs(pipe, [("passage", 1.0, 1e-10)])[0]


def slip_ndcgs(pipe) -> dict[str, list[float]]:
    """The answers of the plausible slips, by name (the keys of SLIPS)."""
    settings = {"hybrid": [("passage", None, None)], "pair head": [("pair", 0.01, 1e-10)],
                "other C": [("passage", C, 1e-10) for C in (0.001, 0.01, 0.1, 10.0)],
                "loose tol": [("passage", 1.0, 1e-4)]}
    values = iter(head_ndcgs(pipe, [s for group in settings.values() for s in group]))
    return {name: [next(values) for _ in group] for name, group in settings.items()}


def check_passage_alone(ndcg, pipe=None):
    """Mean test nDCG@10 of the hybrid's top 15 re-ordered by a head that reads each candidate's embedding alone."""
    assert pipe is not None, "the check needs the notebook's pipe"
    ndcg = number(ndcg, "nDCG@10")
    assert 0 <= ndcg <= 1, "a mean nDCG@10 lies between 0 and 1"
    if abs(ndcg - passage_alone_ndcg(pipe)) < 5.1e-4:
        return "right"
    for name, values in slip_ndcgs(pipe).items():
        assert not any(abs(ndcg - value) < 5.1e-4 for value in values), SLIPS[name]
    raise AssertionError("this is not the test nDCG@10 of the top 15 re-ordered by that head's probability (3 decimals)")
