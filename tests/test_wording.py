"""tealeaves.wording: every surface's sentences, worded once (verdicts, scope, winners, labels, summary cells)."""

from __future__ import annotations

import math
import subprocess
import sys
from types import SimpleNamespace

from tealeaves import wording

NPMI = SimpleNamespace(label="NPMI", higher_is_better=True, unit="topic", plan="independent")
RANK = SimpleNamespace(label="predictive rank", higher_is_better=False, unit="document", plan="paired")
UNIQUE = SimpleNamespace(label="topic uniqueness", higher_is_better=True, unit="model", plan="jackknife")
FILTER = SimpleNamespace(label="redundant", higher_is_better=False, unit="model", plan=None)
ODDS = SimpleNamespace(label="topic log odds", higher_is_better=True, unit="document", plan="independent")


def row(metric, a, b, better="", **values):
    base = {"metric": metric, "model_a": a, "model_b": b, "better": better, "difference": 0.1, "ci_low": 0.05}
    return base | {"ci_high": 0.15, "p_holm": 0.2, "test": "Welch's t", "equivalent": False, "mdd": 0.2} | values


def test_pair_verdicts_say_who_is_better_or_what_the_test_could_find():
    assert wording.pair_verdict("a", "b", -0.3, 0.01, 0.2, 0.05) == "b better than a (Holm p = 0.01)"
    assert wording.pair_verdict("a", "b", 0.1, math.nan, 0.2, 0.05) == "untestable: no variation within either model"
    assert wording.pair_verdict("a", "b", 0.1, 0.3, 0.2, 0.1, 0.9) == (
        "not significant (Holm, level 0.1); a difference of 0.2 would be found with 90% power"
    )
    assert wording.pair_verdict("x", "y", 0.1, 0.3, 0.1234, 0.05, digits=".2f").endswith(
        "difference of 0.12 would be found with 80% power"
    )
    assert wording.pair_verdict("x", "y", 0.1, 0.01, 0.1, 0.05, better="correlates better than").startswith(
        "x correlates better than y"
    )


def test_scope_one_run_or_several():
    assert wording.scope(None) == wording.scope({}) == wording.SCOPE
    assert wording.scope({"a": ["a/1", "a/2"], "b": ["b/1", "b/2", "b/3"]}).startswith(
        "Each model is 2 to 3 trained runs"
    )


def test_winners_beaten_and_the_comparison_caption():
    rows = [row("npmi", "a", "b", "a"), row("npmi", "a", "c", "a"), row("npmi", "b", "c", "c"), row("cv", "a", "b", "")]
    assert wording.winners(rows) == {"npmi": "a"}
    assert wording.beaten(rows) == {("a", "npmi"): ["b", "c"], ("c", "npmi"): ["b"]}
    assert (
        wording.comparison_caption(rows[:3], 0.05)
        == "significantly (Holm, level 0.05): a better than b; a better than c; c better than b"
    )
    assert wording.comparison_caption(rows[3:], 0.05) == "not significant (Holm, level 0.05) for any pair"
    # a report's family (the bold and the verdicts rest on it) is what the caption names, not Holm per metric
    family = {"family": "Westfall-Young report-wide over all 4 comparisons of 2 metrics"}
    assert wording.comparison_caption([{**r, **family} for r in rows[:1]], 0.05) == (
        "significantly (Westfall-Young report-wide over all 4 comparisons of 2 metrics, level 0.05): a better than b"
    )


def test_row_labels_say_the_direction_and_what_a_model_level_row_is():
    assert wording.row_label(NPMI) == "NPMI" and wording.row_label(RANK) == "predictive rank (lower is better)"
    assert wording.row_label(UNIQUE) == "topic uniqueness (model-level; jackknife over topics)"
    assert wording.row_label(UNIQUE, over_runs=True) == "topic uniqueness (model-level)"  # its interval is over runs
    assert wording.row_label(FILTER) == "redundant (model-level; not tested)"
    assert wording.directed_label(RANK) == "predictive rank (lower is better)"


def test_verdicts_of_a_comparisons_table():
    outputs = {"npmi": NPMI, "topic_log_odds": ODDS}
    rows = [
        row("npmi", "a", "b", "a", difference=0.2, ci_low=0.1, ci_high=0.3, p_holm=0.0004, margin=0.05),
        row("npmi", "a", "c", difference=0.01, equivalent=True, margin=0.05),  # a margin: every pair of the metric
        row("npmi", "b", "c", mdd=0.3, test="permutation", margin=0.05),
        row("topic_log_odds", "a", "b", mdd=float("nan")),
    ]
    lines = wording.verdicts(rows, outputs, 0.05)
    assert list(lines) == ["npmi", "topic_log_odds"]
    assert lines["npmi"] == (
        "NPMI (higher is better; topics as units, independent across models (bootstrap-t test of Welch's t or "
        "permutation test), 3 pairs): a (this run) better than b (this run) by 0.2 [0.1, 0.3] (p < 0.001) (Holm, "
        "level 0.05): a verdict about these trained models, not the algorithms: give several runs per model. "
        "Equivalent within ±0.05 (TOST, Holm, level 0.05): a and c. "
        "Not significant (Holm, level 0.05): b vs c; the smallest true difference these tests find with 80% power: 0.3."
    )
    assert lines["topic_log_odds"] == (
        "topic log odds (higher is better; rated documents as units, independent across models (bootstrap-t test "
        "of Welch's t), 1 pair): "
        "no pair differs significantly. Not significant (Holm, level 0.05): a vs b."
    )
    assert wording.verdicts([], outputs, 0.05) == {}


def test_summary_cells():
    per_model = [
        {"model": "a", "metric": "npmi", "mean": 0.123456, "ci_low": 0.1, "ci_high": 0.15},
        {"model": "b", "metric": "npmi", "mean": 0.05, "ci_low": 0.01, "ci_high": 0.09},
        {"model": "a", "metric": "redundant", "mean": 0.0, "ci_low": float("nan"), "ci_high": float("nan")},
    ]
    models, rows = wording.summary_rows(per_model, [row("npmi", "a", "b", "a")], {"npmi": NPMI, "redundant": FILTER})
    assert models == ["a", "b"]
    assert rows == [
        (
            "NPMI",
            [wording.SummaryCell("0.1235", "[0.1, 0.15]", True), wording.SummaryCell("0.05", "[0.01, 0.09]", False)],
        ),
        ("redundant (model-level; not tested)", [wording.SummaryCell("0", "", False), None]),
    ]


def test_wording_loads_no_heavy_library():
    code = "import sys, tealeaves.wording\nprint([m for m in ('pandas', 'scipy', 'numba') if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_verdicts_over_runs_are_about_the_algorithms_and_one_run_about_the_artifacts():
    outputs = {"npmi": NPMI}
    over_runs = [row("npmi", "a", "b", "a", p_holm=0.001, test="mixed-model t over runs")]
    line = wording.verdicts(over_runs, outputs, 0.05)["npmi"]
    assert "trained runs as units" in line and "a better than b by" in line and "this run" not in line
    one_run = wording.verdicts([row("npmi", "a", "b", "b", p_holm=0.001)], outputs, 0.05)["npmi"]
    assert "b (this run) better than a (this run) by" in one_run and one_run.endswith(wording.TRAINED_ONLY + ".")
    assert "this run" not in wording.verdicts([row("npmi", "a", "b")], outputs, 0.05)["npmi"]  # nothing found
    assert wording.runs_note({"a": ["a/1", "a/2"]}) == "" and wording.TRAINED_ONLY in wording.runs_note({})
