"""Parent-child chunking: search small chunks, return the section-sized parent they sit in (notebook 04).

Left out: more than two levels, and returning a child's neighbours instead of its parent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragkit.chunk.base import Chunk, check_chunk_size
from ragkit.chunk.fixed import window_bounds
from ragkit.chunk.sections import chunks_from_bounds, section_bounds
from ragkit.corpus import Document
from ragkit.errors import RagkitError


def parent_child_chunks(doc: Document, child_size: int = 250, child_overlap: int = 0,
                        parent_size: int = 800) -> tuple[list[Chunk], list[Chunk]]:
    """(children, parents): parents are sections packed up to `parent_size` (longer ones cut to it),
    children are windows of `child_size` inside each parent.

    >>> doc = Document("d", "Guide", "faq", "2025-01-01", "en", "# Keys\\nRotate keys yearly.\\n# Tokens\\nRevoke.")
    >>> children, parents = parent_child_chunks(doc, child_size=10, parent_size=30)
    >>> [(c.text, parent_of(children, parents)[c.chunk_id].chunk_id) for c in children]  # doctest: +NORMALIZE_WHITESPACE
    [('# Keys\\nRot', 'd#p0'), ('ate keys ', 'd#p0'), ('yearly.\\n', 'd#p0'),
     ('# Tokens\\n', 'd#p1'), ('Revoke.', 'd#p1')]
    """
    check_chunk_size(child_size, child_overlap)
    check_chunk_size(parent_size, 0)
    parents = chunks_from_bounds(doc, [(start + a, start + b) for start, end in section_bounds(doc.text, parent_size)
                                       for a, b in window_bounds(end - start, parent_size, 0, doc.text[start:end])],
                                 prefix="p")
    bounds = [(p.start + a, p.start + b) for p in parents
              for a, b in window_bounds(p.end - p.start, child_size, child_overlap, p.text)]
    return chunks_from_bounds(doc, bounds), parents


def parent_of(children: Sequence[Chunk], parents: Sequence[Chunk]) -> dict[str, Chunk]:
    """child chunk id → the parent chunk (same document) whose span contains the child's span.

    >>> parent = Chunk("d#p0", "d", 0, 50, "x" * 50)
    >>> parent_of([Chunk("d#0", "d", 10, 20, "x" * 10)], [parent])["d#0"].chunk_id
    'd#p0'
    """
    by_doc: dict[str, list[Chunk]] = {}
    for parent in parents:
        by_doc.setdefault(parent.doc_id, []).append(parent)
    mapping = {}
    for child in children:
        found = [p for p in by_doc.get(child.doc_id, []) if p.start <= child.start and child.end <= p.end]
        if not found:
            raise RagkitError(f"child chunk {child.chunk_id} lies in no parent chunk of {child.doc_id}")
        mapping[child.chunk_id] = found[0]
    return mapping


def parents_by_child(docs: Sequence[Document], children: Sequence[Chunk], child_size: int = 250,
                     child_overlap: int = 0) -> dict[str, Chunk]:
    """child chunk id → parent chunk, for children made by `parent_child_chunks` with these sizes.

    >>> doc = Document("d", "Guide", "faq", "2025-01-01", "en", "# Keys\\nRotate keys yearly.")
    >>> children = parent_child_chunks(doc, child_size=10)[0]
    >>> sorted({parent.chunk_id for parent in parents_by_child([doc], children, child_size=10).values()})
    ['d#p0']
    """
    parents = [parent for doc in docs for parent in parent_child_chunks(doc, child_size, child_overlap)[1]]
    return parent_of(children, parents)


def parent_rankings(rankings: Sequence[Sequence[Chunk]], parents: Mapping[str, Chunk]) -> list[list[Chunk]]:
    """Replace each ranked child by its parent, keeping a parent once, at the rank of its best child.

    >>> p = Chunk("d#p0", "d", 0, 50, "")
    >>> kids = [Chunk("d#0", "d", 0, 9, ""), Chunk("d#1", "d", 9, 20, "")]
    >>> [[c.chunk_id for c in r] for r in parent_rankings([kids], {"d#0": p, "d#1": p})]
    [['d#p0']]
    """
    return [list({parents[child.chunk_id].chunk_id: parents[child.chunk_id] for child in ranking}.values())
            for ranking in rankings]
