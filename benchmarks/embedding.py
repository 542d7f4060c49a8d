"""Embedding coherence: seconds and memory for 50 topics x top 10, and for training w2v on 20 Newsgroups.

Usage: python benchmarks/embedding.py [--data DIR (../shared/data)] [--work DIR]

The topics are the 50 topics of Hoyle et al.'s (2021) Gibbs LDA on the NYT (``mallet``, their
released ``all_data.json``), top 10 words each. Every timed run is a fresh process, so its
peak memory (RSS) is its own:

- ``st:all-MiniLM-L6-v2``, empty vector cache: loading the model and encoding every distinct
  word (in batches), then scoring; then the same process scores again (``in a session``);
- the same in a new process with the vectors on disk: the model is not loaded;
- ``w2v:`` on 20 Newsgroups: rebuilding the documents from the RefIndex and training the
  skip-gram vectors (300 dimensions, 5 epochs, one worker: the defaults), then scoring the
  topics with them; then again in a new process, the trained vectors kept beside the index.

20 Newsgroups is prepared (Hoyle et al.'s preprocessing) and indexed first, not timed;
``--work`` keeps the corpus and the index between runs (and the w2v vectors, which the second
w2v run reads).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from coherence import _cpu, _rss_mb, in_child
from shared_data import add_data_option, data_path


def run_st(topics: list[list[str]], cache: str) -> dict[str, Any]:
    from tealeaves.coherence import score

    baseline = _rss_mb()
    start, cpu = time.perf_counter(), _cpu()
    encoder = _encoder("st:all-MiniLM-L6-v2", cache)
    result = score(topics, measure="embedding", encoder=encoder)
    out = {"seconds": time.perf_counter() - start, "cpu": _cpu() - cpu, "encoded": result.encoder["encoded"]}
    again, cpu = time.perf_counter(), _cpu()
    score(topics, measure="embedding", encoder=encoder)
    out["session_seconds"], out["session_cpu"] = time.perf_counter() - again, _cpu() - cpu
    out["peak_mb"], out["baseline_mb"], out["mean"] = _rss_mb(), baseline, result.model_mean
    return out


def run_w2v(topics: list[list[str]], index: str, cache: str) -> dict[str, Any]:
    from tealeaves.coherence import score

    baseline = _rss_mb()
    encoder = _encoder(f"w2v:{index}", cache)
    start, cpu = time.perf_counter(), _cpu()
    result = score(topics, measure="embedding", encoder=encoder, on_missing="skip")
    out = {"seconds": time.perf_counter() - start, "cpu": _cpu() - cpu, "train_seconds": encoder.train_seconds}
    out["peak_mb"], out["baseline_mb"], out["mean"] = _rss_mb(), baseline, result.model_mean
    out["coverage"] = result.encoder["coverage"]
    return out


def _encoder(spec: str, cache: str) -> Any:
    from tealeaves.coherence import get_encoder

    return get_encoder(spec, cache_dir=cache)


def prepare_index(news: Path, work: Path) -> Path:
    from tealeaves import prepare
    from tealeaves.coherence import RefIndex

    corpus, index = work / "20news", work / "20news-index"
    if not corpus.exists():
        print("# preparing 20 Newsgroups (not timed)", flush=True)
        prepare(news, out=corpus, workers=os.cpu_count())
    if not index.exists():
        RefIndex.build(corpus, out=index)
    return index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=None, help="keep the prepared corpus, index and vectors here")
    args = parser.parse_args()
    hoyle = data_path(args.data, "hoyle2021")
    news = data_path(args.data, "20news")
    release = json.loads((hoyle / "all_data.json").read_text())
    topics = [t[:10] for t in release["nytimes"]["mallet"]["topics"]]
    distinct = len({w for t in topics for w in t})
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        index = prepare_index(news, work)
        for old in index.parent.glob(f"{index.name}.w2v-*"):  # train afresh: the first w2v run is timed
            shutil.rmtree(old)
        st_cache, w2v_cache = Path(tmp) / "st-cache", Path(tmp) / "w2v-cache"
        cold = in_child(run_st, topics, str(st_cache))
        warm = in_child(run_st, topics, str(st_cache))
        trained = in_child(run_w2v, topics, str(index), str(w2v_cache))
        kept = in_child(run_w2v, topics, str(index), str(Path(tmp) / "w2v-cache-2"))
        from tealeaves.coherence import RefIndex

        ref = RefIndex.load(index)

    print(f"# 50 topics x top 10 ({distinct} distinct words): Hoyle et al. 2021, NYT, Gibbs LDA")
    print(
        f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, Python {platform.python_version()}, CPU only"
    )
    print(f"{'run':<58} {'seconds':>8} {'CPU s':>8} {'peak RSS MB':>12} {'above start':>12}")
    rows = {
        "st:all-MiniLM-L6-v2, new process, empty cache (load + encode)": cold,
        "st:all-MiniLM-L6-v2, new process, vectors cached": warm,
        "st:all-MiniLM-L6-v2, same session, vectors in memory": {
            **warm,
            "seconds": warm["session_seconds"],
            "cpu": warm["session_cpu"],
        },
        "w2v:20news, new process, training the vectors": trained,
        "w2v:20news, new process, trained vectors kept": kept,
    }
    for name, run in rows.items():
        extra = run["peak_mb"] - run["baseline_mb"]
        print(f"{name:<58} {run['seconds']:>8.2f} {run['cpu']:>8.2f} {run['peak_mb']:>12.0f} {extra:>12.0f}")
    print(
        f"# words encoded: {cold['encoded']} (empty cache), {warm['encoded']} (cached); model mean {cold['mean']:.4f}"
    )
    print(
        f"# w2v: 20 Newsgroups {ref.n_docs} documents, {ref.n_tokens:,} tokens, {len(ref.vocab)} words; "
        f"training {trained['train_seconds']:.1f} s ({5 * ref.n_tokens / trained['train_seconds'] / 1e3:.0f}k "
        f"tokens/s over 5 epochs); topic-word coverage {trained['coverage']:.2f}; model mean {trained['mean']:.4f}"
    )


if __name__ == "__main__":
    main()
