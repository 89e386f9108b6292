"""The chunkers a pipeline can use by name, and the config fields each one reads.

A `Chunker` pairs a function `(docs, config, encoder) -> chunks` with the names of the config fields it
reads; the pipeline caches chunks by exactly those fields and by the function itself, so registering another
function under an old name can never return the old chunks. Left out: chunkers that need a language model
(contextual headers, notebook 07).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragkit.chunk.base import Chunk, chunk_corpus
from ragkit.chunk.fixed import fixed_size_chunks
from ragkit.chunk.parent_child import parent_child_chunks
from ragkit.chunk.sections import structure_aware_chunks
from ragkit.chunk.semantic import semantic_chunks
from ragkit.chunk.sentences import sentence_chunks, sentence_spans
from ragkit.corpus import Document

SIZES = ("chunk_size", "chunk_overlap")
SEMANTIC = ("chunk_size", "semantic_rule", "semantic_amount", "semantic_window", "semantic_min_size",
            "encoder")  # its cuts follow the similarity of neighbouring sentences, so the encoder too


@dataclass(frozen=True)
class Chunker:
    """A chunking function and the config fields it reads (its cache key)."""

    chunk: Callable[..., list[Chunk]]
    fields: tuple[str, ...] = SIZES


def fixed(docs: Sequence[Document], config, encoder=None) -> list[Chunk]:
    """Fixed-size windows of `chunk_size` characters overlapping by `chunk_overlap` (notebook 00).

    >>> from ragkit.config import PipelineConfig
    >>> doc = Document("a", "A", "faq", "2025-01-01", "en", "x" * 25)
    >>> [c.chunk_id for c in fixed([doc], PipelineConfig(chunk_size=10, chunk_overlap=0))]
    ['a#0', 'a#1', 'a#2']
    """
    return chunk_corpus(docs, fixed_size_chunks, size=config.chunk_size, overlap=config.chunk_overlap)


def sentences(docs: Sequence[Document], config, encoder=None) -> list[Chunk]:
    """Whole sentences packed up to `chunk_size`, repeating up to `chunk_overlap` characters of them."""
    return chunk_corpus(docs, sentence_chunks, size=config.chunk_size, overlap=config.chunk_overlap)


def structure(docs: Sequence[Document], config, encoder=None) -> list[Chunk]:
    """Markdown sections packed up to `chunk_size`; longer sections cut with `chunk_overlap`."""
    return chunk_corpus(docs, structure_aware_chunks, size=config.chunk_size, overlap=config.chunk_overlap)


def parent_children(docs: Sequence[Document], config, encoder=None) -> list[Chunk]:
    """The children of parent-child chunking (what gets searched); the pipeline returns their parents."""
    return chunk_corpus(docs, lambda doc, **sizes: parent_child_chunks(doc, **sizes)[0],
                        child_size=config.chunk_size, child_overlap=config.chunk_overlap)


def semantic(docs: Sequence[Document], config, encoder) -> list[Chunk]:
    """Semantic chunks: every sentence embedded in one batch (one progress bar), then cut per document."""
    encoder.encode([doc.text[s:e] for doc in docs for s, e in sentence_spans(doc.text)], desc="sentences")
    return chunk_corpus(docs, semantic_chunks, encoder=encoder, rule=config.semantic_rule,
                        amount=config.semantic_amount, window=config.semantic_window,
                        min_size=config.semantic_min_size, max_size=config.chunk_size)


def default_chunkers() -> dict[str, Chunker]:
    """A fresh registry of the course's chunkers (each pipeline owns its own copy).

    >>> sorted(default_chunkers())
    ['fixed', 'parent-child', 'semantic', 'sentence', 'structure']
    """
    return {"fixed": Chunker(fixed), "sentence": Chunker(sentences), "structure": Chunker(structure),
            "parent-child": Chunker(parent_children), "semantic": Chunker(semantic, SEMANTIC)}
