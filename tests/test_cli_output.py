"""What the commands print: ``--json`` gives one parseable document equal to the API's result,
and piped output keeps each table row on one line, however wide."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.coherence import RefIndex, diversity, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.likelihood import estimate
from tealeaves.models import TopicModel

runner = CliRunner()
WORDS = [f"{stem}{i}" for stem in ("orchard", "foundry") for i in range(15)]


def json_of(*args):
    result = runner.invoke(app, [str(a) for a in args] + ["--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("output")
    rng = np.random.default_rng(7)
    docs = [rng.choice(range(15) if d % 2 else range(15, 30), size=40) for d in range(60)]
    Corpus.from_documents(docs[:40], Vocabulary(WORDS)).save(root / "train")
    Corpus.from_documents(docs[40:], Vocabulary(WORDS)).save(root / "heldout")
    RefIndex.build(root / "train", out=root / "index")
    lines = [json.dumps({"id": f"d{i}", "text": " ".join(WORDS[t] for t in doc)}) for i, doc in enumerate(docs)]
    (root / "docs.jsonl").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="module")
def model(folders):
    result = runner.invoke(
        app, ["train", str(folders / "train"), "--out", str(folders / "model"), "-k", "2", "--iterations", "30"]
    )
    assert result.exit_code == 0, result.output
    return TopicModel.load(folders / "model")


def test_prepare_and_info_json(folders, tmp_path):
    printed = json_of("prepare", folders / "docs.jsonl", "--out", tmp_path / "c", "--heldout", "0.25", "--min-df", "2")
    assert printed["train"] == Corpus.load(tmp_path / "c" / "train").stats()
    assert printed["heldout"]["n_docs"] == 15
    assert json_of("info", tmp_path / "c" / "train")["kind"] == "corpus"


def test_train_and_topics_json(folders, model, tmp_path):
    printed = json_of("train", folders / "train", "--out", tmp_path / "m", "-k", "2", "--iterations", "30")
    assert printed["k"] == 2 and printed["topics"] == TopicModel.load(tmp_path / "m").top_words(10)
    printed = json_of("topics", folders / "model", "-n", "4")
    assert printed["topics"] == model.top_words(4) and printed["alpha"] == pytest.approx(model.alpha.tolist())


def test_likelihood_json_equals_the_api(folders, model):
    printed = json_of("likelihood", folders / "model", folders / "heldout", "-p", "particles=5")
    expected = estimate(model, None, Corpus.load(folders / "heldout"), method="left-to-right", particles=5, seed=0)
    summary = json.loads(json.dumps(expected.summary()))
    assert printed.pop("seconds") > 0 and summary.pop("seconds") > 0  # the only field that may differ
    assert printed == summary


def test_coherence_and_diversity_json_equal_the_api(folders, model):
    printed = json_of("coherence", folders / "model", "--index", folders / "index", "-m", "npmi")
    expected = score(model, RefIndex.load(folders / "index"), measure="npmi")
    assert printed["per_topic"] == pytest.approx(expected.per_topic.tolist())
    assert printed["measure"] == expected.measure
    printed = json_of("diversity", folders / "model")
    assert printed["topic_diversity"] == pytest.approx(diversity(model).topic_diversity)


def test_index_json(folders, tmp_path):
    printed = json_of("index", folders / "train", "--out", tmp_path / "idx")
    assert printed["index / token array"] == pytest.approx(
        RefIndex.load(tmp_path / "idx").manifest["size"]["ratio_to_token_array"]
    )


def test_piped_tables_are_not_wrapped(folders, model):
    # 30 words of 8-9 characters: about 270 columns, far wider than the 80 rich assumes without a terminal
    done = subprocess.run(
        [sys.executable, "-m", "tealeaves.cli", "topics", str(folders / "model"), "-n", "15"],
        capture_output=True,
        text=True,
        check=True,
    )
    for words in model.top_words(15):
        assert " ".join(words) in done.stdout


def test_piped_section_rules_keep_a_readable_width():
    # tables keep their natural width when piped; a section rule, which fills whatever width it
    # is given, stays at RULE_WIDTH columns instead of PIPE_WIDTH
    from tealeaves.console import RULE_WIDTH

    code = "from tealeaves.console import section\nsection('models')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    (line,) = done.stdout.splitlines()
    assert "models" in line and len(line) == RULE_WIDTH
