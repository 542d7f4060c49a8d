"""Coherence of 50 LDA topics on 20 Newsgroups: tealeaves (RefIndex) vs gensim's CoherenceModel.

Usage: python benchmarks/coherence.py [--data DIR (../shared/data)] [--work DIR]
                                      [--topics 50] [--iterations 300]

20 Newsgroups is prepared (Hoyle et al. 2021 preprocessing) and is both the training and the
reference corpus; an LDA with 50 topics is trained on it; both tools then score the top-10
words of every topic with NPMI over 10-token windows (gensim's c_npmi) and C_V over 110-token
windows (c_v). Each timed run is a fresh process (so its peak memory is its own): gensim from
the texts as word lists; tealeaves from the corpus, building the index, and from the saved
index. A second scoring in the same session shows the cost without process start-up (numba
loads its compiled kernels on the first call). Preparing and training are not timed;
``--work`` keeps them between runs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from shared_data import add_data_option, data_path

MEASURES = (("npmi", "c_npmi", 10), ("cv", "c_v", 110))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu() -> float:
    """CPU seconds of this process, all threads (robust to a busy machine, unlike wall time)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_gensim(corpus_dir: str, topics: list[list[str]]) -> dict[str, Any]:
    """gensim CoherenceModel c_npmi (10) and c_v (110) from texts, as its users call it."""
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    from tealeaves.corpus import Corpus

    corpus = Corpus.load(corpus_dir)
    words = corpus.vocab.words
    texts = corpus.texts()
    dictionary = Dictionary([list(words)])
    baseline = _rss_mb()
    out: dict[str, Any] = {"processes": max(1, multiprocessing.cpu_count() - 1)}
    start, cpu = time.perf_counter(), _cpu()
    for _, name, window in MEASURES:
        model = CoherenceModel(topics=topics, texts=texts, dictionary=dictionary, coherence=name, window_size=window)
        out[name] = np.array(model.get_coherence_per_topic())
    out["seconds"], out["cpu"] = time.perf_counter() - start, _cpu() - cpu
    out["peak_mb"], out["baseline_mb"] = _rss_mb(), baseline
    return out


def run_tealeaves(corpus_dir: str, index_dir: str, topics: list[list[str]], build: bool, compat: str | None) -> dict:
    """tealeaves in a fresh process: build the index from the corpus (read before the clock starts,
    as gensim's texts are) or load the saved index, and score both measures; then score both
    again in the same session (``warm_seconds``)."""
    from tealeaves.coherence import RefIndex, score
    from tealeaves.corpus import Corpus

    corpus = Corpus.load(corpus_dir) if build else None  # in memory, as gensim's texts are
    baseline = _rss_mb()
    out: dict[str, Any] = {}
    start, cpu = time.perf_counter(), _cpu()
    if corpus is not None:
        index = RefIndex.build(corpus)
        out["index_seconds"] = time.perf_counter() - start
    else:
        index = RefIndex.load(index_dir)
    for measure, _, window in MEASURES:
        out[measure] = score(topics, index, measure=measure, window=window, compat=compat).per_topic
    out["seconds"], out["cpu"] = time.perf_counter() - start, _cpu() - cpu
    again, cpu = time.perf_counter(), _cpu()
    for measure, _, window in MEASURES:
        score(topics, index, measure=measure, window=window, compat=compat)
    out["warm_seconds"], out["warm_cpu"] = time.perf_counter() - again, _cpu() - cpu
    out["peak_mb"], out["baseline_mb"] = _rss_mb(), baseline
    return out


def in_child(func: Any, *args: Any) -> dict[str, Any]:
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("forkserver")) as pool:
        return pool.submit(func, *args).result()


def prepare_inputs(data: Path, work: Path, k: int, iterations: int) -> tuple[Path, list[list[str]]]:
    from tealeaves import Corpus, TopicModel, prepare, train
    from tealeaves.coherence import RefIndex

    corpus_dir, model_dir, index_dir = work / "corpus", work / f"lda-{k}-{iterations}", work / "index"
    if not corpus_dir.exists():
        print(f"# preparing {data} (not timed)", flush=True)
        prepare(data, out=corpus_dir, workers=os.cpu_count())
    corpus = Corpus.load(corpus_dir)
    if not model_dir.exists():
        print(f"# training LDA, K={k}, {iterations} sweeps (not timed)", flush=True)
        train(corpus, "lda-gibbs", k=k, seed=0, iterations=iterations, out=model_dir)
    if not index_dir.exists():
        RefIndex.build(corpus, out=index_dir)  # also compiles and caches the numba kernels
    return corpus_dir, TopicModel.load(model_dir).top_words(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=None, help="keep the prepared corpus and model here")
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args()
    news = data_path(args.data, "20news")
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        corpus_dir, topics = prepare_inputs(news, work, args.topics, args.iterations)
        from tealeaves.coherence import RefIndex
        from tealeaves.corpus import Corpus

        corpus, index = Corpus.load(corpus_dir), RefIndex.load(work / "index")
        sizes = {
            name: (work / "index" / f"{name}.npy").stat().st_size
            for name in ("positions", "word_offsets", "doc_offsets")
        }
        token_bytes = (corpus_dir / "tokens.npy").stat().st_size
        for build in (True, False):  # compile the numba kernels once, if their cache is cold
            in_child(run_tealeaves, str(corpus_dir), str(work / "index"), topics, build, "gensim")
        gensim_run = in_child(run_gensim, str(corpus_dir), topics)
        built = in_child(run_tealeaves, str(corpus_dir), "", topics, True, None)
        loaded = in_child(run_tealeaves, str(corpus_dir), str(work / "index"), topics, False, None)
        compat = in_child(run_tealeaves, str(corpus_dir), str(work / "index"), topics, False, "gensim")
        runs = {
            "gensim CoherenceModel": gensim_run,
            "tealeaves, new process, building the index": built,
            "tealeaves, new process, index on disk": loaded,
            "tealeaves, in a session, index loaded": {
                **loaded,
                "seconds": loaded["warm_seconds"],
                "cpu": loaded["warm_cpu"],
            },
            "tealeaves compat=gensim, in a session": {
                **compat,
                "seconds": compat["warm_seconds"],
                "cpu": compat["warm_cpu"],
            },
        }

    gensim = runs["gensim CoherenceModel"]
    print(
        f"# 20 Newsgroups: {len(corpus)} documents, {corpus.n_tokens:,} tokens, {len(corpus.vocab)} words; "
        f"{args.topics} topics x top 10; c_npmi (s=10) + c_v (s=110)"
    )
    print(
        f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, Python {platform.python_version()}; "
        f"gensim processes={gensim['processes']}; numba threads: all CPUs"
    )
    print(
        f"{'run':<44} {'seconds':>8} {'speed-up':>9} {'CPU s':>8} {'CPU speed-up':>13} "
        f"{'peak RSS MB':>12} {'above start':>12}"
    )
    for name, run in runs.items():
        speedup, cpu_speedup = gensim["seconds"] / run["seconds"], gensim["cpu"] / run["cpu"]
        extra = run["peak_mb"] - run["baseline_mb"]
        print(
            f"{name:<44} {run['seconds']:>8.3f} {speedup:>8.0f}x {run['cpu']:>8.3f} {cpu_speedup:>12.0f}x "
            f"{run['peak_mb']:>12.0f} {extra:>12.0f}"
        )
    index_bytes = sum(sizes.values())
    print(
        f"# index build {built['index_seconds']:.3f} s; index arrays {index_bytes / 1e6:.2f} MB = "
        f"{index_bytes / token_bytes:.3f} x the token array ({token_bytes / 1e6:.2f} MB); {index}"
    )
    for measure, name, _ in MEASURES:
        same = np.max(np.abs(compat[measure] - gensim[name]))
        print(
            f"# {name}: max |tealeaves compat=gensim - gensim| per topic = {same:.1e}; model mean: gensim "
            f"{np.mean(gensim[name]):.4f}, tealeaves exact {np.mean(loaded[measure]):.4f}"
        )


if __name__ == "__main__":
    main()
