"""The documentation's examples run as written: Getting started, then every page of the user
guide in the order of its table of contents, each block in order, in one working folder (later
pages use what earlier ones made, as a reader following the guide would)."""

from __future__ import annotations

from pathlib import Path

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


ARCHITECTURE = DOCS / "architecture.md"
ROOT = DOCS.parent
SRC = ROOT / "src" / "tealeaves"


def backticked(text: str) -> list[str]:
    """Every `code` span of a Markdown page, a MyST role's target for {role}`text <target>` and `~name`."""
    import re

    spans = []
    for span in re.findall(r"`([^`\n]+)`", text):
        target = re.search(r"<([^<>]+)>$", span)
        spans.append((target.group(1) if target else span).lstrip("~").strip())
    return spans


def resolves(name: str) -> bool:
    """Whether ``tealeaves.x.y`` is a module, or an attribute of the longest module it starts with."""
    import importlib
    import warnings

    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:n]))
        except ImportError:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # an old name is no name for the page
            for attribute in parts[n:]:
                try:
                    value = getattr(value, attribute)
                except (AttributeError, DeprecationWarning):
                    return False
        return True
    return False


def test_the_architecture_page_names_files_and_names_that_exist():
    """Every `*.py` path (from the repository or from src/tealeaves) and every `tealeaves.x.y` name of the
    page exists; a path with a placeholder (`models/NAME.py`, `tests/*/test_cli.py`) needs its folder."""
    import re

    missing = []
    for span in backticked(ARCHITECTURE.read_text(encoding="utf-8")):
        if span.endswith(".py") and " " not in span:
            path = Path(span)
            if path.stem.isupper():  # a placeholder: models/NAME.py
                path = path.parent
            if not any(any(base.glob(str(path))) for base in (ROOT, SRC)):
                missing.append(span)
        elif re.fullmatch(r"tealeaves(\.\w+)+", span) and not resolves(span):
            missing.append(span)
    assert missing == []


def test_the_architecture_page_lists_every_module_in_the_import_contracts_order():
    """The package table's rows are the layers of pyproject.toml's import contract, from the bottom (the
    base modules' layers in the first row), and every public module of src/tealeaves is named on the page."""
    import re

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text[text.index("## Packages, in import order") : text.index("## Core types")]
    lines = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    rows = [re.split(r"(?<!\\)\|", line)[1] for line in lines]  # cells split at | but not at \|
    packages = [set(re.findall(r"`(\w+)`", cell)) for cell in rows[2:]]  # after the header and the base modules
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    [layers] = [c["layers"] for c in contract["contracts"] if c["type"] == "layers"]
    named = [{name.strip().removeprefix("tealeaves.") for name in re.split(r"[|:]", layer)} for layer in layers]
    above_base = named[: named.index({"stats"}) + 1][::-1]
    assert packages == above_base
    modules = {path.stem for path in SRC.rglob("*.py") if not path.stem.startswith("_")}
    modules |= {path.parent.name for path in SRC.rglob("__init__.py") if path.parent != SRC}
    assert sorted(name for name in modules if not re.search(rf"`{name}[`.]|{name}/", section)) == []
