"""The checks of notebook 10's exercises (10 · Evaluation, and its second part, 10 · Metrics and diagnosis).
Each takes the learner's answer first, then what the notebook already has (`tables`, `pipe`, the answerable
test queries), and raises `AssertionError` saying what is wrong with the answer.

The checks do not use the notebooks' own derivations: the paired bootstrap of exercise 1 is written out here
with numpy, and the chunk-level relevance of the success@k exercise (which chunk answers which part) is
written out here as a plain loop. The reference for success@k, and for its means over the dev queries, is
trec_eval (`pytrec_eval`).
`tests/test_exercises_10.py` shows that each check accepts a right answer computed another way and rejects
plausible wrong ones.
"""

from __future__ import annotations

import math

import numpy as np
import pytrec_eval

BEFORE, AFTER = "hybrid + LLM rerank (09)", "seed 003: RRF top 20 + LLM rerank"
N_RESAMPLES, SEED = 10_000, 0


def bootstrap_by_hand(differences: np.ndarray, n_resamples: int = N_RESAMPLES, seed: int = SEED,
                      level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of the mean of `differences`, resampling the queries with replacement."""
    picks = np.random.default_rng(seed).integers(0, len(differences), size=(n_resamples, len(differences)))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(differences[picks].mean(axis=1), [tail, 100 - tail])
    return float(low), float(high)


def check_seed_difference(difference, low, high, tables):
    before = tables[BEFORE]["failure@20"].to_numpy(dtype=float)
    after = tables[AFTER]["failure@20"].to_numpy(dtype=float)
    english = (tables[AFTER]["lang"] == "en").to_numpy()
    differences = after - before
    yours = [float(value) for value in (difference, low, high)]
    assert all(math.isfinite(value) for value in yours), "the difference and its interval must be three numbers"
    difference, low, high = yours
    assert low <= high, "the interval's low end is above its high end"
    if abs(difference - differences.mean()) > 1e-9:
        assert abs(difference + differences.mean()) > 1e-9, \
            "the difference points the wrong way: it is hybrid + LLM rerank minus seed 003"
        for name, mask in (("English", english), ("Chinese", ~english)):
            assert abs(difference - differences[mask].mean()) > 1e-9, \
                f"this mean is over the {name} test queries only, not all of them"
        for metric in tables[AFTER].columns:
            if "@" in metric and metric != "failure@20":
                other = tables[AFTER][metric].to_numpy(dtype=float) - tables[BEFORE][metric].to_numpy(dtype=float)
                assert not abs(difference - np.nanmean(other)) <= 1e-9, f"this is a difference in {metric}, not in failure@20"
        for name, table in tables.items():
            if name not in (BEFORE, AFTER) and "failure@20" in table.columns:
                other = after - table["failure@20"].to_numpy(dtype=float)
                assert abs(difference - other.mean()) > 1e-9, f"this difference is against {name}, not the hybrid + LLM rerank"
        assert abs(difference - 100 * differences.mean()) > 1e-6, "this difference is a hundred times too large"
        raise AssertionError("this number is not a mean difference in failure@20 between the two reranked pipelines "
                             "over the test queries")
    assert low <= difference <= high, "the interval does not contain the difference it belongs to"
    expected_low, expected_high = bootstrap_by_hand(differences)
    if abs(low - expected_low) > 1e-9 or abs(high - expected_high) > 1e-9:
        assert (high - low) < 1.2 * (expected_high - expected_low), \
            "the interval is far wider than a paired one: the two pipelines' queries were resampled apart"
        assert (high - low) > 0.9 * (expected_high - expected_low), \
            "the interval is narrower than a 95 % interval of 10,000 paired resamples of these differences"
        raise AssertionError("the interval's ends differ from a paired bootstrap of these differences with the "
                             "number of resamples and the seed the exercise asks for")
    return "right"


def parts_by_chunk(query, chunks, docs_by_id):
    """For each chunk: the parts of `query` it answers, a chunk covering a quote when it comes from the quote's
    document and overlaps at least half of the quote's characters."""
    found = []
    for chunk in chunks:
        parts = set()
        for position, evidence in enumerate(query.evidence):
            if chunk.doc_id != evidence.doc:
                continue
            start = docs_by_id[evidence.doc].text.index(evidence.quote)
            end = start + len(evidence.quote)
            if 2 * (min(chunk.end, end) - max(chunk.start, start)) >= len(evidence.quote):
                parts.update(evidence.parts or (position,))
        found.append(parts)
    return found


CASES = [([set(), {0}], 1), ([set(), {0}], 2), ([{1}, set()], 1), ([{0}, set()], 2), ([{0}, {1}], 2), ([{0}, {0}], 2),
         ([set(), set()], 2), ([set()] * 5 + [{0}], 5), ([set()] * 5 + [{0}], 6), ([{0, 1}, set(), {2}], 3)]
TOLERANCE = 5e-4   # a mean rounded to three decimals is still right


def trec_success(pipe, queries, ks):
    """trec_eval's success_k for each query and k, on the default hybrid's top 10 with chunk-level qrels (a
    chunk is relevant when it answers a part); and, per query, the parts each of those ten chunks answers."""
    docs_by_id = {doc.doc_id: doc for doc in pipe.docs}
    rankings = pipe.using(method="hybrid").rankings([q.text for q in queries], 10)
    every_chunk = {q.query_id: parts_by_chunk(q, pipe.chunks, docs_by_id) for q in queries}
    qrels = {qid: {chunk.chunk_id: 1 for chunk, parts in zip(pipe.chunks, found, strict=True) if parts}
             for qid, found in every_chunk.items()}
    run = {q.query_id: {chunk.chunk_id: float(10 - rank) for rank, chunk in enumerate(ranking)}
           for q, ranking in zip(queries, rankings, strict=True)}
    reference = pytrec_eval.RelevanceEvaluator(qrels, {f"success_{k}" for k in ks}).evaluate(run)
    success = {k: np.array([reference[q.query_id][f"success_{k}"] for q in queries]) for k in ks}
    return success, [parts_by_chunk(q, ranking, docs_by_id) for q, ranking in zip(queries, rankings, strict=True)]


def check_success(success_at_k, pipe, test):
    for parts, k in CASES:
        yours = success_at_k([set(p) for p in parts], k)
        assert yours in (0, 1), (f"for the ranking {parts} and k = {k} yours returns {yours!r}, which is neither 1 "
                                 "nor 0: success@k says only whether the top k holds a hit")
        assert yours == float(any(parts[:k])), (f"for the ranking {parts} and k = {k} yours returns {yours!r}, which "
                                                f"does not say whether any of the top {k} chunks answers a part")
    reference, found = trec_success(pipe, test, (1, 5, 10))
    for k in (1, 5, 10):
        yours = np.mean([success_at_k(parts, k) for parts in found])
        assert abs(yours - reference[k].mean()) < 1e-12, \
            f"your mean success@{k} over the test queries differs from trec_eval's"
    return "right"


def check_success_means(means, pipe, dev):
    assert hasattr(means, "keys") and set(means.keys()) == {1, 5}, "the answer is a dict with the keys 1 and 5"
    yours = {k: float(means[k]) for k in (1, 5)}
    assert all(math.isfinite(value) for value in yours.values()), "the two means must be numbers"
    assert all(0 <= value <= 1 for value in yours.values()), \
        "a mean success@k is a share of the queries: it lies between 0 and 1"
    reference, found = trec_success(pipe, dev, (1, 5))
    expected = {k: float(reference[k].mean()) for k in (1, 5)}
    if all(abs(yours[k] - expected[k]) <= TOLERANCE for k in (1, 5)):
        return "right"
    assert not (abs(yours[1] - expected[5]) <= TOLERANCE and abs(yours[5] - expected[1]) <= TOLERANCE), \
        "the two means are under each other's k"
    n_parts = [len({part for position, e in enumerate(q.evidence) for part in (e.parts or (position,))}) for q in dev]
    recall_5 = np.mean([len(set().union(*parts[:5])) / total for parts, total in zip(found, n_parts, strict=True)])
    assert abs(yours[5] - recall_5) > TOLERANCE, \
        "the mean for k = 5 gives part credit to a query that has only some of its parts in the top 5"
    mrr = np.mean([next((1 / rank for rank, hit in enumerate(parts, start=1) if hit), 0.0) for parts in found])
    assert abs(yours[1] - mrr) > TOLERANCE, "the mean for k = 1 gives credit to answers below rank 1"
    for k in (1, 5):
        assert abs(yours[k] - expected[k]) <= TOLERANCE, \
            f"your mean for k = {k} is not the share of the dev queries with an answering chunk in the default " \
            f"hybrid's top {k}"
    return "right"
