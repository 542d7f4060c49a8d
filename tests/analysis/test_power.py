"""Hoyle et al. 2021's pooled power analysis (A.5, kept for replication): agrees with a brute-force simulation and the paper.

The topic-level power analysis that sizes studies is tested in test_power_topic.py.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest

from tealeaves.analysis import annotators_needed, equivalence_margin, power_curve, simulate_power
from tealeaves.errors import InputError


def brute_force_power(task: str, m: int, n_sim: int, seed: int, k: int = 50, r: int = 4) -> float:
    """The A.5 generative model topic by topic and annotator by annotator, tested with scipy/statsmodels."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_sim):
        if task == "intrusion":
            z_a = rng.integers(0, 2, k)
            z_b = np.zeros(k, dtype=int)
            z_b[: z_a.sum() - r] = 1
            p = np.array([1 / 6, 0.85])
            a = rng.random((k, m)) < p[z_a][:, None]
            b = rng.random((k, m)) < p[z_b][:, None]
            pvalue = proportions_ztest([a.sum(), b.sum()], [a.size, b.size], alternative="larger")[1]
        else:
            z_a = rng.integers(0, 3, k)
            good, okay = (z_a == 2).sum(), (z_a == 1).sum()
            z_b = np.zeros(k, dtype=int)
            z_b[: good - r] = 2
            z_b[good - r : good - r + okay] = 1
            probs = np.array([[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]])
            a = np.concatenate([rng.choice(3, size=m, p=probs[z]) for z in z_a])
            b = np.concatenate([rng.choice(3, size=m, p=probs[z]) for z in z_b])
            pvalue = stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic").pvalue
        hits += pvalue < 0.05
    return hits / n_sim


@pytest.mark.parametrize(("task", "m"), [("intrusion", 8), ("rating", 6)])
def test_vectorised_simulation_matches_brute_force(task, m):
    ours = simulate_power(task, m, n_sim=4000, seed=1)
    brute = brute_force_power(task, m, n_sim=400, seed=2)
    assert 0.2 < ours < 0.95  # an informative point of the curve
    assert abs(ours - brute) < 0.08  # two independent Monte Carlo estimates (SE about 0.025)


def test_annotators_needed_reproduce_appendix_a5():
    start = time.perf_counter()
    intrusion = annotators_needed("intrusion", power=0.9, alpha=0.05, effect=4, k=50, seed=0)
    ratings = annotators_needed("rating", power=0.9, alpha=0.05, effect=4, k=50, seed=0)
    assert time.perf_counter() - start < 5  # cheap enough for `study create` to call for its default
    # The answer is the first M whose estimated power (n_sim = 4000, standard error
    # sqrt(0.9 * 0.1 / 4000) = 0.0047) reaches 0.9. Against an independent estimate of the curve
    # (other seed, n_sim = 40000, standard error 0.0015) it may be off only within that noise:
    # power(M) >= 0.9 - 4 SE and power(M - 1) < 0.9 + 4 SE, with SE the two combined (0.005).
    # (Measured: intrusion 22 with power(22) = 0.896 and power(21) = 0.883 (power(23) = 0.909: another
    # seed's 4,000 simulations may give 23); ratings 12 with power(12) = 0.914 and power(11) = 0.886.)
    tolerance = 4 * np.sqrt(0.9 * 0.1 * (1 / 4000 + 1 / 40000))
    for task, m in (("intrusion", intrusion), ("rating", ratings)):
        assert simulate_power(task, m, n_sim=40000, seed=11) >= 0.9 - tolerance
        assert simulate_power(task, m - 1, n_sim=40000, seed=12) < 0.9 + tolerance
    # The paper reports about 25 (intrusion) and 15 (ratings): the first multiple of 5 annotators
    # whose power reaches 0.9 on this curve. Its neighbours on that grid are far from 0.9 (20: 0.87,
    # 25: 0.93; 10: 0.85, 15: 0.96, each +- 0.0015), so the comparison has no Monte Carlo slack.
    for task, paper in (("intrusion", 25), ("rating", 15)):
        grid = [m for m in range(5, 60, 5) if simulate_power(task, m, n_sim=40000, seed=13) >= 0.9]
        assert grid[0] == paper


def test_power_grows_with_annotators_and_effect():
    curve = power_curve("rating", [2, 5, 10, 20], n_sim=2000).table["power"].to_numpy()
    assert (np.diff(curve) > 0).all()
    assert simulate_power("intrusion", 10, effect=8) > simulate_power("intrusion", 10, effect=2)
    null = simulate_power("intrusion", 10, effect=0, n_sim=8000)
    assert null < 0.05  # no true difference: at most alpha (the pooled test is conservative here)


def test_equivalence_margin_appendix_a51():
    assert equivalence_margin("rating", 15) == pytest.approx(0.11)  # the paper: 0.11
    assert abs(equivalence_margin("intrusion", 26) - 0.05) <= 0.01  # the paper: 0.05


def test_power_refuses_bad_arguments():
    with pytest.raises(InputError, match="task"):
        simulate_power("essay", 5)
    with pytest.raises(InputError, match=r"^the power analysis needs annotators >= 1 \(a whole number\), got 0$"):
        simulate_power("rating", 0)
    with pytest.raises(InputError, match="max_annotators"):
        annotators_needed("rating", effect=1, max_annotators=3)


def test_a_power_curve_takes_whole_numbers_as_floats_and_refuses_fractions_and_bare_numbers():
    # np.linspace gives floats: 5.0 annotators are 5, as int() made them before; 5.5 was truncated to 5
    from_floats = power_curve("rating", np.linspace(5, 20, 4), n_sim=200)
    assert from_floats.table.equals(power_curve("rating", [5, 10, 15, 20], n_sim=200).table)
    with pytest.raises(InputError, match=r"needs annotators >= 1 \(a whole number\), got 5.5$"):
        power_curve("rating", [5.5], n_sim=200)
    with pytest.raises(InputError, match=r"^annotators must be a list of numbers of annotators, e.g. \[5, 10, 15\]"):
        power_curve("rating", 15, n_sim=200)
    with pytest.raises(InputError, match=r"^annotators is empty"):
        power_curve("rating", [], n_sim=200)
