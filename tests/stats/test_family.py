"""Westfall and Young's step-down over one joint resampling, and the tests it resamples (tealeaves.stats)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tealeaves.stats import (
    detectable_difference,
    key_splits,
    split_welch_statistics,
    studentised_permutation_test,
    swapped_paired_moments,
    swapped_paired_statistics,
    westfall_young,
)
from tealeaves.stats.family import IndependentMeans, PairedRatios, joint_null


def _step_down_by_hand(observed, null):
    """Westfall and Young's Algorithm 2.8, one loop at a time."""
    b, m = null.shape
    p = np.array([(1 + np.sum(null[:, j] >= observed[j])) / (b + 1) for j in range(m)])
    every = np.vstack([observed, null])  # the data's statistics among the replicates'
    star = np.array([[np.sum(every[:, j] >= null[r, j]) / (b + 1) for j in range(m)] for r in range(b)])
    order = np.argsort(p, kind="stable")
    adjusted, running = np.empty(m), 0.0
    for i, j in enumerate(order):
        smallest = star[:, order[i:]].min(axis=1)
        running = max(running, (1 + np.sum(smallest <= p[j] + 1e-12)) / (b + 1))
        adjusted[j] = min(1.0, running)
    return p, adjusted


def test_westfall_young_is_the_step_down_min_p_by_hand():
    rng = np.random.default_rng(3)
    shared = rng.normal(size=(300, 1))
    null = np.abs(0.7 * shared + 0.7 * rng.normal(size=(300, 4)))
    observed = np.array([2.9, 0.3, 1.9, 2.2])
    p, adjusted = _step_down_by_hand(observed, null)
    found = westfall_young(observed, null)
    np.testing.assert_allclose(found.pvalue, p)
    np.testing.assert_allclose(found.adjusted, adjusted)
    assert (found.adjusted >= found.pvalue).all()  # never below the marginal p
    one = westfall_young(observed[:1], null[:, :1])  # a family of one: nothing to adjust
    assert one.adjusted[0] == one.pvalue[0]


def test_westfall_young_controls_the_family_wise_error_of_correlated_tests():
    """Ten z-tests correlated 0.5, all nulls true: any rejection in 5% of 600 families (MC SE 0.009),
    where unadjusted tests reject somewhere in about a quarter of them."""
    rng = np.random.default_rng(0)
    cov = 0.5 + 0.5 * np.eye(10)
    any_adjusted = any_raw = 0
    for _ in range(600):
        z = np.abs(rng.multivariate_normal(np.zeros(10), cov, size=501))  # the data, then 500 null replicates
        found = westfall_young(z[0], z[1:])
        any_adjusted += bool((found.adjusted < 0.05).any())
        any_raw += bool((found.pvalue < 0.05).any())
    assert abs(any_adjusted / 600 - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 600)
    assert any_raw / 600 > 0.2


def test_the_smallest_attainable_p_of_four_topics_a_model():
    """Two models of four topics: 70 splits, the observed one and its mirror the most extreme, so no p
    below 2/70, and with five more such comparisons in the family the adjusted p cannot reach 0.05."""
    ids = np.arange(4)
    pair = IndependentMeans("a", "b", ids, np.array([0.9, 0.8, 0.85, 0.95]), ids, np.array([0.1, 0.2, 0.0, 0.15]))
    pair = IndependentMeans(pair.a, pair.b, ids, pair.values_a, ids, pair.values_b, "permutation")
    others = [
        IndependentMeans(f"c{i}", f"d{i}", ids, pair.values_a, ids, pair.values_b, "permutation") for i in range(5)
    ]
    observed, null, floor = joint_null([pair, *others], 4999, np.random.default_rng(0))
    assert floor[0] == pytest.approx(2 / 70)
    found = westfall_young(observed, null, 0.05, floor)
    assert found.pvalue[0] == pytest.approx(2 / 70)
    assert (found.attainable >= 0.05).all() and (found.adjusted >= 0.05).all()
    assert found.adjusted[0] == pytest.approx(1 - (1 - 2 / 70) ** 6, abs=0.02)  # six independent tries


def test_the_studentised_statistics_are_welch_and_the_paired_t():
    rng = np.random.default_rng(1)
    a, b = rng.gamma(2.0, 1.0, 12), rng.normal(2.0, 3.0, 9)
    groups = np.vstack([np.arange(21) < 12, rng.permutation(21) < 12])
    pooled = np.concatenate([a, b])
    t = split_welch_statistics(pooled, groups)
    assert t[0] == pytest.approx(abs(stats.ttest_ind(a, b, equal_var=False).statistic))
    assert t[1] == pytest.approx(abs(stats.ttest_ind(pooled[groups[1]], pooled[~groups[1]], equal_var=False).statistic))
    result = studentised_permutation_test(a, b, np.random.default_rng(2), 999)
    assert result.statistic == pytest.approx(stats.ttest_ind(a, b, equal_var=False).statistic)
    w = rng.integers(5, 200, 15).astype(float)
    va, vb = w * rng.normal(-7, 0.3, 15), w * rng.normal(-7, 0.3, 15)
    swaps = np.vstack([np.zeros(15, bool), rng.random(15) < 0.5])
    t = swapped_paired_statistics((va, w), (vb, w), swaps)

    def linearised(v):  # the delta method's contributions of the ratio sum(v) / sum(w)
        r = v.sum() / w.sum()
        return r + (v - r * w) / w.mean()

    assert t[0] == pytest.approx(abs(stats.ttest_rel(linearised(va), linearised(vb)).statistic))
    sa, sb = np.where(swaps[1], vb, va), np.where(swaps[1], va, vb)
    assert t[1] == pytest.approx(abs(stats.ttest_rel(linearised(sa), linearised(sb)).statistic))


def test_swapped_moments_are_the_same_in_blocks_of_rows(monkeypatch):
    """Many swaps are computed a block of rows at a time (bounded memory): the same mean differences and
    squared standard errors as all rows at once, and as the paired t's parts by brute force."""
    import tealeaves.stats.tests as tests_module

    rng = np.random.default_rng(4)
    w = rng.integers(5, 200, 15).astype(float)
    va, vb = w * rng.normal(-7, 0.3, 15), w * rng.normal(-7, 0.3, 15)
    swaps = rng.random((40, 15)) < 0.5
    whole = swapped_paired_moments((va, w), (vb, w), swaps)
    monkeypatch.setattr(tests_module, "SWAP_BLOCK", 15 * 3)  # three rows a block, the last one short
    blocks = swapped_paired_moments((va, w), (vb, w), swaps)
    assert np.array_equal(whole[0], blocks[0]) and np.array_equal(whole[1], blocks[1])
    x, y = np.where(swaps[7], vb, va), np.where(swaps[7], va, vb)
    rx, ry = x.sum() / w.sum(), y.sum() / w.sum()
    d = (rx + (x - rx * w) / w.mean()) - (ry + (y - ry * w) / w.mean())  # linearised contributions' difference
    assert whole[0][7] == pytest.approx(d.mean()) and whole[1][7] == pytest.approx(d.var(ddof=1) / 15)


def test_shared_keys_make_one_relabelling_of_the_units():
    """Every split of key_splits is uniform (each unit in group A a share n_A / n of the time), and two
    comparisons that share a model get correlated null statistics, where disjoint models get none."""
    keys = np.random.default_rng(0).random((20000, 6))
    assert key_splits(keys, 2).mean(axis=0) == pytest.approx(np.full(6, 2 / 6), abs=0.01)
    rng = np.random.default_rng(1)
    ids = np.arange(30)
    x, y, z = rng.normal(size=30), rng.normal(size=30), rng.normal(size=30)
    shared = [IndependentMeans("a", "b", ids, x, ids, y), IndependentMeans("a", "c", ids, x, ids, z)]
    apart = [IndependentMeans("a", "b", ids, x, ids, y), IndependentMeans("c", "d", ids, z, ids, y)]
    _, null, _ = joint_null(shared, 3000, np.random.default_rng(2))
    _, null_apart, _ = joint_null(apart, 3000, np.random.default_rng(2))
    signed = [np.corrcoef(n[:, 0], n[:, 1])[0, 1] for n in (null, null_apart)]
    assert signed[0] > 0.1 and abs(signed[1]) < 0.06
    paired = PairedRatios("a", "b", ids, (x, np.ones(30)), (y, np.ones(30)))
    assert joint_null([paired], 10, np.random.default_rng(0))[2][0] == pytest.approx(2.0**-29)


def test_the_detectable_difference_has_its_power():
    """A studentised statistic with critical value c: a true difference of (c + z_0.8) SE is found 80% of
    the time (normal statistic, 20,000 draws)."""
    se, critical = 0.1, 2.8
    delta = detectable_difference(critical, se, None)
    draws = np.random.default_rng(0).normal(delta / se, 1.0, 20000)
    assert np.mean(np.abs(draws) > critical) == pytest.approx(0.8, abs=0.01)
    assert detectable_difference(0.3, se, None, studentised=False) == pytest.approx(0.3 + stats.norm.ppf(0.8) * se)
    assert delta > critical * se


def test_the_bounded_interval_stays_within_its_bounds():
    """Inverted RBO near 1 (the issue's [0.989, 1.002]): the logit-scale interval stays below 1, and far
    from the bounds it is about the t interval."""
    from tealeaves.stats import bounded_t_interval, t_interval

    low, high = bounded_t_interval(0.995, 0.003, 19)
    assert 0 < low < 0.995 < high < 1
    near = bounded_t_interval(0.5, 0.01, 19)
    assert near == pytest.approx(t_interval(0.5, 0.01, 19), abs=1e-4)
    assert bounded_t_interval(1.0, 0.01, 19)[1] == 1.0  # at the bound: the t interval, clipped
