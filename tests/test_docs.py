"""The documentation's examples run as written: Getting started, then every page of the user
guide in the order of its table of contents, each block in order, in one working folder (later
pages use what earlier ones made, as a reader following the guide would)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.markdown_blocks import blocks, run_block

DOCS = Path(__file__).resolve().parents[1] / "docs"


def guide_pages() -> list[Path]:
    """Getting started, then the guide's pages as its toctree lists them."""
    index = (DOCS / "guide" / "index.md").read_text(encoding="utf-8")
    toctree = re.search(r"```\{toctree\}\n(.*?)```", index, flags=re.DOTALL).group(1)
    names = [line.strip() for line in toctree.splitlines() if line.strip() and not line.startswith(":")]
    return [DOCS / "getting-started.md", *(DOCS / "guide" / f"{name}.md" for name in names)]


def test_every_guide_page_is_in_the_toctree():
    listed = {path.name for path in guide_pages()}
    assert {path.name for path in (DOCS / "guide").glob("*.md")} - {"index.md"} <= listed


def test_guide_examples_run(tmp_path, capsys):
    ran = 0
    for page in guide_pages():
        for n, (language, code) in enumerate(blocks(page), start=1):
            run_block(language, code, tmp_path, f"{page.relative_to(DOCS)} block {n}")
            ran += 1
    assert ran >= 10  # the pages were parsed
    printed = capsys.readouterr().out
    assert "Corpus(16255 documents, 589583 tokens, 4016 words)" in printed
    assert "(20, 4016) (20,) (16255, 20)" in printed


def test_no_example_needs_a_file_outside_the_repository():
    pages = [*DOCS.rglob("*.md"), DOCS.parent / "README.md"]
    for page in pages:
        for language, code in blocks(page):
            assert "../" not in code, f"{page.name}: a {language} block reads outside the repository"
    for script in (DOCS / "examples").glob("*.py"):
        assert "../" not in script.read_text(encoding="utf-8"), f"{script.name} reads outside the repository"
