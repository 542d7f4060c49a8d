"""evaluate with a study export: human scores as metrics, the study's own tests, correlations, the report's panels."""

from __future__ import annotations

import pytest

import tealeaves
from tealeaves.analysis import analyze_export
from tealeaves.errors import InputError
from tests.analysis.conftest import make_export

from .conftest import config


@pytest.fixture(scope="module")
def human_run(planted, tmp_path_factory):
    root = tmp_path_factory.mktemp("human")
    export = root / "export.csv"
    make_export(seed=0).to_csv(export, index=False)  # models "good" and "bad", topics 0-5
    models = [{"name": "good", "path": str(planted / "lda")}, {"name": "bad", "path": str(planted / "random.txt")}]
    cfg = {**config(planted), "models": models, "study": {"export": str(export)}}
    cfg["metrics"] = {"likelihood": False, "predictive": False}
    return tealeaves.evaluate(cfg, root / "run"), export


def test_human_scores_and_their_tests_are_the_study_analysis(human_run):
    run, export = human_run
    analysis = analyze_export(export)
    table = run.per_model.set_index(["model", "metric"])
    for row in analysis.models.itertuples():
        metric = {"word-intrusion": "model_precision", "rating": "mean_rating", "topic-intrusion": "topic_log_odds"}[
            row.task
        ]
        assert table.loc[(row.model, metric), "mean"] == pytest.approx(row.mean)
    wi = analysis.comparisons[analysis.comparisons.task == "word-intrusion"].set_index(["model_a", "model_b"])
    row = run.comparisons[run.comparisons.metric == "model_precision"].iloc[0]
    assert row.test == "two-proportion z"
    assert row.p_a_greater == pytest.approx(wi.loc[(row.model_a, row.model_b), "pvalue"])
    assert row.p_b_greater == pytest.approx(wi.loc[(row.model_b, row.model_a), "pvalue"])
    assert row.better == "good"


def test_correlations_with_every_per_topic_metric_and_the_report(human_run, tmp_path):
    run, _ = human_run
    word = run.correlations[run.correlations.task == "word-intrusion"]
    assert set(word.metric) == {"npmi", "cv", "topic_uniqueness", "wi_auto_pmi", "wi_auto_npmi"}
    assert (word.ci_low <= word.spearman).all() and (word.spearman <= word.ci_high).all()
    html = tealeaves.report(run, tmp_path / "report.html").read_text()
    assert "data-figure='human-npmi'" in html and "data-figure='distribution-model_precision'" in html
    assert "data-figure='distribution-topic_log_odds'" in html  # one value per document (Chang et al. Fig. 5)
    assert "data-figure='likelihood-" not in html  # no likelihood metric ran


def test_a_study_of_other_models_is_refused(planted, tmp_path, human_run):
    _, export = human_run
    cfg = {
        **config(planted, "lda"),
        "study": {"export": str(export)},
        "metrics": {"likelihood": False, "predictive": False},
    }
    with pytest.raises(InputError, match="names model"):
        tealeaves.evaluate(cfg, tmp_path / "run")
