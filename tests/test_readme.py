"""The README is a landing page: at most 215 lines, links that lead to files of the repository,
and examples that run as written (every ```sh and ```python block, in order); what a ``print``
line's comment says it prints is a line of the output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.markdown_blocks import blocks, printed_claims, run_block

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("readme")


def test_readme_is_a_landing_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 215
    for page in ("docs/getting-started.md", "docs/reproducing.md", "docs/architecture.md"):
        assert f"]({page})" in text


def test_readme_links_lead_into_the_repository():
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)", README.read_text(encoding="utf-8")) if "://" not in t]
    assert targets
    for target in targets:
        assert (ROOT / target).exists(), f"the README links to {target}, which the repository lacks"


def test_readme_has_the_two_commands_first():
    language, first = blocks(README)[0]
    assert language == "sh" and "make demo" in first and "make test" in first


def test_cli_tour_runs(workdir):
    for n, (_, code) in enumerate(blocks(README, "sh")[1:], start=2):
        run_block("sh", code, workdir, f"README sh block {n}")


def test_python_tour_runs(workdir):
    claims = 0
    for n, (_, code) in enumerate(blocks(README, "python"), start=1):
        lines = run_block("python", code, workdir, f"README python block {n}").splitlines()
        for claim in printed_claims(code):
            assert claim in lines, f"README python block {n} says a line prints {claim!r}; it printed:\n" + "\n".join(
                lines
            )
            claims += 1
    assert claims >= 2
