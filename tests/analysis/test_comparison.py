"""Model comparisons on human scores: exact values against scipy, and calibration by simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from tealeaves.analysis.comparison import cluster_bootstrap_comparison, compare_models
from tealeaves.stats import holm, minimal_detectable_difference, proportion_test, welch_test


def test_compare_models_is_welch_with_holm():
    rng = np.random.default_rng(0)
    groups = {"a": rng.normal(0, 1, 20), "b": rng.normal(0.9, 1, 25), "c": rng.normal(0.2, 2, 15)}
    table = compare_models(groups).set_index(["model_a", "model_b"])
    assert table.index.tolist() == [("a", "b"), ("a", "c"), ("b", "c")]  # C(3, 2) unordered pairs
    raw = [stats.ttest_ind(groups[a], groups[b], equal_var=False).pvalue for a, b in table.index]
    np.testing.assert_allclose(table["pvalue"], raw)
    np.testing.assert_allclose(table["pvalue_holm"], multipletests(raw, method="holm")[1])
    interval = stats.ttest_ind(groups["a"], groups["b"], equal_var=False).confidence_interval()
    assert table.loc[("a", "b"), ["ci_low", "ci_high"]].tolist() == pytest.approx([interval.low, interval.high])
    assert table.loc[("a", "b"), "verdict"].startswith("b better than a (Holm p = ")
    quiet = table.loc[("b", "c")]
    assert quiet["better"] == "" and quiet["verdict"].startswith("not significant (Holm, level 0.05)")
    se = np.sqrt(groups["b"].var(ddof=1) / 25 + groups["c"].var(ddof=1) / 15)
    df = stats.ttest_ind(groups["b"], groups["c"], equal_var=False).df
    assert quiet["detectable"] == pytest.approx((stats.t.ppf(1 - 0.05 / 6, df) + stats.t.ppf(0.8, df)) * se)
    lower = compare_models(groups, higher_is_better=False).set_index(["model_a", "model_b"])
    assert lower.loc[("a", "b"), "better"] == "a" and lower.loc[("a", "b"), "verdict"].startswith("a better than b")
    constant = compare_models({"x": [1.0, 1.0], "y": [1.0, 1.0]}).iloc[0]
    assert np.isnan(constant["pvalue"]) and constant["verdict"].startswith("untestable")


def test_holm_and_detectable_difference():
    p = np.array([0.01, 0.04, np.nan, 0.03, 0.5])
    expected = multipletests(p[np.isfinite(p)], method="holm")[1]
    np.testing.assert_allclose(holm(p)[np.isfinite(p)], expected)
    assert np.isnan(holm(p)[2])
    assert minimal_detectable_difference(1.0) == pytest.approx(stats.norm.ppf(0.975) + stats.norm.ppf(0.8))
    a, b = np.random.default_rng(1).normal(size=(2, 3, 12))
    batched = welch_test(a, b)
    np.testing.assert_allclose(batched.pvalue, stats.ttest_ind(a, b, axis=-1, equal_var=False).pvalue)


def clustered_answers(rng, n_sim: int, topics: int = 20, answers: int = 30, sd: float = 0.25, shift: float = 0.0):
    """Correct-answer counts (n_sim x 2 models x topics): topic precision N(0.5, sd) clipped to [0, 1]."""
    p = np.clip(0.5 + sd * rng.normal(size=(n_sim, 2, topics)), 0, 1)
    p[:, 0] = np.clip(p[:, 0] + shift, 0, 1)
    return rng.binomial(answers, p)


def test_topic_test_holds_its_level_where_the_pooled_test_does_not():
    # The null: 20 topics per model, 30 answers a topic, topic-level sd 0.25. 4,000
    # simulated studies: MC SE of a 5% rate is sqrt(.05 * .95 / 4000) = 0.0034, 4 MC SE 0.014.
    rng = np.random.default_rng(7)
    n_sim = 4000
    hits = clustered_answers(rng, n_sim)
    topic_p = np.asarray(welch_test(hits[:, 0] / 30, hits[:, 1] / 30).pvalue)
    assert abs(np.mean(topic_p < 0.05) - 0.05) < 4 * np.sqrt(0.05 * 0.95 / n_sim)  # measured 0.049
    count = hits.sum(axis=2)
    z = np.asarray(proportion_test(count[:, 0], 600, count[:, 1], 600).statistic)
    pooled = np.mean(2 * stats.norm.sf(np.abs(z)) < 0.05)
    assert pooled > 0.3  # Hoyle's pooled z over the 600 answers: measured 0.49 here (0.29 in the ratings)


def test_topic_test_power_matches_the_noncentral_t():
    # Alternative: model A's topics 0.15 more precise (before clipping). The per-topic score
    # variances and the true difference come from large draws; the power of the two-sided test
    # is then the noncentral t's with 38 df. 4,000 studies: MC SE 0.008.
    rng = np.random.default_rng(8)
    big = clustered_answers(rng, 20000, shift=0.15) / 30
    delta = big[:, 0].mean() - big[:, 1].mean()
    se = np.sqrt((big[:, 0].var() + big[:, 1].var()) / 20)
    hits = clustered_answers(rng, 4000, shift=0.15)
    power = np.mean(np.asarray(welch_test(hits[:, 0] / 30, hits[:, 1] / 30).pvalue) < 0.05)
    crit = stats.t.ppf(0.975, 38)
    expected = stats.nct.sf(crit, 38, delta / se) + stats.nct.cdf(-crit, 38, delta / se)
    assert abs(power - expected) < 4 * np.sqrt(expected * (1 - expected) / 4000)  # measured 0.439 vs 0.428


def test_cluster_bootstrap_holds_its_level():
    # Two-way cluster bootstrap on crossed answers (60 annotators, annotator effect sd 0.1) under
    # the null; 200 studies of 200 replicates: MC SE 0.015, so within 4 MC SE is [0, 0.112],
    # far from the pooled test's 0.29.
    rng = np.random.default_rng(9)
    rejections, n_sim = 0, 200
    for sim in range(n_sim):
        quality = np.clip(0.5 + 0.25 * rng.normal(size=(2, 20)), 0, 1)
        bias = 0.1 * rng.normal(size=60)
        model, topic = np.divmod(np.repeat(np.arange(40), 30), 20)
        annotator = rng.integers(60, size=len(model))
        value = rng.random(len(model)) < np.clip(quality[model, topic] + bias[annotator], 0, 1)
        answers = pd.DataFrame({"model": model, "topic": topic, "annotator": annotator, "value": value.astype(float)})
        rejections += cluster_bootstrap_comparison(answers, n_resamples=200, seed=sim)["pvalue"].iloc[0] < 0.05
    assert abs(rejections / n_sim - 0.05) < 4 * np.sqrt(0.05 * 0.95 / n_sim)
