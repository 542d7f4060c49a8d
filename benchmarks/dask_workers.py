"""A neural model trained in a Dask worker: Dask's allocator settings against tealeaves'.

Usage: python benchmarks/dask_workers.py [--data DIR (../shared/data)] [--epochs 5]
                                         [--lda-iterations 100] [--work DIR]

Dask's nanny starts its workers with glibc's ``MALLOC_TRIM_THRESHOLD_=65536``, which also
fixes the size above which ``malloc`` maps fresh pages at 128 KiB; the ``LocalCluster`` s of
tealeaves (``tealeaves.parallel.local_cluster``) start theirs with
``tealeaves.parallel.WORKER_ENVIRONMENT`` instead. The same job, a sweep trial's order of work
(lda-gibbs for ``--lda-iterations`` sweeps, then dvae for ``--epochs`` epochs, K = 50, on 20
Newsgroups), runs in three places: this process (glibc's adaptive defaults), a worker of a
plain ``dask.distributed.LocalCluster`` and a worker of ``local_cluster``. Printed per place:
the dvae seconds per epoch and the CPU seconds the worker spent in user and kernel mode
during dvae (``getrusage``), and the two ``malloc`` settings it started with. The plain
cluster runs first: Dask's nanny leaves its settings in this process' environment, where they
take precedence over Dask's configuration for every later nanny, tealeaves' trim threshold
included (its mmap threshold, the one that matters here, is not among Dask's).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time
from pathlib import Path

from shared_data import ROOT, add_data_option, data_path


def job(task: tuple[str, int, int]) -> dict[str, float | str]:
    """lda-gibbs, then dvae, on the corpus at ``path``; the dvae part timed."""
    import tealeaves
    from tealeaves.corpus import Corpus

    path, iterations, epochs = task
    corpus = Corpus.load(path)
    tealeaves.train(corpus, model="lda-gibbs", k=50, seed=0, iterations=iterations)
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    tealeaves.train(corpus, model="dvae", k=50, seed=0, epochs=epochs)
    after, seconds = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - started
    return {
        "seconds per epoch": seconds / epochs,
        "user s": after.ru_utime - before.ru_utime,
        "kernel s": after.ru_stime - before.ru_stime,
        "malloc": " ".join(
            f"{name}={started_with(name)}" for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
        ),
    }


def started_with(name: str) -> str:
    """``name`` in the environment this process started with, which ``malloc`` read (a Dask worker
    later sets ``os.environ`` from its own configuration, which changes nothing there)."""
    started = Path("/proc/self/environ")
    entries = started.read_bytes().split(b"\0") if started.exists() else []
    pairs = (entry.decode(errors="replace").partition("=") for entry in entries)
    return next((value for key, _, value in pairs if key == name), os.environ.get(name, "-"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lda-iterations", type=int, default=100)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "neural")
    args = parser.parse_args()

    from dask.distributed import Client, LocalCluster

    from tealeaves.corpus import prepare
    from tealeaves.parallel import local_cluster

    corpus_dir = args.work / "corpus"
    if not corpus_dir.exists():
        print("# preparing 20 Newsgroups (not timed)", flush=True)
        prepare(data_path(args.data, "20news"), out=corpus_dir)
    task = (str(corpus_dir), args.lda_iterations, args.epochs)
    print(
        f"# lda-gibbs {args.lda_iterations} sweeps, then dvae {args.epochs} epochs, K = 50, 20 Newsgroups; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        flush=True,
    )
    rows = {"this process": job(task)}
    plain = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    with plain, Client(plain) as client:
        rows["Dask LocalCluster worker"] = client.submit(job, task, pure=False).result()
    with local_cluster(1) as cluster, Client(cluster) as client:
        rows["tealeaves local_cluster worker"] = client.submit(job, task, pure=False).result()
    print("\n| where | malloc settings at start | dvae s/epoch | user s | kernel s |\n|---|---|---:|---:|---:|")
    for where, row in rows.items():
        print(
            f"| {where} | {row['malloc']} | {row['seconds per epoch']:.2f} | "
            f"{row['user s']:.1f} | {row['kernel s']:.1f} |"
        )


if __name__ == "__main__":
    main()
