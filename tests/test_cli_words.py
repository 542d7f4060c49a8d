"""Errors before work, in the words of the interface: the command line shows its flags where the API shows
arguments, a misspelt format or configuration key is named with the closest one, a file in another encoding is
refused with its line and the --encoding that reads it, and the getting-started recipe's defaults never fail."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.cli.coherence import coherence_command
from tealeaves.cli.common import in_cli_words
from tealeaves.cli.likelihood import likelihood_command
from tealeaves.cli.models import import_, train

runner = CliRunner()
FRUIT = ["apple", "banana", "cherry", "grape", "melon", "peach", "pear", "plum", "lime", "kiwi", "fig", "date"]


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def refused(result, *parts: str) -> str:
    """Exit status 2 and one line holding every part; returns the line."""
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line, result.stderr
    for part in parts:
        assert part in line, line
    return line


@pytest.fixture
def reference(tmp_path):
    """A tokenized reference corpus (one document a line), indexed."""
    rng = np.random.default_rng(0)
    lines = [" ".join(rng.choice(FRUIT, size=15)) for _ in range(30)]
    (tmp_path / "texts.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert invoke("prepare", tmp_path / "texts.txt", "--format", "tokenized", "--out", tmp_path / "ref").exit_code == 0
    assert invoke("index", tmp_path / "ref", "--out", tmp_path / "index").exit_code == 0
    return tmp_path


# --------------------------------------------------------------------------- hints as flags
def test_argument_hints_become_the_commands_flags():
    hint = 'pass on_missing="skip" or on_missing="zero", or conventions={"epsilon": 1e-12, "smoothing": 1}'
    assert (
        in_cli_words(hint, coherence_command)
        == "pass --on-missing skip or --on-missing zero, or --epsilon 1e-12 --smoothing 1"
    )
    # another command's flag (prepare's --vocab-from), placeholders kept, flags for True and False, None left out
    assert (
        in_cli_words("with vocab_from=<the training corpus>", coherence_command)
        == "with --vocab-from <the training corpus>"
    )
    assert in_cli_words("pass force=True or force=False", train) == "pass --force or --no-force"
    assert in_cli_words("pass compat=None", coherence_command) == "pass no --compat"
    assert in_cli_words('read it with encoding="utf-8:replace"', import_) == "read it with --encoding utf-8:replace"
    assert in_cli_words('pass device="my gpu"', train) == "pass --device 'my gpu'"  # quoted for the shell
    # the likelihood command spells on_missing="skip" as its own flag (cli_alias)
    aliases = likelihood_command.cli_aliases
    assert in_cli_words('pass on_missing="skip" to drop them', likelihood_command, aliases) == (
        "pass --skip-oov to drop them"
    )
    # names no command has, and -p NAME=VALUE forms, are left as they are
    assert in_cli_words("got kappa=0.3 and rho=2; -p NAME=VALUE", train) == "got kappa=0.3 and rho=2; -p NAME=VALUE"
    assert in_cli_words("see https://example.org/?k=3", train) == "see https://example.org/?k=3"


def test_a_coherence_error_names_flags_not_python(reference):
    (reference / "topics.txt").write_text("apple banana zebra\n")
    line = refused(invoke("coherence", reference / "topics.txt", "--index", reference / "index"), "'zebra'")
    assert "--vocab-from <the training corpus>, or pass --on-missing skip or --on-missing zero" in line
    assert "on_missing" not in line and "vocab_from" not in line


def test_the_api_keeps_argument_hints(reference):
    from tealeaves.coherence import score
    from tealeaves.errors import InputError

    with pytest.raises(
        InputError, match='vocab_from=<the training corpus>, or pass on_missing="skip" or on_missing="zero"'
    ):
        score([["apple", "banana", "zebra"]], reference / "index")


# --------------------------------------------------------------------------- names checked first
def test_a_misspelt_format_is_named_before_any_extra(tmp_path, monkeypatch):
    import sys

    (tmp_path / "texts.txt").write_text("apple banana\n")
    monkeypatch.setitem(sys.modules, "spacy", None)  # the core install: no spaCy
    line = refused(
        invoke("prepare", tmp_path / "texts.txt", "--format", "tokenised", "--out", tmp_path / "out"),
        "unknown format 'tokenised'; did you mean 'tokenized'? choose one of txt-folder, lines, tokenized",
    )
    assert "spacy" not in line.lower() and not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- encodings
def test_a_latin_1_file_is_refused_with_its_line_and_read_with_encoding(tmp_path):
    (tmp_path / "ref.txt").write_bytes("apple banana\ncafé apple banana\n".encode("latin-1"))
    refused(
        invoke("prepare", tmp_path / "ref.txt", "--format", "tokenized", "--out", tmp_path / "ref"),
        "ref.txt, line 2, column 4: byte 0xe9 is not valid utf-8; read it with --encoding latin-1",
        "--encoding utf-8:replace",
    )
    assert not (tmp_path / "ref").exists()
    args = [
        "prepare",
        tmp_path / "ref.txt",
        "--format",
        "tokenized",
        "--out",
        tmp_path / "ref",
        "--encoding",
        "latin-1",
    ]
    assert invoke(*args).exit_code == 0
    from tealeaves.corpus import Corpus

    assert "café" in Corpus.load(tmp_path / "ref").vocab
    assert invoke("index", tmp_path / "ref", "--out", tmp_path / "index").exit_code == 0
    (tmp_path / "topics.txt").write_bytes("café apple banana\n".encode("latin-1"))
    refused(
        invoke("coherence", tmp_path / "topics.txt", "--index", tmp_path / "index"),
        "topics.txt, line 1",
        "--encoding latin-1",
    )
    result = invoke("coherence", tmp_path / "topics.txt", "--index", tmp_path / "index", "--encoding", "latin-1")
    assert result.exit_code == 0 and "café apple banana" in result.stdout
    refused(invoke("diversity", tmp_path / "topics.txt"), "--encoding latin-1")
    refused(invoke("import", "topics", tmp_path / "topics.txt", "--out", tmp_path / "t"), "--encoding latin-1")
    assert (
        invoke("import", "topics", tmp_path / "topics.txt", "--out", tmp_path / "t", "--encoding", "latin-1").exit_code
        == 0
    )
    refused(
        invoke("prepare", tmp_path / "ref.txt", "--out", tmp_path / "x", "--encoding", "klingon"),
        "unknown encoding 'klingon'",
    )


# --------------------------------------------------------------------------- the getting-started recipe
def test_diversity_of_a_ten_word_topic_file_caps_its_defaults(reference):
    (reference / "topics.txt").write_text(" ".join(FRUIT[:10]) + "\n" + " ".join(FRUIT[2:12]) + "\n")
    result = invoke("diversity", reference / "topics.txt")
    assert result.exit_code == 0, result.output
    assert "topic diversity (top 10)" in result.stdout and "topic uniqueness (top 10)" in result.stdout
    assert (
        "warning: the shortest topic has 10 words, so fewer top words are used: topic diversity over the top 10 (not 25)"
        in result.stderr
    )
    assert "--diversity-topn <N>" in result.stderr
    result = invoke("diversity", reference / "topics.txt", "--diversity-topn", "25")  # asked for: required
    refused(result, "topic 0 has only 10 words, fewer than the 25 asked for")


def test_the_coherence_header_says_which_top_words_were_scored(reference):
    (reference / "topics.txt").write_text("apple banana cherry\ngrape melon peach\n")
    result = invoke("coherence", reference / "topics.txt", "--index", reference / "index")
    assert result.exit_code == 0, result.output
    assert "npmi, sliding:10, top 3:" in result.stdout and "None" not in result.stdout
    (reference / "uneven.txt").write_text("apple banana cherry\ngrape melon\n")
    assert "all 2-3 words" in invoke("coherence", reference / "uneven.txt", "--index", reference / "index").stdout
    result = invoke("coherence", reference / "topics.txt", "--index", reference / "index", "-n", "2", "-n", "3")
    assert "top 2/3:" in result.stdout
