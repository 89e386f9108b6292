"""The check of notebook 09b's exercise (a cross-encoder from the course's model): a head that reads the passage
alone.

The check takes the learner's answer, then the notebook's `pipe` (the default hybrid), and recomputes the
answer from ragkit and scikit-learn: the answerable dev and test queries from the course data, each query's
hybrid top 20, labels from the judgments, the chunks' own embeddings, and nDCG@10 of the re-ordered rankings.
The re-ordering is written out here, apart from the notebook's `reranked`, so that the check never trusts the
learner's code.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "data"


def number(value, name: str) -> float:
    """`value` as a float, or an AssertionError that says it is not one number."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} is not a number") from None
    assert math.isfinite(value), f"{name} is not a finite number"
    return value


def passage_alone_ndcg(pipe) -> float:
    """Test nDCG@10 of the hybrid's top 15 re-ordered by a head trained on the dev candidates' own embeddings."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ragkit.corpus import load_queries
    from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits
    from ragkit.evaluate.tables import per_query_metrics
    from ragkit.reranking import candidates

    hybrid = pipe.using(method="hybrid", rerank="none", threshold=None, rewrite="none")
    split = {name: [q for q in load_queries(DATA / "queries.jsonl", split=name) if q.evidence]
             for name in ("dev", "test")}
    rows = {name: candidates(hybrid, [q.text for q in qs], 20)[0] for name, qs in split.items()}
    judgments = {name: judgments_from_queries(qs, hybrid.docs) for name, qs in split.items()}
    labels = [bool(hit) for row, judgment in zip(rows["dev"], judgments["dev"], strict=True)
              for hit in ranking_hits([hybrid.chunks[i] for i in row[:15]], judgment)]
    vectors = hybrid.chunk_embeddings.astype(np.float64)
    head = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, solver="newton-cholesky"))
    head.fit(np.vstack([vectors[row[:15]] for row in rows["dev"]]), labels)
    rankings = []
    for row in rows["test"]:
        probability = head.predict_proba(vectors[row[:15]])[:, 1]
        order = sorted(range(len(row[:15])), key=lambda n: -probability[n])  # stable: ties in first-stage order
        rankings.append([hybrid.chunks[row[n]] for n in order] + [hybrid.chunks[i] for i in row[15:]])
    return float(per_query_metrics(rankings, judgments["test"], ["ndcg@10"])["ndcg@10"].mean())


def check_passage_alone(ndcg, pipe=None):
    """Mean test nDCG@10 of the hybrid's top 15 re-ordered by a head that reads each candidate's embedding alone."""
    assert pipe is not None, "the check needs the notebook's pipe"
    ndcg = number(ndcg, "nDCG@10")
    assert 0 <= ndcg <= 1, "a mean nDCG@10 lies between 0 and 1"
    assert abs(ndcg - passage_alone_ndcg(pipe)) < 5.1e-4, \
        "this is not the test nDCG@10 of the top 15 re-ordered by that head's probability (3 decimals)"
    return "right"
