"""What the course reads: documents from a folder (markdown, text, HTML, PDF; front matter optional) and labels.

`records` holds the dataclasses; `folder` reads a folder of documents (`read_folder`, `load_documents`) with
`frontmatter` (YAML), `markup` (titles, site-generator markup) and `convert` (HTML, PDF); `queries` reads
`queries.jsonl` and `judgments.jsonl`. Everything is importable from `ragkit.corpus`. Left out: writing labels
(`ragkit.labels`) and fetching anything over the network.
"""

from ragkit.corpus.folder import (
           FORMATS,
           Skipped,
           derived_fields,
           document_from_file,
           load_documents,
           read_folder,
)
from ragkit.corpus.frontmatter import parse_front_matter
from ragkit.corpus.queries import load_not_relevant, load_queries, query_from_record, read_jsonl
from ragkit.corpus.records import REQUIRED_FIELDS, Document, Evidence, Query, Span

__all__ = ["FORMATS", "REQUIRED_FIELDS", "Document", "Evidence", "Query", "Skipped", "Span", "derived_fields",
           "document_from_file", "load_documents", "load_not_relevant", "load_queries", "parse_front_matter",
           "query_from_record", "read_folder", "read_jsonl"]
