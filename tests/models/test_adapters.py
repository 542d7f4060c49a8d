"""Other libraries' objects, accepted as they are by every entry point (``models/adapters.py``, ``corpus/adapters.py``).

Each accepted shape is a real object of its library (gensim, scikit-learn and tomotopy are in the
test environment), except BERTopic and OCTIS, which are not: for them the tests build stand-ins
with the attribute names of the real library (see :func:`bertopic_stand_in` and :func:`octis_output`).
Every refusal is one InputError that says what is accepted, never a TypeError from inside.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from tealeaves.coherence import RefIndex, diversity, score
from tealeaves.corpus import Corpus, as_corpus
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.intrusion import auto_word_intrusion
from tealeaves.models import TopicModel, Topics, as_model, as_topics, import_model
from tealeaves.models.adapters import ACCEPTED, library_of

from .planted import lda_corpus

K = 4


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return lda_corpus(k=K, v=60, n_docs=150, length=40, seed=7)[0]


@pytest.fixture(scope="module")
def texts(corpus) -> list[list[str]]:
    """The corpus as gensim keeps texts: one list of word strings per document."""
    return corpus.texts()


@pytest.fixture(scope="module")
def gensim_models(texts):
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel, LdaMulticore, LdaSeqModel, Nmf

    dictionary = Dictionary(texts)
    bows = [dictionary.doc2bow(t) for t in texts]
    lda = LdaModel(bows, num_topics=K, id2word=dictionary, passes=3, random_state=0)
    multi = LdaMulticore(bows, num_topics=K, id2word=dictionary, workers=1, passes=2, random_state=0)
    with np.errstate(all="ignore"):
        seq = LdaSeqModel(
            corpus=bows, id2word=dictionary, time_slice=[75, 75], num_topics=K, passes=1, em_min_iter=1,
            em_max_iter=1, lda_inference_max_iter=5, random_state=0,
        )  # fmt: skip
    nmf = Nmf(bows, num_topics=K, id2word=dictionary, passes=5, random_state=0)
    return {"dictionary": dictionary, "bows": bows, "lda": lda, "multi": multi, "seq": seq, "nmf": nmf}


@pytest.fixture(scope="module")
def sklearn_models(texts):
    from sklearn.decomposition import NMF, LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import Pipeline

    joined = [" ".join(t) for t in texts]
    vectorizer = CountVectorizer(token_pattern=r"\S+").fit(joined)
    counts = vectorizer.transform(joined)
    lda = LatentDirichletAllocation(K, random_state=0, max_iter=5).fit(counts)
    nmf = NMF(K, random_state=0, max_iter=200).fit(counts)
    pipeline = Pipeline([("vec", CountVectorizer(token_pattern=r"\S+")), ("lda", LatentDirichletAllocation(K))])
    return {"vectorizer": vectorizer, "lda": lda, "nmf": nmf, "pipeline": pipeline.fit(joined)}


@pytest.fixture(scope="module")
def tomotopy_models(texts):
    import tomotopy as tp

    models = {"lda": tp.LDAModel(k=K, seed=0), "ctm": tp.CTModel(k=K, seed=0)}
    for model in models.values():
        for t in texts:
            model.add_doc(t)
        model.train(30, workers=1)
    return models


class BERTopicStandIn:
    """The attributes of a fitted ``bertopic.BERTopic`` that tealeaves reads (BERTopic is not installed here):
    ``c_tf_idf_`` (scipy CSR, one row per topic, the outlier topic -1 first when ``_outliers`` is 1),
    ``vectorizer_model`` (the fitted vectorizer, ``get_feature_names_out()``) and ``topic_representations_``."""

    def __init__(self, matrix: sp.csr_matrix | None, vectorizer, outliers: int) -> None:
        self.c_tf_idf_ = matrix
        self.vectorizer_model = vectorizer
        self._outliers = outliers
        words = vectorizer.get_feature_names_out()
        rows = [] if matrix is None else matrix.toarray()
        self.topic_representations_ = {
            k - outliers: [(words[i], row[i]) for i in np.argsort(-row)[:10]] for k, row in enumerate(rows)
        }


@pytest.fixture(scope="module")
def bertopic_stand_in(sklearn_models):
    rng = np.random.default_rng(3)
    vectorizer = sklearn_models["vectorizer"]
    v = len(vectorizer.get_feature_names_out())
    dense = rng.gamma(0.3, 1.0, size=(K + 1, v)) * (rng.random((K + 1, v)) < 0.5)
    return BERTopicStandIn(sp.csr_matrix(dense), vectorizer, outliers=1)


def octis_output(lda, dictionary, bows, top_words=10) -> dict:
    """What OCTIS's ``LDA.train_model`` returns (octis/models/LDA.py; OCTIS is not installed here): the
    ``topic-word-matrix`` (K × V, gensim's ``get_topics()``), the ``topics`` (the top words of each row) and the
    ``topic-document-matrix`` (K × D), with the words of the columns in the Dictionary's order."""
    matrix = lda.get_topics()
    topic_document = np.zeros((K, len(bows)))
    for d, bow in enumerate(bows):
        for k, p in lda.get_document_topics(bow, minimum_probability=0):
            topic_document[k, d] = p
    topics = [[dictionary[i] for i in reversed(np.argsort(row)[-top_words:])] for row in matrix]
    return {"topics": topics, "topic-word-matrix": matrix, "topic-document-matrix": topic_document}


@pytest.fixture(scope="module")
def shapes(gensim_models, sklearn_models, tomotopy_models, bertopic_stand_in):
    """Every model shape accepted without options, with the top five words its library says it has."""
    g, s, t = gensim_models, sklearn_models, tomotopy_models
    words = list(s["vectorizer"].get_feature_names_out())

    def by_rows(matrix, names):
        return [[names[i] for i in np.argsort(-row, kind="stable")[:5]] for row in np.asarray(matrix)]

    octis = octis_output(g["lda"], g["dictionary"], g["bows"])
    pipeline_words = list(s["pipeline"].named_steps["vec"].get_feature_names_out())
    return {
        "gensim LdaModel": (g["lda"], [[w for w, _ in g["lda"].show_topic(k, 5)] for k in range(K)]),
        "gensim LdaMulticore": (g["multi"], [[w for w, _ in g["multi"].show_topic(k, 5)] for k in range(K)]),
        "gensim Nmf": (g["nmf"], [[w for w, _ in g["nmf"].show_topic(k, 5)] for k in range(K)]),
        "sklearn LDA and vectorizer": ((s["lda"], s["vectorizer"]), by_rows(s["lda"].components_, words)),
        "sklearn vectorizer and NMF": ((s["vectorizer"], s["nmf"]), by_rows(s["nmf"].components_, words)),
        "sklearn Pipeline": (s["pipeline"], by_rows(s["pipeline"].named_steps["lda"].components_, pipeline_words)),
        "tomotopy LDAModel": (t["lda"], None),
        "tomotopy CTModel": (t["ctm"], None),
        "BERTopic": (bertopic_stand_in, by_rows(bertopic_stand_in.c_tf_idf_.toarray()[1:], words)),
        "OCTIS model output": (octis, [topic[:5] for topic in octis["topics"]]),
    }


SHAPES = [
    "gensim LdaModel",
    "gensim LdaMulticore",
    "gensim Nmf",
    "sklearn LDA and vectorizer",
    "sklearn vectorizer and NMF",
    "sklearn Pipeline",
    "tomotopy LDAModel",
    "tomotopy CTModel",
    "BERTopic",
    "OCTIS model output",
]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_model_shape_is_read_as_its_librarys_topics(shapes, shape):
    obj, expected = shapes[shape]
    model = as_model(obj)
    top = model.top_words(5) if isinstance(model, TopicModel) else [list(t[:5]) for t in model.words]
    if expected is None:  # tomotopy: ties among Gibbs counts make the order of equal words arbitrary
        phi = model.phi
        for k in range(K):
            theirs = [w for w, _ in obj.get_topic_words(k, top_n=5)]
            assert np.allclose(phi[k, model.vocab.ids(theirs)], phi[k, model.vocab.ids(top[k])], atol=1e-12)
    else:
        assert top == expected
    kinds = {
        "gensim Nmf": "nmf",
        "gensim": "lda-vb",
        "BERTopic": "bertopic",
        "tomotopy LDAModel": "lda-gibbs",
        "tomotopy CTModel": "ctm",
    }
    kind = next((v for k, v in kinds.items() if shape.startswith(k)), None)
    if kind is not None:
        assert model.kind == kind
    if "NMF" in shape or "Nmf" in shape:
        assert model.kind == "nmf" and model.alpha is None and "not a probabilistic" in model.manifest["import"]["note"]
    if shape == "OCTIS model output":
        assert isinstance(model, Topics) and model.name == "octis"  # OCTIS keeps no vocabulary: its topics


@pytest.mark.parametrize("shape", SHAPES)
def test_every_entry_point_takes_the_object_as_it_is(shapes, texts, corpus, shape):
    """score, diversity and auto_word_intrusion give for the library's object what they give for its conversion,
    with the reference corpus as gensim's token lists."""
    obj, _ = shapes[shape]
    model = as_model(obj)
    index = RefIndex.build(corpus)
    assert np.array_equal(score(obj, texts).per_topic, score(model, index).per_topic)
    assert diversity(obj).per_topic.tolist() == diversity(model).per_topic.tolist()
    options = {"draws": 2, "folds": 2, "low_rank": 10, "high_rank": 5, "window": "document"}
    assert np.array_equal(
        auto_word_intrusion(obj, texts, seed=0, **options).per_topic,
        auto_word_intrusion(model, index, seed=0, **options).per_topic,
    )


def test_gensim_lda_seq_model_by_its_time_slice(gensim_models, texts):
    seq = gensim_models["seq"]
    for t in (0, 1):
        model = as_model(seq, time_slice=t)
        assert model.kind == "dtm" and model.params["time_slice"] == t and np.allclose(model.alpha, seq.alphas)
        for k in range(K):
            expected = dict(seq.print_topic(k, time=t, top_terms=len(model.vocab)))
            assert np.allclose([model.phi[k, model.vocab.id(w)] for w in expected], list(expected.values()))
    assert np.array_equal(import_model("gensim", seq, time_slice=1).phi, as_model(seq, time_slice=1).phi)
    with pytest.raises(InputError, match=r"topics per time slice \(0 to 1\): choose one with time_slice=T, got None"):
        score(seq, texts)
    with pytest.raises(InputError, match="got 2"):
        as_model(seq, time_slice=2)
    with pytest.raises(InputError, match="time_slice applies to gensim's LdaSeqModel, not to an LdaModel"):
        as_model(gensim_models["lda"], time_slice=0)


def test_octis_output_with_its_vocabulary_is_a_model_checked_against_its_topics(gensim_models, corpus):
    g = gensim_models
    output = octis_output(g["lda"], g["dictionary"], g["bows"])
    words = [g["dictionary"][i] for i in range(len(g["dictionary"]))]
    model = as_model(output, vocabulary=words)
    assert model.kind == "octis" and model.theta.shape == (len(g["bows"]), K)
    assert [list(t) for t in model.topics(10).words] == output["topics"]
    as_octis_json = {str(i): w for i, w in enumerate(words)}  # OCTIS's vocabulary.json
    assert np.array_equal(as_model(output, vocabulary=as_octis_json).phi, model.phi)
    aligned = as_model(output, vocabulary=words, vocab_from=corpus)
    assert aligned.vocab == corpus.vocab and aligned.manifest["import"]["format"] == "octis"
    with pytest.raises(InputError, match="does not name the topic-word-matrix columns"):
        as_model(output, vocabulary=sorted(words, reverse=True))
    with pytest.raises(InputError, match="to read a vocabulary file, import the saved output"):
        as_model(output, vocabulary="vocabulary.json")
    pairs = {**output, "topics": [[[w, 0.1] for w in topic] for topic in output["topics"]]}  # load_model_output's
    assert as_model(pairs).words == as_model(output).words


def test_import_model_takes_the_live_object(tmp_path, gensim_models, sklearn_models, corpus):
    lda = gensim_models["lda"]
    lda.save(str(tmp_path / "lda.gensim"))
    live = import_model("gensim", lda, vocab_from=corpus, out=tmp_path / "imported")
    saved = import_model("gensim", tmp_path / "lda.gensim", vocab_from=corpus)
    assert np.array_equal(live.phi, saved.phi) and np.array_equal(live.alpha, saved.alpha)
    assert TopicModel.load(tmp_path / "imported").manifest["import"]["source"] == "a LdaModel in memory"
    pair = (sklearn_models["lda"], sklearn_models["vectorizer"])
    assert import_model("sklearn", pair, vocab_from=corpus).kind == "lda-vb"
    with pytest.raises(
        InputError, match=r"the sklearn importer reads sklearn models, got a gensim LdaModel; pass format='gensim'"
    ):
        import_model("sklearn", lda)
    with pytest.raises(InputError, match="the mallet importer reads files; pass the path"):
        import_model("mallet", lda)
    with pytest.raises(InputError, match="the gensim importer has no option vocabulary; its options are time_slice"):
        import_model("gensim", lda, vocabulary=["a"])
    topics = import_model("topics", [["w001", "zebra"]], vocab_from=corpus)
    assert topics.meta["import"]["vocabulary_alignment"]["missing_examples"] == ["zebra"]


# --------------------------------------------------------------------------- reference texts
def test_every_texts_shape_gives_the_same_counts(tmp_path, corpus, texts, gensim_models):
    topics = [list(t) for t in as_model(gensim_models["lda"]).top_words(6)]
    corpus.save(tmp_path / "corpus")
    RefIndex.build(corpus, out=tmp_path / "index")
    dictionary, bows = gensim_models["dictionary"], gensim_models["bows"]
    shapes = {
        "token lists": texts,
        "a generator of token lists": (t for t in texts),
        "Corpus": corpus,
        "corpus folder": tmp_path / "corpus",
        "RefIndex": RefIndex.build(corpus),
        "index folder": str(tmp_path / "index"),
        "(Dictionary, bag of words)": (dictionary, bows),
        "(bag of words, Dictionary)": (bows, dictionary),
    }
    expected = score(topics, RefIndex.build(corpus), window="document").per_topic
    for name, reference in shapes.items():
        assert np.allclose(score(topics, reference, window="document").per_topic, expected), name
    sliding = score(topics, texts).per_topic  # token lists keep their order: sliding windows count exactly
    assert np.array_equal(sliding, score(topics, corpus).per_topic)
    with pytest.raises(InputError, match=r'bag of words \(no word order\), so sliding:10 windows .* window="document"'):
        score(topics, (dictionary, bows))
    assert as_corpus((dictionary, bows)).manifest["word_order"] is False


def test_indexing_texts_for_one_call_says_what_it_cost(texts, corpus, monkeypatch):
    from tealeaves.coherence import reference

    topics = [["w001", "w002", "w003"]]
    with warnings.catch_warnings():  # it took less than a second: no note
        warnings.simplefilter("error")
        score(topics, texts)
    monkeypatch.setattr(reference, "INDEX_NOTE_SECONDS", 0.0)
    with pytest.warns(reference.IndexBuildWarning, match=r"150 documents, 6,000 tokens in .* s; build the index once"):
        score(topics, texts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        score(topics, RefIndex.build(corpus))  # an index is not built again: no note


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("topics", "message"),
    [
        (42, re.escape("cannot read an int as topics: pass " + ACCEPTED)),
        ("tax budget war", "cannot read a str as topics"),
        (["tax budget", "war peace"], r"a list of word lists .* not a list of strings: split each topic"),
        ([[1, 2], [3, 4]], r"topic 0 holds 1 \(an int\); topic words must be strings"),
        ({"model": "lda"}, "cannot read a dict as topics"),
        (np.zeros((2, 3)), r"an array of 2 x 3 topic-word weights names no words: pass the model itself"),
        ([["tax", "tax"]], "topic 0 lists the word 'tax' twice \\(tax tax\\)"),
        (
            [["budget"], [f"w{i % 30}" for i in range(500)]],
            r"topic 1 lists the word 'w0' twice \(w0 w1 .* w19 \.\.\. \(500 words\)\)",
        ),
        ([], "no topics given"),
    ],
)
def test_anything_else_is_one_input_error_naming_what_is_accepted(texts, topics, message):
    for entry_point in (as_model, lambda t: score(t, texts), diversity):
        with pytest.raises(InputError, match=message):
            entry_point(topics)


def test_library_objects_it_cannot_read_are_refused_in_their_words(texts, gensim_models, sklearn_models):
    import tomotopy as tp
    from gensim.models import LsiModel
    from sklearn.decomposition import LatentDirichletAllocation, TruncatedSVD

    cases = [
        (LsiModel(gensim_models["bows"], id2word=gensim_models["dictionary"], num_topics=2), "gensim LsiModel is not a topic model tealeaves reads"),
        (LatentDirichletAllocation(2), "holds no fitted LatentDirichletAllocation or NMF .* fit it first"),
        ((LatentDirichletAllocation(2), sklearn_models["vectorizer"]), "holds no fitted .* fit it first"),
        (TruncatedSVD(2).fit(sklearn_models["vectorizer"].transform([" ".join(t) for t in texts])), "TruncatedSVD has no topic-word distributions"),
        (sklearn_models["lda"], "has no vectorizer to say which word each column is"),
        ([(sklearn_models["lda"], sklearn_models["vectorizer"]), sklearn_models["pipeline"]], "a list holds 2 models, not one model with its vectorizer: pass them one at a time"),
        ((sklearn_models["lda"], sklearn_models["nmf"], sklearn_models["vectorizer"]), "a tuple holds 2 models"),
        (tp.HDPModel(), "tomotopy HDPModel has other parameters than LDA's"),
        (tp.LDAModel(k=2), "has no vocabulary yet: add documents and train it first"),
        (BERTopicStandIn(None, sklearn_models["vectorizer"], 0), "no c-TF-IDF matrix .* fit it first"),
        ({"topic-word-matrix": np.ones((2, 3))}, "without 'topics' needs vocabulary="),
    ]  # fmt: skip
    for obj, message in cases:
        assert library_of(obj) is not None
        with pytest.raises(InputError, match=message):
            as_model(obj)


def test_a_gensim_model_trained_without_its_dictionary_is_refused_until_it_has_one(gensim_models):
    """Without id2word= gensim names each column by its number: the topics read as "37 14 35 ...", every word
    missing from any reference. Refused saying how to give it the Dictionary; given, its words are read."""
    from gensim.models import LdaModel

    bows, dictionary = gensim_models["bows"], gensim_models["dictionary"]
    lda = LdaModel(bows, num_topics=K, passes=1, random_state=0)
    with pytest.raises(InputError, match=r"has no id2word dictionary .* only their numbers; set model.id2word = "):
        as_topics(lda)
    lda.id2word = dictionary
    assert set(as_model(lda).vocab.words) == set(dictionary.token2id)


def test_pandas_texts_are_pointed_to_prepare_and_pandas_token_lists_read(texts):
    """A DataFrame (its column names were read as texts) or a Series of raw strings is pointed to prepare, which
    reads pandas objects; a Series of token lists is token lists."""
    import pandas as pd

    raw = [" ".join(text) for text in texts[:5]]
    for frame in (pd.DataFrame({"text": raw}), pd.Series(raw)):
        with pytest.raises(InputError, match=rf"^a pandas {type(frame).__name__} of raw texts: prepare it with"):
            as_corpus(frame)
    assert as_corpus(pd.Series(texts[:5])).texts() == as_corpus(texts[:5]).texts()


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        (42, "cannot read an int as texts: pass a Corpus or a corpus folder, token lists"),
        (["tax budget", "war peace"], "texts must be token lists .* not strings: split each text"),
        ([["tax", 3]], r"text 0 holds 3 \(an int\); tokens must be strings"),
        ([[(0, 1), (2, 3)]], "a bag-of-words corpus needs its Dictionary: pass \\(dictionary, corpus\\)"),
        ([[], []], "the 2 texts hold no tokens"),
        ([["new york", "city"]], "vocabulary word 'new york' is empty or contains whitespace"),
    ],
)
def test_reference_texts_it_cannot_read_are_refused(reference, message):
    error = EmptyResultError if "hold no" in message else InputError
    with pytest.raises(error, match=message):
        score([["tax", "budget"]], reference)


def test_bags_of_words_need_their_dictionary_and_counts(gensim_models):
    dictionary, bows = gensim_models["dictionary"], gensim_models["bows"]
    with pytest.raises(InputError, match=r"a gensim Dictionary alone holds no texts: pass it with its bag-of-words"):
        as_corpus(dictionary)
    weighted = [[(i, 0.5) for i, _ in bows[0]]]
    with pytest.raises(InputError, match=r"weights, not counts \(e.g. tf-idf\)"):
        as_corpus((dictionary, weighted))
    with pytest.raises(InputError, match="word id 99999, which the Dictionary lacks"):
        as_corpus((dictionary, [[(99999, 1)]]))


def test_evaluate_takes_the_objects_in_a_dict_configuration(tmp_path, gensim_models, texts, corpus):
    pytest.importorskip("pyarrow", reason="an evaluation needs the report extra")
    from tealeaves.evaluation import evaluate

    g = gensim_models
    config = {
        "corpora": {"reference": texts, "heldout": corpus.subset(range(20))},
        "models": [
            {"name": "gensim", "model": g["lda"]},
            {"name": "octis", "model": octis_output(g["lda"], g["dictionary"], g["bows"])},
            {"name": "dtm", "model": g["seq"], "options": {"time_slice": 1}},
        ],
        "metrics": {"npmi": {"topn": 5}, "cv": False, "wi-auto": False, "predictive": False},
        "bootstrap": 200,
    }
    evaluation = evaluate(config, tmp_path / "run")
    npmi = evaluation.per_model.set_index(["model", "metric"])["mean"]
    assert np.isclose(npmi["gensim", "npmi"], np.nanmean(score(g["lda"], texts, topn=5).per_topic))
    assert npmi["gensim", "npmi"] == pytest.approx(npmi["octis", "npmi"])  # the same topics, by OCTIS's output
    assert ("dtm", "heldout_log_likelihood") in npmi.index  # a model with a prior gets the likelihood
    models = evaluation.manifest["models"]
    assert models["gensim"]["path"] == "<LdaModel object>" and models["octis"]["kind"] == "topics"
    assert evaluation.manifest["config"]["corpora"]["reference"] == "<list object>"


def test_a_gensim_nmf_is_read_as_its_normalised_topics(gensim_models):
    """gensim's Nmf: Φ is each topic's row of get_topics() normalised (what get_topics(normalize=True) gives),
    no prior, kind nmf, with the note that likelihood-based evaluations do not apply."""
    nmf = gensim_models["nmf"]
    model = as_model(nmf)
    theirs = nmf.get_topics(normalize=True)
    columns = model.vocab.ids([nmf.id2word[i] for i in range(theirs.shape[1])])
    assert np.allclose(model.phi[:, columns], theirs, rtol=0, atol=1e-9)
    assert (model.kind, model.alpha, model.params["class"]) == ("nmf", None, "Nmf")


def test_gensims_listings_of_topics_are_read_as_their_words(gensim_models):
    """show_topics (formatted or not) and print_topics, (k, topic) pairs with k = 0 .. K - 1, are read as the
    words show_topic gives; a part of the topics, top_topics (ordered by coherence, without numbers) and the bare
    get_topics() array are refused saying what to pass. Each raised "topic 0 holds 0 (an int)" or the like."""
    lda = gensim_models["lda"]
    expected = tuple(tuple(word for word, _ in lda.show_topic(k, topn=10)) for k in range(K))
    listings = {
        "show_topics(formatted=False)": lda.show_topics(num_topics=-1, formatted=False),
        "show_topics()": lda.show_topics(num_topics=-1),
        "print_topics()": lda.print_topics(num_topics=-1),
        "printed strings": [text for _, text in lda.print_topics(num_topics=-1)],
    }
    for name, listing in listings.items():
        assert as_topics(listing).words == expected, name
    part = lda.show_topics(num_topics=-1, formatted=False)[1:]
    with pytest.raises(InputError, match=r"^these are topics 1, 2, 3 of a model, not all of its topics in order"):
        as_topics(part)
    with pytest.raises(InputError, match=r"^gensim's top_topics lists topics by coherence, without their numbers"):
        as_topics(lda.top_topics(gensim_models["bows"], topn=5))
    with pytest.raises(InputError, match=rf"^an array of {K} x \d+ topic-word weights names no words"):
        as_topics(lda.get_topics())
