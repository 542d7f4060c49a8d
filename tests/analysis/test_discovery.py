"""False discovery and omission rates: per-iteration tests equal scipy/statsmodels; the procedure's logic."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest

from tealeaves.analysis import RaggedScores, false_discovery_rates
from tealeaves.analysis.discovery import HumanSets, discovery_outcomes
from tealeaves.errors import InputError


def sets_from(answers: np.ndarray) -> HumanSets:
    return HumanSets(answers.sum(axis=1), (answers**2).sum(axis=1), np.full(len(answers), answers.shape[1], float))


@pytest.mark.parametrize("task", ["word-intrusion", "rating"])
def test_outcomes_equal_scipy_and_statsmodels(task):
    rng = np.random.default_rng(14)
    n, k, m = 25, 50, 15
    if task == "word-intrusion":
        ha, hb = (rng.random((n, k * m)) < 0.7).astype(float), (rng.random((n, k * m)) < 0.66).astype(float)
    else:
        ha, hb = rng.integers(1, 4, (n, k * m)).astype(float), rng.integers(1, 4, (n, k * m)).astype(float)
    xa, xb = rng.normal(0.1, 0.1, (n, k)), rng.normal(0.08, 0.1, (n, k))
    out = discovery_outcomes(task, sets_from(ha), sets_from(hb), xa, xb, human_margin=0.05, metric_margin=0.05)
    for i in range(n):
        assert out["discovery"][i] == (stats.ttest_ind(xa[i], xb[i], alternative="greater").pvalue < 0.05)
        assert out["metric_equivalent"][i] == (stats.ttest_ind(xa[i] - 0.05, xb[i], alternative="less").pvalue < 0.05)
        if task == "word-intrusion":
            counts, nobs = [ha[i].sum(), hb[i].sum()], [ha.shape[1], hb.shape[1]]
            diff = proportions_ztest(counts, nobs, alternative="larger")[1] < 0.05
            equivalent = proportions_ztest(counts, nobs, value=0.05, alternative="smaller")[1] < 0.05
        else:
            diff = stats.ttest_ind(ha[i], hb[i], alternative="greater").pvalue < 0.05
            equivalent = stats.ttest_ind(ha[i] - 0.05, hb[i], alternative="less").pvalue < 0.05
        assert out["human_difference"][i] == diff and out["human_equivalent"][i] == equivalent


def test_rates_follow_the_metric_quality():
    """A metric that tracks the human scores makes fewer false discoveries than pure noise."""
    rng = np.random.default_rng(15)
    quality = rng.beta(2, 2, size=150)
    human = RaggedScores([(rng.random(20) < q).astype(float) for q in quality])
    metrics = pd.DataFrame({"tracking": quality + rng.normal(scale=0.02, size=150), "noise": rng.normal(size=150)})
    result = false_discovery_rates("word-intrusion", human, metrics, {"tracking": 0.02, "noise": 0.05}, n_iter=600)
    table = result.table.set_index("metric_column")
    assert table.loc["tracking", "fdr"] < table.loc["noise", "fdr"]
    assert (table["discoveries"] > 0).all() and (table["human_differences"] > 0).all()
    again = false_discovery_rates("word-intrusion", human, metrics, {"tracking": 0.02, "noise": 0.05}, n_iter=600)
    pd.testing.assert_frame_equal(result.table, again.table)


def test_false_discovery_weight_scales_the_fdr_only():
    """Hoyle et al.'s correction: a false discovery counts 1 - beta = 0.9; the same draws give the
    same counts, the FDR times the weight, the FOR unchanged."""
    rng = np.random.default_rng(16)
    quality = rng.beta(20, 20, size=120)  # humans alike, a metric of noise: false discoveries
    human = RaggedScores([(rng.random(30) < q).astype(float) for q in quality])
    metrics = pd.DataFrame({"m": rng.normal(scale=0.1, size=120)})
    plain = false_discovery_rates("word-intrusion", human, metrics, {"m": 0.05}, k=40, n_iter=300, seed=2)
    weighted = false_discovery_rates(
        "word-intrusion", human, metrics, {"m": 0.05}, k=40, n_iter=300, seed=2, false_discovery_weight=0.9
    )
    counts = ["discoveries", "false_discoveries", "human_differences", "false_omissions"]
    pd.testing.assert_frame_equal(plain.table[counts], weighted.table[counts])
    assert (
        weighted.table["fdr"][0] == pytest.approx(0.9 * plain.table["fdr"][0], rel=1e-12) and plain.table["fdr"][0] > 0
    )
    assert weighted.table["for"][0] == plain.table["for"][0]
    assert weighted.to_dict()["false_discovery_weight"] == 0.9
    with pytest.raises(InputError, match="false_discovery_weight"):
        false_discovery_rates("word-intrusion", human, metrics, {"m": 0.05}, k=40, n_iter=3, false_discovery_weight=0)


def brute_force_equivalence_share(human: RaggedScores, k: int, n_iter: int, seed: int) -> float:
    """Share of (iteration, direction) pairs in which the humans find set A equivalent to set B
    (A.5.1 non-superiority z-test, margin 0.05), by the procedure's steps one by one."""
    rng = np.random.default_rng(seed)
    groups = [human.values[o : o + n] for o, n in zip(human.offsets, human.sizes)]
    equivalent = 0
    for _ in range(n_iter):
        order = rng.permutation(len(groups))
        drawn = [rng.choice(g, size=len(g), replace=True) for g in groups]
        sums = [sum(drawn[t].sum() for t in order[a : a + k]) for a in (0, k)]
        counts = [sum(len(drawn[t]) for t in order[a : a + k]) for a in (0, k)]
        for first, second in ((0, 1), (1, 0)):
            pvalue = proportions_ztest(
                [sums[first], sums[second]], [counts[first], counts[second]], value=0.05, alternative="smaller"
            )[1]
            equivalent += pvalue < 0.05
    return equivalent / (2 * n_iter)


def test_fdr_of_a_metric_unrelated_to_the_humans_is_their_equivalence_rate():
    """A metric independent of the human scores discovers "A > B" independently of whether the
    humans find A equivalent to B, so its FDR estimates P(humans find A equivalent to B).

    Tolerance: 4 standard errors of the difference of two independent Monte Carlo estimates, the
    FDR's binomial sqrt(p (1 - p) / discoveries) and the brute-force share's sqrt(p (1 - p) / n_iter)
    (its two directions per iteration counted as one draw, which overstates that error). Counting
    human differences instead of equivalences, or dividing by iterations, fails it.
    """
    rng = np.random.default_rng(15)
    quality = rng.beta(2, 2, size=150)
    human = RaggedScores([(rng.random(20) < q).astype(float) for q in quality])
    metrics = pd.DataFrame({"noise": rng.normal(size=150)})
    row = false_discovery_rates("word-intrusion", human, metrics, {"noise": 0.05}, n_iter=4000, seed=3).table.iloc[0]
    share = brute_force_equivalence_share(human, k=50, n_iter=1000, seed=4)
    se = np.sqrt(share * (1 - share) * (1 / row["discoveries"] + 1 / 1000))
    assert row["discoveries"] > 300 and 0.1 < share < 0.9
    assert abs(row["fdr"] - share) < 4 * se


def test_discovery_refuses_bad_input():
    human = RaggedScores([np.ones(3)] * 60)
    metrics = pd.DataFrame({"m": np.arange(60.0)})
    with pytest.raises(InputError, match="pool of at least"):
        false_discovery_rates("rating", human, metrics, {"m": 0.05}, k=50)
    with pytest.raises(InputError, match="margin"):
        false_discovery_rates("rating", human, metrics, {}, k=20)
    with pytest.raises(InputError, match="task"):
        false_discovery_rates("essay", human, metrics, {"m": 0.05}, k=20)
