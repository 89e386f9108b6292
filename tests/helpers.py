"""Helpers that test files import by name (`from helpers import ROOT`): kept out of `conftest.py`, whose module
name the top-level `conftest.py` shares, so that an import never depends on which of the two loaded first."""

import contextlib
import importlib.util
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")  # Debian's chromium package: Playwright's own browser download is not used


def browser_missing() -> str | None:
    """Why the browser tests cannot run here (None when they can): no chromium, or no Playwright to drive it."""
    if not CHROMIUM.exists():
        return f"no browser: {CHROMIUM} is missing (install Debian's chromium package, as .ci/run does)"
    if importlib.util.find_spec("playwright") is None:
        return "no browser driver: playwright is not installed (pip install -e '.[test]')"
    return None


@contextlib.contextmanager
def chromium():
    """Debian's chromium, headless, driven by Playwright, until the block ends."""
    from playwright.sync_api import sync_playwright

    args = ["--disable-dev-shm-usage"] + (["--no-sandbox"] if os.geteuid() == 0 else [])  # root: no sandbox
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args, timeout=60_000)
        try:
            yield browser
        finally:
            browser.close()


def stop_process_group(process, grace: float) -> None:
    """Stop a server started in its own process group: SIGTERM, then SIGKILL if it outlives `grace` seconds."""
    import signal
    import subprocess

    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def exercise_checks(topic: str):
    """The exercise checks of one notebook (`notebooks/exercises/<topic>.py`), imported as the notebook does."""
    import importlib
    import sys

    notebooks = str(ROOT / "notebooks")
    if notebooks not in sys.path:
        sys.path.insert(0, notebooks)
    return importlib.import_module(f"exercises.{topic}")


def rejection(check, *answer) -> str:
    """The message of the AssertionError that `check(*answer)` must raise: it says something, and no solution."""
    import pytest

    with pytest.raises(AssertionError) as raised:
        check(*answer)
    message = str(raised.value)
    assert message, "every rejection says what is wrong"
    assert "solution" not in message.lower()
    return message


def rejection_messages(wrong_answers) -> list[str]:
    """What each wrong answer's check tells the learner: a `rejection` each, printed for runs with `-s`."""
    told = []
    for wrong in wrong_answers:
        told.append(rejection(wrong))
        print("  rejected:", told[-1])
    return told


def messages_showing(messages, *texts) -> list[str]:
    """The messages that contain any of `texts`, the right answer as a learner would print it."""
    return [message for message in messages if any(text in message for text in texts)]


def assert_shows_none(message: str, giveaways) -> None:
    """Assert that `message` shows none of `giveaways` on its own (inside a longer number or word it may)."""
    import re

    for shown in giveaways:
        assert not re.search(rf"(?<![\w.]){re.escape(shown)}(?!\w)", message), f"the message shows {shown}: {message}"


def holm_step_down(p_values, alpha) -> set[int]:
    """Holm's rejections as he states them: the i-th smallest p against α / (m − i + 1), until one fails."""
    rejected = set()
    for step, j in enumerate(sorted(range(len(p_values)), key=lambda j: p_values[j])):
        if p_values[j] > alpha / (len(p_values) - step):
            break
        rejected.add(j)
    return rejected


def sign_flip_p_by_the_loop(d, resamples, seed=0) -> float:
    """The sign-flip test's p-value as worded: a coin toss flips each query's sign, the |mean| compared."""
    import numpy as np

    rng, observed, reach = np.random.default_rng(seed), abs(sum(d) / len(d)), 0
    for _ in range(resamples):
        total = sum(-value if rng.random() < 0.5 else value for value in d)
        reach += abs(total / len(d)) >= observed - 1e-12
    return (1 + reach) / (1 + resamples)


def end_tolerance(a, b, n_resamples) -> float:
    """How far two paired bootstraps' interval ends may differ by chance, for scores `a`, `b` in halves."""
    import numpy as np
    from scipy import stats

    # four standard errors of the difference between two independent Monte-Carlo estimates of a 2.5 % quantile
    # (s·√(0.025 · 0.975 / B) / φ(1.96) each, s the standard deviation of the mean difference), plus one step of
    # the grid the resampled means lie on (scores in halves: 0.5 / n)
    s = np.std(b - a) / np.sqrt(len(a))
    return 4 * np.sqrt(2) * s * np.sqrt(0.025 * 0.975 / n_resamples) / stats.norm.pdf(1.96) + 0.5 / len(a)


def computed_once(compute, pipe, key):
    """`compute(pipe, ...)` with each result kept by `key(...)` (the arguments after the pipe): a check's costly
    reference computed once for a test module, not again on each of the answers its tests give the check. The
    check must be given `pipe`, the module's one pipeline, since the kept results are that pipeline's. Every call
    gets the one kept result: the checks only read it (a check that changed it would change the next test's)."""
    kept = {}

    def once(given, *arguments, **named):
        assert given is pipe, "the checks are tested with the module's pipeline"
        found = key(*arguments, **named)
        if found not in kept:
            kept[found] = compute(given, *arguments, **named)
        return kept[found]

    return once
