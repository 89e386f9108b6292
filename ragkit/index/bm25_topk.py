"""BM25's top k for a batch of queries in one compiled call (numba), each query ranked the cheaper of two exact ways.

`BM25Index.rankings` uses it when numba is installed; numpy (notebook 05: every posting added up, then a
partition) stays the reference, and the rankings are the same, ties included. Per query: with few postings, or
more than `MAXSCORE_WORDS` distinct words, every posting is added up (`exhaustive_top_k`: a repeated word's
row once, times its count; what bm25s does, without reading a row twice or a heap over every document).
Otherwise MaxScore (`bm25_maxscore`): a word adds at most its row's largest weight, its bound; rows are read
highest bound first until the bounds of the rows left add up to less than a lower bound of the k-th best
score, and then only documents that can still reach it get the other rows. Long queries go the first way:
their many words keep the bounds left large, so MaxScore would skip little and pay its bookkeeping. Sums made
in another order than np.bincount's differ in the last bits, so near ties are summed again in the query's
word order (`bm25_candidates.resum_ties`). Left out: k outside 1 to the number of documents and rows whose
document indices do not increase (refused: `RagkitError`), negative weights (a query with one in any row is
left to numpy), threads, and block-max indexes (WAND)."""

from __future__ import annotations

import functools
import hashlib
import sys
import types
from collections.abc import Callable, Sequence
from itertools import chain, repeat
from pathlib import Path

import numpy as np

from ragkit.errors import RagkitError, check_k
from ragkit.index import bm25_candidates, bm25_maxscore, bm25_sums
from ragkit.index.bm25_candidates import resum_ties
from ragkit.index.bm25_maxscore import POOL_FACTOR, maxscore_top_k
from ragkit.index.bm25_sums import SMALLEST, TRACK_SHARE, add_row, best_seen, collect, fill_unmatched

# The two switches below were set by hand from timing runs of benchmarks/bm25.py, not swept.
EXHAUSTIVE_POSTINGS = 10_000  # below this many postings, adding all of them beats MaxScore's bookkeeping
MAXSCORE_WORDS = 12  # with more distinct words the bounds of the rows left stay large and prune little


def _distinct(bounds, terms, order, times):
    """The query's distinct known words whose bound is positive into order[:m], highest bound first, with how
    often each occurs in times[:m]; returns m, or -1 when a word's row holds a negative weight."""
    m = 0
    for t in terms:
        if t < 0:
            continue
        if bounds[t] < 0:
            return -1
        i = 0
        while i < m and order[i] != t:
            i += 1
        if i < m:
            times[i] += 1.0
        elif bounds[t] > 0:
            while i > 0 and bounds[order[i - 1]] < bounds[t]:
                order[i], times[i] = order[i - 1], times[i - 1]
                i -= 1
            order[i], times[i] = t, 1.0
            m += 1
    return m


def exhaustive_top_k(indptr, indices, values, bounds, terms, k, m, order, times, partial, touched, cand, best, top):
    """One query's best k documents into best[:k] from every posting of its m distinct words (order[:m], each
    occurring times[:m] times); partial (one per document) starts and ends as zeros.

    >>> indptr, indices, values = np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([0.5, 1.5, 0.25])
    >>> partial, touched, cand = np.zeros(3), np.zeros(4, dtype=np.int32), np.zeros(3, dtype=np.int32)
    >>> best, top = np.zeros(3, dtype=np.int64), np.zeros(3)
    >>> exhaustive_top_k(indptr, indices, values, np.array([1.5, 0.25]), np.array([1, -1, 0]), 2, 2,
    ...                  np.array([0, 1]), np.array([1.0, 1.0]), partial, touched, cand, best, top); best[:2].tolist()
    [2, 0]
    """
    postings, rest = 0, 0.0
    for j in range(m):
        postings += indptr[order[j] + 1] - indptr[order[j]]
        rest += times[j] * bounds[order[j]]
    track, n = TRACK_SHARE * postings < len(partial), 0
    for j in range(m):
        n = add_row(indptr, indices, values, order[j], times[j], partial, touched, n, track)
    filled = best_seen(partial, touched, n, track, k + 1, best, top)
    tied = False
    for i in range(filled - 1):
        tied = tied or top[i] - top[i + 1] <= 1e-12 * rest
    if tied:  # the candidates for `resum_ties`
        c = collect(partial, touched, n, track, max(top[min(filled, k) - 1] - 1e-12 * rest, SMALLEST), cand)
        filled = resum_ties(indptr, indices, values, bounds, terms, k, partial, cand, c, filled, best, top,
                            1e-12 * rest)
    fill_unmatched(best, min(filled, k), k, partial)  # fewer than k documents match: those scoring 0 follow
    if track:
        partial[touched[:n]] = 0.0
    else:
        partial[:] = 0.0


def workspace(n_docs, k, width):
    """The arrays a query is ranked in, made once a batch: order, times, rest (the query's words), partial, touched,
    cand, flags (one per document), pool, pool_score, kbest, ktop, best, top (a few times k).

    >>> len(workspace(3, k=2, width=4))
    13
    """
    size = POOL_FACTOR * k
    return (np.empty(width, dtype=np.int64), np.empty(width), np.empty(width + 1), np.zeros(n_docs),
            np.empty(n_docs + 1, dtype=np.int32), np.empty(n_docs + size, dtype=np.int32),
            np.zeros(n_docs, dtype=np.uint8), np.empty(size, dtype=np.int64), np.empty(size),
            np.empty(k, dtype=np.int64), np.empty(k), np.empty(k + 1, dtype=np.int64), np.empty(k + 1))


def _rank_all(indptr, indices, values, bounds, flat, pointers, k, n_docs, exhaustive_postings, maxscore_words):
    """Every query's best k (flat term ids, -1 for an unknown word, a query's between two pointers), and whether
    it was ranked (not when a row of its words holds a negative weight). A query adds up all its postings when
    they are at most `exhaustive_postings` or its distinct words more than `maxscore_words`, else MaxScore."""
    width = 1
    for i in range(len(pointers) - 1):
        width = max(width, pointers[i + 1] - pointers[i])
    order, times, rest, partial, touched, cand, flags, pool, pool_score, kbest, ktop, best, top = workspace(
        n_docs, k, width)
    out, done = np.zeros((len(pointers) - 1, k), dtype=np.int64), np.zeros(len(pointers) - 1, dtype=np.bool_)
    for i in range(len(done)):
        terms = flat[pointers[i]:pointers[i + 1]]
        m = _distinct(bounds, terms, order, times)
        if m < 0:
            continue
        postings = 0
        for j in range(m):
            postings += indptr[order[j] + 1] - indptr[order[j]]
        if postings <= exhaustive_postings or m == 1 or m > maxscore_words:
            exhaustive_top_k(indptr, indices, values, bounds, terms, k, m, order, times, partial, touched, cand, best,
                             top)
        else:
            maxscore_top_k(indptr, indices, values, bounds, terms, k, m, order, times, rest, partial, touched, cand,
                           flags, pool, pool_score, kbest, ktop, best, top)
        out[i], done[i] = best[:k], True
    return out, done


@functools.cache
def compiled_kernel() -> Callable | None:
    """The ranking loop compiled by numba (cached on disk), or None without numba.

    >>> compiled_kernel() is None or callable(compiled_kernel())
    True
    """
    try:
        import numba
    except ImportError:
        return None
    modules = (bm25_sums, bm25_candidates, bm25_maxscore, sys.modules[_rank_all.__module__])
    namespace = {name: value for module in modules for name, value in vars(module).items()}
    # numba's disk cache checks only the file a function is in: the digest of all four renames the cache entries
    # whenever one of the files changes, so that no compiled copy outlives the code it calls
    digest = hashlib.sha1(b"".join(Path(module.__file__).read_bytes() for module in modules)).hexdigest()[:12]
    cache = __name__ == "ragkit.index.bm25_topk"  # numba's disk cache is keyed by module: not when run as a script
    functions = [value for module in modules[:3] for value in vars(module).values()
                 if isinstance(value, types.FunctionType) and value.__module__ == module.__name__]
    for function in (*functions, _distinct, exhaustive_top_k, workspace, _rank_all):
        copy = types.FunctionType(function.__code__, namespace, function.__name__, function.__defaults__)
        copy.__qualname__ = f"{function.__name__}_{digest}"
        namespace[function.__name__] = numba.njit(cache=cache)(copy)
    return namespace["_rank_all"]


def flat_term_ids(vocab: dict[str, int], query_tokens: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """(every query's word ids one after another, -1 for a word outside `vocab`; where each query starts and ends).

    >>> [ids.tolist() for ids in flat_term_ids({"rotate": 0, "keys": 1}, [["keys", "x"], ["rotate"]])]
    [[1, -1, 0], [0, 2, 3]]
    """
    if isinstance(query_tokens, str) or not isinstance(query_tokens, Sequence) or not {list, tuple}.issuperset(
            map(type, query_tokens)) and any(isinstance(q, str) or not isinstance(q, Sequence) for q in query_tokens):
        raise RagkitError("query_tokens must be a list of token lists, one per query (tokenize first)")
    lengths = list(map(len, query_tokens))
    if 0 in lengths:
        raise RagkitError("a query has no word tokens: type some words to search for")
    pointers = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=pointers[1:])
    words = chain.from_iterable(query_tokens)  # one pass in C: vocab.get(word, -1) for every word
    return np.fromiter(map(vocab.get, words, repeat(-1)), dtype=np.int64, count=int(pointers[-1])), pointers


def pruned_rankings(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, n_docs: int, term_ids: list[list[int]],
                    k: int, bounds: np.ndarray | None = None, compiled: bool = True, checked: bool = False,
                    ways: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(rankings, done): each query's best k documents (1 ≤ k ≤ n_docs) under a CSR term × document weight matrix
    whose rows are sorted (`checked=True` skips checking), from its term ids (-1: an unknown word; no row may be
    empty); done is False where a row of the query holds a negative weight (rank those another way). `bounds`:
    each row's largest weight, negative where the row holds a negative one. `ways`: (exhaustive_postings,
    maxscore_words), the defaults otherwise (tests force one way with it). `compiled=False` or no numba: plain
    Python (for checks).

    >>> indptr, indices, values = np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([0.5, 1.5, 0.25])
    >>> pruned_rankings(indptr, indices, values, 3, [[0, 1], [1], []], k=2, compiled=False)[0].tolist()
    [[2, 0], [1, 0], [0, 1]]
    """
    check_k(k, at_most=n_docs, of="documents")
    if not checked:  # binary search needs each row's document indices in increasing order
        rising, starts = np.diff(indices) > 0, indptr[1:-1]
        rising[starts[(starts > 0) & (starts < len(indices))] - 1] = True  # a row may start below the last one's end
        if not rising.all() or len(indices) and not 0 <= indices.min() <= indices.max() < n_docs:
            raise RagkitError(f"each row's document indices must increase (sort them) and be below n_docs={n_docs}")
    kernel = (compiled_kernel() if compiled else None) or _rank_all
    pointers = np.cumsum([0, *map(len, term_ids)], dtype=np.int64)
    flat = np.fromiter((i for ids in term_ids for i in ids), dtype=np.int64, count=int(pointers[-1]))
    if bounds is None:  # each row's largest weight, or -1 where the row holds a negative one (its queries: not done)
        bounds = np.where(np.minimum.reduceat(values, indptr[:-1]) < 0, -1.0, np.maximum.reduceat(values, indptr[:-1]))
    return kernel(indptr, indices, values, bounds, flat, pointers, k, n_docs, *(ways or default_ways()))


def default_ways() -> tuple[int, int]:
    """(exhaustive_postings, maxscore_words): when a query adds up all its postings rather than run MaxScore.

    >>> default_ways()
    (10000, 12)
    """
    return EXHAUSTIVE_POSTINGS, MAXSCORE_WORDS
