"""Features of a (query, candidate chunk) pair for learning to rank (notebook 09).

Each feature is a number a reader can explain: how similar the texts are to the embedding model (`dense`),
to BM25 (`bm25`, divided by the query's best candidate so queries are comparable) and to late interaction
(`maxsim`); where the first stage put the chunk (`first_rank`, 1 / (1 + rank)); whether the chunk contains the
query's identifiers (error codes, endpoints, versions: `identifier_match`) and its title the query's words
(`title_overlap`); whether its document passes the filters the query's own cues call for (years, releases,
"current": `filter_match`, from `ragkit.index.query_filters`); how recent it is (`recency`, years since
2020); whether it is in the query's language (`same_language`); and its length (`length`). Left out:
features learnt from text (a model over tokens), click data, and anything read from the labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragkit.chunk.base import Chunk
from ragkit.corpus import Document
from ragkit.index.filters import matches_filters
from ragkit.index.query_filters import parse_filters
from ragkit.text.words import HAN_RUN, word_tokens

FEATURES = ("dense", "bm25", "maxsim", "first_rank", "identifier_match", "title_overlap", "filter_match",
            "recency", "same_language", "length")
IDENTIFIER = re.compile(r"[a-z]*\d|[._\-/:]")  # a word with a digit or a joiner: ts-203, /v2/sessions, 5.3


def identifiers(text: str) -> list[str]:
    """The query's words that look like identifiers (they contain a digit or one of . _ - / :), once a word's
    trailing or leading . and : are stripped: "session:" ends a clause, it is no identifier.

    >>> identifiers("ended session: getting TS-417 on every call to /v2/sessions.")
    ['ts-417', '/v2/sessions']
    """
    words = [word.strip(".:") for word in re.findall(r"[\w./:\-]+", text.lower())]
    return [word for word in words if word and IDENTIFIER.search(word)]


@dataclass(frozen=True)
class QueryCues:
    """What the pair features read from the query alone, worked out once per query, not once per candidate:
    its words, identifiers, language and the filters its cues call for."""

    words: frozenset[str]
    identifiers: tuple[str, ...]
    lang: str
    filters: dict[str, str]


def query_cues(query: str, docs: Sequence[Document]) -> QueryCues:
    """The query side of `pair_features`.

    >>> cues = query_cues("TS-203 errors in 2024", [])
    >>> cues.identifiers, cues.lang, cues.filters
    (('ts-203', '2024'), 'en', {'date_from': '2024-01-01', 'date_to': '2024-12-31'})
    """
    return QueryCues(frozenset(word_tokens(query)), tuple(identifiers(query)),
                     "zh" if HAN_RUN.search(query) else "en", parse_filters(query, docs))


def pair_features(query: str | QueryCues, chunk: Chunk, docs: Sequence[Document]) -> dict[str, float]:
    """The text and metadata features of one pair (the score features come from the retrievers); `query` may
    be its `query_cues`, as `feature_matrix` passes them.

    >>> chunk = Chunk("e#0", "e", 0, 30, "| TS-203 | 429 | Daily quota |", "API error codes", "api", "2025-05-01", "en")
    >>> features = pair_features("TS-203 error", chunk, [])
    >>> features["identifier_match"], features["title_overlap"], features["same_language"]
    (1.0, 0.5, 1.0)
    """
    cues = query if isinstance(query, QueryCues) else query_cues(query, docs)
    words, wanted = cues.words, cues.identifiers
    title_words = set(word_tokens(chunk.title))
    text = chunk.text.lower()
    year = int(chunk.date[:4]) + (int(chunk.date[5:7]) - 1) / 12 if len(chunk.date) >= 7 else 2020.0
    return {"identifier_match": sum(word in text for word in wanted) / len(wanted) if wanted else 0.0,
            "title_overlap": len(words & title_words) / len(words) if words else 0.0,
            "filter_match": float(matches_filters(chunk, cues.filters)),
            "recency": year - 2020, "same_language": float(chunk.lang == cues.lang),
            "length": math.log(1 + len(chunk.text)) / math.log(800)}


def feature_matrix(query: str, chunks: Sequence[Chunk], docs: Sequence[Document], dense: np.ndarray,
                   bm25: np.ndarray, maxsim: np.ndarray) -> np.ndarray:
    """One row per candidate (in first-stage order), one column per name in `FEATURES`.

    >>> chunk = Chunk("e#0", "e", 0, 6, "TS-203", "Errors", "api", "2025-05-01", "en")
    >>> feature_matrix("TS-203", [chunk], [], np.array([0.5]), np.array([4.0]), np.array([0.7]))[0, :4].tolist()
    [0.5, 1.0, 0.7, 1.0]
    """
    best_bm25 = float(np.max(bm25)) if len(bm25) and np.max(bm25) > 0 else 1.0
    cues = query_cues(query, docs)  # parsing the query's filters reads every document: once, not per candidate
    rows = []
    for rank, chunk in enumerate(chunks):
        scored = {"dense": dense[rank], "bm25": bm25[rank] / best_bm25, "maxsim": maxsim[rank],
                  "first_rank": 1 / (1 + rank)}
        row = {**scored, **pair_features(cues, chunk, docs)}  # once per candidate, not once per feature
        rows.append([row[name] for name in FEATURES])
    return np.array(rows, dtype=float).reshape(len(chunks), len(FEATURES))
