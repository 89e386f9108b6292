"""Helpers that test files import by name (`from helpers import ROOT`): kept out of `conftest.py`, whose module
name the top-level `conftest.py` shares, so that an import never depends on which of the two loaded first."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
