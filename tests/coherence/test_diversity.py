"""Diversity measures against hand-computed values and independent formulas."""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pytest

from tealeaves.coherence import (
    TopNCappedWarning,
    diversity,
    duplicate_topics,
    inverted_rbo,
    rank_biased_overlap,
    shared_top_words,
    topic_diversity,
    topic_uniqueness,
)
from tealeaves.corpus import Vocabulary
from tealeaves.errors import InputError
from tealeaves.models import TopicModel, Topics

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


def test_filter_a_flags_identical_top5_sets_not_shared_words():
    distinct = [[f"t{k}w{i}" for i in range(10)] for k in range(4)]
    clean = diversity(distinct, diversity_topn=10)
    assert not clean.redundant and clean.duplicate_topics == () and clean.filter_a and clean.topic_uniqueness == 1.0
    shared_top = [topic[:] for topic in distinct]
    shared_top[2][:4] = distinct[0][:4]  # four of five top words shared: a diagnostic, not redundant
    result = diversity(shared_top, diversity_topn=10)
    assert not result.redundant and result.duplicate_topics == ()
    assert result.shared_top_words == ((0, 2, ("t0w0", "t0w1", "t0w2", "t0w3")),)
    assert shared_top_words(shared_top, topn=5) == result.shared_top_words
    duplicated = [topic[:] for topic in distinct]
    duplicated[3][:5] = reversed(distinct[1][:5])  # the same top-5 set in another order; deeper words differ
    result = diversity(duplicated, diversity_topn=10)
    assert result.redundant and not result.filter_a and result.duplicate_topics == ((1, 3),)
    frame = result.to_frame()
    assert (
        frame.loc[1, "duplicate_of"] == "3"
        and frame.loc[3, "duplicate_of"] == "1"
        and frame.loc[0, "duplicate_of"] == ""
    )
    assert frame.loc[1, "shares_top_words_with"] == "3"
    assert not diversity(duplicated, diversity_topn=10, filter_topn=6).redundant  # the 6th words differ


@pytest.mark.parametrize("seed", range(5))
def test_duplicate_topics_are_the_pairs_with_equal_top_sets(seed):
    rng = np.random.default_rng(seed)
    pool = [f"w{i}" for i in range(7)]
    topics = [list(rng.choice(pool, 6, replace=False)) for _ in range(12)]  # many repeated top-3 sets
    expected = tuple(
        (a, b) for a, b in itertools.combinations(range(12), 2) if sorted(topics[a][:3]) == sorted(topics[b][:3])
    )
    assert expected and duplicate_topics(topics, topn=3) == expected


def test_filter_b_is_uniqueness_of_the_top_5_for_etm_by_default():
    # unique top-1 words, the next nine shared by all three topics: no duplicate top-5 set
    repetitive = [[f"t{k}x"] + [f"w{i}" for i in range(9)] for k in range(3)]
    plain = diversity(repetitive, diversity_topn=10)
    assert plain.filter_uniqueness == pytest.approx((1 + 4 / 3) / 5) and not plain.filter_b
    assert plain.topic_uniqueness == pytest.approx((1 + 9 / 3) / 10)  # the top 10, as Nan et al.
    assert plain.filter_a and not plain.uniqueness_filter and not plain.redundant  # word lists have no kind
    assert diversity(repetitive, diversity_topn=10, uniqueness_filter=True).redundant
    etm = diversity(Topics(tuple(map(tuple, repetitive)), meta={"model": "etm"}), diversity_topn=10)
    assert etm.uniqueness_filter and etm.redundant
    lda = diversity(Topics(tuple(map(tuple, repetitive)), meta={"model": "lda-gibbs"}), diversity_topn=10)
    assert not lda.uniqueness_filter and not lda.redundant
    assert not diversity(repetitive, diversity_topn=10, uniqueness_filter=True, min_uniqueness=0.4).redundant


# Hoyle et al.'s notebook (ahoho/topics runs/collect-runs.ipynb) prints the topic uniqueness over the top 5
# words of each model it selected
PUBLISHED_TU = {
    ("wikitext", "mallet"): 0.760,
    ("wikitext", "dvae"): 0.940,
    ("wikitext", "etm"): 0.940,
    ("nytimes", "mallet"): 0.816,
    ("nytimes", "dvae"): 0.960,
    ("nytimes", "etm"): 0.904,
}


@pytest.mark.parametrize(("dataset", "model"), sorted(PUBLISHED_TU))
def test_the_six_published_models_pass_the_filters_with_the_printed_uniqueness(shared_data, dataset, model):
    path = shared_data / "human" / "hoyle2021" / "all_data.json"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    words = json.loads(path.read_text(encoding="utf-8"))[dataset][model]["topics"]
    topics = Topics(tuple(map(tuple, words)), meta={"model": {"mallet": "lda-gibbs"}.get(model, model)})
    for applied in (None, True):  # per type, as the notebook, and on every model
        result = diversity(topics, diversity_topn=20, uniqueness_filter=applied)
        assert not result.redundant and result.duplicate_topics == ()
    assert round(result.filter_uniqueness, 3) == PUBLISHED_TU[dataset, model]
    assert result.shared_top_words  # the reading "no top-5 word shared" would have removed every one


def test_diversity_of_a_model_uses_its_ranked_words():
    rng = np.random.default_rng(1)
    phi = rng.dirichlet(np.full(60, 0.1), size=5)
    model = TopicModel(Vocabulary([f"v{i}" for i in range(60)]), phi)
    result = diversity(model)
    assert result.topic_diversity == topic_diversity(model.top_words(25), topn=25)
    np.testing.assert_allclose(result.per_topic, topic_uniqueness(model.top_words(10)))
    with pytest.raises(InputError, match="fewer than the 25"):  # a number asked for is a number required
        diversity(model.top_words(10), diversity_topn=25)


def test_default_top_n_is_capped_at_what_a_topic_list_holds():
    """The getting-started recipe runs `tealeaves diversity` on a topic file of ten words a topic: the defaults
    (25 for topic diversity) are capped at the shortest topic, with a warning naming each, and the result says
    what was used."""
    topics = [[f"w{k}_{i}" for i in range(10)] for k in range(3)] + [[f"s{i}" for i in range(4)]]
    with pytest.warns(TopNCappedWarning) as caught:
        result = diversity(topics)
    message = str(caught[0].message)
    assert message.startswith(
        "the shortest topic has 4 words, so fewer top words are used: topic diversity over the top 4 (not 25)"
    )
    assert "topic uniqueness and inverted RBO over the top 4 (not 10)" in message
    assert "Hoyle et al.'s filters over the top 4 (not 5)" in message and message.endswith(
        "pass diversity_topn=<N> to choose"
    )
    assert (result.diversity_topn, result.uniqueness_topn, result.filter_topn, result.overlap_topn) == (4, 4, 4, 4)
    assert result.topic_diversity == topic_diversity(topics, topn=4) == 1.0
    assert next(iter(result.measures())) == "topic diversity (top 4)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert diversity([t[:10] for t in topics[:3]], diversity_topn=10).diversity_topn == 10  # given: no cap
