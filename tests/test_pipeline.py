"""The shared pipeline: cached stages, search, rankings, and clear errors on bad input."""

import pytest

from ragkit.assemble.prompt import build_prompt
from ragkit.config import PipelineConfig
from ragkit.corpus import Document
from ragkit.embed.model import Encoder
from ragkit.errors import RagkitError
from ragkit.pipeline import Pipeline

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


@pytest.mark.parametrize("start, changes, query", [
    ({"method": "bm25"}, {"k1": 0.5}, "how many vacation days"), ({"method": "bm25"}, {"b": 0.1}, "annual leave"),
    ({"method": "bm25"}, {"bm25_idf": "okapi"}, "annual leave"),
    ({"method": "bm25"}, {"stemmer": "none"}, "watering a plant"),
    ({"method": "bm25"}, {"stopwords": "en"}, "the office plants"),
    ({"method": "bm25"}, {"identifiers": "whole"}, "v2 sessions"),
    ({"method": "hybrid", "fusion": "rrf"}, {"rrf_k": 5}, "how many vacation days"),
    ({"method": "hybrid"}, {"alpha": 0.9, "fusion": "minmax"}, "how many vacation days"),
    ({"method": "hybrid", "fusion": "minmax"}, {"fusion": "zscore"}, "how many vacation days"),
    ({"method": "hybrid", "fusion": "rrf"}, {"fusion_depth": 1}, "how many vacation days"),
    ({"method": "hybrid"}, {"method": "dense"}, "how many vacation days"),
    ({"method": "dense"}, {"threshold": 0.99}, "how many vacation days"),
])
def test_changing_a_scoring_knob_does_not_rechunk_or_reembed(pipe, start, changes, query):
    pipe.configure(**start)
    query = [query]
    before = (pipe.scores(query).tolist(), pipe.rankings(query, 3))
    runs, computed, chunks = dict(pipe.runs), pipe.encoder.computed, pipe.chunks
    pipe.configure(**changes)
    after = (pipe.scores(query).tolist(), pipe.rankings(query, 3))
    assert before != after, f"{changes} must really change the scores or the rankings"
    assert pipe.chunks is chunks and pipe.encoder.computed == computed, f"{changes} re-chunked or re-embedded"
    assert (pipe.runs["chunks"], pipe.runs["embeddings"]) == (runs.get("chunks", 0), runs.get("embeddings", 0))
    rebuilt = bool(set(changes) & {"bm25_idf", "stemmer", "stopwords", "identifiers"})
    assert pipe.runs["bm25 index"] == runs.get("bm25 index", 0) + rebuilt, \
        "BM25 statistics are rebuilt only for another analyzer or IDF variant; k1 and b re-weight them"


def test_a_chunking_change_rechunks_and_going_back_reuses_the_cache(pipe):
    chunks = pipe.chunks
    pipe.configure(chunk_size=50, chunk_overlap=0)
    assert pipe.chunks is not chunks and max(c.end - c.start for c in pipe.chunks) <= 50, "a chunking change re-chunks"
    pipe.configure(chunk_size=200, chunk_overlap=20)
    assert pipe.chunks is chunks, "going back re-uses the cached chunking"
    pipe.configure(semantic_window=5)
    assert pipe.chunks is chunks, "the fixed chunker does not read the semantic knobs, so they do not re-chunk it"


def test_a_chunker_registered_again_under_the_same_name_rechunks(pipe):
    from ragkit.chunk.base import chunk_corpus
    from ragkit.chunk.fixed import fixed_size_chunks

    def windows(size):
        return lambda docs, config, encoder: chunk_corpus(docs, fixed_size_chunks, size=size, overlap=0)

    pipe.register_chunker("mine", windows(60), fields=())
    pipe.configure(chunker="mine")
    first = [c.end - c.start for c in pipe.chunks]
    pipe.register_chunker("mine", windows(30), fields=())
    second = [c.end - c.start for c in pipe.chunks]
    assert max(first) > 30 >= max(second), "the new function's chunks, not the old cached ones"
    assert len(pipe.chunk_embeddings) == len(second), "and embeddings that follow them"
    with pytest.raises(RagkitError, match=r"unknown: \[.size.\]"):
        pipe.register_chunker("bad", windows(30), fields=("size",))


def test_using_shares_the_caches_and_leaves_the_pipeline_as_it_was(pipe):
    bm25 = pipe.using(method="bm25", k1=0.9)
    assert (bm25.config.method, bm25.config.k1, pipe.config.method, pipe.config.k1) == ("bm25", 0.9, "dense", 1.5)
    assert bm25.chunks is pipe.chunks and bm25.search("office plants", k=1)[0][0].doc_id == "tides"


def test_configure_explains_unknown_names_and_bad_values(pipe):
    with pytest.raises(RagkitError, match=r"unknown setting 'k2'; the settings are: chunker, chunk_size, .*threshold"):
        pipe.configure(k2=1.0)
    for changes, message in [({"b": 1.5}, r"b=1.5 is out of range: b .* takes a number >= 0 and <= 1"),
                             ({"k1": -1}, r"k1=-1 is out of range"), ({"fusion": "max"}, "one of rrf, weighted"),
                             ({"rrf_k": float("nan")}, "rrf_k=nan is out of range"),
                             ({"chunk_size": 2.5}, "takes an integer >= 1, or None"),
                             ({"threshold": 2.0}, "cosine, which lies between -1 and 1"),
                             ({"method": "magic"}, "method='magic' is out of range")]:
        with pytest.raises(RagkitError, match=message):
            pipe.configure(**changes)
    assert pipe.config == PipelineConfig(chunk_size=200, chunk_overlap=20), "refused changes leave the config"
    text = repr(pipe.using(method="bm25", k1=1.2).config)
    assert "retrieval: method='bm25', k1=1.2, b=0.75, bm25_idf='lucene'" in text, text
    assert "analysis:  stemmer='snowball', stopwords='none', identifiers='split'" in text, text
    assert "embedding: encoder='minilm'" in text, text
    assert text.count("\n") == 11, "one line per stage (10: embedding, rerank and answer included) between the brackets"


def test_a_threshold_refuses_queries_whose_best_score_is_below_it(pipe):
    best = float(pipe.scores(["office plants"]).max())
    assert pipe.using(threshold=best - 0.01).search("office plants", k=2), "above the threshold: answered"
    assert pipe.using(threshold=best + 0.01).search("office plants", k=2) == [], "below: refused, nothing returned"
    assert pipe.using(threshold=best + 0.01).rankings(["office plants"], 3) == [[]]


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
    with pytest.raises(RagkitError, match="method='magic' is out of range"):
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
