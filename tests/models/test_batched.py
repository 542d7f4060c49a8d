"""Many ETM or D-VAE trials at once (``tealeaves.models.neural.batched``): each trial of a batch
equals its own run of ``etm.fit`` or ``dvae.fit`` from the same seed, whatever the other trials'
settings."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.errors import InputError

from .planted import lda_corpus

pytest.importorskip("torch")

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


def assert_same_run(model, alone):
    """A batched trial's model is its own run's: the same topics, Φ, θ, loss and checkpoint traces."""
    top = np.argsort(-alone.phi, axis=1)[:, :10]
    assert np.array_equal(np.argsort(-model.phi, axis=1)[:, :10], top)  # the same topics
    assert np.allclose(model.phi, alone.phi, rtol=1e-4, atol=1e-9)
    assert np.allclose(model.theta, alone.theta, atol=1e-4)
    ours, theirs = model.manifest["training"], alone.manifest["training"]
    assert np.allclose(ours["trace"], theirs["trace"], rtol=1e-5)  # losses per word, every epoch
    assert np.allclose(ours["checkpoint"]["trace"], theirs["checkpoint"]["trace"], rtol=1e-5)
    assert ours["checkpoint"]["epoch"] == theirs["checkpoint"]["epoch"]
    assert model.params == alone.params


def test_each_trial_of_a_batch_equals_its_own_run(corpus):
    pytest.importorskip("gensim")
    from tealeaves.models.neural import batched, etm

    trials = [{**SMALL, **setting} for setting in SETTINGS]
    together = batched.fit_many(corpus, trials, device="cpu")
    for trial, model in zip(trials, together):
        alone = etm.fit(corpus, **trial, device="cpu")
        assert_same_run(model, alone)


DVAE = {"k": 10, "epochs": 4, "batch_size": 150, "encoder_dim": 32}
# different seeds, α, learning rates, L1 penalties, batch-norm annealing (throughout: γ_BN = 0; over
# one epoch: the decoder's batch norm leaves the batch while the others' still use it), KL
# annealing, dropout and checkpoints in one batch
DVAE_SETTINGS = [
    {
        "seed": 0,
        "alpha": 0.01,
        "learning_rate": 0.01,
        "beta_reg": 0.1,
        "gamma_bn": 2,
        "gamma_kl": 3,
        "checkpoint_every": 1,
    },
    {"seed": 1, "alpha": 0.1, "learning_rate": 0.001, "beta_reg": 0.0, "gamma_bn": 0, "gamma_kl": 1, "dropout": 0.0},
    {
        "seed": 7,
        "alpha": 0.001,
        "learning_rate": 0.01,
        "beta_reg": 1.0,
        "gamma_bn": 1,
        "gamma_kl": 2,
        "checkpoint": "last",
    },
]
# a bias followed by batch norm has a gradient of rounding noise only (the norm removes it), which
# Adam scales to full steps: it wanders differently in any two runs of other rounding and changes
# nothing the model computes (Φ, θ and the losses are compared instead)
NORMED = (
    "net.concentration.bias",
    "net.concentration_bn.running_mean",
    "net.topics.bias",
    "net.topics_bn.running_mean",
)


def test_each_dvae_trial_of_a_batch_equals_its_own_run(corpus):
    from tealeaves.models.neural import batched, dvae

    trials = [{**DVAE, **setting} for setting in DVAE_SETTINGS]
    together = batched.fit_many(corpus, trials, model="dvae", device="cpu")
    for trial, model in zip(trials, together):
        alone = dvae.fit(corpus, **trial, device="cpu")
        assert_same_run(model, alone)
        for name, value in alone.extra.items():  # the other weights and batch norm's statistics
            if name not in NORMED:
                assert np.allclose(model.extra[name], value, rtol=1e-3, atol=1e-4), name


def test_trials_of_different_shapes_or_held_out_documents_are_refused(corpus):
    from tealeaves.models.neural import batched

    with pytest.raises(InputError, match="shape_key"):
        batched.fit_many(corpus, [{**SMALL, "seed": 0}, {**SMALL, "seed": 1, "encoder_dim": 64}], device="cpu")
    with pytest.raises(InputError, match="shape_key"):
        batched.fit_many(corpus, [{**DVAE, "seed": 0}, {**DVAE, "seed": 1, "epochs": 5}], model="dvae", device="cpu")
    with pytest.raises(InputError, match="one by one"):
        batched.fit_many(corpus, [{**SMALL, "seed": 0, "validation_share": 0.2}], device="cpu")
    with pytest.raises(InputError, match="etm or dvae"):
        batched.fit_many(corpus, [{**SMALL, "seed": 0}], model="lda-gibbs", device="cpu")
    with pytest.raises(InputError, match="embedding_dim"):  # an ETM setting is not a D-VAE's
        batched.fit_many(corpus, [{**DVAE, "seed": 0, "embedding_dim": 8}], model="dvae", device="cpu")


def test_memory_estimate_grows_with_the_network_and_the_vocabulary():
    from tealeaves.models.neural.batched import trial_bytes

    base = trial_bytes(3072, 11214, 11214 * 70, {"k": 50})
    # Dieng et al.'s sizes: W1 alone is 3,072 x 800 float32 = 9.8 MB, five copies 49 MB
    assert 49e6 < base < 200e6
    assert trial_bytes(6144, 11214, 11214 * 70, {"k": 50}) > base
    assert trial_bytes(3072, 11214, 11214 * 70, {"k": 50, "encoder_dim": 100}) < base
    # D-VAE: the decoder's 200 x 3,072 logits and their companions (10 copies, 25 MB) dominate
    small = trial_bytes(3072, 11214, 11214 * 70, {"k": 50}, "dvae")
    assert 25e6 < small < base
    assert trial_bytes(3072, 11214, 11214 * 70, {"k": 50, "batch_size": 400}, "dvae") > small
