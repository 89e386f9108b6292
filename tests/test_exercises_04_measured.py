"""Notebook 04_chunking_measured's exercise checks (notebooks/exercises/chunking_measured.py) accept a right
answer computed here another way, reject the plausible wrong ones, and never give the answer away in their
messages."""

from types import SimpleNamespace

import numpy as np
import pytest
from helpers import assert_shows_none, exercise_checks, rejection

checks = exercise_checks("chunking_measured")
CONTEXT = "recall@3000 chars"


@pytest.fixture(scope="module")
def nb(course_pipe, course_queries):
    """What the notebook has, and right and wrong answers computed apart from the checks' code: the
    pipeline's own rankings and evaluation, and ragkit's paired bootstrap."""
    from ragkit.evaluate.metrics import paired_bootstrap
    from ragkit.evaluate.relevance import judgments_from_queries
    from ragkit.evaluate.tables import per_query_metrics

    dev = [q for q in course_queries if q.split == "dev"]
    judgments = judgments_from_queries(dev, course_pipe.docs)
    c = SimpleNamespace(pipe=course_pipe, dev=dev)

    def measured(chunker, size, overlap):
        """(summary row, per-query table) of one chunking, ranked by the pipeline."""
        variant = course_pipe.using(chunker=chunker, chunk_size=size, chunk_overlap=overlap)
        rankings = variant.rankings([q.text for q in dev], 20)
        in_budget = []
        for ranking in rankings:
            taken, used = [], 0
            for chunk in ranking:
                if taken and used + len(chunk.text) > 3000:
                    break
                taken.append(chunk)
                used += len(chunk.text)
            in_budget.append(taken)
        table = per_query_metrics(in_budget, judgments, ["recall@20"]).rename(columns={"recall@20": CONTEXT})
        table["recall@5"] = variant.evaluate(dev, ["recall@5"])["recall@5"].to_numpy()
        answerable = table[table.answerable]
        return {"chunks": len(variant.chunks), CONTEXT: answerable[CONTEXT].mean()}, answerable

    (c.row_500, c.table_500), (c.row_1200, _) = measured("sentence", 500, 0), measured("sentence", 1200, 0)
    c.row_800, sentence = measured("sentence", 800, 0)
    c.fixed_500 = measured("fixed", 500, 0)[0]
    _, fixed = measured("fixed", 800, 100)

    def scores(table, lang, metric="recall@5"):
        return (table if lang == "all" else table[table.lang == lang])[metric].to_numpy()

    c.edges = {lang: paired_bootstrap(scores(fixed, lang), scores(sentence, lang), seed=0) for lang in ("all", "zh")}
    c.swapped = paired_bootstrap(scores(sentence, "zh"), scores(fixed, "zh"), seed=0)
    c.context = paired_bootstrap(scores(fixed, "all", CONTEXT), scores(sentence, "all", CONTEXT), seed=0)
    c.level_90 = paired_bootstrap(scores(fixed, "all"), scores(sentence, "all"), level=0.90, seed=0)
    # another seed: 3, since on the 2026-12-07 labels seeds 1, 2, 4 and 5 happen to give seed 0's interval
    c.seed_other = paired_bootstrap(scores(fixed, "all"), scores(sentence, "all"), seed=3)
    a, b = scores(fixed, "all"), scores(sentence, "all")  # each chunking resampled on its own: not paired
    rng = np.random.default_rng(0)
    unpaired = [b[rng.integers(0, len(b), len(b))].mean() - a[rng.integers(0, len(a), len(a))].mean()
                for _ in range(10_000)]
    c.unpaired = (float(np.mean(b - a)), *np.percentile(unpaired, [2.5, 97.5]))
    return c


def test_sentence_sizes_accepts_a_right_answer(nb):
    assert checks.check_sentence_sizes(nb.row_500, nb.row_1200, nb.pipe, nb.dev) == "right"
    shown = {key: round(value, 3) for key, value in nb.row_500.items()}  # a row rounded for display
    assert checks.check_sentence_sizes(shown, nb.row_1200, nb.pipe, nb.dev) == "right"


@pytest.mark.parametrize("lang", ["all", "zh"])
def test_edge_accepts_a_right_answer(nb, lang):
    difference, low, high = nb.edges[lang]
    assert checks.check_edge(lang, difference, low, high, low > 0, nb.pipe, nb.dev) == "right"


def sizes(answer):
    return lambda nb: checks.check_sentence_sizes(*answer(nb), nb.pipe, nb.dev)


def edge(lang, interval, real=None):
    def call(nb):
        difference, low, high = interval(nb)
        return checks.check_edge(lang, difference, low, high, low > 0 if real is None else real, nb.pipe, nb.dev)
    return call


WRONG = {
    "check_sentence_sizes": {
        "the rows swapped": sizes(lambda nb: (nb.row_1200, nb.row_500)),
        "the 800-character row": sizes(lambda nb: (nb.row_800, nb.row_800)),
        "fixed windows, not sentences": sizes(lambda nb: (nb.fixed_500, nb.row_1200)),
        "the (row, table) pair": sizes(lambda nb: ((nb.row_500, nb.table_500), nb.row_1200)),
    },
    "check_edge": {
        "sentence first": edge("zh", lambda nb: nb.swapped),
        "the Chinese slice for all": edge("all", lambda nb: nb.edges["zh"]),
        "recall in 3,000 characters": edge("all", lambda nb: nb.context),
        "it won, so it is real": edge("all", lambda nb: nb.edges["all"], real=True),
        "a 90 % interval": edge("all", lambda nb: nb.level_90),
        "another seed": edge("all", lambda nb: nb.seed_other),
        "not paired": edge("all", lambda nb: nb.unpaired),
    },
}
CASES = [(check, slip) for check, slips in WRONG.items() for slip in slips]


def test_the_slips_are_wrong_answers(nb):
    # each slip must differ from the right answer, or its test proves nothing
    assert (nb.edges["all"][1] > 0) is False, "'it won, so it is real' is wrong only when the interval holds 0"
    assert nb.row_800["chunks"] not in (nb.row_500["chunks"], nb.row_1200["chunks"])
    assert nb.seed_other[1:] != nb.edges["all"][1:], "'another seed' is wrong only when its interval differs"


def giveaways(nb, check):
    """What a message must not contain: the right answer's numbers, as a learner would print them."""
    def numbers(*values):
        return [f"{v:{form}}" for v in values for form in (".2f", ".3f", "+.3f", ".1%", "")]

    if check == "check_sentence_sizes":
        return [str(row["chunks"]) for row in (nb.row_500, nb.row_1200)] + \
            numbers(nb.row_500[CONTEXT], nb.row_1200[CONTEXT])
    return numbers(*nb.edges["all"], *nb.edges["zh"])


@pytest.mark.parametrize(("check", "slip"), CASES, ids=[f"{check}: {slip}" for check, slip in CASES])
def test_check_rejects_a_wrong_answer_without_giving_the_answer_away(nb, check, slip):
    assert_shows_none(rejection(WRONG[check][slip], nb), giveaways(nb, check))
