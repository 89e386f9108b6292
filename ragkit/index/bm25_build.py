"""BM25's term × document counts from token lists, built a block of documents at a time so that memory stays near
the size of the result.

The words are numbered in order of first appearance, as one pass of a hash table over all tokens would number
them, but the tokens are read in blocks of about `BLOCK_TOKENS`: pandas' hash table numbers a block's words
(`pd.factorize`, in C), only the block's distinct words go through the vocabulary dict, and the block's
(document, word) pairs are counted by sorting their codes. What is kept between blocks is one entry per
distinct (word, document) pair: the word id and the count as int32, and the pairs per document. At the end
these are a document × word matrix, and one counting sort (scipy's transpose to CSR) lays the pairs out word
by word, each word's documents in increasing order: 16 bytes a pair at the peak (the object array of all
tokens, pandas' int64 codes of it and a float64 matrix and its transpose took about 80). Left out: documents
added to an existing matrix, and counts beyond 2³¹ − 1 in one document.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from itertools import chain

import numpy as np
import pandas as pd
from scipy import sparse

BLOCK_TOKENS = 1 << 20  # ~1 million tokens a block: 8 MB of object pointers, and a few int64 arrays of that size


def _blocks(lengths: np.ndarray, size: int) -> list[tuple[int, int]]:
    """(first, end) document ranges holding about `size` tokens each (a longer document alone in its range)."""
    ends = np.searchsorted(np.cumsum(lengths), np.arange(size, int(lengths.sum()) + size, size), side="right")
    bounds = [0, *sorted(set(np.clip(ends, 1, len(lengths)).tolist()) - {0}), len(lengths)]
    return [(start, end) for start, end in zip(bounds, bounds[1:], strict=False) if end > start]


def _pairs(tokens: Sequence[Sequence[str]], lengths: np.ndarray, vocab: dict[str, int]) -> tuple[np.ndarray, ...]:
    """One block's distinct (document, word) pairs: pairs per document, word ids (int32), counts (int32)."""
    words = np.fromiter(chain.from_iterable(tokens), dtype=object, count=int(lengths.sum()))
    codes, distinct = pd.factorize(words)
    del words
    ids = np.fromiter((vocab.setdefault(word, len(vocab)) for word in distinct), dtype=np.int32, count=len(distinct))
    # a pair's key: its document in the block, then the word's code; sorted, equal keys are one word's occurrences
    keys = np.repeat(np.arange(len(lengths), dtype=np.int64) * len(distinct), lengths) + codes
    del codes
    keys.sort()
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    counts = np.diff(starts, append=len(keys)).astype(np.int32)
    keys = keys[starts]
    per_doc = np.bincount(keys // len(distinct), minlength=len(lengths)).astype(np.int32)
    return per_doc, ids[keys % len(distinct)], counts


def term_counts(corpus_tokens: Sequence[Sequence[str]], lengths: np.ndarray) -> tuple[sparse.csr_matrix, dict]:
    """(word × document counts as int32 CSR, each row's documents in increasing order; word -> id, in order of
    first appearance), from the documents' tokens and their numbers of tokens (`lengths`, not all 0).

    >>> counts, vocab = term_counts([["keys", "rotate", "keys"], ["rotate"]], np.array([3, 1]))
    >>> counts.toarray().tolist(), vocab
    ([[2, 0], [1, 1]], {'keys': 0, 'rotate': 1})
    """
    vocab: dict[str, int] = {}
    per_doc, word_ids, counts = [], [], []
    enabled = gc.isenabled()
    gc.disable()  # millions of new objects, no cycles: collections would only walk them again
    try:
        for start, end in _blocks(lengths, BLOCK_TOKENS):
            pairs = _pairs(corpus_tokens[start:end], lengths[start:end], vocab)
            for kept, part in zip((per_doc, word_ids, counts), pairs, strict=True):
                kept.append(part)
    finally:
        if enabled:
            gc.enable()
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64 if sum(map(len, word_ids)) >= 2**31 else np.int32)
    np.cumsum(np.concatenate(per_doc), out=indptr[1:])
    word_ids, counts = np.concatenate(word_ids), np.concatenate(counts)
    by_document = sparse.csr_matrix((counts, word_ids, indptr), shape=(len(lengths), len(vocab)))
    del word_ids, counts, indptr
    matrix = by_document.T.tocsr()  # a counting sort: each word's documents come out in increasing order
    del by_document
    matrix.has_sorted_indices = True
    return matrix, vocab
