"""The Done-when exactness checks on tiny models (K <= 4, N <= 6, asymmetric αm).

Each unbiased estimator's mean of P̂ (not log P̂) over many independent runs (the same document
repeated: every copy has its own random stream) must lie within 3 standard errors of the exact
P(w); the standard error is small enough that a bias of a few percent would fail. The harmonic
mean and estimated θ must match their expectations under the exact (enumerated) law of their
Gibbs chains. The left-to-right ``wallach`` and ``mallet`` variants must converge, as R grows,
to their limits computed by enumerating the particles' law exactly, which are not log P(w).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tealeaves.likelihood import METHODS, complete, estimate, exact
from tealeaves.likelihood.completion import split_documents
from tealeaves.likelihood.documents import as_documents

from .tiny import (
    CASES,
    case,
    estimated_theta_moments,
    gibbs_laws,
    particle_limit,
    skewed_model,
    tiny_doc,
    tiny_model,
)

REPEATS = 40_000
UNBIASED = {
    "is-prior-theta": {"samples": 10},
    "is-pzw": {"samples": 10},
    "is-iterated-pseudocounts": {"iterations": 3, "samples": 3},
    "ais": {"temperatures": 20, "schedule": "linear"},
    "chib": {"samples": 3, "burn_in": 1},
    "left-to-right": {"particles": 2, "variant": "sis"},
}


def ratios(log_prob: np.ndarray, exact_log_prob: float) -> tuple[float, float]:
    """Mean of P̂ / P and its standard error."""
    r = np.exp(log_prob - exact_log_prob)
    return float(r.mean()), float(r.std(ddof=1) / math.sqrt(len(r)))


@pytest.mark.parametrize("method", sorted(UNBIASED))
@pytest.mark.parametrize("index", range(len(CASES)))
def test_unbiased_estimators_average_to_the_exact_probability(method, index):
    phi, alpha, doc = case(index)
    truth = exact(phi, alpha, doc)
    result = estimate(phi, alpha, [doc] * REPEATS, method=method, seed=100 + index, **UNBIASED[method])
    mean, se = ratios(result.log_prob, truth)
    assert se < 0.01, "the test must resolve a bias of a few percent"
    assert abs(mean - 1.0) < 3 * se, (method, mean, se)


@pytest.mark.parametrize("schedule", ["geometric", "sigmoid"])
def test_ais_is_unbiased_with_every_schedule(schedule):
    phi, alpha, doc = case(2)
    result = estimate(phi, alpha, [doc] * REPEATS, method="ais", seed=5, temperatures=40, schedule=schedule)
    mean, se = ratios(result.log_prob, exact(phi, alpha, doc))
    assert se < 0.01 and abs(mean - 1.0) < 3 * se


@pytest.mark.parametrize("method", sorted(UNBIASED))
def test_unbiased_on_a_longer_document(method):
    # N = 12 with K = 3: exact by enumeration of count vectors; Chib's ICM and AIS's annealing matter here
    phi, alpha = tiny_model(3, 6, seed=21)
    doc = np.random.default_rng(4).integers(0, 6, size=12)
    params = {**UNBIASED[method], **({"samples": 30} if "samples" in UNBIASED[method] else {})}
    if method == "ais":
        params = {"temperatures": 30, "schedule": "linear"}
    if method == "left-to-right":
        params = {"particles": 10}
    result = estimate(phi, alpha, [doc] * 5000, method=method, seed=2, **params)
    mean, se = ratios(result.log_prob, exact(phi, alpha, doc))
    assert se < 0.03 and abs(mean - 1.0) < 3 * se, (method, mean, se)


@pytest.mark.parametrize("index", range(len(CASES)))
def test_harmonic_mean_matches_the_exact_law_of_its_chain(index):
    # HM averages P(w) / P(w | z^(s)) over the Gibbs states after sweeps B+1..B+S (eq. 15), so
    # E[P(w) / P̂] = (1/S) Σ_s E_{q_{B+s}}[P(w) / P(w | z)] under the chain's exact law q_j
    # (enumerated over all K^N assignments), and the standard deviation of the average is at most
    # (1/S) Σ_s sd_{q_{B+s}}[P(w) / P(w | z)] (Cauchy-Schwarz). With B = 1 the chain has not mixed
    # (on case 0 E[P(w) / P̂] = 2.38, and 8.30 if the state before each sweep were recorded); the
    # mean over 40,000 runs must lie within 4 of these bounded standard errors of it.
    phi, alpha, doc = case(index)
    truth = exact(phi, alpha, doc)
    burn_in, samples = 1, 2
    z, laws = gibbs_laws(phi, alpha, doc, burn_in + samples)
    ratio = np.exp(truth - np.log(phi[z, doc]).sum(axis=1))  # P(w) / P(w | z) for every assignment
    recorded = laws[burn_in + 1 :]
    expected = np.mean([law @ ratio for law in recorded])
    sd_bound = np.mean([math.sqrt(law @ ratio**2 - (law @ ratio) ** 2) for law in recorded])
    result = estimate(phi, alpha, [doc] * REPEATS, method="harmonic-mean", seed=index, burn_in=burn_in, samples=samples)
    mean = float(np.exp(truth - result.log_prob).mean())
    assert abs(mean - expected) < 4 * sd_bound / math.sqrt(REPEATS), (mean, expected, sd_bound)


@pytest.mark.parametrize("variant", ["wallach", "mallet"])
@pytest.mark.parametrize("index", range(len(CASES)))
def test_wallach_and_mallet_converge_as_particles_grow(variant, index):
    phi, alpha, doc = case(index)
    limit, squared_cv = particle_limit(phi, alpha, doc, resample=variant == "wallach")
    spread = {}
    for particles, repeats in ((10, 2000), (100, 1000), (1000, 300)):
        result = estimate(
            phi, alpha, [doc] * repeats, method="left-to-right", seed=particles, particles=particles, variant=variant
        )
        values = result.log_prob
        se = values.std(ddof=1) / math.sqrt(repeats)
        expected = limit - squared_cv / (2 * particles)  # delta method: E[log of an average of R]
        assert abs(values.mean() - expected) < 3 * se + squared_cv / particles**2, (particles, values.mean(), expected)
        spread[particles] = values.std()
    assert spread[1000] < 0.15 * spread[10]  # sd shrinks like 1 / sqrt(R)


def test_wallach_and_mallet_converge_to_their_particle_laws_not_to_log_p():
    # Eight random tiny models with skewed αm (log-uniform on [0.03, 3]). The enumerated limit
    # L = Σ_n log E_{q_n}[P(w_n | z_<n)] under each variant's exact particle law q_n is what the
    # kernel converges to: with R particles E[log P̂] = L - c / (2R) + O(c / R^2) by the delta
    # method (c: the summed squared coefficients of variation), and the mean of 1,600 runs must lie
    # within 4 standard errors (plus the O(c / R^2) term) of it. L is not log P(w): on these models
    # the runs lie more than 4 standard errors above log P(w) for some models and below it for others.
    particles, repeats = 100, 1600
    z_from_truth = {"wallach": [], "mallet": []}
    for seed in range(8):
        k, n = 2 + seed % 2, 4 + seed % 2
        phi, alpha = skewed_model(k, 6, seed)
        doc = tiny_doc(6, n, seed)
        truth = exact(phi, alpha, doc)
        for variant in z_from_truth:
            limit, squared_cv = particle_limit(phi, alpha, doc, resample=variant == "wallach")
            values = estimate(
                phi, alpha, [doc] * repeats, method="left-to-right", seed=seed, particles=particles, variant=variant
            ).log_prob
            se = values.std(ddof=1) / math.sqrt(repeats)
            expected = limit - squared_cv / (2 * particles)
            assert abs(values.mean() - expected) < 4 * se + squared_cv / particles**2, (
                seed,
                variant,
                values.mean(),
                expected,
            )
            z_from_truth[variant].append((values.mean() - truth) / se)
        # q_1 and q_2 are exact (the first particle draw is from P(z_1 | w_1)), so L = log P(w) for N <= 2
        for variant in z_from_truth:
            assert particle_limit(phi, alpha, doc[:2], resample=variant == "wallach")[0] == pytest.approx(
                exact(phi, alpha, doc[:2]), abs=1e-12
            )
    for variant, z in z_from_truth.items():
        assert max(z) > 4 and min(z) < -4, (variant, np.round(z, 1))
        guarantee = METHODS["left-to-right"].guarantee({"variant": variant})
        assert "not to log P(w)" in guarantee and "near" not in guarantee


def test_sis_converges_to_the_exact_log_probability():
    phi, alpha, doc = case(1)
    result = estimate(phi, alpha, [doc] * 300, method="left-to-right", seed=3, particles=2000)
    assert abs(result.log_prob.mean() - exact(phi, alpha, doc)) < 2e-3
    assert result.log_prob.std() < 0.02


def test_completion_ais_is_unbiased_and_estimated_theta_is_not():
    phi, alpha, doc = case(0)
    truth = exact(phi, alpha, doc) - exact(phi, alpha, doc[: len(doc) - len(doc) // 2])
    ais = complete(phi, alpha, [doc] * REPEATS, method="ais", seed=1, temperatures=20, schedule="linear", burn_in=20)
    mean, se = ratios(ais.log_prob, truth)
    assert se < 0.01 and abs(mean - 1.0) < 3 * se
    # ET averages P̂ = Π_{w2} Σ_t φ θ̂_t over its chain on w1 alone: its exact expectation (enumerated)
    # is not P(w2 | w1). The mean over 40,000 runs must lie within 4 bounded standard errors of that
    # expectation, which is itself many standard errors away from the truth: clamping θ biases completion.
    n_observed = len(doc) - len(doc) // 2
    expected, sd_bound = estimated_theta_moments(phi, alpha, doc[:n_observed], doc[n_observed:], 2, 3)
    theta = complete(phi, alpha, [doc] * REPEATS, method="estimated-theta", seed=1, burn_in=2, samples=3)
    mean = float(np.exp(theta.log_prob - truth).mean())
    se = sd_bound / math.exp(truth) / math.sqrt(REPEATS)
    assert abs(mean - expected / math.exp(truth)) < 4 * se, (mean, expected / math.exp(truth), se)
    assert abs(expected / math.exp(truth) - 1.0) > 20 * se


@pytest.mark.parametrize("split", ["first-half", "alternate", "random"])
def test_completion_left_to_right_converges_to_the_exact_conditional(split):
    phi, alpha, doc = case(2)
    docs = [doc] * 200
    halves = split_documents(as_documents(docs, phi.shape[1]), phi.shape[1], split, seed=4)
    observed = [halves.tokens[halves.offsets[d] : halves.offsets[d] + halves.starts[d]] for d in range(len(docs))]
    truth = np.array([exact(phi, alpha, doc) - exact(phi, alpha, part) for part in observed])
    result = complete(phi, alpha, docs, method="left-to-right", split=split, seed=4, particles=2000)
    assert np.all(result.n_tokens == len(doc) // 2)
    assert abs(np.mean(result.log_prob - truth)) < 3e-3
