"""Fixtures shared by the model tests."""

from __future__ import annotations

import pytest

from tealeaves.corpus import prepare

from .planted import PLANTED_NEURAL, lda_corpus


@pytest.fixture(scope="session")
def sotu():
    """The builtin State of the Union paragraphs, prepared once (about 20,000 documents)."""
    return prepare("builtin:sotu")


@pytest.fixture(scope="session")
def planted_neural(tmp_path_factory):
    """The planted corpus (``lda_corpus()``: corpus, true Φ, θ) and dvae and etm trained on it once
    with :data:`PLANTED_NEURAL`, seed 0 on the CPU, etm's embeddings cached in a folder of its own."""
    pytest.importorskip("torch")
    pytest.importorskip("gensim")
    from tealeaves.models import train

    corpus, true_phi, theta = lda_corpus()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TEALEAVES_CACHE", str(tmp_path_factory.mktemp("planted-cache")))
        models = {
            kind: train(corpus, kind, k=10, seed=0, device="cpu", **PLANTED_NEURAL[kind]) for kind in PLANTED_NEURAL
        }
    return corpus, true_phi, theta, models
