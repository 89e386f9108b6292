"""The shared pipeline: cached stages, search, rankings, and clear errors on bad input."""

import pytest

from ragkit.corpus import Document
from ragkit.embedding import Encoder
from ragkit.errors import RagkitError
from ragkit.pipeline import Pipeline, PipelineConfig
from ragkit.prompt import build_prompt

DOCS = [
    Document("sessions", "Sessions API", "api-reference", "2025-04-02", "en",
             "Token invalidation is performed via the /v2/sessions endpoint. Send DELETE with the session id."),
    Document("leave", "Annual leave", "hr-policy", "2025-01-10", "en",
             "Employees receive 25 days of annual leave per calendar year, plus public holidays."),
    Document("tides", "Office plants", "faq", "2024-05-01", "en", "Water the office plants on Mondays."),
]


@pytest.fixture
def pipe(tmp_path):
    return Pipeline(DOCS, PipelineConfig(chunk_size=200, chunk_overlap=20), Encoder(cache_folder=tmp_path))


def test_search_finds_the_paraphrased_document(pipe):
    results = pipe.search("how many vacation days do I get", k=2)
    assert results[0][0].doc_id == "leave"
    assert results[0][1] >= results[1][1]


def test_changing_a_scoring_knob_does_not_rechunk_or_reembed(pipe):
    pipe.rankings(["vacation days"], depth=3)
    computed = pipe.encoder.computed
    chunks = pipe.chunks
    pipe.configure(method="dense")
    pipe.rankings(["vacation days"], depth=3)
    assert pipe.chunks is chunks and pipe.encoder.computed == computed
    pipe.configure(chunk_size=50, chunk_overlap=0)
    assert pipe.chunks is not chunks, "a chunking change re-chunks"
    pipe.configure(chunk_size=200, chunk_overlap=20)
    assert pipe.chunks is chunks, "going back re-uses the cached chunking"


def test_rankings_are_capped_by_the_corpus(pipe):
    rankings = pipe.rankings(["plants", "sessions"], depth=100)
    assert [len(r) for r in rankings] == [len(pipe.chunks)] * 2
    assert pipe.rankings([], depth=5) == []


def test_whole_documents_as_units(tmp_path):
    pipe = Pipeline(DOCS, PipelineConfig(chunk_size=None), Encoder(cache_folder=tmp_path))
    assert [c.doc_id for c in pipe.chunks] == ["sessions", "leave", "tides"]


def test_bad_input_is_explained(pipe, tmp_path):
    for empty in ["", "   ", None]:
        with pytest.raises(RagkitError, match="query is empty"):
            pipe.search(empty, k=1)
    with pytest.raises(RagkitError, match="larger than the number of chunks"):
        pipe.search("leave", k=99)
    with pytest.raises(RagkitError, match="positive integer"):
        pipe.search("leave", k=0)
    with pytest.raises(RagkitError, match="corpus is empty"):
        Pipeline([], encoder=Encoder(cache_folder=tmp_path))
    with pytest.raises(RagkitError, match="unknown method 'magic'"):
        pipe.configure(method="magic")
    with pytest.raises(RagkitError, match="overlap"):
        pipe.configure(chunk_overlap=500)
    assert pipe.config.chunk_overlap == 20, "a refused change leaves the pipeline as it was"


def test_prompt_numbers_the_sources(pipe):
    chunks = [chunk for chunk, _ in pipe.search("revoke a token", k=2)]
    prompt = build_prompt("how do I revoke a token?", chunks)
    assert "[1] Sessions API (sessions, 2025-04-02)" in prompt
    assert prompt.rstrip().endswith("Question: how do I revoke a token?\nAnswer:")
    assert "(no sources retrieved)" in build_prompt("anything?", [])
    with pytest.raises(RagkitError, match="query is empty"):
        build_prompt(" ", chunks)


def test_evaluate_scores_answerable_queries_and_skips_unanswerable(pipe):
    from ragkit.corpus import Evidence, Query

    queries = [
        Query("q1", "how many vacation days", "en", "paraphrase", "dev", (Evidence("leave", "25 days"),), "25"),
        Query("q2", "what is the ceo's shoe size", "en", "unanswerable", "dev", (), ""),
    ]
    table = pipe.evaluate(queries, ["recall@1", "mrr@3"])
    assert table["query_id"].tolist() == ["q1", "q2"]
    assert table.loc[0, "recall@1"] == 1.0 and table.loc[0, "mrr@3"] == 1.0
    assert table.loc[1, ["recall@1", "mrr@3"]].isna().all(), "unanswerable queries have no ranking metrics"


def test_bm25_and_hybrid_scorers_share_the_chunks(pipe):
    bm25 = pipe.bm25_scores(["25 days of annual leave"])
    assert bm25.shape == (1, len(pipe.chunks)) and pipe.chunks[int(bm25.argmax())].doc_id == "leave"
    assert pipe.bm25_index is pipe.bm25_index, "the BM25 index is built once per chunking"
    pipe.configure(method="hybrid")
    assert pipe.search("/v2/sessions endpoint", k=1)[0][0].doc_id == "sessions"
    pipe.configure(method="bm25")
    assert pipe.search("office plants", k=1)[0][0].doc_id == "tides"


@pytest.mark.parametrize("chunker", ["sentence", "structure", "parent-child", "semantic"])
def test_every_registered_chunker_keeps_exact_offsets(pipe, chunker):
    pipe.configure(chunker=chunker, chunk_size=300, chunk_overlap=0)
    by_id = {doc.doc_id: doc for doc in DOCS}
    assert pipe.chunks, f"{chunker} made no chunks"
    for chunk in pipe.chunks:
        assert chunk.text == by_id[chunk.doc_id].text[chunk.start:chunk.end], f"{chunker}: offsets are not exact"
    ranking = pipe.rankings(["annual leave days"], depth=3)[0]
    assert ranking and ranking[0].doc_id == "leave"
    with pytest.raises(RagkitError, match="unknown chunker"):
        pipe.configure(chunker="magic")
