"""The checks of notebook 11's exercises (the playground): what the reranker adds, and failure@10 by hand.

Each check takes only the learner's answer and builds what it compares with from the course data itself, not
from the playground the learner used: `check_rerank_gain` asks the eval command (`ragkit.commands.run_eval`),
`check_failure` ranks the answerable dev queries with a pipeline of its own and scores them with
`ragkit.evaluate.tables.per_query_metrics`. When an answer is wrong, the check compares it with the slips a
learner would plausibly make, to say what is wrong with it, never what the right answer is.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from exercises.answers import number

DATA = Path(__file__).resolve().parents[2] / "data"
SEED, NAIVE = "seed 003's pipeline", "naive RAG"


def preset(name: str, **changes) -> list[tuple[str, object]]:
    """The settings of one of the playground's presets, with `changes`, as the eval command takes them."""
    from ragkit.config import PipelineConfig
    from ragkit.widgets.playground import preset_settings

    knobs, _ = preset_settings(PipelineConfig(), name)
    return list({**knobs, **changes}.items())


@cache
def command(name: str, split: str = "dev", **changes) -> dict:
    """The eval command's result for preset `name` with `changes` on the answerable queries of `split`."""
    from ragkit.commands import run_eval

    return run_eval(str(DATA), method=None, split=split, k=10, settings=preset(name, **changes))


def figure(name: str, metric: str, lang: str = "all", split: str = "dev", **changes) -> float:
    """The eval command's mean `metric` for preset `name` (with `changes`) on `split`, over `lang` or all."""
    result = command(name, split, **changes)
    return result["metrics"][metric] if lang == "all" else result["by_lang"][lang][metric]


def rerank_change(metric: str = "mrr@10", lang: str = "zh", split: str = "dev") -> float:
    """`metric` of seed 003's pipeline with its reranker minus without, on `lang` queries of `split`."""
    return figure(SEED, metric, lang, split) - figure(SEED, metric, lang, split, rerank="none")


def check_rerank_gain(difference):
    """MRR@10 of seed 003's pipeline with its reranker minus without, on the Chinese dev queries."""
    given = number(difference, "the difference")
    assert -1 <= given <= 1, "MRR@10 lies between 0 and 1, so a difference of two lies between −1 and 1"
    near = lambda value: abs(given - value) < 0.001  # noqa: E731 - three decimals are enough
    if near(rerank_change()):
        return "right"
    slips = [
        (lambda: -rerank_change(), "this difference has the wrong sign"),
        (lambda: rerank_change(lang="all"), "this is the change on all dev queries, not on the Chinese ones"),
        (lambda: rerank_change(lang="en"), "this is the change on the English dev queries, not on the Chinese ones"),
        (lambda: rerank_change(split="test"), "this is the change on the Chinese test queries, not the dev ones"),
        (lambda: rerank_change("ndcg@10"), "this is a change in nDCG@10, not in MRR@10"),
        (lambda: figure(SEED, "mrr@10", "zh") - figure(NAIVE, "mrr@10", "zh"),
         "this compares seed 003's pipeline with naive RAG, not with itself without its reranker"),
    ]
    for lang in ("zh", "all"):
        for changes in ({}, {"rerank": "none"}):
            slips.append((lambda lang=lang, changes=changes: figure(SEED, "mrr@10", lang, **changes),
                          "this is one pipeline's MRR@10, not the change between two"))
    for slip, message in slips:
        assert not near(slip()), message
    raise AssertionError("this is not the change in MRR@10 that the reranker makes on the Chinese dev queries "
                         "(to 3 decimals)")


@cache
def naive_dev() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Naive RAG's failure@10 and failure@20 per answerable dev query and, per query, whether it has more
    evidence quotes than parts."""
    from ragkit.commands import load_eval_data
    from ragkit.evaluate.tables import per_query_metrics
    from ragkit.pipeline import Pipeline

    docs, queries, judgments, config = load_eval_data(DATA, "dev")
    pipe = Pipeline(docs, config, **dict(preset(NAIVE)))
    table = per_query_metrics(pipe.rankings([query.text for query in queries], 20), judgments,
                              ["failure@10", "failure@20"])
    more_quotes = np.array([len(judgment.targets) > len(judgment.part_gains()) for judgment in judgments])
    return table["failure@10"].to_numpy(float), table["failure@20"].to_numpy(float), more_quotes


def check_failure(shares):
    """Naive RAG's failure@10 on each answerable dev query, in the order of the notebook's `answerable`."""
    right, at_20, more_quotes = naive_dev()
    assert np.ndim(shares) == 1, "this is not a list of numbers, one per answerable dev query"
    try:
        given = np.asarray(shares, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("these are not all numbers") from None
    assert len(given) == len(right), f"this has {len(given)} values; there are {len(right)} answerable dev queries"
    assert np.isfinite(given).all(), "some values are not finite numbers"
    assert ((given >= 0) & (given <= 1)).all(), "a share lies between 0 and 1, and some values here do not"
    off = np.abs(given - right) > 0.0006  # three decimals are enough
    if not off.any():
        return "right"
    assert not (np.abs(given - (1 - right)) <= 0.0006).all(), \
        "these are the shares of parts the top 10 answers, not of the parts it misses"
    assert not (np.abs(given - at_20) <= 0.0006).all(), \
        "these are the shares that naive RAG's top 20 misses (its failure@20), not its top 10"
    whole = [right > 0, right == 1]  # a query counted as failed when it misses any part, or only every part
    assert not any((given == failed).all() for failed in whole), \
        "these count each query as failed or not, but some queries miss only some of their parts"
    assert not (np.abs(np.sort(given) - np.sort(right)) <= 0.0006).all(), \
        "these values are not in the order of the answerable dev queries"
    assert not more_quotes[off].all(), "these differ only on queries that have more evidence quotes than parts"
    assert not (given >= right - 0.0006).all(), \
        "on some queries these count as missed a part that a chunk of naive RAG's top 10 answers"
    assert not (given <= right + 0.0006).all(), \
        "on some queries these count as answered a part that no chunk of naive RAG's top 10 answers"
    raise AssertionError(f"{off.sum()} values are not the share of parts that naive RAG's top 10 misses for their "
                         "query")
