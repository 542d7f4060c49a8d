"""The ranking SVM solves SVM-rank's problem exactly: checked against scipy and by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from tealeaves.errors import InputError
from tealeaves.intrusion import fit_ranking_svm, preference_pairs


def problem(seed: int, rankings: int = 8, items: int = 4, features: int = 3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rankings, items, features))
    grades = rng.integers(0, 3, size=(rankings, items))
    grades[:, 0] = 3  # every ranking has at least one pair
    x[:, 0] += 0.5  # mostly, not perfectly, separable
    return x, grades


def primal(w: np.ndarray, diffs: np.ndarray, upper: float) -> float:
    return 0.5 * w @ w + upper * np.maximum(0.0, 1.0 - diffs @ w).sum()


def scipy_primal_qp(diffs: np.ndarray, upper: float) -> np.ndarray:
    """The primal with one slack per pair, as a QP solved by SLSQP (independent of our dual solver)."""
    p, f = diffs.shape

    def objective(z: np.ndarray) -> float:
        return 0.5 * z[:f] @ z[:f] + upper * z[f:].sum()

    def gradient(z: np.ndarray) -> np.ndarray:
        return np.concatenate([z[:f], np.full(p, upper)])

    margins = {
        "type": "ineq",
        "fun": lambda z: diffs @ z[:f] - 1 + z[f:],
        "jac": lambda z: np.hstack([diffs, np.eye(p)]),
    }
    start = np.concatenate([np.zeros(f), np.ones(p)])  # w = 0 with every slack 1 is feasible
    bounds = [(None, None)] * f + [(0.0, None)] * p
    fit = minimize(
        objective, start, jac=gradient, constraints=[margins], bounds=bounds, method="SLSQP", options={"ftol": 1e-10}
    )
    assert fit.success, fit.message
    return fit.x[:f]


def scipy_dual(diffs: np.ndarray, upper: float) -> np.ndarray:
    """The box-constrained dual solved by L-BFGS-B; w = sum_p a_p d_p."""
    q = diffs @ diffs.T
    fit = minimize(
        lambda a: 0.5 * a @ q @ a - a.sum(),
        np.zeros(len(diffs)),
        jac=lambda a: q @ a - 1.0,
        bounds=[(0.0, upper)] * len(diffs),
        method="L-BFGS-B",
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000},
    )
    return diffs.T @ fit.x


def test_preference_pairs_are_every_better_minus_worse_pair():
    x, grades = problem(0)
    expected = [
        x[r, i] - x[r, j]
        for r in range(x.shape[0])
        for i in range(x.shape[1])
        for j in range(x.shape[1])
        if grades[r, i] > grades[r, j]
    ]
    np.testing.assert_array_equal(preference_pairs(x, grades), np.array(expected))


@pytest.mark.parametrize("c", [0.01, 1.0, 30.0])
@pytest.mark.parametrize("seed", [1, 2])
def test_matches_scipy_on_the_primal_and_the_dual(c, seed):
    x, grades = problem(seed)
    diffs = preference_pairs(x, grades)
    upper = c / x.shape[0]  # SVM-rank: C_light = C_rank / n
    fit = fit_ranking_svm(x, grades, c=c)
    assert fit.converged and fit.n_rankings == 8 and fit.n_pairs == len(diffs)
    for reference in (scipy_primal_qp(diffs, upper), scipy_dual(diffs, upper)):
        np.testing.assert_allclose(fit.weights, reference, rtol=1e-5, atol=2e-7)
        assert fit.primal <= primal(reference, diffs, upper) + 1e-9
    assert fit.primal == pytest.approx(primal(fit.weights, diffs, upper), rel=1e-12)
    assert -1e-12 <= fit.primal - fit.dual < 1e-7 * max(1.0, fit.primal)  # duality gap closed


def test_no_nearby_weights_do_better():
    x, grades = problem(3, features=2)
    diffs = preference_pairs(x, grades)
    fit = fit_ranking_svm(x, grades, c=5.0)
    grid = fit.weights + np.stack(np.meshgrid(*[np.linspace(-0.05, 0.05, 41)] * 2), axis=-1).reshape(-1, 2)
    values = [primal(w, diffs, 5.0 / 8) for w in grid]
    assert fit.primal <= min(values) + 1e-12


def test_small_c_gives_the_mean_pair_difference():
    """With C = 0.01 every pair stays inside the margin, so w = (C / n) * sum of differences (KKT)."""
    x, grades = problem(4)
    diffs = preference_pairs(x, grades)
    fit = fit_ranking_svm(x, grades, c=0.01)
    expected = 0.01 / 8 * diffs.sum(axis=0)
    assert np.all(diffs @ expected < 1)
    np.testing.assert_allclose(fit.weights, expected, rtol=1e-12)


def test_c_is_divided_by_the_number_of_rankings():
    """SVM-rank's scaling: the same rankings twice over, with the same C, give the same solution."""
    x, grades = problem(5)
    once = fit_ranking_svm(x, grades, c=3.0)
    twice = fit_ranking_svm(np.concatenate([x, x]), np.concatenate([grades, grades]), c=3.0)
    np.testing.assert_allclose(twice.weights, once.weights, atol=1e-7)
    assert twice.primal == pytest.approx(once.primal, rel=1e-7)


def test_separable_data_is_ranked_correctly_and_ties_do_not_matter():
    rng = np.random.default_rng(6)
    x = rng.uniform(size=(30, 6, 2))
    grades = np.zeros((30, 6), dtype=int)
    grades[:, 2] = 1
    x[:, 2, 0] += 1.0  # feature 0 alone separates the preferred item
    fit = fit_ranking_svm(x, grades, c=100.0)
    assert np.all(fit.score(x).argmax(axis=1) == 2)
    assert fit.weights[0] > 0
    flat = np.zeros((1, 6, 2))  # a ranking whose items cannot be told apart adds only a constant loss
    with_flat = fit_ranking_svm(np.concatenate([x, flat]), np.concatenate([grades, grades[:1]]), c=100.0 * 31 / 30)
    np.testing.assert_allclose(with_flat.weights, fit.weights, atol=1e-7)


def test_bad_input_is_refused():
    x, grades = problem(7)
    with pytest.raises(InputError, match="C must be"):
        fit_ranking_svm(x, grades, c=0)
    with pytest.raises(InputError, match="grades"):
        fit_ranking_svm(x, grades[:, :2])
    with pytest.raises(InputError, match="finite"):
        fit_ranking_svm(np.where(x > 1, np.nan, x), grades)
    with pytest.raises(InputError, match="at least one ranking"):
        fit_ranking_svm(x[:0], grades[:0])
    with pytest.raises(InputError, match="columns"):
        fit_ranking_svm(x, grades).score(np.zeros((2, 5)))
