"""Run the ```sh and ```python blocks of Markdown documents as written, in order."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

BLOCK = re.compile(r"^```(sh|python)\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)


def blocks(path: Path, language: str | None = None) -> list[tuple[str, str]]:
    """``(language, code)`` of every ```sh and ```python block of ``path``, in order."""
    found = BLOCK.findall(path.read_text(encoding="utf-8"))
    return [(lang, code) for lang, code in found if language is None or lang == language]


def run_block(language: str, code: str, workdir: Path, where: str) -> None:
    """Run one block in ``workdir``: sh in bash with this Python's scripts first on PATH, python in-process."""
    if language == "sh":
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", code], cwd=workdir, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, f"{where}: a sh block failed:\n{code}\n{result.stderr}"
        return
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        exec(compile(code, where, "exec"), {})
    finally:
        os.chdir(cwd)
