"""The kernels' random streams: reproducible, and with the right distributions."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from scipy.special import digamma, polygamma

from tealeaves import rng
from tealeaves.errors import InputError


@njit
def uniforms(seed, index, n):
    state = rng.stream(seed, index)
    out = np.empty(n)
    for i in range(n):
        out[i] = rng.uniform(state)
    return out


@njit
def gammas(seed, shape, n):
    state = rng.stream(seed, 0)
    out = np.empty(n)
    for i in range(n):
        out[i] = rng.log_gamma(shape, state)
    return out


@njit
def categorical_counts(seed, weights, n):
    state = rng.stream(seed, 0)
    out = np.zeros(weights.shape[0])
    for _ in range(n):
        out[rng.categorical(weights, state)] += 1
    return out


@njit
def dirichlet_mean(seed, alpha, n):
    state = rng.stream(seed, 0)
    out = np.zeros(alpha.shape[0])
    tmp = np.empty(alpha.shape[0])
    for _ in range(n):
        rng.dirichlet(alpha, state, tmp)
        out += tmp
    return out / n


def test_streams_are_reproducible_and_distinct():
    assert np.array_equal(uniforms(1, 2, 100), uniforms(1, 2, 100))
    assert not np.array_equal(uniforms(1, 2, 100), uniforms(1, 3, 100))
    assert not np.array_equal(uniforms(1, 2, 100), uniforms(2, 2, 100))
    u = uniforms(7, 0, 200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.003 and abs(u.var() - 1 / 12) < 0.002
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.01


@pytest.mark.parametrize("shape", [0.01, 0.3, 1.0, 4.5])
def test_gamma_moments(shape):
    logs = gammas(3, shape, 200_000)
    draws = np.exp(logs)
    assert abs(draws.mean() - shape) < 5 * np.sqrt(shape / 200_000)
    # E[log G] = digamma(shape), Var[log G] = trigamma(shape)
    assert abs(logs.mean() - digamma(shape)) < 5 * np.sqrt(polygamma(1, shape) / 200_000)
    assert logs.var() == pytest.approx(polygamma(1, shape), rel=0.05)


def test_tiny_gamma_shapes_never_underflow():
    logs = gammas(0, 0.001, 10_000)
    assert np.all(np.isfinite(logs))


def test_categorical_frequencies():
    weights = np.array([0.1, 0.0, 0.6, 0.3])
    freq = categorical_counts(0, weights, 200_000) / 200_000
    assert freq[1] == 0 and np.allclose(freq, weights, atol=0.005)


def test_dirichlet_mean_even_for_small_alpha():
    alpha = np.array([0.01, 0.02, 0.05])
    assert np.allclose(dirichlet_mean(0, alpha, 100_000), alpha / alpha.sum(), atol=0.01)


def test_as_seed():
    assert rng.as_seed(5) == 5
    generator = np.random.default_rng(0)
    assert 0 <= rng.as_seed(generator) < 2**63
    with pytest.raises(InputError):
        rng.as_seed(-1)


def test_every_purpose_has_its_own_stream_family():
    # the purposes the package draws from, with the same seeds: no two share a seed (a 63-bit hash each)
    purposes = [
        "synthetic corpus",
        "perturb topics",
        "perturb base measure",
        "bootstrap runs",
        "gibbs inference",
        *(f"estimate {m}" for m in ("is-prior-theta", "is-pzw", "is-iterated-pseudocounts", "harmonic-mean")),
        *(f"estimate {m}" for m in ("ais", "chib", "left-to-right")),
        *(f"complete {m}" for m in ("estimated-theta", "left-to-right", "ais")),
    ]
    seeds = {(seed, p): rng.family_seed(seed, p) for seed in range(50) for p in purposes}
    assert len(set(seeds.values())) == len(seeds) and all(0 <= s < 2**63 for s in seeds.values())
    assert rng.family_seed(3, "synthetic corpus") == rng.family_seed(3, "synthetic corpus")
    assert rng.family_seed(np.random.default_rng(5), "x") == rng.family_seed(np.random.default_rng(5), "x")
    assert not np.array_equal(uniforms(rng.family_seed(0, "synthetic corpus"), 0, 10), uniforms(0, 0, 10))
    same = rng.family_generator(7, "perturb topics").random(3)
    assert np.array_equal(same, rng.family_generator(7, "perturb topics").random(3))
    assert not np.array_equal(same, rng.family_generator(7, "perturb base measure").random(3))
    with pytest.raises(InputError):
        rng.family_seed(-1, "synthetic corpus")
