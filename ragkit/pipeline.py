"""The one retrieval pipeline that notebooks, widgets and the eval command share.

Parameters live in a small frozen dataclass; the expensive steps (chunking and embedding) are cached on the
pipeline, keyed by the parameters they depend on, and embeddings are also cached on disk by text hash. So a
change that does not re-chunk re-scores from memory, and only a chunking change re-embeds. Each stage is a
plain function in its own module (`chunking`, `embedding`, `search`, `bm25`, `fusion`, `evaluation`).
Chunkers: `fixed`, `sentence`, `structure`, `parent-child` and `semantic` (notebook 04). Scorers: `dense`
(cosine), `bm25` (notebook 05) and `hybrid` (reciprocal rank fusion of the two, notebook 06); later notebooks
add more (MMR, rerank) to `Pipeline.scorers` without rewriting the rest. Left out: generation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ragkit.bm25 import BM25Index
from ragkit.chunkers import (
    chunk_corpus,
    parent_child_chunks,
    parent_of,
    parent_rankings,
    sentence_chunks,
    structure_aware_chunks,
)
from ragkit.chunking import Chunk, check_chunk_size, chunk_documents
from ragkit.corpus import Document, Query
from ragkit.embedding import Encoder
from ragkit.errors import RagkitError
from ragkit.evaluation import DEFAULT_METRICS, parse_metric, per_query_metrics
from ragkit.fusion import rrf_fuse
from ragkit.relevance import judgments_from_queries
from ragkit.search import cosine_scores, top_k
from ragkit.semantic_chunking import semantic_chunk_documents
from ragkit.words import tokenize_all


@dataclass(frozen=True)
class PipelineConfig:
    """Every knob of the pipeline. `chunk_size=None` makes each whole document one retrieval unit.

    >>> PipelineConfig(chunk_size=400, chunk_overlap=50).chunker
    'fixed'
    """

    chunk_size: int | None = 800
    chunk_overlap: int = 100
    chunker: str = "fixed"
    method: str = "dense"

    def check(self) -> None:
        if self.chunk_size is not None:
            check_chunk_size(self.chunk_size, self.chunk_overlap)


def whole_document_chunks(docs: Sequence[Document]) -> list[Chunk]:
    """One unit per document, covering its whole text (the BEIR convention).

    >>> whole_document_chunks([Document("d", "T", "x", "", "en", "abc")])[0].end
    3
    """
    return [Chunk(f"{d.doc_id}#0", d.doc_id, 0, len(d.text), d.text, d.title, d.source, d.date, d.lang, d.version)
            for d in docs]


def check_query(query: str) -> str:
    """The query, or a clear error when it is not a string or has no words.

    >>> check_query("  revoke a token ")
    'revoke a token'
    """
    if not isinstance(query, str) or not query.strip():
        raise RagkitError(f"the query is empty: type a question or keywords (got {query!r})")
    return query.strip()


class Pipeline:
    """Documents → chunks → embeddings → scores → rankings, with the expensive steps cached.

    >>> from ragkit.corpus import load_documents  # doctest: +SKIP
    >>> pipe = Pipeline(load_documents("data/corpus"))  # doctest: +SKIP
    >>> [chunk.doc_id for chunk, score in pipe.search("how do I revoke a token?", k=3)]  # doctest: +SKIP
    ['api-sessions-v2', ...]
    """

    def __init__(self, docs: Sequence[Document], config: PipelineConfig | None = None,
                 encoder: Encoder | None = None):
        if not docs:
            raise RagkitError("the corpus is empty: give the pipeline at least one document")
        self.docs = list(docs)
        self.config = config or PipelineConfig()
        self.config.check()
        self.encoder = encoder or Encoder()
        self._chunks: dict[tuple, list[Chunk]] = {}
        self._embeddings: dict[tuple, np.ndarray] = {}
        self._bm25: dict[tuple, BM25Index] = {}
        self.scorers: dict[str, Callable[[Sequence[str]], np.ndarray]] = {
            "dense": self.dense_scores, "bm25": self.bm25_scores, "hybrid": self.hybrid_scores,
        }
        # chunker name -> function (docs, config) -> chunks; notebook 04 registers more strategies
        self.chunkers: dict[str, Callable[[Sequence[Document], PipelineConfig], list[Chunk]]] = {
            "fixed": lambda docs, config: chunk_documents(docs, config.chunk_size, config.chunk_overlap),
            "sentence": lambda docs, config: chunk_corpus(
                docs, sentence_chunks, size=config.chunk_size, overlap=config.chunk_overlap),
            "structure": lambda docs, config: chunk_corpus(
                docs, structure_aware_chunks, size=config.chunk_size, overlap=config.chunk_overlap),
            # parent-child: the children are searched, and rankings() returns their parents
            "parent-child": lambda docs, config: chunk_corpus(
                docs, lambda doc, **sizes: parent_child_chunks(doc, **sizes)[0],
                child_size=config.chunk_size, child_overlap=config.chunk_overlap),
            "semantic": lambda docs, config: semantic_chunk_documents(
                docs, self.encoder, rule="percentile", window=3, min_size=200, max_size=config.chunk_size),
        }
        self._parents: dict[tuple, dict[str, Chunk]] = {}

    def configure(self, **changes) -> Pipeline:
        """Change parameters in place (caches stay valid for what did not change); returns self."""
        config = replace(self.config, **changes)
        config.check()
        if config.method not in self.scorers:
            raise RagkitError(f"unknown method {config.method!r}; choose one of {sorted(self.scorers)}")
        if config.chunker not in self.chunkers:
            raise RagkitError(f"unknown chunker {config.chunker!r}; choose one of {sorted(self.chunkers)}")
        self.config = config
        return self

    @property
    def chunking_key(self) -> tuple:
        config = self.config
        if config.chunk_size is None:
            return ("whole", None, 0)
        return (config.chunker, config.chunk_size, config.chunk_overlap)

    @property
    def chunks(self) -> list[Chunk]:
        key = self.chunking_key
        if key not in self._chunks:
            self._chunks[key] = (whole_document_chunks(self.docs) if self.config.chunk_size is None
                                 else self.chunkers[self.config.chunker](self.docs, self.config))
        return self._chunks[key]

    @property
    def chunk_embeddings(self) -> np.ndarray:
        key = self.chunking_key
        if key not in self._embeddings:
            self._embeddings[key] = self.encoder.encode([chunk.text for chunk in self.chunks], desc="chunks")
        return self._embeddings[key]

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        return self.encoder.encode([check_query(query) for query in queries], desc="queries")

    def dense_scores(self, queries: Sequence[str]) -> np.ndarray:
        """Cosine similarity of each query with each chunk, shape (len(queries), len(chunks))."""
        return cosine_scores(self.embed_queries(queries), self.chunk_embeddings)

    @property
    def bm25_index(self) -> BM25Index:
        """BM25 (k1=1.5, b=0.75, Lucene IDF) over the chunks' word tokens, built once per chunking."""
        key = self.chunking_key
        if key not in self._bm25:
            self._bm25[key] = BM25Index(tokenize_all(chunk.text for chunk in self.chunks))
        return self._bm25[key]

    def bm25_scores(self, queries: Sequence[str]) -> np.ndarray:
        """BM25 score of each query with each chunk, shape (len(queries), len(chunks))."""
        return self.bm25_index.scores(tokenize_all(check_query(query) for query in queries))

    def hybrid_scores(self, queries: Sequence[str]) -> np.ndarray:
        """Reciprocal rank fusion (rrf_k=60, ranks from 1, full lists) of dense and BM25 scores."""
        queries = [check_query(query) for query in queries]
        return rrf_fuse(self.dense_scores(queries), self.bm25_scores(queries), rrf_k=60)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """Scores of the configured method."""
        if self.config.method not in self.scorers:
            raise RagkitError(f"unknown method {self.config.method!r}; choose one of {sorted(self.scorers)}")
        return self.scorers[self.config.method](list(queries))

    def search(self, query: str, k: int = 5) -> list[tuple[Chunk, float]]:
        """The top `k` chunks for one query, with their scores."""
        scores = self.scores([check_query(query)])[0]
        return [(self.chunks[i], float(scores[i])) for i in top_k(scores, k)]

    def rankings(self, queries: Sequence[str], depth: int = 100) -> list[list[Chunk]]:
        """For each query, up to `depth` chunks best first (fewer when the corpus is smaller)."""
        if not queries:
            return []
        scores = self.scores(queries)
        best = top_k(scores, min(depth, scores.shape[1]))
        rankings = [[self.chunks[i] for i in row] for row in best]
        if self.config.chunker == "parent-child":  # de-duplicated parents: may be shorter than depth
            rankings = parent_rankings(rankings, self.parents_by_child())
        return rankings

    def parents_by_child(self) -> dict[str, Chunk]:
        """Parent-child chunking: child chunk id → its parent section chunk."""
        key = self.chunking_key
        if key not in self._parents:
            parents = [parent for doc in self.docs
                       for parent in parent_child_chunks(doc, self.config.chunk_size, self.config.chunk_overlap)[1]]
            self._parents[key] = parent_of(self.chunks, parents)
        return self._parents[key]

    def evaluate(self, queries: Sequence[Query], metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
        """One row per query with its metrics (`ragkit.evaluation.per_query_metrics`) for the current config.

        Unanswerable queries get NaN ranking metrics; `summarize` skips them.
        """
        depth = max(parse_metric(metric)[1] for metric in metrics)
        answerable = [query for query in queries if query.evidence]
        rankings = dict(zip([q.query_id for q in answerable], self.rankings([q.text for q in answerable], depth),
                            strict=True))
        judgments = judgments_from_queries(queries, self.docs)
        return per_query_metrics([rankings.get(q.query_id, []) for q in queries], judgments, metrics)
