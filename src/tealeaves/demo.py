"""``tealeaves demo``: the main job end to end on the built-in State of the Union corpus.

The demo is a list of steps (:data:`STEPS`), each a function of the shared :class:`DemoRun`
that writes under ``run.out`` and prints what it found. Each feature adds its step.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tealeaves.artifacts import new_manifest, read_manifest, write_json
from tealeaves.console import console, mapping_table, progress_bar, topics_table
from tealeaves.corpus import Corpus, prepare
from tealeaves.errors import ArtifactError, TealeavesError
from tealeaves.models import TopicModel, train

CORPUS = "builtin:sotu"


@dataclass
class DemoRun:
    """What the steps share: settings, and the corpora and models made so far."""

    out: Path
    k: int = 20
    iterations: int = 1000
    seed: int = 0
    train: Corpus | None = None
    heldout: Corpus | None = None
    models: dict[str, TopicModel] = field(default_factory=dict)


def step_prepare(run: DemoRun) -> None:
    """Prepare SOTU paragraphs with a 20% held-out split (Hoyle et al. 2021 preprocessing)."""
    with progress_bar(transient=True) as progress:
        run.train, run.heldout = prepare(CORPUS, out=run.out / "corpus", heldout=0.2, seed=run.seed, progress=progress)  # type: ignore[misc]
    console.print(mapping_table(f"{CORPUS}: training corpus ({run.out / 'corpus' / 'train'})", run.train.stats()))
    console.print(mapping_table(f"{CORPUS}: held-out corpus ({run.out / 'corpus' / 'heldout'})", run.heldout.stats()))


def step_train(run: DemoRun) -> None:
    """Train LDA by collapsed Gibbs sampling and print its topics."""
    assert run.train is not None
    with progress_bar(transient=True) as progress:
        model = train(
            run.train,
            "lda-gibbs",
            k=run.k,
            seed=run.seed,
            iterations=run.iterations,
            out=run.out / "models" / "lda-gibbs",
            progress=progress,
        )
    run.models["lda-gibbs"] = model
    seconds = model.manifest["training"]["seconds"]
    title = f"lda-gibbs, K={run.k}, {run.iterations} sweeps, {seconds:.1f} s"
    console.print(topics_table(title, model.top_words(10), weights=model.alpha))


STEPS: list[Callable[[DemoRun], None]] = [step_prepare, step_train]


def run_demo(out: Path = Path("tealeaves-demo"), k: int = 20, iterations: int = 1000, seed: int = 0) -> DemoRun:
    """Run every demo step, replacing ``out`` if it holds an earlier demo."""
    out = Path(out)
    if out.exists():
        try:
            read_manifest(out, kind="demo")
        except TealeavesError:
            raise ArtifactError(f"{out} exists and is not a tealeaves demo folder; pass another --out") from None
        shutil.rmtree(out)
    out.mkdir(parents=True)
    write_json(out / "manifest.json", new_manifest("demo", corpus=CORPUS, k=k, iterations=iterations, seed=seed))
    run = DemoRun(out=out, k=k, iterations=iterations, seed=seed)
    for step in STEPS:
        console.rule(f"[bold]{step.__doc__.splitlines()[0] if step.__doc__ else step.__name__}")
        step(run)
    console.print(f"\nEverything is in [bold]{out}[/]; `tealeaves info {out / 'models' / 'lda-gibbs'}` shows a model.")
    return run
