"""MaxScore for one query, the pruned way of BM25's compiled top k (`ragkit.index.bm25_topk` says when it runs).

Phase 1 reads whole rows, highest bound first, and keeps a pool of the 2k documents with the best partial
scores (a document can enter it only from the row just read). When the rows left are long enough to repay
it, the pooled documents get their other rows looked up (binary search): the k-th best of these full scores, θ,
bounds the k-th best score from below, and once the bounds of the rows left add up to less than θ, no unseen
document can reach the top k. Phase 2 gives the candidates (documents seen that can still reach θ) the other
rows, by galloping while they are few against the row and by adding the whole row while they are many, drops
them as the bounds left shrink, and stops once no bound left can reorder the best k; near ties are then summed
again in the query's word order (`bm25_candidates.resum_ties`). Plain Python functions,
compiled together by `compiled_kernel`. Left out: negative weights (`bm25_topk` leaves those queries to numpy),
block-max bounds, and threads.
"""

from __future__ import annotations

import numpy as np

from ragkit.index.bm25_candidates import add_to_sorted, resum_ties
from ragkit.index.bm25_sums import SMALLEST, TRACK_SHARE, add_row, collect, fill_unmatched, insert_best, prune

# The constants below were set by hand from timing runs of benchmarks/bm25.py, not swept.
LOOKUP_COST, CHECK_SHARE, SINCE_SHARE = 20, 4, 2  # a looked-up posting costs ~20 added; when a θ check pays
GALLOP_SHARE, POOL_FACTOR = 16, 2  # gallop while candidates are under 1/16 of the row; the pool holds 2k
MERGING, COMPLETE = 1, 2  # flags of a document: being merged into the pool; its full score known


def _add_row_pooled(indptr, indices, values, t, times, partial, touched, n, track, fresh, bar):
    """`add_row`, listing also in fresh the documents whose partial score reaches `bar`; returns (n, how many)."""
    f = 0
    for p in range(indptr[t], indptr[t + 1]):
        d = np.uint32(indices[p])
        if track:
            touched[n] = d  # kept (n moves on) only when d is new: weights are > 0, so 0 means unseen
            n += partial[d] == 0.0
        partial[d] += times * values[p]
        fresh[f] = d
        f += partial[d] >= bar
    return n, f


def _merge_pool(partial, pool, pool_score, pooled, fresh, f, flags):
    """The pool becomes the best of itself and fresh[:f] by partial score; returns (pooled, the bar to enter)."""
    for i in range(pooled):
        fresh[f + i] = pool[i]
    total, pooled = f + pooled, 0
    for i in range(total):
        d = fresh[i]
        if flags[d] & MERGING == 0:  # a pooled document may also be fresh
            flags[d] |= MERGING
            pooled = insert_best(pool, pool_score, pooled, len(pool), d, partial[d])
    for i in range(total):
        flags[fresh[i]] &= 255 - MERGING
    return pooled, pool_score[len(pool) - 1] if pooled == len(pool) else SMALLEST


def _lookup(indptr, indices, values, order, times, j, m, d):
    """What rows j.. add to document d's score (each found by binary search)."""
    score = 0.0
    for r in range(j, m):
        start, end = indptr[order[r]], indptr[order[r] + 1]
        p = start + np.searchsorted(indices[start:end], d)
        if p < end and indices[p] == d:
            score += times[r] * values[p]
    return score


def _whole_rows(indptr, indices, values, k, m, order, times, rest, partial, touched, fresh, flags, pool, pool_score,
                kbest, ktop, margin):
    """Phase 1; returns (the first row not read, documents listed in touched, whether listed, θ)."""
    n_docs, left = len(partial), 0
    for j in range(m):
        left += indptr[order[j] + 1] - indptr[order[j]]
    theta, n, since, track, pooled, bar, known = -np.inf, 0, 0, True, 0, SMALLEST, 0
    for j in range(m):
        if pooled >= k:
            theta = max(theta, pool_score[k - 1] - margin)  # partial scores are lower bounds too
            new = 0
            for i in range(pooled):
                new += flags[pool[i]] & COMPLETE == 0
            cost = LOOKUP_COST * new * (m - j)
            if theta <= rest[j] + margin and left >= CHECK_SHARE * cost and SINCE_SHARE * since >= cost:
                for i in range(pooled):  # the pooled documents' full scores
                    d = pool[i]
                    if flags[d] & COMPLETE == 0:
                        flags[d] |= COMPLETE
                        full = partial[d] + _lookup(indptr, indices, values, order, times, j, m, d)
                        known = insert_best(kbest, ktop, known, k, d, full)
                if known == k:
                    theta = max(theta, ktop[k - 1] - margin)
                since = 0
            if theta > rest[j] + margin:
                return j, n, track, theta
        row = indptr[order[j] + 1] - indptr[order[j]]
        track = track and TRACK_SHARE * (n + row) < n_docs  # too many to list: scan every document instead
        n, f = _add_row_pooled(indptr, indices, values, order[j], times[j], partial, touched, n, track, fresh, bar)
        pooled, bar = _merge_pool(partial, pool, pool_score, pooled, fresh, f, flags)
        left, since = left - row, since + row
    return m, n, track, theta


def maxscore_top_k(indptr, indices, values, bounds, terms, k, m, order, times, rest, partial, touched, cand, flags,
                   pool, pool_score, kbest, ktop, best, top):
    """One query's best k documents into best[:k]: its m distinct words in order[:m], highest bound first, each
    occurring times[:m] times; the arrays after times are `bm25_topk.workspace`'s.

    >>> from ragkit.index.bm25_topk import workspace
    >>> order, times, *work = workspace(3, k=2, width=2)
    >>> order[:2], times[:2] = [0, 1], 1.0  # the rows by bound, largest first
    >>> maxscore_top_k(np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([0.5, 1.5, 0.25]), np.array([1.5, 0.25]),
    ...                np.array([1, 0]), 2, 2, order, times, *work); work[-2][:2].tolist()
    [2, 0]
    """
    rest[m] = 0.0
    for j in range(m - 1, -1, -1):  # rest[j]: the most that rows j.. can still add to a score
        rest[j] = rest[j + 1] + times[j] * bounds[order[j]]
    margin, tie = 1e-9 * rest[0], 1e-12 * rest[0]  # rounding room: sums in another order differ in the last bits
    stop, n, track, theta = _whole_rows(indptr, indices, values, k, m, order, times, rest, partial, touched, cand,
                                        flags, pool, pool_score, kbest, ktop, margin)
    if track:
        flags[touched[:n]] = 0
    else:
        flags[:] = 0
    c = collect(partial, touched, n, track, max(theta - rest[stop] - margin, SMALLEST), cand)
    fixed, ordered = False, not track  # galloping needs the candidates in document order: sort them once
    for j in range(stop, m + 1):  # 2. the candidates' other rows, until none can change the order of the best k
        c, filled = prune(partial, cand, c, max(theta - rest[j] - margin, SMALLEST), k, best, top)
        if filled >= k:
            theta = max(theta, top[k - 1])
        fixed = filled >= k and j < m
        for i in range(filled - 1):
            fixed = fixed and top[i] - top[i + 1] > rest[j] + tie
        if fixed or j == m:
            break
        if GALLOP_SHARE * c >= indptr[order[j] + 1] - indptr[order[j]]:  # many candidates: the whole row is cheaper
            track = track and TRACK_SHARE * (n + indptr[order[j] + 1] - indptr[order[j]]) < len(partial)
            n = add_row(indptr, indices, values, order[j], times[j], partial, touched, n, track)
            continue
        if not ordered:
            cand[:c].sort()
            ordered = True
        add_to_sorted(indptr, indices, values, order[j], times[j], partial, cand, c)
    if not fixed:
        filled = resum_ties(indptr, indices, values, bounds, terms, k, partial, cand, c, filled, best, top, tie)
    fill_unmatched(best, min(filled, k), k, partial)  # fewer than k documents match: those scoring 0 follow
    if track:
        partial[touched[:n]] = 0.0
    else:
        partial[:] = 0.0
