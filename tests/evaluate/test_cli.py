"""The evaluate and report commands: a TOML configuration to tables and a page; bad input exits 2."""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from tealeaves.cli import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def write_config(planted, path, *extra, models=(("lda", 'path = "lda"'), ("random", 'path = "random.txt"'))):
    lines = [
        "seed = 0",
        "n_resamples = 200",
        "[corpora]",
        'heldout = "heldout"',
        "[metrics]",
        "likelihood = false",
        "predictive = false",
        "wi-auto = false",
        *extra,
        *(line for name, source in models for line in ("[[models]]", f'name = "{name}"', source)),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_evaluate_then_report(planted, tmp_path):
    config = write_config(planted, planted / "cli.toml")  # relative paths resolve against the file's folder
    result = invoke("evaluate", config, "--out", tmp_path / "run", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    per_model = pd.read_parquet(tmp_path / "run" / "per_model.parquet")
    assert [r["mean"] for r in data["per_model"]] == per_model["mean"].tolist()
    assert "lda (this run) better than random (this run) by " in data["verdicts"]["npmi"]
    assert data["verdicts"]["npmi"].endswith("not the algorithms: give several runs per model.")
    assert data["steps"] == {"computed": 6, "cached": 0}
    table = invoke("evaluate", config, "--out", tmp_path / "run")
    assert table.exit_code == 0 and "0 steps computed, 6 from the cache" in table.stdout
    assert "lda (this run) better than random (this run) by " in table.stdout
    assert "one run each: a verdict about these trained models" in " ".join(table.stdout.split())  # its title
    assert "no difference" not in table.stdout.lower()
    page = invoke("report", tmp_path / "run", "--out", tmp_path / "report.html", "--json")
    assert page.exit_code == 0 and json.loads(page.stdout) == {"report": str(tmp_path / "report.html")}
    page = (tmp_path / "report.html").read_text()
    assert "lda (this run) better than random (this run) by " in page
    assert "Bold and marks: one run each: a verdict about these trained models, not the algorithms" in page


def test_model_options_give_several_runs_per_model(planted, tmp_path):
    """--model NAME=PATH replaces the configuration's models; a name given twice: its runs, the units."""
    config = write_config(planted, planted / "runs.toml")
    lda, random = planted / "lda", planted / "random.txt"
    options = [
        "-m",
        f"lda={lda}",
        "-m",
        f"lda={planted / 'lda2'}",
        "-m",
        f"random={random}",
        "-m",
        f"random={planted / 'random2.txt'}",
    ]
    result = invoke("evaluate", config, "--out", tmp_path / "run", *options, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["scope"].startswith("Each model is 2 trained runs")
    assert {r["test"] for r in data["comparisons"]} == {"mixed-model t over runs"}
    assert "(this run)" not in " ".join(data["verdicts"].values())
    assert invoke("evaluate", config, "--out", tmp_path / "bad", "-m", "lda").exit_code == 2


def test_bad_input_exits_2(planted, tmp_path):
    bad = write_config(planted, planted / "bad.toml", "npmi = 3")
    result = invoke("evaluate", bad, "--out", tmp_path / "run")
    assert result.exit_code == 2 and "must be true, false or a table" in result.output
    (tmp_path / "broken.toml").write_text("models = [")
    assert invoke("evaluate", tmp_path / "broken.toml", "--out", tmp_path / "run").exit_code == 2
    assert invoke("report", tmp_path / "nowhere", "--out", tmp_path / "r.html").exit_code == 2
    assert not (tmp_path / "r.html").exists()
    folder = invoke("evaluate", planted, "--out", tmp_path / "run")  # the folder, not its configuration
    assert folder.exit_code == 2 and "is a folder; pass the evaluation's configuration, a TOML file" in folder.output
    model = invoke("report", planted / "lda", "--out", tmp_path / "r.html")
    assert model.exit_code == 2 and "not an 'evaluation'; pass an evaluation folder" in model.output
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "run").exists()


def test_several_runs_per_model_print_the_models_and_their_scope(planted, tmp_path):
    runs = (("lda", 'runs = ["lda", "lda2"]'), ("random", 'runs = ["random.txt", "random2.txt"]'))
    config = write_config(planted, planted / "runs.toml", models=runs)
    result = invoke("evaluate", config, "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    assert "Each model is 2 trained runs" in result.stdout and "lda better than random by " in result.stdout
    assert "(this run)" not in result.stdout and "one run each" not in result.stdout
    header = next(line for line in result.stdout.splitlines() if "metric" in line and "lda" in line)
    assert "lda/1" not in header and "random" in header  # the summary shows the models, not their runs


def test_a_typo_in_the_configuration_is_refused_whole_before_any_step(planted, tmp_path):
    """``windw = 10`` (and every other unknown key) is named with the closest known one, exit 2, nothing written."""
    typo = write_config(planted, planted / "typo.toml", "npmi = { windw = 10 }", "cv = { topm = 5 }")
    result = invoke("evaluate", typo, "--out", tmp_path / "run")
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith("error: 2 problems: [metrics] npmi has unknown option windw")
    assert "windw (did you mean window?); its options: compat, conventions, encoder, on_missing, topn, window" in line
    assert "[metrics] cv has unknown option topm (did you mean topn?)" in line
    assert not (tmp_path / "run").exists()
    (planted / "model-typo.toml").write_text('seed = 0\n[[models]]\nname = "lda"\npth = "lda"\n')
    result = invoke("evaluate", planted / "model-typo.toml", "--out", tmp_path / "run")
    assert result.exit_code == 2 and "[[models]] #1 has unknown key pth (did you mean path?)" in result.stderr
    assert not (tmp_path / "run").exists()
