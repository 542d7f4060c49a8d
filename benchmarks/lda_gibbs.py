"""Seconds per Gibbs sweep: tealeaves' ``lda-gibbs`` sampler against tomotopy's, in one process.

    python benchmarks/lda_gibbs.py [--data DIR (../shared/data)] [--work DIR] [-k 50]
                                   [--sweeps 50] [--warm 20] [--threads 1 2]

20 Newsgroups is prepared as ``benchmarks/sweep.py`` prepares it (Hoyle et al.'s preprocessing,
30% of the posts held out; ``--work`` keeps it between runs) and both samplers run on the
training posts with K topics, α = 0.25/K per topic and β = 0.1 (the ``lda-gibbs`` defaults).
"sweep" rows time the sampling alone: ``--warm`` sweeps from the random start, not timed, then
``--sweeps`` timed (tealeaves' ``lda_gibbs.gibbs_sweep``; tomotopy's ``train`` with
``optim_interval=0``). "fit" rows time a whole training of ``--warm + --sweeps`` sweeps with α (and
for tealeaves β) optimised every 10 sweeps after half of them, as each trainer runs it (tealeaves'
``lda_gibbs.fit``, with its log-likelihood every 10 sweeps and the counts of its last 50 sweeps
averaged). ``--threads`` lists the worker counts (tealeaves' shards, tomotopy's ``workers``). The
load average is printed beside the timings: the numbers are only comparable on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from shared_data import add_data_option, data_path
from sweep import prepare_inputs

ALPHA_SUM, BETA = 0.25, 0.1


def ours_sweeps(corpus, k: int, workers: int, warm: int, sweeps: int) -> float:
    """Seconds per sweep of tealeaves' kernel after ``warm`` untimed sweeps."""
    from tealeaves.models import _gibbs, lda_gibbs
    from tealeaves.streams import stream

    tokens = np.ascontiguousarray(corpus.tokens, dtype=np.int32)
    offsets = np.ascontiguousarray(corpus.offsets, dtype=np.int64)
    v, n_docs = len(corpus.vocab), len(corpus)
    z = _gibbs.random_assignments(tokens, k, stream(0, 0))
    n_wk, n_dk, n_k = np.zeros((v, k), np.int32), np.zeros((n_docs, k), np.int32), np.zeros(k, np.int64)
    lda_gibbs.assignment_counts(tokens, offsets, z, n_wk, n_dk, n_k)
    bounds = lda_gibbs.shard_bounds(offsets, workers)
    shards = len(bounds) - 1
    states = np.concatenate([stream(0, 1 + s) for s in range(shards)])
    copies = shards if shards > 1 else 0
    local = (np.zeros((copies, v, k), np.int32), np.zeros((copies, k), np.int64))
    alpha = np.full(k, ALPHA_SUM / k)
    for i in range(warm + sweeps):
        if i == warm:
            started = time.perf_counter()
        lda_gibbs.gibbs_sweep(tokens, offsets, z, n_wk, n_dk, n_k, alpha, BETA, bounds, states, *local)
    return (time.perf_counter() - started) / sweeps


def tomotopy_model(corpus, k: int, optimise: int, burn_in: int):
    import tomotopy as tp

    model = tp.LDAModel(k=k, alpha=ALPHA_SUM / k, eta=BETA, seed=0, min_cf=0, min_df=0, rm_top=0)
    model.optim_interval, model.burn_in = optimise, burn_in
    words = corpus.vocab.words
    for d in range(len(corpus)):
        model.add_doc([words[t] for t in corpus.doc(d)])
    return model


def tomotopy_sweeps(corpus, k: int, workers: int, warm: int, sweeps: int) -> float:
    """Seconds per sweep of tomotopy's sampler after ``warm`` untimed sweeps."""
    model = tomotopy_model(corpus, k, 0, 0)
    model.train(warm, workers=workers)
    started = time.perf_counter()
    model.train(sweeps, workers=workers)
    return (time.perf_counter() - started) / sweeps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=None, help="keep the prepared corpus here")
    parser.add_argument("-k", type=int, default=50)
    parser.add_argument("--sweeps", type=int, default=50)
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()

    import tomotopy as tp

    from tealeaves.corpus import Corpus
    from tealeaves.models import lda_gibbs

    work = args.work or Path(tempfile.mkdtemp(prefix="tealeaves-lda-gibbs-"))
    corpus_dir, _ = prepare_inputs(data_path(args.data, "20news"), work)
    corpus = Corpus.load(corpus_dir, mmap=False)
    k, total = args.k, args.warm + args.sweeps
    print(f"{corpus}, K = {k}; tomotopy {tp.__version__} ({tp.isa}); cores: {os.cpu_count()}")
    lda_gibbs.fit(corpus, k, iterations=2, workers=max(args.threads))  # compiles the kernels (cached)
    print(f"{'what':<6} {'threads':>7} {'tealeaves s/sweep':>18} {'tomotopy s/sweep':>17} {'ratio':>6}  load (1 min)")
    for workers in args.threads:
        ours = ours_sweeps(corpus, k, workers, args.warm, args.sweeps)
        theirs = tomotopy_sweeps(corpus, k, workers, args.warm, args.sweeps)
        load = os.getloadavg()[0]
        print(f"{'sweep':<6} {workers:>7} {ours:>18.4f} {theirs:>17.4f} {ours / theirs:>6.2f}  {load:.2f}", flush=True)
        started = time.perf_counter()
        lda_gibbs.fit(corpus, k, iterations=total, optimize_burn_in=total // 2, workers=workers)
        ours = (time.perf_counter() - started) / total
        model = tomotopy_model(corpus, k, 10, total // 2)
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            model.train(total, workers=workers)
        theirs = (time.perf_counter() - started) / total
        load = os.getloadavg()[0]
        print(f"{'fit':<6} {workers:>7} {ours:>18.4f} {theirs:>17.4f} {ours / theirs:>6.2f}  {load:.2f}", flush=True)


if __name__ == "__main__":
    main()
