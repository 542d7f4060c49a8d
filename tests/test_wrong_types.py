"""Every public entry point given a value of the wrong type or range refuses it as a TealeavesError (or takes it,
where it is valid there: ``particles=3``), never with another exception.

A value of another type where a name (a measure, a method, a task, a format) or a number goes raised
Python's own errors from deep inside: "unhashable type: 'list'", "'<' not supported between instances of
'str' and 'int'", "'float' object is not iterable", numpy's "ufunc 'isfinite' not supported". The one
exception kept is Python's own TypeError for a number where a path or an iterable goes
(``evaluate(config, out=3)``), as numpy and pandas raise it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import tealeaves
from tealeaves.coherence import RefIndex, diversity, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import TealeavesError
from tealeaves.likelihood import complete, estimate, predictive
from tealeaves.models import TopicModel

WRONG = {
    "None": None,
    "int": 3,
    "negative": -1,
    "float": 2.5,
    "nan": math.nan,
    "str": "abc",
    "list": ["a"],
    "dict": {"a": 1},
    "bool": True,
    "empty": "",
}


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(0)
    vocab = Vocabulary([f"w{i}" for i in range(40)])
    model = TopicModel(vocab, rng.dirichlet(np.ones(40), size=4), alpha=np.full(4, 0.5), kind="lda-gibbs")
    corpus = Corpus.from_documents([rng.integers(0, 40, size=20) for _ in range(30)], vocab)
    return model, corpus, RefIndex.build(corpus)


def calls(model, corpus, index):
    return {
        "evaluate(config)": lambda v: tealeaves.evaluate(v, "unused"),
        "create_study(task)": lambda v: tealeaves.create_study({"a": model}, v),
        "import_model(format)": lambda v: tealeaves.import_model(v, "unused"),
        "estimate(method)": lambda v: estimate(model, None, corpus, method=v),
        "estimate(particles)": lambda v: estimate(model, None, corpus, particles=v),
        "estimate(runs)": lambda v: estimate(model, None, corpus, runs=v, particles=2),
        "predictive(split)": lambda v: predictive(model, corpus, split=v),
        "score(measure)": lambda v: score(model, index, measure=v),
        "score(topn)": lambda v: score(model, index, topn=v),
        "score(window)": lambda v: score(model, index, window=v),
        "score(on_missing)": lambda v: score(model, index, on_missing=v),
        "diversity(topn)": lambda v: diversity(model, diversity_topn=v),
        "split(heldout)": lambda v: corpus.split(heldout=v),
        "train(iterations)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=2, iterations=v),
        "train(model)": lambda v: tealeaves.train(corpus, v, k=2),
        "auto_word_intrusion(c)": lambda v: tealeaves.auto_word_intrusion(model, index, c=v),
        "auto_word_intrusion(folds)": lambda v: tealeaves.auto_word_intrusion(model, index, folds=v),
        "auto_word_intrusion(protocol)": lambda v: tealeaves.auto_word_intrusion(model, index, protocol=v),
        "auto_word_intrusion(association)": lambda v: tealeaves.auto_word_intrusion(model, index, association=v),
        "auto_word_intrusion(draws)": lambda v: tealeaves.auto_word_intrusion(model, index, draws=v),
        "estimate(variant)": lambda v: estimate(model, None, corpus, variant=v, particles=2),
        "estimate(schedule)": lambda v: estimate(model, None, corpus, method="ais", schedule=v, temperatures=5),
        "estimate(on_missing)": lambda v: estimate(model, None, corpus, on_missing=v, particles=2),
        "complete(split)": lambda v: complete(model, None, corpus, split=v, particles=2),
        "halves(mode)": lambda v: corpus.halves(v),
        "top_words(n)": lambda v: model.top_words(v),
        "infer(on_missing)": lambda v: model.infer(corpus, on_missing=v),
        "train(k)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=v, iterations=2),
        "train(seed)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=2, seed=v, iterations=2),
        "lda-gibbs(sampler)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=2, sampler=v, iterations=2),
        "lda-vb(method)": lambda v: tealeaves.train(corpus, "lda-vb", k=2, method=v, iterations=2),
        "create_study(protocol)": lambda v: tealeaves.create_study({"a": model}, "word-intrusion", protocol=v),
        "create_study(scale)": lambda v: tealeaves.create_study({"a": model}, "rating", scale=v),
    }


def test_a_value_of_the_wrong_type_or_range_is_a_tealeaves_error(inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    raw = []
    for (name, call), (kind, value) in itertools.product(calls(*inputs).items(), WRONG.items()):
        try:
            call(value)
        except TealeavesError:
            pass
        except Exception as error:  # what the test looks for
            raw.append(f"{name} <- {kind}: {type(error).__name__}: {error}")
    assert raw == []
