"""RefIndex: built in one pass (in shards, in processes, on Dask), saved atomically, memory-mapped."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tealeaves.coherence import RefIndex
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import ArtifactError, InputError


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(11)
    vocab = Vocabulary([f"word{i}" for i in range(50)])
    docs = [rng.zipf(1.6, size=rng.integers(1, 120)) % 50 for _ in range(300)]
    return Corpus.from_documents(docs, vocab)


def brute_positions(corpus, w):
    return np.flatnonzero(np.asarray(corpus.tokens) == w)


def test_each_word_lists_its_positions_in_order(corpus):
    index = RefIndex.build(corpus)
    assert index.positions.dtype == np.int32 and len(index.positions) == corpus.n_tokens
    for w in range(len(corpus.vocab)):
        np.testing.assert_array_equal(index.occurrences(w), brute_positions(corpus, w))
    np.testing.assert_array_equal(index.frequency(np.arange(50)), np.bincount(corpus.tokens, minlength=50))
    np.testing.assert_array_equal(index.occurrences("word3"), brute_positions(corpus, 3))
    assert index.n_docs == len(corpus) and index.n_tokens == corpus.n_tokens


def test_manifest_records_the_corpus_and_its_length_histogram(corpus):
    index = RefIndex.build(corpus)
    assert index.corpus_fingerprint == corpus.fingerprint()
    histogram = index.manifest["length_histogram"]
    lengths = corpus.doc_lengths()
    assert sum(histogram["counts"]) == len(corpus)
    assert dict(zip(histogram["lengths"], histogram["counts"])) == {
        int(v): int(c) for v, c in zip(*np.unique(lengths, return_counts=True))
    }
    assert index.n_windows(10) == int(np.maximum(1, lengths - 9).sum())
    assert index.n_windows("document") == len(corpus)


@pytest.mark.parametrize("shards", [2, 5, 17])
def test_sharded_builds_equal_the_single_pass(corpus, shards):
    single = RefIndex.build(corpus)
    events = []
    sharded = RefIndex.build(corpus, shards=shards, progress=events.append)
    assert sharded.manifest["build"]["shards"] == shards
    assert [(e.task, e.done, e.total) for e in events] == [("index", i, shards) for i in range(1, shards + 1)]
    np.testing.assert_array_equal(sharded.positions, single.positions)
    np.testing.assert_array_equal(sharded.word_offsets, single.word_offsets)


def test_process_pool_build_reads_the_memory_mapped_corpus(corpus, tmp_path):
    corpus.save(tmp_path / "ref")
    loaded = Corpus.load(tmp_path / "ref")
    built = RefIndex.build(loaded, workers=2)
    assert built.manifest["build"]["shards"] == 2
    np.testing.assert_array_equal(built.positions, RefIndex.build(corpus).positions)


@pytest.mark.slow
def test_dask_build_equals_the_local_one(corpus):
    pytest.importorskip("dask.distributed")
    built = RefIndex.build(corpus, workers=2, scheduler="local")
    np.testing.assert_array_equal(built.positions, RefIndex.build(corpus).positions)


def test_save_load_round_trip_is_memory_mapped_and_small(corpus, tmp_path):
    corpus.save(tmp_path / "ref")
    index = RefIndex.build(tmp_path / "ref", out=tmp_path / "idx")
    loaded = RefIndex.load(tmp_path / "idx")
    assert isinstance(loaded.positions, np.memmap) and not loaded.positions.flags.writeable
    np.testing.assert_array_equal(loaded.positions, index.positions)
    assert loaded.vocab == corpus.vocab and loaded.corpus_fingerprint == corpus.fingerprint()
    counts = loaded.window_counts(range(5), 10)
    np.testing.assert_array_equal(counts.joint, index.window_counts(range(5), 10).joint)
    manifest = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    arrays = sum(
        (tmp_path / "idx" / f"{name}.npy").stat().st_size for name in ("positions", "word_offsets", "doc_offsets")
    )
    tokens = (tmp_path / "ref" / "tokens.npy").stat().st_size
    assert manifest["kind"] == "ref-index" and manifest["size"]["ratio_to_token_array"] < 2
    assert arrays <= 2 * tokens


def test_existing_output_is_refused_unless_forced(corpus, tmp_path):
    (tmp_path / "idx").mkdir()
    with pytest.raises(ArtifactError, match="force=True"):
        RefIndex.build(corpus, out=tmp_path / "idx")
    assert list((tmp_path / "idx").iterdir()) == []
    RefIndex.build(corpus, out=tmp_path / "idx", force=True)
    assert RefIndex.load(tmp_path / "idx").n_tokens == corpus.n_tokens


def test_loading_something_else_fails_clearly(corpus, tmp_path):
    corpus.save(tmp_path / "ref")
    with pytest.raises(ArtifactError, match="not a 'ref-index'"):
        RefIndex.load(tmp_path / "ref")
    RefIndex.build(corpus, out=tmp_path / "idx")
    (tmp_path / "idx" / "positions.npy").write_bytes(b"garbage")
    with pytest.raises(ArtifactError, match="build it again"):
        RefIndex.load(tmp_path / "idx")
    with pytest.raises(InputError, match="shards"):
        RefIndex.build(corpus, shards=0)


def test_empty_documents_and_an_empty_corpus():
    vocab = Vocabulary(["a", "b"])
    index = RefIndex.build(Corpus.from_documents([[], [0, 1, 1], []], vocab))
    assert index.n_windows(5) == 3 and index.window_counts([0, 1], 5).joint.tolist() == [[1, 1], [1, 1]]
    empty = RefIndex.build(Corpus.from_documents([[], []], vocab), shards=3)
    assert empty.n_tokens == 0 and empty.window_counts([0, 1], "document").marginal.tolist() == [0, 0]


def test_a_word_given_twice_is_named():
    """It said "word_ids must be distinct words", naming a parameter the caller of window_counts never wrote."""
    vocab = Vocabulary(["tax", "war", "peace"])
    index = RefIndex.build(Corpus.from_documents([[0, 1, 2, 1]], vocab))
    with pytest.raises(InputError, match=r"^the words must be distinct, but 'war' is given twice$"):
        index.window_counts(["war", "tax", "war"], window=10)
    with pytest.raises(InputError, match=r"but 'tax' is given twice$"):
        index.window_counts([0, 0], window="document")
