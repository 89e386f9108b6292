"""Structure-aware chunking: split markdown at its headings, then pack or cut sections to a size (notebook 04).

Every chunk made from character spans (`chunks_from_bounds`, which the other chunkers use too) is titled
"Document title > Section > Subsection" for the section it starts in. Left out: setext headings, HTML, and
nested parent levels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragkit.chunk.base import Chunk, check_chunk_size
from ragkit.chunk.fixed import window_bounds
from ragkit.corpus import Document

HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")


FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Section:
    """A markdown section `[start, end)`: its heading line and body, up to the next heading."""

    start: int
    end: int
    path: tuple[str, ...]  # the headings above it and its own, outermost first


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
