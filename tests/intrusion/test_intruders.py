"""Intruder sets follow Chang et al. 2009 §3.1 (and Hoyle et al. 2021's variant) exactly."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tealeaves.corpus import Vocabulary
from tealeaves.errors import InputError
from tealeaves.intrusion import intruder_sets
from tealeaves.models import TopicModel


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(0)
    v, k = 300, 6
    phi = rng.dirichlet(np.full(v, 0.05), size=k) + 1e-9
    phi /= phi.sum(axis=1, keepdims=True)
    return TopicModel(Vocabulary([f"w{i:03d}" for i in range(v)]), phi)


def ranks(model):
    order = np.argsort(-model.phi, axis=1, kind="stable")
    rank = np.empty_like(order)
    for k in range(model.k):
        rank[k, order[k]] = np.arange(model.phi.shape[1])
    return rank


def test_chang_sets_are_top5_plus_a_qualifying_intruder(model):
    sets = intruder_sets(model, draws=20, seed=1)
    rank = ranks(model)
    assert len(sets) == 6 * 20
    for s in sets:
        ids = [model.vocab.id(w) for w in s.words]
        assert len(set(ids)) == 6
        assert sorted(rank[s.topic, i] for i in ids if model.vocab.word(i) != s.intruder) == [0, 1, 2, 3, 4]
        intruder = model.vocab.id(s.intruder)
        assert rank[s.topic, intruder] >= 50  # low probability in this topic
        assert s.intruder_topic != s.topic and rank[s.intruder_topic, intruder] < 10  # high in another
    positions = Counter(s.intruder_position for s in sets)
    assert set(positions) == set(range(6))  # shuffled: the intruder appears at every position


def test_hoyle_sets_draw_5_of_the_top_10(model):
    rank = ranks(model)
    seen = set()
    for s in intruder_sets(model, draws=30, protocol="hoyle", seed=2):
        own = [rank[s.topic, model.vocab.id(w)] for w in s.topic_words]
        assert len(own) == 5 and max(own) < 10
        seen.update(own)
    assert seen == set(range(10))


def test_intruders_are_drawn_uniformly_from_the_pool(model):
    rank = ranks(model)
    topic = 0
    pool = {
        model.vocab.word(w)
        for w in range(model.phi.shape[1])
        if rank[topic, w] >= 50 and any(rank[j, w] < 10 for j in range(model.k) if j != topic)
    }
    drawn = Counter(s.intruder for s in intruder_sets(model, draws=3000, seed=3) if s.topic == topic)
    assert set(drawn) == pool
    expected = 3000 / len(pool)
    assert max(abs(c - expected) for c in drawn.values()) < 5 * np.sqrt(expected)


def test_same_seed_same_sets(model):
    a = intruder_sets(model, draws=2, seed=9).to_frame()
    b = intruder_sets(model, draws=2, seed=9).to_frame()
    assert a.equals(b)
    assert not a.equals(intruder_sets(model, draws=2, seed=10).to_frame())


def test_word_lists_without_probabilities():
    topics = [[f"a{i}" for i in range(12)], [f"b{i}" for i in range(12)], [f"c{i}" for i in range(12)]]
    for s in intruder_sets(topics, draws=5, seed=0):
        prefix = "abc"[s.topic]
        assert [w[0] for w in s.topic_words] == [prefix] * 5
        assert s.intruder[0] != prefix and int(s.intruder[1:]) < 10


def test_tiny_models_widen_the_pool_and_record_it():
    topics = [["x", "y", "z", "u", "v", "w"], ["x", "y", "z", "u", "v", "q"]]
    sets = intruder_sets(topics, seed=0, low_rank=5, high_rank=1)
    assert [s.intruder for s in sets] == ["q", "w"]  # the only words outside the other's top 5
    assert [s.high_rank_used for s in sets] == [8, 8]  # 1 -> 2 -> 4 -> 8 reaches rank 6
    with pytest.raises(InputError, match="no intruder"):
        intruder_sets([["a", "b", "c", "d", "e"], ["a", "b", "c", "d", "e"]])
    # a model of 30 words: every word is among each topic's top 50, where no intruder may be (it said "among its
    # top words", not which rule or how to lower it); low_rank=20 leaves 10 words to draw from
    rng = np.random.default_rng(0)
    small = TopicModel(Vocabulary([f"w{i}" for i in range(30)]), rng.dirichlet(np.ones(30), size=4))
    with pytest.raises(InputError, match=r"among its top 50 words, where an intruder may not be \(low_rank=50\)"):
        intruder_sets(small)
    assert len(intruder_sets(small, low_rank=20)) == 4
    with pytest.raises(InputError, match="at least two topics"):
        intruder_sets([["a", "b", "c", "d", "e"]])
    with pytest.raises(InputError, match="protocol"):
        intruder_sets(topics, protocol="mine")
