"""Chroma as the course's vector store: index chunk embeddings once, query them with metadata filters.

Notebook 03 derives exact search and proves that Chroma returns the same top-k. Chroma never embeds here:
collections are created with `embedding_function=None` and always receive ragkit's precomputed vectors
(letting Chroma embed text itself would make it download a model). The store is embedded
(`PersistentClient` in `<ragkit cache>/chroma`) unless `RAGKIT_CHROMA_URL` names a Chroma server, which
is then used through `HttpClient`. Metadata filters use the keys of `ragkit.index.filters`; dates are stored as
integers YYYYMMDD so that `$gte`/`$lte` compare them. Left out: Chroma's own embedding functions, adding or
deleting single chunks (a changed chunk list rebuilds the collection), authentication, and HNSW tuning.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from ragkit.cache import cache_dir
from ragkit.chunk.base import Chunk
from ragkit.errors import RagkitError, check_k
from ragkit.index.exact import Results
from ragkit.index.filters import check_filters

CHROMA_URL_VARIABLE = "RAGKIT_CHROMA_URL"


DEFAULT_COLLECTION = "ragkit-chunks"


def chroma_client(url: str | None = None, path: str | Path | None = None):
    """A Chroma client: `HttpClient` for `url` (default `$RAGKIT_CHROMA_URL`), else embedded in `path`.

    >>> import tempfile
    >>> type(chroma_client(path=tempfile.mkdtemp())).__name__
    'Client'
    """
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    url = url if url is not None else os.environ.get(CHROMA_URL_VARIABLE, "")
    if not url:
        folder = Path(path) if path is not None else cache_dir() / "chroma"
        return chromadb.PersistentClient(path=str(folder), settings=settings)
    parts = urlsplit(url if "://" in url else f"http://{url}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 8000)
    except ValueError:
        port = None
    if parts.scheme not in ("http", "https") or not parts.hostname or port is None:
        raise RagkitError(f"{CHROMA_URL_VARIABLE}={url!r} is not a server address like http://127.0.0.1:8000")
    try:
        client = chromadb.HttpClient(host=parts.hostname, port=port, ssl=parts.scheme == "https",
                                     settings=settings)
        client.heartbeat()
    except Exception as error:  # chromadb raises ValueError, httpx errors or its own, depending on the failure
        raise RagkitError(
            f"cannot reach a Chroma server at {url} ({error}); start one with "
            f"`chroma run --path <folder> --port {port}`, or unset {CHROMA_URL_VARIABLE} to use the embedded store"
        ) from None
    return client


def date_number(date: str) -> int:
    """An ISO date as the integer YYYYMMDD, which Chroma can compare with `$gte` and `$lte`.

    >>> date_number("2025-07-01")
    20250701
    """
    digits = date.replace("-", "")
    if len(date) != 10 or len(digits) != 8 or not digits.isdigit():
        raise RagkitError(f"expected an ISO date like 2025-07-01, got {date!r}")
    return int(digits)


def chunk_metadata(chunk: Chunk) -> dict[str, str | int]:
    """The metadata Chroma stores for a chunk; a missing date or version is left out (no filter matches it).

    >>> chunk_metadata(Chunk("d#0", "d", 0, 3, "abc", source="faq", date="2025-01-02", lang="en"))
    {'doc_id': 'd', 'source': 'faq', 'lang': 'en', 'date': 20250102}
    """
    metadata: dict[str, str | int] = {"doc_id": chunk.doc_id, "source": chunk.source, "lang": chunk.lang}
    if chunk.date:
        metadata["date"] = date_number(chunk.date)
    if chunk.version:
        metadata["version"] = chunk.version
    return metadata


def chroma_where(filters: Mapping[str, str] | None) -> dict | None:
    """Translate ragkit filters (see `ragkit.index.filters`) into a Chroma `where` clause (None: no filter).

    >>> chroma_where({"date_from": "2025-01-01", "source": "incidents"})
    {'$and': [{'date': {'$gte': 20250101}}, {'source': {'$eq': 'incidents'}}]}
    """
    if not filters:
        return None
    check_filters(filters)
    clauses = []
    for key, value in filters.items():
        if key == "date_from":
            clauses.append({"date": {"$gte": date_number(value)}})
        elif key == "date_to":
            clauses.append({"date": {"$lte": date_number(value)}})
        elif key == "exclude":
            clauses.append({"doc_id": {"$nin": value.split(",")}})
        else:
            clauses.append({key: {"$eq": value}})
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def embeddings_fingerprint(chunk_ids: Sequence[str], embeddings: np.ndarray) -> str:
    """A SHA-1 of the chunk ids and their float32 vectors: equal fingerprints mean the same index content.

    >>> embeddings_fingerprint(["a"], np.ones((1, 2)))[:8]
    '6b7bde25'
    """
    digest = hashlib.sha1("\0".join(chunk_ids).encode())
    digest.update(np.ascontiguousarray(embeddings, dtype=np.float32).tobytes())
    return digest.hexdigest()


def chunk_collection(client, chunks: Sequence[Chunk], embeddings: np.ndarray, name: str = DEFAULT_COLLECTION):
    """A cosine Chroma collection holding `chunks` with their precomputed `embeddings`.

    An existing collection of that name is reused when it holds the same ids, in the same number, and the
    same vectors (a fingerprint kept in its metadata); otherwise it is rebuilt.

    >>> import tempfile
    >>> chunks = [Chunk("d#0", "d", 0, 1, "a"), Chunk("d#1", "d", 1, 2, "b")]
    >>> chunk_collection(chroma_client(path=tempfile.mkdtemp()), chunks, np.eye(2)).count()
    2
    """
    embeddings = np.asarray(embeddings, dtype=np.float32)
    if not chunks:
        raise RagkitError("there are no chunks to index: the corpus is empty")
    if embeddings.ndim != 2 or len(embeddings) != len(chunks):
        raise RagkitError(f"need one embedding row per chunk: {len(chunks)} chunks, embeddings {embeddings.shape}")
    ids = [chunk.chunk_id for chunk in chunks]
    if len(set(ids)) != len(ids):
        raise RagkitError("chunk ids must be unique to be indexed")
    fingerprint = embeddings_fingerprint(ids, embeddings)
    if name in [collection.name for collection in client.list_collections()]:
        collection = client.get_collection(name, embedding_function=None)
        if (collection.count() == len(ids) and (collection.metadata or {}).get("fingerprint") == fingerprint
                and set(collection.get(include=[])["ids"]) == set(ids)):
            return collection
        client.delete_collection(name)
    collection = client.create_collection(name, configuration={"hnsw": {"space": "cosine"}},
                                          metadata={"fingerprint": fingerprint}, embedding_function=None)
    batch = client.get_max_batch_size()
    for start in range(0, len(ids), batch):
        part = slice(start, start + batch)
        collection.add(ids=ids[part], embeddings=embeddings[part], documents=[c.text for c in chunks[part]],
                       metadatas=[chunk_metadata(c) for c in chunks[part]])
    return collection


def chroma_search(collection, chunks: Sequence[Chunk], query_embeddings: np.ndarray, k: int,
                  filters: Mapping[str, str] | None = None) -> Results:
    """Per query, the indices (into `chunks`) of Chroma's top `k` and their cosine scores (1 − distance).

    With filters, a query gets fewer than `k` results when fewer chunks pass them.

    >>> import tempfile
    >>> chunks = [Chunk("d#0", "d", 0, 1, "a"), Chunk("d#1", "d", 1, 2, "b")]
    >>> collection = chunk_collection(chroma_client(path=tempfile.mkdtemp()), chunks, np.eye(2))
    >>> indices, scores = chroma_search(collection, chunks, np.array([[0.6, 0.8]]), k=2)[0]
    >>> indices.tolist(), scores.round(3).tolist()
    ([1, 0], [0.8, 0.6])
    """
    check_k(k)
    count = collection.count()
    if count == 0:
        raise RagkitError(f"the Chroma collection {collection.name!r} is empty: index chunks first")
    check_k(k, at_most=count, of="indexed chunks")
    position = {chunk.chunk_id: i for i, chunk in enumerate(chunks)}
    found = collection.query(query_embeddings=np.atleast_2d(query_embeddings).astype(np.float32), n_results=k,
                             where=chroma_where(filters), include=["distances"])
    try:
        return [(np.array([position[chunk_id] for chunk_id in ids], dtype=int), 1.0 - np.array(distances))
                for ids, distances in zip(found["ids"], found["distances"], strict=True)]
    except KeyError as error:
        raise RagkitError(f"the collection holds chunk {error} that is not in `chunks`: rebuild it") from None
