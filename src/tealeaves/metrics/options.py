"""Checking a metric's options before any step runs: :func:`unknown_keys` and :func:`accepts` (a
:attr:`Metric.check <tealeaves.metrics.Metric.check>` that takes the library function's keyword parameters)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from tealeaves.errors import InputError, with_guesses


def unknown_keys(
    table: dict[str, Any], known: Collection[str], where: str, what: str = "key", top_level: Collection[str] = ()
) -> None:
    """Refuse the keys of ``table`` outside ``known``: each with the closest known one, then every known one,
    and which of them are settings of the ``top_level`` of the file (TOML puts a key written below a table's
    header into that table).

    Parameters
    ----------
    table : dict
        A table of the configuration.
    known : collection of str
        Its valid keys.
    where : str
        The table, as the message names it (``"[metrics] npmi"``).
    what : str
        What a key is (``"key"``, ``"option"``, ``"metric"``).
    top_level : collection of str, optional
        The keys of the file's top level, for a table below it.

    Raises
    ------
    InputError
        ``[metrics] npmi has unknown option windw (did you mean window?); its options: ...``.

    Examples
    --------
    >>> from tealeaves.metrics.options import unknown_keys
    >>> unknown_keys({"windw": 10}, ["topn", "window", "on_missing"], "[metrics] npmi", what="option")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: [metrics] npmi has unknown option windw (did you mean window?); its options: on_missing, topn, window
    >>> unknown_keys({"heldout": "h", "seed": 3}, ["heldout", "train"], "[corpora]", top_level=["seed", "corpora"])
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: [corpora] has unknown key seed; its keys: heldout, train (seed is a top-level setting: TOML puts a key written below [corpora] into it; write it above the first [table])
    """
    unknown = sorted(set(table) - set(known))
    if not unknown:
        return
    plural = "s" if len(unknown) > 1 else ""
    message = (
        f"{where} has unknown {what}{plural} {with_guesses(unknown, known)}; its {what}s: {', '.join(sorted(known))}"
    )
    misplaced = [key for key in unknown if key in top_level]
    if misplaced:
        one = len(misplaced) == 1
        names = misplaced[0] if one else f"{', '.join(misplaced[:-1])} and {misplaced[-1]}"
        message += (
            f" ({names} {'is a top-level setting' if one else 'are top-level settings'}: TOML puts a key written "
            f"below {where} into it; write {'it' if one else 'them'} above the first [table])"
        )
    raise InputError(message)


def accepts(target: str, *fixed: str, extra: Collection[str] = ()) -> Callable[[dict[str, Any], str], None]:
    """A :attr:`Metric.check` refusing the options that the library function ``target`` (``"module:function"``) has
    no keyword parameter for, besides the ``fixed`` ones the metric sets itself and the metric's own ``extra``.

    Parameters
    ----------
    target : str
        ``"module:function"``, imported only when the check runs.
    *fixed : str
        Its parameters the metric passes itself (the model, the index, the seed, progress).
    extra : collection of str
        Options the metric's own function takes (``flag_below``).

    Returns
    -------
    callable
        ``check(options, where)``.

    Examples
    --------
    >>> from tealeaves.metrics.options import accepts
    >>> check = accepts("tealeaves.coherence:diversity", "topics")
    >>> check({"diversity_topn": 10}, "[metrics] diversity")
    >>> check({"diversity_top": 10}, "[metrics] diversity")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: [metrics] diversity has unknown option diversity_top (did you mean diversity_topn?); ...
    """

    def check(options: dict[str, Any], where: str) -> None:
        import importlib
        import inspect

        module, function = target.split(":")
        parameters = inspect.signature(getattr(importlib.import_module(module), function)).parameters
        names = {n for n, p in parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        unknown_keys(options, (names - set(fixed)) | set(extra), where, what="option")

    return check
