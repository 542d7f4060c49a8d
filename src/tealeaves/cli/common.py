"""What every command group shares: the root app, error reporting, parsing of options, output.

Errors of the TealeavesError family print one line (``error: ...``) on stderr and exit with
status 2, as usage errors do, in the command line's words: the library writes its hints as
Python arguments (``pass on_missing="skip"``), and :func:`in_cli_words` rewrites each one as
the flag of the running command (``pass --on-missing skip``), or of the command that has it
(``vocab_from=<the training corpus>`` is ``tealeaves prepare``'s ``--vocab-from``).
``--json`` prints a command's results as one JSON document on stdout instead of tables.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
import shlex
import typing
import warnings
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.markup import escape
from typer.models import OptionInfo

from tealeaves.console import console, err_console
from tealeaves.deprecation import moved_names
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


@app.callback()
def _root() -> None:
    # a callback keeps the app a group of commands when only one command is registered
    # (load_groups("demo")): typer would otherwise run that command with "demo" as its argument
    pass


COMMAND_GROUPS = {  # each command -> the module of tealeaves.cli that registers it
    "analyze": "analysis",
    "index": "coherence",
    "coherence": "coherence",
    "diversity": "coherence",
    "prepare": "corpus",
    "info": "corpus",
    "demo": "demo",
    "evaluate": "evaluate",
    "report": "evaluate",
    "intrusion": "intrusion",
    "likelihood": "likelihood",
    "predictive": "likelihood",
    "train": "models",
    "trainers": "models",
    "topics": "models",
    "import": "models",
    "significance": "models",
    "classify": "models",
    "study": "study",
    "sweep": "sweep",
    "validate": "validate",
}


def load_groups(command: str | None = None) -> typer.Typer:
    """The root app with the commands registered: only ``command``'s group when it names a command
    (``tealeaves coherence ...`` imports ``cli/coherence.py`` alone, a twentieth of a second less
    of every process), every group otherwise (``--help``, a mistyped command: click then lists them
    all, in the order of the modules' names)."""
    modules = [COMMAND_GROUPS[command]] if command in COMMAND_GROUPS else sorted(set(COMMAND_GROUPS.values()))
    for module in modules:
        importlib.import_module(f"tealeaves.cli.{module}")
    return app


F = TypeVar("F", bound=Callable[..., Any])
__getattr__ = moved_names(__name__, {"number": "tealeaves.cli.common.parse_number"})

JsonOption = Annotated[bool, typer.Option("--json", help="Print the results as JSON on stdout instead of tables.")]
EncodingOption = Annotated[
    str, typer.Option(help="Encoding of the text files (latin-1, cp1252, ...; utf-8:replace replaces invalid bytes).")
]


def reports_errors(func: F) -> F:
    """Turn TealeavesError into one line on stderr (its hints as this command's flags) and exit status 2, a
    MemoryError (numpy's "Unable to allocate 2.96 TiB for an array with shape ...") into one such line too,
    and tealeaves' own warnings into ``warning:`` lines on stderr in the same words."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        aliases = getattr(wrapper, "cli_aliases", {})
        caught: list[warnings.WarningMessage] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("default")  # each warning once per place, as Python shows them
                try:
                    return func(*args, **kwargs)
                except (TealeavesError, MemoryError) as exc:  # escaped: "pip install 'tealeaves[study]'" is not markup
                    message = in_cli_words(str(exc), func, aliases) if isinstance(exc, TealeavesError) else _memory(exc)
                    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
                    raise typer.Exit(2) from None
        finally:  # outside the recording: a warning shown again must not land in the list being read
            _report_warnings(caught, func, aliases)

    return wrapper  # type: ignore[return-value]


def _memory(exc: MemoryError) -> str:
    """The line of a MemoryError: an array larger than the machine is what was asked for, not a crash."""
    what = str(exc).rstrip(".") or "an allocation failed"
    return f"out of memory ({what}): ask for less (fewer topics, samples, particles, runs or words)"


def _report_warnings(caught: list[warnings.WarningMessage], func: Callable[..., Any], aliases: dict[str, str]) -> None:
    """tealeaves' warnings as one ``warning:`` line each (once per message); others as Python would show them."""
    seen = set()
    for warning in caught:
        if not warning.category.__module__.startswith("tealeaves."):
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        elif str(warning.message) not in seen:
            seen.add(str(warning.message))
            message = in_cli_words(str(warning.message), func, aliases)
            err_console.print(f"[bold yellow]warning:[/] {escape(message)}", highlight=False, soft_wrap=True)


def cli_alias(hint: str, flag: str) -> Callable[[F], F]:
    """Spell an argument hint as this command spells it (``on_missing="skip"`` is ``likelihood``'s ``--skip-oov``).

    Apply it under :func:`reports_errors`; for hints of arguments that the command has no option of the same name for.
    """

    def mark(func: F) -> F:
        func.__dict__.setdefault("cli_aliases", {})[hint] = flag
        return func

    return mark


# NAME=VALUE at the start of a word (after a space, a bracket or a comma), VALUE "quoted", 'quoted',
# <a placeholder>, {'a': dict} or a bare word or number
HINT = re.compile(r"""(?<![^\s(\[,;])([a-z][a-z0-9_]*)=("[^"]*"|'[^']*'|<[^<>]*>|\{[^{}]*\}|[\w.+\-]+)""")
DICT_ITEM = re.compile(r"""['"](\w+)['"]\s*:\s*([^,}]+)""")


def in_cli_words(message: str, command: Callable[..., Any], aliases: dict[str, str] | None = None) -> str:
    """``message`` with each argument hint (``on_missing="skip"``) written as a command-line flag (``--on-missing skip``).

    A hint names the option of ``command`` with that parameter name, else of any command
    (``vocab_from`` is ``prepare``'s); ``True`` is the flag alone, ``False`` its ``--no-``
    form, ``None`` leaving it out; ``conventions={'epsilon': 1e-12}`` becomes
    ``--epsilon 1e-12``; ``aliases`` (:func:`cli_alias`) spell whole hints. A name no command
    has an option for is left as it is.

    Parameters
    ----------
    message : str
        A TealeavesError's message, in the API's words.
    command : callable
        The running command's function (its ``typer.Option`` annotations name its flags).
    aliases : dict of str to str, optional
        Whole hints and their spelling on this command.

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.cli.coherence import coherence_command
    >>> from tealeaves.cli.common import in_cli_words
    >>> in_cli_words('pass on_missing="skip" or on_missing="zero", or conventions={"epsilon": 1e-12}', coherence_command)
    'pass --on-missing skip or --on-missing zero, or --epsilon 1e-12'
    >>> in_cli_words("prepare it with vocab_from=<the training corpus>, or pass force=True", coherence_command)
    'prepare it with --vocab-from <the training corpus>, or pass --force'
    """
    for hint, spelled in (aliases or {}).items():
        message = message.replace(hint, spelled)
    options = {name: flags for other in _commands(load_groups()) for name, flags in _flags(other)}
    options.update(_flags(command))  # the running command's own first

    def flag(name: str, value: str) -> str | None:
        if name not in options:
            return None
        on, off = options[name]
        if value == "None":
            return f"no {on}"
        if value in ("True", "False"):
            return {"True": on if off is not None else None, "False": off or None}[value]
        if value[0] in "\"'":
            value = value[1:-1]
        return f"{on} {value if value.startswith('<') else shlex.quote(value)}"

    def rewrite(match: re.Match[str]) -> str:
        name, value = match.groups()
        if value.startswith("{"):
            items = [flag(key, item.strip()) for key, item in DICT_ITEM.findall(value)]
            return " ".join(item for item in items if item) if items and all(items) else match.group(0)
        return flag(name, value) or match.group(0)

    return HINT.sub(rewrite, message)


def _commands(typer_app: typer.Typer) -> Iterator[Callable[..., Any]]:
    """The functions of every command of ``typer_app`` and of its sub-apps."""
    for info in typer_app.registered_commands:
        if info.callback is not None:
            yield info.callback
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            yield from _commands(group.typer_instance)


def _flags(command: Callable[..., Any]) -> Iterator[tuple[str, tuple[str, str | None]]]:
    """(parameter name, (its flag, its ``--no-`` flag)) of each option of ``command``; the second is ``""`` for a
    flag without a ``--no-`` form and None for an option that takes a value."""
    function = inspect.unwrap(command)
    for name, hint in typing.get_type_hints(function, include_extras=True).items():
        info = next((m for m in getattr(hint, "__metadata__", ()) if isinstance(m, OptionInfo)), None)
        if info is None:
            continue
        base = typing.get_args(hint)[0]
        is_bool = base is bool or set(typing.get_args(base)) == {bool, type(None)}
        given = [info.default] if isinstance(info.default, str) and info.default.startswith("-") else []
        declared = [d for decl in (*given, *(info.param_decls or ())) for d in decl.split("/")]  # Option("--out", "-o")
        names = [d for d in declared if d.startswith("--") and not d.startswith("--no-")]
        on = max(names, key=len) if names else f"--{name.replace('_', '-')}"
        negative = [d for d in declared if d.startswith("--no-")]
        off = (negative[0] if negative else "" if declared else f"--no-{on[2:]}") if is_bool else None
        yield name, (on, off)


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


def parse_param(values: list[str], texts: Collection[str] = ()) -> dict[str, Any]:
    """``NAME=VALUE`` pairs; values are read as JSON when they parse (numbers, true, lists), except those of
    ``texts``, the names whose values are strings, kept as written (``-p checkpoint=2024`` is the text 2024)."""
    params: dict[str, Any] = {}
    for item in values:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise InputError(f"--param takes NAME=VALUE, got {item!r}")
        name = name.replace("-", "_")
        try:
            params[name] = raw if name in texts else json.loads(raw)
        except json.JSONDecodeError:
            params[name] = raw
    return params


def check_result_path(out: Path | None) -> None:
    """Refuse an --out that is neither .json nor .csv before any work is done."""
    if out is not None and out.suffix.lower() not in {".json", ".csv"}:
        raise InputError(f"--out must end in .json or .csv, got {out}")


def parse_number(text: str, name: str) -> float | int:
    """An option's number: a float when it has a dot (a share, as scikit-learn's max_df), else an int (a count).

    Was ``number``, the name of :func:`tealeaves.display.number`, which formats one.
    """
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        raise InputError(f"{name} must be a number, got {text!r}") from None


def load_topics(path: Path, encoding: str = "utf-8") -> Any:
    """A model folder, a topic list imported by ``tealeaves import topics``, or a plain topic list (one topic per
    line, in ``encoding``)."""
    from tealeaves.artifacts import read_manifest
    from tealeaves.models import TopicModel, Topics

    if not path.is_dir():
        return Topics.load(path, encoding=encoding)
    if read_manifest(path).get("kind") == "topics":
        return Topics.load(path / "topics.txt")
    return TopicModel.load(path)
