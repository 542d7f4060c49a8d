"""The numba decorator of every tealeaves kernel, and the threads that run kernels side by side.

:func:`kernel` is ``numba.njit(cache=True, nogil=True)`` with three conventions:

- **Compiled once, on first use.** A kernel is compiled for the argument types of its first
  call (no eager signatures: a process compiles only what it runs) and cached on disk, so only
  the first process after an install compiles it. That process says so once on stderr
  (``tealeaves: compiling numba kernels once for this machine (seconds), cached in …``), and
  every later process loads them from the cache.
- **Cached where it can be written.** numba caches a kernel in ``NUMBA_CACHE_DIR`` when the
  user sets it, else in the ``__pycache__`` folder beside its module; when that folder cannot
  be written (a read-only install), tealeaves' kernels are cached in ``numba`` under
  :func:`tealeaves.artifacts.cache_root` (``$TEALEAVES_CACHE``, else ``~/.cache/tealeaves``)
  rather than in numba's own user folder.
- **Serial, without the GIL.** No kernel uses ``parallel=True``: numba's parallel loops cost
  4 to 9 seconds of compilation each (left-to-right estimation, the Gibbs sweep, the window
  sweep), more than the work they spread on most inputs. A kernel takes a batch of documents
  (or of occurrences) instead, and :func:`map_threads` runs batches on threads, which run
  in parallel because a kernel releases the GIL. Results never depend on the threads: every
  document draws from its own stream (:mod:`tealeaves.rng`) and batches write to their own
  outputs.

The thread count is numba's (:func:`threads`): ``NUMBA_NUM_THREADS``, or what
``numba.set_num_threads`` chose.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, overload

import numba
import numpy as np
from numba.core import config as _numba_config
from numba.core import event

from tealeaves.artifacts import cache_root

_CONFIG: Any = _numba_config  # its settings are set from the environment at import: untyped
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
R = TypeVar("R")


@overload
def kernel(func: F) -> F: ...


@overload
def kernel(func: None = None, **options: Any) -> Callable[[F], F]: ...


def kernel(func: F | None = None, **options: Any) -> Any:
    """``numba.njit(cache=True, nogil=True, **options)``, cached where it can be written (see the module).

    Parameters
    ----------
    func : function, optional
        The kernel (``@kernel``); without it, a decorator (``@kernel(inline="always")``).
    **options
        Further ``numba.njit`` options (``inline``, ``fastmath``).

    Returns
    -------
    numba.core.registry.CPUDispatcher or callable
        The kernel, compiled on its first call for the types of its arguments (typed as the
        Python function, so that calls are checked against its annotations), or the decorator.

    Examples
    --------
    A kernel lives in a module of its own (``_kernels.py``), whose file numba's cache is keyed on::

        @kernel
        def total(values):
            s = 0.0
            for v in values:
                s += v
            return s

    and is called as any function; a stream of :mod:`tealeaves.streams`:

    >>> from tealeaves.streams import stream
    >>> state = stream(0, 1)  # compiled on a first call (and said so), else loaded from the cache
    >>> state.dtype, state.shape
    (dtype('uint64'), (1,))
    """

    def decorate(py_func: F) -> Any:
        with _cache_folder_for(py_func):
            dispatcher = numba.njit(cache=True, nogil=True, **options)(py_func)
        NOTICE.kernels.add(py_func)
        return dispatcher

    return decorate(func) if func is not None else decorate


def threads() -> int:
    """Threads that :func:`map_threads` uses: numba's, ``numba.get_num_threads()``.

    That is ``NUMBA_NUM_THREADS`` (one per CPU unless set), or what ``numba.set_num_threads``
    chose in the calling thread.

    Returns
    -------
    int

    Examples
    --------
    >>> import numba
    >>> from tealeaves.jit import threads
    >>> threads() == numba.get_num_threads() >= 1
    True
    """
    return int(numba.get_num_threads())


def batches(n_items: int, n_batches: int | None = None) -> list[tuple[int, int]]:
    """Contiguous ``(first, stop)`` batches of ``range(n_items)`` of about equal size.

    Parameters
    ----------
    n_items : int
        Items (documents) to split.
    n_batches : int, optional
        How many; default four per thread (:func:`threads`), which keeps every thread busy when
        batches take unequal times. Never more than ``n_items``, never fewer than one.

    Returns
    -------
    list of (int, int)

    Examples
    --------
    >>> from tealeaves.jit import batches
    >>> batches(10, 3), batches(2, 8), batches(0, 4)
    ([(0, 3), (3, 6), (6, 10)], [(0, 1), (1, 2)], [(0, 0)])
    """
    n_batches = max(1, min(4 * threads() if n_batches is None else n_batches, n_items))
    bounds = [n_items * i // n_batches for i in range(n_batches + 1)]
    return list(itertools.pairwise(bounds))


def map_threads(
    func: Callable[[T], R],
    items: Sequence[T],
    n_threads: int | None = None,
    done: Callable[[int], None] | None = None,
) -> list[R]:
    """``[func(item) for item in items]``, on up to ``n_threads`` threads.

    Parameters
    ----------
    func : callable
        Should spend its time in kernels, which release the GIL.
    items : sequence
        What ``func`` is applied to.
    n_threads : int, optional
        Default :func:`threads`; with one thread or one item everything runs in the calling thread.
    done : callable, optional
        ``done(i)`` is called in the calling thread as each item ``i`` finishes (for progress).

    Returns
    -------
    list
        The results, in the order of ``items``. The first exception raised is raised here.

    Examples
    --------
    >>> from tealeaves.jit import map_threads
    >>> map_threads(lambda x: x * x, [1, 2, 3], n_threads=2)
    [1, 4, 9]
    """
    n_threads = min(threads() if n_threads is None else n_threads, len(items))
    results: list[Any] = [None] * len(items)
    if n_threads <= 1:
        for i, item in enumerate(items):
            results[i] = func(item)
            if done is not None:
                done(i)
        return results
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        futures = {pool.submit(func, item): i for i, item in enumerate(items)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if done is not None:
                done(futures[future])
    return results


def by_documents(run: Callable[[int, int], tuple[np.ndarray, ...]], n_docs: int) -> tuple[np.ndarray, ...]:
    """``run(first, stop)`` for :func:`batches` of ``n_docs`` documents, on threads, its outputs
    joined: each output array of every batch, concatenated in document order (axis 0).

    Parameters
    ----------
    run : callable
        Returns arrays whose first axis follows the batch's documents (or their entries, for a
        CSR slice); with no documents, ``run(0, 0)`` gives the empty outputs.
    n_docs : int
        Documents in all.

    Returns
    -------
    tuple of numpy.ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.jit import by_documents
    >>> lengths = np.array([3, 1, 2])
    >>> by_documents(lambda first, stop: (10 * lengths[first:stop],), len(lengths))
    (array([30, 10, 20]),)
    """
    parts = map_threads(lambda span: run(*span), batches(n_docs))
    return tuple(np.concatenate(column) for column in zip(*parts, strict=True))


@contextlib.contextmanager
def _cache_folder_for(py_func: Callable[..., Any]) -> Iterator[None]:
    """While numba picks ``py_func``'s cache: ``cache_root() / "numba"`` when neither
    ``NUMBA_CACHE_DIR`` is set nor the ``__pycache__`` beside its module can be written."""
    source = Path(inspect.getfile(py_func))
    if _CONFIG.CACHE_DIR or not source.exists() or _writable(source.parent / "__pycache__"):
        yield
        return
    _CONFIG.CACHE_DIR = str(cache_root() / "numba")
    try:
        yield
    finally:
        _CONFIG.CACHE_DIR = ""


@cache
def _writable(folder: Path) -> bool:
    """Whether ``folder`` exists or can be made, and a file can be written in it (numba's own test)."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


class _CompileNotice(event.Listener):
    """Says once on stderr, when numba starts compiling the first of :func:`kernel`'s kernels in this
    process, that kernels are being compiled and where they are cached (numba sends no event
    when it loads one from its cache)."""

    def __init__(self) -> None:
        self.said = False
        self.kernels: set[Callable[..., Any]] = set()

    def on_start(self, ev: event.Event) -> None:
        dispatcher = ev.data["dispatcher"]
        if self.said or getattr(dispatcher, "py_func", None) not in self.kernels:
            return
        self.said = True
        folder = Path(dispatcher.stats.cache_path)
        root = folder if folder.name == "__pycache__" else folder.parent  # numba adds a folder per source folder
        sys.stderr.write(f"tealeaves: compiling numba kernels once for this machine (seconds), cached in {root}\n")
        sys.stderr.flush()

    def on_end(self, ev: event.Event) -> None:
        """Nothing: the notice is given when compiling starts."""


NOTICE = _CompileNotice()
event.register("numba:compile", NOTICE)
