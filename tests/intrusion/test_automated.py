"""WI-Auto (Lau et al. 2014): near 1 for planted coherent topics, near 1/6 for random words, seeded, cross-validated."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tealeaves.coherence import RefIndex
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.intrusion import (
    auto_word_intrusion,
    compare_word_intrusion,
    first_place_share,
    fit_ranking_svm,
    intruder_sets,
)
from tealeaves.likelihood import synthetic_corpus
from tealeaves.models import TopicModel
from tealeaves.results import write_result

K, V, BLOCK = 20, 2000, 100


@pytest.fixture(scope="module")
def planted():
    """A known LDA whose topic k puts its mass on words 100k..100k+99, and a reference corpus drawn from it."""
    rng = np.random.default_rng(0)
    phi = np.full((K, V), 1e-4)
    for k in range(K):
        phi[k, k * BLOCK : (k + 1) * BLOCK] += rng.dirichlet(np.full(BLOCK, 0.5))
    phi /= phi.sum(axis=1, keepdims=True)
    model = TopicModel(Vocabulary([f"w{i:04d}" for i in range(V)]), phi, alpha=np.full(K, 0.1))
    index = RefIndex.build(synthetic_corpus(model, model.alpha, n_docs=2000, doc_length=100, seed=1))
    return model, index


def random_topics(vocab, seed):
    rng = np.random.default_rng(seed)
    return [list(rng.choice(np.array(vocab.words), 60, replace=False)) for _ in range(K)]


def test_planted_coherent_topics_score_near_one_and_random_words_near_one_sixth(planted):
    model, index = planted
    coherent = auto_word_intrusion(model, index, seed=0)
    assert coherent.model_means["wi_auto_pmi"] >= 0.95 and coherent.model_means["wi_auto_npmi"] >= 0.95
    assert coherent.per_topic.min() >= 0.75
    means = []
    for s in range(16):
        words = random_topics(model.vocab, s)
        alone = auto_word_intrusion(words, index, seed=s)
        pooled = compare_word_intrusion({"planted": model, "random": words}, index, seed=s)  # SVMs learn from both
        assert pooled["planted"].model_means["wi_auto_pmi"] >= 0.95
        means.append([r.model_means[m] for r in (alone, pooled["random"]) for m in ("wi_auto_pmi", "wi_auto_npmi")])
    # 16 seeds x 20 topics x 8 draws; a seed's mean has sd about 0.045 (the draws of a topic share its 5 words)
    assert np.all(np.abs(np.mean(means, axis=0) - 1 / 6) < 0.04), means
    assert np.max(means) < 0.35


def test_indistinguishable_words_score_exactly_chance(planted):
    """When no two words ever share a window every feature ties, and each set counts 1/6."""
    model, _ = planted
    lonely = Corpus.from_documents([np.array([w], dtype=np.int32) for w in range(V)], model.vocab)
    result = auto_word_intrusion(model, RefIndex.build(lonely), seed=0, draws=3)
    for a in ("pmi", "npmi"):
        np.testing.assert_array_equal(result.wi_auto[a], np.full(K, 1 / 6))
        np.testing.assert_array_equal(result.baseline[a], np.full(K, 1 / 6))


def test_sets_are_the_shared_generators_and_folds_split_by_topic(planted):
    model, index = planted
    result = auto_word_intrusion(model, index, seed=4, draws=5, folds=10)
    frame = result.to_frame()
    sets = intruder_sets(model, draws=5, seed=4).to_frame()
    assert list(frame["words"]) == list(sets["words"]) and list(frame["intruder"]) == list(sets["intruder"])
    assert (frame.groupby("topic")["fold"].nunique() == 1).all()  # all draws of a topic in one fold
    assert sorted(np.bincount(result.fold_of_topic)) == [2] * 10
    np.testing.assert_array_equal(frame["fold"], result.fold_of_topic[frame["topic"]])


def test_each_fold_is_ranked_by_an_svm_trained_on_the_other_folds(planted):
    """Recompute every fold's SVM from the features by hand and compare weights, scores and hits."""
    model, index = planted
    result = auto_word_intrusion(random_topics(model.vocab, 0), index, seed=2, draws=4, folds=5, c=0.5)
    frame = result.to_frame()
    raw = result.features
    norm = features_of(result)
    target = frame["intruder_position"].to_numpy()
    grades = np.eye(6, dtype=int)[target]
    for a, column in (("pmi", 0), ("npmi", 1)):
        x = norm[:, :, [column, 2, 3]]
        for f in range(5):
            held = frame["fold"].to_numpy() == f
            svm = fit_ranking_svm(x[~held], grades[~held], c=0.5)
            np.testing.assert_allclose(result.weights[a][f], svm.weights, rtol=1e-12)
            np.testing.assert_allclose(result.scores[a][held], x[held] @ svm.weights, rtol=1e-12)
        best = result.scores[a].max(axis=1, keepdims=True) == result.scores[a]
        expected = best[np.arange(len(target)), target] / best.sum(axis=1)
        np.testing.assert_allclose(frame[f"hit_{a}"], expected)
        per_topic = frame.groupby("topic")[f"hit_{a}"].mean().to_numpy()
        np.testing.assert_allclose(result.wi_auto[a], per_topic)
        assert result.model_means[f"wi_auto_{a}"] == pytest.approx(per_topic.mean())
        # the baseline: the word with the lowest mean association with the other five
        association = raw[:, :, column]
        lowest = association == association.min(axis=1, keepdims=True)
        np.testing.assert_allclose(frame[f"baseline_hit_{a}"], lowest[np.arange(len(target)), target] / lowest.sum(1))
    assert result.per_topic is result.wi_auto["pmi"] and result.model_mean == result.model_means["wi_auto_pmi"]


def test_first_place_share_splits_ties():
    scores = np.array([[3.0, 1.0, 3.0, 0.0], [1.0, 2.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0], [0.0, 0.0, 0.0, 9.0]])
    share, pick = first_place_share(scores, np.array([0, 1, 2, 0]))
    np.testing.assert_array_equal(share, [0.5, 1.0, 0.25, 0.0])
    np.testing.assert_array_equal(pick, [0, 1, 0, 3])


def test_same_seed_same_result_and_every_input_form(planted):
    model, index = planted
    a = auto_word_intrusion(model, index, seed=7, draws=3)
    b = auto_word_intrusion(model, index, seed=7, draws=3)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    assert not a.to_frame()["intruder"].equals(
        auto_word_intrusion(model, index, seed=8, draws=3).to_frame()["intruder"]
    )
    lists = [list(t) for t in model.top_words(50)]
    for other in (model.topics(50), lists, intruder_sets(model, draws=3, seed=7)):
        same = auto_word_intrusion(other, index, seed=7, draws=3)
        pd.testing.assert_frame_equal(same.to_frame(), a.to_frame())
        np.testing.assert_array_equal(same.per_topic, a.per_topic)
    npmi = auto_word_intrusion(model, index, seed=7, draws=3, association="npmi")
    assert npmi.per_topic is npmi.wi_auto["npmi"] and npmi.association == "npmi"
    assert a.topics[0] == tuple(model.top_words(5)[0])


def test_outputs_round_trip(planted, tmp_path):
    model, index = planted
    result = auto_word_intrusion(model, index, seed=0, draws=2)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["per_topic"] == result.per_topic.tolist()
    assert data["settings"]["c"] == 0.01 and data["settings"]["window"] == "sliding:20"
    assert data["settings"]["folds"] == 10 and data["settings"]["draws"] == 2
    assert abs(data["settings"]["svm_duality_gap"]) < 1e-9  # every fold's SVM solved to optimality
    write_result(result, tmp_path / "wi.csv")
    back = pd.read_csv(tmp_path / "wi.csv")
    assert len(back) == K * 2 and {"topic", "draw", "fold", "hit_pmi", "hit_npmi", "baseline_hit_pmi"} <= set(back)
    np.testing.assert_allclose(back.groupby("topic")["hit_pmi"].mean(), result.per_topic)
    words = result.words_frame()
    assert len(words) == K * 2 * 6 and words["intruder"].sum() == K * 2
    topics = result.topics_frame()
    np.testing.assert_array_equal(topics["wi_auto_npmi"], result.wi_auto["npmi"])


def test_progress_and_bad_input(planted):
    model, index = planted
    seen = []
    auto_word_intrusion(model, index, seed=0, draws=1, folds=4, progress=seen.append)
    assert seen[-1].done == seen[-1].total == 1 + 2 * 4 and seen[0].task == "word intrusion"
    with pytest.raises(InputError, match="folds"):
        auto_word_intrusion(model, index, folds=1)
    with pytest.raises(InputError, match="association"):
        auto_word_intrusion(model, index, association="lcp")
    with pytest.raises(InputError, match="C must be"):
        auto_word_intrusion(model, index, c=-1)
    with pytest.raises(InputError, match="at least two topics"):
        auto_word_intrusion([model.top_words(60)[0]], index)
    some = intruder_sets(model, draws=1, seed=0)
    partial = type(some)(tuple(s for s in some if s.topic != 3), "chang", 50, 10, 0)
    with pytest.raises(InputError, match=r"topic\(s\) \[3\]"):
        auto_word_intrusion(partial, index)
    with pytest.raises(InputError, match="missing from the reference index"):
        auto_word_intrusion(
            [["zz1", "zz2", "zz3", "zz4", "zz5", "zz6"], ["w0001", "w0002", "w0003", "w0004", "w0005"]], index
        )


def test_compared_models_share_one_svm_per_fold(planted):
    """Pooled folds over the topics of all models; each fold's SVM trained on every other fold's sets."""
    model, index = planted
    models = {"planted": model, "random": random_topics(model.vocab, 3)}
    comparison = compare_word_intrusion(models, index, seed=5, draws=3, folds=7, c=2.0)
    assert list(comparison.results) == ["planted", "random"]
    planted_result, random_result = comparison["planted"], comparison["random"]
    for name, result in comparison.results.items():
        alone = auto_word_intrusion(models[name], index, seed=5, draws=3)
        assert list(result.to_frame()["words"]) == list(alone.to_frame()["words"])  # the same sets as alone
        assert result.settings["models"] == ["planted", "random"] and result.settings["folds"] == 7
    folds = np.concatenate([planted_result.fold_of_topic, random_result.fold_of_topic])
    assert sorted(np.bincount(folds)) == [5, 5, 6, 6, 6, 6, 6]  # 40 topics in 7 folds
    x = {
        a: np.concatenate([features_of(r)[:, :, [col, 2, 3]] for r in (planted_result, random_result)])
        for a, col in (("pmi", 0), ("npmi", 1))
    }
    frame = comparison.to_frame()
    fold = frame["fold"].to_numpy()
    grades = np.eye(6, dtype=int)[frame["intruder_position"].to_numpy()]
    for a in ("pmi", "npmi"):
        for f in range(7):
            svm = fit_ranking_svm(x[a][fold != f], grades[fold != f], c=2.0)
            np.testing.assert_allclose(planted_result.weights[a][f], svm.weights, rtol=1e-12)
            both = np.concatenate([planted_result.scores[a], random_result.scores[a]])
            np.testing.assert_allclose(both[fold == f], x[a][fold == f] @ svm.weights, rtol=1e-12)
    assert planted_result.model_means["wi_auto_pmi"] > 0.95 > 0.5 > random_result.model_means["wi_auto_pmi"]
    assert list(frame["model"].unique()) == ["planted", "random"] and len(frame) == 2 * K * 3
    means = comparison.models_frame().set_index("model")
    assert means.loc["random", "wi_auto_npmi"] == random_result.model_means["wi_auto_npmi"]
    data = json.loads(json.dumps(comparison.to_dict()))
    assert data["models"]["planted"]["per_topic"] == planted_result.per_topic.tolist()
    single = compare_word_intrusion({"only": model}, index, seed=5, draws=3)["only"]
    pd.testing.assert_frame_equal(single.to_frame(), auto_word_intrusion(model, index, seed=5, draws=3).to_frame())
    with pytest.raises(InputError, match="compare_word_intrusion"):
        auto_word_intrusion(models, index)
    with pytest.raises(InputError, match="non-empty mapping"):
        compare_word_intrusion({}, index)


def features_of(result):
    """The min-max normalised features, recomputed from the raw ones of a result."""
    raw = result.features
    low, span = raw.min(axis=1, keepdims=True), np.ptp(raw, axis=1, keepdims=True)
    return np.where(span > 0, (raw - low) / np.where(span > 0, span, 1), 0.0)
