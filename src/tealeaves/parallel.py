"""The one place that knows how work is spread over processes and machines.

:func:`parallel_map` applies a picklable top-level function to a list of work items and
returns the results in order:

- ``workers=1`` (and no scheduler): in this process;
- ``workers=N``: a pool of N local processes (``forkserver`` start method, so workers never
  inherit threads of the parent);
- ``scheduler="local"``: a Dask ``LocalCluster`` of ``workers`` processes on loopback;
- ``scheduler="tcp://host:port"``: an existing Dask distributed cluster.

Dask is optional (``pip install 'tealeaves[dask]'``); nothing imports it unless asked.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

from tealeaves.errors import InputError, MissingDependencyError
from tealeaves.progress import ProgressCallback, notify

T = TypeVar("T")
R = TypeVar("R")


def resolve_workers(workers: int | None) -> int:
    """``None`` or 0 means one worker per CPU core; negative numbers are refused."""
    if workers is None or workers == 0:
        return os.cpu_count() or 1
    if workers < 0:
        raise InputError(f"workers must be a positive number of processes, got {workers}")
    return int(workers)


def parallel_map(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int | None = 1,
    scheduler: str | None = None,
    progress: ProgressCallback | None = None,
    task: str = "work",
) -> list[R]:
    """``[func(item) for item in items]``, spread over processes; order is preserved."""
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
    try:
        from dask.distributed import Client, LocalCluster
        from dask.distributed import as_completed as dask_completed
    except ImportError as exc:
        raise MissingDependencyError(
            "Dask is not installed: run `pip install 'tealeaves[dask]'` to use --scheduler"
        ) from exc
    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        )
        address: Any = cluster
    elif scheduler.startswith(("tcp://", "tls://", "inproc://")):
        address = scheduler
    else:
        raise InputError(f"scheduler must be 'local' or a Dask address like tcp://host:8786, got {scheduler!r}")
    try:
        with Client(address) as client:
            futures = client.map(func, list(items), pure=False)
            index = {future.key: i for i, future in enumerate(futures)}
            out: list[Any] = [None] * len(futures)
            for done, future in enumerate(dask_completed(futures), start=1):
                out[index[future.key]] = future.result()
                notify(progress, task, done, len(futures))
            return out
    finally:
        if cluster is not None:
            cluster.close()
