"""Terminal output shared by the CLI and the demo: rich progress bars and tables.

Values are worded by :mod:`tealeaves.display` and sentences by :mod:`tealeaves.wording`, as in the
notebook displays and the report (imported where a value is worded: display imports numpy, which
``tealeaves --help`` never loads). Nothing here forces a terminal: in a Jupyter kernel rich
detects the notebook and draws tables as HTML and progress bars as live widgets, never as ANSI
escape codes; without ``ipywidgets``, which rich's live display needs there, a bar is written
once as plain text when it stops.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from tealeaves.progress import ProgressCallback, ProgressUpdate

if TYPE_CHECKING:
    import numpy as np

    from tealeaves.wording import SummaryCell

# Piped or redirected output is not wrapped at 80 columns: a table keeps its natural width
# (rich wraps to the terminal's width only when there is one).
PIPE_WIDTH = 10_000
console = Console()
if not console.is_terminal:
    console = Console(width=PIPE_WIDTH)
err_console = Console(stderr=True)
RULE_WIDTH = 100  # a section rule spans the terminal, or this many columns when output is piped


def section(title: str) -> None:
    """A section heading: a rule with ``title`` across the terminal (``RULE_WIDTH`` when piped)."""
    console.print(Rule(title), width=console.width if console.is_terminal else RULE_WIDTH)


def _bar_console() -> Console:
    """``err_console``, or in a notebook without ``ipywidgets`` a plain console (no colour)."""
    if err_console.is_jupyter and importlib.util.find_spec("ipywidgets") is None:
        return Console(stderr=True, force_jupyter=False)
    return err_console


@contextlib.contextmanager
def progress_bar(transient: bool = False) -> Iterator[ProgressCallback]:
    """A progress callback drawing one rich bar per task name, with the latest ``info``."""
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    bar = Progress(*columns, console=_bar_console(), transient=transient)
    tasks: dict[str, Any] = {}

    def update(event: ProgressUpdate) -> None:
        from tealeaves.display import number  # numpy: loaded by the work, not by `tealeaves --help`

        if event.task not in tasks:
            if not tasks:  # drawn from the first update: a command refused before any work prints no empty bar
                bar.start()
            tasks[event.task] = bar.add_task(event.task, total=event.total, info="")
        info = "  ".join(f"{k} {number(v)}" for k, v in event.info.items())
        bar.update(tasks[event.task], completed=event.done, total=event.total, info=info)

    try:
        yield update
    finally:
        if tasks:
            bar.stop()


def topics_table(
    title: str, topics: Sequence[Sequence[str]], weights: Sequence[float] | np.ndarray | None = None
) -> Table:
    """A table of topics, one row each: number, optional weight, words."""
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("#", justify="right")
    if weights is not None:
        table.add_column("alpha", justify="right")
    table.add_column("top words")
    for k, words in enumerate(topics):
        row = [str(k)] + ([f"{weights[k]:.3f}"] if weights is not None else []) + [" ".join(words)]
        table.add_row(*row)
    return table


def mapping_table(title: str, rows: dict[str, Any]) -> Table:
    """A two-column table of names and values: numbers right-aligned, text left-aligned."""
    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("name", style="bold")
    table.add_column("value", justify="right")
    for name, value in rows.items():
        table.add_row(str(name), value_cell(value))
    return table


def value_cell(value: Any, digits: str = "") -> Text | str:
    """A table cell of a right-aligned column: a number as :func:`~tealeaves.display.number` words it (or with the
    format ``digits``), text as a left-aligned :class:`rich.text.Text`."""
    from tealeaves.display import number  # numpy: loaded by the work, not by `tealeaves --help`

    if isinstance(value, str):
        return Text(value, justify="left")
    return format(value, digits) if digits and isinstance(value, float) else number(value)


def summary_table(title: str, models: Sequence[str], rows: Sequence[tuple[str, Sequence[SummaryCell | None]]]) -> Table:
    """Metrics x models, as :func:`tealeaves.wording.summary_rows` words them: each value above its
    interval, in bold only a model significantly better than every other, ``–`` where a model has
    no value. One column per model keeps the table narrow enough for a terminal however many
    metrics run."""
    table = Table(title=title, title_justify="left", show_lines=True)
    table.add_column("metric")
    for model in models:
        table.add_column(model, justify="right")
    for label, cells in rows:
        texts = []
        for cell in cells:
            if cell is None:
                texts.append("–")
                continue
            value = f"[bold]{cell.value}[/]" if cell.best else cell.value
            texts.append(value + (f"\n{cell.interval}" if cell.interval else ""))
        table.add_row(label, *texts)
    return table
