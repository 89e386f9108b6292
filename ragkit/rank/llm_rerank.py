"""A language model as reranker and as query rewriter (seed 003's 0–10 judgments, seed 001's `rewrite_query`).

`llm_scores` sends one prompt per (query, passage) (`ragkit.llm.prompts.rerank_prompt`) and reads the score
the model answers; `rewritten_query` asks for a reformulated query when nothing relevant was found. Both go
through `ragkit.llm.client.LanguageModel`, so the course replays recorded answers offline and a reader can
run their own model. Left out: listwise prompts (all candidates in one prompt), sampling several answers and
averaging, and any retry on an unreadable answer (it is an error, so a bad recording cannot hide).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError
from ragkit.llm.prompts import rerank_prompt, rewrite_prompt

LEADING_NUMBER = re.compile(r"^\s*\**\s*(\d+(?:\.\d+)?)")


def parse_score(answer: str, low: float = 0, high: float = 10) -> float:
    """The number an answer starts with, checked to lie in [low, high].

    >>> parse_score("7"), parse_score(" 10 (it answers the question)")
    (7.0, 10.0)
    >>> parse_score("relevant")
    Traceback (most recent call last):
    ...
    ragkit.errors.RagkitError: a rerank answer must start with a score from 0 to 10, got 'relevant'
    """
    match = LEADING_NUMBER.match(answer)
    if not match or not low <= float(match.group(1)) <= high:
        raise RagkitError(f"a rerank answer must start with a score from {low:g} to {high:g}, got {answer[:60]!r}")
    return float(match.group(1))


def llm_scores(model, query: str, chunks: Sequence[Chunk]) -> np.ndarray:
    """The model's 0–10 relevance score of each chunk for `query` (one prompt per chunk).

    >>> class Fixed:  # any object with complete(prompt, purpose) -> str
    ...     def complete(self, prompt, purpose): return "9" if "quota" in prompt else "1"
    >>> llm_scores(Fixed(), "TS-203?", [Chunk("a#0", "a", 0, 5, "quota used", "Errors"),
    ...                                 Chunk("b#0", "b", 0, 5, "holidays", "HR")]).tolist()
    [9.0, 1.0]
    """
    return np.array([parse_score(model.complete(rerank_prompt(query, chunk.title, chunk.text), "a rerank score"))
                     for chunk in chunks], dtype=float)


def rewritten_query(model, query: str) -> str:
    """The model's rewrite of `query`: its first non-empty line, without quotes or a "Query:" label.

    >>> class Echo:
    ...     def complete(self, prompt, purpose): return 'Query: "TS-203 error code meaning daily quota"\\n'
    >>> rewritten_query(Echo(), "TS-203?")
    'TS-203 error code meaning daily quota'
    """
    lines = [line.strip() for line in model.complete(rewrite_prompt(query), "a query rewrite").splitlines()]
    line = next((line for line in lines if line), "")
    line = re.sub(r"^(rewritten query|query)\s*:\s*", "", line, flags=re.IGNORECASE).strip().strip('"“”\'')
    if not line:
        raise RagkitError(f"the language model returned an empty rewrite for {query!r}")
    return line
