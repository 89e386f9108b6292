"""Context assembly: the last step before a language model sees the chunks (notebook 08).

Ranked chunks are merged where they overlap or touch in one document (so no sentence is pasted twice), packed
into a token budget in rank order, and ordered for the prompt: `best-first`, or `edges`, which puts the best
chunks at the start and the end and the weakest in the middle, because language models use the middle of a
long context least (Liu et al., 2023, "Lost in the Middle"). The course measures retrieval, not generation:
whether `edges` helps a given model is not measured here. Token counts come from a function you pass (your
generator's tokenizer); the default is a rough 4 characters per token. Left out: summarising or compressing
chunks, and de-duplicating near-identical text from different documents.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError

ORDERS = ("best-first", "edges")


def rough_tokens(text: str) -> int:
    """About 4 characters per token, the usual rule of thumb for English (use a real tokenizer when you can).

    >>> rough_tokens("Rotate the key every 90 days.")
    7
    """
    return max(1, round(len(text) / 4))


def merge_neighbours(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Chunks in rank order, where a chunk that overlaps or touches an earlier chunk of the same document is
    merged into it (the merged chunk keeps the earlier one's rank).

    >>> a, b = Chunk("d#0", "d", 0, 10, "0123456789"), Chunk("d#1", "d", 8, 14, "89abcd")
    >>> [(c.chunk_id, c.start, c.end, c.text) for c in merge_neighbours([a, Chunk("e#0", "e", 0, 2, "xy"), b])]
    [('d#0+d#1', 0, 14, '0123456789abcd'), ('e#0', 0, 2, 'xy')]
    """
    merged: list[Chunk] = []
    for chunk in chunks:
        for number, kept in enumerate(merged):
            if kept.doc_id == chunk.doc_id and chunk.start <= kept.end and kept.start <= chunk.end:
                first, second = (kept, chunk) if kept.start <= chunk.start else (chunk, kept)
                text = first.text + second.text[max(first.end - second.start, 0):] if second.end > first.end \
                    else first.text
                merged[number] = replace(kept, chunk_id=f"{kept.chunk_id}+{chunk.chunk_id}", start=first.start,
                                         end=max(first.end, second.end), text=text)
                break
        else:
            merged.append(chunk)
    return merged


def pack(chunks: Sequence[Chunk], budget: int, count: Callable[[str], int] = rough_tokens) -> list[Chunk]:
    """The chunks, in rank order, that fit in `budget` tokens together; a chunk that does not fit is skipped
    and a later, shorter one may still fit.

    >>> chunks = [Chunk("a#0", "a", 0, 40, "x" * 40), Chunk("b#0", "b", 0, 80, "y" * 80), Chunk("c#0", "c", 0, 8, "z" * 8)]
    >>> [c.chunk_id for c in pack(chunks, budget=14)]
    ['a#0', 'c#0']
    """
    if not isinstance(budget, int) or budget < 1:
        raise RagkitError(f"the token budget must be a positive number of tokens, got {budget!r}")
    taken, used = [], 0
    for chunk in chunks:
        size = count(chunk.text)
        if used + size <= budget:
            taken.append(chunk)
            used += size
    return taken


def order_for_prompt(chunks: Sequence[Chunk], order: str = "best-first") -> list[Chunk]:
    """`best-first` keeps the rank order; `edges` puts ranks 1, 3, 5, ... at the front and ..., 6, 4, 2 at the
    back, so the best chunks sit at both ends and the weakest in the middle.

    >>> [c.chunk_id for c in order_for_prompt([Chunk(f"{i}", "d", 0, 1, "") for i in range(1, 6)], "edges")]
    ['1', '3', '5', '4', '2']
    """
    if order not in ORDERS:
        raise RagkitError(f"unknown order {order!r}; choose one of {', '.join(ORDERS)}")
    chunks = list(chunks)
    return chunks if order == "best-first" else chunks[0::2] + chunks[1::2][::-1]


def assemble_context(ranking: Sequence[Chunk], budget: int = 1500, order: str = "best-first",
                     count: Callable[[str], int] = rough_tokens) -> list[Chunk]:
    """Merge neighbours, pack into `budget` tokens, then order: the chunks a prompt should hold.

    >>> ranking = [Chunk("d#1", "d", 8, 14, "89abcd"), Chunk("e#0", "e", 0, 2, "xy"), Chunk("d#0", "d", 0, 10, "0123456789")]
    >>> [c.chunk_id for c in assemble_context(ranking, budget=100, order="edges")]
    ['d#1+d#0', 'e#0']
    """
    return order_for_prompt(pack(merge_neighbours(ranking), budget, count), order)
