"""Run the ```sh and ```python blocks of Markdown documents as written, in order."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

BLOCK = re.compile(r"^```(sh|python)\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
# ``print(...)  # Corpus(16255 documents, ...)``: a comment that shows what the line prints (a number,
# None, a tuple or a repr) is a claim the tests check; other comments (``# every pair``) are prose
PRINTED = re.compile(r"^\s*print\(.*\)  # ((?:None\b|\(|-?\d|[A-Z]\w*\().*)$", flags=re.MULTILINE)


def blocks(path: Path, language: str | None = None) -> list[tuple[str, str]]:
    """``(language, code)`` of every ```sh and ```python block of ``path``, in order."""
    found = BLOCK.findall(path.read_text(encoding="utf-8"))
    return [(lang, code) for lang, code in found if language is None or lang == language]


def printed_claims(code: str) -> list[str]:
    """What the ``print`` lines of a python block say, in comments, that they print."""
    return PRINTED.findall(code)


def run_block(language: str, code: str, workdir: Path, where: str) -> str:
    """Run one block in ``workdir`` and return what it printed on stdout.

    sh runs in bash with this Python's scripts first on PATH; python runs in this process.
    """
    if language == "sh":
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", code], cwd=workdir, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, f"{where}: a sh block failed:\n{code}\n{result.stderr}"
        return result.stdout
    cwd = os.getcwd()
    out = io.StringIO()
    os.chdir(workdir)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, where, "exec"), {})
    finally:
        os.chdir(cwd)
    return out.getvalue()
