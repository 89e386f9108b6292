"""ragkit: the retrieval side of RAG, derived from scratch in the course notebooks and measured.

Each module is one topic and says in its docstring which notebook derives it and what it leaves out.
The pipeline that notebooks, widgets and `python -m ragkit eval` share is `ragkit.pipeline.Pipeline`.
"""

from ragkit.chunking import Chunk, chunk_documents, fixed_size_chunks
from ragkit.corpus import Document, Query, load_documents, load_queries
from ragkit.errors import RagkitError
from ragkit.evaluation import per_query_metrics, summarize
from ragkit.pipeline import Pipeline, PipelineConfig
from ragkit.relevance import judgments_from_queries

__version__ = "0.1.0"
__all__ = [
    "Chunk", "Document", "Pipeline", "PipelineConfig", "Query", "RagkitError", "chunk_documents",
    "fixed_size_chunks", "judgments_from_queries", "load_documents", "load_queries", "per_query_metrics",
    "summarize",
]
