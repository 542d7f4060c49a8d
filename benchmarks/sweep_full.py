"""The full sweep of ``benchmarks/sweep.py --full``: Hoyle et al.'s budget (82 settings per model,
Table 8's sweeps and epochs) planned, a slice of its trials measured, the whole time extrapolated.

Each model's seconds per step (a G-LDA sweep, a neural epoch) are measured on a few steps of
one planned trial (the first step left out: it compiles or warms up), and the sweep's time is
Σ over its trials of their steps x those seconds: on the CPU with ``--workers`` trials at a time,
one thread each (the LocalCluster of ``benchmarks/sweep.py``); on ``--device`` the neural trials
one at a time, and the ETM and D-VAE trials also packed as the sweep packs them
(``batch_trials``), a pack's epoch measured at the largest pack's size. ``--budget-trials N`` trains N planned ETM
trials of one shape to their full epochs as one batch on ``--device`` and writes their topics;
``--score-budget DIR`` scores those topics as the sweep does (NPMI, filter (b)) on a machine
with the reference index.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

TOP = 50  # words kept of each topic trained to its budget (the sweep scores the top 10)


def step_seconds(task: str, run: Any) -> float:
    """Median seconds between the progress updates of ``task`` that ``run(progress)`` sends, the first left out."""
    ends: list[float] = []

    def progress(update: Any) -> None:
        if update.task == task and update.done:
            ends.append(time.perf_counter())

    run(progress)
    gaps = np.diff(ends)
    return float(np.median(gaps[1:] if len(gaps) > 1 else gaps))


def given_embeddings(path: Path | None) -> Any:
    """A patch of the ETM's skip-gram cache that hands it the vectors in ``path`` (no gensim needed)."""
    import contextlib
    from unittest import mock

    from tealeaves.models.neural import etm

    if path is None:
        return contextlib.nullcontext()
    vectors = np.load(path)
    return mock.patch.object(etm, "cached_skip_gram_embeddings", lambda *_: (vectors, {"cache": str(path)}))


def measure(trials: list[Any], args: argparse.Namespace) -> dict[str, float]:
    """Seconds per step of one trial of each model (and of a pack of ETM trials) on the slice."""
    from tealeaves.corpus import Corpus
    from tealeaves.model_selection.packing import pack_trials
    from tealeaves.models import train
    from tealeaves.models.neural.batched import fit_many

    corpus = Corpus.load(trials[0].corpus)
    seconds: dict[str, float] = {}
    steps = args.slice_steps
    for model in dict.fromkeys(t.model for t in trials):
        trial = next(t for t in trials if t.model == model)
        if model == "lda-gibbs":  # its progress comes every few sweeps: the whole run timed, after one that compiles
            params = {**trial.params, "iterations": 10 * steps, "optimize_burn_in": 0}
            train(corpus, model, k=trial.k, seed=trial.seed, **{**params, "iterations": 2})
            started = time.perf_counter()
            train(corpus, model, k=trial.k, seed=trial.seed, **params)
            seconds[model] = (time.perf_counter() - started) / params["iterations"]
        else:
            params = {**trial.params, "epochs": steps, "device": args.device}
            run = functools.partial(train, corpus, model, k=trial.k, seed=trial.seed, **params)
            with given_embeddings(args.embeddings):
                seconds[model] = step_seconds(f"train {model}", lambda p, run=run: run(progress=p))
        print(
            f"# {model}: {seconds[model]:.3f} s per step ({'cpu' if model == 'lda-gibbs' else args.device})", flush=True
        )
    for model in ("etm", "dvae"):  # the trainers whose trials the sweep packs
        mine = [t for t in trials if t.model == model]
        if not mine:
            continue
        pack = max(pack_trials(mine, args.batch_trials, args.batch_memory_gb * 1e9), key=len)
        settings = [{"k": t.k, "seed": t.seed, **t.params, "epochs": steps} for t in pack]
        with given_embeddings(args.embeddings):
            seconds[f"{model} pack"] = step_seconds(
                f"train {model} (batched)",
                lambda p, model=model, settings=settings: fit_many(
                    corpus, settings, model=model, device=args.device, progress=p
                ),
            )
        seconds[f"{model} pack size"] = len(pack)
        print(f"# a pack of {len(pack)} {model} trials: {seconds[f'{model} pack']:.3f} s per epoch", flush=True)
    return seconds


def steps_of(trial: Any) -> int:
    return int(trial.params.get("iterations", trial.params.get("epochs", 0)))


def extrapolate(trials: list[Any], seconds: dict[str, float], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Hours of each model's trials: on ``--workers`` CPU processes, on one ``--device`` one at a
    time, and for ETM and D-VAE packed (Σ over packs of their epochs x a pack's epoch)."""
    from tealeaves.model_selection.packing import pack_trials

    rows = []
    for model in dict.fromkeys(t.model for t in trials):
        mine = [t for t in trials if t.model == model]
        steps = sum(steps_of(t) for t in mine)
        hours = steps * seconds[model] / 3600
        row = {"model": model, "trials": len(mine), "steps": steps, "s_per_step": seconds[model]}
        on_cpu = model == "lda-gibbs" or args.device == "cpu"  # trials --workers at a time
        row["hours_cpu" if on_cpu else "hours_device_alone"] = hours / (args.workers if on_cpu else 1)
        if f"{model} pack" in seconds:
            packs = pack_trials(mine, args.batch_trials, args.batch_memory_gb * 1e9)
            row["packs"] = len(packs)
            packed = sum(steps_of(p[0]) for p in packs) * seconds[f"{model} pack"] / 3600
            row["hours_device_packed"] = packed / (args.workers if on_cpu else 1)
        rows.append(row)
    return rows


def train_budget(trials: list[Any], args: argparse.Namespace) -> None:
    """``--budget-trials`` planned ETM trials of the commonest shape to their full epochs, as one batch."""
    from collections import Counter

    from tealeaves.corpus import Corpus
    from tealeaves.models.neural.batched import fit_many, shape_key

    etm_trials = [t for t in trials if t.model == "etm"]
    common = Counter(shape_key({"k": t.k, **t.params}) for t in etm_trials).most_common(1)[0][0]
    chosen = [t for t in etm_trials if shape_key({"k": t.k, **t.params}) == common][: args.budget_trials]
    settings = [{"k": t.k, "seed": t.seed, **t.params} for t in chosen]
    if args.budget_epochs:  # a smoke test's cap, not the budget
        settings = [{**setting, "epochs": args.budget_epochs} for setting in settings]
    print(f"# training {len(chosen)} etm trials of shape {common} to their budget on {args.device}", flush=True)
    started = time.perf_counter()
    with given_embeddings(args.embeddings):
        models = fit_many(Corpus.load(chosen[0].corpus), settings, device=args.device)
    wall = time.perf_counter() - started
    out = args.budget_out
    out.mkdir(parents=True, exist_ok=True)
    top = {t.trial: np.argsort(-m.phi, axis=1)[:, :TOP] for t, m in zip(chosen, models)}
    np.savez_compressed(  # each topic's TOP most probable words and their probabilities (the rest is not scored)
        out / "top.npz",
        **{f"{name}.ids": ids.astype(np.int32) for name, ids in top.items()},
        **{f"{t.trial}.p": np.take_along_axis(m.phi, top[t.trial], 1) for t, m in zip(chosen, models)},
    )
    record = {
        "seconds": wall,
        "device": args.device,
        "trials": [
            {"trial": t.trial, "epochs": s["epochs"], "kept_epoch": m.manifest["training"]["checkpoint"]["epoch"]}
            for t, s, m in zip(chosen, settings, models)
        ],
    }
    (out / "budget.json").write_text(json.dumps(record, indent=1, default=str))
    print(f"# {len(chosen)} trials x {settings[0]['epochs']} epochs in {wall:.0f} s, written {out}", flush=True)


def topics_of(folder: Path, n_words: int) -> dict[str, np.ndarray]:
    """Φ of each trial of :func:`train_budget`: its ``top.npz`` spread over the vocabulary, the
    probability a topic leaves beyond its top words shared evenly by the rest (ranks kept)."""
    from tealeaves.models.neural._training import normalise_rows

    if (folder / "phi.npz").exists():  # a run's whole Φ (float32), when it was small enough to keep
        return {name: normalise_rows(phi) for name, phi in np.load(folder / "phi.npz").items()}
    top = np.load(folder / "top.npz")
    topics = {}
    for name in {key.rsplit(".", 1)[0] for key in top.files}:
        ids, p = top[f"{name}.ids"], top[f"{name}.p"]
        rest = np.clip(1 - p.sum(axis=1, keepdims=True), 0, None) / (n_words - ids.shape[1])
        phi = np.repeat(np.minimum(rest, p.min(axis=1, keepdims=True) * 0.999), n_words, axis=1)
        np.put_along_axis(phi, ids, p, axis=1)
        topics[name] = normalise_rows(phi)
    return topics


def score_budget(trials: list[Any], folder: Path) -> None:
    """Score the topics of :func:`train_budget` as the sweep scores its trials, and select as it selects."""
    from tealeaves.corpus import Corpus
    from tealeaves.model_selection.run import _record, results_frame, score_trial, select_best
    from tealeaves.models import TopicModel
    from tealeaves.parallel import Outcome

    record = json.loads((folder / "budget.json").read_text())
    phi = topics_of(folder, len(Corpus.load(trials[0].corpus).vocab))
    by_name = {t.trial: t for t in trials}
    vocab = Corpus.load(trials[0].corpus).vocab
    records = []
    print(
        "| trial | learning rate | weight decay | γ_η | epochs | kept epoch | NPMI | TU (top 5) | filter (a) | filter (b) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for item in record["trials"]:
        trial = by_name[item["trial"]]
        result = score_trial(
            trial, TopicModel(vocab, phi[trial.trial], kind="etm", manifest={"training": {"seconds": None}})
        )
        records.append(_record(trial, Outcome(0, result, (), 1, None)))
        s, p = result["scores"], trial.params
        print(
            f"| {trial.trial} | {p['learning_rate']} | {p['weight_decay']} | {int(p['anneal_lr'])} | {item['epochs']} "
            f"| {item['kept_epoch']} | {s['npmi']:.4f} | {s['filter_uniqueness']:.2f} | {'kept' if s['filter_a'] else 'out'} "
            f"| {'kept' if s['filter_b'] else 'out'} |"
        )
    print(f"\nselected among them: {select_best(results_frame(tuple(records)))['etm']}")
