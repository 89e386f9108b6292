"""The building blocks of BM25's compiled top k (`ragkit.index.bm25_topk`): a row added to every document it
holds, the documents seen listed or scanned, and the best k kept.

The scores of a query live in one float64 array with a slot per document, reused query after query and left
as zeros. While the documents a query touches are few (under a quarter of all), they are listed as they are
first touched, and only they are read and reset; past that every document is scanned, 64 at a time: a block
is counted first (a loop of fixed length, without branches, that the compiler vectorizes) and read one by one
only when one of its scores can enter the best k. Document indices are read as unsigned in the loops (numba
then skips its check for negative indices). Plain Python functions; `compiled_kernel` compiles them with numba.
Left out: negative weights (such queries are left to numpy), float32 scores, and threads.
"""

from __future__ import annotations

import numpy as np

SMALLEST = 5e-324  # the smallest positive float: `score >= SMALLEST` is `score > 0`
TRACK_SHARE = 4  # list the documents touched while that list stays under a quarter of all documents
BLOCK = 64  # documents compared at a time when looking for the best k among all


def insert_best(best, top, filled, k, d, s):
    """Puts document d, score s, into best[:k]/top[:k], kept sorted (score descending, equal scores lower
    index first) when it belongs there; returns how many places are filled.

    >>> best, top = np.zeros(2, dtype=np.int64), np.zeros(2)
    >>> [insert_best(best, top, n, 2, d, s) for n, (d, s) in enumerate([(4, 1.0), (2, 3.0)])], best.tolist()
    ([1, 2], [2, 4])
    """
    if filled == k and (s < top[k - 1] or (s == top[k - 1] and d > best[k - 1])):
        return filled
    j = min(filled, k - 1)
    while j > 0 and (top[j - 1] < s or (top[j - 1] == s and best[j - 1] > d)):
        top[j], best[j] = top[j - 1], best[j - 1]
        j -= 1
    top[j], best[j] = s, d
    return min(filled + 1, k)


def add_row(indptr, indices, values, t, times, partial, touched, n, track):
    """partial += times · row t; while `track`, lists the documents seen for the first time after touched[:n].
    Returns the new n.

    >>> partial, touched = np.zeros(3), np.zeros(4, dtype=np.int32)
    >>> int(add_row(np.array([0, 2]), np.array([0, 2]), np.array([0.5, 1.5]), 0, 2.0, partial, touched, 0, True)), partial
    (2, array([1., 0., 3.]))
    """
    if not track:
        for p in range(indptr[t], indptr[t + 1]):
            partial[np.uint32(indices[p])] += times * values[p]
        return n
    for p in range(indptr[t], indptr[t + 1]):
        d = np.uint32(indices[p])
        touched[n] = d  # kept (n moves on) only when d is new: weights are > 0, so 0 means unseen
        n += partial[d] == 0.0
        partial[d] += times * values[p]
    return n


def _entering(block, bar):
    """How many of a block of BLOCK scores reach `bar` (a loop of fixed length, which the compiler vectorizes)."""
    count = 0
    for i in range(BLOCK):
        count += block[i] >= bar
    return count


def collect(partial, touched, n, track, bar, cand):
    """Lists in cand the documents seen (touched[:n], or every document when not `track`) whose partial score
    reaches `bar` > 0; returns how many.

    >>> cand = np.zeros(3, dtype=np.int32)
    >>> int(collect(np.array([1.0, 0.0, 3.0]), None, 0, False, 0.5, cand)), cand[:2]
    (2, array([0, 2], dtype=int32))
    """
    c = 0
    if track:
        for i in range(n):
            cand[c] = touched[i]
            c += partial[np.uint32(touched[i])] >= bar
        return c
    for start in range(0, len(partial), BLOCK):  # blocks with none to list are only counted (vectorized)
        if start + BLOCK <= len(partial) and not _entering(partial[start:start + BLOCK], bar):
            continue
        for d in range(start, min(start + BLOCK, len(partial))):
            cand[c] = d
            c += partial[d] >= bar
    return c


def prune(partial, cand, c, bar, k, best, top):
    """Keeps the candidates whose partial score reaches `bar` (in order) and puts the best k + 1 of them into
    best/top; returns (kept, how many of best are filled).

    >>> cand, best, top = np.array([0, 1, 2], dtype=np.int32), np.zeros(2, dtype=np.int64), np.zeros(2)
    >>> [int(n) for n in prune(np.array([1.0, 0.2, 3.0]), cand, 3, 0.5, 1, best, top)], cand[:2], best
    ([2, 2], array([0, 2], dtype=int32), array([2, 0]))
    """
    kept, filled, gate = 0, 0, bar
    for i in range(c):
        d = cand[i]
        s = partial[np.uint32(d)]
        cand[kept] = d
        kept += s >= bar
        if s >= gate:  # rarely true once k + 1 are in: a branch the processor predicts
            filled = insert_best(best, top, filled, k + 1, d, s)
            gate = top[k] if filled == k + 1 else bar
    return kept, filled


def best_seen(partial, touched, n, track, k, best, top):
    """The best k of the documents seen (touched[:n], or every document when not `track`) into best/top; returns
    how many are filled. Blocks of BLOCK documents are counted first (no branch; vectorized) and read one by
    one only when one of them can enter.

    >>> best, top = np.zeros(2, dtype=np.int64), np.zeros(2)
    >>> best_seen(np.array([1.0, 0.0, 3.0, 1.0]), None, 0, False, 2, best, top), best
    (2, array([2, 0]))
    """
    filled, gate = 0, SMALLEST
    if track:
        for i in range(n):
            if partial[np.uint32(touched[i])] >= gate:  # rarely true once k are in: a branch predicted right
                filled = insert_best(best, top, filled, k, touched[i], partial[touched[i]])
                gate = top[k - 1] if filled == k else SMALLEST
        return filled
    for start in range(0, len(partial), BLOCK):
        if start + BLOCK <= len(partial) and not _entering(partial[start:start + BLOCK], gate):
            continue
        for d in range(start, min(start + BLOCK, len(partial))):
            if partial[d] >= gate:
                filled = insert_best(best, top, filled, k, d, partial[d])
                gate = top[k - 1] if filled == k else SMALLEST
    return filled


def fill_unmatched(best, filled, k, scores):
    """best[filled:k] = the lowest-index documents whose score is 0 (when fewer than k documents match, the
    numpy path ranks the rest by index).

    >>> best = np.array([1, 0, 0])
    >>> fill_unmatched(best, 1, 3, np.array([0.0, 2.0, 0.0, 0.0])); best
    array([1, 0, 2])
    """
    d = 0
    for i in range(filled, k):
        while scores[d] != 0.0:
            d += 1
        best[i], d = d, d + 1
