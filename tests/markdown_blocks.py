"""Run the ```sh and ```python blocks of Markdown documents as written, in order.

A block under the MyST comment ``% recipe: core`` is a recipe that needs only the core install
(``pip install tealeaves``): ``tests/core`` runs those in ``.venv-core``, on the inputs a reader
has (:func:`recipe_inputs`) and, for the guides' recipes, stand-ins of what the pages before them
made with extras (:func:`core_stand_ins`: a tokenized ``sotu`` corpus and core-trained models).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"^```(sh|python)\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
CORE_RECIPE = re.compile(r"^% recipe: core\n```sh\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
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


def guide_pages() -> list[Path]:
    """Getting started, then the guide's pages as its toctree lists them."""
    index = (DOCS / "guide" / "index.md").read_text(encoding="utf-8")
    toctree = re.search(r"```\{toctree\}\n(.*?)```", index, flags=re.DOTALL)
    assert toctree is not None, "docs/guide/index.md has no toctree"
    names = [line.strip() for line in toctree.group(1).splitlines() if line.strip() and not line.startswith(":")]
    return [DOCS / "getting-started.md", *(DOCS / "guide" / f"{name}.md" for name in names)]


def core_recipes(path: Path) -> list[str]:
    """The code of the ``% recipe: core`` sh blocks of ``path``, in order."""
    return CORE_RECIPE.findall(path.read_text(encoding="utf-8"))


# a lexicon of twenty "topics" of fifteen words, with the words the guides' examples use
LEXICON = [
    ["the", "union", "is", "strong", "economy", "grows", "nation", "people", "states", "congress", "law", "year",
     "government", "public", "country"],
    *[[f"{stem}{i}" for i in range(15)] for stem in (
        "tax", "war", "school", "farm", "bank", "ship", "rail", "court", "trade", "coal", "mail", "army", "navy",
        "land", "gold", "road", "fish", "iron", "wool",
    )],
]  # fmt: skip


def recipe_inputs(folder: Path) -> None:
    """What the getting-started recipe assumes a reader has: ``texts.txt``, tokenized texts one document a line
    (as gensim users keep them), and ``topics.txt``, a topic list of ten words a topic (as a tool writes it)."""
    rng = np.random.default_rng(0)
    lines = [" ".join(rng.choice(LEXICON[d % 5] + LEXICON[(d * 7) % 20], size=30)) for d in range(200)]
    (folder / "texts.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "topics.txt").write_text("".join(" ".join(words[:10]) + "\n" for words in LEXICON[:5]), encoding="utf-8")


def core_stand_ins(folder: Path) -> None:
    """Core-made stand-ins of what the guides' recipes read and earlier pages made with extras: ``sotu/train`` and
    ``sotu/heldout`` (tokenized texts, not spaCy's preparation of builtin:sotu), ``sotu-lda`` and ``sotu-plsi``."""
    rng = np.random.default_rng(1)
    lines = [" ".join(rng.choice(LEXICON[d % 20] + LEXICON[(d * 3) % 20], size=80)) for d in range(600)]
    (folder / "sotu.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    commands = [
        "tealeaves prepare sotu.txt --format tokenized --heldout 0.2 --seed 0 --out sotu",
        "tealeaves train sotu/train --model lda-gibbs -k 20 --iterations 50 --out sotu-lda",
        "tealeaves train sotu/train --model plsi -k 20 --iterations 20 --out sotu-plsi",
    ]
    run_block("sh", "\n".join(commands), folder, "the stand-ins of the guides' corpus and models")
