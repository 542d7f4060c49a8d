"""Every trainer on real text (builtin SOTU and AP): readable topics, and infer agrees with the stored θ.

Iterations are cut to keep the suite fast; ``benchmarks/train.py`` measures the full runs.
"""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.corpus import prepare
from tealeaves.models import train
from tealeaves.models.compare import hellinger

SOTU_WORDS = ("war", "treaty", "tax", "army", "navy", "gold", "health", "indian", "mexico", "tariff", "soviet", "oil")
AP_WORDS = ("soviet", "police", "court", "percent", "bush", "oil", "israel", "school", "stock", "dukakis", "strike")
RUNS = {"lda-vb": {"iterations": 20}, "plsi": {"iterations": 50}, "ctm": {"iterations": 6}}


@pytest.fixture(scope="module")
def ap(shared_data):
    return prepare(shared_data / "ap" / "ap.txt")


def _check(corpus, model_name, params, expected, needed):
    model = train(corpus, model_name, k=20, seed=0, **params)
    words = {w for topic in model.top_words(10) for w in topic}
    found = [w for w in expected if w in words]
    agreement = hellinger(model.infer(corpus, seed=1), model.theta).mean()
    print(
        f"{model_name}: {len(found)}/{len(expected)} expected words in the top 10s; mean H(infer, θ) = {agreement:.4f}"
    )
    assert len(found) >= needed, (found, model.top_words(10))
    assert agreement < 0.15


@pytest.mark.parametrize("model_name", sorted(RUNS))
def test_readable_topics_on_sotu(sotu, model_name):
    _check(sotu, model_name, RUNS[model_name], SOTU_WORDS, needed=7)


@pytest.mark.parametrize("model_name", [*sorted(RUNS), "lda-gibbs"])
def test_readable_topics_on_ap(ap, model_name):
    params = RUNS.get(model_name, {"iterations": 300, "optimize_burn_in": 50})
    _check(ap, model_name, params, AP_WORDS, needed=7)


def test_lda_gibbs_agreement_needs_the_optimised_prior(sotu):
    """With α re-estimated (after a burn-in), θ from inference agrees with the training θ."""
    part = sotu.subset(np.arange(5000))
    model = train(part, "lda-gibbs", k=20, seed=0, iterations=250, optimize_burn_in=50)
    agreement = hellinger(model.infer(part, seed=1), model.theta).mean()
    print(f"lda-gibbs on 5,000 SOTU paragraphs: mean H(infer, θ) = {agreement:.4f}")
    assert agreement < 0.15
