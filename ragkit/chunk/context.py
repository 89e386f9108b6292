"""Contextual chunks (notebook 07): what the indexes read is a short context, then the chunk.

Anthropic's contextual retrieval has a language model write, for every chunk, a context that situates it in
its document ("this chunk is from Tessellate's Q2 2025 business review; it covers ..."); both the embedding and
BM25 then index context + chunk. `context="llm"` uses those situating contexts (recorded, or from a live
model through `ragkit.llm`); `context="llm-plain"` uses a second recorded set, written from Anthropic's prompt
alone (the pipeline gives it the model's `plain` variant; `data/llm/README.md` says how the two differ); `context="headers"` is a model-free baseline, the document title and the
section path the chunk starts in; `context="none"` indexes the chunk alone. The chunk itself, its offsets and
so its relevance judgments are unchanged. Left out: contexts for queries, and re-writing the chunk.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragkit.chunk.base import Chunk
from ragkit.chunk.sections import markdown_sections, section_title
from ragkit.corpus import Document
from ragkit.errors import RagkitError
from ragkit.llm.prompts import situate_prompt

CONTEXTS = ("none", "headers", "llm", "llm-plain")


def chunk_header(doc: Document, chunk: Chunk) -> str:
    """"Document title > Section > Subsection" for the markdown section the chunk starts in.

    >>> doc = Document("d", "Guide", "faq", "2025-01-01", "en", "# Guide\\n## Keys\\nRotate them yearly.")
    >>> chunk_header(doc, Chunk("d#0", "d", 16, 35, "Rotate them yearly."))
    'Guide > Keys'
    """
    path = next((s.path for s in reversed(markdown_sections(doc.text)) if s.start <= chunk.start), ())
    return section_title(doc.title, path)


def contextual_texts(docs: Sequence[Document], chunks: Sequence[Chunk], context: str = "none",
                     model=None) -> list[str]:
    """The text each chunk is indexed by: its context (none, headers, or a language model's situating
    context from `model.complete`), a blank line, then the chunk.

    >>> doc = Document("d", "Guide", "faq", "2025-01-01", "en", "# Guide\\n## Keys\\nRotate them yearly.")
    >>> contextual_texts([doc], [Chunk("d#0", "d", 16, 35, "Rotate them yearly.")], "headers")
    ['Guide > Keys\\n\\nRotate them yearly.']
    """
    if context not in CONTEXTS:
        raise RagkitError(f"unknown context {context!r}; choose one of {', '.join(CONTEXTS)}")
    if context == "none":
        return [chunk.text for chunk in chunks]
    by_id = {doc.doc_id: doc for doc in docs}
    if context == "headers":
        return [f"{chunk_header(by_id[chunk.doc_id], chunk)}\n\n{chunk.text}" for chunk in chunks]
    if model is None:
        raise RagkitError(f"context={context!r} needs a language model (ragkit.llm.client.LanguageModel)")
    return [f"{model.complete(situate_prompt(by_id[c.doc_id].text, c.text, by_id[c.doc_id].lang), 'a situating context')}"
            f"\n\n{c.text}" for c in chunks]
