"""The checks of notebook 11's exercises (the playground): what the reranker adds, and failure@20 by hand.

Each check takes only the learner's answer: the figures it compares with come from the eval command
(`ragkit.commands.run_eval`, which builds its own pipeline from the course data), not from the playground the
learner used, so an answer read off the widget is checked against a second route to the same numbers.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data"


def number(value, name: str) -> float:
    """`value` as a float, or an AssertionError that says it is not one number."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} is not a number") from None
    assert math.isfinite(value), f"{name} is not a finite number"
    return value


def preset(name: str, **changes) -> list[tuple[str, object]]:
    """The settings of one of the playground's presets, with `changes`, as the eval command takes them."""
    from ragkit.config import PipelineConfig
    from ragkit.widgets.playground import preset_settings

    knobs, _ = preset_settings(PipelineConfig(), name)
    return list({**knobs, **changes}.items())


@cache
def command_figure(name: str, metric: str, lang: str | None = None, **changes) -> float:
    """The eval command's `metric` on the answerable dev queries (of `lang`) for preset `name` with `changes`."""
    from ragkit.commands import run_eval

    return run_eval(str(DATA), None, "dev", 10, preset(name, **changes), lang=lang)["metrics"][metric]


def check_rerank_gain(difference):
    """MRR@10 of seed 003's pipeline with its reranker minus without, on the Chinese dev queries."""
    given = number(difference, "the difference")
    assert -1 <= given <= 1, "MRR@10 lies between 0 and 1, so a difference of two lies between −1 and 1"
    seed = "seed 003's pipeline"
    gain = command_figure(seed, "mrr@10", "zh") - command_figure(seed, "mrr@10", "zh", rerank="none")
    assert abs(given - gain) < 0.001, \
        "this is not the change in MRR@10 that the reranker makes on the Chinese dev queries (to 3 decimals)"
    return "right"


def check_failure(value):
    """Naive RAG's mean failure@20 over the answerable dev queries."""
    given = number(value, "the value")
    assert 0 <= given <= 1, "a failure rate is a share, between 0 and 1"
    assert abs(given - command_figure("naive RAG", "failure@20")) < 0.0005, \
        "this is not naive RAG's failure@20 over the answerable dev queries (to 3 decimals)"
    return "right"
