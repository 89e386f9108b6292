"""The leaderboard's intervals equal the paired bootstrap's and agree with scipy's paired bootstrap (an unpaired
interval would not), its means equal plain group means, and the diagnosis splits what is missed into "ranked
too low" and "never retrieved"."""

import numpy as np
import pandas as pd
import pytest
from helpers import end_tolerance
from scipy import stats

from ragkit.errors import RagkitError
from ragkit.evaluate.leaderboard import bootstrap_means, diagnose, leaderboard, verdict
from ragkit.evaluate.metrics import paired_bootstrap


def test_bootstrap_means_equal_the_paired_bootstrap_column_by_column():
    rng = np.random.default_rng(3)
    values = rng.random((37, 4))
    means, low, high = bootstrap_means(values, n_resamples=2_000, level=0.9, seed=7)
    for column in range(4):
        mean, lo, hi = paired_bootstrap(np.zeros(37), values[:, column], n_resamples=2_000, level=0.9, seed=7)
        assert means[column] == pytest.approx(mean, abs=1e-12)
        assert (low[column], high[column]) == pytest.approx((lo, hi), abs=1e-12), f"column {column}"


def test_bootstrap_means_of_differences_are_the_paired_bootstrap_of_two_systems():
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 2, 50).astype(float), rng.random(50)
    _, low, high = bootstrap_means(b - a, seed=0)
    assert (low[0], high[0]) == pytest.approx(paired_bootstrap(a, b, seed=0)[1:], abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_leaderboard_differences_agree_with_scipys_paired_bootstrap_and_not_with_an_unpaired_one(seed):
    # two configurations that agree on most queries: the paired interval is much narrower than an unpaired one
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 3, 160) / 2
    other = np.where(rng.random(160) < 0.85, base, rng.integers(0, 3, 160) / 2)
    frame = pd.DataFrame({"query_id": [f"q{i}" for i in range(160)], "lang": "en", "answerable": True})
    board = leaderboard({"a": frame.assign(**{"recall@5": base}), "b": frame.assign(**{"recall@5": other})},
                        ["recall@5"], baseline="a")
    low, high = board.loc[("b", "all", "recall@5"), ["difference low", "difference high"]]
    theirs = stats.bootstrap((base, other), lambda x, y, axis: np.mean(y - x, axis=axis), paired=True,
                             vectorized=True, method="percentile", n_resamples=10_000,
                             rng=np.random.default_rng(seed + 50)).confidence_interval
    tolerance = end_tolerance(base, other, 10_000)
    assert abs(low - theirs.low) < tolerance and abs(high - theirs.high) < tolerance
    unpaired = stats.bootstrap((other,), np.mean, method="percentile", n_resamples=10_000,
                               rng=np.random.default_rng(seed)).confidence_interval   # b's mean alone, as before
    apart = stats.bootstrap((base, other), lambda x, y, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis),
                            paired=False, vectorized=True, method="percentile", n_resamples=10_000,
                            rng=np.random.default_rng(seed)).confidence_interval      # the two resampled apart
    for wrong in (unpaired, apart):
        assert abs(wrong.low - theirs.low) > tolerance or abs(wrong.high - theirs.high) > tolerance


def test_bootstrap_means_reject_bad_input():
    for bad in ([], [[1.0, np.nan]], np.zeros((2, 2, 2))):
        with pytest.raises(RagkitError, match="bootstrap needs"):
            bootstrap_means(bad)
    with pytest.raises(RagkitError, match="level"):
        bootstrap_means([1.0, 2.0], level=1.5)
    with pytest.raises(RagkitError, match="resamples"):
        bootstrap_means([1.0, 2.0], n_resamples=0)


def test_verdict_reads_the_direction_of_each_metric():
    assert verdict("recall@5", 0.1, 0.3) == "better" and verdict("recall@5", -0.3, -0.1) == "worse"
    assert verdict("failure@20", -0.3, -0.1) == "better" and verdict("failure@20", 0.1, 0.3) == "worse"
    assert verdict("mrr@10", 0.0, 0.2) == "no clear difference", "an interval that touches 0 is not clear"


def tables():
    rng = np.random.default_rng(0)
    lang = np.array(["en"] * 30 + ["zh"] * 20)
    base = pd.DataFrame({"query_id": [f"q{i}" for i in range(50)], "lang": lang, "answerable": True,
                         "recall@5": rng.integers(0, 2, 50).astype(float), "failure@20": rng.random(50) / 2})
    better = base.assign(**{"recall@5": 1.0, "failure@20": 0.0})
    return {"base": base, "better": better, "same": base.copy()}


def test_leaderboard_means_are_group_means_and_differences_are_paired():
    board = leaderboard(tables(), ["recall@5", "failure@20"], baseline="base", n_resamples=2_000)
    base = tables()["base"]
    for lang in ["en", "zh"]:
        expected = base[base["lang"] == lang]["recall@5"].mean()
        assert board.loc[("base", lang, "recall@5"), "mean"] == pytest.approx(expected, abs=1e-12)
    assert board.loc[("better", "all", "recall@5"), "verdict"] == "better"
    assert board.loc[("better", "all", "failure@20"), "verdict"] == "better", "lower failure is better"
    assert board.loc[("same", "all", "recall@5"), ["difference", "difference low", "difference high"]].tolist() \
        == [0.0, 0.0, 0.0]
    assert board.xs("all", level="slice")["queries"].eq(50).all()
    a, b = base["failure@20"], tables()["better"]["failure@20"]
    assert board.loc[("better", "all", "failure@20"), ["difference low", "difference high"]].tolist() \
        == pytest.approx(paired_bootstrap(a, b, n_resamples=2_000)[1:], abs=1e-12)


def test_leaderboard_skips_unanswerable_queries_and_checks_its_input():
    data = tables()
    data = {name: table.assign(answerable=[True] * 49 + [False]) for name, table in data.items()}
    assert leaderboard(data, ["recall@5"], n_resamples=100).loc[("base", "all", "recall@5"), "queries"] == 49
    with pytest.raises(RagkitError, match="baseline 'nope'"):
        leaderboard(data, ["recall@5"], baseline="nope")
    shuffled = {**data, "other": data["base"].iloc[::-1]}
    with pytest.raises(RagkitError, match="other queries"):
        leaderboard(shuffled, ["recall@5"])
    with pytest.raises(RagkitError, match="lacks the columns"):
        leaderboard(data, ["ndcg@10"])


def test_diagnose_splits_the_misses_and_names_the_stage():
    table = pd.DataFrame({"type": ["keyword"] * 2 + ["multi"] * 2 + ["paraphrase"] * 2, "answerable": True,
                          "recall@5": [1.0, 1.0, 0.5, 0.0, 0.0, 1.0], "recall@50": [1.0, 1.0, 1.0, 1.0, 0.0, 1.0]})
    result = diagnose(table)
    assert result.loc["multi", ["health", "ceiling", "ranked too low", "never retrieved"]].tolist() == [
        0.25, 1.0, 0.75, 0.0]
    assert result["fix"].to_dict() == {"keyword": "none", "multi": "ranking", "paraphrase": "first stage",
                                       "all": "ranking"}
    assert result.loc["all", "queries"] == 6
    with pytest.raises(RagkitError, match="deeper ceiling"):
        diagnose(table, health="recall@50", ceiling="recall@5")
    with pytest.raises(RagkitError, match="recall@k"):
        diagnose(table, health="mrr@10")
