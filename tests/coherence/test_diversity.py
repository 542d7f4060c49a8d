"""Diversity measures against hand-computed values and independent formulas."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tealeaves.coherence import (
    diversity,
    inverted_rbo,
    rank_biased_overlap,
    shared_top_words,
    topic_diversity,
    topic_uniqueness,
)
from tealeaves.corpus import Vocabulary
from tealeaves.errors import InputError
from tealeaves.models import TopicModel

TOPICS = [["a", "b", "c", "d"], ["a", "e", "f", "g"], ["h", "i", "b", "a"]]


def test_topic_diversity_is_the_unique_share_of_top_words():
    assert topic_diversity(TOPICS, topn=4) == 9 / 12
    assert topic_diversity(TOPICS, topn=2) == 5 / 6
    assert topic_diversity([["x", "y"], ["y", "x"]], topn=2) == 0.5


def test_topic_uniqueness_counts_how_many_topics_share_each_word():
    tu = topic_uniqueness(TOPICS, topn=4)
    # a is in 3 topics, b in 2, the rest in 1
    np.testing.assert_allclose(tu, [(1 / 3 + 1 / 2 + 1 + 1) / 4, (1 / 3 + 3) / 4, (2 + 1 / 2 + 1 / 3) / 4])
    assert topic_uniqueness([["x", "y"]] * 3, topn=2).tolist() == [1 / 3] * 3


def rbo_by_definition(first, second, p, depth=4000):
    """RBO_ext as Webber et al. define it: agreement at depth d beyond the lists held at X_k / k."""
    k = len(first)
    total = 0.0
    for d in range(1, depth + 1):
        agreement = len(set(first[:d]) & set(second[:d])) / d if d <= k else len(set(first) & set(second)) / k
        total += p ** (d - 1) * agreement
    return (1 - p) * total


@pytest.mark.parametrize("seed", range(5))
def test_rbo_matches_its_definition(seed):
    rng = np.random.default_rng(seed)
    pool = [f"w{i}" for i in range(15)]
    first, second = list(rng.choice(pool, 10, replace=False)), list(rng.choice(pool, 10, replace=False))
    for p in (0.5, 0.9, 0.98):
        assert rank_biased_overlap(first, second, p) == pytest.approx(rbo_by_definition(first, second, p), abs=1e-12)


def test_rbo_extremes_and_top_weighting():
    assert rank_biased_overlap(list("abcd"), list("abcd")) == pytest.approx(1.0)
    assert rank_biased_overlap(list("abcd"), list("efgh")) == 0.0
    assert rank_biased_overlap(list("abcd"), list("abdc")) > rank_biased_overlap(list("abcd"), list("bacd"))
    with pytest.raises(InputError):
        rank_biased_overlap(list("abc"), list("ab"))
    with pytest.raises(InputError):
        rank_biased_overlap(list("ab"), list("ab"), p=1.0)


def test_inverted_rbo_is_one_minus_the_mean_pairwise_rbo():
    expected = 1 - np.mean([rank_biased_overlap(a, b, 0.9) for a, b in itertools.combinations(TOPICS, 2)])
    assert inverted_rbo(TOPICS, topn=4) == pytest.approx(expected)
    assert inverted_rbo([list("abc"), list("def")], topn=3) == 1.0
    with pytest.raises(InputError, match="two topics"):
        inverted_rbo([list("abc")], topn=3)


def test_hoyles_filter_flags_shared_top5_words_and_low_uniqueness():
    distinct = [[f"t{k}w{i}" for i in range(10)] for k in range(4)]
    clean = diversity(distinct, diversity_topn=10)
    assert not clean.redundant and clean.shared_top_words == () and clean.topic_uniqueness == 1.0
    shared_deep = [topic[:] for topic in distinct]
    shared_deep[1][7] = "t0w8"  # shared below the top 5: allowed
    assert not diversity(shared_deep, diversity_topn=10).redundant
    shared_top = [topic[:] for topic in distinct]
    shared_top[2][4] = "t0w1"
    result = diversity(shared_top, diversity_topn=10)
    assert result.redundant and result.shared_top_words == ((0, 2, ("t0w1",)),)
    assert shared_top_words(shared_top, topn=5) == result.shared_top_words
    frame = result.to_frame()
    assert frame.loc[0, "shares_top_words_with"] == "2" and frame.loc[2, "shares_top_words_with"] == "0"
    repetitive = [[f"t{k}x"] + [f"w{i}" for i in range(9)] for k in range(3)]  # unique top-1, shared rest
    low = diversity(repetitive, diversity_topn=10, overlap_topn=1)
    assert low.shared_top_words == () and low.topic_uniqueness == pytest.approx((1 + 9 / 3) / 10)
    assert low.redundant  # TU 0.4 is not above 0.7
    assert not diversity(repetitive, diversity_topn=10, overlap_topn=1, min_uniqueness=0.3).redundant


def test_diversity_of_a_model_uses_its_ranked_words():
    rng = np.random.default_rng(1)
    phi = rng.dirichlet(np.full(60, 0.1), size=5)
    model = TopicModel(Vocabulary([f"v{i}" for i in range(60)]), phi)
    result = diversity(model)
    assert result.topic_diversity == topic_diversity(model.top_words(25), topn=25)
    np.testing.assert_allclose(result.per_topic, topic_uniqueness(model.top_words(10)))
    with pytest.raises(InputError, match="fewer than the 25"):
        diversity(model.top_words(10))
