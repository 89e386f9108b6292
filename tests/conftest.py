"""Shared test setup: no progress bars, no hub, and the course data loaded once."""

import os

os.environ.setdefault("RAGKIT_PROGRESS", "0")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

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


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def course_docs():
    from ragkit.corpus import load_documents

    return load_documents(ROOT / "data" / "corpus")


@pytest.fixture(scope="session")
def course_queries():
    from ragkit.corpus import load_queries

    return load_queries(ROOT / "data" / "queries.jsonl")


@pytest.fixture(scope="session")
def encoder():
    from ragkit.embed.model import Encoder

    return Encoder()
