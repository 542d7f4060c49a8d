"""A count (topics, sweeps, resamples, a seed) given as a NumPy integer, as ``np.arange`` or a grid gives
it, is accepted wherever a Python int is; a bool or a float is refused with the count's name."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.evaluation import read_config
from tealeaves.models import TopicModel, train


@pytest.fixture
def corpus():
    vocab = Vocabulary(["tax", "budget", "deficit", "war", "peace", "army"])
    docs = [[0, 1, 2, 0, 1], [1, 2, 0, 2], [0, 0, 1, 2], [3, 4, 5, 3], [4, 3, 5, 5, 4], [5, 3, 4, 3]]
    return Corpus.from_documents(docs, vocab)


def test_numpy_integers_train_and_are_written_as_ints(corpus, tmp_path):
    for k in np.arange(2, 4):
        model = train(corpus, "lda-gibbs", k=k, seed=np.int64(0), iterations=np.int32(5), out=tmp_path / f"m{k}")
        assert model.k == k
        manifest = json.loads((tmp_path / f"m{k}" / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["params"]["k"] == int(k) and manifest["params"]["iterations"] == 5
        assert TopicModel.load(tmp_path / f"m{k}").k == k
    averaged = train(corpus, "lda-gibbs", k=2, iterations=6, topics_from="average", average_last=np.int64(3))
    assert averaged.k == 2


@pytest.mark.parametrize("k", [True, 2.0, "2", 0, np.int64(0)])
def test_what_is_not_a_count_is_refused_by_name(corpus, k):
    with pytest.raises(InputError, match=r"k must be a positive number of topics, got"):
        train(corpus, "lda-gibbs", k=k, iterations=2)


def test_an_evaluation_takes_numpy_counts_and_refuses_bools():
    config = read_config({"models": {"lda": "a"}, "seed": np.int64(3), "n_resamples": np.int64(200)})
    assert (config.seed, config.n_resamples) == (3, 200)
    with pytest.raises(InputError, match="seed must be a non-negative integer, got True"):
        read_config({"models": {"lda": "a"}, "seed": True})
    with pytest.raises(
        InputError, match=r"n_resamples must be an integer of at least 100 resamples, got np.int64\(99\)"
    ):
        read_config({"models": {"lda": "a"}, "n_resamples": np.int64(99)})


def test_numpy_floats_are_real_numbers_wherever_python_floats_are(corpus, tmp_path):
    """np.float32 (what a float32 grid gives) passes every check of a rate, a share or a level, and is written
    as a JSON number; a bool or a string is refused by name."""
    pytest.importorskip("torch")
    f = np.float32
    dvae = train(
        corpus,
        "dvae",
        k=2,
        epochs=1,
        batch_size=3,
        checkpoint="last",
        alpha=f(0.01),
        learning_rate=f(0.01),
        beta_reg=f(0.1),
        dropout=f(0.25),
        out=tmp_path / "dvae",
    )
    etm = train(
        corpus,
        "etm",
        k=2,
        epochs=1,
        batch_size=3,
        encoder_dim=4,
        embedding_dim=4,
        learning_rate=f(0.02),
        weight_decay=f(1e-6),
        validation_share=f(0.0),
    )
    assert (dvae.k, etm.k) == (2, 2)
    params = json.loads((tmp_path / "dvae" / "manifest.json").read_text(encoding="utf-8"))["params"]
    assert params["dropout"] == pytest.approx(0.25) and isinstance(params["dropout"], float)
    assert read_config({"models": {"lda": "a"}, "alpha": f(0.01)}).alpha == pytest.approx(0.01)
    for bad in (True, "0.25"):
        with pytest.raises(InputError, match=r"dvae's dropout must be a finite number \(its default is 0.25\), got"):
            train(corpus, "dvae", k=2, epochs=1, dropout=bad)
        with pytest.raises(InputError, match="alpha must be a significance level between 0 and 1, got"):
            read_config({"models": {"lda": "a"}, "alpha": bad})
    # a confidence where the level goes (alpha = 0.95) was taken: a false "better than" nearly every time
    with pytest.raises(InputError, match=r"0.95 looks like a confidence level: give alpha = 0.05$"):
        read_config({"models": {"lda": "a"}, "alpha": 0.95})
