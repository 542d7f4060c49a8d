"""Hoyle et al.'s (2021, §4.2) sweep on 20 Newsgroups on a 2-worker Dask LocalCluster.

Usage: python benchmarks/sweep.py [--data DIR (../shared/data)] [--work DIR] [--settings 16]
                                  [--models lda-gibbs dvae etm] [-k 50] [--iterations N]
                                  [--epochs N] [--workers 2] [--seed 0] [--uniqueness-filter-all]
                                  [--batch-trials 1] [--batch-memory-gb 8]
       python benchmarks/sweep.py --full [--slice-steps 3] [--device cpu|cuda] [--batch-trials 32]
                                  [--embeddings RHO.npy] [--save-embeddings RHO.npy]
                                  [--budget-trials N --budget-out DIR] [--score-budget DIR]

20 Newsgroups (train and test posts, Hoyle et al.'s preprocessing) is prepared with a 30%
held-out split: the models train on the rest and the held-out posts, indexed, are the reference
corpus (not timed; ``--work`` keeps them between runs). ``tealeaves.sweep`` then draws
``--settings`` settings per model from Table 8's grid without replacement (the authors'
constraints, three run seeds), trains and scores each on a LocalCluster of ``--workers``
processes (NPMI with gensim's counts, as the authors), and selects the best model of each type
by NPMI among those that pass the redundancy filters as the authors' notebook applies them
((a) no duplicate top-5 sets, (b) uniqueness of the top 5 above 0.7 for ETM, or for every type
with ``--uniqueness-filter-all``). ``--iterations`` caps G-LDA's sweeps and ``--epochs`` the
neural models' epochs (Table 8 draws 1,000-2,000 sweeps and 200-1,000 epochs, hours on two
cores); a capped D-VAE has γ_BN and γ_KL scaled with its epochs, a capped G-LDA MALLET's burn-in
and optimisation interval with its sweeps. Prints the wall time, each
model's trials (failed, passing filter (a), filter (b), both as applied), the selected model's
NPMI, C_V and topic uniqueness, the order of the types by selected NPMI (and by best NPMI
before the filters) and whether D-VAE comes first, as in Hoyle et al.'s automated scores. Run
again with the same options, it resumes the sweep (more ``--settings`` add trials).
``--batch-trials N`` trains up to N ETM (and N D-VAE) trials of one shape as one batch (``SweepConfig.batch_trials``).

``--full``: the sweep at the authors' budget (82 settings per model, no caps), not run but
planned, a slice of it measured and the whole extrapolated (``benchmarks/sweep_full.py``).
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

from shared_data import add_data_option, data_path


def prepare_inputs(data: Path, work: Path) -> tuple[Path, Path]:
    """The training posts and the index of the held-out posts (the reference corpus), prepared
    from ``data`` (the data folder) unless ``work`` holds them."""
    from tealeaves import prepare
    from tealeaves.coherence import RefIndex

    corpus_dir, index_dir = work / "corpus", work / "reference-index"
    if not corpus_dir.exists():
        data = data_path(data, "20news")
        print(f"# preparing {data} (not timed)", flush=True)
        prepare(data, out=corpus_dir, heldout=0.3, seed=0, workers=os.cpu_count())
    if not index_dir.exists():
        RefIndex.build(corpus_dir / "heldout", out=index_dir)
    return corpus_dir / "train", index_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=None, help="keep the prepared corpus, index and sweep here")
    parser.add_argument("--settings", type=int, default=16, help="random settings per model (Hoyle et al.: 164)")
    parser.add_argument("--models", nargs="+", default=["lda-gibbs", "dvae", "etm"])
    parser.add_argument("-k", type=int, default=50, help="topics (Hoyle et al.: 50)")
    parser.add_argument("--iterations", type=int, default=None, help="cap on lda-gibbs sweeps")
    parser.add_argument("--epochs", type=int, default=None, help="cap on dvae and etm epochs")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--uniqueness-filter-all", action="store_true", help="filter (b) on every type, not ETM only")
    parser.add_argument(
        "--batch-trials", type=int, default=1, help="ETM or D-VAE trials of one shape trained as one batch"
    )
    parser.add_argument("--batch-memory-gb", type=float, default=8.0, help="device memory of one batch")
    parser.add_argument("--full", action="store_true", help="plan the authors' budget, measure a slice, extrapolate")
    parser.add_argument("--slice-steps", type=int, default=3, help="--full: steps measured per model")
    parser.add_argument("--device", default="cpu", help="--full: the neural trainers' device")
    parser.add_argument("--embeddings", type=Path, default=None, help="ETM's ρ (.npy) instead of gensim's")
    parser.add_argument("--save-embeddings", type=Path, default=None, help="write the corpus' ETM ρ (.npy) and stop")
    parser.add_argument("--budget-trials", type=int, default=0, help="--full: ETM trials trained to their budget")
    parser.add_argument("--budget-epochs", type=int, default=0, help="--full: cap their epochs (a smoke test)")
    parser.add_argument("--budget-out", type=Path, default=Path("budget"), help="--full: their topics go here")
    parser.add_argument("--score-budget", type=Path, default=None, help="--full: score the topics of --budget-out")
    args = parser.parse_args()

    from tealeaves.corpus import Corpus

    work = args.work or Path(tempfile.mkdtemp(prefix="tealeaves-sweep-"))
    corpus_dir, index_dir = prepare_inputs(args.data, work)
    corpus = Corpus.load(corpus_dir)
    if args.full:
        full_sweep(args, corpus_dir, index_dir)
        return
    from tealeaves.model_selection import SweepConfig, sweep

    caps = {"lda-gibbs": args.iterations, "dvae": args.epochs, "etm": args.epochs}
    config = SweepConfig(
        corpus=corpus_dir,
        reference=index_dir,
        models=tuple(args.models),
        settings=args.settings,
        k=args.k,
        seed=args.seed,
        max_steps={m: cap for m, cap in caps.items() if m in args.models and cap is not None},
        uniqueness_filter=tuple(args.models) if args.uniqueness_filter_all else ("etm",),
        batch_trials=args.batch_trials,
        batch_memory_gb=args.batch_memory_gb,
    )
    name = f"sweep-k{args.k}-i{args.iterations}-e{args.epochs}-seed{args.seed}{'-tu-all' * args.uniqueness_filter_all}"
    out = work / name  # more --settings resume it
    print(
        f"# 20 Newsgroups, training posts: {len(corpus)} documents, {corpus.n_tokens:,} tokens, "
        f"{len(corpus.vocab)} words; reference: the held-out posts; "
        f"K = {args.k}; {args.settings} settings of {', '.join(args.models)}; caps {dict(config.max_steps)}; "
        f"LocalCluster of {args.workers} workers; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores",
        flush=True,
    )
    started = time.perf_counter()
    result = sweep(config, out, scheduler="local", workers=args.workers)
    wall = time.perf_counter() - started
    frame = result.to_frame()
    print(f"\nwall time {wall:.0f} s ({result.trained} trials trained, {result.resumed} resumed from {out})\n")
    print(
        f"{'model':<10} {'trials':>6} {'failed':>6} {'(a)':>4} {'(b)':>5} {'pass':>5} {'NPMI':>7} {'C_V':>6} "
        f"{'TU5':>5}  selected  mean s/trial   ((b) in parentheses: counted, not applied)"
    )
    ranking = []
    for model in args.models:
        rows = frame[frame["model"] == model]
        chosen = result.selected[model]
        passing = [int(rows[c].fillna(False).astype(bool).sum()) for c in ("filter_a", "filter_b", "passes")]
        applied = bool(rows["uniqueness_filter"].fillna(False).astype(bool).any())
        b = f"{passing[1]}" if applied else f"({passing[1]})"
        line = (
            f"{model:<10} {len(rows):>6} {(rows.status == 'failed').sum():>6} {passing[0]:>4} {b:>5} {passing[2]:>5} "
        )
        if chosen is None:
            line += f"{'-':>7} {'-':>6} {'-':>5}  none"
        else:
            best = rows[rows["trial"] == chosen].iloc[0]
            ranking.append((best["npmi"], model))
            line += f"{best['npmi']:>7.4f} {best['cv']:>6.3f} {best['filter_uniqueness']:>5.2f}  {chosen}"
        print(f"{line}  {rows['train_seconds'].mean():.0f}")
    order = [model for _, model in sorted(ranking, reverse=True)]
    print(f"\nby selected NPMI: {' > '.join(order) or 'no model passes the filters'}")
    finished = frame[frame["status"] == "ok"]
    unfiltered = finished.groupby("model")["npmi"].max().sort_values(ascending=False)
    print(f"by best NPMI before the filters: {' > '.join(f'{m} ({v:.4f})' for m, v in unfiltered.items())}")
    if "dvae" in args.models:
        verdict = "yes" if order[:1] == ["dvae"] else "no" if order else "undecided, no model passes the filters"
        print(f"D-VAE first after the filters (Hoyle et al.'s ordering): {verdict}")
    for model in args.models:
        chosen = result.selected[model]
        if chosen is not None:
            record = next(r for r in result.records if r["trial"] == chosen)
            print(f"\n{chosen} {record['params']}")
            for words in record["top_words"][:5]:
                print("  " + " ".join(words))


def full_sweep(args: argparse.Namespace, corpus_dir: Path, index_dir: Path) -> None:
    """``--full`` (module docstring): plan the authors' budget, measure a slice, extrapolate."""
    import numpy as np

    from sweep_full import extrapolate, measure, score_budget, train_budget
    from tealeaves.corpus import Corpus
    from tealeaves.model_selection.config import SweepConfig  # not the package: it asks for dask, needed here by none
    from tealeaves.model_selection.run import plan

    if args.save_embeddings is not None:
        from tealeaves.models.neural.etm import cached_skip_gram_embeddings

        np.save(args.save_embeddings, cached_skip_gram_embeddings(Corpus.load(corpus_dir), 300, 0)[0])
        return
    settings = 82 if args.settings == 16 else args.settings  # the authors' 82 unless asked otherwise
    config = SweepConfig(corpus_dir, index_dir, models=tuple(args.models), settings=settings, k=args.k, seed=args.seed)
    trials = plan(config)
    if args.score_budget is not None:
        score_budget(trials, args.score_budget)
        return
    if args.budget_trials:
        train_budget(trials, args)
        return
    print(
        f"# the full sweep: {settings} settings per model, Table 8's steps; a slice of {args.slice_steps} steps per "
        f"model on {platform.processor() or platform.machine()} ({os.cpu_count()} cores), neural on {args.device}",
        flush=True,
    )
    rows = extrapolate(trials, measure(trials, args), args)
    print("\n| model | trials | steps in all | s per step | hours |")
    print("|---|---|---|---|---|")
    for row in rows:
        hours = ", ".join(
            f"{row[key]:.1f} {label}"
            for key, label in (
                ("hours_cpu", f"on {args.workers} cores"),
                ("hours_device_alone", f"on {args.device}, one trial at a time"),
                ("hours_device_packed", f"on {args.device}, {row.get('packs')} packs"),
            )
            if key in row
        )
        print(f"| {row['model']} | {row['trials']} | {row['steps']:,} | {row['s_per_step']:.3f} | {hours} |")


if __name__ == "__main__":
    main()
