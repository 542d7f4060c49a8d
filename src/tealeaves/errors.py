"""One exception family for everything tealeaves refuses to do.

Every message says what was wrong and how to fix it, in one line; the CLI prints that
line and exits with status 2.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard


class TealeavesError(Exception):
    """Base class of every error tealeaves raises on purpose.

    Catch it to handle any refusal of tealeaves in one place; its message says what was wrong
    and how to fix it.

    Examples
    --------
    >>> from tealeaves.coherence import get_measure
    >>> from tealeaves.errors import TealeavesError
    >>> try:
    ...     get_measure("nope")
    ... except TealeavesError as error:
    ...     print(f"{type(error).__name__}: {error}")
    InputError: unknown coherence measure 'nope'; choose one of uci, npmi, umass, lcp, cp1, cp2, cv, cp, ca, ds
    """


class InputError(TealeavesError, ValueError):
    """An input (file, field, argument) is missing, unreadable or malformed.

    Also a :class:`ValueError`, so code that catches bad values catches it too.

    Examples
    --------
    >>> from tealeaves.errors import InputError
    >>> from tealeaves.rng import as_seed
    >>> as_seed(-1)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: seed must be a non-negative int or a numpy Generator, got -1
    >>> issubclass(InputError, ValueError)
    True
    """


class EmptyResultError(TealeavesError):
    """Nothing is left to work on (no documents after filtering, no topics, ...).

    Examples
    --------
    Dropping the words that the reference corpus lacks leaves no topic of two words to score:

    >>> from tealeaves.coherence import RefIndex, score
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1], [1, 2]], Vocabulary(["tax", "budget", "war"])))
    >>> score([["tax", "senate"]], index, on_missing="skip")
    Traceback (most recent call last):
    ...
    tealeaves.errors.EmptyResultError: no topic can be scored with on_missing="skip" ...
    """


class ArtifactError(TealeavesError):
    """An artifact folder is missing, incomplete, inconsistent or already exists, or cannot be written.

    Examples
    --------
    A model whose topic-word rows do not sum to one is refused:

    >>> import numpy as np
    >>> from tealeaves.corpus import Vocabulary
    >>> from tealeaves.models import TopicModel
    >>> TopicModel(Vocabulary(["tax", "budget"]), np.array([[0.6, 0.6]]))
    Traceback (most recent call last):
    ...
    tealeaves.errors.ArtifactError: phi rows must sum to 1 within 1e-09; the worst is off by 0.2
    """


class MissingDependencyError(TealeavesError, ImportError):
    """An optional package or model that this feature needs is not installed.

    Also an :class:`ImportError`; its message names the ``pip install`` that fixes it
    (:func:`tealeaves.extras.require`).

    Examples
    --------
    >>> from tealeaves.errors import MissingDependencyError
    >>> from tealeaves.extras import require
    >>> try:
    ...     require("frames", "no_such_module", what="this table")
    ... except ImportError as error:
    ...     print(isinstance(error, MissingDependencyError), error)
    True this table needs no_such_module, which is not installed: pip install 'tealeaves[frames]'
    """


def describe(obj: Any) -> str:
    """What a message calls an object it refuses: ``a list``, ``an int``, ``a gensim LdaModel`` (package and class).

    Parameters
    ----------
    obj : object
        Anything.

    Returns
    -------
    str

    Examples
    --------
    >>> from collections import OrderedDict
    >>> from tealeaves.errors import describe
    >>> describe([]), describe(3), describe(OrderedDict())
    ('a list', 'an int', 'a collections OrderedDict')
    """
    kind = type(obj)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__.split('.')[0]} {kind.__name__}"
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"


def closest(name: object, choices: Iterable[str]) -> str | None:
    """The choice a mistyped ``name`` most likely meant (case aside), for a message's "did you mean"; None if none is close.

    Parameters
    ----------
    name : object
        What was given.
    choices : iterable of str
        What is accepted.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from tealeaves.errors import closest
    >>> closest("lda_gibbs", ["lda-gibbs", "lda-vb", "plsi"]), closest("PLSI", ["lda-gibbs", "plsi"]), closest("x", ["plsi"])
    ('lda-gibbs', 'plsi', None)
    """
    import difflib

    by_lower = {choice.lower(): choice for choice in choices}
    close = difflib.get_close_matches(str(name).lower(), list(by_lower), n=1)
    return by_lower[close[0]] if close else None


def with_guesses(
    unknown: Iterable[str], known: Iterable[str], elsewhere: Mapping[str, tuple[str, str]] | None = None
) -> str:
    """Unknown names, each with the known one it most likely meant: ``windw (did you mean window?), foo``.

    Parameters
    ----------
    unknown : iterable of str
        The names given that are not known, in the order the message lists them.
    known : iterable of str
        The names accepted.
    elsewhere : mapping of str to (str, str), optional
        Names other tools use, each with ours and whose name it is (``{"no_below": ("min_df",
        "gensim's")}``): such a name is written with ours instead of a guess by spelling.

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.errors import with_guesses
    >>> with_guesses(["iteration", "colour"], ["iterations", "beta"])
    'iteration (did you mean iterations?), colour'
    >>> with_guesses(["passes"], ["iterations"], {"passes": ("iterations", "gensim's")})
    "passes (gensim's name for iterations)"
    """
    known, elsewhere = list(known), elsewhere or {}
    named = []
    for name in unknown:
        if name in elsewhere:
            named.append(f"{name} ({elsewhere[name][1]} name for {elsewhere[name][0]})")
        elif (guess := closest(name, known)) is not None:
            named.append(f"{name} (did you mean {guess}?)")
        else:
            named.append(name)
    return ", ".join(named)


def unknown_name(
    what: str,
    name: object,
    choices: Iterable[str],
    also: str = "",
    guesses: Iterable[str] | None = None,
    hints: Mapping[str, str] | None = None,
) -> InputError:
    """The refusal of an unknown ``what`` (a model, a method, a format): its closest choice and all of them.

    Parameters
    ----------
    what : str
        What the name names, as the message says it (``"model"``, ``"import format"``).
    name : object
        What was given.
    choices : iterable of str
        What is accepted, in the order the message lists them.
    also : str, optional
        What else is accepted, said after the list (``"or a coherence measure"``).
    guesses : iterable of str, optional
        The names the closest is looked for among (default: ``choices``), where more are accepted than
        listed.
    hints : mapping of str to str, optional
        What to say of a name other tools use (``{"perplexity": "..."}``), instead of a guess by spelling.

    Returns
    -------
    InputError
        To raise.

    Examples
    --------
    >>> from tealeaves.errors import unknown_name
    >>> print(unknown_name("model", "lda_gibbs", ["lda-gibbs", "plsi"]))
    unknown model 'lda_gibbs'; did you mean 'lda-gibbs'? choose one of lda-gibbs, plsi
    """
    choices, hints = list(choices), hints or {}
    guess = closest(name, choices if guesses is None else guesses)
    hint = f" did you mean {guess!r}?" if guess is not None else ""
    if isinstance(name, str) and name.lower() in hints:
        hint = f" {hints[name.lower()]};"
    tail = f" {also}" if also else ""
    return InputError(f"unknown {what} {name!r};{hint} choose one of {', '.join(choices)}{tail}")


def check_each(owner: str, checks: Iterable[tuple[bool, str, Any]]) -> None:
    """Refuse the first failed check, naming its rule and the value given: ``plsi needs beta > 0, got -1``.

    Each check is ``(holds, rule, value)``. Write each rule as what must hold (``beta > 0``), so that a
    NaN, for which every comparison is false, fails it. The value is not written ``beta=-1``, which the
    command line would spell as a flag of its own (``-p beta=-1`` on ``train``).

    Parameters
    ----------
    owner : str
        What needs the values (a trainer, a function), as the message names it.
    checks : iterable of (bool, str, object)
        Whether each rule holds, the rule as the message writes it, and the value given.

    Raises
    ------
    InputError
        For the first rule that does not hold.

    Examples
    --------
    >>> from tealeaves.errors import check_each
    >>> iterations, beta = 200, float("nan")
    >>> check_each("plsi", [(iterations >= 1, "iterations >= 1", iterations), (beta > 0, "beta > 0", beta)])
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: plsi needs beta > 0, got nan
    """
    for holds, rule, value in checks:
        if not holds:
            raise InputError(f"{owner} needs {rule}, got {value!r}")


def is_count(value: Any, minimum: int = 1) -> TypeGuard[int]:
    """Whether ``value`` is a whole number (a Python or NumPy integer, not a bool) of at least ``minimum``.

    Every check of a count (topics, runs, resamples, folds, sweeps) asks this, so that a NumPy
    integer from ``np.arange`` or a grid passes wherever an int does, and ``True`` passes nowhere.

    Parameters
    ----------
    value : object
        What was given.
    minimum : int, optional
        The smallest count accepted.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.errors import is_count
    >>> is_count(5), is_count(np.int64(5)), is_count(True), is_count(5.0), is_count(0), is_count(0, minimum=0)
    (True, True, False, False, False, True)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= minimum


def is_real(value: Any) -> TypeGuard[float]:
    """Whether ``value`` is a real number (a Python or NumPy integer or float, not a bool).

    Every check of a real-valued setting (a rate, a share, a prior, a level) asks this before its
    range, so that ``np.float32(0.25)`` passes wherever ``0.25`` does and ``True`` passes nowhere;
    NaN passes here and fails the range that follows.

    Parameters
    ----------
    value : object
        What was given.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.errors import is_real
    >>> is_real(0.25), is_real(np.float32(0.25)), is_real(np.int64(2)), is_real(True), is_real("0.25")
    (True, True, True, False, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_level(value: Any) -> bool:
    """Whether ``value`` is a test's level: a real number in (0, 0.5].

    A level above 0.5 is a confidence given where the level goes (``alpha=0.95``), which would call nearly
    every chance difference significant; every check of an ``alpha`` asks this.

    Parameters
    ----------
    value : object
        What was given.

    Returns
    -------
    bool

    Examples
    --------
    >>> from tealeaves.errors import is_level
    >>> is_level(0.05), is_level(0.5), is_level(0.95), is_level(0), is_level(float("nan")), is_level("0.05")
    (True, True, False, False, False, False)
    """
    return is_real(value) and 0 < value <= 0.5


def as_numbers(values: Any, name: str, ndim: int | None = None, batched: bool = False) -> Any:
    """``values`` as a float64 array, or an InputError naming ``name`` where they are not numbers.

    Every array of scores, values or weights a caller gives passes through here, so that words, a
    dict or a bare number where an array goes are refused by name, not by NumPy's ``could not
    convert string to float`` or ``len() of unsized object``.

    Parameters
    ----------
    values : array-like
        What was given.
    name : str
        What the message calls it.
    ndim : int, optional
        The number of dimensions wanted (1: a list of values); any when None.
    batched : bool, optional
        At least one dimension (values along the last axis, many sets of them along leading axes,
        as the vectorised tests take them): a bare number is refused.

    Returns
    -------
    numpy.ndarray
        float64.

    Raises
    ------
    InputError
        Where ``values`` are not numbers, not of ``ndim`` dimensions, or (``batched``) a bare number.

    Examples
    --------
    >>> from tealeaves.errors import as_numbers
    >>> as_numbers([1, 2.5], "scores")
    array([1. , 2.5])
    >>> as_numbers(["high", "low"], "scores")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: scores must be an array of numbers, got a list (could not convert string to float: 'high')
    >>> as_numbers(0.5, "scores", ndim=1)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: scores must be a list of numbers (1 dimension), got 0.5
    """
    import numpy as np

    if values is None:  # NumPy would read it as NaN
        raise InputError(f"{name} must be an array of numbers, got None")
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be an array of numbers, got {describe(values)} ({exc})") from exc
    if ndim is not None and array.ndim != ndim:
        wanted = "a list of numbers (1 dimension)" if ndim == 1 else f"an array of {ndim} dimensions"
        shown = repr(values) if array.ndim == 0 else f"{array.ndim} dimensions"
        raise InputError(f"{name} must be {wanted}, got {shown}")
    if batched and array.ndim == 0:
        raise InputError(f"{name} must be a list of numbers (or an array of them along its last axis), got {values!r}")
    return array
