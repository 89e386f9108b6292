"""Rows added to a few documents of BM25's compiled top k (`ragkit.index.bm25_topk`), and near ties summed again.

MaxScore's candidates and the documents tied near the k-th score are kept sorted by document, so a row reaches
them by galloping (doubling steps, then a binary search) through whichever of the two is longer. Sums made in
another order than np.bincount's differ in the last bits: wherever two of the best k + 1 are within 1e-12 of
the largest possible score, `resum_ties` adds their weights again, one word occurrence after another in the
query's order, as np.bincount does, so that the numpy path's rankings come out, ties included. Plain Python
functions; `compiled_kernel` compiles them with numba. Left out: unsorted candidates, and threads.
"""

from __future__ import annotations

import numpy as np

from ragkit.index.bm25_sums import prune


def gallop(array, start, end, value):
    """The first position p in start..end with array[p] >= value (array rising), or end; steps double from start.

    >>> gallop(np.array([1, 3, 5, 7, 9, 11]), 1, 6, 8)
    4
    """
    if start >= end or array[start] >= value:
        return start
    low, step = start, 1  # array[low] < value
    while low + step < end and array[low + step] < value:
        low, step = low + step, 2 * step
    high = min(low + step, end)  # array[high] >= value, or high == end
    while high - low > 1:
        middle = (low + high) // 2
        if array[middle] < value:
            low = middle
        else:
            high = middle
    return high


def add_to_sorted(indptr, indices, values, t, times, partial, cand, c):
    """partial[d] += times · W[t, d] for each of the c candidates d (sorted), walking the shorter of the row and
    the candidates and galloping through the other.

    >>> partial = np.zeros(4)
    >>> add_to_sorted(np.array([0, 3]), np.array([0, 2, 3]), np.array([1.0, 2.0, 4.0]), 0, 2.0, partial,
    ...               np.array([2, 3], dtype=np.int32), 2); partial.tolist()
    [0.0, 0.0, 4.0, 8.0]
    """
    p, end = indptr[t], indptr[t + 1]
    if c <= end - p:
        for i in range(c):
            p = gallop(indices, p, end, cand[i])
            if p == end:
                return
            if indices[p] == cand[i]:
                partial[cand[i]] += times * values[p]
    else:
        i = 0
        for q in range(p, end):
            i = gallop(cand, i, c, indices[q])
            if i == c:
                return
            if cand[i] == indices[q]:
                partial[cand[i]] += times * values[q]


def resum_ties(indptr, indices, values, bounds, terms, k, partial, cand, c, filled, best, top, tie):
    """When two of the best k + 1 (best/top[:filled]) are within `tie`, the candidates down to the k-th score less
    `tie` are summed again in the query's word order and ranked again; returns how many of best are filled.

    >>> partial, cand = np.array([0.3, 0.1 + 0.2]), np.array([0, 1], dtype=np.int32)  # sums in another order
    >>> best, top = np.array([1, 0, 0]), np.array([0.1 + 0.2, 0.3, 0.0])
    >>> resum_ties(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.array([0.1, 0.2, 0.2, 0.1]), np.ones(2),
    ...            np.array([0, 1]), 2, partial, cand, 2, 2, best, top, 1e-12), best[:2]
    (2, array([0, 1]))
    """
    tied = False
    for i in range(filled - 1):
        tied = tied or top[i] - top[i + 1] <= tie
    if not tied:
        return filled
    c = prune(partial, cand, c, top[min(filled, k) - 1] - tie, k, best, top)[0]
    cand[:c].sort()
    partial[cand[:c]] = 0.0
    for t in terms:
        if t >= 0 and bounds[t] > 0:
            add_to_sorted(indptr, indices, values, t, 1.0, partial, cand, c)
    return prune(partial, cand, c, -np.inf, k, best, top)[1]
