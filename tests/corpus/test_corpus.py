"""Corpus: round trips, memory mapping, splits, halves, parallel preparation, atomic writes."""

from __future__ import annotations

import errno
import json
import re

import numpy as np
import pytest

from tealeaves.artifacts import write_artifact
from tealeaves.corpus import Corpus, Vocabulary, prepare
from tealeaves.errors import ArtifactError, InputError

WORDS = ["apple", "banana", "cherry", "damson", "elder"]


@pytest.fixture
def small():
    vocab = Vocabulary(WORDS)
    docs = [[0, 1, 1, 2], [3], [4, 4, 0, 2, 1, 3], [2, 2]]
    return Corpus.from_documents(
        docs,
        vocab,
        ids=["a", "b", "c", "d"],
        titles=["A", "B", "C", "D"],
        snippets=["sa", "sb", "sc", "sd"],
        metadata=[{"year": 1}, {}, {"year": 3}, {}],
    )


def test_layout_and_access(small):
    assert len(small) == 4 and small.n_tokens == 13
    assert small.tokens.dtype == np.int32 and small.offsets.dtype == np.int64
    assert small.doc(2).tolist() == [4, 4, 0, 2, 1, 3] and small.doc(-1).tolist() == [2, 2]
    assert small.doc_lengths().tolist() == [4, 1, 6, 2]
    dense = small.doc_term_matrix().toarray()
    brute = np.zeros((4, 5), dtype=np.int64)
    for d in range(4):
        for t in small.doc(d):
            brute[d, t] += 1
    assert (dense == brute).all()
    assert small.document_frequency().tolist() == [2, 2, 3, 2, 1]
    with pytest.raises(IndexError):
        small.doc(4)


def test_round_trip_memory_mapped(small, tmp_path):
    small.save(tmp_path / "c")
    loaded = Corpus.load(tmp_path / "c")
    assert isinstance(loaded.tokens, np.memmap)
    assert np.array_equal(loaded.tokens, small.tokens) and np.array_equal(loaded.offsets, small.offsets)
    assert loaded.vocab == small.vocab
    assert (loaded.ids, loaded.titles, loaded.snippets, loaded.metadata) == (
        small.ids,
        small.titles,
        small.snippets,
        small.metadata,
    )
    assert loaded.fingerprint() == small.fingerprint()
    assert loaded.manifest["stats"]["n_tokens"] == 13
    in_memory = Corpus.load(tmp_path / "c", mmap=False)
    assert not isinstance(in_memory.tokens, np.memmap)


def test_fingerprint_changes_with_content(small):
    other = Corpus.from_documents([small.doc(i) for i in range(3)], small.vocab)
    assert other.fingerprint() != small.fingerprint()


def test_existing_output_is_refused_unless_forced(small, tmp_path):
    small.save(tmp_path / "c")
    with pytest.raises(ArtifactError, match="force=True"):
        small.save(tmp_path / "c")
    small.subset([0]).save(tmp_path / "c", force=True)
    assert len(Corpus.load(tmp_path / "c")) == 1


def test_failed_write_leaves_nothing_behind(tmp_path):
    def broken(folder):
        (folder / "half.npy").write_bytes(b"x")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_artifact(tmp_path / "out", broken)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (
            OSError(errno.ENOSPC, "No space left on device"),
            r"\(No space left on device\); [\d.]+ [MG]B free there: free",
        ),
        (OSError("325140 requested and 180720 written"), r"\(325140 requested and 180720 written\); [\d.]+ [MG]B free"),
        (OSError(errno.EROFS, "Read-only file system"), r"\(Read-only file system\); write elsewhere$"),
        (OSError(errno.ENOENT, "No such file or directory"), None),
    ],
)
def test_a_write_that_fails_for_want_of_room_or_rights_says_so(tmp_path, failure, said):
    """A full disk, numpy's short write (no errno) or a read-only folder, in a folder or a single file: an
    ArtifactError naming the target, the reason and what to do, the OSError as its cause, nothing left behind;
    another OSError (a file that vanished) passes through as it was."""
    from tealeaves.artifacts import atomic_file

    def broken(folder):
        (folder / "half.npy").write_bytes(b"x")
        raise failure

    def write_file():
        with atomic_file(tmp_path / "table.csv") as part:
            part.write_text("half")
            raise failure

    for attempt, target in ((lambda: write_artifact(tmp_path / "out", broken), "out"), (write_file, "table.csv")):
        with pytest.raises(ArtifactError if said else OSError) as caught:
            attempt()
        if said:
            assert re.fullmatch(f"could not write {re.escape(str(tmp_path / target))} {said}.*", str(caught.value))
            assert caught.value.__cause__ is failure
        else:
            assert caught.value is failure
        assert list(tmp_path.iterdir()) == []


def test_corrupt_folders_are_refused(small, tmp_path):
    small.save(tmp_path / "c")
    np.save(tmp_path / "c" / "offsets.npy", np.array([0, 5, 3, 13], dtype=np.int64))
    with pytest.raises(ArtifactError, match="offsets"):
        Corpus.load(tmp_path / "c")
    with pytest.raises(ArtifactError, match="no manifest"):
        Corpus.load(tmp_path)
    with pytest.raises(ArtifactError, match="does not exist"):
        Corpus.load(tmp_path / "missing")
    (tmp_path / "speeches.csv").write_text("text\nTaxes and the budget.\n")  # texts where a corpus goes
    message = (
        r"speeches.csv is a file, not a corpus folder: texts become a corpus with tealeaves prepare .*speeches.csv"
    )
    with pytest.raises(ArtifactError, match=message):
        Corpus.load(tmp_path / "speeches.csv")
    bad = Corpus.from_documents([[0]], small.vocab)
    bad.save(tmp_path / "d")
    (tmp_path / "d" / "vocab.txt").write_text("apple\n")
    np.save(tmp_path / "d" / "tokens.npy", np.array([3], dtype=np.int32))
    with pytest.raises(ArtifactError, match="outside the vocabulary"):
        Corpus.load(tmp_path / "d")


def test_split_is_deterministic_and_partitions(small):
    a_train, a_held = small.split(0.5, seed=3)
    b_train, b_held = small.split(0.5, seed=3)
    assert a_train.ids == b_train.ids and a_held.ids == b_held.ids
    assert sorted(a_train.ids + a_held.ids) == small.ids and len(a_held) == 2
    assert {tuple(small.split(0.5, seed=s)[1].ids) for s in range(20)} != {tuple(a_held.ids)}
    for part in (a_train, a_held):
        for i, doc_id in enumerate(part.ids):
            assert part.doc(i).tolist() == small.doc(small.ids.index(doc_id)).tolist()
    with pytest.raises(InputError, match="between 0 and 1"):
        small.split(1.5)


@pytest.mark.parametrize("mode", ["first-half", "alternate", "random"])
def test_halves_partition_each_document(small, mode):
    observed, held = small.halves(mode, seed=1)
    for i in range(len(small)):
        doc = small.doc(i).tolist()
        obs, hold = observed.doc(i).tolist(), held.doc(i).tolist()
        assert sorted(obs + hold) == sorted(doc)
        assert len(obs) == len(doc) - len(doc) // 2
        if mode == "first-half":
            assert obs + hold == doc
        if mode == "alternate":
            assert obs == doc[::2] and hold == doc[1::2]
    again = small.halves(mode, seed=1)[0]
    assert np.array_equal(again.tokens, observed.tokens)


def test_from_tokenized_builds_a_sorted_vocabulary():
    corpus = Corpus.from_tokenized([["pear", "apple"], ["apple", "fig"]])
    assert list(corpus.vocab) == ["apple", "fig", "pear"] and corpus.doc(0).tolist() == [2, 0]
    fixed = Corpus.from_tokenized([["pear", "kiwi"]], vocab=corpus.vocab)
    assert fixed.doc(0).tolist() == [2]
    with pytest.raises(InputError, match="not in the vocabulary"):
        Corpus.from_tokenized([["kiwi"]], vocab=corpus.vocab, on_missing="error")


def test_from_documents_refuses_what_is_not_token_ids_of_its_vocabulary():
    """Words, fractions and nested lists were read by numpy (0.5 became id 0; words raised its ValueError), and
    an id outside the vocabulary was an ArtifactError calling an in-memory corpus a corrupt folder."""
    vocab = Vocabulary(["a", "b"])
    cases = [
        ([["a", "b"]], r"^document 0 is not a list of token ids .* lists of words go to Corpus.from_tokenized"),
        ([[0, 1], [0.5]], r"^document 1 is not a list of token ids \(it holds float64 values"),
        ([[[0, 1]]], r"^document 0 is not a list of token ids \(it holds int64 values of shape \(1, 2\)\)"),
        ([[0], [1, 2]], r"^document 1 holds token id 2, outside 0 \.\. 1, the ids of the vocabulary's 2 words$"),
        ([[], [-1]], r"^document 1 holds token id -1, outside"),
    ]
    for docs, message in cases:
        with pytest.raises(InputError, match=message):
            Corpus.from_documents(docs, vocab)
    same = Corpus.from_documents([[0, 1], [], np.array([1], dtype=np.uint8)], ["a", "b"])  # a list of words too
    assert isinstance(same.vocab, Vocabulary) and same.texts() == [["a", "b"], [], ["b"]]
    for words, message in ((None, "a vocabulary is a list of distinct words, got a NoneType"), ("ab", "got a str"),
                           (["a", 3], "vocabulary word 3 is an int; words must be strings")):  # fmt: skip
        with pytest.raises(InputError, match=message):
            Vocabulary(words)


def test_texts_are_the_token_lists_from_tokenized_reads_back():
    rng = np.random.default_rng(5)
    vocab = Vocabulary([f"w{i}" for i in range(30)])
    docs = [rng.integers(0, 30, size=n) for n in rng.integers(0, 12, size=40)]  # empty documents too
    corpus = Corpus.from_documents(docs, vocab)
    texts = corpus.texts()
    assert texts == [[f"w{t}" for t in doc] for doc in docs]  # brute force, in order, repeats kept
    assert all(type(word) is str for text in texts for word in text)  # plain str, not numpy's
    again = Corpus.from_tokenized(texts, vocab)
    assert again.fingerprint() == corpus.fingerprint()


def write_docs(path, n=60, seed=0):
    rng = np.random.default_rng(seed)
    words = [f"w{i:03d}x" for i in range(80)]
    lines = [" ".join(rng.choice(words, size=30)) for _ in range(n)]
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(lines)))
    return path


def test_prepare_reads_a_dataframe_as_its_file_and_refuses_it_in_shards(tmp_path):
    """prepare(df) gives the corpus of the same rows written to a JSON lines file (tokens, vocabulary, ids,
    split), recording the DataFrame in the manifest's inputs; shards, which re-read files on workers, refuse it."""
    import pandas as pd

    path = write_docs(tmp_path / "docs.jsonl")
    frame = pd.read_json(path, lines=True)
    from_file = prepare(path, heldout=0.25, seed=3, min_df=2)
    from_frame = prepare(frame, heldout=0.25, seed=3, min_df=2)
    for a, b in zip(from_file, from_frame, strict=True):
        assert a.fingerprint() == b.fingerprint() and a.ids == b.ids
    assert from_frame[0].manifest["inputs"] == [{"source": "a pandas DataFrame in memory", "rows": 60}]
    with pytest.raises(InputError, match=r"^texts held in memory are prepared in one process: leave shard_size out"):
        prepare(frame, out=tmp_path / "sharded", shard_size=20)
    assert not (tmp_path / "sharded").exists()


def test_prepare_heldout_split_is_deterministic_and_uses_train_vocabulary(tmp_path):
    path = write_docs(tmp_path / "docs.jsonl")
    train1, held1 = prepare(path, heldout=0.25, seed=7, min_df=2)
    train2, held2 = prepare(path, heldout=0.25, seed=7, min_df=2)
    assert train1.ids == train2.ids and held1.ids == held2.ids
    assert np.array_equal(train1.tokens, train2.tokens) and np.array_equal(held1.tokens, held2.tokens)
    assert len(held1) == 15 and len(train1) == 45
    assert held1.vocab == train1.vocab
    assert prepare(path, heldout=0.25, seed=8, min_df=2)[1].ids != held1.ids
    assert train1.manifest["preprocessing"]["vocabulary"]["n_training_docs"] == 45


def test_prepare_writes_train_and_heldout_folders(tmp_path):
    path = write_docs(tmp_path / "docs.jsonl")
    train, held = prepare(path, out=tmp_path / "out", heldout=0.2, seed=0)
    assert Corpus.load(tmp_path / "out" / "train").fingerprint() == train.fingerprint()
    assert Corpus.load(tmp_path / "out" / "heldout").fingerprint() == held.fingerprint()
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["kind"] == "corpus-split" and manifest["stats"]["heldout"]["n_docs"] == len(held)
    with pytest.raises(ArtifactError, match="split"):
        Corpus.load(tmp_path / "out")


def test_two_processes_give_the_same_corpus(tmp_path):
    path = write_docs(tmp_path / "docs.jsonl", n=400)
    one = prepare(path, workers=1)
    two = prepare(path, workers=2)
    assert one.fingerprint() == two.fingerprint()
    assert one.manifest["preprocessing"]["tokens"] == two.manifest["preprocessing"]["tokens"]


def test_dask_local_cluster_gives_the_same_corpus(tmp_path):
    pytest.importorskip("dask.distributed")
    path = write_docs(tmp_path / "docs.jsonl", n=200)
    assert prepare(path, workers=2, scheduler="local").fingerprint() == prepare(path).fingerprint()


def test_document_records_are_read_on_first_use(small, tmp_path):
    small.save(tmp_path / "c")
    (tmp_path / "c" / "docs.jsonl").write_text('{"id": "a", "title": "A", "snippet": ""}\n')  # one record for 4 docs
    loaded = Corpus.load(tmp_path / "c")  # the token arrays alone: fine
    assert loaded.n_tokens == 13 and loaded.doc(2).tolist() == [4, 4, 0, 2, 1, 3]
    with pytest.raises(ArtifactError, match="4 documents but 1 ids"):
        _ = loaded.titles
    for corrupt in ("not json\n", "[1]\n" * 4, '"a"\n' * 4):  # not JSON; JSON but not an object
        (tmp_path / "c" / "docs.jsonl").write_text(corrupt)
        with pytest.raises(ArtifactError, match="corrupt"):
            _ = Corpus.load(tmp_path / "c").ids
    (tmp_path / "c" / "docs.jsonl").unlink()
    with pytest.raises(ArtifactError, match=r"no docs\.jsonl"):
        Corpus.load(tmp_path / "c")


def test_document_keys_are_equal_exactly_for_the_same_bag_of_words_or_the_same_source():
    """Keys of documents built from token ids: equal iff the bags of words are (brute force over every pair of
    two corpora whose vocabularies number the words differently, with repeats, reorderings and empty
    documents); keys of prepared documents: equal iff id and snippet are, whatever the tokens."""
    rng = np.random.default_rng(0)
    words = [f"{a}{b}" for a in "abcdefgh" for b in "xyz"]
    first, second = Vocabulary(words), Vocabulary(words[::-1])
    bags = [tuple(sorted(rng.choice(words, size=rng.integers(0, 5)))) for _ in range(120)]
    bags += [bags[3], bags[7][::-1], ()]
    shuffled = [list(rng.permutation(bag)) for bag in bags]
    one = Corpus.from_documents([[first.id(w) for w in bag] for bag in bags], first)
    two = Corpus.from_documents([[second.id(w) for w in bag] for bag in shuffled], second)
    keys_one, keys_two = one.document_hashes(), two.document_hashes()
    assert keys_one.dtype == np.uint64
    same_key = keys_one[:, None] == keys_two[None, :]
    same_bag = np.array([[sorted(a) == sorted(b) for b in shuffled] for a in bags])
    assert np.array_equal(same_key, same_bag)
    sourced = Corpus.from_documents(
        [[0], [1], [0], [0]], first, ids=["a", "a", "b", "a"], snippets=["x", "x", "x", "y"]
    )
    keys = sourced.document_hashes()
    assert keys[0] == keys[1] and len(set(keys.tolist())) == 3


def test_subset_takes_numbers_or_a_mask_of_one_entry_per_document():
    # a boolean mask (a pandas user's corpus.subset(lengths >= 2)) was read as the numbers 0 and 1
    corpus = Corpus.from_documents([[0, 1], [1], [0, 0, 1], [1, 1]], Vocabulary(["a", "b"]), ids=["p", "q", "r", "s"])
    mask = corpus.doc_lengths() >= 2
    assert corpus.subset(mask).ids == ["p", "r", "s"] == corpus.subset(np.flatnonzero(mask)).ids
    assert corpus.subset([3, 0]).texts() == [["b", "b"], ["a", "b"]]
    assert len(corpus.subset([])) == 0
    with pytest.raises(InputError, match=r"one true or false per document \(4\), got shape \(2,\)"):
        corpus.subset([True, False])
    for wrong in (2, [0.5], "ab", [[0, 1]]):
        with pytest.raises(InputError, match="must be a list of document numbers or a boolean mask"):
            corpus.subset(wrong)


def test_a_corpus_is_indexed_and_iterated_as_a_list_of_documents():
    # corpus[0] and `for doc in corpus` raised "'Corpus' object is not subscriptable / iterable"
    corpus = Corpus.from_documents([[0, 1], [1], [0, 0, 1], [1, 1]], Vocabulary(["a", "b"]), ids=["p", "q", "r", "s"])
    docs = [corpus.doc(i).tolist() for i in range(len(corpus))]
    assert [doc.tolist() for doc in corpus] == docs
    assert corpus[2].tolist() == docs[2] and corpus[-1].tolist() == docs[-1] and corpus[np.int64(1)].tolist() == docs[1]
    for key in (slice(1, 3), slice(None, None, -1), slice(5, None), [3, 0], np.array([2])):
        picked = np.arange(4)[key]
        part = corpus[key]
        assert part.ids == [corpus.ids[i] for i in picked]
        assert [doc.tolist() for doc in part] == [docs[i] for i in picked]
    assert corpus[corpus.doc_lengths() >= 2].ids == ["p", "r", "s"]
    with pytest.raises(IndexError, match="out of range"):
        corpus[4]
    for wrong in ("p", 1.5, None, True):
        with pytest.raises(InputError, match="indexed by a document number, a slice"):
            corpus[wrong]
