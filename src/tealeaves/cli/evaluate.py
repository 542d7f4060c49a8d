"""The ``evaluate`` and ``report`` commands: one run from models to verdict, and its HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tealeaves.cli.common import JsonOption, app, reports_errors, show
from tealeaves.extras import require


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
    as_json: JsonOption = False,
) -> None:
    """Evaluate every model of CONFIG with every metric; write per_topic, per_model and comparisons tables."""
    require("report", what="tealeaves evaluate")
    from tealeaves.console import console, progress_bar, summary_table
    from tealeaves.evaluation import evaluate as run_evaluation
    from tealeaves.evaluation import verdicts
    from tealeaves.evaluation.metrics import outputs
    from tealeaves.wording import scope, summary_rows

    with progress_bar(transient=True) as progress:
        result = run_evaluation(config, out, workers=workers, scheduler=scheduler, progress=progress)
    lines = verdicts(result.comparisons, result.alpha)
    runs = result.manifest.get("runs") or {}
    per_model = result.per_model[result.per_model["model"].isin(runs)] if runs else result.per_model
    rows = summary_rows(per_model.to_dict("records"), result.comparisons.to_dict("records"), outputs())
    show(as_json, result.to_dict, summary_table(f"{out}: per model (95% intervals)", *rows))
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
