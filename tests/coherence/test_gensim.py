"""compat="gensim" reproduces gensim 4.x's CoherenceModel per topic on AP and 20 Newsgroups samples.

gensim is a test dependency. Its CoherenceModel counts windows with its own accumulator
(``processes=1``: the parallel accumulator gives the same counts); tealeaves counts them from
the index. Each topic's value must agree within 1e-9.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from tealeaves.coherence import RefIndex, score
from tealeaves.corpus import prepare
from tealeaves.models import train

gensim_coherence = pytest.importorskip("gensim.models.coherencemodel")
gensim_corpora = pytest.importorskip("gensim.corpora")

CASES = [("c_npmi", "npmi", 10), ("c_uci", "uci", 10), ("u_mass", "umass", None), ("c_v", "cv", 110)]


def reference_setup(corpus, k, seed):
    model = train(corpus, k=k, seed=seed, iterations=60, optimize_burn_in=20)
    texts = [[corpus.vocab.word(int(t)) for t in corpus.doc(i)] for i in range(len(corpus))]
    return RefIndex.build(corpus), model.top_words(10), texts, gensim_corpora.Dictionary([list(corpus.vocab.words)])


@pytest.fixture(scope="module")
def ap(shared_data):
    return reference_setup(prepare(shared_data / "ap" / "ap.txt"), k=20, seed=1)


@pytest.fixture(scope="module")
def news(shared_data, tmp_path_factory):
    sample = tmp_path_factory.mktemp("20news") / "sample.jsonl"
    with gzip.open(shared_data / "20news" / "20news-bydate.jsonl.gz", "rt", encoding="utf-8") as handle:
        lines = [line for i, line in enumerate(handle) if i % 8 == 0]
    sample.write_text("".join(lines), encoding="utf-8")
    assert len(lines) > 2000 and all(json.loads(line)["text"] for line in lines[:5])
    return reference_setup(prepare(sample), k=20, seed=2)


def gensim_per_topic(topics, texts, dictionary, coherence, window):
    model = gensim_coherence.CoherenceModel(
        topics=topics, texts=texts, dictionary=dictionary, coherence=coherence, window_size=window, processes=1
    )
    return np.array(model.get_coherence_per_topic())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ap", "news"])
@pytest.mark.parametrize(("coherence", "measure", "window"), CASES)
def test_compat_gensim_equals_coherence_model(request, name, coherence, measure, window):
    index, topics, texts, dictionary = request.getfixturevalue(name)
    expected = gensim_per_topic(topics, texts, dictionary, coherence, window)
    result = score(topics, index, measure=measure, window=window, compat="gensim")
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(result.per_topic, expected, rtol=0, atol=1e-9)
    if window is not None:  # gensim's undercount shows: exact counting gives other values
        exact = score(topics, index, measure=measure, window=window, conventions={"epsilon": 1e-12})
        assert np.max(np.abs(exact.per_topic - expected)) > 1e-6
