"""BM25 as sparse-matrix scoring: term statistics counted once, re-weighted for any `k1` and `b` in milliseconds.

Notebook 05 derives it. The index keeps a word × document matrix of term frequencies (CSR), the document lengths
and every word's IDF. The weights W = IDF × saturated tf are computed for the index's `k1`, `b` at build time, and
for another pair in one pass over the stored values; a query's scores are q·W, q holding its word counts (a
repeated word counts twice, an unknown word zero, as in bm25s and rank_bm25). Variants (`idf=`): "lucene" is
Lucene's and bm25s's (IDF log(1 + (N−n+0.5)/(n+0.5)), no constant (k1+1) factor); "robertson" the textbook
formula (IDF log((N−n+0.5)/(n+0.5)), negative when n > N/2); "okapi" rank_bm25's BM25Okapi (Robertson's, with
negative IDFs floored to 0.25 × the mean IDF). The counts are made a block of documents at a time (`bm25_build`);
with numba installed, `rankings` ranks a batch in one compiled call (`bm25_topk`), to the same rankings.
Left out: BM25L/BM25+, stemming, field weights, and adding documents to an index (build a new one).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from ragkit.errors import RagkitError, check_k
from ragkit.index.bm25_build import term_counts
from ragkit.index.bm25_topk import compiled_kernel, default_ways, flat_term_ids
from ragkit.index.exact import top_k

IDF_VARIANTS = ("lucene", "robertson", "okapi")
WEIGHT_VALUES = 1 << 18  # weights computed at a time (their temporaries stay a few MB)


def idf_values(df: np.ndarray, n_docs: int, idf: str = "lucene", epsilon: float = 0.25) -> np.ndarray:
    """IDF of terms that occur in `df` of `n_docs` documents; "okapi" floors negative ones to epsilon × mean.

    >>> idf_values(np.array([1, 2, 3]), 3, "robertson").round(3)
    array([ 0.511, -0.511, -1.946])
    >>> idf_values(np.array([1, 2, 3]), 3, "lucene").round(3)
    array([0.981, 0.47 , 0.134])
    """
    if idf not in IDF_VARIANTS:
        raise RagkitError(f"unknown IDF variant {idf!r}; choose one of {', '.join(IDF_VARIANTS)}")
    df = np.asarray(df, dtype=float)
    ratio = (n_docs - df + 0.5) / (df + 0.5)
    if idf == "lucene":
        return np.log1p(ratio)
    values = np.log(ratio)
    if idf == "okapi" and len(values):
        values = np.where(values < 0, epsilon * values.mean(), values)
    return values


def check_parameters(k1: float, b: float) -> None:
    """Raise `RagkitError` unless k1 ≥ 0 and 0 ≤ b ≤ 1 (both finite numbers).

    >>> check_parameters(1.2, 0.75)
    """
    if not isinstance(k1, int | float) or not np.isfinite(k1) or k1 < 0:
        raise RagkitError(f"k1 must be a number ≥ 0 (1.2 to 2 is usual), got {k1!r}")
    if not isinstance(b, int | float) or not 0 <= b <= 1:
        raise RagkitError(f"b must be a number between 0 and 1 (0.75 is usual), got {b!r}")


def saturated_tf(tf, k1: float = 1.5, b: float = 0.75, length_ratio=1.0, scaled: bool = True) -> np.ndarray:
    """BM25's term-frequency part tf·(k1+1) / (tf + k1·(1 − b + b·|D|/avgdl)); Lucene's drops the (k1+1).

    >>> saturated_tf(np.array([0, 1, 2, 10]), k1=1.0, b=0.0).round(3)
    array([0.   , 1.   , 1.333, 1.818])
    >>> saturated_tf(2, k1=1.0, b=1.0, length_ratio=np.array([0.5, 1.0, 2.0]), scaled=False).round(3)
    array([0.8  , 0.667, 0.5  ])
    """
    check_parameters(k1, b)
    tf = np.asarray(tf, dtype=float)
    denominator = tf + k1 * (1 - b + b * np.asarray(length_ratio, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = np.where(denominator > 0, tf / np.where(denominator > 0, denominator, 1), 0.0)
    return weights * (k1 + 1) if scaled else weights


class BM25Index:
    """BM25 over pre-tokenized documents: a term × document matrix of counts, and BM25 weights on top.

    >>> index = BM25Index([["rotate", "keys"], ["keys", "expire", "keys", "daily"], ["rotate", "logs"]])
    >>> index.scores([["keys"], ["expire", "unknown"]]).round(3)
    array([[0.212, 0.231, 0.   ],
           [0.   , 0.32 , 0.   ]])
    """

    def __init__(self, corpus_tokens: list[list[str]], k1: float = 1.5, b: float = 0.75, idf: str = "lucene"):
        if not isinstance(corpus_tokens, Sequence) or not corpus_tokens:
            raise RagkitError("the corpus is empty: BM25 needs at least one tokenized document")
        if any(isinstance(doc, str) or not isinstance(doc, Sequence) for doc in corpus_tokens):
            raise RagkitError("corpus_tokens must be a list of token lists, one per document (tokenize first)")
        check_parameters(k1, b)
        if idf not in IDF_VARIANTS:
            raise RagkitError(f"unknown IDF variant {idf!r}; choose one of {', '.join(IDF_VARIANTS)}")
        self.k1, self.b, self.idf_variant = k1, b, idf
        lengths = np.fromiter(map(len, corpus_tokens), dtype=np.int64, count=len(corpus_tokens))
        if lengths.sum() == 0:
            raise RagkitError("every document is empty after tokenization: there are no words to index")
        # word × document counts, built a block of documents at a time (`bm25_build`): a word's postings are one
        # contiguous row, its documents in increasing order; words numbered in order of appearance
        self.tf, self.vocab = term_counts(corpus_tokens, lengths)
        self.doc_lengths = lengths.astype(float)
        self.avgdl = float(self.doc_lengths.mean())
        self.df = np.diff(self.tf.indptr)  # a term's row holds one value per document that contains it
        self.idf = idf_values(self.df, len(lengths), idf)
        self.weights = self.weight_matrix(k1, b)
        self._recent: tuple[tuple[float, float] | None, np.ndarray] = (None, self.weights.data)
        self._bounds: tuple[np.ndarray | None, np.ndarray] = (None, np.zeros(0))  # (weights, each row's largest)

    @property
    def n_docs(self) -> int:
        return self.tf.shape[1]

    def weight_matrix(self, k1: float, b: float) -> sparse.csr_matrix:
        """Term × document BM25 weights idf(t) · saturated_tf(tf, k1, b, |D|/avgdl), same layout as `tf`."""
        data, indptr, first = np.empty(self.tf.nnz), self.tf.indptr, 0
        while first < self.tf.shape[0]:  # rows holding about WEIGHT_VALUES values at a time: small temporaries
            last = max(first + 1, int(np.searchsorted(indptr, indptr[first] + WEIGHT_VALUES, side="right")) - 1)
            span = slice(indptr[first], indptr[last])
            term_of_value = np.repeat(np.arange(first, last), self.df[first:last])
            length_ratio = self.doc_lengths[self.tf.indices[span]] / self.avgdl
            data[span] = self.idf[term_of_value] * saturated_tf(self.tf.data[span], k1, b, length_ratio,
                                                                scaled=self.idf_variant != "lucene")
            first = last
        return sparse.csr_matrix((data, self.tf.indices, indptr), shape=self.tf.shape)

    def weight_values(self, k1: float, b: float) -> np.ndarray:
        """The weight of every stored (word, document) pair under (k1, b), aligned with `tf.data`.

        The index's own k1, b are computed at build time; the most recent other pair is kept, so a slider
        pays one pass over the postings per move and nothing is re-tokenized or re-counted.
        """
        if (k1, b) == (self.k1, self.b):
            return self.weights.data
        if self._recent[0] != (k1, b):
            self._recent = ((k1, b), self.weight_matrix(k1, b).data)
        return self._recent[1]

    def term_ids(self, tokens: Sequence[str]) -> list[int]:
        """A query's word ids, in its order (a repeated word twice); words outside the vocabulary match nothing.

        >>> BM25Index([["rotate", "keys"]]).term_ids(["keys", "unknown", "keys"])
        [1, 1]
        """
        if isinstance(tokens, str) or not isinstance(tokens, Sequence):
            raise RagkitError("query_tokens must be a list of token lists, one per query (tokenize first)")
        if not tokens:
            raise RagkitError("a query has no word tokens: type some words to search for")
        return [self.vocab[token] for token in tokens if token in self.vocab]

    def query_scores(self, tokens: Sequence[str], k1: float | None = None, b: float | None = None) -> np.ndarray:
        """One query's scores: the rows of W picked by its words, summed (q·W, a repeated word counts twice).

        >>> BM25Index([["a"], ["a", "b"], ["c"]]).query_scores(["b", "b", "zz"]).round(3)
        array([0.   , 0.641, 0.   ])
        """
        ids = self.term_ids(tokens)
        return self._scores(ids, self.weight_values(self.k1 if k1 is None else k1, self.b if b is None else b)
                            if ids else None)

    def _scores(self, ids: list[int], values: np.ndarray | None) -> np.ndarray:
        if not ids:  # unknown words match nothing
            return np.zeros(self.n_docs)
        spans = [slice(self.tf.indptr[i], self.tf.indptr[i + 1]) for i in ids]
        docs = np.concatenate([self.tf.indices[span] for span in spans])
        weights = np.concatenate([values[span] for span in spans])
        return np.bincount(docs, weights, minlength=self.n_docs)

    def scores(self, query_tokens: list[list[str]], k1: float | None = None, b: float | None = None) -> np.ndarray:
        """(n_queries, n_docs) BM25 scores; k1/b override the index's without re-tokenizing."""
        if isinstance(query_tokens, str) or not isinstance(query_tokens, Sequence):
            raise RagkitError("query_tokens must be a list of token lists, one per query (tokenize first)")
        scores = np.zeros((len(query_tokens), self.n_docs))
        for row, tokens in enumerate(query_tokens):
            scores[row] = self.query_scores(tokens, k1, b)
        return scores

    def rankings(self, query_tokens: list[list[str]], k: int, k1: float | None = None,
                 b: float | None = None) -> np.ndarray:
        """(n_queries, k) document indices best first (equal scores: lower index first). With numba installed,
        `ragkit.index.bm25_topk` finds the same rankings without adding up every posting.

        >>> BM25Index([["a"], ["a", "b"], ["b", "b"]]).rankings([["b"], ["a"]], k=2).tolist()
        [[2, 1], [0, 1]]
        """
        check_k(k, at_most=self.n_docs, of="documents")
        k1, b = self.k1 if k1 is None else k1, self.b if b is None else b
        if compiled_kernel() is None:  # numpy, as notebook 05 derives it
            ids = [self.term_ids(tokens) for tokens in query_tokens]
            values = self.weight_values(k1, b) if any(ids) else None
            return self._numpy_rankings(dict(enumerate(ids)), values, k, np.zeros((len(ids), k), dtype=np.int64))
        flat, pointers = flat_term_ids(self.vocab, query_tokens)
        values = self.weight_values(k1, b)
        if self._bounds[0] is not values:
            # a row's weights share the sign of its IDF, so a negative largest weight marks every negative row
            self._bounds = (values, np.maximum.reduceat(values, self.tf.indptr[:-1]))
        ranking, done = compiled_kernel()(self.tf.indptr, self.tf.indices, values, self._bounds[1], flat, pointers, k,
                                          self.n_docs, *default_ways())
        ids = {row: [i for i in flat[pointers[row]:pointers[row + 1]].tolist() if i >= 0]
               for row in np.flatnonzero(~done).tolist()}
        return self._numpy_rankings(ids, values, k, ranking)

    def _numpy_rankings(self, ids: dict[int, list[int]], values: np.ndarray | None, k: int,
                        ranking: np.ndarray) -> np.ndarray:
        for row, row_ids in ids.items():  # numpy: score the documents the words touch, select the best k
            scores = self._scores(row_ids, values)
            matched = np.flatnonzero(scores > 0)
            # with k positive scores the best k are among them; otherwise (few matches, negative IDFs) rank all
            ranking[row] = matched[top_k(scores[matched], k)] if len(matched) >= k else top_k(scores, k)
        return ranking


def bm25_scores(corpus_tokens: list[list[str]], query_tokens: list[list[str]], k1: float = 1.5, b: float = 0.75,
                idf: str = "lucene") -> np.ndarray:
    """(n_queries, n_docs) BM25 scores in one call (build an index once when you score many queries).

    >>> bm25_scores([["ts-203", "quota"], ["quota", "reset"]], [["ts-203"]]).round(3)
    array([[0.277, 0.   ]])
    """
    return BM25Index(corpus_tokens, k1, b, idf).scores(query_tokens)
