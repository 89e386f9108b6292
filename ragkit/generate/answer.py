"""The answer stage: the top `k` chunks, ordered and optionally compressed, sent in notebook 00's prompt.

`order_passages` places ranked passages in the prompt: `rank` (best first), `edges` (best at both ends, the
weakest in the middle), `middle` (the best in the middle, the weakest at the ends) or `reversed` (best last).
`compress_passage` keeps only a passage's sentences that share an analyzed term with the query (seed 001's
"compress the top chunks", done extractively). `answer` sends the prompt (`ragkit.assemble.prompt.build_prompt`,
numbered sources, citations asked for) to any model with `complete(prompt)` (a recorded, server or local
model), and returns the text, the passages it cites and, for a model run here, the seconds and tokens.
Left out: abstractive compression, streaming, and prompts longer than the model's context (the model says so).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ragkit.assemble.prompt import build_prompt
from ragkit.chunk.base import Chunk
from ragkit.chunk.sentences import sentence_spans
from ragkit.errors import RagkitError, check_query
from ragkit.generate.grade import cited, refuses

ORDERS = ("rank", "edges", "middle", "reversed")
COMPRESSIONS = ("none", "query-sentences")


def order_passages(passages: Sequence, order: str = "rank") -> list:
    """Ranked passages (best first) in the order the prompt shows them.

    >>> [order_passages([1, 2, 3, 4, 5], o) for o in ORDERS]
    [[1, 2, 3, 4, 5], [1, 3, 5, 4, 2], [5, 3, 1, 2, 4], [5, 4, 3, 2, 1]]
    """
    if order not in ORDERS:
        raise RagkitError(f"unknown order {order!r}; choose one of {', '.join(ORDERS)}")
    passages = list(passages)
    return {"rank": passages, "edges": passages[0::2] + passages[1::2][::-1],
            "middle": passages[0::2][::-1] + passages[1::2], "reversed": passages[::-1]}[order]


def compress_passage(chunk: Chunk, query_terms: set[str], terms: Callable[[str], list[str]]) -> Chunk:
    """The chunk with only the sentences that share a term with the query (all of it when none does).

    >>> chunk = Chunk("d#0", "d", 0, 40, "Keys rotate yearly. Lunch is at noon.")
    >>> compress_passage(chunk, {"keys"}, lambda text: text.lower().split()).text
    'Keys rotate yearly.'
    """
    kept = [chunk.text[s:e] for s, e in sentence_spans(chunk.text) if query_terms & set(terms(chunk.text[s:e]))]
    return replace(chunk, text=" ".join(kept)) if kept else chunk


@dataclass
class Answer:
    """One generated answer: the text, the passages shown (in prompt order), what it cites, and its cost."""

    query: str
    text: str
    prompt: str
    shown: list[Chunk]
    seconds: float
    usage: dict = field(default_factory=dict)

    @property
    def cited(self) -> list[int]:
        return cited(self.text)

    @property
    def cited_chunks(self) -> list[Chunk]:
        return [self.shown[n - 1] for n in self.cited if 1 <= n <= len(self.shown)]

    @property
    def refused(self) -> bool:
        return refuses(self.text)


def answer_prompt(query: str, ranked: Sequence[Chunk], k: int, order: str = "rank", compress: str = "none",
                  terms: Callable[[str], list[str]] | None = None) -> tuple[str, list[Chunk]]:
    """(prompt, passages shown): the best `k` of `ranked`, compressed if asked, in `order`.

    >>> prompt, shown = answer_prompt("why?", [Chunk("a#0", "a", 0, 3, "A."), Chunk("b#0", "b", 0, 3, "B.")], k=2, order="reversed")
    >>> [c.chunk_id for c in shown], prompt.count("[")
    (['b#0', 'a#0'], 4)
    """
    query = check_query(query)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise RagkitError(f"k (passages in the prompt) must be a positive integer, got {k!r}")
    if compress not in COMPRESSIONS:
        raise RagkitError(f"unknown compression {compress!r}; choose one of {', '.join(COMPRESSIONS)}")
    top = list(ranked)[:k]
    if compress == "query-sentences":
        if terms is None:
            raise RagkitError("compress='query-sentences' needs the analyzer's terms function")
        wanted = set(terms(query))
        top = [compress_passage(chunk, wanted, terms) for chunk in top]
    shown = order_passages(top, order)
    return build_prompt(query, shown), shown


def answer(model, query: str, shown: Sequence[Chunk], prompt: str | None = None) -> Answer:
    """Ask `model` (anything with `complete(prompt, purpose)`) for an answer from the passages `shown`.

    >>> class Recorded:
    ...     def complete(self, prompt, purpose=""): return "Every 90 days [1]."
    >>> reply = answer(Recorded(), "how often?", [Chunk("k#0", "k", 0, 9, "Rotate every 90 days.")])
    >>> reply.text, reply.cited, reply.refused
    ('Every 90 days [1].', [1], False)
    """
    prompt = prompt or build_prompt(query, shown)
    started = time.perf_counter()
    text = model.complete(prompt, purpose=f"an answer to {query!r}")
    seconds = time.perf_counter() - started
    usage = dict(getattr(model, "last_usage", {}) or {}) if getattr(model, "mode", "replay") != "replay" else {}
    return Answer(query, text, prompt, list(shown), round(seconds, 4), usage)
