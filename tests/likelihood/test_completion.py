"""Document completion: the splits, the estimand, refusals."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.likelihood import COMPLETION_METHODS, complete, exact
from tealeaves.likelihood.completion import split_documents
from tealeaves.likelihood.documents import as_documents

from .tiny import estimated_theta_moments, tiny_model


@pytest.fixture(scope="module")
def small():
    phi, alpha = tiny_model(3, 12, seed=4)
    rng = np.random.default_rng(2)
    docs = [rng.integers(0, 12, size=n) for n in (9, 1, 0, 14, 6)]
    return phi, alpha, docs


@pytest.mark.parametrize("split", ["first-half", "alternate", "random"])
def test_split_documents_puts_the_observed_half_first(small, split):
    docs = small[2]
    corpus = Corpus.from_documents(docs, Vocabulary([str(i) for i in range(12)]))
    observed, held = corpus.halves(split, 6)
    halves = split_documents(as_documents(docs, 12), 12, split, 6)
    for d in range(len(docs)):
        tokens = halves.tokens[halves.offsets[d] : halves.offsets[d + 1]]
        assert halves.starts[d] == len(observed.doc(d))
        assert np.array_equal(tokens[: halves.starts[d]], observed.doc(d))
        assert np.array_equal(tokens[halves.starts[d] :], held.doc(d))


COMPLETION_PARAMS = {
    "estimated-theta": {"burn_in": 2, "samples": 5},
    "left-to-right": {"particles": 200},
    "ais": {"temperatures": 1000, "burn_in": 50},
}


@pytest.mark.parametrize("method", sorted(COMPLETION_METHODS))
def test_every_completion_method_scores_the_held_half(small, method):
    # Each document with held tokens, repeated 400 times: the mean of P̂(w2 | w1) / target must be 1
    # within 4 standard errors. The target is the exact P(w2 | w1) = P(w) / P(w1) (enumeration) for
    # AIS (unbiased given a posterior start; 50 sweeps on <= 7 tokens reach it) and LR (a ratio of
    # unbiased estimates, bias O(1/R)); for ET it is ET's own expectation under the exact law of its
    # chain on w1 (which is not P(w2 | w1)), with the standard error bounded from that law.
    phi, alpha, docs = small
    copies = 400
    result = complete(phi, alpha, docs, method=method, seed=3, **COMPLETION_PARAMS[method])
    assert list(result.n_tokens) == [4, 0, 0, 7, 3] and "first-half" in result.estimand
    assert result.log_prob[1] == result.log_prob[2] == 0.0  # nothing held: probability 1
    for d in (0, 3, 4):
        doc = np.asarray(docs[d])
        observed, held = doc[: len(doc) - len(doc) // 2], doc[len(doc) - len(doc) // 2 :]
        runs = complete(phi, alpha, [doc] * copies, method=method, seed=d, **COMPLETION_PARAMS[method]).log_prob
        if method == "estimated-theta":
            target, sd = estimated_theta_moments(phi, alpha, observed, held, **COMPLETION_PARAMS[method])
            ratio, se = np.exp(runs) / target, sd / target / np.sqrt(copies)
        else:
            ratio = np.exp(runs - (exact(phi, alpha, doc) - exact(phi, alpha, observed)))
            se = ratio.std(ddof=1) / np.sqrt(copies)
        assert abs(ratio.mean() - 1.0) < 4 * se, (d, ratio.mean(), se)
    again = complete(phi, alpha, docs, method=method, seed=3, **COMPLETION_PARAMS[method])
    assert np.array_equal(result.log_prob, again.log_prob)


def test_completion_costs_follow_the_observed_and_held_parts(small):
    phi, alpha, docs = small
    et = complete(phi, alpha, docs, method="estimated-theta", burn_in=5, samples=10)
    assert et.site_updates == 15 * (5 + 1 + 0 + 7 + 3)  # (B + S) N^(1)
    ais = complete(phi, alpha, docs, method="ais", burn_in=5, temperatures=10)
    assert ais.site_updates == 5 * 16 + 10 * 30  # B N^(1) + S N


def test_completion_refusals(small):
    phi, alpha, docs = small
    with pytest.raises(InputError, match="split must be one of"):
        complete(phi, alpha, docs, split="last-half")
    with pytest.raises(InputError, match="unknown method 'chib'"):
        complete(phi, alpha, docs, method="chib")
    with pytest.raises(InputError, match="Dirichlet prior"):
        complete(phi, None, docs)
