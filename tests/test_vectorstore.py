"""Chroma as a vector store: same results as exact search, filters as ragkit.index.filters, embedded and over HTTP."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError
from ragkit.index.chroma import (
    CHROMA_URL_VARIABLE,
    chroma_client,
    chroma_search,
    chroma_where,
    chunk_collection,
    chunk_metadata,
    date_number,
)
from ragkit.index.exact import exact_search
from ragkit.index.filters import filter_mask
from ragkit.pipeline import Pipeline

SOURCES = ["faq", "runbooks", "incidents"]


def unit_rows(rng, n, d=16):
    x = rng.normal(size=(n, d))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def toy_chunks(n, rng):
    """Chunks with varied metadata; every seventh has no date and every fifth has no version."""
    chunks = []
    for i in range(n):
        date = "" if i % 7 == 3 else f"202{4 + i % 3}-{1 + i % 12:02d}-{1 + i % 28:02d}"
        version = None if i % 5 == 0 else str(1 + i % 3)
        chunks.append(Chunk(f"d{i // 4}#{i % 4}", f"d{i // 4}", 0, 1, f"text {i}", source=SOURCES[i % 3],
                            date=date, lang="zh" if i % 9 == 0 else "en", version=version))
    rng.shuffle(chunks)
    return chunks


@pytest.fixture
def store(tmp_path):
    rng = np.random.default_rng(7)
    chunks = toy_chunks(300, rng)
    embeddings = unit_rows(rng, len(chunks))
    client = chroma_client(path=tmp_path / "chroma")
    return client, chunks, embeddings, chunk_collection(client, chunks, embeddings), unit_rows(rng, 12)


def test_known_answers_for_metadata_and_where():
    assert date_number("2024-12-31") == 20241231, "ISO date to YYYYMMDD"
    chunk = Chunk("d#0", "d", 0, 3, "abc", source="faq", date="", lang="en", version=None)
    assert chunk_metadata(chunk) == {"doc_id": "d", "source": "faq", "lang": "en"}, "missing fields are left out"
    with_version = Chunk("d#0", "d", 0, 3, "abc", source="faq", date="2025-06-10", lang="en", version="5.0")
    assert chunk_metadata(with_version)["version"] == "5.0", "the version is stored as a string"
    assert chroma_where(None) is None and chroma_where({}) is None, "no filters, no where clause"
    assert chroma_where({"version": "2"}) == {"version": {"$eq": "2"}}, "one filter is one clause"
    assert chroma_where({"date_from": "2025-01-01", "date_to": "2025-12-31"}) == {
        "$and": [{"date": {"$gte": 20250101}}, {"date": {"$lte": 20251231}}]}, "a date range is two clauses"


def test_bad_input_is_explained(store):
    client, chunks, embeddings, collection, queries = store
    for bad in ["2025-7-1", "20250701", "yesterday"]:
        with pytest.raises(RagkitError, match="ISO date"):
            date_number(bad)
    with pytest.raises(RagkitError, match="unknown filter"):
        chroma_where({"year": "2025"})
    with pytest.raises(RagkitError, match="unknown filter"):
        chroma_search(collection, chunks, queries, 5, filters={"author": "me"})
    with pytest.raises(RagkitError, match="larger than the number of indexed chunks"):
        chroma_search(collection, chunks, queries, len(chunks) + 1)
    with pytest.raises(RagkitError, match="positive integer"):
        chroma_search(collection, chunks, queries, 0)
    with pytest.raises(RagkitError, match="larger than the number of chunks"):
        exact_search(queries, embeddings, len(chunks) + 1, chunks, {"lang": "en"})
    with pytest.raises(RagkitError, match="corpus is empty"):
        chunk_collection(client, [], np.zeros((0, 16)))
    with pytest.raises(RagkitError, match="one embedding row per chunk"):
        chunk_collection(client, chunks, embeddings[:-1])
    with pytest.raises(RagkitError, match="unique"):
        chunk_collection(client, [chunks[0], chunks[0]], embeddings[:2])
    empty = client.create_collection("empty", embedding_function=None)
    with pytest.raises(RagkitError, match="is empty"):
        chroma_search(empty, chunks, queries, 1)
    with pytest.raises(RagkitError, match="not a server address"):
        chroma_client(url="ftp://example")


def test_chroma_returns_the_exact_top_k(store):
    _, chunks, embeddings, collection, queries = store
    for (found, scores), (exact, exact_scores) in zip(chroma_search(collection, chunks, queries, 10),
                                                      exact_search(queries, embeddings, 10), strict=True):
        assert found.tolist() == exact.tolist(), "HNSW on 300 vectors must find the exact top 10"
        np.testing.assert_allclose(scores, exact_scores, atol=1e-5, err_msg="1 - distance must be the cosine")


@pytest.mark.parametrize("filters", [
    {"date_from": "2025-01-01"}, {"date_to": "2024-06-30", "source": "faq"}, {"version": "2", "lang": "en"},
    {"date_from": "2025-01-01", "date_to": "2025-12-31", "source": "incidents"}, {"lang": "zh"}, {"version": "9"},
])
def test_chroma_where_keeps_what_filter_mask_keeps(store, filters):
    _, chunks, embeddings, collection, queries = store
    mask = filter_mask(chunks, filters)
    for (found, scores), (exact, exact_scores) in zip(chroma_search(collection, chunks, queries, 8, filters),
                                                      exact_search(queries, embeddings, 8, chunks, filters),
                                                      strict=True):
        assert found.tolist() == exact.tolist(), f"filtered Chroma and filtered exact search differ for {filters}"
        np.testing.assert_allclose(scores, exact_scores, atol=1e-5, err_msg=f"filtered scores differ for {filters}")
        assert mask[found].all(), f"Chroma returned a chunk that fails {filters}"
        assert len(found) == min(8, mask.sum()), "fewer than k results only when fewer chunks pass"


def test_a_collection_is_reused_only_when_ids_and_vectors_match(store, tmp_path):
    client, chunks, embeddings, collection, _ = store
    assert chunk_collection(client, chunks, embeddings).id == collection.id, "same chunks and vectors: reuse"
    reopened = chunk_collection(chroma_client(path=tmp_path / "chroma"), chunks, embeddings)
    assert reopened.id == collection.id, "a new client on the same folder reuses the stored collection"
    changed = embeddings.copy()
    changed[0] = -changed[0]
    rebuilt = chunk_collection(client, chunks, changed)
    assert rebuilt.id != collection.id, "changed vectors must rebuild the collection"
    fewer = chunk_collection(client, chunks[:-1], embeddings[:-1])
    assert fewer.count() == len(chunks) - 1, "a different chunk list must rebuild the collection"


def test_default_client_is_embedded_in_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGKIT_CACHE", str(tmp_path))
    monkeypatch.delenv(CHROMA_URL_VARIABLE, raising=False)
    chroma_client().heartbeat()
    assert (tmp_path / "chroma").is_dir(), "the embedded store lives in <cache>/chroma"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_server_is_explained(monkeypatch):
    monkeypatch.setenv(CHROMA_URL_VARIABLE, f"http://127.0.0.1:{free_port()}")
    with pytest.raises(RagkitError, match="cannot reach a Chroma server"):
        chroma_client()


def test_course_dev_queries_get_the_exact_top_10(course_docs, course_queries, encoder, tmp_path):
    pipe = Pipeline(course_docs, encoder=encoder)
    dev = [q for q in course_queries if q.split == "dev"]
    query_embeddings = pipe.embed_queries([q.text for q in dev])
    collection = chunk_collection(chroma_client(path=tmp_path), pipe.chunks, pipe.chunk_embeddings)
    found = chroma_search(collection, pipe.chunks, query_embeddings, 10)
    exact = exact_search(query_embeddings, pipe.chunk_embeddings, 10)
    overlap = np.mean([len(set(a.tolist()) & set(b.tolist())) / 10 for (a, _), (b, _) in zip(found, exact, strict=True)])
    assert overlap >= 0.99, f"Chroma's top 10 overlaps exact search by only {overlap:.3f} on the dev queries"
    for query in (q for q in dev if q.filters):
        single = query_embeddings[dev.index(query)]
        (a, _), = chroma_search(collection, pipe.chunks, single, 5, query.filters)
        (b, _), = exact_search(single, pipe.chunk_embeddings, 5, pipe.chunks, query.filters)
        assert a.tolist() == b.tolist(), f"{query.query_id}: filtered rankings differ ({query.filters})"


def test_a_chroma_server_gives_the_embedded_results(store, tmp_path, monkeypatch):
    _, chunks, embeddings, collection, queries = store
    chroma = Path(sys.executable).parent / "chroma"
    if not chroma.exists():
        pytest.skip("the chroma command is not installed beside this Python")
    port = free_port()
    server = subprocess.Popen([str(chroma), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1",
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "ANONYMIZED_TELEMETRY": "False"})
    try:
        monkeypatch.setenv(CHROMA_URL_VARIABLE, f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 30
        while True:
            try:
                client = chroma_client()
                break
            except RagkitError:
                assert server.poll() is None, f"the chroma server exited with code {server.returncode}"
                assert time.monotonic() < deadline, "the chroma server did not answer within 30 s"
                time.sleep(0.25)
        remote = chunk_collection(client, chunks, embeddings)
        filters = {"date_from": "2025-01-01", "lang": "en"}
        for kwargs in [{}, {"filters": filters}]:
            over_http = chroma_search(remote, chunks, queries, 10, **kwargs)
            embedded = chroma_search(collection, chunks, queries, 10, **kwargs)
            for (a, a_scores), (b, b_scores) in zip(over_http, embedded, strict=True):
                assert a.tolist() == b.tolist(), f"server and embedded rankings differ ({kwargs})"
                np.testing.assert_allclose(a_scores, b_scores, atol=1e-6, err_msg="server and embedded scores")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
