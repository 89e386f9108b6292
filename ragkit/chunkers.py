"""Chunking strategies beyond fixed-size windows: sentences, markdown sections, parent-child.

Notebook 04 derives them. Every strategy returns `ragkit.chunking.Chunk`s whose text is exactly
`doc.text[start:end]`, so span relevance (`ragkit.relevance`) judges them like any other chunking, and every
chunk's `title` is "Document title > Section > Subsection" for the markdown section it starts in. Sizes are
in characters. Semantic chunking lives in `ragkit.semantic_chunking`. Left out: abbreviation-aware sentence
splitting ("e.g. " ends a sentence here), setext headings, token-based sizes, and nested parent levels.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ragkit.chunking import Chunk, check_chunk_size, window_bounds
from ragkit.corpus import Document
from ragkit.errors import RagkitError

# A sentence ends after . ! ? (and closing quotes or brackets) before whitespace, after 。！？, or at a line end.
SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s|$)|[。！？][”’」』）)]*|\n")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Section:
    """A markdown section `[start, end)`: its heading line and body, up to the next heading."""

    start: int
    end: int
    path: tuple[str, ...]  # the headings above it and its own, outermost first


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """`[start, end)` of every sentence (or markdown line), without the whitespace around it.

    >>> text = "Keys rotate. Every 90 days!\\n# 密钥\\n每年轮换。立即生效"
    >>> [text[s:e] for s, e in sentence_spans(text)]
    ['Keys rotate.', 'Every 90 days!', '# 密钥', '每年轮换。', '立即生效']
    """
    cuts = [0, *(match.end() for match in SENTENCE_END.finditer(text)), len(text)]
    spans = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        piece = text[start:end]
        if piece.strip():
            left = start + len(piece) - len(piece.lstrip())
            spans.append((left, start + len(piece.rstrip())))
    return spans


def pack_spans(text: str, spans: Sequence[tuple[int, int]], size: int, overlap: int = 0) -> list[tuple[int, int]]:
    """Greedily pack consecutive spans into windows of at most `size` characters.

    Each window after the first repeats the previous window's last spans that fit in `overlap` characters.
    A span longer than `size` is cut into fixed-size windows of its own.

    >>> text = "One. Two two. Three three three."
    >>> [text[s:e] for s, e in pack_spans(text, sentence_spans(text), size=18)]
    ['One. Two two.', 'Three three three.']
    >>> [text[s:e] for s, e in pack_spans(text, sentence_spans(text), size=14)]
    ['One. Two two.', 'Three three th', 'ree.']
    """
    check_chunk_size(size, overlap)
    windows: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        start, end = spans[i]
        if end - start > size:  # one long sentence: fixed windows inside it
            windows.extend((start + a, start + b) for a, b in window_bounds(end - start, size, 0, text[start:end]))
            i += 1
            continue
        j = i + 1
        while j < len(spans) and spans[j][1] - start <= size:
            j += 1
        windows.append((start, spans[j - 1][1]))
        if j >= len(spans):
            break
        back = j  # step back over the spans that fit in the overlap, but always move forward
        while back - 1 > i and spans[j - 1][1] - spans[back - 1][0] <= overlap:
            back -= 1
        i = back
    return windows


def markdown_sections(text: str) -> list[Section]:
    """The sections of a markdown text, split at ATX headings (`#` to `######`) outside code fences.

    A heading with no body of its own (a chapter heading directly followed by a sub-heading) joins the next
    section, so no section is a bare heading.

    >>> text = "Intro.\\n# Guide\\n## Keys\\nRotate.\\n```\\n# not a heading\\n```\\n## Tokens\\nRevoke."
    >>> [(text[s.start:s.end][:8], s.path) for s in markdown_sections(text)]
    [('Intro.\\n', ()), ('# Guide\\n', ('Guide', 'Keys')), ('## Token', ('Guide', 'Tokens'))]
    """
    starts: list[tuple[int, tuple[str, ...]]] = [(0, ())]
    stack: list[tuple[int, str]] = []
    in_fence, offset = False, 0
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line.rstrip("\n"))
        if match:
            level = len(match.group(1))
            stack = [(lvl, name) for lvl, name in stack if lvl < level] + [(level, match.group(2).strip())]
            previous_start, previous_path = starts[-1]
            previous = text[previous_start:offset].strip()
            if not previous:  # nothing since the last start: the new section starts here
                starts[-1] = (offset, path_of(stack))
            elif previous_path and "\n" not in previous:  # a bare heading: it joins this section
                starts[-1] = (previous_start, path_of(stack))
            else:
                starts.append((offset, path_of(stack)))
        offset += len(line)
    bounds = [start for start, _ in starts[1:]] + [len(text)]
    return [Section(start, end, path) for (start, path), end in zip(starts, bounds, strict=True)
            if text[start:end].strip()]


def path_of(stack: Sequence[tuple[int, str]]) -> tuple[str, ...]:
    """The heading names of a heading stack of (level, name), outermost first.

    >>> path_of([(1, "Guide"), (2, "Keys")])
    ('Guide', 'Keys')
    """
    return tuple(name for _, name in stack)


def section_title(doc_title: str, path: Sequence[str]) -> str:
    """"Doc title > Section > Subsection"; a top heading that repeats the document title is dropped.

    >>> section_title("Runbook", ["Runbook", "1. Alerting"])
    'Runbook > 1. Alerting'
    """
    path = list(path[1:] if path and path[0] == doc_title else path)
    return " > ".join([doc_title, *path])


def chunks_from_bounds(doc: Document, bounds: Sequence[tuple[int, int]], prefix: str = "") -> list[Chunk]:
    """Chunks of `doc` for character spans, titled with the section each one starts in.

    >>> doc = Document("d", "Guide", "faq", "2025-01-01", "en", "# Guide\\n## Keys\\nRotate them.")
    >>> [(c.chunk_id, c.text, c.title) for c in chunks_from_bounds(doc, [(16, 28)])]
    [('d#0', 'Rotate them.', 'Guide > Keys')]
    """
    sections = markdown_sections(doc.text)
    chunks = []
    for start, end in bounds:
        if not doc.text[start:end].strip():
            continue
        path = next((s.path for s in reversed(sections) if s.start <= start), ())
        chunks.append(Chunk(
            chunk_id=f"{doc.doc_id}#{prefix}{len(chunks)}", doc_id=doc.doc_id, start=start, end=end,
            text=doc.text[start:end], title=section_title(doc.title, path), source=doc.source, date=doc.date,
            lang=doc.lang, version=doc.version,
        ))
    return chunks


def sentence_chunks(doc: Document, size: int = 800, overlap: int = 0) -> list[Chunk]:
    """Whole sentences packed into chunks of at most `size` characters, repeating up to `overlap` of them.

    >>> doc = Document("d", "T", "faq", "2025-01-01", "en", "Keys rotate. Tokens expire. 密钥每年轮换。")
    >>> [c.text for c in sentence_chunks(doc, size=27)]
    ['Keys rotate. Tokens expire.', '密钥每年轮换。']
    """
    return chunks_from_bounds(doc, pack_spans(doc.text, sentence_spans(doc.text), size, overlap))


def section_bounds(text: str, size: int, pack: bool = True) -> list[tuple[int, int]]:
    """The markdown sections' spans; with `pack`, consecutive sections are joined while they fit in `size`.

    >>> text = "# A\\nshort.\\n# B\\nshort.\\n# C\\na much longer section."
    >>> [text[s:e] for s, e in section_bounds(text, size=22)]
    ['# A\\nshort.\\n# B\\nshort.\\n', '# C\\na much longer section.']
    """
    bounds: list[tuple[int, int]] = []
    for section in markdown_sections(text):
        if pack and bounds and section.end - bounds[-1][0] <= size:
            bounds[-1] = (bounds[-1][0], section.end)
        else:
            bounds.append((section.start, section.end))
    return bounds


def structure_aware_chunks(doc: Document, size: int = 800, overlap: int = 100, pack: bool = True) -> list[Chunk]:
    """Split at markdown headings, join small neighbouring sections up to `size` (unless `pack` is false),
    then cut each section longer than `size` into windows with `overlap`.

    >>> doc = Document("d", "Guide", "faq", "2025-01-01", "en", "# Keys\\nRotate.\\n# Tokens\\nRevoke.")
    >>> [(c.text, c.title) for c in structure_aware_chunks(doc, size=100, overlap=0, pack=False)]
    [('# Keys\\nRotate.\\n', 'Guide > Keys'), ('# Tokens\\nRevoke.', 'Guide > Tokens')]
    >>> [c.text for c in structure_aware_chunks(doc, size=100, overlap=0)]
    ['# Keys\\nRotate.\\n# Tokens\\nRevoke.']
    """
    check_chunk_size(size, overlap)
    bounds = [(start + a, start + b) for start, end in section_bounds(doc.text, size, pack)
              for a, b in window_bounds(end - start, size, overlap, doc.text[start:end])]
    return chunks_from_bounds(doc, bounds)


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


def parent_rankings(rankings: Sequence[Sequence[Chunk]], parents: Mapping[str, Chunk]) -> list[list[Chunk]]:
    """Replace each ranked child by its parent, keeping a parent once, at the rank of its best child.

    >>> p = Chunk("d#p0", "d", 0, 50, "")
    >>> kids = [Chunk("d#0", "d", 0, 9, ""), Chunk("d#1", "d", 9, 20, "")]
    >>> [[c.chunk_id for c in r] for r in parent_rankings([kids], {"d#0": p, "d#1": p})]
    [['d#p0']]
    """
    return [list({parents[child.chunk_id].chunk_id: parents[child.chunk_id] for child in ranking}.values())
            for ranking in rankings]


def chunk_corpus(docs: Sequence[Document], chunker: Callable[..., list[Chunk]], **params) -> list[Chunk]:
    """`chunker(doc, **params)` over every document, in order; a clear error when nothing comes out.

    >>> docs = [Document("a", "A", "faq", "2025-01-01", "en", "One. Two.")]
    >>> [c.text for c in chunk_corpus(docs, sentence_chunks, size=5)]
    ['One.', 'Two.']
    """
    chunks = [chunk for doc in docs for chunk in chunker(doc, **params)]
    if not chunks:
        raise RagkitError("the corpus is empty: there is no text to chunk")
    return chunks
