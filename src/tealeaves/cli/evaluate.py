"""The ``evaluate`` and ``report`` commands: one run from models to verdict, and its HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tealeaves.cli.common import JsonOption, app, reports_errors, show
from tealeaves.extras import require

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table


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
    from tealeaves.console import console, progress_bar
    from tealeaves.evaluation import evaluate as run_evaluation
    from tealeaves.evaluation import verdicts
    from tealeaves.evaluation.stats import scope

    with progress_bar(transient=True) as progress:
        result = run_evaluation(config, out, workers=workers, scheduler=scheduler, progress=progress)
    lines = verdicts(result.comparisons, result.manifest["level"])
    runs = result.manifest.get("runs") or {}
    per_model = result.per_model[result.per_model["model"].isin(runs)] if runs else result.per_model
    table = summary_table(per_model, f"{out}: per model (95% intervals)", result.comparisons)
    show(as_json, result.to_dict, table)
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


def summary_table(per_model: pd.DataFrame, title: str, comparisons: pd.DataFrame | None = None) -> Table:
    """Metrics x models: each value above its 95% interval (untested model-level values stand alone);
    bold only a model significantly better than every other (Holm), which needs ``comparisons``.

    One column per model keeps the table narrow enough for a terminal however many metrics run.
    """
    from rich.table import Table

    from tealeaves.evaluation.stats import row_label, winners

    models = list(dict.fromkeys(per_model["model"]))
    best = winners(comparisons) if comparisons is not None else {}
    table = Table(title=title, title_justify="left", show_lines=True)
    table.add_column("metric")
    for model in models:
        table.add_column(model, justify="right")
    for metric, part in per_model.groupby("metric", sort=False):
        rows = part.set_index("model")
        cells = []
        for model in models:
            if model not in rows.index:
                cells.append("–")
                continue
            r = rows.loc[model]
            text = f"[bold]{r['mean']:.4g}[/]" if best.get(str(metric)) == model else f"{r['mean']:.4g}"
            cells.append(text + (f"\n[{r.ci_low:.3g}, {r.ci_high:.3g}]" if r.ci_low == r.ci_low else ""))
        table.add_row(row_label(str(metric)), *cells)
    return table
