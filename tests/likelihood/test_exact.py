"""``exact`` against independent summations: brute force over z, integration over θ, normalisation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate

from tealeaves.errors import InputError
from tealeaves.likelihood import exact

from .tiny import CASES, brute_force_log_prob, case, tiny_model


@pytest.mark.parametrize("index", range(len(CASES)))
def test_exact_matches_brute_force_enumeration(index):
    phi, alpha, doc = case(index)
    assert exact(phi, alpha, doc) == pytest.approx(brute_force_log_prob(phi, alpha, doc), rel=1e-12, abs=1e-12)


def test_exact_matches_integration_over_theta_for_two_topics():
    # P(w) = ∫ Π_n (θ φ_{w_n|0} + (1 - θ) φ_{w_n|1}) Beta(θ; α_0, α_1) dθ: no topic assignments at all
    phi, alpha = tiny_model(2, 5, seed=3)
    doc = np.array([0, 4, 4, 1, 2, 0, 3])
    beta = math.gamma(alpha[0]) * math.gamma(alpha[1]) / math.gamma(alpha.sum())

    def integrand(theta):
        mix = theta * phi[0, doc] + (1 - theta) * phi[1, doc]
        return np.prod(mix) * theta ** (alpha[0] - 1) * (1 - theta) ** (alpha[1] - 1) / beta

    value, error = integrate.quad(integrand, 0, 1, limit=200, epsabs=0, epsrel=1e-11)
    assert error < 1e-9 * value
    assert exact(phi, alpha, doc) == pytest.approx(math.log(value), abs=1e-8)


def test_exact_matches_integration_over_the_simplex_for_three_topics():
    phi, alpha = tiny_model(3, 4, seed=5)
    alpha = alpha + 1.0  # keep the Dirichlet density bounded for the quadrature
    doc = np.array([2, 0, 3, 3])
    norm = math.prod(math.gamma(a) for a in alpha) / math.gamma(alpha.sum())

    def integrand(t1, t0):
        t2 = 1.0 - t0 - t1
        theta = np.array([t0, t1, t2])
        density = np.prod(theta ** (alpha - 1)) / norm
        return np.prod(theta @ phi[:, doc]) * density

    value, _ = integrate.dblquad(integrand, 0, 1, 0, lambda t0: 1 - t0, epsabs=0, epsrel=1e-10)
    assert exact(phi, alpha, doc) == pytest.approx(math.log(value), abs=1e-7)


def test_probabilities_of_all_documents_of_a_length_sum_to_one():
    phi, alpha = tiny_model(3, 3, seed=8)
    total = sum(math.exp(exact(phi, alpha, np.array(doc))) for doc in itertools.product(range(3), repeat=4))
    assert total == pytest.approx(1.0, abs=1e-12)


def test_exact_handles_longer_documents_and_is_exchangeable():
    phi, alpha = tiny_model(3, 6, seed=9)
    doc = np.random.default_rng(0).integers(0, 6, size=30)
    value = exact(phi, alpha, doc)
    assert np.isfinite(value) and value < 0
    assert exact(phi, alpha, doc[::-1]) == pytest.approx(value, abs=1e-9)


def test_empty_document_has_probability_one():
    phi, alpha = tiny_model(2, 3, seed=1)
    assert exact(phi, alpha, np.array([], dtype=int)) == 0.0


@pytest.mark.parametrize("k", [12, 30])  # count vectors keyed as integers, and as bytes (30 log2(5) > 62 bits)
def test_exact_handles_many_topics_on_short_documents(k):
    phi, alpha = tiny_model(k, 9, seed=2)
    doc = np.array([3, 1, 4, 1])
    assert exact(phi, alpha, doc) == pytest.approx(brute_force_log_prob(phi, alpha, doc), rel=1e-12)


def test_exact_refuses_documents_too_long_to_enumerate():
    phi, alpha = tiny_model(20, 3, seed=1)
    with pytest.raises(InputError, match="estimate it instead"):
        exact(phi, alpha, np.zeros(30, dtype=int))


def test_topic_counts_do_not_overflow_on_the_longest_admitted_documents():
    # K = 1: P(w) = Π_n φ_{w_n} exactly, whatever αm. N = 65,536 is within the work limit and one
    # past what 16-bit topic counts hold (they wrapped to 0 and gave -760,176 instead of -98,892).
    phi = np.array([[0.1, 0.2, 0.3, 0.4]])
    doc = np.random.default_rng(0).integers(0, 4, size=65_536)
    assert exact(phi, [0.7], doc) == pytest.approx(np.log(phi[0, doc]).sum(), rel=1e-12)
