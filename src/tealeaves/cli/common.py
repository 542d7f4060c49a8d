"""What every command group shares: the root app, error reporting, parsing of options, output.

Errors of the TealeavesError family print one line (``error: ...``) on stderr and exit with
status 2, as usage errors do. ``--json`` prints a command's results as one JSON document on
stdout instead of tables.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.markup import escape

from tealeaves.console import console, err_console
from tealeaves.errors import InputError, TealeavesError

app = typer.Typer(
    name="tealeaves",
    help="Evaluate topic models the way the literature says: held-out likelihood, coherence, "
    "automated and human word intrusion, ratings, and their analysis.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # help texts are not rich markup: "[auto]", "tealeaves[neural]" print as written
)

F = TypeVar("F", bound=Callable[..., Any])

JsonOption = Annotated[bool, typer.Option("--json", help="Print the results as JSON on stdout instead of tables.")]


def reports_errors(func: F) -> F:
    """Turn TealeavesError into one line on stderr and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TealeavesError as exc:  # escaped: "pip install 'tealeaves[study]'" is not markup
            err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def renamed_option(old_value: Any, new_value: Any, old: str, new: str, default: Any) -> Any:
    """The value of an option given by its deprecated name ``old`` (with a warning on stderr), else
    ``new_value``, else ``default``.

    Both options are declared with a default of None (the old one hidden), so that giving both
    can be refused."""
    if old_value is None:
        return default if new_value is None else new_value
    if new_value is not None:
        raise InputError(f"give {new} only ({old} is its deprecated name)")
    err_console.print(f"warning: {old} is deprecated; use {new}", highlight=False, soft_wrap=True)
    return old_value


def print_json(payload: Any) -> None:
    """One JSON document on stdout (arrays as lists, non-finite floats as null)."""
    from tealeaves.artifacts import json_safe

    typer.echo(json.dumps(json_safe(payload), indent=2, ensure_ascii=False))


def show(as_json: bool, payload: Callable[[], Any], *renderables: Any) -> None:
    """Print ``payload()`` as JSON with ``--json``, else the rich ``renderables`` (tables, lines)."""
    if as_json:
        print_json(payload())
        return
    for item in renderables:
        console.print(item, highlight=False)


def parse_param(values: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs; values are read as JSON when they parse (numbers, true, lists)."""
    params: dict[str, Any] = {}
    for item in values:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise InputError(f"--param takes NAME=VALUE, got {item!r}")
        try:
            params[name.replace("-", "_")] = json.loads(raw)
        except json.JSONDecodeError:
            params[name.replace("-", "_")] = raw
    return params


def check_result_path(out: Path | None) -> None:
    """Refuse an --out that is neither .json nor .csv before any work is done."""
    if out is not None and out.suffix.lower() not in {".json", ".csv"}:
        raise InputError(f"--out must end in .json or .csv, got {out}")


def number(text: str, name: str) -> float | int:
    """A share (has a dot) or a count (an integer), as scikit-learn's max_df/min_df."""
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        raise InputError(f"{name} must be a number, got {text!r}") from None


def load_topics(path: Path) -> Any:
    """A model folder, a topic list imported by ``tealeaves import topics``, or a plain topic list (one topic per line)."""
    from tealeaves.artifacts import read_manifest
    from tealeaves.models import TopicModel, Topics

    if not path.is_dir():
        return Topics.load(path)
    if read_manifest(path).get("kind") == "topics":
        return Topics.load(path / "topics.txt")
    return TopicModel.load(path)
