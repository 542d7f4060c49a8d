"""The ``evaluate`` and ``report`` commands: one run from models to verdict, and its HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tealeaves.cli.common import JsonOption, app, reports_errors, show

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table


@app.command()
@reports_errors
def evaluate(
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
    from tealeaves.console import console, progress_bar
    from tealeaves.evaluate import evaluate as run_evaluation
    from tealeaves.evaluate import verdicts

    with progress_bar(transient=True) as progress:
        result = run_evaluation(config, out, workers=workers, scheduler=scheduler, progress=progress)
    lines = verdicts(result.comparisons, result.manifest["level"])
    show(as_json, result.to_dict, summary_table(result.per_model, f"{out}: per model (95% bootstrap intervals)"))
    if not as_json:
        for line in lines.values():
            console.print(line, highlight=False, soft_wrap=True)
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
    from tealeaves.report import report as write_report

    path = write_report(run, out)
    show(as_json, lambda: {"report": str(path)}, str(path))


def summary_table(per_model: pd.DataFrame, title: str) -> Table:
    """Models x metrics: each value with its 95% interval (model-level values stand alone)."""
    from rich.table import Table

    from tealeaves.evaluate.metrics import outputs

    known = outputs()
    metrics = list(dict.fromkeys(per_model["metric"]))
    table = Table(title=title, title_justify="left")
    table.add_column("model")
    for metric in metrics:
        label = known[metric].label if metric in known else metric
        table.add_column(
            label + ("" if metric not in known or known[metric].higher_is_better else " ↓"), justify="right"
        )
    cells: dict[str, dict[str, Any]] = {}
    for row in per_model.itertuples():
        interval = f" [{row.ci_low:.3g}, {row.ci_high:.3g}]" if row.ci_low == row.ci_low else ""
        cells.setdefault(row.model, {})[row.metric] = f"{row.mean:.4g}{interval}"
    for model, values in cells.items():
        table.add_row(model, *(values.get(m, "–") for m in metrics))
    return table
