"""Word association features (Lau et al. 2014, §4.1) equal a brute-force count over the raw tokens."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tealeaves.coherence import RefIndex
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.intrusion import association_sums, min_max_within_sets, word_association_features

WORDS = [f"v{i}" for i in range(12)]


@pytest.fixture(scope="module")
def docs():
    rng = np.random.default_rng(0)
    lengths = [3, 25, 40, 17, 60, 9, 33, 1]
    # a skewed distribution, so that some pairs never share a window of 4 and some words are rare
    weights = np.array([30, 20, 12, 8, 6, 5, 4, 3, 2, 1, 0.5, 0.0])
    docs = [rng.choice(12, size=n, p=weights / weights.sum()).astype(np.int32) for n in lengths]
    return [*docs, np.arange(11, dtype=np.int32)]  # every word but v11 occurs


@pytest.fixture(scope="module")
def index(docs):
    return RefIndex.build(Corpus.from_documents(docs, Vocabulary(WORDS)))


def brute_windows(docs, size, compat=None):
    """Every window as a set of word ids, by the definitions in tealeaves.coherence.windows."""
    out = []
    for doc in docs:
        n = len(doc)
        # padded (lau): windows start s - 1 tokens before the document; exact: max(1, L - s + 1) windows
        starts = range(-(size - 1), n) if compat == "lau" else range(max(1, n - size + 1))
        out.extend({int(t) for t in doc[max(0, a) : a + size]} for a in starts)
    return out


def brute_features(words, windows):
    """PMI, NPMI, CP1, CP2 sums of every word, term by term with math.log (Lau's zero conventions)."""
    ids = [WORDS.index(w) for w in words]
    total = len(windows)
    n = {w: sum(w in win for win in windows) for w in ids}
    rows = []
    for w in ids:
        pmi = npmi = cp1 = cp2 = 0.0
        for v in ids:
            if v == w:
                continue
            both = sum(w in win and v in win for win in windows)
            if both == 0:
                continue
            value = math.log(both * total / (n[w] * n[v]))
            pmi += value
            npmi += 1.0 if both == total else value / -math.log(both / total)
            cp1 += both / n[v]
            cp2 += both / n[w]
        rows.append([pmi, npmi, cp1, cp2])
    return np.array(rows)


@pytest.mark.parametrize(("window", "compat"), [(4, None), (10, None), (4, "lau"), (20, "lau")])
def test_counts_and_features_equal_brute_force(docs, index, window, compat):
    rng = np.random.default_rng(window)
    sets = [list(rng.choice(WORDS[:11], size=6, replace=False)) for _ in range(15)]
    result = word_association_features(sets, index, window=window, compat=compat)
    windows = brute_windows(docs, window, compat)
    assert result.n_windows == len(windows)
    for s, words in enumerate(sets):
        ids = [WORDS.index(w) for w in words]
        for i, a in enumerate(ids):
            assert result.marginal[s, i] == sum(a in win for win in windows)
            for j, b in enumerate(ids):
                assert result.joint[s, i, j] == sum(a in win and b in win for win in windows)
        np.testing.assert_allclose(result.raw[s], brute_features(words, windows), rtol=1e-12, atol=1e-12)
    assert result.window == f"sliding:{window}" and result.compat == compat


def test_document_windows(docs, index):
    sets = [WORDS[:6], WORDS[3:9]]
    result = word_association_features(sets, index, window="document")
    windows = [{int(t) for t in doc} for doc in docs]
    for s, words in enumerate(sets):
        np.testing.assert_allclose(result.raw[s], brute_features(words, windows), rtol=1e-12)


def test_normalised_within_each_set(index):
    rng = np.random.default_rng(1)
    sets = [list(rng.choice(WORDS[:11], size=6, replace=False)) for _ in range(20)]
    result = word_association_features(sets, index, window=4)
    norm = result.normalized
    assert norm.shape == (20, 6, 4)
    for s in range(20):
        for f in range(4):
            raw = result.raw[s, :, f]
            if raw.max() > raw.min():
                np.testing.assert_allclose(norm[s, :, f], (raw - raw.min()) / (raw.max() - raw.min()))
                assert norm[s, :, f].min() == 0 and norm[s, :, f].max() == 1
            else:
                assert np.all(norm[s, :, f] == 0)
    np.testing.assert_array_equal(result.matrix("pmi"), norm[:, :, [0, 2, 3]])
    np.testing.assert_array_equal(result.matrix("npmi"), norm[:, :, [1, 2, 3]])
    with pytest.raises(InputError, match="association"):
        result.matrix("lcp")


def test_features_follow_the_words_when_the_set_is_reordered(index):
    words = ["v0", "v3", "v1", "v7", "v2", "v5"]
    order = [4, 2, 0, 5, 1, 3]
    a = word_association_features([words], index, window=10)
    b = word_association_features([[words[i] for i in order]], index, window=10)
    np.testing.assert_allclose(b.raw[0], a.raw[0][order], rtol=1e-12)
    np.testing.assert_allclose(b.normalized[0], a.normalized[0][order], rtol=1e-12)


def test_zero_count_conventions():
    marginal = np.array([[10, 5, 0]])
    joint = np.array([[[10, 0, 0], [0, 5, 0], [0, 0, 0]]])
    raw = association_sums(marginal, joint, 100)
    np.testing.assert_array_equal(raw, np.zeros((1, 3, 4)))  # nothing co-occurs: every term is 0
    everywhere = association_sums(np.array([[100, 100]]), np.full((1, 2, 2), 100), 100)
    np.testing.assert_array_equal(everywhere[0, :, 1], [1.0, 1.0])  # NPMI's limit when P(w_i, w_j) = 1
    assert np.all(np.isfinite(min_max_within_sets(np.zeros((2, 6, 4)))))


def test_missing_words_are_refused_or_counted_as_zero(index):
    sets = [["v0", "v1", "v2", "v3", "v4", "nowhere"], ["v0", "v1", "v2", "v3", "v4", "v11"]]
    with pytest.raises(InputError, match=r"2 word\(s\).*'nowhere'.*v11"):
        word_association_features(sets, index, window=4)
    result = word_association_features(sets, index, window=4, on_missing="zero")
    assert result.missing == (
        (0, "nowhere", "not in the index vocabulary"),
        (1, "v11", "never occurs in the reference corpus"),
    )
    for s in range(2):
        assert result.marginal[s, 5] == 0 and np.all(result.joint[s, 5] == 0)
        np.testing.assert_array_equal(result.raw[s, 5], 0.0)
    np.testing.assert_array_equal(result.raw[0, :5], result.raw[1, :5])


def test_bad_sets_are_refused(index):
    with pytest.raises(InputError, match="same number"):
        word_association_features([WORDS[:6], WORDS[:5]], index)
    with pytest.raises(InputError, match="twice"):
        word_association_features([["v0", "v0", "v1"]], index)
    with pytest.raises(InputError, match="no word-intrusion sets"):
        word_association_features([], index)
    with pytest.raises(InputError, match="context"):
        word_association_features([WORDS[:6]], index, window="context:5")
    with pytest.raises(InputError, match="on_missing"):
        word_association_features([WORDS[:6]], index, on_missing="skip")
