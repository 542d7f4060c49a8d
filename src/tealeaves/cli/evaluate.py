"""The ``evaluate`` and ``report`` commands: one run from models to verdict, and its HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tealeaves.cli.common import JsonOption, app, reports_errors, show
from tealeaves.errors import InputError
from tealeaves.extras import require

if TYPE_CHECKING:
    from tealeaves.evaluation.config import EvaluateConfig


def with_models(config: Path, models: list[str]) -> EvaluateConfig:
    """The configuration of ``config`` with its models replaced by ``--model NAME=PATH`` options (paths
    relative to the working folder; a name given several times: its runs)."""
    from tealeaves.evaluation.config import parse_config, read_toml

    runs: dict[str, list[str]] = {}
    for given in models:
        name, sep, path = given.partition("=")
        if not sep or not name or not path:
            raise InputError(f"--model takes NAME=PATH (a model folder or topic list), got {given!r}")
        runs.setdefault(name, []).append(str(Path(path).resolve()))
    data = read_toml(config)
    data["models"] = {name: paths if len(paths) > 1 else paths[0] for name, paths in runs.items()}
    return parse_config(data, config.resolve().parent)


@app.command("evaluate")
@reports_errors
def evaluate_command(
    config: Annotated[Path, typer.Argument(help="The TOML configuration: models, corpora, metrics, study export.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Run folder (an earlier run there is updated from its cache).")
    ],
    workers: Annotated[int, typer.Option(help="Processes the models are spread over (0: one per core).")] = 1,
    scheduler: Annotated[
        str | None, typer.Option(help="Run the models on Dask: 'local' or a scheduler address (tcp://host:8786).")
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            "-m",
            help="NAME=PATH, repeatable, in place of the configuration's models; a NAME given several times "
            "lists its trained runs (seeds), the units of the tests.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Evaluate every model of CONFIG with every metric; write per_topic, per_model and comparisons tables."""
    require("report", what="tealeaves evaluate")
    from tealeaves.console import console, progress_bar, summary_table
    from tealeaves.evaluation import evaluate as run_evaluation
    from tealeaves.evaluation import verdicts
    from tealeaves.evaluation.metrics import outputs
    from tealeaves.wording import runs_note, scope, summary_rows

    given: Path | EvaluateConfig = with_models(config, model) if model else config
    with progress_bar(transient=True) as progress:
        result = run_evaluation(given, out, workers=workers, scheduler=scheduler, progress=progress)
    lines = verdicts(result.comparisons, result.alpha)
    runs = result.manifest.get("runs") or {}
    note = runs_note(runs)
    per_model = result.per_model[result.per_model["model"].isin(runs)] if runs else result.per_model
    rows = summary_rows(per_model.to_dict("records"), result.comparisons.to_dict("records"), outputs())
    show(
        as_json,
        result.to_dict,
        summary_table(f"{out}: per model (95% intervals{'; ' * bool(note)}{note})", *rows),
    )
    if not as_json:
        for line in lines.values():
            console.print(line, highlight=False, soft_wrap=True)
        console.print(scope(runs), highlight=False, soft_wrap=True)
        steps = result.to_dict()["steps"]
        console.print(
            f"{steps['computed']} steps computed, {steps['cached']} from the cache; tables in {out}", highlight=False
        )


@app.command()
@reports_errors
def report(
    run: Annotated[Path, typer.Argument(help="A run folder written by `tealeaves evaluate`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")] = Path("report.html"),
    as_json: JsonOption = False,
) -> None:
    """Write the self-contained HTML report of an evaluation run."""
    require("report", what="tealeaves report")
    from tealeaves.reporting import report as write_report

    path = write_report(run, out)
    show(as_json, lambda: {"report": str(path)}, str(path))
