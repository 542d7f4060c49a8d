"""Window counts from the index equal brute-force counts (plain Python) for every window type and size.

The documents are short random sequences over a handful of word types, so words repeat inside
windows all the time; they include empty documents and documents shorter than the window.
Every test runs twice: counted in numpy, and by the numba sweep in several chunks on threads.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from tealeaves import jit
from tealeaves.coherence import RefIndex, Window, counting
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError

gensim_text_analysis = pytest.importorskip("gensim.topic_coherence.text_analysis")
gensim_corpora = pytest.importorskip("gensim.corpora")


@pytest.fixture(params=["numpy", "numba"], autouse=True)
def counter(request, monkeypatch):
    """Counts made by numpy (few occurrences), or by the numba sweep in up to 16 chunks on 4 threads."""
    if request.param == "numba":
        monkeypatch.setattr(counting, "NUMPY_MAX_OCCURRENCES", -1)
        monkeypatch.setattr(jit, "threads", lambda: 4)
    else:  # whatever this process counted before: numpy's whole budget
        monkeypatch.setattr(counting, "_numpy_counted", 0)
    return request.param


def random_docs(seed, n_docs=7, n_types=6, max_len=45):
    rng = np.random.default_rng(seed)
    docs = [list(rng.integers(0, n_types, size=rng.integers(0, max_len))) for _ in range(n_docs)]
    docs[0] = []  # an empty document
    docs[1] = [0, 0, 1, 0]  # a short one full of repeats
    return [[int(t) for t in doc] for doc in docs]


def make_index(docs, n_types):
    vocab = Vocabulary([f"w{i}" for i in range(n_types)])
    return RefIndex.build(Corpus.from_documents(docs, vocab))


def boolean_window_counts(windows, n_types):
    """Marginal and joint counts over explicit windows (each a set of word ids)."""
    marginal = Counter()
    joint = Counter()
    for window in windows:
        for a in window:
            marginal[a] += 1
        for a, b in itertools.product(window, repeat=2):
            joint[a, b] += 1
    return (
        np.array([marginal[a] for a in range(n_types)]),
        np.array([[joint[a, b] for b in range(n_types)] for a in range(n_types)]),
        len(windows),
    )


def sliding_windows(docs, s):
    """Every run of s tokens; a document shorter than s is one window."""
    return [set(doc[t : t + s]) for doc in docs for t in range(max(1, len(doc) - s + 1))]


def lau_windows(docs, s):
    """Lau et al.'s toolkit: windows ending at tail = 1 .. L + s - 1, starting at max(0, tail - s)."""
    return [set(doc[max(0, tail - s) : tail]) for doc in docs for tail in range(1, len(doc) + s)]


def document_windows(docs):
    return [set(doc) for doc in docs]


def gensim_flag_windows(docs, s):
    """gensim 4.x's _slide_window: the first window's words are flagged, then per step the
    token leaving the window is unflagged and the entering one flagged."""
    windows = []
    for doc in docs:
        if len(doc) <= s:
            windows.append(set(doc))
            continue
        flags = set(doc[:s])
        windows.append(set(flags))
        for t in range(1, len(doc) - s + 1):
            flags.discard(doc[t - 1])
            flags.add(doc[t + s - 1])
            windows.append(set(flags))
    return windows


def context_counts(docs, c, n_types):
    """(centre, context) position pairs at distance 1..c in the same document."""
    joint = np.zeros((n_types, n_types), dtype=np.int64)
    for doc in docs:
        for p, q in itertools.product(range(len(doc)), repeat=2):
            if p != q and abs(p - q) <= c:
                joint[doc[p], doc[q]] += 1
    return joint.sum(axis=1), joint, int(joint.sum())


def check(counts, expected):
    marginal, joint, n_windows = expected
    assert counts.n_windows == n_windows
    np.testing.assert_array_equal(counts.marginal, marginal)
    np.testing.assert_array_equal(counts.joint, joint)


@pytest.mark.parametrize("seed", range(4))
def test_sliding_windows_are_counted_exactly(seed):
    docs, n = random_docs(seed), 6
    index = make_index(docs, n)
    for s in [1, 2, 3, 5, 10, 17, 44, 45, 60]:
        check(index.window_counts(range(n), s), boolean_window_counts(sliding_windows(docs, s), n))


@pytest.mark.parametrize("seed", range(4))
def test_document_windows_are_counted_exactly(seed):
    docs, n = random_docs(seed), 6
    check(make_index(docs, n).window_counts(range(n), "document"), boolean_window_counts(document_windows(docs), n))


@pytest.mark.parametrize("seed", range(4))
def test_lau_padded_windows_are_counted_exactly(seed):
    docs, n = random_docs(seed), 6
    index = make_index(docs, n)
    for s in [1, 2, 4, 10, 20, 50]:
        check(index.window_counts(range(n), s, compat="lau"), boolean_window_counts(lau_windows(docs, s), n))


@pytest.mark.parametrize("seed", range(4))
def test_context_windows_are_counted_exactly(seed):
    docs, n = random_docs(seed), 6
    index = make_index(docs, n)
    for c in [1, 2, 5, 12, 50]:
        check(index.window_counts(range(n), f"context:{c}"), context_counts(docs, c, n))


@pytest.mark.parametrize("seed", range(4))
def test_compat_gensim_reproduces_gensims_flags(seed):
    docs, n = random_docs(seed), 6
    index = make_index(docs, n)
    for s in [1, 2, 3, 5, 10, 44, 60]:
        check(index.window_counts(range(n), s, compat="gensim"), boolean_window_counts(gensim_flag_windows(docs, s), n))


def gensim_accumulator_counts(docs, s, n_types):
    texts = [[f"w{t}" for t in doc] for doc in docs]
    dictionary = gensim_corpora.Dictionary([[f"w{i}" for i in range(n_types)]])
    relevant = {dictionary.token2id[f"w{i}"] for i in range(n_types)}
    acc = gensim_text_analysis.WordOccurrenceAccumulator(relevant, dictionary).accumulate(texts, s)
    marginal = np.array([acc[f"w{i}"] for i in range(n_types)])
    joint = np.array([[acc[f"w{i}", f"w{j}"] for j in range(n_types)] for i in range(n_types)])
    return marginal, joint, acc.num_docs


@pytest.mark.parametrize("seed", range(3))
def test_compat_gensim_equals_gensims_own_accumulator(seed):
    docs, n = random_docs(seed + 10, n_docs=5, n_types=5), 5
    index = make_index(docs, n)
    for s in [2, 4, 10, 30]:
        check(index.window_counts(range(n), s, compat="gensim"), gensim_accumulator_counts(docs, s, n))


def test_the_issues_example_gensim_undercounts():
    """Five random 60-token documents over 8 word types, s = 10: 255 windows."""
    rng = np.random.default_rng(2009)
    docs = [[int(t) for t in rng.integers(0, 8, size=60)] for _ in range(5)]
    index = make_index(docs, 8)
    exact = index.window_counts(range(8), 10)
    gensim = index.window_counts(range(8), 10, compat="gensim")
    own_marginal, _, own_windows = gensim_accumulator_counts(docs, 10, 8)
    assert exact.n_windows == gensim.n_windows == own_windows == 255
    np.testing.assert_array_equal(gensim.marginal, own_marginal)
    assert exact.marginal[0] == sum(0 in w for w in sliding_windows(docs, 10)) == 193
    assert gensim.marginal[0] == 149  # gensim misses 44 of the 193 windows holding word 0
    assert np.all(gensim.marginal < exact.marginal)


def test_pair_counts_match_window_counts_for_chosen_pairs():
    docs, n = random_docs(7), 6
    index = make_index(docs, n)
    full = index.window_counts(range(n), 7)
    left, right = np.array([0, 2, 5, 3]), np.array([1, 2, 0, 4])
    marginal, joint, n_windows = index.pair_counts(np.arange(n), left, right, 7)
    np.testing.assert_array_equal(marginal, full.marginal)
    np.testing.assert_array_equal(joint, full.joint[left, right])
    assert n_windows == full.n_windows


def test_words_may_be_given_as_strings_and_in_any_order():
    docs, n = random_docs(3), 6
    index = make_index(docs, n)
    by_id = index.window_counts([4, 1, 3], 5)
    by_word = index.window_counts(["w4", "w1", "w3"], 5)
    np.testing.assert_array_equal(by_id.joint, by_word.joint)
    assert by_word.words == ("w4", "w1", "w3")
    frame = by_word.to_frame()
    assert len(frame) == 6 and set(frame.columns) >= {"word_a", "word_b", "joint", "n_windows"}


def test_window_specs_are_parsed_and_bad_ones_refused():
    assert Window.parse(10) == Window("sliding", 10) == Window.parse("sliding:10") == Window.parse("10")
    assert Window.parse("document") == Window("document")
    assert str(Window.parse("context:5")) == "context:5"
    for bad in ["wide", "context:", 0, -3, "sliding:x", 2.5]:
        with pytest.raises(InputError):
            Window.parse(bad)
    index = make_index(random_docs(0), 6)
    with pytest.raises(InputError, match="compat"):
        index.window_counts(range(6), 10, compat="palmetto")
    with pytest.raises(InputError, match="not in the vocabulary"):
        index.window_counts(["w1", "nope"], 10)
    with pytest.raises(InputError, match=r"0\.\.5"):
        index.window_counts([1, 6], 10)


WINDOWS = [(3, None), (10, "gensim"), (7, "lau"), ("document", None), ("context:3", None)]


@pytest.mark.parametrize("counter", ["numpy"], indirect=True)
def test_numpy_and_the_sweep_count_alike(monkeypatch, counter):
    docs, n = random_docs(9, n_docs=60, n_types=12), 12
    index = make_index(docs, n)
    by_numpy = [index.window_counts(range(n), w, c) for w, c in WINDOWS]
    monkeypatch.setattr(counting, "NUMPY_MAX_OCCURRENCES", -1)
    for a, (w, c) in zip(by_numpy, WINDOWS):
        b = index.window_counts(range(n), w, c)
        np.testing.assert_array_equal(a.joint, b.joint)
        np.testing.assert_array_equal(a.marginal, b.marginal)


@pytest.mark.parametrize("counter", ["numpy"], indirect=True)
def test_a_process_past_numpys_budget_moves_to_the_sweep(monkeypatch, counter):
    docs, n = random_docs(9, n_docs=60, n_types=12), 12
    index = make_index(docs, n)
    swept = []
    sweep = RefIndex._swept_counts
    monkeypatch.setattr(RefIndex, "_swept_counts", lambda self, *a: swept.append(1) or sweep(self, *a))
    first = index.window_counts(range(n), 10, None)
    occurrences = counting._numpy_counted
    assert swept == [] and occurrences == sum(len(doc) for doc in docs)
    monkeypatch.setattr(counting, "NUMPY_BUDGET", 2 * occurrences - 1)  # the first count fits, not a second
    second = index.window_counts(range(n), 10, None)
    assert swept == [1] and counting._numpy_counted == occurrences
    np.testing.assert_array_equal(first.joint, second.joint)
    np.testing.assert_array_equal(first.marginal, second.marginal)


@pytest.mark.parametrize("counter", ["numba"], indirect=True)
def test_sweep_counts_do_not_depend_on_chunks(monkeypatch, counter):
    docs, n = random_docs(9, n_docs=60), 6
    index = make_index(docs, n)
    many = [index.window_counts(range(n), w, c) for w, c in WINDOWS]  # 16 chunks on 4 threads
    monkeypatch.setattr(jit, "threads", lambda: 1)  # one chunk, in this thread
    for a, (w, c) in zip(many, WINDOWS):
        b = index.window_counts(range(n), w, c)
        np.testing.assert_array_equal(a.joint, b.joint)
        np.testing.assert_array_equal(a.marginal, b.marginal)
        if not str(w).startswith("context"):
            assert b.joint[0, 0] == b.marginal[0]


@pytest.mark.parametrize("window, compat", WINDOWS)
def test_words_that_never_occur_count_zero(window, compat):
    docs = [[0, 1, 2, 0], [1, 2], []]
    index = make_index(docs, 5)  # w3 and w4 never occur
    for words in (["w3", "w4"], ["w0", "w3"], ["w4"]):
        counts = index.window_counts(words, window, compat)
        occurring = np.array([w == "w0" for w in words])
        assert np.all(counts.marginal[~occurring] == 0) and np.all(counts.joint[~occurring] == 0)
        assert np.all(counts.joint[:, ~occurring] == 0) and np.all(counts.marginal[occurring] > 0)


def test_repeated_words_are_refused():
    index = make_index(random_docs(1), 6)
    with pytest.raises(InputError, match="distinct"):
        index.window_counts([1, 2, 1], 5)
