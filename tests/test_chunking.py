"""Fixed-size chunking keeps offsets exact and covers every character."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.chunk.base import chunk_corpus
from ragkit.chunk.fixed import fixed_size_chunks, window_bounds
from ragkit.corpus import Document
from ragkit.errors import RagkitError


def make_doc(text: str) -> Document:
    return Document("d", "Title", "faq", "2025-01-01", "en", text)


def test_known_windows():
    assert window_bounds(10, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert window_bounds(0, 4, 1) == []


@settings(max_examples=200, deadline=None)
@given(text=st.text(min_size=1, max_size=400), size=st.integers(1, 60), overlap_share=st.floats(0, 0.9))
def test_chunks_are_exact_slices_that_cover_the_document(text, size, overlap_share):
    overlap = min(int(size * overlap_share), size - 1)
    chunks = fixed_size_chunks(make_doc(text), size, overlap)
    for chunk in chunks:
        assert chunk.text == text[chunk.start:chunk.end], "chunk text must be the slice its offsets name"
        assert chunk.end - chunk.start <= size, "a chunk must not exceed the size"
    bounds = window_bounds(len(text), size, overlap, text)
    assert bounds[0][0] == 0 and bounds[-1][1] == len(text), "windows must reach both ends"
    for (_, end), (start, _) in zip(bounds, bounds[1:], strict=False):
        assert start <= end, "consecutive windows must leave no gap"


def test_words_are_not_cut_when_a_space_is_near():
    text = "alpha beta gamma delta epsilon zeta eta theta"
    for chunk in fixed_size_chunks(make_doc(text), 12, 0):
        assert chunk.end == len(text) or " " in text[chunk.end - 1:chunk.end + 1], f"cut inside a word: {chunk.text!r}"


def test_chunks_keep_document_metadata():
    doc = Document("d", "Title", "faq", "2025-01-01", "en", "x" * 30, version="2")
    chunk = fixed_size_chunks(doc, 10, 0)[1]
    assert (chunk.chunk_id, chunk.doc_id, chunk.title, chunk.version, chunk.start) == ("d#1", "d", "Title", "2", 10)


@pytest.mark.parametrize("size, overlap", [(0, 0), (-5, 0), (10, 10), (10, -1), (10.5, 0)])
def test_bad_sizes_are_explained(size, overlap):
    with pytest.raises(RagkitError, match="chunk size|overlap"):
        fixed_size_chunks(make_doc("text"), size, overlap)


def test_empty_corpus_is_explained():
    with pytest.raises(RagkitError, match="corpus is empty"):
        chunk_corpus([], fixed_size_chunks, size=100, overlap=10)
    with pytest.raises(RagkitError, match="corpus is empty"):
        chunk_corpus([make_doc("   ")], fixed_size_chunks, size=100, overlap=10)
