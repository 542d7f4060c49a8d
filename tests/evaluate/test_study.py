"""evaluate with a study export: human scores per topic as metrics tested like topic metrics, correlations, the report's panels."""

from __future__ import annotations

import pytest
from scipy import stats

import tealeaves
from tealeaves.analysis import analyze_export
from tealeaves.errors import InputError
from tealeaves.stats.family import tied_draws
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


def test_human_scores_are_tested_per_topic_like_any_topic_metric(human_run):
    """The study's scores per topic are the items: the printed value is their mean (topic-averaged)
    and the test of Welch's t on them (bootstrap-t, or the studentised permutation test where the shares sit
    at their ceiling of 1), the same estimand; answers within a topic are not independent units."""
    run, export = human_run
    analysis = analyze_export(export)
    table = run.per_model.set_index(["model", "metric"])
    metric_of = {"word-intrusion": "model_precision", "rating": "mean_rating", "topic-intrusion": "topic_log_odds"}
    for (task, model), part in analysis.scores.groupby(["task", "model"]):
        assert table.loc[(model, metric_of[task]), "mean"] == pytest.approx(part["score"].mean())
    scores = analysis.scores[analysis.scores.task == "word-intrusion"]
    row = run.comparisons[run.comparisons.metric == "model_precision"].iloc[0]
    a = scores[scores.model == row.model_a]["score"]
    b = scores[scores.model == row.model_b]["score"]
    tied = max(tied_draws(a.to_numpy()), tied_draws(b.to_numpy())) > 0.01
    assert row.test == ("studentised permutation" if tied else "bootstrap-t") and row.n == len(a) + len(b)
    welch = stats.ttest_ind(a, b, equal_var=False)
    assert row.se == pytest.approx(abs(row.difference / welch.statistic))  # Welch's estimate and standard error
    assert row.difference == pytest.approx(a.mean() - b.mean())
    assert row.margin == 0.05  # Hoyle et al.'s A.5.1 margin for word intrusion: an equivalence test too
    assert row.better == ("good" if row.p_report < 0.05 else "")
    assert "rated documents as units" in run.to_dict()["verdicts"]["topic_log_odds"]


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
