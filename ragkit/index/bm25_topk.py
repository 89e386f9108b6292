"""BM25's top k without adding up every posting: exact rankings by upper bounds (MaxScore), compiled by numba.

`BM25Index.rankings` uses it when numba is installed; numpy (notebook 05: every posting added up, then a
partition) stays the reference, and the rankings are the same, ties included. A word adds at most its row's
largest weight, its bound. Rows are read highest bound first; once the k-th best partial score beats the bounds
left, no unseen document can enter the top k, and only documents near it (candidates) get the other rows: by
binary search when few, by one pass when many, not at all once no bound left can reorder the best k. Near ties
are summed again in the query's word order, as np.bincount adds. Left out: k outside 1 to the number of documents
and rows whose document indices do not increase (refused: `RagkitError`), negative weights (a query with one in
any row is left to numpy), threads, and block-max indexes (WAND)."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable

import numpy as np

from ragkit.errors import RagkitError, check_k

LOOKUP_COST, SCAN_SHARE = 100, 8  # a binary search costs ~100 postings read; passes pay while < 1/8 are candidates


def _keep(partial, cand, c, bar, mark):
    """Keeps the candidates whose partial score reaches `bar` (unmarking the others); returns how many."""
    kept = 0
    for i in range(c):
        if partial[cand[i]] >= bar:
            cand[kept], kept = cand[i], kept + 1
        else:
            mark[cand[i]] = 0
    return kept


def _best_of(partial, docs, n, k, top, slack, cand, mark):
    """k-th highest partial score among docs[:n]; cand gets every doc within `slack` of it. Returns (kth, count)."""
    top[:k] = -np.inf
    c = 0
    for i in range(n):
        d, v = docs[i], partial[docs[i]]
        if v >= top[0] - slack:
            cand[c], c = d, c + 1
            if v > top[0]:
                j = 1
                while j < k and top[j] < v:
                    top[j - 1] = top[j]
                    j += 1
                top[j - 1] = v
    return top[0], _keep(partial, cand, c, top[0] - slack, mark)


def _ranked(partial, cand, c, k, out, scores):
    """The best min(k, c) of cand[:c] into out, scores descending, equal scores lower index first."""
    filled = 0
    for i in range(c):
        d, s = cand[i], partial[cand[i]]
        if filled == k and (s < scores[k - 1] or (s == scores[k - 1] and d > out[k - 1])):
            continue
        j = min(filled, k - 1)
        while j > 0 and (scores[j - 1] < s or (scores[j - 1] == s and out[j - 1] > d)):
            scores[j], out[j] = scores[j - 1], out[j - 1]
            j -= 1
        scores[j], out[j] = s, d
        filled = min(filled + 1, k)
    return filled


def _add_row(indptr, indices, values, t, times, partial, touched, n):
    """partial += times · row t, listing the documents seen for the first time; returns how many are listed."""
    for p in range(indptr[t], indptr[t + 1]):
        d = indices[p]
        touched[n] = d  # kept (n moves on) only when d is new: weights are > 0, so 0 means unseen
        n += partial[d] == 0.0
        partial[d] += times * values[p]
    return n


def _add_to_candidates(indptr, indices, values, t, times, partial, cand, c, mark):
    """partial[d] += times · W[t, d] for the candidates: by binary search when few, else one pass over the row."""
    if LOOKUP_COST * c < indptr[t + 1] - indptr[t]:
        for i in range(c):
            p = indptr[t] + np.searchsorted(indices[indptr[t]:indptr[t + 1]], cand[i])
            if p < indptr[t + 1] and indices[p] == cand[i]:
                partial[cand[i]] += times * values[p]
    else:
        for p in range(indptr[t], indptr[t + 1]):
            if mark[indices[p]]:
                partial[indices[p]] += times * values[p]


def _rank_one(indptr, indices, values, bounds, terms, k, partial, mark, touched, cand, best, scores, order, times,
              rest):
    """One query's best k documents into best[:k] (False: a negative weight); the arrays after k are work space."""
    m = 0
    for t in terms:  # the distinct words and how often each occurs; a word whose weights are all 0 adds nothing
        if bounds[t] < 0:
            return False
        i = 0
        while i < m and order[i] != t:
            i += 1
        if i < m:
            times[i] += 1.0
        elif bounds[t] > 0:
            while i > 0 and bounds[order[i - 1]] < bounds[t]:  # highest bound first
                order[i], times[i] = order[i - 1], times[i - 1]
                i -= 1
            order[i], times[i] = t, 1.0
            m += 1
    rest[m] = 0.0
    for j in range(m - 1, -1, -1):  # rest[j]: the most that rows j.. can still add to a score
        rest[j] = rest[j + 1] + times[j] * bounds[order[j]]
    margin, tie = 1e-9 * rest[0], 1e-12 * rest[0]  # rounding room: sums in another order differ in the last bits
    n, stop, c = 0, m, 0
    for j in range(m):  # 1. whole rows until no unseen document can reach the top k
        n = _add_row(indptr, indices, values, order[j], times[j], partial, touched, n)
        if j + 1 < m and n >= k and rest[j + 1] < rest[0] - rest[j + 1]:
            theta, c = _best_of(partial, touched, n, k, scores, rest[j + 1] + margin, cand, mark)
            if theta > rest[j + 1] + margin:
                stop = j + 1
                break
    if stop == m:
        c = _best_of(partial, touched, n, min(k, n), scores, margin, cand, mark)[1]
    mark[cand[:c]] = 1
    left, theta = 0.0, scores[0]  # theta: k-th best partial score, a lower bound of the k-th best score
    spread = scores[min(k, n) - 1] - theta if n else 0.0  # best partial score - theta
    for j in range(stop, m):  # 2. the candidates' other rows, until none can change the order of the best k
        if (k - 1) * (rest[j] + tie) < spread + rest[stop] - rest[j]:  # else k - 1 gaps cannot all exceed rest[j]
            f = _ranked(partial, cand, c, k + 1, best, scores)
            theta, fixed = scores[k - 1], True
            for i in range(f - 1):
                fixed = fixed and scores[i] - scores[i + 1] > rest[j] + tie
            if fixed:
                left = rest[j]
                break
        if j > stop:
            c = _keep(partial, cand, c, theta - rest[j] - margin, mark)
        if SCAN_SHARE * c < indptr[order[j] + 1] - indptr[order[j]]:
            _add_to_candidates(indptr, indices, values, order[j], times[j], partial, cand, c, mark)
        else:  # too many candidates to pick out: add the whole row
            n = _add_row(indptr, indices, values, order[j], times[j], partial, touched, n)
    f = _ranked(partial, cand, c, k + 1, best, scores)
    tied = False
    for i in range(f - 1):
        tied = tied or (left == 0.0 and scores[i] - scores[i + 1] <= tie)
    if tied:  # 3. near ties: the sums again, in the query's word order, as np.bincount adds them up
        c = _keep(partial, cand, c, scores[min(f, k) - 1] - tie, mark)
        partial[cand[:c]] = 0.0
        for t in terms:
            if bounds[t] > 0:
                _add_to_candidates(indptr, indices, values, t, 1.0, partial, cand, c, mark)
        f = _ranked(partial, cand, c, k, best, scores)
    d = 0
    for i in range(min(f, k), k):  # fewer than k documents match: then those scoring 0, lowest index first
        while partial[d] != 0.0:
            d += 1
        best[i], d = d, d + 1
    mark[cand[:c]], partial[touched[:n]] = 0, 0.0
    return True


def _rank_all(indptr, indices, values, bounds, flat, pointers, k, n_docs):
    """Every query's best k (flat term ids, a query's between two pointers), and whether it was ranked."""
    partial, mark = np.zeros(n_docs), np.zeros(n_docs, dtype=np.uint8)
    touched, cand = np.empty(n_docs + 1, dtype=np.int32), np.empty(n_docs, dtype=np.int32)  # +1: `_add_row`
    order, times, rest = np.empty(len(flat), dtype=np.int64), np.empty(len(flat)), np.empty(len(flat) + 1)
    out, done = np.zeros((len(pointers) - 1, k), dtype=np.int64), np.zeros(len(pointers) - 1, dtype=np.bool_)
    best, scores = np.empty(k + 1, dtype=np.int64), np.empty(k + 1)
    for i in range(len(done)):
        done[i] = _rank_one(indptr, indices, values, bounds, flat[pointers[i]:pointers[i + 1]], k, partial, mark,
                            touched, cand, best, scores, order, times, rest)
        out[i] = best[:k]
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
    namespace = dict(globals())  # compiled copies that call each other
    cache = __name__ == "ragkit.index.bm25_topk"  # numba's disk cache is keyed by module: not when run as a script
    for function in (_keep, _best_of, _ranked, _add_row, _add_to_candidates, _rank_one, _rank_all):
        copy = types.FunctionType(function.__code__, namespace, function.__name__, function.__defaults__)
        namespace[function.__name__] = numba.njit(cache=cache)(copy)
    return namespace["_rank_all"]


def pruned_rankings(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, n_docs: int, term_ids: list[list[int]],
                    k: int, bounds: np.ndarray | None = None, compiled: bool = True,
                    checked: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(rankings, done): each query's best k documents (1 ≤ k ≤ n_docs) under a CSR term × document weight matrix
    whose rows are sorted (`checked=True` skips checking), from its known term ids (no row may be empty); done is
    False where a row of the query holds a negative weight (rank those another way). `bounds`: each row's largest
    weight, negative where the row holds a negative one. `compiled=False` or no numba: plain Python (for checks).

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
    return kernel(indptr, indices, values, bounds, flat, pointers, k, n_docs)
