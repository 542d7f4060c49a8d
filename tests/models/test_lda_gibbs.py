"""lda-gibbs: planted topics are recovered, runs are reproducible, estimates match the counts."""

from __future__ import annotations

import numpy as np
import pytest
import tomotopy as tp

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.models import TopicModel, lda_gibbs, train
from tealeaves.models.compare import match_topics

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
    # the same sampler replayed directly (tomotopy, same seed, one thread): the document-topic counts
    # averaged over the last 50 sweeps, with the final α, are the stored θ, to rounding
    sampler = tp.LDAModel(k=4, alpha=0.25 / 4, eta=0.1, seed=1, min_cf=0, min_df=0, rm_top=0)
    sampler.optim_interval, sampler.burn_in = 10, 50
    for d in range(len(corpus)):
        sampler.add_doc([corpus.vocab.words[t] for t in corpus.doc(d)])
    sampler.train(250, workers=1)
    replayed = np.zeros((len(corpus), 4))
    for _ in range(sweeps):
        sampler.train(1, workers=1)
        replayed += [np.bincount(doc.topics, minlength=4) for doc in sampler.docs]
    alpha = np.asarray(sampler.alpha)
    assert np.allclose(fitted.alpha, alpha, rtol=1e-12)
    assert np.allclose(fitted.theta, (replayed / sweeps + alpha) / (lengths[:, None] + alpha.sum()), rtol=1e-12)
    # φ_kw = (n̄_kw + β) / (n̄_k + Vβ): the implied counts add up to the corpus' tokens
    beta = fitted.manifest["training"]["beta"]["optimised"]
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


def test_optimised_beta_maximises_the_dirichlet_multinomial_likelihood():
    # counts drawn from topics with a known symmetric prior: the fixed point agrees with a numeric
    # maximiser (scipy's bounded Brent search over log β) of the same objective, and it is a maximum
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


def test_beta_is_optimised_after_sampling(fitted):
    # Φ uses β̂ (test_estimates_follow_the_counts checks Φ against the counts with it); β̂ is the
    # maximiser for the last sweep's counts, which the planted topics (sparse blocks) put below the start
    record = fitted.manifest["training"]["beta"]
    assert record["start"] == 0.1 and 0 < record["optimised"] < 0.09
    assert record["method"].startswith("Minka's fixed point")


def test_topics_from_the_last_sweep(planted):
    corpus, _ = planted
    last = train(corpus, "lda-gibbs", k=4, seed=2, iterations=60, optimize_interval=0, topics_from="last")
    assert last.params["topics_from"] == "last" and last.params["average_last"] == 1
    assert last.manifest["training"]["beta"] == {"start": 0.1, "optimised": None}
    # θ from the counts of one sample, the sampler's final state replayed directly
    lengths = corpus.doc_lengths()
    n_dk = last.theta * (lengths[:, None] + last.alpha.sum()) - last.alpha
    sampler = tp.LDAModel(k=4, alpha=0.25 / 4, eta=0.1, seed=2, min_cf=0, min_df=0, rm_top=0)
    sampler.optim_interval, sampler.burn_in = 0, 200
    for d in range(len(corpus)):
        sampler.add_doc([corpus.vocab.words[t] for t in corpus.doc(d)])
    sampler.train(60, workers=1)
    counts = np.array([np.bincount(doc.topics, minlength=4) for doc in sampler.docs])
    assert np.allclose(n_dk, counts, atol=1e-8)
    with pytest.raises(InputError, match="topics_from"):
        train(corpus, "lda-gibbs", k=4, iterations=5, topics_from="first")
