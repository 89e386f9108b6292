"""Context assembly for the prompt (merge, pack, order), and contextual chunks for the indexes: headers and
recorded situating contexts, and the check of the recordings."""

import numpy as np
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


def test_contextual_chunks_in_the_pipeline(course_docs, course_queries, encoder, tmp_path):
    from ragkit.chunk.context import contextual_texts
    from ragkit.llm.client import LanguageModel
    from ragkit.pipeline import Pipeline

    pipe = Pipeline(course_docs, encoder=encoder, method="bm25")
    plain = pipe.indexed_texts
    llm = pipe.using(context="llm")
    assert [t.split("\n\n", 1)[1] for t in llm.indexed_texts] == plain, "context, a blank line, then the chunk"
    assert llm.chunks is pipe.chunks, "the chunks and their offsets do not change"
    headers = pipe.using(context="headers").indexed_texts
    assert headers[0].startswith(course_docs[0].title), "the model-free baseline starts with the document's title"
    query = ["quarterly revenue Q2 2025"]
    assert not np.array_equal(pipe.scores(query), llm.scores(query)), "BM25 reads the contexts"
    empty = LanguageModel("replay", recordings=tmp_path)
    with pytest.raises(RagkitError, match=r"nothing recorded for this prompt \(a situating context"):
        contextual_texts(course_docs[:1], pipe.chunks[:1], "llm", empty)
    with pytest.raises(RagkitError, match="unknown context 'summary'"):
        contextual_texts(course_docs[:1], pipe.chunks[:1], "summary")


def test_recorded_contexts_are_checked(tmp_path, course_docs):
    import json
    import shutil

    from ragkit.labels.recordcheck import check_contexts, sentences

    assert (sentences("One. Two! Three?"), sentences("一。二。"), sentences("no full stop")) == (3, 2, 1)
    folder = tmp_path / "data"
    (folder / "corpus").mkdir(parents=True)
    shutil.copy(course_docs[0].path, folder / "corpus")
    (folder / "llm").mkdir()
    problems = []
    check_contexts(folder, problems)
    assert problems == [f"{folder / 'llm' / 'situating-contexts.jsonl'}: missing: the recorded situating contexts"]
    lines = [json.loads(line) for line in open("data/llm/situating-contexts.jsonl", encoding="utf-8")]
    mine = [line for line in lines if line["chunk_id"].split("#")[0] == course_docs[0].doc_id]
    mine[0]["response"] = "One. Two. Three. Four."
    (folder / "llm" / "situating-contexts.jsonl").write_text("\n".join(json.dumps(m) for m in mine[1:] + mine[:1]))
    problems = []
    assert check_contexts(folder, problems) == len(mine)
    assert len(problems) == 1 and "a context of 4 sentences" in problems[0], problems
    (folder / "llm" / "situating-contexts.jsonl").write_text("\n".join(json.dumps(m) for m in mine[1:]))
    problems = []
    check_contexts(folder, problems)
    assert len(problems) == 1 and f"chunk {mine[0]['chunk_id']}" in problems[0] and "has 0 recorded" in problems[0]


def test_before_after_view_uses_the_pipeline_variants(course_docs, course_queries, encoder):
    from ragkit.pipeline import Pipeline
    from ragkit.widgets.context import before_after, caching_cost

    pipe = Pipeline(course_docs, encoder=encoder)
    query = next(q for q in course_queries if q.query_id == "fin-020")
    view = before_after(pipe, query, k=5)
    assert list(view.columns) == ["none", "headers", "llm"] and len(view) == 5
    for context in view.columns:
        expected = [c.chunk_id for c in pipe.using(context=context).rankings([query.text], 5)[0]]
        assert [cell[2:] for cell in view[context]] == expected, f"{context}: the pipeline variant's own top 5"
    assert not any(cell.startswith("✓") for cell in view["none"]) and view["llm"].str.startswith("✓").any(), \
        "fin-020's evidence is missed without a context and found with the model's"
    assert pipe.config.context == "none", "the view leaves the pipeline as it was"
    cheap = caching_cost([100, 300], [[10, 10, 10], [20]], 5, {"input": 1, "cache write": 1, "cache read": 1,
                                                              "output": 0})
    assert cheap["cache read tokens"] == 200 and cheap["uncached input tokens"] == 50 and cheap["calls"] == 4
