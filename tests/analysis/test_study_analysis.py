"""Analysing a study export end to end, and the `tealeaves analyze` command."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from tealeaves.analysis import analyze_export, write_study_analysis
from tealeaves.cli import app
from tealeaves.errors import InputError

runner = CliRunner()


@pytest.fixture
def metrics_csv(tmp_path):
    rows = [
        {"model": m, "topic": t, "npmi": (0.2 if m == "good" else 0.05) + 0.01 * t, "noise": (t * 7) % 5}
        for m in ("good", "bad")
        for t in range(6)
    ]
    path = tmp_path / "metrics.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_analyze_export_tables(export_csv, metrics_csv):
    result = analyze_export(export_csv, metrics=metrics_csv, n_resamples=200)
    models = result.models.set_index(["task", "model"])["mean"]
    assert models[("word-intrusion", "good")] > models[("word-intrusion", "bad")]
    assert set(result.agreement["task"]) == {"word-intrusion", "rating"}
    tests = result.comparisons.set_index(["task", "model_a", "model_b"])
    scores = result.scores[result.scores["task"] == "rating"].groupby("model")["score"]
    good, bad = scores.get_group("good"), scores.get_group("bad")
    assert tests.loc[("rating", "bad", "good"), "pvalue"] == pytest.approx(
        stats.ttest_ind(bad, good, equal_var=False).pvalue
    )  # the topic is the unit: Welch on the per-topic mean ratings
    assert tests.loc[("rating", "bad", "good"), "difference"] == pytest.approx(bad.mean() - good.mean())
    assert tests.loc[("rating", "bad", "good"), "better"] == "good"
    assert tests.loc[("rating", "bad", "good"), "verdict"].startswith("good better than bad (Holm p =")
    assert result.pooled_comparisons.empty
    correlations = result.correlations.set_index(["task", "metric"])
    assert correlations.loc[("rating", "npmi"), "spearman"] > correlations.loc[("rating", "noise"), "spearman"]
    assert set(result.regressions["kind"]) == {"logistic", "ordered-probit"}
    assert result.settings["excluded_annotators"] == 1


def test_pooled_tests_are_hoyles_and_labelled(export_csv):
    result = analyze_export(export_csv, pooled_tests=True, comparison="cluster-bootstrap", n_resamples=200)
    pooled = result.pooled_comparisons.set_index(["task", "model_a", "model_b"])
    assert pooled.loc[("word-intrusion", "good", "bad"), "test"] == "two-proportion z"
    assert pooled["note"].str.contains("for replication only").all()
    assert set(result.comparisons["test"]) == {"two-way cluster bootstrap (topics x annotators)"}
    with pytest.raises(InputError, match="comparison must be one of"):
        analyze_export(export_csv, comparison="answers")


def test_write_study_analysis_is_atomic(tmp_path, export_csv):
    out = write_study_analysis(analyze_export(export_csv, n_resamples=50), tmp_path / "out")
    assert {"scores.csv", "models.csv", "agreement.csv", "comparisons.csv", "manifest.json"} <= {
        p.name for p in out.iterdir()
    }
    assert (out / "figures" / "models.svg").is_file() and (out / "figures" / "models.png").is_file()
    assert json.loads((out / "manifest.json").read_text())["kind"] == "analysis-study"
    with pytest.raises(Exception, match="force=True"):
        write_study_analysis(analyze_export(export_csv, n_resamples=50), out)


def test_cli_analyze_export(tmp_path, export_csv, metrics_csv):
    out = tmp_path / "analysis"
    result = runner.invoke(
        app, ["analyze", str(export_csv), "--out", str(out), "--metrics", str(metrics_csv), "--n-resamples", "50"]
    )
    assert result.exit_code == 0, result.output
    assert "word-intrusion good" in result.stdout and "good better than bad" in result.stdout
    assert "no difference" not in result.stdout
    assert (out / "correlations.csv").is_file() and (out / "regressions.csv").is_file()


def test_cli_analyze_takes_the_old_name_of_n_resamples_with_a_warning(tmp_path, export_csv):
    new = runner.invoke(
        app, ["analyze", str(export_csv), "--json", "--out", str(tmp_path / "a"), "--n-resamples", "50"]
    )
    old = runner.invoke(app, ["analyze", str(export_csv), "--json", "--out", str(tmp_path / "b"), "--bootstrap", "50"])
    assert old.exit_code == new.exit_code == 0, old.output
    assert "--bootstrap is deprecated; use --n-resamples" in old.stderr and "deprecated" not in new.stderr
    assert json.loads(old.stdout)["comparisons"] == json.loads(new.stdout)["comparisons"]
    assert json.loads(old.stdout)["settings"]["n_resamples"] == 50
    both = runner.invoke(
        app, ["analyze", str(export_csv), "--out", str(tmp_path / "c"), "--bootstrap", "5", "--n-resamples", "5"]
    )
    assert both.exit_code == 2 and "give --n-resamples only" in both.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "OUT"], "either a study export or --hoyle2021"),
        (["missing.csv", "--out", "OUT"], "does not exist"),
        (["EXPORT", "--out", "OUT", "--n-resamples", "0"], "analyze needs --n-resamples >= 1, got 0"),
        (["EXPORT", "--out", "OUT", "--metrics", "EXPORT"], "must be numeric"),
    ],
)
def test_cli_analyze_refuses_bad_input(tmp_path, export_csv, args, message):
    out = tmp_path / "o"
    args = [str(export_csv) if a == "EXPORT" else str(out) if a == "OUT" else a for a in args]
    result = runner.invoke(app, ["analyze", *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and result.stderr.strip().count("\n") == 0
    assert not out.exists()


def test_cli_hoyle2021(tmp_path, shared_data):
    out = tmp_path / "hoyle"
    result = runner.invoke(
        app,
        [
            "analyze",
            "--hoyle2021",
            str(shared_data / "human" / "hoyle2021"),
            "--out",
            str(out),
            "--n-resamples",
            "50",
            "--fdr-iterations",
            "200",
        ],
    )
    assert result.exit_code == 0, result.output
    keys = ["task", "dataset", "metric", "reference"]
    expected = {
        "correlations.csv": [*keys, "spearman", "ci_low", "ci_high"],
        "regressions.csv": [*keys, "coef", "ci_low", "ci_high"],
        "fdr.csv": [*keys, "fdr", "for"],
    }
    for name, columns in expected.items():
        table = pd.read_csv(out / name)
        assert table.columns[: len(columns)].tolist() == columns
        assert set(table["task"]) == {"Intrusion", "Rating"} and set(table["dataset"]) == {
            "NYT",
            "WIKI",
            "Concatenated",
        }
        assert set(table["metric"]) == {"NPMI", "Cv"} and set(table["reference"]) == {"NYT", "WIKI", "Train", "Val"}
    assert (out / "agreement.csv").is_file() and (out / "power.csv").is_file()
    assert (out / "figures" / "correlations.svg").is_file()


def test_metrics_file_errors(tmp_path, export_csv):
    bad = tmp_path / "m.csv"
    pd.DataFrame({"model": ["x"], "topic": [0]}).to_csv(bad, index=False)
    with pytest.raises(InputError, match="no metric column"):
        analyze_export(export_csv, metrics=bad)
