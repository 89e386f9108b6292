"""Learning to rank: a linear model over `ragkit.rank.features`, trained with scikit-learn's logistic regression.

Two objectives, both a logistic regression on standardised features:

- **pointwise**: predict for each (query, candidate) whether it is relevant; the score is that probability,
  so one refusal threshold in [0, 1] fits every query.
- **pairwise** (RankNet's idea with a linear model, as in RankSVM): for every relevant and non-relevant
  candidate of the same query, predict which of the two is better from the difference of their features; the
  score is w · x, meaningful only within one query.

The weights on standardised features are the feature importances. Left out: non-linear models (gradient
boosting, LambdaMART as in LightGBM or XGBoost), listwise losses, and training on graded relevance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragkit.errors import RagkitError

OBJECTIVES = ("pointwise", "pairwise")


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: a pipeline's cache keys name the model
class LinearRanker:
    """score(x) = w · (x − mean) / scale + bias; pointwise scores pass through the logistic function."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    objective: str

    def scores(self, features: np.ndarray) -> np.ndarray:
        """The score of each row of `features` (columns in `names` order)."""
        features = np.asarray(features, dtype=float).reshape(-1, len(self.names))
        linear = (features - self.mean) / self.scale @ self.weights + self.bias
        return 1 / (1 + np.exp(-linear)) if self.objective == "pointwise" else linear

    def importances(self) -> dict[str, float]:
        """Weight of each standardised feature, largest magnitude first."""
        order = np.argsort(-np.abs(self.weights), kind="stable")
        return {self.names[i]: round(float(self.weights[i]), 4) for i in order}


def pairwise_differences(features: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """x_relevant − x_other for every (relevant, non-relevant) pair within each group.

    >>> pairwise_differences(np.array([[1.0], [0.0], [5.0]]), np.array([1, 0, 1]), np.array([0, 0, 1]))
    array([[1.]])
    """
    pairs = []
    for group in np.unique(groups):
        rows = groups == group
        good, bad = features[rows & (labels > 0)], features[rows & (labels == 0)]
        pairs.extend(g - b for g in good for b in bad)
    return np.array(pairs).reshape(-1, features.shape[1])


def fit_ranker(features: np.ndarray, labels: Sequence[int], groups: Sequence, names: Sequence[str],
               objective: str = "pairwise", seed: int = 0) -> LinearRanker:
    """Train a `LinearRanker` on candidates (rows), their 0/1 labels and the query each belongs to.

    >>> x = np.array([[0.9, 1.0], [0.2, 0.0], [0.8, 1.0], [0.3, 0.0]])
    >>> ranker = fit_ranker(x, [1, 0, 1, 0], [0, 0, 1, 1], ["dense", "identifier"])
    >>> bool(ranker.scores(x[:1])[0] > ranker.scores(x[1:2])[0])
    True
    """
    from sklearn.linear_model import LogisticRegression

    if objective not in OBJECTIVES:
        raise RagkitError(f"unknown learning-to-rank objective {objective!r}; choose one of {', '.join(OBJECTIVES)}")
    features, labels, groups = np.asarray(features, float), np.asarray(labels), np.asarray(groups)
    if len(features) == 0 or len(set(labels.tolist())) < 2:
        raise RagkitError("learning to rank needs training candidates with both relevant and non-relevant ones")
    mean, scale = features.mean(axis=0), features.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    standard = (features - mean) / scale
    if objective == "pointwise":
        model = LogisticRegression(max_iter=2000, random_state=seed).fit(standard, labels > 0)
        return LinearRanker(tuple(names), mean, scale, model.coef_[0], float(model.intercept_[0]), objective)
    differences = pairwise_differences(standard, labels, groups)
    if len(differences) == 0:
        raise RagkitError("pairwise learning to rank needs a query with a relevant and a non-relevant candidate")
    both = np.vstack([differences, -differences])  # each pair both ways round: a symmetric problem, no intercept
    target = np.r_[np.ones(len(differences)), np.zeros(len(differences))]
    model = LogisticRegression(max_iter=2000, fit_intercept=False, random_state=seed).fit(both, target)
    return LinearRanker(tuple(names), mean, scale, model.coef_[0], 0.0, objective)
