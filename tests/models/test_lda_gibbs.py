"""lda-gibbs: the sampler draws from the exact posterior, α and β reach their maximisers during sampling,
planted topics are recovered, runs are reproducible, estimates match the counts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit
from scipy.special import digamma, gammaln

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.models import TopicModel, _gibbs, lda_gibbs, train
from tealeaves.models.compare import match_topics
from tealeaves.rng import family_seed
from tealeaves.streams import stream

from .planted import lda_corpus


def planted_corpus(k=4, v=40, n_docs=300, length=60, seed=0):
    """Documents from k topics with disjoint word blocks: each topic owns v/k words."""
    rng = np.random.default_rng(seed)
    block = v // k
    phi = np.full((k, v), 1e-6)
    for j in range(k):
        phi[j, j * block : (j + 1) * block] = 1.0
    phi /= phi.sum(axis=1, keepdims=True)
    docs = []
    for _ in range(n_docs):
        theta = rng.dirichlet(np.full(k, 0.2))
        z = rng.choice(k, size=length, p=theta)
        docs.append(np.array([rng.choice(v, p=phi[t]) for t in z]))
    vocab = Vocabulary([f"w{i:02d}" for i in range(v)])
    return Corpus.from_documents(docs, vocab), phi


def hellinger(p, q):
    return np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2, axis=-1))


@pytest.fixture(scope="module")
def planted():
    return planted_corpus()


@pytest.fixture(scope="module")
def fitted(planted):
    corpus, _ = planted
    return train(corpus, "lda-gibbs", k=4, seed=1, iterations=300, optimize_burn_in=50)


def test_recovers_planted_topics(planted, fitted):
    _, true_phi = planted
    distances = hellinger(true_phi[:, None, :], fitted.phi[None, :, :])
    best = distances.min(axis=1)
    assert best.max() < 0.1, best
    assert len(set(distances.argmin(axis=1))) == 4  # one learned topic per true topic


def test_estimates_follow_the_counts(fitted, planted):
    corpus, _ = planted
    assert fitted.phi.shape == (4, 40) and fitted.theta.shape == (len(corpus), 4)
    assert np.allclose(fitted.phi.sum(axis=1), 1.0, atol=1e-12)
    assert np.allclose(fitted.theta.sum(axis=1), 1.0, atol=1e-12)
    # θ_dk = (n̄_dk + α_k) / (N_d + Σα), n̄ the counts averaged over the last S sweeps:
    # S * n̄_dk is a whole number and n̄_dk sums to the document's length
    sweeps = fitted.params["average_last"]
    assert sweeps == 50
    lengths = corpus.doc_lengths()
    n_dk = fitted.theta * (lengths[:, None] + fitted.alpha.sum()) - fitted.alpha
    assert np.allclose(n_dk * sweeps, np.round(n_dk * sweeps), atol=1e-6)
    # φ_kw = (n̄_kw + β) / (n̄_k + Vβ): the implied counts add up to the corpus' tokens
    beta = fitted.manifest["training"]["beta"]["final"]
    n_k = n_dk.sum(axis=0)
    n_kw = fitted.phi * (n_k[:, None] + 40 * beta) - beta
    assert np.allclose(n_kw * sweeps, np.round(n_kw * sweeps), atol=1e-5)
    assert np.allclose(n_kw.sum(axis=0), np.bincount(corpus.tokens, minlength=40), atol=1e-6)


def test_alpha_is_optimised_asymmetric(fitted):
    assert fitted.alpha.shape == (4,) and np.ptp(fitted.alpha) > 0
    assert fitted.params["alpha_sum"] == 0.25 and fitted.params["optimize_interval"] == 10


def test_same_seed_same_model_and_trace(planted):
    corpus, _ = planted
    a = train(corpus, k=4, seed=5, iterations=30)
    b = train(corpus, k=4, seed=5, iterations=30)
    c = train(corpus, k=4, seed=6, iterations=30)
    assert np.array_equal(a.phi, b.phi) and np.array_equal(a.theta, b.theta)
    assert a.manifest["training"]["trace"] == b.manifest["training"]["trace"]
    assert not np.array_equal(a.phi, c.phi)
    # two shards sampled in parallel (MALLET's threads), α and β optimised: the same seed and
    # number of workers give the same model; the merged counts still add up to the corpus
    options = {"k": 4, "iterations": 60, "optimize_burn_in": 20, "workers": 2, "topics_from": "last"}
    d = train(corpus, seed=5, **options)
    e = train(corpus, seed=5, **options)
    assert np.array_equal(d.phi, e.phi) and np.array_equal(d.alpha, e.alpha)
    assert d.manifest["training"]["hyperparameters"] == e.manifest["training"]["hyperparameters"]
    beta = d.manifest["training"]["beta"]["final"]
    n_k = (d.theta * (corpus.doc_lengths()[:, None] + d.alpha.sum()) - d.alpha).sum(axis=0)
    n_kw = d.phi * (n_k[:, None] + 40 * beta) - beta
    assert np.allclose(n_kw, np.round(n_kw), atol=1e-6)
    assert np.allclose(n_kw.sum(axis=0), np.bincount(corpus.tokens, minlength=40), atol=1e-6)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_parallel_sweep_merges_the_shards_counts(sparse):
    # after a sweep over 3 shards the shared counts are those of the new assignments
    corpus, _, _ = lda_corpus(k=3, v=30, n_docs=40, length=20)
    tokens, offsets = corpus.tokens, corpus.offsets
    z = _gibbs.random_assignments(tokens, 3, stream(11, 0))
    before = z.copy()
    n_wk, n_dk, n_k = np.zeros((30, 3), np.int32), np.zeros((40, 3), np.int32), np.zeros(3, np.int64)
    lda_gibbs.assignment_counts(tokens, offsets, z, n_wk, n_dk, n_k)
    bounds = lda_gibbs.shard_bounds(offsets, 3)
    assert list(bounds) == [0, 14, 27, 40]  # equal documents here, so equal tokens too
    states = np.concatenate([stream(1, s) for s in range(3)])
    lda_gibbs.gibbs_sweep(
        tokens, offsets, z, n_wk, n_dk, n_k, np.full(3, 0.1), 0.01, bounds, states,
        np.zeros((3, 30, 3), np.int32), np.zeros((3, 3), np.int64), sparse,
    )  # fmt: skip
    assert not np.array_equal(z, before)
    expected = [np.zeros((30, 3), np.int32), np.zeros((40, 3), np.int32), np.zeros(3, np.int64)]
    lda_gibbs.assignment_counts(tokens, offsets, z, *expected)
    for got, want in zip((n_wk, n_dk, n_k), expected):
        assert np.array_equal(got, want)


def test_more_workers_than_tokens_shard_as_many_as_the_tokens():
    # The shards of W > T workers (T tokens) are those of T + 1 workers, computed uncapped here, so capping
    # W at T + 1 changes no run (empty documents included); workers=10**12 raised a MemoryError allocating
    # 10**12 cut points.
    rng = np.random.default_rng(3)
    for _ in range(200):
        lengths = rng.integers(0, 5, size=rng.integers(1, 8))
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        n_docs, total = len(lengths), int(offsets[-1])
        for workers in range(total + 1, 3 * total + 4):
            cuts = np.searchsorted(offsets[:-1], np.linspace(0, total, workers + 1)[1:-1], side="left")
            uncapped = np.unique(np.concatenate([[0], np.clip(cuts, 0, n_docs), [n_docs]]))
            assert list(lda_gibbs.shard_bounds(offsets, workers)) == list(uncapped), (lengths, workers)
    offsets = np.array([0, 3, 5, 9], dtype=np.int64)
    assert list(lda_gibbs.shard_bounds(offsets, 10**12)) == [0, 1, 2, 3]


def test_word_lists_stay_sorted_and_hold_the_counts():
    # The sparse kernel's packed word lists (n_kw << bits | k, MALLET's typeTopicCounts): built
    # sorted with room min(K, N_w), and after each of 30 sweeps of the pass on them still strictly
    # decreasing, of positive counts, within their room, and unpacked equal to the counts of the
    # new assignments, while topics leave and join the lists (K = 7 in 3 bits)
    corpus, _, _ = lda_corpus(k=4, v=40, n_docs=30, length=25)
    tokens, offsets, k = corpus.tokens, corpus.offsets, 7
    z = _gibbs.random_assignments(tokens, k, stream(5, 0))
    n_wk, n_dk, n_k = np.zeros((40, k), np.int32), np.zeros((30, k), np.int32), np.zeros(k, np.int64)
    lda_gibbs.assignment_counts(tokens, offsets, z, n_wk, n_dk, n_k)
    entries, starts, lengths, bits = _gibbs.packed_lists(n_wk, n_k)
    assert bits == 3
    for w in range(40):
        built = entries[starts[w] : starts[w] + lengths[w]]
        assert list(built) == sorted((int(n_wk[w, t]) << bits | t for t in range(k) if n_wk[w, t]), reverse=True)
        assert starts[w + 1] - starts[w] == min(k, n_wk[w].sum())
    state, alpha, changed = stream(5, 1), np.full(k, 0.05), 0
    for _ in range(30):
        before = lengths.copy()
        _gibbs.sample_documents_sparse(
            tokens, offsets, z, 0, 30, entries, starts, lengths, bits, n_wk, n_dk, n_k, alpha, 0.01, state
        )
        changed += np.sum(lengths != before)
        unpacked = np.zeros((40, k), np.int32)
        for w in range(40):
            listed = entries[starts[w] : starts[w] + lengths[w]]
            assert np.all(np.diff(listed) < 0) and np.all(listed >> bits > 0)
            assert lengths[w] <= starts[w + 1] - starts[w]
            unpacked[w, listed & (2**bits - 1)] = listed >> bits
        expected = [np.zeros((40, k), np.int32), np.zeros((30, k), np.int32), np.zeros(k, np.int64)]
        lda_gibbs.assignment_counts(tokens, offsets, z, *expected)
        for got, want in zip((unpacked, n_wk, n_dk, n_k), (expected[0], *expected)):
            assert np.array_equal(got, want)
    assert changed > 10


def test_lists_kept_from_sweep_to_sweep_draw_as_lists_packed_at_each_sweep():
    # sorted lists are unique, so a sequential run that keeps them (fit's) draws exactly the
    # assignments of one that packs them again from n_wk at every sweep
    corpus, _, _ = lda_corpus(k=4, v=40, n_docs=30, length=25)
    tokens, offsets, k = corpus.tokens, corpus.offsets, 7
    runs = []
    for keep in (False, True):
        z = _gibbs.random_assignments(tokens, k, stream(6, 0))
        n_wk, n_dk, n_k = np.zeros((40, k), np.int32), np.zeros((30, k), np.int32), np.zeros(k, np.int64)
        lda_gibbs.assignment_counts(tokens, offsets, z, n_wk, n_dk, n_k)
        lists = _gibbs.packed_lists(n_wk, n_k) if keep else None
        state, no_copies = stream(6, 1), (np.zeros((0, 40, k), np.int32), np.zeros((0, k), np.int64))
        for _ in range(20):
            lda_gibbs.gibbs_sweep(
                tokens, offsets, z, n_wk, n_dk, n_k, np.full(k, 0.05), 0.01, np.array([0, 30]), state, *no_copies,
                True, lists,
            )  # fmt: skip
        runs.append((z, n_wk, n_dk, n_k))
    for kept, packed in zip(*runs):
        assert np.array_equal(kept, packed)


def test_progress_reports_log_likelihood_per_word(planted):
    corpus, _ = planted
    updates = []
    model = train(corpus, k=4, seed=0, iterations=40, progress=updates.append)
    assert [u.done for u in updates] == [10, 20, 30, 40] and all(u.total == 40 for u in updates)
    lls = [u.info["ll_per_word"] for u in updates]
    assert all(np.isfinite(lls)) and lls[-1] > lls[0]
    trace = model.manifest["training"]["trace"]
    assert [row[0] for row in trace] == [10, 20, 30, 40] and [row[1] for row in trace] == lls


def test_training_is_recorded_and_saved(planted, tmp_path):
    corpus, _ = planted
    model = train(corpus, k=3, seed=0, iterations=10, out=tmp_path / "m")
    training = model.manifest["training"]
    assert training["corpus_fingerprint"] == corpus.fingerprint() and training["seconds"] > 0
    loaded = TopicModel.load(tmp_path / "m")
    assert np.array_equal(loaded.phi, model.phi) and loaded.kind == "lda-gibbs"
    assert loaded.manifest["training"]["n_tokens"] == corpus.n_tokens


def test_bad_arguments_are_refused(planted):
    corpus, _ = planted
    with pytest.raises(InputError, match="unknown model"):
        train(corpus, model="nope")
    with pytest.raises(InputError, match="no parameter alpha"):
        train(corpus, alpha=0.1)
    with pytest.raises(InputError, match="positive number of topics"):
        train(corpus, k=0)
    with pytest.raises(InputError, match="beta > 0"):
        train(corpus, beta=-1.0)
    empty = Corpus.from_documents([], corpus.vocab)
    with pytest.raises(EmptyResultError):
        train(empty)


def test_readable_topics_on_sotu(sotu):
    model = train(sotu, k=20, seed=0, iterations=200)
    words = {w for topic in model.top_words(10) for w in topic}
    for expected in ("tax", "war", "treaty", "army", "tariff", "indian"):
        assert expected in words


def test_recovers_topics_planted_by_lda():
    corpus, true_phi, _ = lda_corpus()  # K = 10, V = 500, 2,000 documents of 100 tokens, α = 0.3, β = 0.05
    model = train(corpus, "lda-gibbs", k=10, seed=0, iterations=300, alpha_sum=3.0, beta=0.05)
    _, distances = match_topics(true_phi, model.phi)
    print(f"lda-gibbs planted Hellinger distances: {np.round(np.sort(distances), 3)}")
    assert distances.max() < 0.2


# --------------------------------------------------------------------------- the sampler is exact
TINY_DOCS, TINY_V, TINY_ALPHA, TINY_BETA = [[0, 1, 0], [2, 1], [2]], 3, np.array([0.3, 0.7]), 0.4


def tiny_log_joint(z):
    """log p(w, z | α, β) of the tiny corpus by the Dirichlet-multinomial formula (K = 2)."""
    n_dk, n_kw, at = np.zeros((3, 2)), np.zeros((2, TINY_V)), 0
    for d, doc in enumerate(TINY_DOCS):
        for w in doc:
            n_dk[d, z[at]] += 1
            n_kw[z[at], w] += 1
            at += 1
    a = TINY_ALPHA.sum()
    docs = np.sum(gammaln(a) - gammaln(n_dk.sum(axis=1) + a)) + np.sum(gammaln(n_dk + TINY_ALPHA) - gammaln(TINY_ALPHA))
    vb = TINY_V * TINY_BETA
    topics = np.sum(gammaln(vb) - gammaln(n_kw.sum(axis=1) + vb)) + np.sum(
        gammaln(n_kw + TINY_BETA) - gammaln(TINY_BETA)
    )
    return docs + topics, n_dk, n_kw


@njit
def one_sweep(tokens, offsets, z, n_wk, n_dk, n_k, alpha, beta, state, lists, sparse):
    """A sweep over every document by the dense kernel or by the sparse one on the kept word ``lists`` (as fit)."""
    last = offsets.shape[0] - 1
    if sparse:
        entries, starts, lengths, bits = lists
        _gibbs.sample_documents_sparse(
            tokens, offsets, z, 0, last, entries, starts, lengths, bits, n_wk, n_dk, n_k, alpha, beta, state
        )
    else:
        _gibbs.sample_documents(tokens, offsets, z, 0, last, n_wk, n_dk, n_k, alpha, beta, state)


@njit
def tiny_chain(tokens, offsets, z, n_wk, n_dk, n_k, alpha, beta, state, burn_in, sweeps, lists, sparse):
    """Frequency of each joint assignment (z read as a binary number) over ``sweeps`` sweeps."""
    tally = np.zeros((sweeps, 2 ** z.shape[0]), dtype=np.int8)
    for sweep in range(burn_in + sweeps):
        one_sweep(tokens, offsets, z, n_wk, n_dk, n_k, alpha, beta, state, lists, sparse)
        if sweep >= burn_in:
            index = 0
            for i in range(z.shape[0]):
                index = 2 * index + z[i]
            tally[sweep - burn_in, index] = 1
    return tally


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_sampler_draws_from_the_exact_posterior(sparse):
    # 3 documents, 6 tokens, K = 2, α = (0.3, 0.7), β = 0.4: p(z | w) by enumerating the 64
    # assignments against the frequencies of 400,000 sweeps of each kernel. The Monte Carlo SE of
    # each frequency is estimated by batch means (100 batches of 4,000 sweeps): the probabilities
    # run from 0.0003 to 0.129 and their SEs from 0.00003 to 0.0009; the largest deviation is
    # 0.0014, 3.4 SE (about 3.7 SE is the 5% point of the largest of 64 normal deviations)
    states = list(itertools.product((0, 1), repeat=6))
    log_p = np.array([tiny_log_joint(z)[0] for z in states])
    exact = np.exp(log_p - log_p.max())
    exact /= exact.sum()
    corpus = Corpus.from_documents(TINY_DOCS, Vocabulary(["a", "b", "c"]))
    tokens, offsets = corpus.tokens, corpus.offsets
    z = _gibbs.random_assignments(tokens, 2, stream(0, 0))
    n_wk, n_dk, n_k = np.zeros((3, 2), np.int32), np.zeros((3, 2), np.int32), np.zeros(2, np.int64)
    lda_gibbs.assignment_counts(tokens, offsets, z, n_wk, n_dk, n_k)
    lists = _gibbs.packed_lists(n_wk, n_k)
    tally = tiny_chain(
        tokens, offsets, z, n_wk, n_dk, n_k, TINY_ALPHA, TINY_BETA, stream(0, 1), 100, 400_000, lists, sparse
    )
    batches = tally.reshape(100, 4000, 64).mean(axis=1)
    frequency, se = batches.mean(axis=0), batches.std(axis=0, ddof=1) / np.sqrt(100)
    z_scores = np.abs(frequency - exact) / se
    print(
        f"max |f - p| = {np.abs(frequency - exact).max():.5f}, max z = {z_scores.max():.2f}, SE {se.min():.5f}-{se.max():.5f}"
    )
    assert z_scores.max() < 5
    assert np.abs(frequency - exact).max() < 0.004  # 4.5 times the largest SE
    # the collapsed log-likelihood of the trace is the same formula
    for z in states[::7]:
        value, counts_dk, counts_kw = tiny_log_joint(z)
        got = _gibbs.log_joint(
            counts_kw.T.astype(np.int32),
            counts_dk.astype(np.int32),
            counts_kw.sum(axis=1).astype(np.int64),
            TINY_ALPHA,
            TINY_BETA,
        )
        assert got == pytest.approx(value, rel=1e-12)


@njit
def assignment_chain(tokens, offsets, z, n_wk, n_dk, n_k, alpha, beta, state, burn_in, sweeps, lists, sparse):
    """The assignments after each of ``sweeps`` sweeps (after ``burn_in``), one row per sweep."""
    kept = np.empty((sweeps, z.shape[0]), dtype=np.int8)
    for sweep in range(burn_in + sweeps):
        one_sweep(tokens, offsets, z, n_wk, n_dk, n_k, alpha, beta, state, lists, sparse)
        if sweep >= burn_in:
            kept[sweep - burn_in] = z
    return kept


def test_sparse_and_dense_samplers_share_the_stationary_distribution():
    # K = 5 with small, unequal α_k and a small β, so that all three of SparseLDA's buckets
    # (smoothing, document, word) carry mass, topics leave and join documents and words, and the
    # word lists change. p(z_i = k) of the 13 tokens (65 marginals) from 200,000 sweeps of each
    # kernel from the same start and seed: the draws differ, the marginals agree within Monte
    # Carlo error (batch means, 100 batches; two-sample z over the 65: the largest was 2.3; the
    # SEs of the differences reach 0.006, and the largest difference was 0.012)
    docs = [[0, 1, 2, 0, 5], [1, 3, 3], [2, 0, 1, 4, 4]]
    alpha, beta, k = np.array([0.02, 0.1, 0.3, 0.6, 1.5]), 0.05, 5
    corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(6)]))
    tokens, offsets = corpus.tokens, corpus.offsets
    marginals, draws = [], []
    for sparse in (False, True):
        z = _gibbs.random_assignments(tokens, k, stream(3, 0))
        counts = [np.zeros((6, k), np.int32), np.zeros((3, k), np.int32), np.zeros(k, np.int64)]
        lda_gibbs.assignment_counts(tokens, offsets, z, *counts)
        lists = _gibbs.packed_lists(counts[0], counts[2])
        kept = assignment_chain(tokens, offsets, z, *counts, alpha, beta, stream(3, 1), 100, 200_000, lists, sparse)
        expected = [np.zeros((6, k), np.int32), np.zeros((3, k), np.int32), np.zeros(k, np.int64)]
        lda_gibbs.assignment_counts(tokens, offsets, z, *expected)
        assert all(np.array_equal(got, want) for got, want in zip(counts, expected))  # counts kept in step
        one_hot = (kept[:, :, None] == np.arange(k)).reshape(100, 2000, -1).mean(axis=1)
        marginals.append((one_hot.mean(axis=0), one_hot.std(axis=0, ddof=1) / np.sqrt(100)))
        draws.append(kept[:1000])
    assert not np.array_equal(draws[0], draws[1])
    (dense, se_dense), (sparse_f, se_sparse) = marginals
    z_scores = np.abs(dense - sparse_f) / np.sqrt(se_dense**2 + se_sparse**2 + 1e-12)
    print(f"max |dense - sparse| = {np.abs(dense - sparse_f).max():.4f}, max z = {z_scores.max():.2f}")
    assert z_scores.max() < 4.5
    assert np.abs(dense - sparse_f).max() < 0.03  # 5 times the largest SE


def test_the_sampler_is_chosen_by_k(planted):
    corpus, _ = planted
    assert lda_gibbs.SPARSE_FROM_K > 4
    auto = train(corpus, k=4, seed=2, iterations=20)
    dense = train(corpus, k=4, seed=2, iterations=20, sampler="dense")
    sparse = train(corpus, k=4, seed=2, iterations=20, sampler="sparse")
    assert np.array_equal(auto.phi, dense.phi) and not np.array_equal(auto.phi, sparse.phi)
    assert sparse.params["sampler"] == "sparse" and auto.manifest["training"]["sampler"] == "dense"
    with pytest.raises(InputError, match=r"lda-gibbs needs sampler in \{auto, dense, sparse\}, got 'fast'"):
        train(corpus, k=4, sampler="fast")


# --------------------------------------------------------------------------- α and β as MALLET
def document_topic_counts(seed=4):
    """Document-topic counts of 400 documents of 20-200 tokens from θ_d ~ Dir(0.1, 0.3, 0.6, 1.2)."""
    rng = np.random.default_rng(seed)
    true_alpha = np.array([0.1, 0.3, 0.6, 1.2])
    lengths = rng.integers(20, 200, size=400)
    n_dk = np.stack([rng.multinomial(n, rng.dirichlet(true_alpha)) for n in lengths])
    histogram = np.zeros((4, lengths.max() + 1), dtype=np.int64)
    for k in range(4):
        histogram[k] = np.bincount(n_dk[:, k], minlength=lengths.max() + 1)
    return n_dk, true_alpha, histogram, np.bincount(lengths, minlength=lengths.max() + 1)


def test_alpha_step_is_mallets_learn_parameters():
    # one step on the histograms is Minka's fixed point with MALLET's shape 1.001 and scale 1,
    # computed here from the document-topic counts themselves
    n_dk, _, histogram, lengths = document_topic_counts()
    alpha = np.array([0.2, 0.1, 0.4, 0.3])
    direct = alpha * (np.sum(digamma(n_dk + alpha) - digamma(alpha), axis=0) + 1.001)
    direct /= np.sum(digamma(n_dk.sum(axis=1) + alpha.sum()) - digamma(alpha.sum())) - 1.0
    assert np.allclose(lda_gibbs.alpha_step(alpha, histogram, lengths), direct, rtol=1e-12)


def test_alpha_step_iterates_to_the_maximiser_of_its_objective():
    # MALLET takes one step per optimisation; iterated, the step reaches the local maximum of
    # F(α) = log p(n | α) + (shape + 1/scale) Σα, found here by scipy (BFGS over log α, with the
    # gradient of F: α_k (Σ_c h_k(c)[ψ(c + α_k) − ψ(α_k)] − Σ_n L(n)[ψ(n + Σα) − ψ(Σα)] + 2.001))
    from scipy.optimize import minimize

    _, true_alpha, histogram, lengths = document_topic_counts()
    counts, sizes = np.arange(histogram.shape[1]), np.arange(lengths.shape[0])

    def gradient(x):
        a = np.exp(x)
        per_topic = np.sum(histogram * (digamma(counts + a[:, None]) - digamma(a)[:, None]), axis=1)
        return -a * (per_topic - np.sum(lengths * (digamma(sizes + a.sum()) - digamma(a.sum()))) + 2.001)

    alpha = np.full(4, 0.1)
    for _ in range(1000):
        alpha = lda_gibbs.alpha_step(alpha, histogram, lengths)
    numeric = minimize(
        lambda x: -lda_gibbs.alpha_objective(np.exp(x), histogram, lengths),
        np.log(np.full(4, 0.5)),
        jac=gradient,
        method="BFGS",
        options={"gtol": 1e-9},
    )
    assert np.allclose(alpha, np.exp(numeric.x), rtol=1e-6)
    assert lda_gibbs.alpha_objective(alpha, histogram, lengths) >= -numeric.fun - 1e-9
    assert np.allclose(alpha, true_alpha, rtol=0.3)  # and the counts' prior is recovered


def test_optimised_beta_maximises_the_dirichlet_multinomial_likelihood():
    # counts drawn from topics with a known symmetric prior: MALLET's 200 fixed-point steps agree
    # with a numeric maximiser (scipy's bounded Brent search over log β) of the same objective
    from scipy.optimize import minimize_scalar

    rng = np.random.default_rng(3)
    for true_beta in (0.02, 0.3):
        phi = rng.dirichlet(np.full(200, true_beta), size=8)
        n_kw = np.stack([rng.multinomial(n, p) for n, p in zip(rng.integers(500, 3000, size=8), phi)]).astype(float)
        found = lda_gibbs.optimise_beta(n_kw, 0.1)
        numeric = minimize_scalar(
            lambda x, n=n_kw: -lda_gibbs.beta_log_likelihood(n, float(np.exp(x))),
            bounds=(-10, 5),
            method="bounded",
            options={"xatol": 1e-10},
        )
        assert found == pytest.approx(np.exp(numeric.x), rel=1e-6)
        best = lda_gibbs.beta_log_likelihood(n_kw, found)
        assert best >= lda_gibbs.beta_log_likelihood(n_kw, found * 1.01)
        assert best >= lda_gibbs.beta_log_likelihood(n_kw, found / 1.01)
        assert found == pytest.approx(true_beta, rel=0.3)  # and it estimates the prior the topics came from


def test_beta_and_alpha_are_optimised_during_sampling(planted, fitted, monkeypatch):
    # burn-in 50, interval 10: α and β after sweeps 60, 70, ..., 300; the planted topics (sparse
    # blocks) pull β below its start
    training = fitted.manifest["training"]
    rows = training["hyperparameters"]
    assert [row[0] for row in rows] == list(range(60, 301, 10))
    betas = [row[1] for row in rows]
    assert len(set(betas)) == len(betas) and training["beta"] == {"start": 0.1, "final": betas[-1]}
    assert 0 < betas[-1] < 0.09 and rows[-1][2] == pytest.approx(fitted.alpha.sum(), rel=1e-12)
    # the new β enters the following sweeps: with β kept at its start (α still optimised) the
    # chain is the same up to sweep 60 (same Σα then) and differs after it
    monkeypatch.setattr(lda_gibbs, "optimise_beta", lambda n_kw, start: start)
    corpus, _ = planted
    fixed = train(corpus, "lda-gibbs", k=4, seed=1, iterations=80, optimize_burn_in=50)
    fixed_rows = fixed.manifest["training"]["hyperparameters"]
    assert fixed_rows[0] == [60, 0.1, rows[0][2]] and fixed_rows[1][2] != rows[1][2]


def test_statistics_follow_mallets_save_sample_interval(planted):
    # burn-in 21, interval 25: MALLET collects α's statistics after sweeps that are multiples of
    # 10 (30, 50, ...), so the optimisation after sweep 25 has none: α stays, β is optimised
    corpus, _ = planted
    model = train(corpus, k=4, seed=0, iterations=50, optimize_burn_in=21, optimize_interval=25, topics_from="last")
    (first, beta_first, alpha_first), (second, _, alpha_second) = model.manifest["training"]["hyperparameters"]
    assert (first, second) == (25, 50) and alpha_first == pytest.approx(0.25, rel=1e-12) and beta_first != 0.1
    assert alpha_second != alpha_first and alpha_second == pytest.approx(model.alpha.sum(), rel=1e-12)


def test_a_failed_alpha_step_resets_alpha_as_mallet():
    # two documents of four tokens: the step's denominator falls below 1/scale and MALLET resets
    # every α_k to 1 (Σα = K after that optimisation); the model stays finite
    tiny = Corpus.from_documents([[0, 1, 2, 0], [1, 3, 3, 2]], Vocabulary(["apple", "pear", "plum", "iron"]))
    model = train(tiny, k=2, seed=0)
    rows = model.manifest["training"]["hyperparameters"]
    assert any(row[2] == 2.0 for row in rows) and np.all(np.isfinite(model.phi)) and np.all(model.alpha > 0)


def test_topics_from_the_last_sweep(planted):
    corpus, _ = planted
    last = train(corpus, "lda-gibbs", k=4, seed=2, iterations=60, optimize_interval=0, topics_from="last")
    assert last.params["topics_from"] == "last" and last.params["average_last"] == 1
    training = last.manifest["training"]
    assert training["beta"] == {"start": 0.1, "final": 0.1} and training["hyperparameters"] == []
    # θ from the counts of one sample: the sampler's final state, the chain replayed from its
    # streams (stream 0 of the family for the start, stream 1 for the sweeps)
    lengths = corpus.doc_lengths()
    n_dk = last.theta * (lengths[:, None] + last.alpha.sum()) - last.alpha
    seed = family_seed(2, "train lda-gibbs")
    tokens, offsets = corpus.tokens, corpus.offsets
    z = _gibbs.random_assignments(tokens, 4, stream(seed, 0))
    counts = [np.zeros((40, 4), np.int32), np.zeros((len(corpus), 4), np.int32), np.zeros(4, np.int64)]
    lda_gibbs.assignment_counts(tokens, offsets, z, *counts)
    state, bounds = stream(seed, 1), np.array([0, len(corpus)])
    no_copies = (np.zeros((0, 40, 4), np.int32), np.zeros((0, 4), np.int64))
    for _ in range(60):
        lda_gibbs.gibbs_sweep(tokens, offsets, z, *counts, np.full(4, 0.25 / 4), 0.1, bounds, state, *no_copies)
    assert np.allclose(n_dk, counts[1], atol=1e-8)
    with pytest.raises(InputError, match="topics_from"):
        train(corpus, "lda-gibbs", k=4, iterations=5, topics_from="first")
