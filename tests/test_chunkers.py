"""Sentence, structure-aware and parent-child chunking: exact offsets, sizes, sections and parents."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.chunk.base import Chunk, chunk_corpus
from ragkit.chunk.parent_child import parent_child_chunks, parent_of, parent_rankings
from ragkit.chunk.sections import chunks_from_bounds, markdown_sections, section_title, structure_aware_chunks
from ragkit.chunk.sentences import pack_spans, sentence_chunks, sentence_spans
from ragkit.corpus import Document
from ragkit.errors import RagkitError

GUIDE = """# Key Guide

Intro line.

## 1. Keys

### 1.1 Rotation

Rotate keys every 90 days. Use `tsctl keys rotate`!

```
# this is a shell comment, not a heading
tsctl keys list
```

### 1.2 Revocation

Revoke a key at once.

## 2. 令牌

令牌每年轮换。立即生效！
"""


def make_doc(text: str, title: str = "Key Guide") -> Document:
    return Document("d", title, "faq", "2025-01-01", "en", text)


def texts(text, spans):
    return [text[start:end] for start, end in spans]


def test_sentence_spans_known_answer():
    text = 'It works. "Quoted!" Version 3.5 ships?\n- item one\n中文句子。第二句！第三句？ tail'
    assert texts(text, sentence_spans(text)) == [
        "It works.", '"Quoted!"', "Version 3.5 ships?", "- item one", "中文句子。", "第二句！", "第三句？", "tail",
    ], "sentences end at .!? before whitespace, at 。！？ and at line ends; 3.5 is not an end"
    assert sentence_spans("   \n\n ") == [], "whitespace holds no sentence"


def test_pack_spans_known_answer_and_overlap():
    text = "Aa. Bb. Cc. Dd."
    spans = sentence_spans(text)
    assert texts(text, pack_spans(text, spans, size=7)) == ["Aa. Bb.", "Cc. Dd."], "pack whole sentences up to size"
    assert texts(text, pack_spans(text, spans, size=7, overlap=3)) == ["Aa. Bb.", "Bb. Cc.", "Cc. Dd."], \
        "overlap repeats the last sentence that fits in it"
    assert texts(text, pack_spans(text, spans, size=3, overlap=2)) == ["Aa.", "Bb.", "Cc.", "Dd."], \
        "a window must always move forward even when the overlap could hold a whole window"


def test_long_sentence_is_cut_into_windows():
    text = "short. " + "x" * 25 + "."
    bounds = pack_spans(text, sentence_spans(text), size=10)
    assert texts(text, bounds)[0] == "short.", "the short sentence stays whole"
    assert all(end - start <= 10 for start, end in bounds), "a sentence longer than size is cut to size"
    assert "".join(texts(text, bounds[1:])) == "x" * 25 + ".", "the cut pieces rebuild the long sentence"


def test_markdown_sections_and_titles():
    sections = markdown_sections(GUIDE)
    assert [s.path for s in sections] == [
        ("Key Guide",), ("Key Guide", "1. Keys", "1.1 Rotation"), ("Key Guide", "1. Keys", "1.2 Revocation"),
        ("Key Guide", "2. 令牌"),
    ], "a bare chapter heading joins its first sub-section; '#' inside a code fence is not a heading"
    assert GUIDE[sections[1].start:].startswith("## 1. Keys"), "the merged section starts at the chapter heading"
    assert [s.end for s in sections[:-1]] == [s.start for s in sections[1:]], "sections tile the text"
    assert section_title("Key Guide", sections[2].path) == "Key Guide > 1. Keys > 1.2 Revocation", \
        "a top heading equal to the title is not repeated"
    assert markdown_sections("no headings at all") == [markdown_sections("no headings at all")[0]]
    assert markdown_sections("no headings at all")[0].path == (), "text before any heading has no path"


def test_structure_aware_chunks_stay_inside_sections():
    doc = make_doc(GUIDE)
    chunks = structure_aware_chunks(doc, size=60, overlap=10, pack=False)
    sections = markdown_sections(GUIDE)
    for chunk in chunks:
        assert any(s.start <= chunk.start and chunk.end <= s.end for s in sections), \
            f"chunk {chunk.chunk_id} crosses a section border"
        assert chunk.end - chunk.start <= 60, "chunks respect the size"
    assert chunks[-1].title == "Key Guide > 2. 令牌", "the title names the section"
    assert [c.chunk_id for c in chunks] == [f"d#{i}" for i in range(len(chunks))], "ids are doc#number"


def test_structure_aware_packing_joins_small_sections_only():
    doc = make_doc(GUIDE)
    packed = structure_aware_chunks(doc, size=120, overlap=0)
    sections = markdown_sections(GUIDE)
    starts = {s.start for s in sections}
    assert len(packed) < len(structure_aware_chunks(doc, size=120, overlap=0, pack=False)), "packing joins sections"
    for chunk in packed:
        assert chunk.end - chunk.start <= 120, "a packed chunk stays within the size"
        assert chunk.start in starts or not any(s.start < chunk.start < s.end and s.end - s.start <= 120
                                                for s in sections), "a small section is never cut"


def test_parent_child_known_answer():
    doc = make_doc(GUIDE)
    children, parents = parent_child_chunks(doc, child_size=40, parent_size=160)
    assert [p.title for p in parents] == ["Key Guide", "Key Guide > 1. Keys > 1.1 Rotation",
                                          "Key Guide > 1. Keys > 1.2 Revocation"], \
        "parents are sections, small neighbours packed together up to parent_size"
    assert [p.text.startswith(("# Key Guide", "## 1. Keys", "### 1.2")) for p in parents] == [True] * 3, \
        "parents start at headings"
    assert len(parent_child_chunks(doc, 40, 0, parent_size=2000)[1]) == 1, "the whole guide fits one 2000-char parent"
    mapping = parent_of(children, parents)
    for child in children:
        parent = mapping[child.chunk_id]
        assert parent.start <= child.start and child.end <= parent.end, "a child lies inside its parent"
    assert len(children) > len(parents), "children are smaller than parents"
    small_parents = parent_child_chunks(doc, child_size=20, parent_size=50)[1]
    assert all(p.end - p.start <= 50 for p in small_parents), "parents are cut at parent_size"


def test_parent_rankings_keep_best_rank_once():
    p0, p1 = Chunk("d#p0", "d", 0, 50, ""), Chunk("d#p1", "d", 50, 99, "")
    kids = {"d#0": p0, "d#1": p1, "d#2": p0}
    ranking = [Chunk("d#1", "d", 50, 60, ""), Chunk("d#0", "d", 0, 9, ""), Chunk("d#2", "d", 9, 20, "")]
    assert [[c.chunk_id for c in r] for r in parent_rankings([ranking], kids)] == [["d#p1", "d#p0"]], \
        "each parent appears once, at the rank of its best child"
    with pytest.raises(RagkitError, match="no parent"):
        parent_of([Chunk("e#0", "e", 0, 5, "")], [p0])


def test_sentence_chunks_keep_sections_in_titles():
    chunks = sentence_chunks(make_doc(GUIDE), size=80)
    assert any(c.title == "Key Guide > 1. Keys > 1.1 Rotation" and "90 days" in c.text for c in chunks), \
        "a sentence chunk carries the section it starts in"


@pytest.mark.parametrize("size, overlap", [(0, 0), (10, 10), (10, -1)])
def test_bad_sizes_are_explained(size, overlap):
    doc = make_doc(GUIDE)
    for call in (lambda: sentence_chunks(doc, size, overlap), lambda: structure_aware_chunks(doc, size, overlap),
                 lambda: parent_child_chunks(doc, size, overlap)):
        with pytest.raises(RagkitError, match="chunk size|overlap"):
            call()


def test_empty_corpus_is_explained():
    with pytest.raises(RagkitError, match="corpus is empty"):
        chunk_corpus([], sentence_chunks, size=100)
    with pytest.raises(RagkitError, match="corpus is empty"):
        chunk_corpus([make_doc("  \n ")], structure_aware_chunks, size=100, overlap=0)


def check_exact_and_covering(doc: Document, chunks, size: int):
    covered = [False] * len(doc.text)
    for chunk in chunks:
        assert chunk.text == doc.text[chunk.start:chunk.end], f"{chunk.chunk_id}: text must be the slice it names"
        assert chunk.end - chunk.start <= size, f"{chunk.chunk_id}: longer than {size}"
        assert chunk.text.strip(), f"{chunk.chunk_id}: an empty chunk"
        covered[chunk.start:chunk.end] = [True] * (chunk.end - chunk.start)
    missed = [i for i, char in enumerate(doc.text) if not covered[i] and not char.isspace()]
    assert not missed, f"characters {missed[:5]} of {doc.doc_id} are in no chunk"


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab .!?。\n#`")), max_size=300), size=st.integers(2, 60),
       overlap_share=st.floats(0, 0.9))
def test_every_strategy_gives_exact_slices_that_cover_the_text(text, size, overlap_share):
    overlap = min(int(size * overlap_share), size - 1)
    doc = make_doc(text)
    check_exact_and_covering(doc, sentence_chunks(doc, size, overlap), size)
    check_exact_and_covering(doc, structure_aware_chunks(doc, size, overlap), size)
    children, parents = parent_child_chunks(doc, size, overlap, parent_size=size * 3)
    check_exact_and_covering(doc, children, size)
    check_exact_and_covering(doc, parents, size * 3)
    parent_of(children, parents)  # raises if a child has no parent


def test_course_corpus_chunks_are_exact(course_docs):
    for doc in course_docs:
        check_exact_and_covering(doc, sentence_chunks(doc, 800), 800)
        check_exact_and_covering(doc, structure_aware_chunks(doc, 800, 100), 800)
        children, parents = parent_child_chunks(doc)
        check_exact_and_covering(doc, children, 250)
        assert len(parent_of(children, parents)) == len(children), "every child has a parent"


def test_chunks_from_bounds_skips_blank_spans():
    doc = make_doc("# T\n\nbody")
    assert [c.text for c in chunks_from_bounds(doc, [(0, 4), (4, 5), (5, 9)])] == ["# T\n", "body"], \
        "blank spans make no chunk"
