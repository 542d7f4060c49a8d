"""Many ETM trials at once (``tealeaves.models.neural.batched``): each trial of a batch equals its
own run of ``etm.fit`` from the same seed, whatever the other trials' settings."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.errors import InputError

from .planted import lda_corpus

pytest.importorskip("torch")
pytest.importorskip("gensim")

SMALL = {"k": 10, "epochs": 4, "batch_size": 150, "encoder_dim": 32, "embedding_dim": 16}
# different seeds, learning rates, weight decays and annealing in one batch
SETTINGS = [
    {"seed": 0, "learning_rate": 0.02, "weight_decay": 1.2e-6, "anneal_lr": True},
    {"seed": 1, "learning_rate": 0.002, "weight_decay": 1.2e-5, "anneal_lr": False},
    {"seed": 7, "learning_rate": 0.01, "weight_decay": 0.0, "anneal_lr": True},
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TEALEAVES_CACHE", str(tmp_path_factory.mktemp("batched-cache")))
        yield lda_corpus()[0].subset(np.arange(500))  # a last, partial minibatch of 50 in every epoch


def test_each_trial_of_a_batch_equals_its_own_run(corpus):
    from tealeaves.models.neural import batched, etm

    trials = [{**SMALL, **setting} for setting in SETTINGS]
    together = batched.fit_many(corpus, trials, device="cpu")
    for trial, model in zip(trials, together):
        alone = etm.fit(corpus, **trial, device="cpu")
        top = np.argsort(-alone.phi, axis=1)[:, :10]
        assert np.array_equal(np.argsort(-model.phi, axis=1)[:, :10], top)  # the same topics
        assert np.allclose(model.phi, alone.phi, rtol=1e-4, atol=1e-9)
        assert np.allclose(model.theta, alone.theta, atol=1e-4)
        ours, theirs = model.manifest["training"], alone.manifest["training"]
        assert np.allclose(ours["trace"], theirs["trace"], rtol=1e-5)  # losses per word, every epoch
        assert np.allclose(ours["checkpoint"]["trace"], theirs["checkpoint"]["trace"], rtol=1e-5)
        assert ours["checkpoint"]["epoch"] == theirs["checkpoint"]["epoch"]
        assert model.params == alone.params


def test_trials_of_different_shapes_or_held_out_documents_are_refused(corpus):
    from tealeaves.models.neural import batched

    with pytest.raises(InputError, match="shape_key"):
        batched.fit_many(corpus, [{**SMALL, "seed": 0}, {**SMALL, "seed": 1, "encoder_dim": 64}], device="cpu")
    with pytest.raises(InputError, match="one by one"):
        batched.fit_many(corpus, [{**SMALL, "seed": 0, "validation_share": 0.2}], device="cpu")


def test_memory_estimate_grows_with_the_network_and_the_vocabulary():
    from tealeaves.models.neural.batched import trial_bytes

    base = trial_bytes(3072, 11214, 11214 * 70, {"k": 50})
    # Dieng et al.'s sizes: W1 alone is 3,072 x 800 float32 = 9.8 MB, five copies 49 MB
    assert 49e6 < base < 200e6
    assert trial_bytes(6144, 11214, 11214 * 70, {"k": 50}) > base
    assert trial_bytes(3072, 11214, 11214 * 70, {"k": 50, "encoder_dim": 100}) < base
