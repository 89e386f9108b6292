"""Semantic chunking's threshold rules: where adjacent-sentence similarity is low enough to cut.

Notebook 04 derives them. Rules: the largest-gap estimator with a confidence (seed 004), percentile,
standard deviation, interquartile range (Tukey's low fence) and gradient (the fall from the previous gap).
A cut is made where the rule's signal is BELOW its threshold. Left out: thresholds learnt across documents.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragkit.errors import RagkitError

RULES = ("gap", "percentile", "std", "iqr", "gradient")


DEFAULT_AMOUNTS = {"gap": 0.1, "percentile": 10.0, "std": 1.0, "iqr": 0.5, "gradient": 10.0}


@dataclass(frozen=True)
class GapEstimate:
    """The largest-gap estimator: two clusters of similarities split at their largest gap."""

    threshold: float
    boundary_scores: np.ndarray  # the low cluster: gaps that look like topic changes
    within_topic_scores: np.ndarray
    boundary_mean: float
    within_topic_mean: float
    gap: float
    midpoint: float
    confidence: str  # "high" (gap ≥ 0.25), "medium" (≥ 0.1) or "low"


def largest_gap_threshold(similarities: np.ndarray, bias: float = 0.1,
                          max_boundary_share: float = 0.5) -> GapEstimate:
    """Sort the similarities, split them at their largest gap, and put the threshold inside that gap.

    The threshold is the gap's midpoint moved `bias` × gap towards the boundary cluster (fewer cuts; the
    seed's +10 % moved it up, which admits more). Only splits whose boundary cluster holds at most
    `max_boundary_share` of the gaps are considered; 1.0 searches every gap, as the seed does.

    >>> estimate = largest_gap_threshold(np.array([0.8, 0.2, 0.85, 0.75]))
    >>> round(estimate.threshold, 3), round(estimate.gap, 3), estimate.confidence
    (0.42, 0.55, 'high')
    """
    scores = np.sort(check_similarities(similarities, minimum=2))
    if not -0.5 < bias < 0.5:
        raise RagkitError(f"bias must be in (-0.5, 0.5) so the threshold stays inside the gap, got {bias}")
    if not 0 < max_boundary_share <= 1:
        raise RagkitError(f"max_boundary_share must be in (0, 1], got {max_boundary_share}")
    candidates = max(1, min(len(scores) - 1, int(max_boundary_share * len(scores))))
    split = int(np.argmax(np.diff(scores)[:candidates])) + 1
    boundary, within = scores[:split], scores[split:]
    gap = float(within.min() - boundary.max())
    midpoint = float(within.min() + boundary.max()) / 2
    confidence = "high" if gap >= 0.25 else "medium" if gap >= 0.1 else "low"
    return GapEstimate(midpoint - bias * gap, boundary, within, float(boundary.mean()), float(within.mean()),
                       gap, midpoint, confidence)


def similarity_changes(similarities: np.ndarray) -> np.ndarray:
    """How much each gap's similarity rose (+) or fell (−) from the previous gap; the first gap gets 0.

    >>> similarity_changes(np.array([0.9, 0.4, 0.5]))
    array([ 0. , -0.5,  0.1])
    """
    similarities = check_similarities(similarities, minimum=1)
    return np.diff(similarities, prepend=similarities[0])


def rule_threshold(similarities: np.ndarray, rule: str = "percentile", amount: float | None = None) -> float:
    """The threshold of one cut rule; cut where `rule_signal` is below it.

    gap: `largest_gap_threshold` with bias `amount`; percentile: the `amount`-th percentile; std: mean −
    `amount` standard deviations; iqr: first quartile − `amount` × IQR; gradient: the `amount`-th
    percentile of `similarity_changes`.

    >>> round(rule_threshold(np.array([0.9, 0.8, 0.2, 0.7, 0.85]), "std", 1.0), 3)
    0.436
    """
    scores = check_similarities(similarities, minimum=2)
    if rule not in RULES:
        raise RagkitError(f"unknown cut rule {rule!r}; choose one of {', '.join(RULES)}")
    amount = DEFAULT_AMOUNTS[rule] if amount is None else amount
    if rule in ("percentile", "gradient") and not 0 <= amount <= 100:
        raise RagkitError(f"a percentile must be between 0 and 100, got {amount}")
    if rule in ("std", "iqr") and amount < 0:
        raise RagkitError(f"the {rule} rule needs a non-negative amount, got {amount}")
    if rule == "gap":
        return largest_gap_threshold(scores, amount).threshold
    if rule == "percentile":
        return float(np.percentile(scores, amount))
    if rule == "std":
        return float(scores.mean() - amount * scores.std())
    if rule == "iqr":
        q1, q3 = np.percentile(scores, [25, 75])
        return float(q1 - amount * (q3 - q1))
    return float(np.percentile(similarity_changes(scores), amount))


def rule_signal(similarities: np.ndarray, rule: str) -> np.ndarray:
    """What a rule compares with its threshold: the similarities, or their changes for "gradient".

    >>> rule_signal(np.array([0.9, 0.4]), "gradient")
    array([ 0. , -0.5])
    """
    return similarity_changes(similarities) if rule == "gradient" else check_similarities(similarities, 1)


def cut_gaps(signal: np.ndarray, threshold: float) -> np.ndarray:
    """Indices of the gaps to cut: where the signal (similarity) is LOW, strictly below the threshold.

    >>> cut_gaps(np.array([0.9, 0.3, 0.8, 0.1]), 0.5)
    array([1, 3])
    """
    return np.flatnonzero(np.asarray(signal) < threshold)


def check_similarities(similarities: np.ndarray, minimum: int) -> np.ndarray:
    """The similarities as a 1-D float array of at least `minimum` finite values, or a clear error.

    >>> check_similarities([0.5, 0.25], minimum=2)
    array([0.5 , 0.25])
    """
    scores = np.asarray(similarities, dtype=float)
    if scores.ndim != 1 or len(scores) < minimum or not np.isfinite(scores).all():
        raise RagkitError(f"need a 1-D array of at least {minimum} finite similarities, got shape {scores.shape}")
    return scores
