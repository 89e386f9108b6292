"""Assemble the prompt a generator would receive: numbered sources, then the question.

Naive RAG stops here: the retrieved chunks are pasted in rank order with a citation number each, and the
model is told to answer only from them and to cite. Left out: calling a model (the course measures
retrieval), token budgets, and reordering chunks for position bias (notebook 08).
"""

from __future__ import annotations

from collections.abc import Sequence

from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError

INSTRUCTIONS = (
    "Answer the question using only the numbered sources below. Cite the sources you use as [1], [2], ...\n"
    "If the sources do not contain the answer, say that you do not know."
)


def build_prompt(query: str, chunks: Sequence[Chunk], instructions: str = INSTRUCTIONS) -> str:
    """The generator's prompt: instructions, each chunk as `[n] title (doc id, date)` plus its text, the query.

    >>> print(build_prompt("why?", [Chunk("d#0", "d", 0, 5, "Because.", title="FAQ", date="2025-01-02")]))
    Answer the question using only the numbered sources below. Cite the sources you use as [1], [2], ...
    If the sources do not contain the answer, say that you do not know.
    <BLANKLINE>
    [1] FAQ (d, 2025-01-02)
    Because.
    <BLANKLINE>
    Question: why?
    Answer:
    """
    if not query or not query.strip():
        raise RagkitError("the query is empty: there is nothing to ask")
    sources = "\n\n".join(
        f"[{number}] {chunk.title} ({chunk.doc_id}, {chunk.date})\n{chunk.text.strip()}"
        for number, chunk in enumerate(chunks, start=1)
    )
    return f"{instructions}\n\n{sources or '(no sources retrieved)'}\n\nQuestion: {query.strip()}\nAnswer:"
