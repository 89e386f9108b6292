"""Notebook 04's exercise checks (notebooks/exercises/chunking.py) accept a right answer computed here another
way, reject the plausible wrong ones, and never give the answer away in their messages."""

import statistics
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import assert_shows_none, exercise_checks, rejection

checks = exercise_checks("chunking")


def groups(cuts, n):
    """Sentence counts of the groups that cuts after sentences `cuts` make of n sentences (no guards)."""
    edges = [0, *sorted(int(c) + 1 for c in cuts), n]
    return [b - a for a, b in zip(edges, edges[1:], strict=False) if b > a]


def quote_share(chunks, targets):
    """Share of the quotes that lie whole in one chunk, matched chunk by chunk."""
    whole = 0
    for t in targets:
        whole += any(c.doc_id == t.doc_id and c.start <= t.start <= t.end <= c.end for c in chunks)
    return whole / len(targets)


@pytest.fixture(scope="module")
def nb(course_pipe, course_docs, course_queries, encoder):
    """What the notebook has, and right and wrong answers computed apart from the checks' code."""
    from ragkit.chunk.base import chunk_corpus
    from ragkit.chunk.fixed import fixed_size_chunks
    from ragkit.chunk.semantic import adjacent_similarities, guarded_bounds, semantic_chunks
    from ragkit.chunk.sentences import sentence_spans
    from ragkit.evaluate.relevance import judgments_from_queries

    ops = next(doc for doc in course_docs if doc.doc_id == "rb-platform-operations")
    dev = [q for q in course_queries if q.split == "dev"]
    c = SimpleNamespace(ops=ops, encoder=encoder, docs=course_docs, dev=dev)
    spans = sentence_spans(ops.text)
    values = adjacent_similarities(encoder.encode([ops.text[s:e] for s, e in spans]), 3).tolist()

    # exercise 1: Python's statistics for the percentile, ragkit's semantic chunker end to end for the chunks
    def percentile(p):
        return statistics.quantiles(values, n=100, method="inclusive")[p - 1]

    def n_chunks(p, max_size=800):
        return len(semantic_chunks(ops, encoder, "percentile", amount=p, window=3, min_size=200, max_size=max_size))

    c.cuts = {p: sum(v < percentile(p) for v in values) for p in (10, 20)}
    c.chunks = {p: n_chunks(p) for p in (10, 20)}
    c.min_guard_only = n_chunks(20, max_size=len(ops.text))
    fraction = np.percentile(values, 0.2)
    c.fraction = (sum(v < fraction for v in values), n_chunks(0.2))

    # exercise 2: the std line from Python's statistics, one-sentence groups counted without ragkit's guards
    line = statistics.fmean(values) - statistics.pstdev(values)
    c.above = [i for i, v in enumerate(values) if v > line]
    c.below = [i for i, v in enumerate(values) if v < line]
    c.mean_only = [i for i, v in enumerate(values) if v > statistics.fmean(values)]
    sizes = groups(c.above, len(spans))
    c.right_single, c.n_unguarded, c.n_gaps = sizes.count(1) / len(sizes), len(sizes), len(values)
    guarded = guarded_bounds(ops.text, spans, np.array(values), c.above, 200, 800)
    c.guarded_single = np.mean([bound in spans for bound in guarded])

    # exercise 3: the pipeline's sentence chunks, quotes matched one by one
    def targets(queries):
        return [t for j in judgments_from_queries(queries, course_docs) for t in j.targets]

    def sentence_share(size, queries=dev):
        return quote_share(course_pipe.using(chunker="sentence", chunk_size=size, chunk_overlap=0).chunks,
                           targets(queries))

    c.right_share, c.share_800 = sentence_share(500), sentence_share(800)
    c.share_all_queries = sentence_share(500, list(course_queries))
    c.fixed_share = quote_share(chunk_corpus(course_docs, fixed_size_chunks, size=500, overlap=0), targets(dev))
    return c


def test_more_cuts_accepts_a_right_answer(nb):
    assert checks.check_more_cuts(nb.cuts[20], nb.chunks[20], nb.ops, nb.encoder) == "right"


def test_backwards_accepts_a_right_answer(nb):
    assert checks.check_backwards(nb.above, nb.right_single, nb.ops, nb.encoder) == "right"
    assert checks.check_backwards(np.array(nb.above[::-1]), nb.right_single, nb.ops, nb.encoder) == "right"


def test_sentence_quotes_accepts_a_right_answer(nb):
    assert checks.check_sentence_quotes(nb.right_share, nb.docs, nb.dev) == "right"


def more_cuts(answer):
    return lambda nb: checks.check_more_cuts(*answer(nb), nb.ops, nb.encoder)


def backwards(answer):
    return lambda nb: checks.check_backwards(*answer(nb), nb.ops, nb.encoder)


def quotes(answer):
    return lambda nb: checks.check_sentence_quotes(answer(nb), nb.docs, nb.dev)


WRONG = {
    "check_more_cuts": {
        "the default 10th percentile": more_cuts(lambda nb: (nb.cuts[10], nb.chunks[10])),
        "chunks before the guards": more_cuts(lambda nb: (nb.cuts[20], nb.cuts[20] + 1)),
        "gaps above, not below": more_cuts(lambda nb: (len(nb.above) + len(nb.below) - nb.cuts[20], nb.chunks[20])),
        "p as a fraction (0.2)": more_cuts(lambda nb: nb.fraction),
        "the minimum guard only": more_cuts(lambda nb: (nb.cuts[20], nb.min_guard_only)),
    },
    "check_backwards": {
        "the right way round": backwards(lambda nb: (nb.below, nb.right_single)),
        "the mean, no std": backwards(lambda nb: (nb.mean_only, nb.right_single)),
        "gap numbers off by one": backwards(lambda nb: ([i + 1 for i in nb.above], nb.right_single)),
        "a mask, not gap numbers": backwards(lambda nb: ([i in nb.above for i in range(nb.n_gaps)], nb.right_single)),
        "a count, not a share": backwards(lambda nb: (nb.above, nb.right_single * nb.n_unguarded)),
        "the share after the guards": backwards(lambda nb: (nb.above, nb.guarded_single)),
    },
    "check_sentence_quotes": {
        "fixed 500/0 windows": quotes(lambda nb: nb.fixed_share),
        "the share of quotes cut": quotes(lambda nb: 1 - nb.right_share),
        "800 characters": quotes(lambda nb: nb.share_800),
        "a percentage": quotes(lambda nb: 100 * nb.right_share),
        "the quotes of every query, dev and test": quotes(lambda nb: nb.share_all_queries),
    },
}
CASES = [(check, slip) for check, slips in WRONG.items() for slip in slips]


def test_the_slips_are_wrong_answers(nb):
    # each slip must differ from the right answer, or its test proves nothing
    assert nb.cuts[10] != nb.cuts[20] and nb.chunks[10] != nb.chunks[20] and nb.fraction[0] != nb.cuts[20]
    assert nb.min_guard_only != nb.chunks[20] and nb.cuts[20] + 1 != nb.chunks[20]
    assert nb.mean_only != nb.above and nb.guarded_single != nb.right_single
    assert len({nb.right_share, nb.share_800, nb.share_all_queries, nb.fixed_share}) == 4


def giveaways(nb, check):
    """What a message must not contain: the right answer's numbers, as a learner would print them."""
    def numbers(*values):
        return [f"{v:{form}}" for v in values for form in (".2f", ".3f", ".1%", "")]

    return {"check_more_cuts": [str(nb.cuts[20]), str(nb.chunks[20])],
            "check_backwards": numbers(nb.right_single) + [f"{a}, {b}" for a, b in zip(nb.above, nb.above[1:], strict=False)],
            "check_sentence_quotes": numbers(nb.right_share)}[check]


@pytest.mark.parametrize(("check", "slip"), CASES, ids=[f"{check}: {slip}" for check, slip in CASES])
def test_check_rejects_a_wrong_answer_without_giving_the_answer_away(nb, check, slip):
    assert_shows_none(rejection(WRONG[check][slip], nb), giveaways(nb, check))
