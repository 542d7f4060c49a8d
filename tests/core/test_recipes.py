"""Every documented recipe that needs only the core runs as written on a core install (``make test-core``).

The blocks marked ``% recipe: core`` in Getting started and the user guide run in order, in one
folder, as a reader would run them: the getting-started recipe on the files it names (tokenized
texts, a topic list of ten words a topic), the guides' recipes on core-made stand-ins of the
corpus and models that earlier pages make with extras (``tests/markdown_blocks.py``).
"""

from __future__ import annotations

import pytest

from tests.markdown_blocks import DOCS, core_recipes, core_stand_ins, guide_pages, recipe_inputs, run_block

pytestmark = pytest.mark.core


def test_the_documented_core_recipes_run_as_written(tmp_path):
    recipe_inputs(tmp_path)
    core_stand_ins(tmp_path)
    ran = []
    for page in guide_pages():
        for n, code in enumerate(core_recipes(page), start=1):
            output = run_block("sh", code, tmp_path, f"{page.relative_to(DOCS)} core recipe {n}")
            ran.append((page.name, output))
    assert [name for name, _ in ran][:1] == ["getting-started.md"] and len(ran) >= 5
    # the getting-started recipe: NPMI of the ten-word topics, diversity over the ten words they hold
    getting_started = ran[0][1]
    assert "topic diversity (top 10)" in getting_started and (tmp_path / "npmi.csv").is_file()
