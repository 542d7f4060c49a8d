"""The documentation's examples run as written: Getting started, then every page of the user
guide in the order of its table of contents, each block in order, in one working folder (later
pages use what earlier ones made, as a reader following the guide would)."""

from __future__ import annotations

from tests.markdown_blocks import DOCS, blocks, core_recipes, guide_pages, printed_claims, recipe_inputs, run_block


def test_every_guide_page_is_in_the_toctree():
    listed = {path.name for path in guide_pages()}
    assert {path.name for path in (DOCS / "guide").glob("*.md")} - {"index.md"} <= listed


def test_guide_examples_run(tmp_path):
    """Every block runs, and what a ``print`` line's comment says it prints is a line of the output (with the
    texts and topic list a reader brings to the getting-started recipe)."""
    recipe_inputs(tmp_path)
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


def test_the_core_recipes_are_marked_where_a_core_install_reads_them():
    """``tests/core`` runs the blocks marked ``% recipe: core`` on the core install: the getting-started recipe
    and the guides' command-line recipes that need no extra (the marker sits right above an sh block)."""
    marked = {page.name: len(core_recipes(page)) for page in guide_pages()}
    assert marked["getting-started.md"] == 1
    assert {name for name, n in marked.items() if n} >= {"prepare.md", "coherence.md", "likelihood.md", "intrusion.md"}
    for page in guide_pages():
        text = page.read_text(encoding="utf-8")
        assert text.count("% recipe: core") == len(core_recipes(page)), f"{page.name}: a marker above no sh block"
