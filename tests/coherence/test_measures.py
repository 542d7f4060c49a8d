"""Every measure equals its formula computed independently, in plain Python, from brute-force counts."""

from __future__ import annotations

import json
import math
import tracemalloc

import numpy as np
import pytest

from tealeaves.coherence import MEASURES, Conventions, RefIndex, get_measure, score
from tealeaves.confirmation import cosine_rows
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.models import TopicModel, Topics
from tealeaves.results import write_result

from .test_counts import boolean_window_counts, context_counts, document_windows, lau_windows, sliding_windows

N_TYPES = 14
WORDS = [f"w{i}" for i in range(N_TYPES)]
TOPICS = [[3, 1, 4, 0, 5, 9], [2, 6, 5, 3, 8, 7], [10, 11, 12, 13, 0, 1]]


@pytest.fixture(scope="module")
def docs():
    rng = np.random.default_rng(5)
    groups = [range(0, 7), range(5, 12), range(10, 14)]  # words 12, 13 never meet words 0..9
    out = []
    for d in range(40):
        group = list(groups[d % 3])
        out.append([int(w) for w in rng.choice(group, size=rng.integers(3, 90))])
    return out


@pytest.fixture(scope="module")
def index(docs):
    return RefIndex.build(Corpus.from_documents(docs, Vocabulary(WORDS)))


def topics_as_words():
    return [[WORDS[i] for i in topic] for topic in TOPICS]


def brute(docs, window):
    kind, _, size = window.partition(":")
    if kind == "document":
        return boolean_window_counts(document_windows(docs), N_TYPES)
    if kind == "context":
        return context_counts(docs, int(size), N_TYPES)
    if kind == "lau":
        return boolean_window_counts(lau_windows(docs, int(size)), N_TYPES)
    return boolean_window_counts(sliding_windows(docs, int(size)), N_TYPES)


def npmi_value(n12, n1, n2, n, eps=0.0):
    p12 = n12 / n + eps
    if p12 == 0:
        return -1.0
    return math.log(p12 / ((n1 / n) * (n2 / n))) / -math.log(p12)


def pmi_value(n12, n1, n2, n, eps=0.0):
    return math.log((n12 / n + eps) / ((n1 / n) * (n2 / n)))


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def expected(measure, topic, counts, gamma=1):
    marginal, joint, n = counts
    m = len(topic)
    ordered = [(i, j) for i in range(m) for j in range(m) if i != j]
    preceding = [(i, j) for i in range(m) for j in range(i)]
    w = topic
    if measure == "npmi":
        values = [npmi_value(joint[w[i], w[j]], marginal[w[i]], marginal[w[j]], n) for i, j in ordered]
    elif measure == "uci":
        values = [pmi_value(joint[w[i], w[j]], marginal[w[i]], marginal[w[j]], n, 1e-12) for i, j in ordered]
    elif measure in ("umass", "lcp"):
        values = [math.log((joint[w[i], w[j]] + 1) / marginal[w[j]]) for i, j in preceding]
    elif measure == "cp1":
        values = [joint[w[i], w[j]] / marginal[w[j]] for i, j in preceding]
    elif measure == "cp2":
        values = [joint[w[i], w[j]] / marginal[w[i]] for i, j in preceding]
    elif measure == "cp":
        values = []
        for i, j in preceding:
            p12, p1, p2 = joint[w[i], w[j]] / n, marginal[w[i]] / n, marginal[w[j]] / n
            given, given_not = p12 / p2, (p1 - p12) / (1 - p2)
            values.append((given - given_not) / (given + given_not) if given + given_not > 0 else 0.0)
    elif measure in ("cv", "ca"):
        vec = [[npmi_value(joint[a, b], marginal[a], marginal[b], n, 1e-12) ** gamma for b in w] for a in w]
        if measure == "cv":
            whole = [sum(vec[i][k] for i in range(m)) for k in range(m)]
            values = [cosine(vec[i], whole) for i in range(m)]
        else:
            values = [cosine(vec[i], vec[j]) for i, j in ordered]
    elif measure == "ds":
        vec = [[pmi_value(joint[a, b], marginal[a], marginal[b], n) if joint[a, b] else 0.0 for b in w] for a in w]
        values = [cosine(vec[i], vec[j]) for i, j in ordered]
    return sum(values) / len(values), len(values)


DEFAULT_WINDOWS = {
    "npmi": "sliding:10",
    "uci": "sliding:10",
    "umass": "document",
    "lcp": "sliding:10",
    "cp1": "sliding:10",
    "cp2": "sliding:10",
    "cv": "sliding:110",
    "cp": "sliding:70",
    "ca": "context:5",
    "ds": "context:5",
}


@pytest.mark.parametrize("measure", sorted(MEASURES))
def test_measure_equals_its_formula_at_its_default_window(docs, index, measure):
    result = score(topics_as_words(), index, measure=measure)
    counts = brute(docs, DEFAULT_WINDOWS[measure])
    assert result.window == DEFAULT_WINDOWS[measure]
    for k, topic in enumerate(TOPICS):
        value, support = expected(measure, topic, counts)
        assert result.per_topic[k] == pytest.approx(value, rel=1e-12, abs=1e-12)
        assert result.support[0, k] == support
    assert result.model_mean == pytest.approx(np.mean(result.per_topic))
    assert result.n_windows == counts[2]


@pytest.mark.parametrize("measure", ["npmi", "cv", "cp1", "ds"])
@pytest.mark.parametrize("window", [3, 25])
def test_measures_at_other_windows(docs, index, measure, window):
    result = score(topics_as_words(), index, measure=measure, window=window)
    kind = "context" if measure == "ds" else "sliding"
    counts = brute(docs, f"{kind}:{window}")
    for k, topic in enumerate(TOPICS):
        assert result.per_topic[k] == pytest.approx(expected(measure, topic, counts)[0], rel=1e-12, abs=1e-12)


def test_npmi_of_pairs_that_never_co_occur_is_minus_one(index):
    result = score([["w12", "w0"], ["w13", "w1"]], index, measure="npmi")
    np.testing.assert_array_equal(result.per_topic, [-1.0, -1.0])
    assert set(result.to_frame()["count_joint"]) == {0}


def test_segments_hold_the_counts_behind_each_value(docs, index):
    result = score(topics_as_words(), index, measure="npmi")
    marginal, joint, n = brute(docs, "sliding:10")
    frame = result.to_frame()
    assert len(frame) == 3 * 30 and list(frame["topic"].unique()) == [0, 1, 2]
    for row in frame.itertuples():
        a, b = WORDS.index(row.w_prime), WORDS.index(row.w_star)
        assert (row.count_prime, row.count_star, row.count_joint) == (marginal[a], marginal[b], joint[a, b])
        assert row.value == pytest.approx(npmi_value(joint[a, b], marginal[a], marginal[b], n), abs=1e-12)
    topic_means = frame.groupby("topic")["value"].mean().to_numpy()
    np.testing.assert_allclose(topic_means, result.per_topic, rtol=1e-12)
    np.testing.assert_allclose(frame.groupby("topic")["value"].std(ddof=0).to_numpy(), result.std[0], rtol=1e-12)


def test_cv_segments_confirm_each_word_against_the_whole_topic(index):
    frame = score(topics_as_words(), index, measure="cv").to_frame()
    assert len(frame) == 18 and set(frame["w_star"]) == {"*"} and set(frame["count_joint"]) == {-1}


def test_several_topn_are_averaged(docs, index):
    result = score(topics_as_words(), index, measure="npmi", topn=[3, 4, 6])
    counts = brute(docs, "sliding:10")
    for k, topic in enumerate(TOPICS):
        per_n = [expected("npmi", topic[:n], counts)[0] for n in (3, 4, 6)]
        np.testing.assert_allclose(result.per_topic_by_topn[:, k], per_n, rtol=1e-12)
        assert result.per_topic[k] == pytest.approx(np.mean(per_n), rel=1e-12)
    assert result.topn == (3, 4, 6)
    frame = result.topics_frame()
    assert list(frame.columns[:3]) == ["topic", "value", "top3"] and "top6_support" in frame
    assert sorted(result.to_frame()["topn"].unique()) == [3, 4, 6]


def test_log_base_scales_logarithmic_measures_only(index):
    for measure, scales in [("uci", True), ("umass", True), ("npmi", False), ("cv", False)]:
        natural = score(topics_as_words(), index, measure=measure)
        base2 = score(topics_as_words(), index, measure=measure, conventions={"log_base": 2})
        factor = 1 / math.log(2) if scales else 1.0
        np.testing.assert_allclose(base2.per_topic, natural.per_topic * factor, rtol=1e-12)
        assert base2.conventions["log_base"] == 2 and natural.conventions["log_base"] == "e"


def test_unsmoothed_log_of_a_pair_that_never_co_occurs_is_refused_not_infinite(index):
    topics = [["w12", "w0", "w13"]]
    with pytest.raises(InputError, match="epsilon"):
        score(topics, index, measure="lcp", conventions={"smoothing": 0})
    zero = score(topics, index, measure="lcp", conventions={"smoothing": 0, "zero_pair": 0.0})
    assert np.isfinite(zero.per_topic).all()
    for name, value in (("epsilon", -1.0), ("smoothing", math.inf), ("smoothing", math.nan)):  # the one named
        with pytest.raises(InputError, match=rf"^coherence needs {name} finite and >= 0, got {value}$"):
            score(topics, index, measure="lcp", conventions={name: value})


UNRELATED = [12, 0, 13, 3, 10]  # words 12, 13 never meet 0 and 3: negative NPMI in the context vectors


@pytest.mark.parametrize("measure", ["cv", "ca"])
def test_fractional_gamma_is_refused_not_turned_into_zero(index, measure):
    # Defect 6: NPMI ** 0.5 of a negative NPMI was NaN, and cosine_rows mapped it to 0 (C_V 0.0)
    words = [[WORDS[i] for i in UNRELATED]]
    with pytest.raises(InputError, match="gamma must be a whole number"):
        score(words, index, measure=measure, conventions={"gamma": 0.5})
    with pytest.raises(InputError, match="gamma must be a whole number"):
        score(words, index, measure=measure, conventions=Conventions(gamma=1.5))


@pytest.mark.parametrize("measure", ["cv", "ca"])
@pytest.mark.parametrize("gamma", [1, 2, 3])
def test_context_vectors_raise_negative_npmi_to_whole_gamma(docs, index, measure, gamma):
    counts = brute(docs, DEFAULT_WINDOWS[measure])
    marginal, joint, n = counts
    assert min(npmi_value(joint[a, b], marginal[a], marginal[b], n, 1e-12) for a in UNRELATED for b in UNRELATED) < 0
    result = score([[WORDS[i] for i in UNRELATED]], index, measure=measure, conventions={"gamma": gamma})
    value, _ = expected(measure, UNRELATED, counts, gamma)
    assert result.per_topic[0] == pytest.approx(value, rel=1e-12, abs=1e-12)
    assert abs(value) > 0.01 and result.conventions["gamma"] == gamma


def test_cosine_rows_keeps_nan_and_scores_all_zero_rows_zero():
    a = np.array([[1.0, 0.0], [np.nan, 1.0], [0.0, 0.0], [-np.inf, 1.0]])
    b = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    values = cosine_rows(a, b)
    assert values[0] == pytest.approx(1 / math.sqrt(2), rel=1e-15)
    assert np.isnan(values[1]) and values[2] == 0.0 and np.isnan(values[3])


def test_a_conventions_object_overrides_only_what_it_sets(docs, index):
    # Defect 7: Conventions() replaced UMass's defaults, dropping its +1 smoothing
    words = topics_as_words()
    plain = score(words, index, measure="umass")
    counts = brute(docs, "document")
    for k, topic in enumerate(TOPICS):
        assert plain.per_topic[k] == pytest.approx(expected("umass", topic, counts)[0], rel=1e-12)
    empty = score(words, index, measure="umass", conventions=Conventions())
    np.testing.assert_array_equal(empty.per_topic, plain.per_topic)
    assert empty.conventions == plain.conventions and empty.conventions["smoothing"] == 1.0
    as_object = score(words, index, measure="umass", conventions=Conventions(log_base=2))
    as_dict = score(words, index, measure="umass", conventions={"log_base": 2})
    np.testing.assert_array_equal(as_object.per_topic, as_dict.per_topic)
    np.testing.assert_allclose(as_object.per_topic, plain.per_topic / math.log(2), rtol=1e-12)
    assert as_object.conventions["smoothing"] == 1.0
    unsmoothed = score(words, index, measure="umass", conventions=Conventions(smoothing=0.0, zero_pair=0.0))
    assert unsmoothed.conventions["smoothing"] == 0.0
    assert not np.allclose(unsmoothed.per_topic, plain.per_topic)
    assert Conventions(log_base=2).merged(Conventions(epsilon=1e-12)) == Conventions(log_base=2, epsilon=1e-12)
    with pytest.raises(InputError, match="Conventions or a dict"):
        score(words, index, measure="umass", conventions=[("log_base", 2)])


def test_skip_leaves_a_topic_with_too_few_known_words_unscored(index):
    # Defect 8: one topic keeping a single known word used to fail the whole batch under "skip"
    topics = [["w3", "nowhere", "w1", "w4"], ["w2", "gone", "absent"], ["w5", "w6", "w7"]]
    result = score(topics, index, on_missing="skip")
    direct = score([["w3", "w1", "w4"], ["w5", "w6", "w7"]], index)
    assert np.isnan(result.per_topic[1]) and result.unscored.tolist() == [1]
    np.testing.assert_allclose(result.per_topic[[0, 2]], direct.per_topic, rtol=1e-12)
    assert result.model_mean == pytest.approx(direct.model_mean, rel=1e-12)
    assert (
        1,
        "*",
        "has only 1 word found in the reference corpus among all its words; coherence needs two (not scored)",
    ) in result.missing
    assert result.support[0, 1] == 0 and 1 not in set(result.to_frame()["topic"])
    assert result.to_dict()["per_topic"][1] is None
    by_n = score([["w2", "gone", "w6", "w5"], ["w3", "w1", "w4"]], index, topn=[2, 3], on_missing="skip")
    assert np.isnan(by_n.per_topic_by_topn[0, 0]) and np.isfinite(by_n.per_topic_by_topn[1, 0])
    assert np.isnan(by_n.per_topic[0]) and by_n.model_mean == by_n.per_topic[1]
    assert [entry[2].split(";")[0] for entry in by_n.missing if entry[1] == "*"] == [
        "has only 1 word found in the reference corpus among its top 2"
    ]
    with pytest.raises(InputError, match="'gone'"):
        score(topics, index)


def lau_toolkit(docs, topic, metric, s):
    """Lau et al.'s ComputeWordCount + ComputeObservedCoherence, restated: padded windows,
    log base 10, 0 for zero counts (pmi/npmi), LCP's fallback to log P(later word)."""
    marginal, joint, n = boolean_window_counts(lau_windows(docs, s), N_TYPES)
    values = []
    for i in range(len(topic)):
        for j in range(i + 1, len(topic)):
            a, b = topic[i], topic[j]
            c12, c1, c2 = joint[a, b], marginal[a], marginal[b]
            if metric in ("pmi", "npmi"):
                value = 0.0 if 0 in (c12, c1, c2) else math.log10(c12 * n / (c1 * c2))
                if metric == "npmi" and value:
                    value /= -math.log10(c12 / n)
            elif c12 == 0:
                value = math.log10((c2 if c2 else 1) / n)
            else:
                value = math.log10(c12 / c1)
            values.append(value)
    return sum(values) / len(values)


@pytest.mark.parametrize(("measure", "metric"), [("uci", "pmi"), ("npmi", "npmi"), ("lcp", "lcp")])
def test_compat_lau_reproduces_the_toolkit(docs, index, measure, metric):
    result = score(topics_as_words(), index, measure=measure, compat="lau")
    assert result.window == "sliding:20" and result.compat == "lau"
    for k, topic in enumerate(TOPICS):
        assert result.per_topic[k] == pytest.approx(lau_toolkit(docs, topic, metric, 20), rel=1e-12, abs=1e-12)


def test_compat_is_refused_for_measures_the_tool_lacks(index):
    with pytest.raises(InputError, match="compat='gensim' is not available for cp"):
        score(topics_as_words(), index, measure="cp", compat="gensim")
    with pytest.raises(InputError, match="compat must be"):
        score(topics_as_words(), index, compat="mallet")


def test_missing_words_error_skip_or_zero(docs, index):
    topics = [["w3", "nowhere", "w1", "w4"], ["w2", "w6", "w5"]]
    with pytest.raises(InputError, match="'nowhere' \\(topic 0, not in the index vocabulary\\)"):
        score(topics, index)
    skipped = score(topics, index, on_missing="skip")
    assert skipped.missing == ((0, "nowhere", "not in the index vocabulary"),)
    direct = score([["w3", "w1", "w4"], ["w2", "w6", "w5"]], index)
    np.testing.assert_allclose(skipped.per_topic, direct.per_topic, rtol=1e-12)
    zero = score(topics, index, on_missing="zero")
    frame = zero.to_frame()
    assert (frame.loc[(frame.w_prime == "nowhere") | (frame.w_star == "nowhere"), "value"] == 0).all()
    counts = brute(docs, "sliding:10")
    kept = [
        npmi_value(counts[1][a, b], counts[0][a], counts[0][b], counts[2])
        for a in (3, 1, 4)
        for b in (3, 1, 4)
        if a != b
    ]
    assert zero.per_topic[0] == pytest.approx(sum(kept) / 12)  # 6 real pairs, 6 zeros


def test_a_word_that_never_occurs_is_missing_too():
    index = RefIndex.build(Corpus.from_documents([[0, 1, 0, 1, 1]], Vocabulary(["a", "b", "c"])))
    with pytest.raises(InputError, match="never occurs in the reference corpus"):
        score([["a", "b", "c"]], index)
    with pytest.raises(EmptyResultError, match="topic 0 has only 1 word"):
        score([["a", "c"]], index, on_missing="skip")


def test_models_topics_and_word_lists_give_the_same_scores(index):
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.ones(N_TYPES), size=3)
    model = TopicModel(Vocabulary(WORDS), phi)
    from_model = score(model, index, measure="cv", topn=[5, 6])
    from_lists = score(model.top_words(6), index, measure="cv", topn=[5, 6])
    from_topics = score(Topics(tuple(map(tuple, model.top_words(6)))), index, measure="cv", topn=[5, 6])
    np.testing.assert_array_equal(from_model.per_topic, from_lists.per_topic)
    np.testing.assert_array_equal(from_model.per_topic, from_topics.per_topic)
    assert score(model, index).topn == (10,)


def test_results_write_as_json_and_csv(index, tmp_path):
    result = score(topics_as_words(), index, measure="npmi", topn=[4, 6])
    write_result(result, tmp_path / "r.json")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["measure"] == "npmi" and data["window"] == "sliding:10" and data["topn"] == [4, 6]
    assert data["per_topic"] == pytest.approx(result.per_topic.tolist())
    assert len(data["segments"]["value"]) == 3 * (12 + 30)
    assert data["index"]["corpus_fingerprint"] == index.corpus_fingerprint
    write_result(result, tmp_path / "r.csv")
    header = (tmp_path / "r.csv").read_text().splitlines()[0]
    assert header == "topic,topn,w_prime,w_star,value,count_prime,count_star,count_joint"


def test_bad_arguments_are_refused(index):
    for kwargs, message in [
        ({"measure": "coolness"}, "unknown coherence measure"),
        ({"topn": 1}, "topn must be"),
        ({"on_missing": "ignore"}, "on_missing must be"),
        ({"measure": "ca", "window": 10.5}, "cannot read the window"),
        ({"measure": "ca", "window": "sliding:10"}, "context windows"),
        ({"measure": "npmi", "window": "context:5"}, "sliding or document"),
        ({"conventions": {"base": 2}}, "unknown convention"),
        ({"conventions": {"log_base": 1}}, "log_base"),
    ]:
        with pytest.raises(InputError, match=message):
            score(topics_as_words(), index, **kwargs)
    with pytest.raises(InputError, match="fewer than the 7"):
        score(topics_as_words(), index, topn=7)
    with pytest.raises(InputError, match="unknown coherence measure"):  # not "pass its index"
        score(topics_as_words(), None, measure="coolness")
    # score takes the embedding measures too, so a typo of one is offered one (they were not listed)
    with pytest.raises(
        InputError, match=r"'embeding'; did you mean 'embedding'\? choose one of uci, .*, embedding_centroid$"
    ):
        score(topics_as_words(), None, measure="embeding")


def test_gensim_names_are_aliases():
    assert get_measure("c_npmi") is MEASURES["npmi"] and get_measure("C_V") is MEASURES["cv"]
    assert get_measure("u_mass").settings("gensim")[1] == Conventions(epsilon=1e-12)


def test_a_model_over_fewer_words_than_topn_is_refused():
    vocab = Vocabulary(["tax", "budget", "war", "peace"])
    model = TopicModel(vocab, np.full((2, 4), 0.25), kind="uniform")
    small = RefIndex.build(Corpus.from_documents([[0, 1, 2], [1, 2, 3]], vocab))
    with pytest.raises(InputError, match="topic 0 has only 4 words, fewer than the 10 asked for; ask for at most 4"):
        score(model, small, topn=10, window="document")
    with pytest.raises(InputError, match=r"topic 1 has only 2 words, .*; ask for at most 2 top words"):
        score([["tax", "budget", "war"], ["war", "peace"]], small, topn=3, window="document")


def test_hundreds_of_top_words_count_exactly_and_cost_little_memory_a_segment():
    # 3 topics of the top 300 of 400 words, one of them 40 letters long: 269,100 segments (ordered pairs)
    rng = np.random.default_rng(5)
    words = [f"w{i:03d}" for i in range(399)] + ["x" * 40]
    docs = [rng.integers(0, 400, size=30).tolist() for _ in range(300)]
    index = RefIndex.build(Corpus.from_documents(docs, Vocabulary(words)))
    topics = [[words[i] for i in rng.permutation(400)[:300]] for _ in range(3)]
    tracemalloc.start()
    try:
        segments = score(topics, index, measure="npmi", window="document").columns()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(segments["value"]) == 3 * 300 * 299
    present = np.zeros((len(docs), 400), dtype=np.int64)
    for d, doc in enumerate(docs):
        present[d, doc] = 1
    both = present.T @ present  # documents holding both words (the diagonal: holding the word)
    position = {word: i for i, word in enumerate(words)}
    for row in rng.choice(len(segments["value"]), size=2000, replace=False):
        a, b = position[segments["w_prime"][row]], position[segments["w_star"][row]]
        assert (segments["count_prime"][row], segments["count_star"][row]) == (both[a, a], both[b, b])
        assert segments["count_joint"][row] == both[a, b]
    # the words are shared, not copied at the longest word's width: about 64 bytes a segment and its copy
    assert peak / len(segments["value"]) < 200
