"""Significance for many paired comparisons at once: a randomisation (sign-flip) test of a mean paired
difference, and the corrections of Holm and of Benjamini and Hochberg for a family of p-values.

The course states a difference between two configurations with the paired bootstrap's interval
(`ragkit.evaluate.metrics.paired_bootstrap`). When one question is answered by many intervals at once, some of
them exclude 0 by chance; the corrections below need a p-value per comparison, which the sign-flip test gives:
if a configuration made no difference, each query's difference would be as likely to come out positive as
negative, so flipping the signs at random shows how large a mean difference chance alone produces. Every column
of a table of differences gets the same sign flips, as `bootstrap_means` gives every column the same resamples.
Left out: the exact test over all 2ⁿ sign patterns (feasible only for a handful of queries), one-sided tests,
other corrections (Bonferroni alone, Hochberg, Benjamini–Yekutieli) and intervals adjusted for multiplicity.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError

BATCH = 10_000  # sign flips drawn at a time: keeps memory small, and the draws equal one big draw


def sign_flip_test(differences, n_resamples: int = 10_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Mean of each column of `differences` (one row per query: b − a) and its two-sided randomisation p-value.

    Each resample flips the sign of every query's difference with probability 1/2 (a uniform draw below 0.5
    flips it); the p-value is (1 + resamples whose |mean| reaches the observed |mean|) / (1 + n_resamples), so it
    is never 0. A column of zeros, where no query differs, gets 1.

    >>> means, p = sign_flip_test([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 1.0], [1.0, -1.0]], seed=0)
    >>> means.tolist(), bool(p[0] < 0.1), float(p[1])
    ([1.0, 0.0], True, 1.0)
    """
    values = np.asarray(differences, dtype=float)
    values = values[:, None] if values.ndim == 1 else values
    if values.ndim != 2 or len(values) == 0 or not np.isfinite(values).all():
        raise RagkitError(f"the sign-flip test needs a non-empty table of finite differences (queries × comparisons),"
                          f" got shape {values.shape}{'' if np.isfinite(values).all() else ' with NaN or inf'}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise RagkitError(f"need a positive number of resamples, got {n_resamples!r}")
    observed = np.abs(values.mean(axis=0))
    reach = np.zeros(values.shape[1], dtype=int)
    rng = np.random.default_rng(seed)
    for start in range(0, n_resamples, BATCH):
        signs = np.where(rng.random((min(BATCH, n_resamples - start), len(values))) < 0.5, -1.0, 1.0)
        flipped = np.abs(signs @ values / len(values))
        reach += (flipped >= observed - 1e-12).sum(axis=0)  # 1e-12: the same mean summed in another order
    return values.mean(axis=0), (1 + reach) / (1 + n_resamples)


def _checked(p_values: Sequence[float]) -> np.ndarray:
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1 or len(p) == 0 or not ((p >= 0) & (p <= 1)).all():
        raise RagkitError(f"need a non-empty list of p-values between 0 and 1, got {p_values!r}")
    return p


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's adjusted p-values: a comparison is clear at family-wise error α when its adjusted p is below α.

    Sorted from the smallest, the i-th of m p-values is multiplied by m − i + 1; each adjusted value is the
    largest such product up to its place (capped at 1), so the order of the p-values is kept.

    >>> holm([0.01, 0.04, 0.03, 0.5]).round(3).tolist()
    [0.04, 0.09, 0.09, 0.5]
    """
    p = _checked(p_values)
    order = np.argsort(p, kind="stable")
    steps = (len(p) - np.arange(len(p))) * p[order]
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(steps))
    return adjusted


def benjamini_hochberg(p_values: Sequence[float]) -> np.ndarray:
    """Benjamini and Hochberg's adjusted p-values: the comparisons whose adjusted p is below q are clear at a
    false discovery rate q (the expected share of false ones among those called clear).

    Sorted from the smallest, the i-th of m p-values is multiplied by m / i; each adjusted value is the smallest
    such product from its place to the largest (capped at 1).

    >>> benjamini_hochberg([0.01, 0.04, 0.03, 0.5]).round(3).tolist()
    [0.04, 0.053, 0.053, 0.5]
    """
    p = _checked(p_values)
    order = np.argsort(p, kind="stable")
    steps = len(p) / np.arange(1, len(p) + 1) * p[order]
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(steps[::-1])[::-1])
    return adjusted
