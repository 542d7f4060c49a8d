"""``tealeaves demo``: the main job end to end on the built-in State of the Union corpus.

The demo is a list of steps (:data:`STEPS`), each a function of the shared :class:`DemoRun`
that writes under ``run.out``: prepare the corpus, train four models, create a human study of
them, evaluate them all with :func:`tealeaves.evaluate` and write the report with
:func:`tealeaves.report`. The terminal shows one progress display, one summary table, the
verdicts and the report's path.
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
from tealeaves.errors import ArtifactError, TealeavesError
from tealeaves.models import TopicModel, train
from tealeaves.progress import ProgressCallback
from tealeaves.wording import scope, summary_rows

if TYPE_CHECKING:
    from tealeaves.evaluation import Evaluation

CORPUS = "builtin:sotu"


@dataclass
class DemoRun:
    """What the steps share: settings, and the corpora, models and reference index made so far."""

    out: Path
    k: int = 20
    iterations: int = 1000
    seed: int = 0
    train: Corpus | None = None
    heldout: Corpus | None = None
    models: dict[str, TopicModel] = field(default_factory=dict)
    progress: ProgressCallback | None = None
    show: bool = True  # print the summary table, verdicts and paths (not with --json)
    neural: bool = False  # also D-VAE and ETM (tealeaves[neural])
    evaluation: Evaluation | None = None
    report: Path | None = None


def step_prepare(run: DemoRun) -> None:
    """Prepare SOTU paragraphs with a 20% held-out split (Hoyle et al. 2021 preprocessing)."""
    run.train, run.heldout = prepare(  # type: ignore[misc]
        CORPUS, out=run.out / "corpus", heldout=0.2, seed=run.seed, progress=run.progress
    )


def step_train(run: DemoRun) -> None:
    """Train LDA by collapsed Gibbs sampling."""
    assert run.train is not None
    run.models["lda-gibbs"] = train(
        run.train,
        "lda-gibbs",
        k=run.k,
        seed=run.seed,
        iterations=run.iterations,
        out=run.out / "models" / "lda-gibbs",
        progress=run.progress,
    )


# fewer passes than the defaults of lda-vb (100) and ctm (50) keep the demo quick
DEMO_MODELS: dict[str, dict[str, Any]] = {
    "lda-vb": {"iterations": 50},
    "plsi": {"iterations": 200},
    "ctm": {"iterations": 20},
}


# Hoyle et al.'s neural models, with budgets for the demo's 2,000 paragraphs: 40 epochs of D-VAE
# with both annealings over 16 of them, 15 of ETM (the defaults, Table 8's best, run 500 and 1000)
NEURAL_MODELS: dict[str, dict[str, Any]] = {
    "dvae": {"epochs": 40, "gamma_bn": 16, "gamma_kl": 16},
    "etm": {"epochs": 15},
}


def step_models(run: DemoRun) -> None:
    """Train lda-vb, pLSI and the CTM too (and D-VAE and ETM with ``neural``)."""
    assert run.train is not None
    for name, params in {**DEMO_MODELS, **(NEURAL_MODELS if run.neural else {})}.items():
        run.models[name] = train(
            run.train, name, k=run.k, seed=run.seed, out=run.out / "models" / name, progress=run.progress, **params
        )


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


def evaluate_config(models: list[str], seed: int = 0) -> str:
    """The demo's ``evaluate.toml``: its models, the held-out paragraphs as held-out and reference corpus."""
    lines = ["# written by `tealeaves demo`; rerun with `tealeaves evaluate evaluate.toml --out evaluation`"]
    lines += [f"seed = {seed}", "", "[corpora]", 'heldout = "corpus/heldout"', 'train = "corpus/train"']
    for name in models:
        lines += ["", "[[models]]", f'name = "{name}"', f'path = "models/{name}"']
    return "\n".join(lines) + "\n"


def step_evaluate(run: DemoRun) -> None:
    """Evaluate every model with the default metrics (tealeaves.evaluate) and print the summary."""
    from tealeaves.evaluation import evaluate, verdicts
    from tealeaves.evaluation.metrics import outputs

    config = run.out / "evaluate.toml"
    config.write_text(evaluate_config(list(run.models), run.seed), encoding="utf-8")
    run.evaluation = evaluate(config, run.out / "evaluation", progress=run.progress)
    if run.show:
        result = run.evaluation
        rows = summary_rows(result.per_model.to_dict("records"), result.comparisons.to_dict("records"), outputs())
        console.print(summary_table(f"{len(run.models)} models, K={run.k} (95% intervals)", *rows))
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
    iterations: int = 1000,
    seed: int = 0,
    show: bool = True,
    neural: bool = False,
) -> DemoRun:
    """Run every demo step, replacing ``out`` if it holds an earlier demo; ``show`` prints the summary;
    ``neural`` adds D-VAE and ETM (:data:`NEURAL_MODELS`; needs ``tealeaves[neural]``)."""
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
        out / "manifest.json", new_manifest("demo", corpus=CORPUS, k=k, iterations=iterations, seed=seed, neural=neural)
    )
    run = DemoRun(out=out, k=k, iterations=iterations, seed=seed, show=show, neural=neural)
    with progress_bar(transient=True) as progress:
        run.progress = progress
        for step in STEPS:
            step(run)
    if show:
        console.print(f"report: [bold]{run.report}[/]", soft_wrap=True)
    return run
