"""The documentation's examples run as written: Getting started, then every page of the user
guide in the order of its table of contents, each block in order, in one working folder (later
pages use what earlier ones made, as a reader following the guide would)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.markdown_blocks import blocks, printed_claims, run_block

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


def test_guide_examples_run(tmp_path):
    """Every block runs, and what a ``print`` line's comment says it prints is a line of the output."""
    ran, claims = 0, 0
    for page in guide_pages():
        for n, (language, code) in enumerate(blocks(page), start=1):
            where = f"{page.relative_to(DOCS)} block {n}"
            lines = run_block(language, code, tmp_path, where).splitlines()
            for claim in printed_claims(code):
                assert claim in lines, f"{where} says a line prints {claim!r}; it printed:\n" + "\n".join(lines)
                claims += 1
            ran += 1
    assert ran >= 10 and claims >= 5  # the pages were parsed


def test_no_example_needs_a_file_outside_the_repository():
    pages = [*DOCS.rglob("*.md"), DOCS.parent / "README.md"]
    for page in pages:
        for language, code in blocks(page):
            assert "../" not in code, f"{page.name}: a {language} block reads outside the repository"
    for script in (DOCS / "examples").glob("*.py"):
        assert "../" not in script.read_text(encoding="utf-8"), f"{script.name} reads outside the repository"
