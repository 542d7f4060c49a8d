"""Word intrusion by word vectors: the same sets as WI-Auto, the farthest word picked, ties shared."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.errors import InputError
from tealeaves.intrusion import IntruderSet, IntruderSets, embedding_word_intrusion, intruder_sets

from ..coherence.test_embedding import DIM, TableEncoder


def clustered_table(n_topics: int, per_topic: int, spread: float, seed: int = 0):
    """Each topic's words near its own random direction; returns the table and the topics."""
    rng = np.random.default_rng(seed)
    table, topics = {}, []
    for k in range(n_topics):
        centre = rng.normal(size=DIM) * 3
        words = [f"t{k}w{i}" for i in range(per_topic)]
        for w in words:
            table[w] = (centre + spread * rng.normal(size=DIM)).astype(np.float32).astype(np.float64)  # as cached
        topics.append(words)
    return table, topics


def test_sets_are_wi_autos_and_the_pick_is_the_word_farthest_from_the_others(tmp_path):
    table, topics = clustered_table(6, 12, spread=4.0)
    result = embedding_word_intrusion(topics, TableEncoder(table, tmp_path), seed=7, draws=5)
    sets = intruder_sets(topics, 5, "chang", 50, 10, 7)
    assert result.to_frame()["words"].tolist() == [" ".join(s.words) for s in sets]
    hits = []
    for s, row in zip(sets, result.similarity):
        vectors = np.array([table[w] for w in s.words])
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        mean_cos = [np.mean([unit[i] @ unit[j] for j in range(6) if j != i]) for i in range(6)]
        np.testing.assert_allclose(row, mean_cos, atol=1e-12)
        hits.append(float(np.argmin(mean_cos) == s.intruder_position))
    per_topic = [np.mean(hits[k * 5 : (k + 1) * 5]) for k in range(6)]
    np.testing.assert_allclose(result.per_topic, per_topic)
    assert result.model_mean == pytest.approx(np.mean(per_topic))
    assert result.settings["draws"] == 5 and result.encoder["coverage"] == 1.0
    assert result.topics_frame()["sets"].tolist() == [5] * 6


def test_tight_topics_are_always_solved_and_loose_ones_near_chance(tmp_path):
    tight_table, tight = clustered_table(8, 12, spread=0.05, seed=1)
    tight_result = embedding_word_intrusion(tight, TableEncoder(tight_table, tmp_path), draws=10)
    assert tight_result.model_mean == 1.0
    shares = []
    for seed in range(3):  # words of no topic: each of the six is the farthest with probability 1/6
        rng = np.random.default_rng(seed)
        loose = [[f"r{k}w{i}" for i in range(12)] for k in range(200)]
        loose_table = {w: rng.normal(size=DIM).astype(np.float32).astype(np.float64) for t in loose for w in t}
        encoder = TableEncoder(loose_table, tmp_path / str(seed))
        shares.append(embedding_word_intrusion(loose, encoder, seed=seed, draws=3).model_mean)
    assert abs(np.mean(shares) - 1 / 6) < 0.035  # 1,800 sets in 600 topics: about 3 standard errors


def test_ready_made_sets_ties_and_missing_words(tmp_path):
    table = {w: np.eye(DIM)[0] for w in ("a", "b", "c", "d", "e", "f")}  # all identical: a six-way tie
    sets = IntruderSets((IntruderSet(0, 0, ("a", "b", "c", "d", "e", "f"), 2, 1, 10),), "chang", 50, 10, 0)
    result = embedding_word_intrusion(sets, TableEncoder(table, tmp_path))
    assert result.per_topic.tolist() == pytest.approx([1 / 6])
    with_oov = IntruderSets((IntruderSet(0, 0, ("a", "b", "oov", "d", "e", "f"), 2, 1, 10),), "chang", 50, 10, 0)
    with pytest.raises(InputError, match="'oov' \\(topic 0\\)"):
        embedding_word_intrusion(with_oov, TableEncoder(table, tmp_path))
    zero = embedding_word_intrusion(with_oov, TableEncoder(table, tmp_path), on_missing="zero")
    assert zero.per_topic.tolist() == [1.0] and zero.missing == ((0, "oov", "not represented by the encoder"),)
    assert zero.encoder["coverage"] == pytest.approx(5 / 6)
