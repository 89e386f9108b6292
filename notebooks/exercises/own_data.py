"""The checks of notebook 12's exercises (your own data): when to stop labelling, and what a judge reads.

Each check takes only the learner's answer. The figures it compares with are computed another way than the
notebook's: the per-query nDCG@10 from the eval command's own route (`ragkit.commands.load_eval_data`, rankings
scored by `per_query_metrics`), and the pool from each method's `search` results rather than `pool_for`.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

from exercises.answers import number

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo-handbook"
METHODS = ("dense", "bm25", "hybrid")


@cache
def pipeline():
    from ragkit import Pipeline, load_documents

    return Pipeline(load_documents(DEMO / "corpus"))


@cache
def ndcg_differences() -> tuple[float, ...]:
    """Per answerable demo query, the hybrid's nDCG@10 minus BM25's, through the eval command's loading."""
    from ragkit.commands import load_eval_data
    from ragkit.evaluate.tables import per_query_metrics

    _, queries, judgments, _ = load_eval_data(DEMO, "all")
    scores = {method: per_query_metrics(pipeline().using(method=method).rankings([q.text for q in queries], 10),
                                        judgments, ["ndcg@10"])["ndcg@10"].to_numpy() for method in METHODS}
    return tuple(float(x) for x in scores["hybrid"] - scores["dense"])


def check_queries_needed(value):
    """Queries for a true nDCG@10 difference of 0.05 between the hybrid and dense retrieval to stand out."""
    given = number(value, "the number of queries")
    differences = ndcg_differences()
    mean = sum(differences) / len(differences)
    spread = math.sqrt(sum((x - mean) ** 2 for x in differences) / (len(differences) - 1))
    needed = (1.96 * spread / 0.05) ** 2
    assert given > 0, "a number of queries is positive"
    if abs(given - needed * 4) <= needed * 0.25:
        raise AssertionError("four times too many: the interval's half-width, not its whole width, must be below "
                             "the difference")
    if abs(given - math.sqrt(needed)) <= 2:
        raise AssertionError("far too few: the half-width shrinks with the square root of the number of queries, "
                             "so solving for the number of queries squares the ratio")
    assert abs(given - needed) <= needed * 0.06 + 1, \
        "not the number of queries for that difference: check the spread you used (of the per-query differences " \
        "of the hybrid and dense retrieval, on nDCG@10) and the factor for a 95 % interval"
    return "right"


def check_pool(passages, in_all_three):
    """For demo query hb-001: the passages in the pool, and how many of them all three methods found."""
    given, shared = number(passages, "the number of passages"), number(in_all_three, "the number in all three")
    from ragkit.corpus import load_queries

    text = next(q.text for q in load_queries(DEMO / "queries.jsonl") if q.query_id == "hb-001")
    found = [{chunk.chunk_id for chunk, _ in pipeline().using(method=method).search(text, 10)} for method in METHODS]
    union, common = set().union(*found), set.intersection(*found)
    assert given != sum(map(len, found)), "a passage two methods found is read once, not once per method"
    assert given == len(union), "not the size of the pool: it holds every passage of any method's top 10, once"
    assert shared <= given, "the passages all three methods found are part of the pool"
    assert shared == len(common), "not the number of passages that are in every one of the three top 10s"
    return "right"
