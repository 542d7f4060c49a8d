"""The README's examples run as written: every ```sh and ```python block, in order."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("readme")


def test_readme_has_the_two_commands_first():
    first = blocks("sh")[0]
    assert "make demo" in first and "make test" in first


def test_cli_tour_runs(workdir):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for block in blocks("sh")[1:]:
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block], cwd=workdir, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr


def test_python_tour_runs(workdir, capsys):
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        for block in blocks("python"):
            exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    printed = capsys.readouterr().out
    assert "Corpus(16257 documents, 589076 tokens, 4023 words)" in printed
    assert "(20, 4023) (20,) (16257, 20)" in printed
