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
