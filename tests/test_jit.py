"""tealeaves.jit: kernels say once that they compile, and are cached where they can be written."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tealeaves import jit

SRC = Path(jit.__file__).resolve().parents[1]
PROBE = """
from tealeaves.jit import kernel


@kernel
def largest(values):
    top = values[0]
    for v in values[1:]:
        top = max(top, v)
    return top


@kernel
def spread(values):
    return largest(values) - values.min()
"""
RUN = (
    "import numpy as np, probe_kernels\nprint(probe_kernels.spread(np.arange(4.0)), probe_kernels.largest(np.ones(3)))"
)


def run_probe(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    environment.update(env, PYTHONPATH=os.pathsep.join([str(folder), str(SRC)]))
    done = subprocess.run([sys.executable, "-c", RUN], cwd=folder, env=environment, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3.0", "1.0"]
    return done


def notices(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("tealeaves: compiling")]


@pytest.mark.parametrize("where", ["read-only package", "writable package", "NUMBA_CACHE_DIR"])
def test_kernels_say_once_that_they_compile_and_are_cached_where_they_can_be(tmp_path, where):
    package = tmp_path / "package"
    package.mkdir()
    (package / "probe_kernels.py").write_text(PROBE)
    env = {"TEALEAVES_CACHE": str(tmp_path / "tealeaves-cache")}
    if where == "read-only package":
        (package / "__pycache__").write_text("")  # a file: no cache folder can be made beside the module
        expected = tmp_path / "tealeaves-cache" / "numba"
    elif where == "writable package":
        expected = package / "__pycache__"
    else:
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "user-choice")
        expected = tmp_path / "user-choice"
    first = run_probe(package, env)
    assert notices(first) == [
        f"tealeaves: compiling numba kernels once for this machine (seconds), cached in {expected}"
    ]
    assert list(expected.rglob("probe_kernels.*.nbi")), "the kernels' cache index"
    if where != "read-only package":
        assert not (tmp_path / "tealeaves-cache" / "numba").exists()
    assert notices(run_probe(package, env)) == []  # the next process loads them


def test_batches_cover_every_item_once():
    for n_items in (0, 1, 7, 100):
        for n_batches in (1, 3, 8, 200):
            spans = jit.batches(n_items, n_batches)
            assert spans[0][0] == 0 and spans[-1][1] == n_items
            assert all(a < b for a, b in spans) or n_items == 0
            assert all(stop == start for (_, stop), (start, _) in itertools.pairwise(spans))


def test_map_threads_keeps_order_reports_each_item_and_raises(monkeypatch):
    monkeypatch.setattr(jit, "threads", lambda: 3)
    seen: list[int] = []
    names: set[str] = set()

    def square(x: int) -> int:
        names.add(threading.current_thread().name)
        return x * x

    assert jit.map_threads(square, list(range(20)), done=seen.append) == [x * x for x in range(20)]
    assert sorted(seen) == list(range(20)) and threading.main_thread().name not in names
    with pytest.raises(ZeroDivisionError):
        jit.map_threads(lambda x: 1 // x, [1, 0, 2])
    assert jit.map_threads(square, [4], done=seen.append) == [16]  # one item: in this thread
