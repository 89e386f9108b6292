"""The checks of notebook 10's exercises (10 · Evaluation, and its second part, 10 · Metrics and diagnosis).
Each takes the learner's answer first, then what the notebook already has (`tables`, `pipe`, the answerable
test queries), and raises `AssertionError` saying what is wrong with the answer.

The checks do not use the notebooks' own derivations: the paired bootstrap of exercise 1 is written out here
with numpy, and the chunk-level relevance of the success@k exercise (which chunk answers which part) is
written out here as a plain loop. The reference for success@k, and for its means over the dev queries, is
trec_eval (`pytrec_eval`). The corrections of exercise 2 are Holm's and Benjamini and Hochberg's procedures written
out here as plain loops over the sorted p-values (the tests compare them with statsmodels' `multipletests`), and
the snippets of exercise 3 are given here so that a learner can run them; which of them break the pairs is not
written down here: the check finds it by running them on paired data (the tests find it another way).
`tests/test_exercises_10.py` shows that each check accepts a right answer computed another way and rejects
plausible wrong ones.
"""

from __future__ import annotations

import functools
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


# Exercise 2 of 10 · Evaluation: Holm, and Benjamini and Hochberg, by hand on ten p-values (given unsorted)
P_VALUES = {"H1": 0.034, "H2": 0.0052, "H3": 0.2, "H4": 0.009, "H5": 0.001, "H6": 0.047, "H7": 0.0071, "H8": 0.032,
            "H9": 0.007, "H10": 0.044}
ALPHA = 0.05


def holm_by_loop(p_values: dict, alpha: float = ALPHA, order: list | None = None) -> set:
    """Holm (1979) as he states it: the i-th smallest p-value (i from 0) against alpha / (m − i); stop at the first
    that is above its line. Given `order`, the lines are applied to the p-values in that order instead of sorted
    (the slip of not sorting them)."""
    rejected = set()
    for i, name in enumerate(sorted(p_values, key=p_values.get) if order is None else order):
        if p_values[name] > alpha / (len(p_values) - i):
            break
        rejected.add(name)
    return rejected


def bh_by_loop(p_values: dict, q: float = ALPHA) -> set:
    """Benjamini and Hochberg (1995): the largest i (from 1) whose i-th smallest p-value is at most i · q / m; the
    i smallest p-values are rejected, even those above their own line."""
    ordered = sorted(p_values, key=p_values.get)
    largest = max((i for i, name in enumerate(ordered, 1) if p_values[name] <= i * q / len(ordered)), default=0)
    return set(ordered[:largest])


def hypotheses(answer, name: str) -> set:
    """The learner's answer as a set of hypothesis names."""
    assert not isinstance(answer, (str, bytes)) and hasattr(answer, "__iter__"), \
        f"{name} is a set of hypothesis names from P_VALUES, for example {{'H3', 'H6'}}"
    names = {str(label).strip().upper() for label in answer}
    assert names <= set(P_VALUES), f"{name} holds names that are not hypotheses of P_VALUES: {sorted(names - set(P_VALUES))}"
    return names


def check_corrections(holm_rejects, bh_rejects, p_values=None):
    p_values = dict(P_VALUES if p_values is None else p_values)
    holm_set, bh_set = hypotheses(holm_rejects, "holm_rejects"), hypotheses(bh_rejects, "bh_rejects")
    m, ordered = len(p_values), sorted(p_values, key=p_values.get)
    raw = {name for name, p in p_values.items() if p <= ALPHA}
    in_given_order = list(p_values)
    for name, yours in (("holm_rejects", holm_set), ("bh_rejects", bh_set)):
        assert yours <= raw, f"{name} rejects a hypothesis whose p-value is above {ALPHA} even before any correction"
        assert yours != raw or yours == (holm_by_loop if name == "holm_rejects" else bh_by_loop)(p_values), \
            f"{name} is every p-value at most {ALPHA}: no correction at all"
    if holm_set != holm_by_loop(p_values):
        assert holm_set != {n for n in p_values if p_values[n] <= ALPHA / m}, \
            "holm_rejects compares every p-value with α / m (Bonferroni): Holm's line rises at each step"
        assert holm_set != {n for i, n in enumerate(ordered) if p_values[n] <= ALPHA / (m - i)}, \
            "holm_rejects keeps going after a p-value fails its line: Holm's procedure stops at the first failure"
        step_up = max((i for i, n in enumerate(ordered, 1) if p_values[n] <= ALPHA / (m - i + 1)), default=0)
        assert holm_set != set(ordered[:step_up]), \
            "holm_rejects steps up from the largest p-value (that is Hochberg's procedure); Holm steps down from the " \
            "smallest and stops at the first p-value above its line"
        assert holm_set != holm_by_loop(p_values, order=in_given_order), \
            "holm_rejects applies the lines to the p-values in the order given: sort them first"
        raise AssertionError("holm_rejects is not the set Holm's step-down procedure rejects at α = 0.05")
    if bh_set != bh_by_loop(p_values):
        step_down = next((i for i, n in enumerate(ordered) if p_values[n] > (i + 1) * ALPHA / m), m)
        assert bh_set != set(ordered[:step_down]), \
            "bh_rejects stops at the first p-value above its line (a step-down); Benjamini and Hochberg step up: " \
            "find the largest i whose p-value is under its line"
        assert bh_set != {n for i, n in enumerate(ordered, 1) if p_values[n] <= i * ALPHA / m}, \
            "bh_rejects keeps only the p-values under their own line; every p-value smaller than the largest one " \
            "under its line is rejected too"
        in_order = max((i for i, n in enumerate(in_given_order, 1) if p_values[n] <= i * ALPHA / m), default=0)
        assert bh_set != set(in_given_order[:in_order]), \
            "bh_rejects applies the lines to the p-values in the order given: sort them first"
        raise AssertionError("bh_rejects is not the set Benjamini and Hochberg's step-up procedure rejects at q = 0.05")
    return "right"


# Exercise 3 of 10 · Evaluation: spot the bootstrap that breaks the pairs. Each snippet returns a 95 % interval of
# the mean difference after − before over the same queries (two numpy arrays, one value per query).
def snippet_a(before, after, rng, n_resamples=10_000):
    picks = rng.integers(0, len(before), size=(n_resamples, len(before)))
    return np.percentile(after[picks].mean(axis=1) - before[picks].mean(axis=1), [2.5, 97.5])


def snippet_b(before, after, rng, n_resamples=10_000):
    size = (n_resamples, len(before))
    means_before = before[rng.integers(0, len(before), size)].mean(axis=1)
    means_after = after[rng.integers(0, len(after), size)].mean(axis=1)
    return np.percentile(means_after - means_before, [2.5, 97.5])


def snippet_c(before, after, rng, n_resamples=10_000):
    differences = after - before
    means = [rng.choice(differences, size=len(differences)).mean() for _ in range(n_resamples)]
    return np.percentile(means, [2.5, 97.5])


def snippet_d(before, after, rng, n_resamples=10_000):
    picks = rng.integers(0, len(before), size=(n_resamples, len(before)))
    shuffled = after[rng.permutation(len(after))]
    return np.percentile((shuffled[picks] - before[picks]).mean(axis=1), [2.5, 97.5])


SNIPPETS = {"A": snippet_a, "B": snippet_b, "C": snippet_c, "D": snippet_d}


@functools.cache
def _snippets_that_break_the_pairs() -> frozenset:
    """The snippets found by running them: on two systems whose per-query scores move together (hard queries stay
    hard), a paired interval is about as wide as `bootstrap_by_hand`'s on the differences, and one that resamples
    the systems apart is several times wider. Computed once (the data and seeds are fixed)."""
    rng = np.random.default_rng(7)
    before = rng.random(150)
    after = np.clip(before + rng.normal(0.05, 0.05, 150), 0, 1)
    low, high = bootstrap_by_hand(after - before)
    ratios = {label: float(np.subtract(*snippet(before, after, np.random.default_rng(1))[::-1])) / (high - low)
              for label, snippet in SNIPPETS.items()}
    assert all(0.8 < ratio < 1.25 or ratio > 3 for ratio in ratios.values()), \
        "a snippet's interval is neither about as wide as a paired one nor several times wider"
    return frozenset(label for label, ratio in ratios.items() if ratio > 3)


def check_unpaired(unpaired):
    assert not isinstance(unpaired, (str, bytes)) and hasattr(unpaired, "__iter__"), \
        "unpaired is a set of snippet letters, for example {'A'}"
    yours = {str(label).strip().upper() for label in unpaired}
    assert yours <= set(SNIPPETS), f"unpaired holds letters that name no snippet: {sorted(yours - set(SNIPPETS))}"
    assert yours, "at least one snippet treats the two systems' queries as independent samples"
    breaking = _snippets_that_break_the_pairs()
    assert not yours - breaking, \
        "a snippet you named keeps each query's two scores together in every resample: its interval is a paired one"
    assert not breaking - yours, "another snippet also breaks the pairs, in a less obvious way"
    return "right"
