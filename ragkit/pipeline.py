"""The one retrieval pipeline that the notebooks, the widgets and `python -m ragkit eval` share.

Data flows one way, and each arrow is a plain function in a stage subpackage:

    documents → chunks and their context (ragkit.chunk) → dense vectors (ragkit.embed) and BM25 terms (ragkit.text, ragkit.index)
    → candidate scores (ragkit.index) → fusion (ragkit.rank.fusion) → diversify (ragkit.rank.mmr)
    → rerank, rewrite and refusal (ragkit.reranking) → top-k → evaluation (ragkit.evaluate)
    → the prompt's k passages, ordered (ragkit.generate.answer) → an answer → its grade (ragkit.generate.grade)

Every knob lives in one frozen `PipelineConfig` (`ragkit.config`); `configure(**changes)` checks names and ranges.
Each stage caches by exactly the fields it reads (chunks by the chunker function and its fields, embeddings by the
chunks and the model, BM25 statistics by the chunks, analyzer and IDF), so moving `k1`, `b`, a fusion knob,
`mmr_lambda` or `threshold` re-scores from memory, and only a chunking change re-chunks and re-embeds.
`using(**changes)` shares the caches; `encoder` comes from `ragkit.embed.stage`, `answer` from
`ragkit.generate.stage`. Left out: serving.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ragkit.cache import StageCache
from ragkit.chunk.base import Chunk, whole_document_chunks
from ragkit.chunk.context import contextual_texts
from ragkit.chunk.parent_child import parent_rankings, parents_by_child
from ragkit.chunk.registry import SIZES, Chunker, default_chunkers
from ragkit.config import ANALYZER_FIELDS, KNOBS, MMR_FIELDS, SCORING_FIELDS, STAGES, PipelineConfig
from ragkit.corpus import Document, Query
from ragkit.embed.model import Encoder
from ragkit.embed.stage import EmbeddingStage, take_encoder
from ragkit.errors import RagkitError, check_query
from ragkit.evaluate.runs import evaluate_pipeline
from ragkit.evaluate.tables import DEFAULT_METRICS
from ragkit.generate.stage import AnswerStage
from ragkit.index.bm25 import BM25Index
from ragkit.index.exact import cosine_scores, top_k
from ragkit.llm.client import LanguageModel
from ragkit.rank.fusion import RANK_FUSIONS, fuse, fuse_ranks
from ragkit.rank.rank_fusion import ranks_from_scores
from ragkit.reranking import Retrieval, retrieve, train_ranker
from ragkit.text.analyzer import Analyzer


class Pipeline(EmbeddingStage, AnswerStage):
    """Documents → chunks → embeddings and BM25 → scores → fusion → MMR → rerank → refusal → rankings, cached.

    >>> from ragkit.corpus import load_documents
    >>> pipe = Pipeline(load_documents("data/corpus"), method="bm25", k1=1.2)
    >>> [chunk.doc_id for chunk, score in pipe.search("TS-417 on every call", k=2)]  # doctest: +SKIP
    ['api-error-codes', ...]
    >>> pipe.configure(b=0.4).config.b
    0.4
    """

    def __init__(self, docs: Sequence[Document], config: PipelineConfig | None = None,
                 encoder: Encoder | str | None = None, language_model: LanguageModel | None = None, **changes):
        if not docs:
            raise RagkitError("the corpus is empty: give the pipeline at least one document")
        self.docs = list(docs)
        self.config = config or PipelineConfig()
        self.encoders, changes = take_encoder(encoder, changes, self.config.encoder)  # by `encoder` knob value
        self.language_model = language_model or LanguageModel()  # situating contexts (replayed by default)
        self.chunkers: dict[str, Chunker] = default_chunkers()
        self.cache = StageCache(size=32)  # a widget re-scores one query set many times: keep recent results
        self.runs = self.cache.runs  # how often each stage has computed (not served from its cache)
        self.ranker = None  # the learning-to-rank model of rerank="ltr", set by train_ranker
        self.configure(**changes)

    def configure(self, **changes) -> Pipeline:
        """Change knobs in place (caches stay valid for what did not change); returns the pipeline. An unknown
        name or a value out of range raises `RagkitError` and leaves the config as it was."""
        config = self.config.updated(**changes)
        if config.chunker not in self.chunkers:
            raise RagkitError(f"unknown chunker {config.chunker!r}; choose one of {', '.join(sorted(self.chunkers))}")
        self.config = config
        return self

    def using(self, **changes) -> Pipeline:
        """A variant with other knobs that shares this pipeline's caches; this one is unchanged."""
        return copy.copy(self).configure(**changes)

    def register_chunker(self, name: str, chunk: Callable[..., list[Chunk]],
                         fields: Sequence[str] = SIZES) -> Pipeline:
        """Add (or replace) a chunker `chunk(docs, config, encoder) -> chunks` that reads the config `fields`."""
        unknown = [field for field in fields if field not in KNOBS]
        if not isinstance(name, str) or not name or unknown:
            raise RagkitError(f"a chunker needs a name and config fields to read; got {name!r}, unknown: {unknown}")
        self.chunkers[name] = Chunker(chunk, tuple(fields))
        return self

    @property
    def chunk_key(self) -> tuple:
        """What the chunks depend on: the chunker's name and function, and the fields it reads."""
        config = self.config
        if config.chunk_size is None:
            return ("whole documents",)
        chunker = self.chunkers[config.chunker]
        return (config.chunker, chunker.chunk, config.values(chunker.fields))

    @property
    def chunks(self) -> list[Chunk]:
        config = self.config
        return self.cache.stage(("chunks", self.chunk_key), lambda: whole_document_chunks(self.docs)
                                if config.chunk_size is None else
                                self.chunkers[config.chunker].chunk(self.docs, config, self.encoder))

    @property
    def indexed_texts(self) -> list[str]:
        """What the indexes read: each chunk after its `context` (`ragkit.chunk.context`)."""
        context, model = self.config.context, self.language_model
        if context == "llm-plain" and hasattr(model, "variant"):  # the same prompts, another writers' recordings
            model = model.variant("plain")
        return self.cache.stage(("indexed texts", self.chunk_key, context), lambda: contextual_texts(
            self.docs, self.chunks, context, model))

    @property
    def chunk_embeddings(self) -> np.ndarray:
        return self.cache.stage(("embeddings", self.chunk_key, self.config.context, self.model_name),
                                lambda: self.encoder.encode(self.indexed_texts, desc="chunks"))

    @property
    def bm25_index(self) -> BM25Index:
        """BM25 term statistics of the analyzed chunks (`bm25_idf`); `k1` and `b` re-weight them, no rebuild."""
        config = self.config
        return self.cache.stage(("bm25 index", self.chunk_key, config.values(("context", *ANALYZER_FIELDS)),
                                 config.bm25_idf), lambda: BM25Index([self.terms(text) for text in self.indexed_texts],
                                                                     config.k1, config.b, config.bm25_idf))

    def score_key(self, method: str | None = None) -> tuple:
        """What a method's scores depend on (default: the configured one): chunks, model, the fields it reads."""
        method = method or self.config.method
        return (self.chunk_key, self.model_name, method, self.config.values(SCORING_FIELDS[method](self.config)))

    def ranking_key(self) -> tuple:
        """What the rankings depend on: the scores, then MMR, rerank (and the trained ranker) and refusal."""
        ranker = self.ranker if self.config.rerank == "ltr" else None
        return (self.score_key(), self.config.values((*MMR_FIELDS, *STAGES["rerank"], *STAGES["refusal"])), ranker)

    def terms(self, text: str) -> list[str]:
        """BM25's terms of one text under the analyzer knobs (`ragkit.text.analyzer`), cached: a slider
        re-tokenizes nothing."""
        fields = self.config.values(ANALYZER_FIELDS)
        analyzer = self.cache.stage(("analyzer", fields), lambda: Analyzer(*fields))
        return self.cache.stage(("terms", fields, text), lambda: analyzer.tokens(text))

    def dense_scores(self, queries: Sequence[str]) -> np.ndarray:
        """Cosine similarity of each query with each chunk, shape (len(queries), len(chunks))."""
        queries = tuple(check_query(query) for query in queries)
        return self.cache.recent(("dense scores", self.score_key("dense"), queries),
                                 lambda: cosine_scores(self.embed_queries(queries), self.chunk_embeddings))

    def bm25_scores(self, queries: Sequence[str]) -> np.ndarray:
        """BM25 score of each query with each chunk under the config's `k1`, `b` and `bm25_idf`."""
        queries, (k1, b) = tuple(check_query(query) for query in queries), self.config.values(("k1", "b"))
        return self.cache.recent(("bm25 scores", self.score_key("bm25"), queries), lambda: self.bm25_index.scores(
            [self.terms(query) for query in queries], k1, b))

    def hybrid_scores(self, queries: Sequence[str]) -> np.ndarray:
        """Dense and BM25 fused by the config's `fusion` (with `rrf_k`, `alpha`, `fusion_depth`)."""
        config, queries = self.config, tuple(queries)
        depth = None if config.fusion_depth is None else min(config.fusion_depth, len(self.chunks))
        if config.fusion not in RANK_FUSIONS:
            return fuse(self.dense_scores(queries), self.bm25_scores(queries), config.fusion, config.rrf_k,
                        config.alpha, depth)
        # rank fusions read positions only: each retriever's ranks are kept, so moving rrf_k or alpha sorts nothing
        dense = self.cache.recent(("dense ranks", self.score_key("dense"), depth, queries),
                                  lambda: ranks_from_scores(self.dense_scores(queries), depth))
        sparse = self.cache.recent(("bm25 ranks", self.score_key("bm25"), depth, queries),
                                   lambda: ranks_from_scores(self.bm25_scores(queries), depth, min_score=0))
        return fuse_ranks(dense, sparse, config.fusion, config.rrf_k, config.alpha)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """Scores of the configured `method`, shape (len(queries), len(chunks))."""
        method = {"dense": self.dense_scores, "bm25": self.bm25_scores, "hybrid": self.hybrid_scores}
        return method[self.config.method](list(queries))

    def retrieve(self, queries: Sequence[str], depth: int) -> Retrieval:
        """Per query: its best `depth` chunk indices after MMR, rerank and refusal, with scores
        (`ragkit.reranking.retrieve`); kept among recent results."""
        queries = tuple(check_query(query) for query in queries)
        return self.cache.recent(("retrieve", self.ranking_key(), queries, depth),
                                 lambda: retrieve(self, queries, depth))

    def rank_chunks(self, indices: Sequence[np.ndarray]) -> list[list[Chunk]]:
        """Chunk indices as chunks (their parents, de-duplicated, for parent-child chunking)."""
        chunks = self.chunks
        rankings = [[chunks[i] for i in row] for row in indices]
        if self.config.chunker == "parent-child" and self.config.chunk_size is not None:
            config = self.config  # the parent-child chunker searches children and returns their parents
            parents = self.cache.stage(("parents", self.chunk_key), lambda: parents_by_child(
                self.docs, self.chunks, config.chunk_size, config.chunk_overlap))
            rankings = parent_rankings(rankings, parents)  # de-duplicated: may be shorter
        return rankings

    def search(self, query: str, k: int = 5) -> list[tuple[Chunk, float]]:
        """The top `k` chunks for one query, with scores (the reranker's when reranking); empty when refused."""
        top_k(np.zeros((1, len(self.chunks))), k)  # the same clear error as everywhere when k is too large
        found = self.retrieve([query], k)
        chunks = self.chunks
        return [(chunks[i], float(score)) for i, score in zip(found.indices[0], found.scores[0], strict=True)]

    def rankings(self, queries: Sequence[str], depth: int = 100) -> list[list[Chunk]]:
        """For each query, up to `depth` chunks best first (fewer for a small corpus; none when refused)."""
        return self.rank_chunks(self.retrieve(queries, depth).indices) if queries else []

    def train_ranker(self, queries: Sequence[Query], judgments: Sequence | None = None) -> Pipeline:
        """Fit the learning-to-rank model that `rerank="ltr"` uses on labelled `queries` (`ragkit.reranking`)."""
        self.ranker = train_ranker(self, queries, judgments)
        return self

    def evaluate(self, queries: Sequence[Query], metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
        """One row per query with its metrics, best score and refusal (`ragkit.evaluate.runs`). Unanswerable
        queries get NaN ranking metrics; `summarize` skips them."""
        return evaluate_pipeline(self, queries, metrics)
