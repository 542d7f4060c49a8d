"""Importers: round trips through each library's own saved files, vocabulary alignment, the CLI."""

from __future__ import annotations

import gzip
import json
import pickle
import warnings

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.corpus import Vocabulary
from tealeaves.errors import InputError
from tealeaves.models import TopicModel, Topics, import_model
from tealeaves.models.adapters import RenormalisationWarning, align_vocabulary
from tealeaves.models.compare import hellinger
from tealeaves.models.importers import read_safetensors

from .planted import lda_corpus

K = 4


@pytest.fixture(scope="module")
def corpus():
    return lda_corpus(k=K, v=60, n_docs=150, length=40, seed=7)[0]


@pytest.fixture(scope="module")
def texts(corpus):
    return corpus.texts()


def columns(model: TopicModel, words) -> np.ndarray:
    """The model's Φ with its columns in the order of ``words``."""
    return model.phi[:, [model.vocab.id(w) for w in words]]


# --------------------------------------------------------------------------- gensim
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gensim_round_trip(tmp_path, corpus, texts, dtype):
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    dictionary = Dictionary(texts)
    bows = [dictionary.doc2bow(t) for t in texts]
    lda = LdaModel(bows, num_topics=K, id2word=dictionary, passes=3, random_state=0, dtype=dtype)
    lda.save(str(tmp_path / "lda.gensim"))
    model = import_model("gensim", tmp_path / "lda.gensim", vocab_from=corpus)
    assert model.kind == "lda-vb" and model.vocab == corpus.vocab
    words = [dictionary[i] for i in range(len(dictionary))]
    lam = lda.state.get_lambda().astype(np.float64)
    assert np.allclose(columns(model, words), lam / lam.sum(axis=1, keepdims=True), rtol=0, atol=1e-9)
    if dtype is np.float64:
        assert np.allclose(columns(model, words), lda.get_topics(), rtol=0, atol=1e-9)
    for k in range(K):
        assert model.top_words(5)[k] == [w for w, _ in lda.show_topic(k, topn=5)]
    assert np.allclose(model.alpha, lda.alpha)
    assert model.manifest["import"]["vocabulary_alignment"]["dropped_words"] == 0
    # our variational inference of θ agrees with gensim's own E-step
    gamma = lda.inference(bows)[0]
    assert hellinger(model.infer(corpus), gamma / gamma.sum(axis=1, keepdims=True)).mean() < 0.02


def test_gensim_multicore_file(tmp_path, texts, corpus):
    from gensim.corpora import Dictionary
    from gensim.models import LdaMulticore

    dictionary = Dictionary(texts)
    lda = LdaMulticore(
        [dictionary.doc2bow(t) for t in texts], num_topics=K, id2word=dictionary, workers=1, random_state=0
    )
    lda.save(str(tmp_path / "multi.gensim"))
    model = import_model("gensim", tmp_path / "multi.gensim", vocab_from=corpus)
    words = [dictionary[i] for i in range(len(dictionary))]
    expected = lda.get_topics().astype(np.float64)
    assert np.allclose(columns(model, words), expected / expected.sum(axis=1, keepdims=True), atol=1e-9)
    # the model file copied without the files gensim saved beside it: named, where gensim's own error came out
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "multi.gensim").write_bytes((tmp_path / "multi.gensim").read_bytes())
    with pytest.raises(InputError, match=r"multi.gensim.expElogbeta.npy is missing; gensim saves a model as multi"):
        import_model("gensim", tmp_path / "alone" / "multi.gensim", vocab_from=corpus)


# --------------------------------------------------------------------------- scikit-learn
@pytest.fixture(scope="module")
def sklearn_pipeline(texts):
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import Pipeline

    joined = [" ".join(t) for t in texts]
    lda = LatentDirichletAllocation(K, random_state=0, max_iter=5)
    return Pipeline([("vec", CountVectorizer(token_pattern=r"\S+")), ("lda", lda)]).fit(joined), joined


def test_sklearn_round_trip(tmp_path, corpus, sklearn_pipeline):
    pipeline, joined = sklearn_pipeline
    joblib.dump(pipeline, tmp_path / "pipe.joblib")
    model = import_model("sklearn", tmp_path / "pipe.joblib", vocab_from=corpus)
    lda, words = pipeline.named_steps["lda"], list(pipeline.named_steps["vec"].get_feature_names_out())
    expected = lda.components_ / lda.components_.sum(axis=1, keepdims=True)
    assert np.allclose(columns(model, words), expected, rtol=0, atol=1e-9)
    assert model.top_words(6) == [[words[i] for i in np.argsort(-row, kind="stable")[:6]] for row in expected]
    assert np.allclose(model.alpha, lda.doc_topic_prior_) and model.kind == "lda-vb"
    assert hellinger(model.infer(corpus), pipeline.transform(joined)).mean() < 0.02
    # the same model as a pickled (vectorizer, lda) tuple, and alone with a vocabulary file
    with open(tmp_path / "pair.pkl", "wb") as handle:
        pickle.dump((pipeline.named_steps["vec"], lda), handle)
    assert np.array_equal(import_model("sklearn", tmp_path / "pair.pkl", vocab_from=corpus).phi, model.phi)
    joblib.dump(lda, tmp_path / "lda.joblib")
    (tmp_path / "vocab.txt").write_text("\n".join(words))
    alone = import_model("sklearn", tmp_path / "lda.joblib", vocab_from=corpus, vocabulary=str(tmp_path / "vocab.txt"))
    assert np.array_equal(alone.phi, model.phi)
    with pytest.raises(InputError, match="no vectorizer"):
        import_model("sklearn", tmp_path / "lda.joblib")


# --------------------------------------------------------------------------- tomotopy
def test_tomotopy_lda_and_ctm_round_trip(tmp_path, corpus, texts):
    import tomotopy as tp

    lda = tp.LDAModel(k=K, seed=0)
    for t in texts:
        lda.add_doc(t)
    lda.train(50, workers=1)
    lda.save(str(tmp_path / "lda.bin"))
    model = import_model("tomotopy", tmp_path / "lda.bin", vocab_from=corpus)
    reported = np.array([lda.get_topic_word_dist(k) for k in range(K)], dtype=np.float64)
    reported /= reported.sum(axis=1, keepdims=True)
    assert np.allclose(columns(model, list(lda.used_vocabs)), reported, rtol=0, atol=1e-9)
    assert model.kind == "lda-gibbs" and np.allclose(model.alpha, lda.alpha)
    for k in range(K):  # the same top words (up to ties, which Gibbs counts make common)
        theirs = [w for w, _ in lda.get_topic_words(k, top_n=5)]
        ours = model.top_words(5)[k]
        assert np.allclose(model.phi[k, model.vocab.ids(theirs)], model.phi[k, model.vocab.ids(ours)], atol=1e-12)
    assert model.theta.shape == (len(texts), K)
    assert model.infer(corpus, burn_in=5, samples=5).shape == (len(corpus), K)

    ctm = tp.CTModel(k=K, seed=0)
    for t in texts:
        ctm.add_doc(t)
    ctm.train(10, workers=1)
    ctm.save(str(tmp_path / "ctm.bin"))
    imported = import_model("tomotopy", tmp_path / "ctm.bin", vocab_from=corpus)
    assert imported.kind == "ctm" and imported.alpha is None
    assert np.allclose(imported.extra["prior_mean"], ctm.prior_mean)
    assert np.allclose(imported.extra["prior_cov"], np.asarray(ctm.prior_cov).reshape(K, K))
    assert np.allclose(imported.infer(corpus).sum(axis=1), 1.0)

    hdp = tp.HDPModel(initial_k=2, seed=0)
    for t in texts[:20]:
        hdp.add_doc(t)
    hdp.train(2, workers=1)
    hdp.save(str(tmp_path / "hdp.bin"))
    with pytest.raises(InputError, match="not a tomotopy LDAModel file"):
        import_model("tomotopy", tmp_path / "hdp.bin")
    (tmp_path / "junk.bin").write_bytes(b"LDA\0 but not a model")
    with pytest.raises(InputError, match="not a tomotopy model file"):
        import_model("tomotopy", tmp_path / "junk.bin")


# --------------------------------------------------------------------------- MALLET
@pytest.fixture(scope="module")
def mallet_files(tmp_path_factory, corpus):
    """A Gibbs state and the matching weights/doc-topics files, written as MALLET writes them."""
    folder = tmp_path_factory.mktemp("mallet")
    rng = np.random.default_rng(0)
    alpha, beta = np.array([0.1, 0.2, 0.3, 0.4]), 0.01
    words = corpus.vocab.words
    z = [rng.integers(0, K, size=len(corpus.doc(d))) for d in range(len(corpus))]
    lines = ["#doc source pos typeindex type topic", "#alpha : " + " ".join(map(str, alpha)) + " ", f"#beta : {beta}"]
    for d in range(len(corpus)):
        for pos, (t, topic) in enumerate(zip(corpus.doc(d), z[d])):
            lines.append(f"{d} NA {pos} {t} {words[t]} {topic}")
    with gzip.open(folder / "state.gz", "wt") as handle:
        handle.write("\n".join(lines) + "\n")
    n_kw = np.zeros((K, len(words)))
    n_dk = np.zeros((len(corpus), K))
    for d in range(len(corpus)):
        for t, topic in zip(corpus.doc(d), z[d]):
            n_kw[topic, t] += 1
            n_dk[d, topic] += 1
    present = np.flatnonzero(n_kw.sum(axis=0) > 0)  # MALLET's alphabet: the types that occur
    n_kw = n_kw[:, present]
    with open(folder / "weights.txt", "w") as handle:
        for k in range(K):
            for column, t in enumerate(present):
                handle.write(f"{k}\t{words[t]}\t{n_kw[k, column] + beta}\n")
    theta = (n_dk + alpha) / (n_dk.sum(axis=1, keepdims=True) + alpha.sum())
    with open(folder / "dense.txt", "w") as handle:
        for d in range(len(corpus)):
            handle.write(f"{d}\tdoc{d}\t" + "\t".join(map(str, theta[d])) + "\n")
    with open(folder / "sparse.txt", "w") as handle:
        handle.write("#doc name topic proportion ...\n")
        for d in range(len(corpus)):
            order = np.argsort(-theta[d], kind="stable")
            handle.write(f"{d}\tdoc{d}\t" + "".join(f"{k}\t{theta[d, k]}\t" for k in order) + "\n")
    return folder, n_kw, theta, alpha, beta, [words[t] for t in present]


def test_mallet_state(corpus, mallet_files):
    folder, n_kw, theta, alpha, beta, types = mallet_files
    model = import_model("mallet-state", folder / "state.gz", vocab_from=corpus)
    expected = (n_kw + beta) / (n_kw.sum(axis=1, keepdims=True) + n_kw.shape[1] * beta)
    assert np.allclose(columns(model, types), expected, rtol=0, atol=1e-9)
    report = model.manifest["import"]["vocabulary_alignment"]
    assert report["missing_words"] == len(corpus.vocab) - len(types) and report["dropped_words"] == 0
    assert np.allclose(model.theta, theta, atol=1e-12) and np.allclose(model.alpha, alpha)
    assert model.kind == "lda-gibbs" and model.params["beta"] == beta
    for k in range(K):
        top = np.sort(expected[k])[::-1][:5]
        assert np.allclose(model.phi[k, model.vocab.ids(model.top_words(5)[k])], top, atol=1e-9)


@pytest.mark.parametrize("doc_topics", ["dense.txt", "sparse.txt"])
def test_mallet_weights_and_doc_topics(corpus, mallet_files, doc_topics):
    folder, _, theta, alpha, _, _ = mallet_files
    model = import_model(
        "mallet",
        folder / "weights.txt",
        vocab_from=corpus,
        doc_topics=str(folder / doc_topics),
        alpha="0.1,0.2,0.3,0.4",
    )
    state = import_model("mallet-state", folder / "state.gz", vocab_from=corpus)
    assert np.allclose(model.phi, state.phi, rtol=0, atol=1e-9)
    assert np.allclose(model.theta, theta, atol=1e-12) and np.allclose(model.alpha, alpha)
    no_prior = import_model("mallet", folder / "weights.txt", vocab_from=corpus)
    assert no_prior.alpha is None and no_prior.theta is None
    with pytest.raises(InputError, match="one positive number or 4"):
        import_model("mallet", folder / "weights.txt", alpha="0.1,0.2")


# --------------------------------------------------------------------------- OCTIS
def test_octis_model_output(tmp_path, corpus, texts):
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    # what OCTIS' LDA wrapper returns, saved the way octis.models.model.save_model_output saves it
    dictionary = Dictionary(texts)
    bows = [dictionary.doc2bow(t) for t in texts]
    lda = LdaModel(bows, num_topics=K, id2word=dictionary, passes=2, random_state=1)
    topic_word = lda.get_topics()
    topic_document = np.zeros((K, len(bows)))
    for d, bow in enumerate(bows):
        for k, p in lda.get_document_topics(bow, minimum_probability=0):
            topic_document[k, d] = p
    topics = [[dictionary[i] for i in np.argsort(row)[-10:][::-1]] for row in topic_word]
    np.savez_compressed(
        tmp_path / "output",
        topics=np.array(topics),
        **{"topic-word-matrix": topic_word.round(7), "topic-document-matrix": topic_document.round(7)},
    )
    (tmp_path / "vocabulary.json").write_text(json.dumps({str(i): dictionary[i] for i in range(len(dictionary))}))
    model = import_model(
        "octis", tmp_path / "output.npz", vocab_from=corpus, vocabulary=str(tmp_path / "vocabulary.json")
    )
    words = [dictionary[i] for i in range(len(dictionary))]
    rounded = topic_word.round(7).astype(np.float64)
    assert np.allclose(columns(model, words), rounded / rounded.sum(axis=1, keepdims=True), rtol=0, atol=1e-9)
    assert [list(t) for t in model.topics(10).words] == topics
    assert model.kind == "octis" and model.alpha is None and model.theta.shape == (len(texts), K)
    with pytest.raises(InputError, match="no Dirichlet prior"):
        model.infer(corpus)
    with_prior = import_model(
        "octis", tmp_path / "output.npz", vocab_from=corpus, vocabulary=str(tmp_path / "vocabulary.json"), alpha="0.25"
    )
    assert np.allclose(with_prior.alpha, 0.25)


# --------------------------------------------------------------------------- BERTopic
def test_bertopic_folder_and_matrix(tmp_path, corpus):
    from safetensors.numpy import save_file

    rng = np.random.default_rng(3)
    words = list(corpus.vocab.words[5:])  # the vectorizer saw fewer words than the corpus has
    dense = rng.gamma(0.3, 1.0, size=(K + 1, len(words))) * (rng.random((K + 1, len(words))) < 0.5)
    ctfidf = sp.csr_matrix(dense)
    folder = tmp_path / "bertopic"
    folder.mkdir()
    save_file(
        {
            "indptr": ctfidf.indptr.astype(np.int32),
            "indices": ctfidf.indices.astype(np.int32),
            "data": ctfidf.data,
            "shape": np.array(ctfidf.shape, dtype=np.int64),
            "diag": rng.random(len(words)),
        },
        str(folder / "ctfidf.safetensors"),
    )
    vocab = {w: i for i, w in enumerate(words)}
    config = {"ctfidf_model": {"bm25_weighting": False, "reduce_frequent_words": False}}
    config["vectorizer_model"] = {"params": {"lowercase": True}, "vocab": vocab}
    (folder / "ctfidf_config.json").write_text(json.dumps(config))
    (folder / "topics.json").write_text(json.dumps({"_outliers": 1, "topic_sizes": {"-1": 3, "0": 9}}))
    assert np.array_equal(read_safetensors(folder / "ctfidf.safetensors")["data"], ctfidf.data)

    model = import_model("bertopic", folder, vocab_from=corpus)
    expected = dense[1:] / dense[1:].sum(axis=1, keepdims=True)
    assert model.k == K and model.kind == "bertopic" and model.alpha is None
    assert np.allclose(columns(model, words), expected, rtol=0, atol=1e-9)
    assert model.top_words(3) == [[words[i] for i in np.argsort(-row, kind="stable")[:3]] for row in expected]
    assert "not a generative topic model" in model.manifest["import"]["note"]
    report = model.manifest["import"]["vocabulary_alignment"]
    assert report["missing_words"] == 5 and report["dropped_words"] == 0
    assert report["floored_entries"] == int((dense[1:] == 0).sum()) + 5 * K
    assert import_model("bertopic", folder, vocab_from=corpus, outliers=True).k == K + 1

    sp.save_npz(tmp_path / "ctfidf.npz", ctfidf[1:])
    (tmp_path / "words.txt").write_text("\n".join(words))
    matrix = import_model(
        "bertopic", tmp_path / "ctfidf.npz", vocab_from=corpus, vocabulary=str(tmp_path / "words.txt")
    )
    assert np.array_equal(matrix.phi, model.phi)


# --------------------------------------------------------------------------- topic lists and alignment
def test_topic_lists(tmp_path, corpus):
    (tmp_path / "topics.txt").write_text("w001 w002 w003\nw010 zebra w011\n")
    topics = import_model("topics", tmp_path / "topics.txt", vocab_from=corpus, out=tmp_path / "out")
    assert isinstance(topics, Topics) and topics.words == (("w001", "w002", "w003"), ("w010", "zebra", "w011"))
    report = topics.meta["import"]["vocabulary_alignment"]
    assert report["missing_words"] == 1 and report["missing_examples"] == ["zebra"]
    assert Topics.load(tmp_path / "out" / "topics.txt").words == topics.words
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["kind"] == "topics"


def test_alignment_policy():
    vocab = Vocabulary(["a", "b", "c", "d"])
    weights = np.array([[1.0, 1.0, 2.0, 0.0], [0.0, 3.0, 1.0, 0.0]])  # over words a b x c
    with pytest.warns(RenormalisationWarning, match="2 topic\\(s\\) lost more than 5%.*topic 0 50.0%, topic 1 25.0%"):
        phi, report = align_vocabulary(["a", "b", "x", "c"], weights, vocab, floor=1e-6)
    # topic 0 is (1/4, 1/4, [x] 1/2, 0): x's half is dropped, c (0) and d (absent) are floored
    raw0 = np.array([0.25, 0.25, 1e-6, 1e-6])
    assert np.allclose(phi[0], raw0 / raw0.sum())
    # topic 1 is (0, 3/4, [x] 1/4, 0): a and c (0) and d (absent) are floored
    raw1 = np.array([1e-6, 0.75, 1e-6, 1e-6])
    assert np.allclose(phi[1], raw1 / raw1.sum())
    assert report["dropped_words"] == 1 and report["dropped_examples"] == ["x"]
    assert np.allclose(report["dropped_mass_per_topic"], [0.5, 0.25])
    assert report["missing_words"] == 1 and report["missing_examples"] == ["d"]
    assert report["floored_entries"] == 5 and report["matched_words"] == 3
    assert report["topics_losing_over_5pct"] == [0, 1]
    with pytest.raises(InputError, match="no mass on any word"):
        align_vocabulary(["x", "y"], np.ones((1, 2)), vocab)
    with pytest.raises(InputError, match="non-negative"):
        align_vocabulary(["a", "b"], np.array([[1.0, -1.0]]), vocab)


@pytest.mark.parametrize(("lost", "warned"), [(0.049, False), (0.051, True)])
def test_renormalisation_warns_above_five_percent_lost(lost, warned):
    # Defect 9: dropping a word that carried > 5% of a topic's mass is warned about
    vocab = Vocabulary(["a", "b", "c"])
    weights = np.array([[0.5 - lost / 2, 0.5 - lost / 2, lost], [0.5, 0.5, 0.0]])  # over a b x
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        phi, report = align_vocabulary(["a", "b", "x"], weights, vocab)
    assert [w.category for w in caught] == ([RenormalisationWarning] if warned else [])
    assert report["topics_losing_over_5pct"] == ([0] if warned else [])
    # what the warning is about: the kept words of topic 0 are scaled up by 1 / (1 - lost)
    assert phi[0, 0] == pytest.approx((0.5 - lost / 2) / (1 - lost), rel=1e-9)


@pytest.fixture(scope="module")
def gensim_with_an_extra_word(tmp_path_factory, texts):
    """A gensim LdaModel whose documents also hold "zzz", a word the tealeaves corpus lacks."""
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    extra = [t + ["zzz"] * (8 if i % K == 0 else 0) for i, t in enumerate(texts)]
    dictionary = Dictionary(extra)
    lda = LdaModel([dictionary.doc2bow(t) for t in extra], num_topics=K, id2word=dictionary, passes=3, random_state=0)
    path = tmp_path_factory.mktemp("gensim-extra") / "lda.gensim"
    lda.save(str(path))
    lam = lda.state.get_lambda()
    lost = lam[:, dictionary.token2id["zzz"]] / lam.sum(axis=1)
    return path, lost


def test_gensim_import_warns_when_a_topic_loses_mass(tmp_path, corpus, gensim_with_an_extra_word):
    path, lost = gensim_with_an_extra_word
    assert lost.max() > 0.05  # the dropped word carries more than 5% of some topic
    with pytest.warns(RenormalisationWarning, match="zzz") as record:
        model = import_model("gensim", path, vocab_from=corpus)
    report = model.manifest["import"]["vocabulary_alignment"]
    assert report["topics_losing_over_5pct"] == np.flatnonzero(lost > 0.05).tolist()
    assert np.allclose(report["dropped_mass_per_topic"], lost, rtol=1e-6)
    assert f"topic {int(np.argmax(lost))} {lost.max():.1%}" in str(record[0].message)
    corpus.save(tmp_path / "corpus")
    result = CliRunner().invoke(
        app, ["import", "gensim", str(path), "--vocab-from", str(tmp_path / "corpus"), "--out", str(tmp_path / "m")]
    )
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stderr and "lost more than 5% of their probability mass" in result.stderr


def test_errors(tmp_path, corpus):
    with pytest.raises(InputError, match="unknown import format"):
        import_model("lda-c", tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        import_model("gensim", tmp_path / "missing")
    (tmp_path / "junk").write_text("not a model")
    with pytest.raises(InputError, match="cannot load"):
        import_model("gensim", tmp_path / "junk")
    with pytest.raises(InputError, match="has no option vocabulary"):
        import_model("gensim", tmp_path / "junk", vocabulary="v.txt")
    with pytest.raises(InputError, match="expected 'doc source pos typeindex type topic'"):
        import_model("mallet-state", tmp_path / "junk")
    (tmp_path / "headless").write_text("0 NA 0 0 word 1\n")
    with pytest.raises(InputError, match="#alpha"):
        import_model("mallet-state", tmp_path / "headless")


def test_cli(tmp_path, corpus, mallet_files):
    folder = mallet_files[0]
    corpus.save(tmp_path / "corpus")
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "import",
            "mallet-state",
            str(folder / "state.gz"),
            "--vocab-from",
            str(tmp_path / "corpus"),
            "--out",
            str(tmp_path / "m"),
        ],
    )
    assert result.exit_code == 0, result.output
    loaded = TopicModel.load(tmp_path / "m")
    assert loaded.kind == "lda-gibbs" and loaded.manifest["import"]["format"] == "mallet-state"
    assert loaded.manifest["import"]["vocabulary_alignment"]["matched_words"] == len(mallet_files[5])
    again = runner.invoke(app, ["import", "mallet-state", str(folder / "state.gz"), "--out", str(tmp_path / "m")])
    assert again.exit_code == 2 and "already exists" in again.output
    bad = runner.invoke(app, ["import", "octis", str(folder / "state.gz"), "--out", str(tmp_path / "o")])
    assert bad.exit_code == 2 and "--vocabulary" in bad.output
