"""The one place that knows how work is spread over processes and machines.

:func:`parallel_map` applies a picklable top-level function to a list of work items and
returns the results in order:

- ``workers=1`` (and no scheduler): in this process;
- ``workers=N``: a pool of N local processes (``forkserver`` start method, so workers never
  inherit threads of the parent);
- ``scheduler="local"``: a Dask ``LocalCluster`` of ``workers`` processes on loopback;
- ``scheduler="tcp://host:port"``: an existing Dask distributed cluster.

:func:`parallel_completed` spreads work the same way but yields each item's :class:`Outcome`
as soon as it is final, in the order the work finishes: an item that raises is retried up to
``retries`` times, and its errors are reported in its outcome instead of stopping the others
(what a hyperparameter sweep needs, where one failing setting must not end the run).

Dask is optional (``pip install 'tealeaves[dask]'``); nothing imports it unless asked.
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import os
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, as_completed, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from tealeaves.errors import InputError, is_count
from tealeaves.extras import require
from tealeaves.progress import ProgressCallback, notify

T = TypeVar("T")
R = TypeVar("R")


def resolve_workers(workers: int | None) -> int:
    """``None`` or 0 means one worker per CPU core; negative numbers are refused.

    Parameters
    ----------
    workers : int or None
        Processes asked for.

    Returns
    -------
    int
        ``workers``, or ``os.cpu_count()`` for None or 0.

    Raises
    ------
    InputError
        For a negative number.

    Examples
    --------
    >>> import os
    >>> from tealeaves.parallel import resolve_workers
    >>> resolve_workers(4), resolve_workers(None) == (os.cpu_count() or 1)
    (4, True)
    >>> resolve_workers(-2)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: workers must be a positive number of processes, got -2
    """
    if workers is None or (is_count(workers, 0) and workers == 0):
        return os.cpu_count() or 1
    if not is_count(workers):
        raise InputError(f"workers must be a positive number of processes, got {workers!r}")
    return int(workers)


def parallel_map(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int | None = 1,
    scheduler: str | None = None,
    progress: ProgressCallback | None = None,
    task: str = "work",
) -> list[R]:
    """``[func(item) for item in items]``, spread over processes; order is preserved.

    Parameters
    ----------
    func : callable
        A picklable top-level function of one work item.
    items : sequence
        The work items (picklable).
    workers : int or None, default 1
        Processes (:func:`resolve_workers`); 1 runs in this process.
    scheduler : str, optional
        ``"local"`` for a Dask ``LocalCluster`` of ``workers`` processes
        (:func:`local_cluster`), or a Dask scheduler's address (``tcp://host:8786``).
    progress : callable, optional
        Receives a :class:`~tealeaves.progress.ProgressUpdate` as each item finishes.
    task : str, default "work"
        The task name of the progress updates.

    Returns
    -------
    list
        ``func(item)`` for each item, in the items' order. The first item that raises stops
        the map with its exception (:func:`parallel_completed` goes on instead).

    Examples
    --------
    >>> import math
    >>> from tealeaves.parallel import parallel_map
    >>> parallel_map(math.sqrt, [1, 4, 9])
    [1.0, 2.0, 3.0]
    >>> parallel_map(math.sqrt, [1, 4, 9], workers=2)  # two local processes, same order
    [1.0, 2.0, 3.0]
    """
    n = len(items)
    workers = resolve_workers(workers)
    if scheduler:
        return _dask_map(func, items, workers, scheduler, progress, task)
    if workers == 1 or n <= 1:
        results = []
        for i, item in enumerate(items):
            results.append(func(item))
            notify(progress, task, i + 1, n)
        return results
    context = multiprocessing.get_context("forkserver")
    out: list[Any] = [None] * n
    with ProcessPoolExecutor(max_workers=min(workers, n), mp_context=context) as pool:
        futures = {pool.submit(func, item): i for i, item in enumerate(items)}
        for done, future in enumerate(as_completed(futures), start=1):
            out[futures[future]] = future.result()
            notify(progress, task, done, n)
    return out


def _dask_map(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    scheduler: str,
    progress: ProgressCallback | None,
    task: str,
) -> list[R]:
    dask_completed = _dask().as_completed
    with _dask_client(workers, scheduler) as client:
        futures = client.map(func, list(items), pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        out: list[Any] = [None] * len(futures)
        for done, future in enumerate(dask_completed(futures), start=1):
            out[index[future.key]] = future.result()
            future.release()  # the result leaves the worker's memory once gathered, not at the end of the map
            notify(progress, task, done, len(futures))
        return out


WORKER_ENVIRONMENT = {"MALLOC_MMAP_THRESHOLD_": str(32 * 2**20), "MALLOC_TRIM_THRESHOLD_": str(64 * 2**20)}
"""Set in the workers of the ``LocalCluster`` s tealeaves starts: glibc's ``malloc`` thresholds
where its own adaptive ones settle (map fresh pages for blocks over 32 MiB, return the heap's
free top past 64 MiB). Dask's nanny sets the trim threshold to 64 KiB, which also fixes the mmap
threshold at 128 KiB: every minibatch of a neural model then maps, faults in and returns its
pages (D-VAE on 20 Newsgroups spent most of its time in the kernel and ran several times
slower in a Dask worker than in a plain process)."""


def _dask() -> Any:
    """The ``dask.distributed`` module, or a :class:`MissingDependencyError` naming the extra."""
    require("dask", what="a Dask scheduler (--scheduler)")
    import dask.distributed

    return dask.distributed


@contextlib.contextmanager
def local_cluster(workers: int | None) -> Iterator[Any]:
    """A Dask ``LocalCluster`` of ``workers`` processes (one per CPU core by default), one thread
    each, on loopback, without a dashboard, its workers started with :data:`WORKER_ENVIRONMENT`
    (Dask's ``distributed.nanny.pre-spawn-environ``: ``malloc`` reads it when the process
    starts, so it cannot be set later).

    Needs the ``dask`` extra (``pip install 'tealeaves[dask]'``); the cluster is closed when
    the ``with`` block ends.

    Parameters
    ----------
    workers : int or None
        Worker processes (:func:`resolve_workers`: None or 0 for one per CPU core).

    Yields
    ------
    distributed.LocalCluster
        The running cluster; pass its ``scheduler_address`` as ``scheduler=`` to
        :func:`parallel_map` or :func:`parallel_completed`.

    Examples
    --------
    >>> import math
    >>> from tealeaves.parallel import local_cluster, parallel_map
    >>> with local_cluster(1) as cluster:
    ...     print(len(cluster.workers), parallel_map(math.sqrt, [1, 4, 9], scheduler=cluster.scheduler_address))
    1 [1.0, 2.0, 3.0]
    """
    distributed = _dask()  # imported first: it adds its defaults to the configuration, which set() would undo
    import dask

    settings = {f"distributed.nanny.pre-spawn-environ.{name}": value for name, value in WORKER_ENVIRONMENT.items()}
    with dask.config.set(settings):  # each nanny keeps what it finds here for every (re)start of its worker
        cluster = distributed.LocalCluster(
            n_workers=resolve_workers(workers),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            # the scheduler's HTTP server (health routes, no dashboard) on a free port: on its
            # default 8787 a second cluster warns "Port 8787 is already in use" into the output
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        )
    try:
        yield cluster
    finally:
        cluster.close()


@contextlib.contextmanager
def _dask_client(workers: int, scheduler: str) -> Iterator[Any]:
    """A ``dask.distributed.Client`` of a new ``LocalCluster`` (``"local"``) or of the cluster at ``scheduler``."""
    distributed = _dask()
    if scheduler == "local":
        with local_cluster(workers) as cluster, distributed.Client(cluster) as client:
            yield client
    elif isinstance(scheduler, str) and scheduler.startswith(("tcp://", "tls://", "inproc://")):
        try:
            client = distributed.Client(scheduler)
        except OSError as exc:  # distributed's "Timed out trying to connect to ... after 30 s"
            raise InputError(
                f"cannot reach the Dask scheduler at {scheduler} ({exc}); start one there (dask scheduler), correct "
                "the address, or use scheduler='local' for a cluster on this machine"
            ) from exc
        with client:
            yield client
    else:
        raise InputError(f"scheduler must be 'local' or a Dask address like tcp://host:8786, got {scheduler!r}")


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """What became of one work item of :func:`parallel_completed`.

    Attributes
    ----------
    index : int
        The item's position in the sequence given.
    value : object or None
        What the function returned; None when every attempt failed.
    errors : tuple of str
        ``"ExceptionType: message"`` of each failed attempt, oldest first.
    attempts : int
        Calls made: ``len(errors)`` when the item failed, ``len(errors) + 1`` when it succeeded.
    traceback : str or None
        The formatted traceback of the last attempt when it failed.

    Examples
    --------
    ``math.sqrt(-1)`` raises, twice with one retry:

    >>> import math
    >>> from tealeaves.parallel import parallel_completed
    >>> good, bad = parallel_completed(math.sqrt, [4, -1], retries=1)
    >>> good.ok, good.value, good.attempts
    (True, 2.0, 1)
    >>> bad.ok, bad.value, bad.errors
    (False, None, ('ValueError: math domain error', 'ValueError: math domain error'))
    >>> bad.traceback.splitlines()[-1]
    'ValueError: math domain error'
    """

    index: int
    value: R | None
    errors: tuple[str, ...]
    attempts: int
    traceback: str | None

    @property
    def ok(self) -> bool:
        """Whether an attempt succeeded."""
        return self.attempts > len(self.errors)


def parallel_completed(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int | None = 1,
    scheduler: str | None = None,
    retries: int = 0,
) -> Iterator[Outcome[R]]:
    """Apply ``func`` to every item; yield each item's :class:`Outcome` as soon as it is final.

    Work is spread as by :func:`parallel_map` (this process, ``workers`` local processes, a Dask
    ``LocalCluster`` or a Dask cluster's address), but outcomes come in the order the work
    finishes. An item whose call raises, or whose worker process dies, is submitted again up to
    ``retries`` more times while the others go on; after its last failed attempt its outcome
    carries the errors instead of a value. No item's failure stops the iteration. Closing the
    iterator early (``break``) shuts down the processes or the ``LocalCluster`` it started.

    Parameters
    ----------
    func : callable
        A picklable top-level function of one work item.
    items : sequence
        The work items (picklable).
    workers : int or None, default 1
        Processes (:func:`resolve_workers`); 1 runs in this process.
    scheduler : str, optional
        ``"local"`` or a Dask scheduler's address, as for :func:`parallel_map`.
    retries : int, default 0
        Further attempts of an item that fails.

    Yields
    ------
    Outcome
        One per item, as it becomes final.

    Raises
    ------
    InputError
        For a negative ``retries``.

    Examples
    --------
    >>> import math
    >>> from tealeaves.parallel import parallel_completed

    Item 1 fails, is retried after the others, and fails again:

    >>> for outcome in parallel_completed(math.sqrt, [4, -1, 9], retries=1):
    ...     print(outcome.index, outcome.value, outcome.attempts, outcome.errors[-1:])
    0 2.0 1 ()
    2 3.0 1 ()
    1 None 2 ('ValueError: math domain error',)
    """
    if retries < 0:
        raise InputError(f"retries must be 0 or more, got {retries}")
    workers = resolve_workers(workers)
    if not items:  # nothing to start a cluster for
        return
    with contextlib.ExitStack() as stack:
        runner: _Runner
        if scheduler:
            runner = _DaskRunner(func, items, stack.enter_context(_dask_client(workers, scheduler)))
        elif workers == 1 or len(items) <= 1:
            runner = _SerialRunner(func, items)
        else:
            runner = stack.enter_context(_PoolRunner(func, items, min(workers, len(items))))
        yield from _outcomes(runner, len(items), retries)


def _outcomes(runner: _Runner, n: int, retries: int) -> Iterator[Outcome[Any]]:
    errors: list[list[str]] = [[] for _ in range(n)]
    for i in range(n):
        runner.submit(i)
    pending = n
    while pending:
        i, future = runner.next_done()
        try:
            value = future.result()
        except Exception as exc:
            errors[i].append(f"{type(exc).__name__}: {exc}")
            if len(errors[i]) <= retries:
                runner.submit(i)
                continue
            pending -= 1
            yield Outcome(i, None, tuple(errors[i]), len(errors[i]), "".join(traceback.format_exception(exc)))
        else:
            pending -= 1
            yield Outcome(i, value, tuple(errors[i]), len(errors[i]) + 1, None)


class _Runner(Protocol):
    def submit(self, i: int) -> None: ...

    def next_done(self) -> tuple[int, Any]:
        """The index of a finished item and its future (anything with ``result()``)."""
        ...


class _SerialRunner:
    """In this process, one item at a time, in submission order."""

    def __init__(self, func: Callable[[Any], Any], items: Sequence[Any]) -> None:
        self.func, self.items = func, items
        self.queue: collections.deque[int] = collections.deque()

    def submit(self, i: int) -> None:
        self.queue.append(i)

    def next_done(self) -> tuple[int, Future[Any]]:
        i = self.queue.popleft()
        future: Future[Any] = Future()
        try:
            future.set_result(self.func(self.items[i]))
        except Exception as exc:
            future.set_exception(exc)
        return i, future


class _PoolRunner:
    """A pool of local processes; a pool broken by a dying worker is replaced by a new one."""

    def __init__(self, func: Callable[[Any], Any], items: Sequence[Any], workers: int) -> None:
        self.func, self.items, self.workers = func, items, workers
        self.pool = self._new_pool()
        self.pending: dict[Future[Any], int] = {}
        self.done: list[Future[Any]] = []

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("forkserver"))

    def __enter__(self) -> _PoolRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown(cancel_futures=True)

    def submit(self, i: int) -> None:
        try:
            future = self.pool.submit(self.func, self.items[i])
        except BrokenProcessPool:
            self.pool.shutdown(cancel_futures=True)
            self.pool = self._new_pool()
            future = self.pool.submit(self.func, self.items[i])
        self.pending[future] = i

    def next_done(self) -> tuple[int, Future[Any]]:
        if not self.done:
            finished, _ = wait(self.pending, return_when=FIRST_COMPLETED)
            self.done = list(finished)
        future = self.done.pop()
        return self.pending.pop(future), future


class _DaskRunner:
    """Futures on a Dask client, taken as they complete."""

    def __init__(self, func: Callable[[Any], Any], items: Sequence[Any], client: Any) -> None:
        from dask.distributed import as_completed as dask_completed

        self.func, self.items, self.client = func, items, client
        self.completed = dask_completed()
        self.keys: dict[Any, int] = {}

    def submit(self, i: int) -> None:
        future = self.client.submit(self.func, self.items[i], pure=False)
        self.keys[future.key] = i
        self.completed.add(future)

    def next_done(self) -> tuple[int, Any]:
        future = next(self.completed)
        return self.keys.pop(future.key), future
