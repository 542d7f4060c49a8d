"""Old names that still work, with a ``DeprecationWarning`` naming the new one.

One name per concept (issue 37): ``n_resamples`` for the number of bootstrap, permutation or
randomisation resamples (once ``n_boot``, ``replicates`` or ``bootstrap``), ``alpha`` for a
test's significance level (once ``level``), and one statistics layer, :mod:`tealeaves.stats`.
A public name that changed keeps working through one of these helpers, each warning once per
call site:

- :func:`renamed_parameters`, a decorator mapping old keyword arguments to new ones;
- :func:`moved_names`, a module ``__getattr__`` resolving old module attributes to their new
  home;
- :class:`renamed_attribute`, a descriptor reading an old attribute of a class as its new one;
- :func:`warn_renamed`, for the rest (a configuration key, a command-line option).

Examples
--------
>>> import warnings
>>> from tealeaves.deprecation import renamed_parameters
>>> @renamed_parameters(n_boot="n_resamples")
... def resample(values, n_resamples=100):
...     return n_resamples
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     resample([1.0], n_boot=20)
20
>>> print(caught[0].category.__name__, caught[0].message)
DeprecationWarning resample: n_boot= is deprecated; use n_resamples= instead
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from tealeaves.errors import InputError

F = TypeVar("F", bound=Callable[..., Any])


def warn_renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn (``DeprecationWarning``) that ``old`` is deprecated in favour of ``new``.

    Parameters
    ----------
    old, new : str
        What the caller used and what to use instead, as the user writes them.
    stacklevel : int, optional
        Passed to :func:`warnings.warn`: 3 points at the caller of the function calling this.

    Examples
    --------
    >>> import warnings
    >>> from tealeaves.deprecation import warn_renamed
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_renamed("--bootstrap", "--n-resamples")
    >>> str(caught[0].message)
    '--bootstrap is deprecated; use --n-resamples instead'
    """
    warnings.warn(f"{old} is deprecated; use {new} instead", DeprecationWarning, stacklevel=stacklevel)


def renamed_parameters(**renames: str) -> Callable[[F], F]:
    """A decorator accepting each old keyword argument (``old="new"``) as the new one, with a warning.

    Passing both names is an :class:`~tealeaves.errors.InputError`.

    Parameters
    ----------
    **renames : str
        Old keyword name -> new keyword name.

    Returns
    -------
    callable
        The decorator.

    Examples
    --------
    >>> import warnings
    >>> from tealeaves.deprecation import renamed_parameters
    >>> @renamed_parameters(level="alpha")
    ... def verdict(p, alpha=0.05):
    ...     return p < alpha
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     verdict(0.07, level=0.1)
    True
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputError(f"{func.__name__}: give {new}= only ({old}= is its deprecated name)")
                    warn_renamed(f"{func.__name__}: {old}=", f"{new}=")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


class renamed_attribute:  # a descriptor, named like the functions beside it
    """A class attribute that reads the attribute ``new`` of the instance, with a warning (a renamed field).

    Parameters
    ----------
    new : str
        The attribute's new name.

    Examples
    --------
    >>> import warnings
    >>> from dataclasses import dataclass
    >>> from tealeaves.deprecation import renamed_attribute
    >>> @dataclass(frozen=True)
    ... class Interval:
    ...     confidence: float
    ...     level = renamed_attribute("confidence")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     Interval(0.95).level
    0.95
    """

    def __init__(self, new: str) -> None:
        self.new = new
        self.old = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.old = f"{owner.__name__}.{name}"
        self.owner = owner.__name__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        warn_renamed(self.old, f"{self.owner}.{self.new}")
        return getattr(instance, self.new)


def moved_names(
    module: str, moved: Mapping[str, str], fallback: Callable[[str], Any] | None = None
) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) resolving each old name of ``moved`` to its new home, with a warning.

    Parameters
    ----------
    module : str
        The module's ``__name__``.
    moved : mapping of str to str
        Old attribute name -> the new object's dotted path (``"tealeaves.stats.holm"``).
    fallback : callable, optional
        The module's ``__getattr__`` for every other name (a package's lazy names,
        :func:`tealeaves.lazy.attach`); an ``AttributeError`` without one.

    Returns
    -------
    callable
        The ``__getattr__``. The old names are not cached on the module, so every use warns.

    Examples
    --------
    >>> import warnings
    >>> from tealeaves.deprecation import moved_names
    >>> getattr_ = moved_names("tealeaves.analysis", {"holm": "tealeaves.stats.holm"})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     getattr_("holm").__module__
    'tealeaves.stats.multiplicity'
    """

    def __getattr__(name: str) -> Any:
        if name in moved:
            path, _, attribute = moved[name].rpartition(".")
            warn_renamed(f"{module}.{name}", moved[name])
            return getattr(importlib.import_module(path), attribute)
        if fallback is not None:
            return fallback(name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
