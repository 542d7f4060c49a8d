"""Held-out likelihood: Wallach et al. 2009 Figures 1 and 3 on synthetic data from AP-trained LDA, and speed.

Usage: python benchmarks/likelihood.py [--data DIR (../shared/data)] [--work DIR] [--out DIR]
                                       [--docs 50] [--runs 10] [--quick]

1. AP is prepared (Hoyle et al. 2021 preprocessing, 20% held out) and LDA with 3 and 50 topics
   is trained on it (lda-gibbs, MALLET-style asymmetric α); both are kept in ``--work``.
2. Two synthetic sets as in Table 2: ``--docs`` documents of 500 tokens from the 3-topic model
   and of 200 tokens from the 50-topic model (θ ~ Dir(αm), z ~ θ, w ~ φ_z).
3. Figure 1: every estimator, ``--runs`` runs per document; Σ_d log P̄(w^(d)) with the bootstrap
   standard deviation (§6.2), at two budgets ("1" and "2", the second double the first, as in
   the paper). The checks printed: the harmonic mean far above, IS-PT and IS-PZW below, and
   CS, a long LR (sis) run and a long AIS run in agreement within bootstrap error (the long
   rows run ``LONG_RUNS`` times per document).
4. Figure 3: log ratios Σ log P(λ) - Σ log P(0) when Φ or m is interpolated towards random
   parameters, λ in {0, .25, .5, .75}, on the 50-topic set, and the ordering checks.
5. Speed: milliseconds per document on one thread for N = 200, K = 50 (the Done-when budgets:
   LR wallach R = 20 and CS S = 1000 <= 32 ms, 100x faster than the 3.2 s Wallach et al. report;
   LR sis R = 20 <= 2 ms), and documents per second for the AP held-out set on 1 and 2 threads.

Tables are printed; figures (PNG) and CSV tables are written to ``--out``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd

from shared_data import add_data_option, data_path
from tealeaves import Corpus, TopicModel, prepare, train
from tealeaves.likelihood import complete, estimate, perturbation_study, synthetic_corpus

ROOT = Path(__file__).resolve().parents[1]

# (label, method, params); "1" and "2" double the budget, as in the paper's Figure 1
FIGURE_1: list[tuple[str, str, dict[str, Any]]] = [
    ("HM", "harmonic-mean", {"burn_in": 1000, "samples": 1000}),
    ("IS-PT 1", "is-prior-theta", {"samples": 2000}),
    ("IS-PT 2", "is-prior-theta", {"samples": 4000}),
    ("IS-PZW 1", "is-pzw", {"samples": 2000}),
    ("IS-PZW 2", "is-pzw", {"samples": 4000}),
    ("IS-IP 1", "is-iterated-pseudocounts", {"iterations": 10, "samples": 2000}),
    ("IS-IP 2", "is-iterated-pseudocounts", {"iterations": 10, "samples": 4000}),
    ("AIS long", "ais", {"temperatures": 50_000}),
    ("CS 1", "chib", {"samples": 1000}),
    ("CS 2", "chib", {"samples": 2000}),
    ("LR-wallach 1", "left-to-right", {"variant": "wallach", "particles": 20}),
    ("LR-wallach 2", "left-to-right", {"variant": "wallach", "particles": 40}),
    ("LR-sis 1", "left-to-right", {"variant": "sis", "particles": 2000}),
    ("LR-sis 2", "left-to-right", {"variant": "sis", "particles": 4000}),
    ("LR-sis long", "left-to-right", {"variant": "sis", "particles": 100_000}),
    ("LR-mallet 1", "left-to-right", {"variant": "mallet", "particles": 2000}),
]
ACCURATE = ("AIS long", "CS 2", "LR-sis long")
LONG_RUNS = 3  # the "long" rows cost 10-50x more; they run 3 times per document (fewer with --runs)
REFERENCE_DOCS, REFERENCE_PARTICLES = 5, 400_000  # a very long sis run on a few documents, as a reference
SPEED: list[tuple[str, str, dict[str, Any], float | None]] = [
    ("LR-sis R=20", "left-to-right", {"particles": 20}, 2.0),
    ("LR-wallach R=20", "left-to-right", {"variant": "wallach", "particles": 20}, 32.0),
    ("CS S=1000", "chib", {"samples": 1000}, 32.0),
    ("LR-mallet R=20", "left-to-right", {"variant": "mallet", "particles": 20}, None),
    ("IS-PT S=1000", "is-prior-theta", {"samples": 1000}, None),
    ("IS-PZW S=1000", "is-pzw", {"samples": 1000}, None),
    ("IS-IP I=10 S=1000", "is-iterated-pseudocounts", {"iterations": 10, "samples": 1000}, None),
    ("HM B=500 S=500", "harmonic-mean", {"burn_in": 500, "samples": 500}, None),
    ("AIS S=1000", "ais", {"temperatures": 1000}, None),
]


def load(args: argparse.Namespace) -> tuple[Corpus, Corpus, dict[int, TopicModel]]:
    """The AP split and the 3- and 50-topic models, prepared and trained once into ``--work``."""
    corpus_dir = args.work / "ap"
    if (corpus_dir / "train").is_dir():
        train_corpus, heldout = Corpus.load(corpus_dir / "train"), Corpus.load(corpus_dir / "heldout")
    else:
        train_corpus, heldout = prepare(args.ap, heldout=0.2, seed=0, out=corpus_dir)
    models = {}
    for k in (3, 50):
        folder = args.work / f"lda-{k}"
        if folder.is_dir():
            models[k] = TopicModel.load(folder)
        else:
            models[k] = train(train_corpus, "lda-gibbs", k=k, seed=0, iterations=args.iterations, out=folder)
    return train_corpus, heldout, models


def figure_1(name: str, model: TopicModel, docs: Corpus, args: argparse.Namespace) -> pd.DataFrame:
    """Σ_d log P̄ with bootstrap sd for every method of :data:`FIGURE_1`."""
    rows = []
    results = {}
    print(f"\n## Figure 1, {name}: {len(docs)} documents of {docs.doc_lengths()[0]} tokens, {args.runs} runs each")
    print(f"{'method':<14} {'sum log P':>12} {'bootstrap sd':>12} {'per token':>10} {'seconds':>8}  guarantee")
    for label, method, params in FIGURE_1:
        if args.quick:
            params = quick(params)
        runs = min(args.runs, LONG_RUNS) if label.endswith("long") else args.runs
        result = results[label] = estimate(model, None, docs, method=method, seed=1, runs=runs, **params)
        rows.append(
            {
                "dataset": name,
                "label": label,
                "method": method,
                "params": params,
                "total": result.total,
                "sd": result.total_sd,
                "per_token": result.per_token,
                "seconds": result.seconds,
            }
        )
        print(
            f"{label:<14} {result.total:>12.2f} {result.total_sd:>12.2f} {result.per_token:>10.4f} "
            f"{result.seconds:>8.1f}  {result.guarantee}"
        )
    frame = pd.DataFrame(rows).set_index("label")
    check_figure_1(frame)
    check_reference(model, docs, results, args)
    return frame


def check_reference(model: TopicModel, docs: Corpus, results: dict[str, Any], args: argparse.Namespace) -> None:
    """Per-document log P̄ of the accurate methods against one very long sis run on the first documents."""
    first = list(range(min(REFERENCE_DOCS, len(docs))))
    particles = REFERENCE_PARTICLES // (100 if args.quick else 1)
    reference = estimate(model, None, docs.subset(first), method="left-to-right", particles=particles, seed=7)
    gaps = {label: results[label].log_prob[first] - reference.log_prob for label in ACCURATE}
    shown = ", ".join(f"{label} {gap.mean():+.2f}" for label, gap in gaps.items())
    print(f"reference: LR-sis with {particles:,} particles on {len(first)} documents; mean gap per document: {shown}")


def check_figure_1(frame: pd.DataFrame) -> None:
    """Print whether the shape of Figure 1 holds, against the largest of the accurate estimates.

    Unbiased estimators give stochastic lower bounds in log, so the largest accurate estimate is
    the reference (§6.2); "agree" means within two combined bootstrap standard deviations of it.
    """
    accurate = frame.loc[list(ACCURATE)]
    best = accurate.total.idxmax()
    top, top_sd = accurate.total[best], accurate.sd[best]
    print(f"check: HM far above the best accurate estimate ({best}): {frame.total['HM'] - top:+.1f} nats")
    for label in ("IS-PT 2", "IS-PZW 2", "IS-IP 2", "LR-mallet 1"):
        gap = frame.total[label] - top
        bound = 2 * float(np.hypot(frame.sd[label], top_sd))
        print(
            f"check: {label} below it: {gap:+.1f} nats, 2 combined sd {bound:.1f} ({'yes' if gap < -bound else 'NO'})"
        )
    for label in ACCURATE:
        gap = accurate.total[label] - top
        bound = 2 * float(np.hypot(accurate.sd[label], top_sd))
        print(
            f"check: {label} agrees with it: {gap:+.2f} nats, 2 combined sd {bound:.2f} ({'yes' if -gap <= bound else 'NO'})"
        )


def figure_3(model: TopicModel, docs: Corpus, args: argparse.Namespace) -> pd.DataFrame:
    """Log ratios under perturbed Φ and m for ET (completion), IS-PT, LR and CS."""
    samples = 100 if args.quick else 1000

    def et(phi: np.ndarray, alpha: np.ndarray, docs: Corpus, seed: int) -> Any:
        return complete(phi, alpha, docs, method="estimated-theta", seed=seed, burn_in=100, samples=samples)

    def is_pt(phi: np.ndarray, alpha: np.ndarray, docs: Corpus, seed: int) -> Any:
        return estimate(phi, alpha, docs, method="is-prior-theta", seed=seed, samples=samples)

    def lr(phi: np.ndarray, alpha: np.ndarray, docs: Corpus, seed: int) -> Any:
        return estimate(phi, alpha, docs, method="left-to-right", seed=seed, particles=samples)

    def cs(phi: np.ndarray, alpha: np.ndarray, docs: Corpus, seed: int) -> Any:
        return estimate(phi, alpha, docs, method="chib", seed=seed, samples=samples)

    evaluators = {"ET (completion)": et, "IS-PT": is_pt, "LR": lr, "CS": cs}
    started = time.perf_counter()
    frame = perturbation_study(model, None, docs, evaluators, seed=3).to_frame()
    print(f"\n## Figure 3: log ratio to λ = 0, 50-topic set ({time.perf_counter() - started:.0f} s)")
    table = frame.pivot_table(index=["target", "lam"], columns="evaluator", values="log_ratio", sort=False)
    print(table.round(1).to_string())
    at = table.xs(0.75, level="lam")
    lr_phi, is_phi, et_phi = at.loc["phi", "LR"], at.loc["phi", "IS-PT"], at.loc["phi", "ET (completion)"]
    print(
        f"check: perturbing Φ, LR drops most, IS-PT and ET understate it: {lr_phi:.1f} < {is_phi:.1f}, {et_phi:.1f} "
        f"({'yes' if lr_phi < min(is_phi, et_phi) else 'NO'})"
    )
    is_m, et_m = at.loc["m", "IS-PT"], at.loc["m", "ET (completion)"]
    print(
        f"check: perturbing m, IS-PT strongly affected, ET less: {is_m:.1f} < {et_m:.1f} ({'yes' if is_m < et_m else 'NO'})"
    )
    cs_phi = at.loc["phi", "CS"]
    print(
        f"check: CS tracks LR: {cs_phi:.1f} vs {lr_phi:.1f} (perturbed Φ), {at.loc['m', 'CS']:.1f} vs {at.loc['m', 'LR']:.1f} (m)"
    )
    return frame


def speed(model: TopicModel, synthetic: Corpus, heldout: Corpus, args: argparse.Namespace) -> pd.DataFrame:
    """ms per document on one thread (N = 200, K = 50) and documents per second on the AP held-out set."""
    rows = []
    warm = synthetic.subset([0])
    for _, method, params, _ in SPEED:
        estimate(model, None, warm, method=method, **quick(params))  # load the compiled kernels
    docs = synthetic.subset(range(min(20 if args.quick else 50, len(synthetic))))
    print(
        f"\n## Speed, one thread: {len(docs)} documents, N = 200 tokens, K = {model.k} (load {os.getloadavg()[0]:.1f})"
    )
    print(f"{'method':<20} {'ms/doc':>8} {'budget':>8}")
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        for label, method, params, budget in SPEED:
            result = best_of(lambda m=method, p=params: estimate(model, None, docs, method=m, seed=2, **p), args.repeat)
            ms = 1000 * result / len(docs)
            mark = "" if budget is None else f"<= {budget:g}" + ("" if ms <= budget else " MISSED")
            rows.append({"section": "one thread, N=200", "method": label, "ms_per_doc": ms, "budget_ms": budget})
            print(f"{label:<20} {ms:>8.2f} {mark:>8}")
        n_threads = min(2, previous)
        print(
            f"\n## Documents per second, AP held-out set: {len(heldout)} documents, {heldout.n_tokens} tokens, "
            f"K = {model.k} (load {os.getloadavg()[0]:.1f})"
        )
        print(f"{'method':<20} {'1 thread':>10} {f'{n_threads} threads':>10}")
        for label, method, params, _ in SPEED[:3]:
            rates = []
            for threads in (1, n_threads):
                numba.set_num_threads(threads)
                seconds = best_of(lambda m=method, p=params: estimate(model, None, heldout, method=m, seed=2, **p), 1)
                rates.append(len(heldout) / seconds)
                rows.append({"section": f"AP held-out, {threads} threads", "method": label, "docs_per_s": rates[-1]})
            print(f"{label:<20} {rates[0]:>10.1f} {rates[1]:>10.1f}")
    finally:
        numba.set_num_threads(previous)
    return pd.DataFrame(rows)


def best_of(run: Any, repeat: int) -> float:
    """The fastest of ``repeat`` wall-clock timings of ``run()``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def quick(params: dict[str, Any]) -> dict[str, Any]:
    """Budgets divided by 10 for a smoke run."""
    keys = ("samples", "temperatures", "burn_in")
    return {k: max(1, v // 10) if k in keys or (k == "particles" and v > 40) else v for k, v in params.items()}


def plot(figure1: pd.DataFrame, figure3: pd.DataFrame, out: Path) -> None:
    """figure1.png (all methods above, the competitive ones below) and figure3.png."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(figure1.dataset))
    fig, axes = plt.subplots(2, len(datasets), figsize=(6 * len(datasets), 8), squeeze=False)
    for column, name in enumerate(datasets):
        part = figure1[figure1.dataset == name]
        for row, labels in enumerate((list(part.index), list(ACCURATE))):
            ax = axes[row, column]
            values = part.loc[labels]
            ax.errorbar(range(len(labels)), values.total, yerr=values.sd.fillna(0), fmt="o", capsize=3)
            ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=8)
            ax.set_ylabel("Σ_d log P(w | Φ, αm)")
            ax.set_title(name if row == 0 else f"{name}: the competitive methods")
    fig.tight_layout()
    fig.savefig(out / "figure1.png", dpi=120)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, target, title in zip(axes, ("phi", "m"), ("perturbing Φ", "perturbing m")):
        part = figure3[figure3.target == target]
        for evaluator, rows in part.groupby("evaluator", sort=False):
            ax.plot(rows.lam, rows.log_ratio, marker="o", label=evaluator)
        ax.set_title(title)
        ax.set_xlabel("λ")
    axes[0].set_ylabel("log ratio to λ = 0")
    axes[1].legend()
    fig.tight_layout()
    fig.savefig(out / "figure3.png", dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "likelihood" / "work")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "likelihood")
    parser.add_argument("--docs", type=int, default=50, help="synthetic documents per set (the paper: 50)")
    parser.add_argument("--runs", type=int, default=10, help="runs per document (the paper: 10)")
    parser.add_argument("--iterations", type=int, default=1000, help="Gibbs sweeps to train the AP models")
    parser.add_argument("--repeat", type=int, default=3, help="timings per speed row; the best is reported")
    parser.add_argument("--quick", action="store_true", help="a smoke run: budgets / 10, 5 documents, 3 runs")
    parser.add_argument("--skip", nargs="*", default=[], choices=["figure1", "figure3", "speed"])
    args = parser.parse_args()
    args.ap = data_path(args.data, "ap")
    if args.quick:
        args.docs, args.runs, args.repeat = 5, 3, 1
    args.out.mkdir(parents=True, exist_ok=True)
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, numba {numba.__version__} "
        f"({numba.get_num_threads()} threads), Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}"
    )
    started = time.perf_counter()
    _, heldout, models = load(args)
    print(
        f"# AP: held-out {heldout}; models trained in {models[3].manifest['training']['seconds']:.0f} s (K=3) "
        f"and {models[50].manifest['training']['seconds']:.0f} s (K=50)"
    )
    synthetic = {
        "synthetic, 3 topics": synthetic_corpus(models[3], None, args.docs, 500, seed=11),
        "synthetic, 50 topics": synthetic_corpus(models[50], None, args.docs, 200, seed=12),
    }
    frames = []
    if "figure1" not in args.skip:
        frames = [figure_1(name, models[3 if "3 " in name else 50], docs, args) for name, docs in synthetic.items()]
        figure1 = pd.concat(frames).reset_index()
        figure1.to_csv(args.out / "figure1.csv", index=False)
    if "figure3" not in args.skip:
        figure3 = figure_3(models[50], synthetic["synthetic, 50 topics"], args)
        figure3.to_csv(args.out / "figure3.csv", index=False)
    if "speed" not in args.skip:
        speed(models[50], synthetic_corpus(models[50], None, 50, 200, seed=13), heldout, args).to_csv(
            args.out / "speed.csv", index=False
        )
    if "figure1" not in args.skip and "figure3" not in args.skip:
        plot(figure1.set_index("label"), figure3, args.out)
        print(f"\nfigures and tables: {args.out}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
