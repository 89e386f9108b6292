"""ragkit: the retrieval side of RAG, derived from scratch in the course notebooks and measured.

The package follows the data flow: `text` (word tokens) → `chunk` → `embed` → `index` (exact, BM25, Chroma)
→ `rank` (fusion, refusal) → `assemble` (the prompt) → `evaluate`; `widgets` wire sliders to the pipeline.
On top: `corpus` (documents and queries), `config` (every knob), `pipeline` (the one `Pipeline` that
notebooks, widgets and `python -m ragkit eval` share) and `cli`. Each module says which notebook derives it
and what it leaves out.
"""

from ragkit.chunk.base import Chunk
from ragkit.config import PipelineConfig
from ragkit.corpus import Document, Query, load_documents, load_queries
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import per_query_metrics, summarize
from ragkit.pipeline import Pipeline

__version__ = "0.1.0"
__all__ = [
    "Chunk", "Document", "Pipeline", "PipelineConfig", "Query", "RagkitError", "judgments_from_queries",
    "load_documents", "load_queries", "per_query_metrics", "summarize",
]
