"""``estimate``: inputs, reproducibility, runs, results and refusals."""

from __future__ import annotations

import json
import re

import numba
import numpy as np
import pytest
from scipy.special import logsumexp

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.likelihood import METHODS, completion, estimate, estimators, exact, synthetic_corpus
from tealeaves.likelihood import _kernels as kernels
from tealeaves.likelihood.documents import as_documents
from tealeaves.likelihood.estimators import ICM_SWEEPS
from tealeaves.models import TopicModel
from tealeaves.results import write_result
from tealeaves.rng import family_seed

from .tiny import gibbs_laws, peaked_model, tiny_model

FAST = {
    "is-prior-theta": {"samples": 20},
    "is-pzw": {"samples": 20},
    "is-iterated-pseudocounts": {"iterations": 2, "samples": 20},
    "harmonic-mean": {"burn_in": 2, "samples": 20},
    "ais": {"temperatures": 20},
    "chib": {"samples": 20},
    "left-to-right": {"particles": 5},
}


@pytest.fixture(scope="module")
def small():
    phi, alpha = tiny_model(5, 30, seed=2)
    rng = np.random.default_rng(1)
    docs = [rng.integers(0, 30, size=n) for n in (12, 0, 40, 7, 25, 1, 60, 33)]
    return phi, alpha, docs


def test_every_method_is_registered_with_its_table_1_label():
    labels = {name: spec.label for name, spec in METHODS.items()}
    assert labels == {
        "is-prior-theta": "IS-PT",
        "is-pzw": "IS-PZW",
        "is-iterated-pseudocounts": "IS-IP",
        "harmonic-mean": "HM",
        "ais": "AIS",
        "chib": "CS",
        "left-to-right": "LR",
    }
    assert set(FAST) == set(METHODS)
    assert "BIASED" in METHODS["harmonic-mean"].guarantee({})
    for name, spec in METHODS.items():
        assert spec.function.__doc__ and "Cost" in spec.function.__doc__, name


@pytest.mark.parametrize("method", sorted(FAST))
def test_same_seed_same_result_any_thread_count(small, method):
    phi, alpha, docs = small
    a = estimate(phi, alpha, docs, method=method, seed=7, **FAST[method])
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = estimate(phi, alpha, docs, method=method, seed=7, **FAST[method])
    finally:
        numba.set_num_threads(previous)
    assert np.array_equal(a.log_prob, b.log_prob)
    assert not np.array_equal(a.log_prob, estimate(phi, alpha, docs, method=method, seed=8, **FAST[method]).log_prob)
    assert a.log_prob[1] == 0.0 and a.n_tokens[1] == 0  # the empty document has probability 1
    assert np.all(np.isfinite(a.log_prob)) and np.all(a.log_prob[a.n_tokens > 0] < 0)


def test_progress_batches_do_not_change_results(small):
    phi, alpha, docs = small
    updates = []
    with_progress = estimate(phi, alpha, docs * 20, method="chib", seed=3, samples=10, progress=updates.append)
    without = estimate(phi, alpha, docs * 20, method="chib", seed=3, samples=10)
    assert np.array_equal(with_progress.log_prob, without.log_prob)
    assert len(updates) > 10 and updates[-1].done == updates[-1].total == len(docs) * 20


def test_methods_agree_on_a_longer_document():
    # 60 tokens from peaked topics, too many to enumerate: the reference is LR with R = 5,000 over
    # 40 copies (standard error about 0.003 nats). Each unbiased method's log of the mean of P̂ over
    # 20 copies must lie within 4 standard errors (its sd of log P̂ / sqrt(20), combined with the
    # reference's) of it; the harmonic mean lies far above.
    phi, alpha = peaked_model(5, 30, seed=3)
    doc = synthetic_corpus(phi, alpha, 1, 60, seed=2).doc(0)
    reference = estimate(phi, alpha, [doc] * 40, method="left-to-right", particles=5000, seed=5)
    ref_se = reference.log_prob.std(ddof=1) / np.sqrt(40)
    for method, params in (
        ("left-to-right", {"particles": 300}),
        ("chib", {"samples": 300}),
        ("ais", {"temperatures": 10_000}),
    ):
        values = estimate(phi, alpha, [doc] * 20, method=method, seed=1, **params).log_prob
        se = values.std(ddof=1) / np.sqrt(20)
        gap = (logsumexp(values) - np.log(20)) - (logsumexp(reference.log_prob) - np.log(40))
        assert abs(gap) < 4 * np.hypot(se, ref_se), (method, gap, se)
    hm = estimate(phi, alpha, [doc] * 10, method="harmonic-mean", burn_in=50, samples=500, seed=1).log_prob.mean()
    assert hm > reference.log_prob.mean() + 1.0


@pytest.mark.parametrize("method", sorted(FAST))
def test_extreme_probabilities_stay_finite(method):
    # words with φ = 1e-200 under every topic: each factor is folded into the log, never multiplied
    # to 0 (P(w) is about e^-1383). Over 4,000 copies the mean of P̂ / P(w) must be 1 within 4 of its
    # standard errors for the unbiased methods; for the harmonic mean the mean of P(w) / P̂ must
    # match its exact expectation under the enumerated law of its Gibbs chain, within 4 bounded
    # standard errors (see test_unbiased.py).
    phi = np.full((3, 4), 1e-200)
    phi[:, :2] = [[0.7, 0.3], [0.5, 0.5], [0.1, 0.9]]
    phi /= phi.sum(axis=1, keepdims=True)
    alpha = np.array([0.2, 0.5, 1.0])
    doc = np.array([2, 3, 0, 2, 1])
    truth = exact(phi, alpha, doc)
    copies = 4000
    result = estimate(phi, alpha, [doc] * copies, method=method, seed=1, **FAST[method])
    assert np.all(np.isfinite(result.log_prob)) and truth < -1000
    if method == "harmonic-mean":
        burn_in, samples = FAST[method]["burn_in"], FAST[method]["samples"]
        z, laws = gibbs_laws(phi, alpha, doc, burn_in + samples)
        ratio = np.exp(truth - np.log(phi[z, doc]).sum(axis=1))  # P(w) / P(w | z)
        expected = np.mean([law @ ratio for law in laws[burn_in + 1 :]])
        se = np.mean([np.sqrt(law @ ratio**2 - (law @ ratio) ** 2) for law in laws[burn_in + 1 :]]) / np.sqrt(copies)
        observed = np.exp(truth - result.log_prob)
    else:
        expected, observed = 1.0, np.exp(result.log_prob - truth)
        se = observed.std(ddof=1) / np.sqrt(copies)
    assert se < 0.02 and abs(observed.mean() - expected) < 4 * se, (observed.mean(), expected, se)


def test_corpus_folder_and_lists_give_the_same_estimates(small, tmp_path):
    """A Corpus, its folder (a str or a Path: it was refused as "docs must be a Corpus or a list of token-id
    arrays") and token-id lists give the same estimates; anything else is refused saying what docs may be."""
    phi, alpha, docs = small
    vocab = Vocabulary([f"w{i}" for i in range(30)])
    corpus = Corpus.from_documents(docs, vocab)
    corpus.save(tmp_path / "heldout")
    a = estimate(phi, alpha, corpus, method="left-to-right", seed=2)
    b = estimate(phi, alpha, docs, method="left-to-right", seed=2)
    assert np.array_equal(a.log_prob, b.log_prob) and a.ids == tuple(corpus.ids)
    for folder in (tmp_path / "heldout", str(tmp_path / "heldout")):
        assert np.array_equal(estimate(phi, alpha, folder, method="left-to-right", seed=2).log_prob, a.log_prob)
    with pytest.raises(InputError, match=r"^docs must be a Corpus or a corpus folder, token-id arrays"):
        estimate(phi, alpha, 42)
    for ragged in ([[0.5, 0.5], [1.0]], [[(0, 1)], [(1, 2), (3, 4)]]):  # numpy's ValueError came out raw
        with pytest.raises(InputError, match=r"^phi must be a K x V matrix of .* or a topic model, got a list"):
            estimate(ragged, alpha, docs)


def test_a_topic_model_supplies_alpha_and_maps_other_vocabularies(small):
    phi, alpha, docs = small
    vocab = Vocabulary([f"w{i}" for i in range(30)])
    model = TopicModel(vocab, phi, alpha=alpha, kind="lda-gibbs")
    reversed_vocab = Vocabulary([*reversed(vocab.words), "unseen"])
    mapped = Corpus.from_documents([29 - np.asarray(d) for d in docs], reversed_vocab)
    a = estimate(model, None, mapped, method="is-pzw", seed=4)
    b = estimate(phi, alpha, docs, method="is-pzw", seed=4)
    assert np.array_equal(a.log_prob, b.log_prob)
    with_unseen = Corpus.from_documents([[30, 0, 30, 1], [2]], reversed_vocab)
    with pytest.raises(InputError, match="outside the model's vocabulary"):
        estimate(model, None, with_unseen)
    skipped = estimate(model, None, with_unseen, on_missing="skip", method="is-pzw", samples=2000)
    assert list(skipped.n_oov) == [2, 0] and list(skipped.n_tokens) == [2, 1]
    assert skipped.log_prob[0] == pytest.approx(exact(phi, alpha, [29, 28]), abs=0.02)


def test_oov_policy_on_token_lists(small):
    phi, alpha, _ = small
    with pytest.raises(InputError, match='on_missing="skip"'):
        estimate(phi, alpha, [[0, 1, 30], [-1]])
    result = estimate(phi, alpha, [[0, 1, 30], [-1]], on_missing="skip")
    assert list(result.n_oov) == [1, 1] and list(result.n_tokens) == [2, 0] and result.log_prob[1] == 0.0
    with pytest.raises(
        InputError, match="on_missing must be one of error, skip, got 'zero' \\(a word of probability zero"
    ):
        estimate(phi, alpha, [[0]], on_missing="zero")


def test_runs_average_p_and_bootstrap_the_total(small):
    phi, alpha, docs = small
    result = estimate(phi, alpha, docs, method="is-prior-theta", seed=5, runs=4, samples=10)
    assert result.run_log_prob.shape == (4, len(docs)) and result.runs == 4
    expected = np.log(np.exp(result.run_log_prob).mean(axis=0))
    assert np.allclose(result.log_prob, expected)
    single = estimate(phi, alpha, docs, method="is-prior-theta", seed=5, samples=10)
    assert np.array_equal(single.log_prob, result.run_log_prob[0])  # run 0 uses the seed itself
    assert result.total_sd is not None and result.total_sd > 0 and single.total_sd is None
    assert len(set(map(tuple, result.run_log_prob))) == 4


def test_result_tables_and_files(small, tmp_path):
    phi, alpha, docs = small
    result = estimate(phi, alpha, docs, method="left-to-right", seed=1, runs=2)
    frame = result.to_frame()
    assert list(frame.columns[:6]) == ["doc", "id", "n_tokens", "n_oov", "log_prob", "log_prob_per_token"]
    assert {"run_0", "run_1"} <= set(frame.columns)
    assert result.per_token == pytest.approx(result.total / sum(len(d) for d in docs))
    assert result.perplexity == pytest.approx(np.exp(-result.per_token))
    assert result.site_updates == 2 * 1000 * sum(len(d) for d in docs)  # 2 runs x R N (Table 1)
    write_result(result, tmp_path / "r.json")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["method"] == "left-to-right" and data["label"] == "LR-sis" and data["params"]["particles"] == 1000
    assert data["total"] == pytest.approx(result.total) and len(data["log_prob"]) == len(docs)
    write_result(result, tmp_path / "r.csv")
    assert (tmp_path / "r.csv").read_text().splitlines()[0].startswith("doc,id,n_tokens")


def test_particles_default_by_variant(small):
    phi, alpha, docs = small
    defaults = {v: estimate(phi, alpha, docs, variant=v).params["particles"] for v in ("sis", "wallach", "mallet")}
    assert defaults == {"sis": 1000, "wallach": 20, "mallet": 1000}
    assert estimate(phi, alpha, docs, variant="wallach", particles=7).params["particles"] == 7


def test_table_1_costs():
    docs = [np.zeros(10, dtype=int), np.zeros(4, dtype=int)]
    phi, alpha = tiny_model(2, 3, seed=0)
    costs = {
        ("is-prior-theta", (("samples", 7),)): 7 * 14,
        ("is-iterated-pseudocounts", (("iterations", 3), ("samples", 7))): 10 * 14,
        ("harmonic-mean", (("burn_in", 2), ("samples", 5))): 7 * 14,
        ("ais", (("temperatures", 9),)): 9 * 14,
        ("left-to-right", (("particles", 3), ("variant", "wallach"))): 3 * (10 * 9 / 2 + 4 * 3 / 2),
        ("left-to-right", (("particles", 3), ("variant", "mallet"))): 3 * 14,
    }
    for (name, params), cost in costs.items():
        assert estimate(phi, alpha, docs, method=name, **dict(params)).site_updates == cost, name


def test_chib_cost_counts_its_burn_in_and_icm_sweeps():
    # Cost (2 S + B + I) N: with K = 1 every assignment is the same, so ICM's first sweep changes
    # nothing (I = 1) and the cost is exact; with K = 3 each document took 1 <= I <= ICM_SWEEPS sweeps.
    docs = [np.zeros(10, dtype=int), np.zeros(4, dtype=int)]
    one_topic = estimate(np.full((1, 3), 1 / 3), [0.5], docs, method="chib", samples=6, burn_in=7)
    assert one_topic.site_updates == (2 * 6 + 7 + 1) * 14
    phi, alpha = tiny_model(3, 5, seed=1)
    doc = np.random.default_rng(3).integers(0, 5, size=40)
    extra = estimate(phi, alpha, [doc], method="chib", samples=6, burn_in=7, seed=2).site_updates - (2 * 6 + 7) * 40
    assert extra % 40 == 0 and 1 <= extra // 40 <= ICM_SWEEPS


def test_kernels_use_one_stream_per_document_index(small):
    # a batch starting at document 3 of the input reproduces documents 3.. of the whole run, whose
    # streams are those of the method's family under the seed
    phi, alpha, docs = small
    whole = estimate(phi, alpha, docs, method="chib", seed=9, samples=15, burn_in=3).log_prob
    tokens = np.concatenate([np.asarray(d, dtype=np.int32) for d in docs[3:]])
    offsets = np.concatenate([[0], np.cumsum([len(d) for d in docs[3:]])]).astype(np.int64)
    family = family_seed(9, "estimate chib")
    part, _ = kernels.chib(tokens, offsets, np.ascontiguousarray(phi.T), alpha, 15, 3, 100, family, 3)
    assert np.array_equal(part, whole[3:])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "perplexity"}, "unknown method"),
        ({"method": "chib", "particles": 3}, "has no parameter particles"),
        ({"method": "chib", "samples": 0}, r"^chib needs samples >= 1 \(a whole number\), got 0$"),
        ({"method": "left-to-right", "particles": 2.5}, r"^left-to-right needs particles >= 1 \(a whole number\)"),
        ({"method": "left-to-right", "variant": "smc"}, r"^left-to-right needs variant in \{sis, wallach, mallet\}"),
        ({"method": "ais", "schedule": "cosine"}, r"^ais needs schedule in \{linear, geometric, sigmoid\}"),
        ({"method": "harmonic-mean", "burn_in": -1}, r"^harmonic-mean needs burn_in >= 0 \(a whole number\), got -1$"),
        ({"method": "ais", "temperatures": True}, r"^ais needs temperatures >= 1 \(a whole number\), got True$"),
        (
            {"method": "left-to-right", "num_particles": 5},
            r"has no parameter num_particles \(MALLET's name for particles\)",
        ),
        ({"runs": 0}, "runs must be an integer >= 1"),
    ],
)
def test_bad_parameters_are_refused(small, kwargs, message):
    phi, alpha, docs = small
    with pytest.raises(InputError, match=message):
        estimate(phi, alpha, docs, **kwargs)


@pytest.mark.parametrize(
    ("function", "given", "message"),
    [
        (estimators.is_prior_theta, {"samples": 0}, "is-prior-theta needs samples >= 1"),
        (estimators.is_iterated_pseudocounts, {"iterations": -1}, "is-iterated-pseudocounts needs iterations >= 0"),
        (estimators.chib_style, {"burn_in": 1.5}, "chib needs burn_in >= 0"),
        (estimators.left_to_right, {"particles": 0}, "left-to-right needs particles >= 1"),
        (completion.estimated_theta, {"samples": "9"}, "estimated-theta needs samples >= 1"),
        (completion.ais_completion, {"burn_in": -2}, "ais needs burn_in >= 0"),
    ],
)
def test_each_estimator_function_checks_its_options_by_the_same_rules(small, function, given, message):
    # the functions are public (Wallach et al.'s estimators one by one); they refuse as estimate does
    phi, alpha, docs = small
    with pytest.raises(InputError, match=re.escape(message)):
        function(np.ascontiguousarray(phi.T), alpha, as_documents(docs, phi.shape[1]), 0, **given)


def test_bad_models_and_documents_are_refused(small):
    phi, alpha, docs = small
    zero = phi.copy()
    zero[1, 3] = 0.0
    with pytest.raises(InputError, match=r"strictly positive.*topic 1, word 3"):
        estimate(zero, alpha, docs)
    with pytest.raises(InputError, match="sum to 1"):
        estimate(phi * 1.1, alpha, docs)
    with pytest.raises(InputError, match="NaN"):
        estimate(np.full_like(phi, np.nan), alpha, docs)
    with pytest.raises(InputError, match="K x V"):
        estimate(phi[0], alpha, docs)
    with pytest.raises(InputError, match="5 positive finite values"):
        estimate(phi, alpha[:3], docs)
    with pytest.raises(InputError, match="5 positive finite values"):
        estimate(phi, -alpha, docs)
    with pytest.raises(InputError, match="Dirichlet prior"):
        estimate(phi, None, docs)
    no_prior = TopicModel(Vocabulary([f"w{i}" for i in range(30)]), phi, kind="plsi")
    with pytest.raises(InputError, match=r"kind 'plsi' has none.*predictive"):
        estimate(no_prior, None, docs)
    with pytest.raises(InputError, match="single array"):
        estimate(phi, alpha, np.array([1, 2, 3]))
    with pytest.raises(InputError, match="integer token ids"):
        estimate(phi, alpha, [[0.5, 1.0]])
    other = Corpus.from_documents([[0]], Vocabulary(["a", "b"]))
    with pytest.raises(InputError, match="vocabulary of 2 words but phi has 30"):
        estimate(phi, alpha, other)


def test_the_documents_a_model_was_trained_on_are_warned_about():
    """estimate, complete and predictive warn when given the model's own training corpus (its fingerprint in the
    manifest) or documents a third of which are training ones, and not for its held-out split nor for bare
    arrays."""
    import warnings

    from tealeaves.likelihood import TrainingDocumentsWarning, complete, predictive
    from tealeaves.models import train

    corpus = synthetic_corpus(*tiny_model(2, 12, 3), n_docs=40, doc_length=20, seed=3)
    seen, unseen = corpus.split(0.25, seed=0)
    model = train(seen, "lda-gibbs", k=2, iterations=10)
    calls = {
        "the likelihood": lambda docs: estimate(model, None, docs, particles=5),
        "document completion": lambda docs: complete(model, None, docs, particles=5),
        "the predictive likelihood": lambda docs: predictive(model, docs),
    }
    for what, call in calls.items():
        with pytest.warns(
            TrainingDocumentsWarning, match=f"all 30 documents are documents the lda-gibbs model was trained on: {what}"
        ) as caught:
            call(seen)
        assert caught[0].filename == __file__  # pointing at the caller's line, not inside tealeaves
        with warnings.catch_warnings():
            warnings.simplefilter("error", TrainingDocumentsWarning)
            call(unseen)
    mixed = Corpus.from_documents([seen.doc(i) for i in range(5)] + [unseen.doc(i) for i in range(10)], seen.vocab)
    with pytest.warns(TrainingDocumentsWarning, match=r"^5 of the 15 \(33%\) documents are documents the lda-gibbs"):
        estimate(model, None, mixed, particles=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingDocumentsWarning)
        estimate(model.phi, model.alpha, [seen.doc(i) for i in range(len(seen))], particles=5)


def test_a_gensim_model_and_its_texts_are_estimated_as_a_topic_model_and_corpus():
    """estimate, complete and predictive take a gensim LdaModel (through as_model) and gensim's texts (token
    lists, or a Dictionary with its bags of words) and give exactly what the converted model and corpus give;
    bags of words without their Dictionary and objects no adapter reads are refused in one line."""
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    from tealeaves.corpus import as_corpus
    from tealeaves.likelihood import complete, predictive
    from tealeaves.models import as_model

    rng = np.random.default_rng(4)
    words = [f"w{i}" for i in range(30)]
    texts = [[words[i] for i in rng.integers(0, 30, size=15)] for _ in range(40)]
    dictionary = Dictionary(texts)
    bags = [dictionary.doc2bow(text) for text in texts]
    lda = LdaModel(bags, id2word=dictionary, num_topics=3, passes=2, random_state=0)
    model, corpus = as_model(lda), as_corpus(texts)
    converted = estimate(model, None, corpus, particles=20, seed=1).log_prob
    np.testing.assert_array_equal(estimate(lda, None, texts, particles=20, seed=1).log_prob, converted)
    np.testing.assert_array_equal(
        complete(lda, None, texts, particles=20, seed=1).log_prob,
        complete(model, None, corpus, particles=20, seed=1).log_prob,
    )
    # bags of words lose the word order, which the importance sampler from the prior does not use
    pair = estimate(lda, None, (dictionary, bags), method="is-prior-theta", samples=200, seed=1).log_prob
    np.testing.assert_allclose(
        pair, estimate(model, None, corpus, method="is-prior-theta", samples=200, seed=1).log_prob, rtol=1e-12
    )
    on_its_words = Corpus.from_tokenized(texts, vocab=model.vocab)  # predictive needs the model's vocabulary
    np.testing.assert_array_equal(
        predictive(lda, on_its_words, seed=1).log_likelihood, predictive(model, on_its_words, seed=1).log_likelihood
    )
    with pytest.raises(InputError, match="a bag-of-words corpus needs its Dictionary"):
        estimate(lda, None, bags)
    # a scikit-learn model with its vectorizer, as a pair, is one model (it was read as an array of Φ)
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(token_pattern=r"\S+")
    fitted = LatentDirichletAllocation(3, max_iter=3, random_state=0).fit(
        vectorizer.fit_transform(map(" ".join, texts))
    )
    for pair in [(fitted, vectorizer), [vectorizer, fitted]]:
        np.testing.assert_array_equal(
            estimate(pair, None, corpus, particles=20, seed=1).log_prob,
            estimate(as_model((fitted, vectorizer)), None, corpus, particles=20, seed=1).log_prob,
        )
    with pytest.raises(InputError, match="cannot read an object as topics: pass a TopicModel"):
        estimate(object(), None, texts)
