"""The evaluation's tests against independent computations: Welch, paired t, TOST, permutations, verdict wording."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_ind

from tealeaves.coherence import diversity
from tealeaves.evaluation.metrics import Items, model_level_topics
from tealeaves.evaluation.stats import (
    COMPARISON_COLUMNS,
    PERMUTATIONS,
    delete_d_se,
    equivalence_p,
    linearised,
    minimal_detectable_difference,
    paired_t,
    permutation,
    randomisation,
    ratio,
    regrouped,
    verdicts,
    welch,
)


def test_welch_is_scipys_unequal_variance_t_test():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.1, 0.05, 20), rng.normal(0.13, 0.09, 17)
    c = welch(a, b)
    expected = stats.ttest_ind(a, b, equal_var=False)
    assert c.p == pytest.approx(expected.pvalue) and c.difference / c.se == pytest.approx(expected.statistic)
    low, high = expected.confidence_interval(0.95)
    assert (c.ci_low, c.ci_high) == pytest.approx((low, high))


def test_paired_t_tests_the_difference_of_two_token_weighted_ratios():
    rng = np.random.default_rng(1)
    w = 5.0 + rng.poisson(40, 300)
    base = rng.normal(-7, 0.5, 300)
    a = Items(w * (base + rng.normal(0, 0.3, 300)), w, np.arange(300))
    b = Items(w * (base + rng.normal(0.05, 0.3, 300)), w, np.arange(300))
    c = paired_t(a, b)
    assert c.difference == pytest.approx(ratio(a) - ratio(b))  # the mean of the linearised differences
    assert linearised(a).mean() == pytest.approx(ratio(a))
    assert c.p == pytest.approx(stats.ttest_rel(linearised(a), linearised(b)).pvalue)
    # only the documents both scored are paired
    fewer = Items(b.values[::2], b.weights[::2], b.ids[::2])
    assert paired_t(a, fewer).n == 150


def test_tost_is_statsmodels_two_one_sided_tests():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.10, 0.05, 20), rng.normal(0.11, 0.06, 20)
    c = welch(a, b)
    p, _, _ = ttost_ind(a, b, -0.05, 0.05, usevar="unequal")
    assert equivalence_p(c.difference, c.se, c.df, 0.05) == pytest.approx(p)


def test_minimal_detectable_difference_is_the_80_percent_power_point():
    se, df = 0.02, 38
    mdd = minimal_detectable_difference(se, df, 0.05)
    power = stats.t.sf(stats.t.ppf(0.975, df) - mdd / se, df)  # the upper tail, the lower is negligible
    assert power == pytest.approx(0.8, abs=1e-9)


def test_constant_groups_get_a_permutation_test_not_an_infinite_t():
    equal = permutation(np.ones(20), np.ones(20), 0, "equal")
    assert equal.p == 1.0
    apart = permutation(np.ones(20), np.zeros(20), 0, "apart")
    assert apart.p == pytest.approx(1 / (1 + PERMUTATIONS)) and np.isfinite(apart.p)  # the smallest it can be
    few = permutation(np.array([1.0, 2.0]), np.array([3.0, 4.0]), 0, "few")  # 6 relabellings, 2 as extreme
    assert few.p == pytest.approx(2 / 6, abs=0.02)


def test_regrouped_model_level_quantities_are_the_librarys_measures_of_the_subsets():
    rng = np.random.default_rng(3)
    topics = [[f"w{i}" for i in rng.choice(60, 25, replace=False)] for _ in range(12)]
    pooled = model_level_topics(topics, 25, 10, 0.9)
    subsets = np.array([rng.permutation(12) < k for k in (3, 5, 7, 12)])
    for metric in ("topic_uniqueness", "topic_diversity", "inverted_rbo"):
        found = regrouped(metric, pooled)(subsets)
        for row, value in zip(subsets, found):
            expected = getattr(diversity([t for t, held in zip(topics, row) if held]), metric)
            assert value == pytest.approx(expected, abs=1e-6)


def test_the_delete_d_jackknife_of_a_mean_is_its_standard_error():
    """Over all subsets the delete-d variance of a mean is s²/K exactly (Shao and Wu 1989); over
    20,000 random subsets of K - d = 6 of 11 values it is within 5% of it (the variance estimate's
    relative MC SE is about 1%), from the stream it is given."""
    x = np.random.default_rng(6).gamma(2.0, size=11)
    drawn = []

    def mean(kept: np.ndarray) -> np.ndarray:
        drawn.append(kept)
        return kept @ x / kept.sum(axis=1)

    se = delete_d_se(mean, 11, np.random.default_rng(7), subsets=20_000)
    assert se == pytest.approx(x.std(ddof=1) / np.sqrt(11), rel=0.05)
    assert (drawn[0].sum(axis=1) == 6).all() and len({row.tobytes() for row in drawn[0]}) == 462  # C(11, 5)
    assert delete_d_se(mean, 11, np.random.default_rng(7), subsets=20_000) == se


def test_the_randomisation_test_ranks_the_observed_split_among_random_regroupings():
    rng = np.random.default_rng(4)
    same = [[f"w{i}" for i in rng.choice(40, 25, replace=False)] for _ in range(10)]
    apart = [[f"v{i}" for i in range(25 * j, 25 * j + 25)] for j in range(10)]  # no shared word: uniqueness 1
    a, b = model_level_topics(same, 25, 10, 0.9), model_level_topics(apart, 25, 10, 0.9)
    p = randomisation("topic_uniqueness", a, b, 0, "apart", 999)
    assert 0 < p <= 1 / 1000  # no regrouping is as extreme as the observed one
    for metric in ("topic_uniqueness", "topic_diversity", "inverted_rbo"):  # observed 0: the smallest there is
        assert randomisation(metric, a, a, 0, "same", 999) > 0.05
    # its level is checked by simulation in tests/evaluate/test_calibration.py


def _row(metric, a, b, difference, p_holm, better, mdd=0.07, margin=np.nan, equivalent=False):
    values = dict.fromkeys(COMPARISON_COLUMNS, np.nan)
    values |= {"metric": metric, "model_a": a, "model_b": b, "difference": difference, "p_holm": p_holm}
    values |= {"better": better, "mdd": mdd, "margin": margin, "equivalent": equivalent, "test": "paired t"}
    values |= {"ci_low": difference - 1, "ci_high": difference + 1} if better else {}
    return values


def test_verdicts_say_better_than_with_the_direction_of_the_metric_and_never_no_difference():
    rows = [
        _row("predictive_rank", "lda-gibbs", "lda-vb", -76.7, 1e-9, "lda-gibbs"),  # lower is better
        _row("predictive_rank", "lda-vb", "plsi", 3.3, 0.2, ""),
    ]
    line = verdicts(pd.DataFrame(rows), 0.05)["predictive_rank"]
    assert line.startswith("predictive rank (lower is better; documents as units")
    assert "lda-gibbs better than lda-vb by 76.7 [75.7, 77.7] (p < 0.001)" in line
    assert "Not significant (Holm, level 0.05): lda-vb vs plsi" in line and "80% power: 0.07" in line
    assert "no difference" not in line.lower() and ">" not in line
    rows = [_row("npmi", "a", "b", 0.01, 0.6, "", margin=0.05, equivalent=True)]
    rows[0]["test"] = "Welch's t"
    line = verdicts(pd.DataFrame(rows), 0.05)["npmi"]
    assert "Equivalent within ±0.05 (TOST, Holm, level 0.05): a and b." in line


def test_verdicts_name_the_test_each_pair_had():
    rows = [_row("npmi", "a", "b", 0.2, 0.01, "a"), _row("npmi", "a", "c", 0.01, 0.6, "")]
    rows[0]["test"], rows[1]["test"] = "permutation", "permutation"  # models of fewer than 5 topics
    assert "topics as units, independent across models (permutation test)" in verdicts(pd.DataFrame(rows), 0.05)["npmi"]
    rows[1]["test"] = "Welch's t"
    assert "(Welch's t or permutation)" in verdicts(pd.DataFrame(rows), 0.05)["npmi"]
