"""TopicModel artifact: validation, round trips, top words; Topics lists."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tealeaves.corpus import Vocabulary
from tealeaves.errors import ArtifactError, InputError
from tealeaves.models import TopicModel, Topics, as_topics

VOCAB = Vocabulary(["ant", "bee", "cat", "dog", "eel"])


def make_model(**overrides):
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.ones(5), size=3)
    fields = {
        "phi": phi,
        "alpha": np.array([0.1, 0.2, 0.3]),
        "theta": rng.dirichlet(np.ones(3), size=4),
        "kind": "test",
        "params": {"beta": 0.1},
        "extra": {"sigma": np.eye(3)},
    }
    fields.update(overrides)
    return TopicModel(VOCAB, **fields)


def test_round_trip(tmp_path):
    model = make_model()
    model.save(tmp_path / "m")
    loaded = TopicModel.load(tmp_path / "m")
    assert np.array_equal(loaded.phi, model.phi) and loaded.phi.dtype == np.float64
    assert np.array_equal(loaded.alpha, model.alpha) and np.array_equal(loaded.theta, model.theta)
    assert np.array_equal(loaded.extra["sigma"], np.eye(3))
    assert (loaded.kind, loaded.params, loaded.vocab) == ("test", {"beta": 0.1}, VOCAB)
    assert loaded.manifest["stats"] == {"k": 3, "vocab_size": 5, "has_alpha": True, "n_training_docs": 4}


def test_round_trip_without_prior_or_theta(tmp_path):
    make_model(alpha=None, theta=None, extra=None).save(tmp_path / "m")
    loaded = TopicModel.load(tmp_path / "m")
    assert loaded.alpha is None and loaded.theta is None and loaded.extra == {}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"phi": np.full((3, 4), 0.25)}, "vocabulary has 5"),
        ({"phi": np.full((3, 5), 0.2 + 1e-8)}, "sum to 1"),
        ({"phi": np.array([[0.5, 0.5, 0, 0, 0]] * 3)}, "strictly positive"),
        ({"phi": np.full(5, 0.2)}, "K x V"),
        ({"alpha": np.array([0.1, -0.2, 0.3])}, "alpha"),
        ({"alpha": np.array([0.1, 0.2])}, "alpha"),
        ({"theta": np.full((2, 2), 0.5)}, "theta"),
        ({"theta": np.full((2, 3), 0.3)}, "theta rows"),
    ],
)
def test_invalid_models_are_refused(overrides, message):
    with pytest.raises(ArtifactError, match=message):
        make_model(**overrides)


def test_validation_on_load(tmp_path):
    make_model().save(tmp_path / "m")
    np.save(tmp_path / "m" / "phi.npy", np.full((3, 5), 0.3))
    with pytest.raises(ArtifactError, match="sum to 1"):
        TopicModel.load(tmp_path / "m")
    with pytest.raises(ArtifactError, match="not a 'topic-model'"):
        make_model().save(tmp_path / "n")
        (tmp_path / "n" / "manifest.json").write_text('{"kind": "corpus"}')
        TopicModel.load(tmp_path / "n")


def test_top_words_in_probability_order():
    phi = np.array([[0.1, 0.4, 0.2, 0.25, 0.05], [0.3, 0.1, 0.1, 0.2, 0.3]])
    model = TopicModel(VOCAB, phi)
    assert model.top_words(3) == [["bee", "dog", "cat"], ["ant", "eel", "dog"]]  # ties: lower id first
    assert model.top_words(99)[0][-1] == "eel"
    topics = model.topics(2)
    assert topics.words == (("bee", "dog"), ("ant", "eel"))


@pytest.mark.parametrize("seed", range(20))
def test_top_word_ids_equal_a_stable_argsort_with_ties(seed):
    # values drawn from a few levels, so ties fall inside and across the top-n boundary
    rng = np.random.default_rng(seed)
    k, v = 7, 60
    phi = rng.integers(1, 6, size=(k, v)).astype(np.float64)
    phi /= phi.sum(axis=1, keepdims=True)
    model = TopicModel(Vocabulary([f"w{i}" for i in range(v)]), phi)
    for n in (1, 3, 10, v - 1, v, v + 5):
        expected = np.argsort(-phi, axis=1, kind="stable")[:, : min(n, v)]
        np.testing.assert_array_equal(model.top_word_ids(n), expected)
    assert model.top_word_ids(0).shape == (k, 0)


def test_topics_file_round_trip_and_coercion(tmp_path):
    topics = Topics((("a", "b", "c"), ("d", "e", "f")), name="mine")
    topics.save(tmp_path / "t.txt")
    loaded = Topics.load(tmp_path / "t.txt")
    assert loaded.words == topics.words and loaded.name == "t"
    assert as_topics([["x", "y"], ["z", "w"]]).words == (("x", "y"), ("z", "w"))
    assert as_topics(topics, topn=2).words == (("a", "b"), ("d", "e"))
    model = TopicModel(VOCAB, np.array([[0.1, 0.4, 0.2, 0.25, 0.05]]))
    assert as_topics(model, topn=2).words == (("bee", "dog"),)
    # topn=-1 sliced each topic's last word off; a word count of 0 or of another type is refused
    for topn in (-1, 0, 2.5, "2"):
        with pytest.raises(InputError, match=r"^n must be a number of top words \(1 or more\), got "):
            as_topics(topics, topn=topn)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["a b", "c d"], "list of word lists"),
        ([["a", "a"]], "twice"),
        ([[]], "no words"),
        ([], "no topics"),
    ],
)
def test_bad_topics_are_refused(value, message):
    with pytest.raises(InputError, match=message):
        as_topics(value)


def test_a_model_takes_its_words_as_a_list_and_refuses_arrays_that_are_not_numbers(tmp_path):
    """A list of words is made a Vocabulary (it stayed a list, and save() raised AttributeError); phi, alpha or
    theta that are not numbers are refused naming which (numpy's ValueError came out raw)."""
    phi = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    model = TopicModel(["a", "b", "c"], phi)
    assert isinstance(model.vocab, Vocabulary)
    model.save(tmp_path / "m")
    assert TopicModel.load(tmp_path / "m").vocab == Vocabulary(["a", "b", "c"])
    for name, value in (("phi", [["a", "b", "c"]]), ("alpha", "0.5,0.5"), ("theta", {"d": 1})):
        with pytest.raises(InputError, match=f"^{name} must be an array of numbers, got a"):
            TopicModel(Vocabulary(["a", "b", "c"]), **{"phi": phi, name: value})


def test_strings_where_word_lists_go_are_refused_not_split_into_letters():
    """Topics("abc") was three topics of one letter each, Corpus.from_tokenized("abc") three documents of one
    letter, and a list of strings was refused as "lists the word 't' twice" or "word ' ' contains whitespace"."""
    from tealeaves.corpus import Corpus

    for given in ("tax budget", ["tax budget", "war peace"], [["tax"], "war peace"]):
        with pytest.raises(InputError, match=r"^topics must be a list of word lists .* not a list of strings"):
            Topics(given)
        with pytest.raises(InputError, match=r"^texts must be token lists .* not strings: split each text"):
            Corpus.from_tokenized(given)


def test_too_few_words_for_topn():
    with pytest.raises(InputError, match="fewer than the 5"):
        as_topics([["a", "b"]], topn=5)


def test_the_training_documents_in_a_held_out_split_of_another_prepare_run(tmp_path):
    """A model trained on one prepare run's training split: its own held-out split holds none of its training
    documents, the held-out split of a run with another seed holds exactly those whose ids are training ids
    (although the two runs keep different vocabularies), and its training split all; the keys survive a save
    and load; training_share words what crosses SEEN_LIMIT and nothing below it."""
    import json

    from tealeaves.corpus import Corpus, prepare
    from tealeaves.models import train
    from tealeaves.models.topic_model import SEEN_LIMIT, training_share

    rng = np.random.default_rng(0)
    pool = [a + b + c + d for a in "bdgkmt" for b in "aeiou" for c in "lnrs" for d in "aeiou"]
    texts = [" ".join(rng.choice(pool, size=12)) for _ in range(300)]
    source = tmp_path / "docs.jsonl"
    source.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    rules = {"min_doc_words": 0, "min_doc_tokens": 0, "min_df": 2, "max_df": 1.0}
    train0, held0 = prepare(source, heldout=0.2, seed=0, **rules)
    _, held1 = prepare(source, heldout=0.2, seed=1, **rules)
    assert held0.vocab != held1.vocab  # each run's vocabulary is its training split's
    model = train(train0, "lda-gibbs", k=2, iterations=5, out=tmp_path / "model")
    training_ids = set(train0.ids)
    expected = np.array([i in training_ids for i in held1.ids])
    for loaded in (model, TopicModel.load(tmp_path / "model")):
        assert np.array_equal(loaded.seen_documents(held1), expected)
        assert not loaded.seen_documents(held0).any() and loaded.seen_documents(train0).all()
    assert 0.7 < expected.mean() < 0.9
    assert training_share(model, held1) == f"{expected.sum()} of the {len(held1)} ({expected.mean():.0%})"
    assert training_share(model, train0) == f"all {len(train0)}" and training_share(model, held0) is None
    few = int(np.ceil(SEEN_LIMIT * 60)) - 1  # below the limit, then at it
    for n_seen, worded in ((few, False), (few + 1, True)):
        mixed = train0.subset(range(n_seen))
        docs = [mixed.doc(i) for i in range(n_seen)] + [held0.doc(i) for i in range(60 - n_seen)]
        fields = {
            "ids": mixed.ids + held0.ids[: 60 - n_seen],
            "snippets": mixed.snippets + held0.snippets[: 60 - n_seen],
        }
        assert (training_share(model, Corpus.from_documents(docs, train0.vocab, **fields)) is not None) is worded
    imported = TopicModel(model.vocab, model.phi, model.alpha, kind="imported")
    assert imported.seen_documents(held1) is None and training_share(imported, held1) is None


def test_an_empty_document_is_not_a_seen_one():
    """Token-id documents are keyed by their bags of words, so every empty document has one key: an empty
    held-out document is not counted as a training document (its probability is 1 under any model)."""
    from tealeaves.corpus import Corpus
    from tealeaves.models import train

    words = Vocabulary(["tax", "budget", "war", "peace"])
    training = Corpus.from_documents([[0, 1, 0], [], [2, 3, 2], [0, 1, 1]], words)
    model = train(training, "lda-gibbs", k=2, iterations=5)
    held = Corpus.from_documents([[], [3, 2, 2], [1, 1]], words)
    assert model.seen_documents(held).tolist() == [False, True, False]


def test_top_words_take_a_positive_count_and_at_most_the_vocabulary():
    """n of top_words / top_word_ids: a whole number (a NumPy one too); more than V gives all V words by
    probability; a negative, a float or a string is refused in one line (numpy's 'kth out of bounds' before)."""
    model = make_model()
    assert model.top_word_ids(np.int64(2)).shape == (3, 2)
    everything = model.top_word_ids(50)
    assert everything.shape == (3, 5) and all(
        np.all(np.diff(model.phi[k, row]) <= 0) for k, row in enumerate(everything)
    )
    for n in (-1, 2.0, "5", True):
        with pytest.raises(InputError, match=f"n must be a number of words \\(0 or more\\), got {re.escape(repr(n))}"):
            model.top_words(n)


def test_a_mallet_topic_keys_file_is_read_as_its_words(tmp_path):
    """MALLET's --output-topic-keys lines, as ParallelTopicModel.printTopWords writes them (topic, TAB, α_k in
    its number format, a decimal comma in some locales, TAB, each word followed by a space): the topics are the
    words alone, α_k in meta; the importer of MALLET's weights file says what the file is; a file of three tab
    fields that are not numbered 0..K-1 in order stays a plain list."""
    rng = np.random.default_rng(0)
    words = [[f"w{k}x{i}" for i in range(rng.integers(3, 8))] for k in range(12)]
    alphas = [f"{a:.5f}" for a in rng.uniform(0.01, 3, size=12)]
    alphas[3] = alphas[3].replace(".", ",")
    lines = "".join(
        f"{k}\t{alpha}\t" + "".join(f"{w} " for w in topic) + "\n"
        for k, (alpha, topic) in enumerate(zip(alphas, words))
    )
    (tmp_path / "keys.txt").write_text(lines)
    topics = Topics.load(tmp_path / "keys.txt")
    assert topics.words == tuple(tuple(t) for t in words) and topics.meta["format"] == "mallet-topic-keys"
    assert topics.meta["alpha"] == [float(a.replace(",", ".")) for a in alphas]
    from tealeaves.models import import_model

    with pytest.raises(InputError, match=r"line 1: .* this is MALLET's --output-topic-keys file, the top words alone"):
        import_model("mallet", tmp_path / "keys.txt")  # the weights file's importer, given the keys file
    (tmp_path / "plain.txt").write_text("1\t0.5\ttax budget\n0\t0.5\twar peace\n")
    assert Topics.load(tmp_path / "plain.txt").words == (("1", "0.5", "tax", "budget"), ("0", "0.5", "war", "peace"))


def test_gensim_printed_topics_are_read_as_their_words(tmp_path):
    """A file of gensim's printed topics, as print_topic(k) gives each (weight*"word" + ...) or as print_topics()
    lists them ((k, '...')): the words in gensim's order (its show_topic), the weights set aside; a line with
    anything else besides such terms leaves the file a plain list."""
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    rng = np.random.default_rng(0)
    texts = [list(rng.choice([f"w{i}x" for i in range(40)], size=20)) for _ in range(60)]
    dictionary = Dictionary(texts)
    lda = LdaModel([dictionary.doc2bow(t) for t in texts], id2word=dictionary, num_topics=3, random_state=0)
    expected = tuple(tuple(w for w, _ in lda.show_topic(k, 6)) for k in range(3))
    (tmp_path / "bare.txt").write_text("".join(lda.print_topic(k, 6) + "\n" for k in range(3)))
    (tmp_path / "listed.txt").write_text("".join(f"{pair}\n" for pair in lda.print_topics(num_words=6)))
    for name in ("bare.txt", "listed.txt"):
        topics = Topics.load(tmp_path / name)
        assert topics.words == expected and topics.meta["format"] == "gensim-print-topics"
    (tmp_path / "mixed.txt").write_text(lda.print_topic(0, 1) + " budget\n")
    assert Topics.load(tmp_path / "mixed.txt").meta.get("format") is None


def test_a_saved_model_where_a_topic_list_goes_names_the_format_that_imports_it(tmp_path):
    """A pickle (gensim's and scikit-learn's saved models) or a gzip file (MALLET's state) given as a topic list
    was read as text: "byte 0x80 is not valid utf-8; read it with --encoding latin-1"."""
    import gzip
    import pickle

    (tmp_path / "lda.model").write_bytes(pickle.dumps({"a": "model"}))
    (tmp_path / "state.gz").write_bytes(gzip.compress(b"#doc source pos typeindex type topic\n"))
    with pytest.raises(InputError, match=r'lda.model is a pickle, not a topic list .* format = "gensim" in its'):
        Topics.load(tmp_path / "lda.model")
    with pytest.raises(InputError, match=r"state.gz is gzip-compressed, not a topic list .* import mallet-state "):
        Topics.load(tmp_path / "state.gz")
