"""A planted corpus, an LDA model of it and a model of random-word topics, saved for evaluate runs."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.models import Topics, train
from tests.models.planted import lda_corpus

K = 8


@pytest.fixture(scope="session")
def planted(tmp_path_factory):
    """Folders: ``train``, ``heldout`` (a 25% split of an LDA corpus), ``lda`` (Gibbs LDA trained
    on ``train``), ``lda2`` (another seed), ``random.txt`` and ``random2.txt`` (topics of 25 words drawn at
    random, twice: two runs of a random model)."""
    root = tmp_path_factory.mktemp("planted")
    corpus, _, _ = lda_corpus(k=K, v=300, n_docs=600, length=60, seed=1)
    train_corpus, heldout = corpus.split(0.25, seed=0)
    train_corpus.save(root / "train")
    heldout.save(root / "heldout")
    for name, seed in (("lda", 0), ("lda2", 1)):
        train(train_corpus, "lda-gibbs", k=K, seed=seed, iterations=100, out=root / name)
    rng = np.random.default_rng(0)
    words = train_corpus.vocab.words
    for name in ("random.txt", "random2.txt"):
        Topics(tuple(tuple(rng.choice(words, 25, replace=False)) for _ in range(K))).save(root / name)
    return root


def config(root, *models, **extra):
    """An evaluate configuration (a dict) over the planted folders."""
    entries = [{"name": name, "path": str(root / ("random.txt" if name == "random" else name))} for name in models]
    corpora = {"heldout": str(root / "heldout"), "train": str(root / "train")}
    return {"corpora": corpora, "models": entries, "n_resamples": 500, **extra}
