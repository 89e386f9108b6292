"""Context assembly: merging neighbours rebuilds the document's text exactly, packing respects the budget,
and the edges order keeps every chunk once with the best at both ends."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.assemble.context import assemble_context, merge_neighbours, order_for_prompt, pack
from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError

TEXT = "The quick brown fox jumps over the lazy dog and keeps running into the woods."


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(TEXT) - 1), st.integers(1, 20)), min_size=1, max_size=8))
def test_merged_chunks_are_exact_slices_of_the_document(spans):
    chunks = [Chunk(f"d#{i}", "d", start, min(start + size, len(TEXT)), TEXT[start:min(start + size, len(TEXT))])
              for i, (start, size) in enumerate(spans)]
    merged = merge_neighbours(chunks)
    for chunk in merged:
        assert chunk.text == TEXT[chunk.start:chunk.end], "a merged chunk must be the document's own text"
    covered = {i for c in chunks for i in range(c.start, c.end)}
    assert covered == {i for c in merged for i in range(c.start, c.end)}, "merging keeps exactly the same text"


def test_pack_and_order_by_hand():
    chunks = [Chunk(f"c{i}", f"doc{i}", 0, 40, "x" * 40) for i in range(6)]
    assert [c.chunk_id for c in pack(chunks, budget=25)] == ["c0", "c1"], "10 tokens each: two fit in 25"
    assert [c.chunk_id for c in order_for_prompt(chunks, "edges")] == ["c0", "c2", "c4", "c5", "c3", "c1"]
    assert [c.chunk_id for c in assemble_context(chunks, budget=30, order="edges")] == ["c0", "c2", "c1"]
    with pytest.raises(RagkitError, match="token budget"):
        pack(chunks, budget=0)
    with pytest.raises(RagkitError, match="unknown order 'middle'"):
        order_for_prompt(chunks, "middle")
