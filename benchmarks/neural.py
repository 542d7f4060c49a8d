"""The neural models of Hoyle et al. 2021 on 20 Newsgroups: NPMI, C_V and topic uniqueness of
lda-gibbs, dvae and etm at K = 20 and 50, and training seconds per epoch (per sweep for LDA);
with ``--speed``, seconds per epoch of dvae and etm against an earlier version and the achieved
GFLOP/s.

    python benchmarks/neural.py [--data DIR (../shared/data)] [--work DIR] [-k 20 50]
                                [--dvae-epochs 50] [--etm-epochs 5] [--lda-iterations 300]
                                [--threads 1]
    python benchmarks/neural.py --speed [--baseline REV] [--repeats 3] [--speed-epochs 3]
                                [-k 50] [--threads 2]

20 Newsgroups (train and test, 18,846 posts) is prepared with Hoyle et al.'s preprocessing and is
both the training corpus and the reference corpus of NPMI (10-token windows) and C_V (110-token
windows) over each topic's top 10 words; topic uniqueness (Nan et al. 2019) over the top 10.
Each model is trained once per K with seed 0 and its Table 8 defaults (best NYT setting), except
the number of epochs: the defaults (500 for dvae, 1000 for etm) take hours on two CPU cores, so
``--dvae-epochs`` and ``--etm-epochs`` cut them, and dvae's annealing spans γ_BN and γ_KL are cut
in the same proportion (200 of 500 epochs becomes 20 of 50), so that its annealing ends where
it would. Seconds per epoch are wall time between the first and the last epoch's progress
update, divided by the epochs (dvae and etm, with ``--threads`` PyTorch threads; etm's skip-gram
embeddings are timed apart), or the training time divided by the sweeps (lda-gibbs, one worker).
Preparing the corpus and building the index are not timed; ``--work`` keeps them.

``--speed``: dvae (in its batch-norm annealing phase, the first γ_BN epochs, and after it) and
etm (its per-epoch document completion included) at the first ``-k``, Table 8's defaults,
``--speed-epochs`` epochs per run on the CPU; the seconds of each epoch but the first (which
warms up) are kept, and the median over ``--repeats`` runs is printed. ``--baseline REV`` also
times the trainers of git revision REV (``src/tealeaves/models/neural`` read with ``git show``
and imported under another name), run by run in turn with this version's in the same process,
so that the machine's load hits both alike. GFLOP per epoch counts the multiply-adds (2 FLOPs)
of the matrix products, forward and backward (the gradient of an input and of a weight each cost
a forward product), as executed: the encoders' first layer and ETM's mixture θβ at the nonzero
counts only (this version), or over the dense documents x words matrix (``dense``, what the
baseline executes); GFLOP/s divides them by the median seconds per epoch, against a plain
``torch.mm`` of the largest dense product's shape on the same threads. The load average
(``os.getloadavg``) and ``OMP_WAIT_POLICY`` are printed with the table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from shared_data import ROOT, add_data_option, data_path

DEFAULT_EPOCHS = {"dvae": 500, "etm": 1000}
DVAE_ANNEALING = {"gamma_bn": 200, "gamma_kl": 200}  # Table 8b's best NYT setting


class EpochClock:
    """A progress callback that notes when each epoch of the training task ends."""

    def __init__(self, task: str) -> None:
        self.task, self.started = task, time.perf_counter()
        self.times: list[float] = []
        self.phases: dict[str, float] = {}

    def __call__(self, update: Any) -> None:
        now = time.perf_counter()
        if update.task == self.task:
            self.times.append(now)
        elif update.done == update.total:
            self.phases[update.task] = now - self.started

    def per_epoch(self) -> float:
        return (self.times[-1] - self.times[0]) / (len(self.times) - 1)


def train_one(corpus: Any, model: str, k: int, args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    from tealeaves.models import train

    params: dict[str, Any]
    if model == "lda-gibbs":
        params = {"iterations": args.lda_iterations}
    elif model == "dvae":
        scale = args.dvae_epochs / DEFAULT_EPOCHS["dvae"]
        params = {"epochs": args.dvae_epochs, "threads": args.threads, "device": "cpu"}
        params |= {name: max(1, round(value * scale)) for name, value in DVAE_ANNEALING.items()}
    else:
        params = {"epochs": args.etm_epochs, "threads": args.threads, "device": "cpu"}
    clock = EpochClock(f"train {model}")
    started = time.perf_counter()
    fitted = train(corpus, model, k=k, seed=0, progress=clock, **params)
    seconds = time.perf_counter() - started
    per_epoch = seconds / args.lda_iterations if model == "lda-gibbs" else clock.per_epoch()
    timing = {"params": params, "seconds": round(seconds, 1), "seconds_per_epoch": round(per_epoch, 3)}
    if model == "etm":
        timing["embedding_seconds"] = round(clock.phases.get("train etm: skip-gram embeddings", float("nan")), 1)
    return fitted, timing


def baseline_trainers(revision: str) -> dict[str, Any]:
    """The ``fit`` functions of dvae and etm at git ``revision`` (or in a folder holding their
    ``_training.py``, ``dvae.py`` and ``etm.py``), imported as ``tealeaves_baseline``."""
    package = "tealeaves_baseline"
    folder = "src/tealeaves/models/neural"
    spec = importlib.util.spec_from_loader(package, loader=None, is_package=True)
    assert spec is not None
    sys.modules[package] = root = importlib.util.module_from_spec(spec)
    root.__path__ = []

    def read(name: str) -> str:
        if Path(revision).is_dir():
            return (Path(revision) / f"{name}.py").read_text()
        command = ["git", "-C", str(ROOT), "show", f"{revision}:{folder}/{name}.py"]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout

    for name in ("_training", "dvae", "etm"):
        source = read(name).replace("tealeaves.models.neural.", f"{package}.")
        module_spec = importlib.util.spec_from_loader(f"{package}.{name}", loader=None)
        assert module_spec is not None
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_spec.name] = module
        exec(compile(source, f"{revision}:{folder}/{name}.py", "exec"), module.__dict__)
        setattr(root, name, module)
    return {"dvae": root.dvae.fit, "etm": root.etm.fit}


SPEED_CASES = {  # case: (model, parameters besides the defaults)
    "dvae annealing": ("dvae", {}),  # γ_BN = 200: batch norm on the decoder's logits, both softmaxes
    "dvae after": ("dvae", {"gamma_bn": 1}),  # from the second epoch on, no batch norm
    "etm": ("etm", {}),
}


def epoch_seconds(
    fit: Any, corpus: Any, model: str, k: int, params: dict[str, Any], args: argparse.Namespace
) -> list[float]:
    times: list[float] = []

    def clock(update: Any) -> None:
        if update.task == f"train {model}":
            times.append(time.perf_counter())

    fit(corpus, k, seed=0, progress=clock, epochs=args.speed_epochs, threads=args.threads, device="cpu", **params)
    return list(np.diff(times)[1:])


def epoch_flops(model: str, x: Any, dense: bool, k: int = 50) -> float:
    """FLOPs of the matrix products of one epoch with Table 8's defaults (see the module docstring):
    ``x`` the document-term matrix (scipy CSR), ``dense`` counting its zeros too. Half a
    document (document completion) counts half its nonzeros."""
    n, v = x.shape
    per_doc = v if dense else x.nnz / n  # the entries of an average row that are multiplied

    def sparse(rows: float, cols: int, share: float = 1.0) -> float:
        return 2.0 * rows * per_doc * (1.0 if dense else share) * cols

    if model == "dvae":
        b, hidden = 200, 100
        docs = (n // b) * b
        rest = 2.0 * docs * (hidden * k + k * v)  # the encoder's second layer and the decoder
        return 2 * sparse(docs, hidden) + 3 * rest  # the first layer's backward: its weight only
    b, hidden, dims = 1000, 800, 300
    batches, halves = n // b, -(-n // b)
    docs = batches * b
    encoder = 2.0 * docs * (hidden * hidden + hidden * 2 * k)
    beta = 2.0 * v * dims * k  # β = softmax(ρ α^T), once per batch; ρ is fixed
    train = 3 * (encoder + sparse(docs, k)) + 2 * (sparse(docs, hidden) + batches * beta)
    completion = 2.0 * n * (hidden * hidden + hidden * k) + sparse(n, hidden, 0.5) + sparse(n, k, 0.5)
    return train + completion + halves * beta


def matmul_gflops(threads: int, m: int, n: int, inner: int, repeat: int = 10) -> float:
    from tealeaves.models.neural import require_torch

    torch = require_torch()
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    a, b = torch.randn(m, inner), torch.randn(inner, n)
    torch.mm(a, b)
    started = time.perf_counter()
    for _ in range(repeat):
        torch.mm(a, b)
    torch.set_num_threads(before)
    return 2.0 * m * n * inner * repeat / (time.perf_counter() - started) / 1e9


def speed(corpus: Any, args: argparse.Namespace) -> None:
    from tealeaves.models.neural import dvae, etm, require_torch

    require_torch()  # first: OMP_WAIT_POLICY as tealeaves sets it, for both versions
    k = args.k[0]
    versions = {"this": {"dvae": dvae.fit, "etm": etm.fit}}
    if args.baseline:
        versions["baseline"] = baseline_trainers(args.baseline)
    seconds: dict[tuple[str, str], list[float]] = {}
    load = [os.getloadavg()[0]]
    for repeat in range(args.repeats):
        for case, (model, params) in SPEED_CASES.items():
            for version, fits in versions.items():
                per_epoch = epoch_seconds(fits[model], corpus, model, k, params, args)
                seconds.setdefault((case, version), []).extend(per_epoch)
                print(f"# repeat {repeat + 1}: {case} {version}: {np.round(per_epoch, 2)} s/epoch", flush=True)
        load.append(os.getloadavg()[0])
    x = corpus.doc_term_matrix().tocsr()
    peak = {"dvae": matmul_gflops(args.threads, 200, 8393, 50), "etm": matmul_gflops(args.threads, 1000, 800, 800)}
    policy = os.environ.get("OMP_WAIT_POLICY", "unset")
    print(
        f"\n## Seconds per epoch, 20 Newsgroups ({x.shape[0]} documents, V = {x.shape[1]}), K = {k}, "
        f"{args.threads} threads, OMP_WAIT_POLICY={policy}; median of {args.repeats} runs x "
        f"{args.speed_epochs - 1} epochs; load average {min(load):.1f} to {max(load):.1f} on {os.cpu_count()} cores"
    )
    print(
        "| model | baseline s/epoch | this s/epoch | speed-up | GFLOP/epoch (dense / this) | GFLOP/s (baseline / this) | torch.mm GFLOP/s |"
    )
    print("|---|---|---|---|---|---|---|")
    for case, (model, _) in SPEED_CASES.items():
        this = float(np.median(seconds[(case, "this")]))
        dense, executed = epoch_flops(model, x, dense=True, k=k), epoch_flops(model, x, dense=False, k=k)
        base = float(np.median(seconds[(case, "baseline")])) if args.baseline else float("nan")
        print(
            f"| {case} | {base:.2f} | {this:.2f} | {base / this:.2f}x | {dense / 1e9:.0f} / {executed / 1e9:.0f} "
            f"| {dense / base / 1e9:.1f} / {executed / this / 1e9:.1f} | {peak[model]:.1f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "neural")
    parser.add_argument("-k", type=int, nargs="+", default=[20, 50])
    parser.add_argument("--models", nargs="+", default=["lda-gibbs", "dvae", "etm"])
    parser.add_argument("--dvae-epochs", type=int, default=50)
    parser.add_argument("--etm-epochs", type=int, default=5)
    parser.add_argument("--lda-iterations", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1, help="PyTorch CPU threads of dvae and etm")
    parser.add_argument("--speed", action="store_true", help="time dvae and etm epochs instead (module docstring)")
    parser.add_argument(
        "--baseline", help="with --speed: a git revision (or a folder of its neural/*.py) whose trainers are timed too"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--speed-epochs", type=int, default=3)
    args = parser.parse_args()

    from tealeaves.coherence import RefIndex, diversity, score
    from tealeaves.corpus import Corpus, prepare

    args.work.mkdir(parents=True, exist_ok=True)
    corpus_dir, index_dir = args.work / "corpus", args.work / "index"
    if not corpus_dir.exists():
        news = data_path(args.data, "20news")
        print(f"# preparing {news} (not timed)", flush=True)
        prepare(news, out=corpus_dir)
    corpus = Corpus.load(corpus_dir)
    if args.speed:
        speed(corpus, args)
        return
    if not index_dir.exists():
        RefIndex.build(corpus, out=index_dir)
    index = RefIndex.load(index_dir)
    print(f"# 20 Newsgroups: {len(corpus)} documents, {corpus.n_tokens} tokens, V = {len(corpus.vocab)}", flush=True)

    rows = []
    for k in args.k:
        for model in args.models:
            fitted, timing = train_one(corpus, model, k, args)
            row = {
                "model": model,
                "k": k,
                "npmi": score(fitted, index, measure="npmi", window=10, topn=10).model_mean,
                "c_v": score(fitted, index, measure="cv", window=110, topn=10).model_mean,
                "topic_uniqueness": diversity(fitted).topic_uniqueness,
                **timing,
                "topics": [" ".join(words) for words in fitted.top_words(10)],
            }
            rows.append(row)
            print(
                f"{model:10s} K={k:3d}  NPMI {row['npmi']:.3f}  C_V {row['c_v']:.3f}  "
                f"TU {row['topic_uniqueness']:.3f}  {timing['seconds_per_epoch']:.2f} s/epoch  "
                f"({timing['seconds']:.0f} s, {timing['params']})",
                flush=True,
            )
            for words in row["topics"][:5]:
                print(f"    {words}")
    out = args.work / "neural.json"
    out.write_text(json.dumps(rows, indent=1))
    print(f"# written {out}")


if __name__ == "__main__":
    main()
