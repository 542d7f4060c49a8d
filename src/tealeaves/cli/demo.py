"""The ``demo`` command: the whole evaluation on the built-in State of the Union corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tealeaves.cli.common import app, reports_errors


@app.command()
@reports_errors
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for everything the demo writes (replaced).")] = Path(
        "tealeaves-demo"
    ),
    k: Annotated[int, typer.Option("-k", "--k", help="Number of topics.")] = 20,
    iterations: Annotated[int, typer.Option(help="Gibbs sweeps for lda-gibbs.")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
) -> None:
    """Run the whole evaluation on the built-in State of the Union corpus."""
    from tealeaves.demo import run_demo

    run_demo(out=out, k=k, iterations=iterations, seed=seed)
