"""parallel_completed: outcomes as work finishes, retries, errors that never stop the others."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tealeaves.errors import InputError
from tealeaves.parallel import WORKER_ENVIRONMENT, parallel_completed, parallel_map


def square_or_fail(item: tuple[int, str]) -> int:
    """``x * x``; x = 2 always raises; x = 3 kills its process the first time (a marker file remembers)."""
    x, marker = item
    if x == 2:
        raise ValueError(f"no {x}")
    if x == 3 and not Path(marker).exists():
        Path(marker).touch()
        os._exit(1)
    return x * x


def environment(name: str) -> str | None:
    """``name`` in the environment the process started with (what ``malloc`` reads), on Linux."""
    started = Path("/proc/self/environ")
    if not started.exists():
        return os.environ.get(name)
    pairs = (entry.partition(b"=") for entry in started.read_bytes().split(b"\0") if entry)
    return next((value.decode() for key, _, value in pairs if key.decode() == name), None)


def by_index(outcomes):
    return sorted(outcomes, key=lambda outcome: outcome.index)


def test_in_process_outcomes_with_one_retry():
    items = [(0, ""), (1, ""), (2, "")]
    outcomes = by_index(parallel_completed(square_or_fail, items, retries=1))
    assert [(o.index, o.value, o.attempts, o.ok) for o in outcomes] == [
        (0, 0, 1, True),
        (1, 1, 1, True),
        (2, None, 2, False),
    ]
    assert outcomes[2].errors == ("ValueError: no 2", "ValueError: no 2")
    assert "ValueError: no 2" in outcomes[2].traceback and outcomes[0].traceback is None
    (only,) = parallel_completed(square_or_fail, [(2, "")])
    assert only.errors == ("ValueError: no 2",) and only.attempts == 1


def test_process_pool_survives_a_dying_worker(tmp_path):
    items = [(x, str(tmp_path / "died")) for x in range(5)]
    outcomes = by_index(parallel_completed(square_or_fail, items, workers=2, retries=1))
    assert [o.value for o in outcomes] == [0, 1, None, 9, 16]
    assert outcomes[2].attempts == 2 and not outcomes[2].ok
    # the item whose process died was tried again in a new pool and succeeded
    assert outcomes[3].ok and outcomes[3].errors and "BrokenProcessPool" in outcomes[3].errors[0]
    assert parallel_map(square_or_fail, [(0, ""), (1, ""), (4, "")], workers=2) == [0, 1, 16]


def test_nothing_to_do_and_bad_retries():
    assert list(parallel_completed(square_or_fail, [], scheduler="local")) == []
    with pytest.raises(InputError, match="retries must be 0 or more"):
        list(parallel_completed(square_or_fail, [(0, "")], retries=-1))


def test_local_cluster_workers_get_the_allocator_setting():
    """Dask's nanny sets glibc's trim threshold to 64 KiB (which pins the mmap threshold at
    128 KiB); the workers tealeaves starts get glibc's settled values, for parallel_map and
    parallel_completed alike."""
    pytest.importorskip("distributed")
    names = ["MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"]
    mapped = parallel_map(environment, names, workers=1, scheduler="local")
    assert mapped == [str(32 * 2**20), str(64 * 2**20)] == [WORKER_ENVIRONMENT[name] for name in names]
    completed = by_index(parallel_completed(environment, names, workers=1, scheduler="local"))
    assert [outcome.value for outcome in completed] == mapped


def test_a_local_cluster_started_before_distributed_is_imported_keeps_dask_configuration():
    """The allocator setting goes through ``dask.config.set``; had ``distributed`` been imported
    inside it, leaving it would drop distributed's defaults and break the scheduler (KeyError)."""
    pytest.importorskip("distributed")
    script = (
        "import sys, dask.config\n"
        "from tealeaves.parallel import local_cluster, parallel_map\n"
        "assert 'distributed' not in sys.modules\n"
        "with local_cluster(1):\n"
        "    pass\n"
        "print(dask.config.get('distributed.scheduler.events-cleanup-delay'))\n"
        "print(parallel_map(abs, [-1, -2], workers=1, scheduler='local'))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[1] == "[1, 2]" and "KeyError" not in done.stderr


def test_an_unreachable_scheduler_is_one_input_error():
    """A scheduler address nothing listens at: an InputError naming the address, the reason and what to do,
    after distributed's connect timeout (1 s here), where distributed's OSError came out as a traceback."""
    import dask

    unreachable = r"^cannot reach the Dask scheduler at tcp://127\.0\.0\.1:1 \(.*\); start"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}), pytest.raises(InputError, match=unreachable):
        parallel_map(abs, [1, -2], scheduler="tcp://127.0.0.1:1")
