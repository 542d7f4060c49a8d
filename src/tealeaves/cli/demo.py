"""The ``demo`` command: the whole evaluation on the built-in State of the Union corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tealeaves.cli.common import JsonOption, app, print_json, reports_errors
from tealeaves.extras import DEMO_MODULES, require


@app.command("demo")
@reports_errors
def demo_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for everything the demo writes (replaced).")] = Path(
        "tealeaves-demo"
    ),
    k: Annotated[int, typer.Option("-k", "--k", help="Number of topics.")] = 20,
    iterations: Annotated[int, typer.Option(help="Gibbs sweeps for lda-gibbs.")] = 500,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    seeds: Annotated[
        int,
        typer.Option(help="Trained runs of each model (seeds SEED, SEED+1, ...): the units of the verdicts.", min=1),
    ] = 3,
    neural: Annotated[
        bool, typer.Option("--neural", help="Also train D-VAE and ETM (Hoyle et al. 2021; needs tealeaves[neural]).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Run the whole evaluation on the built-in State of the Union corpus and write its HTML report."""
    require("all", *DEMO_MODULES, what="the demo")
    from tealeaves.demo import run_demo

    run = run_demo(out=out, k=k, iterations=iterations, seed=seed, show=not as_json, neural=neural, seeds=seeds)
    if as_json:
        assert run.evaluation is not None
        print_json({"report": run.report, **run.evaluation.to_dict()})
