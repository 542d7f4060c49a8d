"""The command line: prepare, info, train, topics, demo; bad input exits 2 and writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.corpus import Corpus
from tealeaves.errors import ArtifactError
from tealeaves.models import TopicModel

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def docs(tmp_path):
    rng = np.random.default_rng(0)
    groups = [[f"fruit{i}x" for i in range(12)], [f"metal{i}x" for i in range(12)]]
    lines = []
    for d in range(80):
        words = groups[d % 2]
        lines.append(json.dumps({"id": f"d{d}", "text": " ".join(rng.choice(words, size=40))}))
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def assert_refused(result, message):
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert result.stderr.strip().count("\n") == 0  # one line


def test_prepare_info_train_topics(docs, tmp_path):
    out = tmp_path / "corpus"
    result = invoke("prepare", docs, "--out", out, "--heldout", "0.25", "--min-df", "2")
    assert result.exit_code == 0, result.output
    train = Corpus.load(out / "train")
    assert len(train) == 60 and len(Corpus.load(out / "heldout")) == 20

    result = invoke("info", out / "train")
    assert result.exit_code == 0 and "n_docs" in result.stdout and "stopwords" in result.stdout
    manifest = json.loads(invoke("info", out / "train", "--json").stdout)
    assert manifest["kind"] == "corpus" and manifest["preprocessing"]["config"]["min_df"] == 2

    result = invoke("train", out / "train", "--out", tmp_path / "m", "-k", "2", "--iterations", "50", "-p", "beta=0.05")
    assert result.exit_code == 0, result.output
    model = TopicModel.load(tmp_path / "m")
    assert model.params["beta"] == 0.05 and model.params["iterations"] == 50
    result = invoke("topics", tmp_path / "m", "-n", "3")
    assert result.exit_code == 0
    for words in model.top_words(3):
        assert " ".join(words) in result.stdout
    prefixes = [frozenset(w[:5] for w in words) for words in model.top_words(10)]
    assert sorted(prefixes, key=sorted) == [frozenset({"fruit"}), frozenset({"metal"})]


def test_missing_input_exits_2_and_writes_nothing(tmp_path):
    result = invoke("prepare", tmp_path / "missing.jsonl", "--out", tmp_path / "out")
    assert_refused(result, "does not exist")
    assert not (tmp_path / "out").exists()


def test_existing_output_is_refused_unless_forced(docs, tmp_path):
    (tmp_path / "out").mkdir()
    assert_refused(invoke("prepare", docs, "--out", tmp_path / "out"), "--force")
    assert list((tmp_path / "out").iterdir()) == []
    assert invoke("prepare", docs, "--out", tmp_path / "out", "--force").exit_code == 0
    assert Corpus.load(tmp_path / "out").n_tokens > 0


def test_missing_field_exits_2(docs, tmp_path):
    assert_refused(invoke("prepare", docs, "--out", tmp_path / "o", "--text-field", "body"), "no field 'body'")
    assert not (tmp_path / "o").exists()


def test_empty_input_exits_2(tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    assert_refused(invoke("prepare", tmp_path / "empty.jsonl", "--out", tmp_path / "o"), "no documents")
    assert not (tmp_path / "o").exists()


def test_nothing_left_after_filtering_exits_2(tmp_path):
    (tmp_path / "d.txt").write_text("the and of it is " * 10 + "\n")
    assert_refused(invoke("prepare", tmp_path / "d.txt", "--out", tmp_path / "o"), "no word type is left")
    assert not (tmp_path / "o").exists()


def test_non_utf8_input_is_refused_or_decoded_as_asked(tmp_path):
    folder = tmp_path / "texts"
    folder.mkdir()
    body = " ".join(f"word{i}x" for i in range(30))
    (folder / "a.txt").write_bytes((body + " caf\xe9").encode("latin-1"))
    (folder / "b.txt").write_text(body)
    args = ["prepare", folder, "--out", tmp_path / "o", "--min-df", "1", "--max-df", "1.0"]
    assert_refused(
        invoke(*args), "a.txt, line 1, column 234: byte 0xe9 is not valid utf-8; read it with --encoding latin-1"
    )
    assert not (tmp_path / "o").exists()
    result = invoke(*args, "--encoding", "utf-8:replace")
    assert result.exit_code == 0, result.output
    assert Corpus.load(tmp_path / "o").manifest["preprocessing"]["read"]["decode_errors"] == 1
    result = invoke(*args, "--encoding", "latin-1", "--force")
    assert result.exit_code == 0, result.output
    corpus = Corpus.load(tmp_path / "o")
    assert corpus.manifest["preprocessing"]["read"]["decode_errors"] == 0 and "café" in corpus.vocab


def test_bad_values_exit_2(docs, tmp_path):
    assert_refused(invoke("prepare", docs, "--out", tmp_path / "o", "--max-df", "lots"), "--max-df must be a number")
    invoke("prepare", docs, "--out", tmp_path / "c")
    assert_refused(invoke("train", tmp_path / "c", "--out", tmp_path / "m", "-p", "gamma=1"), "no parameter gamma")
    assert_refused(invoke("train", tmp_path / "c", "--out", tmp_path / "m", "-m", "nope"), "unknown model")
    assert_refused(invoke("train", tmp_path / "c", "--out", tmp_path / "m", "-p", "oops"), "NAME=VALUE")
    # a typo'd k: refused before its matrices are allocated, not killed by the system for memory
    refused = invoke("train", tmp_path / "c", "--out", tmp_path / "m", "-k", "10000000000")
    assert_refused(refused, "GB of memory for its topic matrices")
    assert "use fewer topics (--k <fewer>), or a smaller vocabulary (--min-df <a larger count>" in refused.stderr
    invoke("prepare", docs, "--out", tmp_path / "s", "--heldout", "0.25")
    invoke("train", tmp_path / "s" / "train", "--out", tmp_path / "small", "-k", "2", "--iterations", "5")
    # an array larger than the machine (runs x documents): one line, not numpy's traceback
    result = invoke("likelihood", tmp_path / "small", tmp_path / "s" / "heldout", "--runs", "10000000000000")
    assert_refused(result, "out of memory (Unable to allocate")
    assert_refused(invoke("topics", tmp_path / "c"), "not a 'topic-model'")
    assert_refused(invoke("info", tmp_path / "nothing"), "does not exist")
    assert not (tmp_path / "m").exists()


def test_trainers_lists_each_trainers_hyperparameters_with_what_train_accepts(docs, tmp_path):
    from tealeaves.models import TRAINERS, trainer_params

    listing = json.loads(invoke("trainers", "--json").stdout)
    assert list(listing) == list(TRAINERS) and listing["dvae"]["extra"] == "neural"
    params = json.loads(invoke("trainers", "lda-vb", "--json").stdout)
    assert {name: row["default"] for name, row in params.items()} == trainer_params("lda-vb")
    assert params["kappa"]["accepts"].startswith("0.5 < kappa <= 1 (Hoffman et al. 2010")
    assert params["method"]["accepts"] == "method in {batch, online}"
    assert params["learn_alpha"]["accepts"] == "true or false"
    assert "iterations >= 1 (a whole number)" in invoke("trainers", "lda-gibbs").stdout
    assert "Dirichlet VAE" in invoke("trainers").stdout
    assert "--k: k >= 2 (a whole number;" in invoke("trainers", "ctm").stdout
    assert_refused(invoke("trainers", "lda-vbb"), "did you mean 'lda-vb'")
    # what it lists is what train refuses, before the corpus is read
    assert_refused(
        invoke("train", tmp_path / "absent", "--out", tmp_path / "m", "-m", "lda-vb", "-p", "kappa=0.5"),
        "lda-vb needs 0.5 < kappa <= 1 (Hoffman et al. 2010's condition",
    )
    # a text-valued hyperparameter keeps what was written: -p checkpoint=2024 was the number 2024
    refused = invoke("train", tmp_path / "absent", "--out", tmp_path / "m", "-m", "dvae", "-p", "checkpoint=2024")
    assert_refused(refused, "dvae needs checkpoint in {npmi, last} (the epoch of the best NPMI")
    assert "got '2024'" in refused.stderr
    assert not (tmp_path / "m").exists()


def test_a_full_disk_is_one_line_and_leaves_nothing(docs, tmp_path):
    """Writing past what the disk holds (here a file-size limit, ``ulimit -f``, which fails writes as a full disk
    does): one error line naming the folder, the reason and the space left, exit 2, and no folder, half-written
    or temporary, where the model was to go; before, numpy's OSError came out as a traceback with status 1."""
    import resource

    invoke("prepare", docs, "--out", tmp_path / "c")

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (400_000, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    command = [
        sys.executable,
        "-m",
        "tealeaves.cli",
        "train",
        tmp_path / "c",
        "--out",
        tmp_path / "out" / "m",
        "-k",
        "1000",
    ]
    command += ["--iterations", "5"]  # θ, 80 x 1,000 float64 (640 kB), is past the limit; numba's caches are not
    done = subprocess.run(command, capture_output=True, text=True, preexec_fn=limit_file_size, timeout=300)
    assert done.returncode == 2, done.stderr
    error = done.stderr.strip().splitlines()[-1]  # after the progress bar
    assert error.startswith(f"error: could not write {tmp_path / 'out' / 'm'} ("), done.stderr
    assert error.endswith("free there: free some space or write elsewhere") and "Traceback" not in done.stderr
    assert list((tmp_path / "out").iterdir()) == []


def test_an_output_that_is_or_holds_an_input_is_refused_even_with_force(docs, tmp_path):
    """--out naming the input (or a folder above it) with --force would replace what the command reads:
    prepare, train, index, import, validate, study create and analyze refuse it in one line, and the input is still there, whole; in Python
    train refuses a loaded corpus' own folder. Before, train --out CORPUS --force replaced the corpus with
    the model."""
    from tealeaves.models import train

    invoke("prepare", docs, "--out", tmp_path / "c", "--heldout", "0.25")
    before = Corpus.load(tmp_path / "c" / "train").fingerprint()
    topics = tmp_path / "topics.txt"
    topics.write_text("fruit1x fruit2x\nmetal1x metal2x\n")
    cases = [
        (["prepare", docs, "--out", docs], f"output {docs} is the input {docs}"),
        (["prepare", docs, "--out", tmp_path], f"output {tmp_path} holds the input {docs}"),
        (["train", tmp_path / "c" / "train", "-k", "2", "--out", tmp_path / "c" / "train"], "is the input"),
        (["train", tmp_path / "c" / "train", "-k", "2", "--out", tmp_path / "c"], "holds the input"),
        (["index", tmp_path / "c" / "train", "--out", tmp_path / "c"], "holds the input"),
        (["import", "topics", topics, "--out", topics], "is the input"),
        (["validate", "--human", topics, "--out", tmp_path], "holds the input"),
        (["study", "create", topics, "--task", "rating", "--out", tmp_path], "holds the input"),
        (["analyze", topics, "--out", tmp_path], "holds the input"),
    ]
    for args, message in cases:
        assert_refused(invoke(*args, "--force"), message)
    assert Corpus.load(tmp_path / "c" / "train").fingerprint() == before and docs.is_file() and topics.is_file()
    with pytest.raises(ArtifactError, match="replacing the output would delete the input"):
        train(Corpus.load(tmp_path / "c" / "train"), "lda-gibbs", k=2, out=tmp_path / "c" / "train", force=True)


def test_usage_errors_exit_2(tmp_path):
    assert invoke("prepare").exit_code == 2
    assert invoke("train", tmp_path, "--out", tmp_path / "m", "-k", "many").exit_code == 2


def test_demo_writes_the_report_and_refuses_foreign_folders(tmp_path):
    out = tmp_path / "demo"
    result = invoke("demo", "--out", out, "--iterations", "20", "--seeds", "2", "-k", "5")
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().endswith(f"report: {out / 'report.html'}") and "NPMI" in result.stdout
    assert "2 trained runs (seeds) each as the units" in result.stdout and "(this run)" not in result.stdout
    assert (out / "report.html").is_file() and (out / "evaluation" / "per_model.parquet").is_file()
    model, second = TopicModel.load(out / "models" / "lda-gibbs"), TopicModel.load(out / "models" / "lda-gibbs-seed1")
    assert model.k == 5 and not np.array_equal(model.phi, second.phi)
    assert Corpus.load(out / "corpus" / "heldout").n_tokens > 0
    again = invoke("demo", "--out", out, "--iterations", "10", "--seeds", "1", "-k", "5", "--json")  # replaces it
    assert again.exit_code == 0 and json.loads(again.stdout)["report"] == str(out / "report.html")
    assert json.loads(again.stdout)["scope"].startswith("Each model is one trained run")
    assert_refused(invoke("demo", "--out", tmp_path), "not a tealeaves demo folder")


def test_console_script_is_installed():
    result = subprocess.run(
        [sys.executable, "-m", "tealeaves.cli", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and "prepare" in result.stdout


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        (["prepare"], ["[spacy]", "[auto]", "[lowercase]"]),
        (["train"], ["tealeaves[neural]"]),
        (["demo"], ["tealeaves[neural]"]),
        (["study", "create"], ["[a power analysis"]),
    ],
)
def test_help_prints_bracketed_text_as_written(command, shown):
    """Help texts are not rich markup: a default in brackets or an extra's name stays in the help."""
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    joined = "".join(result.output.replace("│", " ").split())  # the help is wrapped inside boxes
    for text in shown:
        assert "".join(text.split()) in joined, (command, text)


def test_every_command_is_loaded_by_its_group_alone():
    """The console script imports only the group of the command it runs: COMMAND_GROUPS must name, for
    every registered command, the module that registers it (and nothing else)."""
    from tealeaves.cli.common import COMMAND_GROUPS, load_groups

    root = load_groups()
    registered = {info.name or info.callback.__name__: info.callback.__module__ for info in root.registered_commands}
    registered |= {group.name: "tealeaves.cli.study" for group in root.registered_groups}
    assert {name: f"tealeaves.cli.{module}" for name, module in COMMAND_GROUPS.items()} == registered
    code = (
        "import sys\nfrom tealeaves.cli.common import load_groups\nload_groups('coherence')\n"
        "print(sorted(m for m in sys.modules if m.startswith('tealeaves.cli.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['tealeaves.cli.coherence', 'tealeaves.cli.common']"


@pytest.mark.parametrize(("command", "option"), [("demo", "--out"), ("intrusion", "--index"), ("validate", "--human")])
def test_a_group_of_one_command_still_runs_it_by_name(command, option):
    # alone in the app, a command must still be named: typer would take "validate" as its first argument
    done = subprocess.run([sys.executable, "-m", "tealeaves.cli", command, "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"tealeaves.cli {command} [OPTIONS]" in done.stdout and option in done.stdout


def test_a_command_that_meets_another_librarys_warning_shows_it_once_and_returns(capsys):
    """reports_errors shows a warning that is not tealeaves' as Python would, after the command's
    recording ends: shown inside it, the warning joined the list being read, a loop without end."""
    import warnings

    from tealeaves.cli.common import reports_errors
    from tealeaves.coherence.redundancy import TopNCappedWarning

    @reports_errors
    def command() -> int:
        warnings.warn("an old numpy name", DeprecationWarning, stacklevel=1)
        warnings.warn("fewer top words are used", TopNCappedWarning, stacklevel=1)
        return 7

    with pytest.warns(DeprecationWarning, match="an old numpy name") as shown:
        assert command() == 7
    assert [str(w.message) for w in shown] == ["an old numpy name"]
    assert "warning: fewer top words are used" in capsys.readouterr().err
