"""Seed 003's keyword score: Jaccard overlap of word sets plus a bonus for every matched query word.

Notebook 06 derives it as a simple sparse retriever to fuse with dense search, and a weaker baseline than
BM25 (notebook 05). With Q and D the sets of word tokens of a query and a chunk (`ragkit.text.words`: lower-cased
words, jieba for Chinese), score = |Q ∩ D| / |Q ∪ D| + bonus × |Q ∩ D|, bonus = 0.1. Scores are computed for
all queries at once with sparse 0/1 matrices: |Q ∩ D| is a matrix product, |Q ∪ D| = |Q| + |D| − |Q ∩ D|.
Left out: term weights (a rare identifier counts the same as "policy", unlike BM25's IDF), term frequency,
and phrases.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from ragkit.errors import RagkitError


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """|A ∩ B| / |A ∪ B| of the two token sets (0 when both are empty).

    >>> jaccard(["rotate", "api", "keys"], ["api", "keys", "expire", "keys"])
    0.5
    """
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 0.0


def keyword_score(query_tokens: Sequence[str], tokens: Sequence[str], bonus: float = 0.1) -> float:
    """Seed 003's score of one chunk for one query: Jaccard + bonus × number of matched query words.

    >>> round(keyword_score(["rotate", "api", "keys"], ["api", "keys", "expire"]), 3)
    0.7
    """
    return jaccard(query_tokens, tokens) + bonus * len(set(query_tokens) & set(tokens))


def check_bonus(bonus: float) -> float:
    """`bonus` as a float, or a clear error unless it is a finite number >= 0.

    >>> check_bonus(0.1)
    0.1
    """
    if isinstance(bonus, bool) or not isinstance(bonus, int | float | np.number) or not 0 <= bonus < np.inf:
        raise RagkitError(f"bonus must be a number >= 0 (seed 003 uses 0.1), got {bonus!r}")
    return float(bonus)


class KeywordIndex:
    """Word sets of every chunk, as a sparse 0/1 matrix, ready to score many queries at once.

    >>> index = KeywordIndex([["api", "keys", "expire"], ["vacation", "days"]])
    >>> index.scores([["rotate", "api", "keys"]]).round(3).tolist()
    [[0.7, 0.0]]
    """

    def __init__(self, corpus_tokens: Sequence[Sequence[str]], bonus: float = 0.1):
        if not corpus_tokens:
            raise RagkitError("the corpus is empty: give at least one chunk's tokens")
        if any(isinstance(tokens, str) for tokens in corpus_tokens):
            raise RagkitError("corpus_tokens must be lists of words (use ragkit.text.words.tokenize_all), not strings")
        self.bonus = check_bonus(bonus)
        self.vocabulary: dict[str, int] = {}
        rows, columns = [], []
        for row, tokens in enumerate(corpus_tokens):
            for word in set(tokens):
                rows.append(row)
                columns.append(self.vocabulary.setdefault(word, len(self.vocabulary)))
        shape = (len(corpus_tokens), max(len(self.vocabulary), 1))
        self.matrix = sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=shape)
        self.sizes = np.asarray(self.matrix.sum(axis=1)).ravel()  # |D| for each chunk

    def scores(self, query_tokens: Sequence[Sequence[str]], bonus: float | None = None) -> np.ndarray:
        """Keyword scores, shape (number of queries, number of chunks)."""
        bonus = self.bonus if bonus is None else check_bonus(bonus)
        if any(isinstance(tokens, str) for tokens in query_tokens):
            raise RagkitError("query_tokens must be lists of words (use ragkit.text.words.tokenize_all), not strings")
        rows, columns, query_sizes = [], [], []
        for row, tokens in enumerate(query_tokens):
            words = set(tokens)
            if not words:
                raise RagkitError(f"query {row} has no words to match (it is empty or only punctuation)")
            query_sizes.append(len(words))
            known = [self.vocabulary[word] for word in words if word in self.vocabulary]
            rows.extend([row] * len(known))
            columns.extend(known)
        queries = sparse.csr_matrix((np.ones(len(rows)), (rows, columns)),
                                    shape=(len(query_tokens), self.matrix.shape[1]))
        matched = (queries @ self.matrix.T).toarray()  # |Q ∩ D|
        union = np.asarray(query_sizes, dtype=float)[:, None] + self.sizes[None, :] - matched
        return matched / np.maximum(union, 1.0) + bonus * matched


def keyword_scores(corpus_tokens: Sequence[Sequence[str]], query_tokens: Sequence[Sequence[str]],
                   bonus: float = 0.1) -> np.ndarray:
    """Seed 003's keyword score of every chunk for every query (one-shot form of `KeywordIndex`).

    >>> keyword_scores([["a", "b"], ["c"]], [["a", "c"]]).round(3).tolist()
    [[0.433, 0.6]]
    """
    return KeywordIndex(corpus_tokens, bonus).scores(query_tokens)
