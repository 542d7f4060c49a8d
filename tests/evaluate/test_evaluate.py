"""tealeaves.evaluation: the library's numbers, each metric's test by its plan with Holm, the step cache, bad configs."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import tealeaves
from tealeaves import display
from tealeaves.coherence import RefIndex, diversity, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import ArtifactError, InputError
from tealeaves.evaluation import METRICS, Evaluation, Metric, Output, register
from tealeaves.evaluation.metrics import outputs
from tealeaves.evaluation.stats import SUBSETS, regrouped
from tealeaves.intrusion import compare_word_intrusion
from tealeaves.likelihood import estimate, predictive
from tealeaves.metrics.words import model_level_topics
from tealeaves.models import TopicModel, Topics
from tealeaves.rng import family_generator
from tealeaves.stats import bootstrap_t_interval, holm, jackknife_se, random_orders
from tealeaves.stats.family import tied_draws
from tealeaves.topic_means import mean_interval

from .conftest import K, config


@pytest.fixture(scope="module")
def run(planted, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "lda-random-lda2"
    return tealeaves.evaluate(config(planted, "lda", "random", "lda2"), out)


def test_lda_beats_random_topics_on_npmi_cv_and_wi_auto(run):
    """Planted data: LDA's topics are significantly better than random words (Holm, level 0.05)."""
    rows = run.comparisons.set_index(["metric", "model_a", "model_b"])
    for metric in ("npmi", "cv", "wi_auto_pmi", "wi_auto_npmi"):
        for a, b, sign in (("lda", "random", 1), ("random", "lda2", -1)):
            row = rows.loc[metric, a, b]
            assert row.better == ("lda" if a == "lda" else "lda2"), metric
            assert row.p_holm < 0.05 and sign * row.difference > 0 and sign * row.ci_low > 0 < sign * row.ci_high
    verdicts = run.to_dict()["verdicts"]
    assert verdicts["npmi"].startswith("NPMI (higher is better; topics as units")
    assert "lda (this run) better than random (this run) by " in verdicts["npmi"]
    assert "lda2 (this run) better than random (this run) by " in verdicts["npmi"]
    assert "no difference" not in " ".join(verdicts.values())
    assert run.to_dict()["scope"].startswith("Each model is one trained run")


def test_wi_auto_ranks_every_model_with_one_pooled_svm(run, planted):
    """One ranking SVM for all models' topics (compare_word_intrusion), and the manifest says which."""
    index = RefIndex.load(next((run.path / "cache").glob("index-*")))
    names = ["lda", "random", "lda2"]
    models = {"lda": TopicModel.load(planted / "lda"), "random": Topics.load(planted / "random.txt")}
    models["lda2"] = TopicModel.load(planted / "lda2")
    pooled = compare_word_intrusion(models, index, seed=0, on_missing="zero")
    table = run.per_model.set_index(["model", "metric"])["mean"]
    for name in names:
        assert table[name, "wi_auto_pmi"] == pytest.approx(pooled[name].model_means["wi_auto_pmi"])
    assert run.manifest["pooled"] == {"wi-auto": names}
    [step] = [s for s in run.manifest["steps"] if s["metric"] == "wi-auto"]
    assert step["model"] == "*" and step["models"] == names


def test_per_model_values_are_the_library_functions(run, planted):
    heldout = Corpus.load(planted / "heldout")
    model = TopicModel.load(planted / "lda")
    index = RefIndex.load(next((run.path / "cache").glob("index-*")))
    table = run.per_model.set_index(["model", "metric"])["mean"]
    assert table["lda", "npmi"] == pytest.approx(score(model, index, measure="npmi", on_missing="skip").model_mean)
    assert table["lda", "cv"] == pytest.approx(score(model, index, measure="cv", on_missing="skip").model_mean)
    lr = estimate(model, None, heldout, method="left-to-right", seed=0)
    assert table["lda", "heldout_log_likelihood"] == pytest.approx(lr.per_token)
    documents = run.per_document[
        (run.per_document.model == "lda") & (run.per_document.metric == "heldout_log_likelihood")
    ]
    lengths = heldout.doc_lengths()
    assert np.allclose(documents["value"], lr.log_prob / np.maximum(lengths, 1)) and np.array_equal(
        documents["weight"], lengths
    )
    chang = predictive(model, heldout, seed=0)
    assert table["lda", "predictive_log_likelihood"] == pytest.approx(chang.log_likelihood_per_word)
    assert table["lda", "predictive_rank"] == pytest.approx(chang.mean_rank)
    div = diversity(Topics.load(planted / "random.txt"))
    assert table["random", "topic_diversity"] == pytest.approx(div.topic_diversity)
    assert table["random", "topic_uniqueness"] == pytest.approx(div.topic_uniqueness)
    # topic lists have no Φ: no likelihood, no predictive metrics, and the manifest says why
    assert ("random", "heldout_log_likelihood") not in table.index
    reasons = {(s["model"], s["metric"]): s["reason"] for s in run.manifest["skipped"]}
    assert reasons["random", "likelihood"] == reasons["random", "predictive"] == "a topic list has no Φ"


def test_per_topic_table_is_tidy_and_matches_per_model(run):
    per_topic = run.per_topic
    assert list(per_topic.columns) == ["model", "topic", "metric", "value"]
    means = per_topic.groupby(["model", "metric"])["value"].mean()
    table = run.per_model.set_index(["model", "metric"])
    for (model, metric), value in means.items():
        row = table.loc[(model, metric)]
        assert row["mean"] == pytest.approx(value) and row["n"] == K
        assert row["ci_low"] <= value <= row["ci_high"]
        if row["plan"] == "independent":  # the bootstrap-t interval over topics, the displays' own
            values = per_topic[(per_topic.model == model) & (per_topic.metric == metric)]["value"].to_numpy()
            bounds = outputs()[metric].bounds  # within the metric's range (tested in tests/stats)
            low, high = bootstrap_t_interval(values, bounds=bounds)  # tested against its formula in tests/stats
            if bounds is not None:
                assert bounds[0] <= low <= high <= bounds[1]
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12)
            shown = mean_interval(values, bounds)
            assert shown == display.interval_estimate(row["mean"], row["ci_low"], row["ci_high"])


def test_the_npmi_interval_is_the_one_every_display_shows(run, planted):
    """The evaluation's NPMI interval (the report's, the CLI's) is the notebook's for the library's per-topic
    values: the bootstrap-t interval from its fixed stream, not the t interval."""
    index = RefIndex.load(next((run.path / "cache").glob("index-*")))
    table = run.per_model.set_index(["model", "metric"])
    for name in ("lda", "lda2"):
        npmi = score(TopicModel.load(planted / name), index, measure="npmi", on_missing="skip")
        row = table.loc[(name, "npmi")]
        bounds = npmi.value_bounds()
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            bootstrap_t_interval(npmi.per_topic, bounds=bounds), abs=1e-12
        )
        shown = mean_interval(npmi.per_topic, bounds)
        assert shown == display.interval_estimate(row["mean"], row["ci_low"], row["ci_high"])
        finite = npmi.per_topic[np.isfinite(npmi.per_topic)]
        t = stats.t.interval(0.95, len(finite) - 1, loc=finite.mean(), scale=stats.sem(finite))
        assert (row["ci_low"], row["ci_high"]) != pytest.approx(t, abs=1e-6)


def test_topic_metrics_are_bootstrap_t_tests_with_the_report_family(run):
    """Topic-level metrics: Welch's estimate, the bootstrap-t test (permutation where a model's topics do not
    vary), Holm over the metric's pairs, and Westfall-Young over the whole report deciding "better"."""
    per_topic = run.per_topic
    tested = run.comparisons[run.comparisons.metric.isin(["npmi", "cv", "wi_auto_pmi", "wi_auto_npmi"])]
    assert len(tested) == 4 * 3  # every pair once, two-sided
    for metric, part in tested.groupby("metric"):
        for row in part.itertuples():
            a = per_topic[(per_topic.model == row.model_a) & (per_topic.metric == metric)]["value"]
            b = per_topic[(per_topic.model == row.model_b) & (per_topic.metric == metric)]["value"]
            assert row.difference == pytest.approx(a.mean() - b.mean())
            tied = max(tied_draws(a.to_numpy()), tied_draws(b.to_numpy())) > 0.01  # WI-Auto at its ceiling of 1
            constant = a.nunique() == 1 and b.nunique() == 1
            assert row.test == ("permutation" if constant else "studentised permutation" if tied else "bootstrap-t")
            if not tied:
                welch = stats.ttest_ind(a, b, equal_var=False)
                assert row.se == pytest.approx(abs(row.difference / welch.statistic))
                # the bootstrap-t p-value is the same test's: close to Welch's on these well-behaved values
                assert abs(row.p - welch.pvalue) < 0.1 + welch.pvalue
        assert part["p_holm"].to_numpy() == pytest.approx(holm(part["p"].to_numpy()))
    family = run.comparisons
    assert family["family"].nunique() == 1 and family["family"].iloc[0].startswith(
        "Westfall-Young report-wide over all 24"
    )
    assert (family.p_report >= family.p - 1e-12).all()
    assert ((family.better != "") == (family.p_report < 0.05)).all()
    # the detectable difference and the simultaneous interval share the first step's critical |t|
    studentised = family[np.isfinite(family.mdd) & family.test.isin(["bootstrap-t", "studentised permutation"])]
    for row in studentised.itertuples():
        critical = (row.sim_high - row.difference) / row.se
        assert row.mdd == pytest.approx((critical + stats.t.ppf(0.8, row.df)) * row.se)
        assert (row.sim_low * row.sim_high > 0) <= (row.p_report < 0.05)  # excludes 0 only where significant


def test_document_metrics_are_paired_tests_of_the_token_weighted_ratio(run):
    """Held-out and predictive likelihood: value, interval and test all of sum(v) / sum(w), paired over documents."""
    docs = run.per_document
    per_model = run.per_model.set_index(["model", "metric"])
    for metric in ("heldout_log_likelihood", "predictive_log_likelihood", "predictive_rank"):
        [row] = run.comparisons[run.comparisons.metric == metric].itertuples()  # random has no Φ
        assert (row.model_a, row.model_b, row.test) == ("lda", "lda2", "paired randomisation (studentised)")
        contributions = []
        for model in ("lda", "lda2"):
            part = docs[(docs.model == model) & (docs.metric == metric)].sort_values("document")
            v, w = part["value"].to_numpy() * part["weight"].to_numpy(), part["weight"].to_numpy()
            r = v.sum() / w.sum()
            assert per_model.loc[(model, metric), "mean"] == pytest.approx(r)
            contributions.append(r + (v - r * w) / w.mean())  # the delta method's linearisation
        paired = stats.ttest_rel(*contributions)  # the randomisation test of the same statistic: about its p
        assert abs(row.p - paired.pvalue) < 0.05 + 0.2 * paired.pvalue and row.difference == pytest.approx(
            per_model.loc[("lda", metric), "mean"] - per_model.loc[("lda2", metric), "mean"]
        )
        # the same documents for both models: the difference's interval is far narrower than unpaired
        width = row.ci_high - row.ci_low
        widths = [per_model.loc[(m, metric), "ci_high"] - per_model.loc[(m, metric), "ci_low"] for m in ("lda", "lda2")]
        assert row.ci_low <= row.difference <= row.ci_high and width < 0.8 * np.hypot(*widths)


def test_model_level_quantities_are_jackknifed_over_topics(run, planted):
    """Topic uniqueness, diversity and inverted RBO: the delete-d jackknife's SE and interval per model
    (d = K/2, SUBSETS random subsets from the model's stream), Tukey's delete-1 SE in the comparisons,
    the randomisation test over regroupings of both models' topics; no per-topic test."""
    words = {"lda": TopicModel.load(planted / "lda"), "random": Topics.load(planted / "random.txt")}
    table = run.per_model.set_index(["model", "metric"])
    rows = run.comparisons.set_index(["metric", "model_a", "model_b"])
    estimates = {}
    d = K // 2
    for name, model in words.items():
        top = [list(t) for t in tealeaves.as_topics(model, 25).words]
        value = diversity(model).topic_uniqueness
        keys = family_generator(0, f"evaluate delete-d topic_uniqueness {name}").random((SUBSETS, K))
        kept = np.argsort(keys, axis=1) >= d  # the subsets of K - d topics, from the model's stream (seed 0)
        theta = np.array([diversity([t for t, held in zip(top, row) if held]).topic_uniqueness for row in kept])
        se = np.sqrt((K - d) / (d * SUBSETS) * ((theta - theta.mean()) ** 2).sum())  # Shao and Wu (1989)
        row = table.loc[(name, "topic_uniqueness")]
        assert row["se"] == pytest.approx(se) and row["plan"] == "jackknife" and row["n"] == K
        logit = np.log(value / (1 - value))  # the t interval on the logit scale, back within [0, 1]
        expected = stats.t.interval(0.95, K - 1, loc=logit, scale=se / (value * (1 - value)))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(1 / (1 + np.exp(-np.array(expected))))
        loo = np.array([diversity([t for j, t in enumerate(top) if j != i]).topic_uniqueness for i in range(K)])
        tukey = np.sqrt((K - 1) / K * ((loo - loo.mean()) ** 2).sum())
        assert tukey == pytest.approx(jackknife_se(loo))
        estimates[name] = value, tukey
    row = rows.loc["topic_uniqueness", "lda", "random"]
    (ta, sa), (tb, sb) = estimates["lda"], estimates["random"]
    se = np.hypot(sa, sb)
    df = se**4 / (sa**4 / (K - 1) + sb**4 / (K - 1))
    assert row.test == "randomisation" and row.se == pytest.approx(se) and row.df == pytest.approx(df)
    assert row.difference == pytest.approx(ta - tb)
    topics = {name: model_level_topics(model, 25, 10, 0.9) for name, model in words.items()}
    for metric in ("topic_uniqueness", "topic_diversity", "inverted_rbo"):  # regroupings of the pooled topics
        quantity = regrouped(metric, {**topics["lda"], "words": topics["lda"]["words"] + topics["random"]["words"]})
        splits = np.vstack([np.arange(2 * K) < K, random_orders(np.random.default_rng(1), 4999, 2 * K) < K])
        q = np.abs(quantity(splits) - quantity(~splits))
        p = (1 + np.sum(q[1:] >= q[0] - 1e-12)) / 5000  # the randomisation test by brute force, ties counted
        assert rows.loc[metric, "lda", "random"].p == pytest.approx(p, abs=0.04)  # its draws: the report's family
    assert "redundant" not in set(run.comparisons.metric)  # a yes/no per model: shown, never tested


def test_adding_a_model_recomputes_only_its_steps(planted, tmp_path):
    out = tmp_path / "run"
    first = tealeaves.evaluate(config(planted, "lda", "random"), out)
    computed = [s for s in first.manifest["steps"] if not s["cached"]]
    assert len(computed) == 5 + 3 + 1  # lda: npmi, cv, diversity, likelihood, predictive; random: no Φ; WI-Auto pooled
    second = tealeaves.evaluate(config(planted, "lda", "random", "lda2"), out)
    recomputed = [(s["model"], s["metric"]) for s in second.manifest["steps"] if not s["cached"]]
    assert sorted(recomputed) == sorted(
        [("lda2", m) for m in ("npmi", "cv", "diversity", "likelihood", "predictive")] + [("*", "wi-auto")]
    )  # the pooled SVM is trained again on the topics of all three
    old = first.per_model.set_index(["model", "metric"])
    old = old[~old.index.get_level_values("metric").str.startswith("wi_auto")]
    new = second.per_model.set_index(["model", "metric"]).loc[old.index]
    assert np.allclose(old[["mean", "ci_low", "ci_high"]].fillna(0), new[["mean", "ci_low", "ci_high"]].fillna(0))
    assert len(second.comparisons[second.comparisons.metric == "npmi"]) == 3  # every pair
    reread = Evaluation.load(out)
    pd.testing.assert_frame_equal(reread.per_model, second.per_model)
    assert pd.read_csv(out / "per_model.csv")["mean"].to_numpy() == pytest.approx(second.per_model["mean"].to_numpy())
    # a changed option is a new step for every model it applies to
    third = tealeaves.evaluate(config(planted, "lda", "random", "lda2", metrics={"npmi": {"topn": 5}}), out)
    assert sorted((s["model"], s["metric"]) for s in third.manifest["steps"] if not s["cached"]) == [
        ("lda", "npmi"),
        ("lda2", "npmi"),
        ("random", "npmi"),
    ]


@pytest.mark.parametrize("scheduler", [None, "local"])
def test_processes_give_the_numbers_of_one_process(planted, run, tmp_path, scheduler):
    if scheduler:
        pytest.importorskip("distributed")
    metrics = {"cv": False, "likelihood": False, "predictive": False}
    cfg = config(planted, "lda", "random", "lda2", metrics=metrics)
    spread = tealeaves.evaluate(cfg, tmp_path / "spread", workers=2, scheduler=scheduler)  # processes or Dask
    alone = tealeaves.evaluate(cfg, tmp_path / "alone", workers=1)
    pd.testing.assert_frame_equal(spread.per_model, alone.per_model)
    pd.testing.assert_frame_equal(spread.comparisons, alone.comparisons)
    assert not any(step["cached"] for step in spread.manifest["steps"])
    ours = run.per_model.set_index(["model", "metric"])["mean"]
    assert spread.per_model.set_index(["model", "metric"])["mean"]["lda", "npmi"] == ours["lda", "npmi"]


def test_worker_processes_print_nothing_into_the_output(planted, tmp_path):
    """In a notebook, ipykernel shows whatever any process writes to the kernel's stdout or
    stderr in the cell: a run spread over processes or a Dask cluster writes nothing there,
    even when another cluster already holds Dask's default port 8787."""
    pytest.importorskip("distributed")
    metrics = {"cv": False, "likelihood": False, "predictive": False}
    cfg = config(planted, "lda", "random", metrics=metrics)
    script = (
        "import json, sys, tealeaves\n"
        "if __name__ == '__main__':\n"
        "    cfg, out = json.loads(sys.argv[1]), sys.argv[2]\n"
        "    tealeaves.evaluate(cfg, out + '/processes', workers=2)\n"
        "    tealeaves.evaluate(cfg, out + '/dask', workers=2, scheduler='local')\n"
    )
    (tmp_path / "run.py").write_text(script)
    with socket.socket() as held:
        with contextlib.suppress(OSError):  # when something already holds it: the same situation
            held.bind(("127.0.0.1", 8787))
        done = subprocess.run(
            [sys.executable, str(tmp_path / "run.py"), json.dumps(cfg), str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("", "")
    assert (tmp_path / "dask" / "per_model.csv").exists()


def test_a_registered_metric_runs_when_configured(planted, tmp_path, monkeypatch):
    """A new metric needs only its function and a registration (e.g. an embedding coherence)."""
    from tealeaves.metrics import Measured

    def first_word_length(model, inputs, seed, **options):
        measured = Measured()
        measured.per_topic("first_word_length", [len(words[0]) for words in tealeaves.as_topics(model).words])
        return measured

    monkeypatch.delitem(METRICS, "first-word", raising=False)
    metric = register(
        Metric("first-word", first_word_length, {"first_word_length": Output("first word length")}, default=False)
    )
    try:
        metrics = {name: False for name in METRICS if name != "npmi"} | {"first-word": True}
        result = tealeaves.evaluate(config(planted, "lda", "random", metrics=metrics), tmp_path / "run")
        assert set(result.per_model["metric"]) == {"npmi", "first_word_length"}
        with pytest.raises(InputError, match="already registered"):
            register(metric)
    finally:
        del METRICS["first-word"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": "blue"}, "unknown key"),
        ({"metrics": {"npmi-ish": {}}}, "unknown metric"),
        ({"models": []}, "names no model"),
        ({"models": [{"name": "a", "path": "x"}, {"name": "a", "path": "y"}]}, "appear twice"),
        ({"seed": -1}, "seed must be"),
        ({"n_resamples": 10}, "n_resamples must be"),
        ({"alpha": 1.5}, "alpha must be"),
        ({"study": {}}, "needs export"),
        ({"models": [{"name": "m", "path": "nowhere"}]}, "does not exist"),
        ({"primary": ["npmi"], "metrics": {"npmi": False}}, r"does not compute: npmi \(\[metrics\] npmi is off\)"),
        ({"primary": ["model_precision"]}, r"does not compute: model_precision \(\[study\] is not given\)"),
        # an estimator's option out of range was refused when the metric ran, after the others
        (
            {"metrics": {"likelihood": {"particles": -5}}},
            r"^\[metrics\] likelihood: left-to-right needs particles >= 1 \(a whole number\), got -5$",
        ),
        ({"metrics": {"likelihood": {"method": "ais", "temperatures": 0}}}, r"likelihood: ais needs temperatures >= 1"),
        # a word where the report's threshold goes: numpy's "ufunc 'less' did not contain a loop" after the SVM ran
        (
            {"metrics": {"wi-auto": {"flag_below": "low"}}},
            r"^\[metrics\] wi-auto: flag_below must be a WI-Auto share in \[0, 1\] .*, got 'low'$",
        ),
        ({"metrics": {"wi-auto": {"flag_below": 25}}}, r"flag_below must be a WI-Auto share in \[0, 1\]"),
    ],
)
def test_bad_configuration_is_refused_before_any_work(planted, tmp_path, change, message):
    with pytest.raises(InputError, match=message):
        tealeaves.evaluate({**config(planted, "lda"), **change}, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_foreign_folder_is_refused(planted, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ArtifactError, match="not a tealeaves evaluation run"):
        tealeaves.evaluate(config(planted, "lda"), tmp_path)


def test_short_topic_lists_keep_their_words(planted, tmp_path):
    words = Topics.load(planted / "random.txt").words
    Topics(tuple(topic[:5] for topic in words)).save(tmp_path / "five.txt")
    cfg = {**config(planted), "models": [{"name": "five", "path": str(tmp_path / "five.txt")}]}
    cfg["metrics"] = {name: name == "npmi" for name in METRICS}
    with pytest.raises(InputError, match="model 'five', metric 'npmi': topic 0 has only 5 words"):
        tealeaves.evaluate(cfg, tmp_path / "run")  # NPMI's default is the top 10 words
    cfg["metrics"]["npmi"] = {"topn": 5}
    result = tealeaves.evaluate(cfg, tmp_path / "run")
    assert result.topics["words"].tolist() == [" ".join(topic[:5]) for topic in words]
    assert result.comparisons.empty and set(result.per_model["metric"]) == {"npmi"}


def test_flags_name_the_redundant_and_the_weak_topics(run, planted):
    lda = TopicModel.load(planted / "lda")
    assert diversity(lda).shared_top_words and not diversity(lda).duplicate_topics  # sharing words is not redundancy
    assert not any("redundant" in flags for flags in run.topics["flags"])
    # a planted duplicate: topic 7's top five words in another order, the rest of the ranking changed
    words = [list(topic) for topic in lda.top_words(25)]
    rest = [w for w in lda.top_words(35)[7][5:] if w not in words[2][:5]]  # distinct words, 25 in all
    words[7] = [*reversed(words[2][:5]), *rest[:20]]
    measured = METRICS["diversity"].compute(Topics(words), None, 0)
    same = "(the same top-5 words)"
    assert measured.flags == {
        2: [f"redundant: duplicate of topic 7 {same}"],
        7: [f"redundant: duplicate of topic 2 {same}"],
    }
    assert measured.scalars["redundant"] == 1.0
    low = run.per_topic[(run.per_topic.model == "random") & (run.per_topic.metric == "wi_auto_pmi")]
    flagged = run.topics[run.topics.model == "random"].set_index("topic")["flags"]
    for row in low.itertuples():
        assert ("low WI-Auto-PMI" in flagged[row.topic]) == (row.value < 0.25)


def test_a_decoder_that_is_not_a_mixture_skips_the_likelihood_and_keeps_the_predictive_metrics(planted, tmp_path):
    # a dvae model's decoder is softmax(Bθ + b), not Σ_k θ_k φ_k: Wallach et al.'s estimators refuse it
    lda = TopicModel.load(planted / "lda")
    params = {**lda.params, "mixture_decoder": False}
    TopicModel(lda.vocab, lda.phi, alpha=lda.alpha, theta=lda.theta, kind="nomix", params=params).save(tmp_path / "m")
    cfg = {**config(planted), "models": [{"name": "nomix", "path": str(tmp_path / "m")}]}
    cfg["metrics"] = {name: name in ("likelihood", "predictive") for name in METRICS}
    result = tealeaves.evaluate(cfg, tmp_path / "run")
    reasons = {(s["model"], s["metric"]): s["reason"] for s in result.manifest["skipped"]}
    assert reasons["nomix", "likelihood"] == "its decoder is not a mixture of its topics"
    assert {"predictive_log_likelihood", "predictive_rank"} <= set(result.per_model["metric"])
    assert "heldout_log_likelihood" not in set(result.per_model["metric"])


@pytest.mark.parametrize(
    "options",
    [{"method": "ais", "temperatures": 20}, {"method": "chib", "samples": 20, "burn_in": 5}, {"method": "is-pzw"}],
)
def test_every_estimator_of_wallach_et_al_runs_from_a_configuration(planted, tmp_path, options):
    # the metric's default variant ("sis", left-to-right's) was merged into every method's options, so that any
    # other method was refused: "[metrics] likelihood has unknown option variant"
    cfg = {**config(planted, "lda"), "metrics": {name: name == "likelihood" for name in METRICS}}
    cfg["metrics"]["likelihood"] = options
    result = tealeaves.evaluate(cfg, tmp_path / "run")
    measured = result.per_model.set_index("metric").loc["heldout_log_likelihood", "mean"]
    heldout, model = Corpus.load(planted / "heldout"), TopicModel.load(planted / "lda")
    assert measured == pytest.approx(estimate(model, None, heldout, seed=0, **options).per_token, rel=1e-12)


def test_step_keys_follow_the_code_of_a_development_version(monkeypatch):
    from tealeaves.evaluation import run

    def key_under(version: str) -> tuple[str, str]:
        monkeypatch.setattr(run, "tealeaves_version", lambda: version)
        run._code_version.cache_clear()
        return run._code_version(), run._step_key(model="m", metric="npmi")

    released, released_key = key_under("1.2.0")
    assert released == "1.2.0"
    dev, dev_key = key_under("1.3.0.dev0")
    assert dev.startswith("1.3.0.dev0 ") and len(dev.split()[1]) == 16  # the version and the sources' hash
    assert key_under("1.3.0.dev0") == (dev, dev_key) and dev_key != released_key
    assert key_under("1.2.0+g1234")[0].startswith("1.2.0+g1234 ")
    run._code_version.cache_clear()


def test_several_runs_per_model_make_the_runs_the_units(planted, tmp_path):
    """runs = [...]: every run is evaluated, a model's value is the mean over its runs, and the
    models are compared by the mixed model's t over their runs (the t-test of the run means, for topics);
    the scope says so, and the verdicts carry no one-run caveat."""
    rng = np.random.default_rng(1)
    words = Corpus.load(planted / "train").vocab.words
    Topics(tuple(tuple(rng.choice(words, 25, replace=False)) for _ in range(K))).save(tmp_path / "random2.txt")
    # the API's mapping of a name to its runs: folders, topic lists or the live models
    models = {
        "lda": [TopicModel.load(planted / "lda"), str(planted / "lda2")],
        "random": [str(planted / "random.txt"), str(tmp_path / "random2.txt")],
    }
    metrics = {name: name in ("npmi", "diversity") for name in METRICS}
    result = tealeaves.evaluate({**config(planted), "models": models, "metrics": metrics}, tmp_path / "run")
    assert result.manifest["runs"] == {"lda": ["lda/1", "lda/2"], "random": ["random/1", "random/2"]}
    table = result.per_model.set_index(["model", "metric"])
    for metric in ("npmi", "topic_uniqueness"):
        runs = {m: table.loc[[(f"{m}/1", metric), (f"{m}/2", metric)], "mean"].to_numpy() for m in ("lda", "random")}
        for m, values in runs.items():
            row = table.loc[(m, metric)]
            assert row["plan"] == "runs" and row["n"] == 2 and row["mean"] == pytest.approx(values.mean())
            sem = stats.sem(values)  # 0 where both runs have the same value (random topics share no word)
            # the t interval on the logit scale of the metric's range (NPMI's [-1, 1], uniqueness' [0, 1]) and back
            low, high = (-1.0, 1.0) if metric == "npmi" else (0.0, 1.0)
            u = (values.mean() - low) / (high - low)
            reach = stats.t.ppf(0.975, 1) * sem / ((high - low) * u * (1 - u))
            ends = [low + (high - low) * special.expit(special.logit(u) + z) for z in (-reach, reach)]
            assert (row["ci_low"], row["ci_high"]) == pytest.approx(ends)
            assert low <= row["ci_low"] <= row["mean"] <= row["ci_high"] <= high
        [row] = result.comparisons[result.comparisons.metric == metric].itertuples()
        assert (row.model_a, row.model_b) == ("lda", "random")
        if metric == "npmi":
            assert row.test == "mixed-model t over runs"
            assert row.p == pytest.approx(stats.ttest_ind(runs["lda"], runs["random"]).pvalue)  # 2 + 2 runs: 2 df
    assert set(result.comparisons.model_a) == {"lda"}  # no run-against-run tests
    from tealeaves.stats import holm

    # the report's family: Holm over every pair of every metric, which decides "better"
    compared = result.comparisons[result.comparisons.p.notna()]
    assert compared.family.nunique() == 1 and compared.family.iloc[0].startswith("Holm report-wide over all")
    assert compared.p_report.to_numpy() == pytest.approx(holm(compared.p.to_numpy()))
    assert ((compared.better != "") == (compared.p_report < 0.05)).all()
    # its simultaneous interval: Bonferroni's over the family, Holm's first step, wider than the unadjusted one
    m = len(compared)
    for row in compared.itertuples():
        half = stats.t.ppf(1 - 0.05 / (2 * m), row.df) * row.se
        assert (row.sim_low, row.sim_high) == pytest.approx((row.difference - half, row.difference + half))
        assert row.sim_low <= row.ci_low + 1e-12 and row.ci_high <= row.sim_high + 1e-12 and row.p_attainable == 0
        assert (row.sim_low * row.sim_high > 0) <= (row.p_report < 0.05)  # excludes 0 only where significant
    assert result.to_dict()["scope"].startswith("Each model is 2 trained runs")
    assert result.to_dict()["verdicts"]["npmi"].startswith("NPMI (higher is better; trained runs as units")
    assert "(this run)" not in result.to_dict()["verdicts"]["npmi"]
    html = tealeaves.report(result, tmp_path / "report.html").read_text()
    assert "Each model is 2 trained runs" in html and "data-model='lda' data-metric='npmi'" in html
    # the model-level rows' intervals are over the runs, not a jackknife over topics, and the page says so
    assert "topic uniqueness (model-level)</th>" in html and "jackknife over topics" not in html
    assert "Model-level rows are one number per run, averaged over the runs" in html
    # and the introduction says what the intervals and tests are with runs, not the one-run methods
    assert "95% t intervals over each model's trained runs" in html and "Welch's t over topics" not in html


@pytest.mark.parametrize(
    ("models", "message"),
    [
        ([{"name": "a", "runs": ["x"]}], "two or more trained runs"),
        ([{"name": "a", "path": "x", "runs": ["x", "y"]}], "needs one of path .* or runs"),
        ([{"name": "a", "runs": ["x", "y"]}, {"name": "b", "path": "z"}], "have one run while others have several"),
        ([{"name": "a", "runs": ["x", "y"]}, {"name": "a", "runs": ["z", "w"]}], "appear twice"),
    ],
)
def test_runs_are_checked(planted, tmp_path, models, message):
    with pytest.raises(InputError, match=message):
        tealeaves.evaluate({**config(planted), "models": models}, tmp_path / "run")


def test_a_run_given_twice_is_refused_before_any_work(planted, tmp_path):
    """The same trained model twice among a model's runs (its folder twice, a copy of the folder, the
    object twice, a topic list's file twice) would show no run-to-run variation: refused, naming both
    runs, with nothing written. Two topic lists of the same words may be two runs that agree, and two
    models sharing a run are not a model's runs given twice: both run."""
    import shutil

    shutil.copytree(planted / "lda", tmp_path / "lda-copy")
    shutil.copy(planted / "random.txt", tmp_path / "random-copy.txt")
    lda = TopicModel.load(planted / "lda")
    for runs, why in (
        ([str(planted / "lda"), str(planted / "lda2"), str(planted / "lda")], "topics, parameters and seed"),
        ([str(planted / "lda"), str(tmp_path / "lda-copy")], "topics, parameters and seed"),
        ([lda, lda], "topics, parameters and seed"),
        ([str(planted / "random.txt"), str(planted / "lda"), str(planted / "random.txt")], "file"),
    ):
        models = {"lda": runs, "random": [str(planted / "random.txt"), str(planted / "lda2")]}
        refused = rf"model 'lda': runs lda/1 \(.+\) and lda/\d \(.+\) are the same trained model \(the same {why}\)"
        with pytest.raises(InputError, match=refused):
            tealeaves.evaluate({**config(planted), "models": models}, tmp_path / "run")
        assert not (tmp_path / "run").exists()
    models = {
        "lda": [str(planted / "lda"), str(planted / "lda2")],
        "other": [str(planted / "lda2"), str(planted / "random.txt")],
        "lists": [str(planted / "random.txt"), str(tmp_path / "random-copy.txt")],
    }
    metrics = {name: name == "diversity" for name in METRICS}
    result = tealeaves.evaluate({**config(planted), "models": models, "metrics": metrics}, tmp_path / "run")
    assert result.manifest["runs"] == {
        "lda": ["lda/1", "lda/2"],
        "other": ["other/1", "other/2"],
        "lists": ["lists/1", "lists/2"],
    }


def test_a_heldout_corpus_a_model_was_trained_on_is_refused(planted, tmp_path):
    """The training corpus given as held-out (the fingerprint lda's manifest records), or a held-out corpus of
    which 40 documents are training ones (the keys lda's manifest records): refused, naming the model and the
    share, with nothing written; the reference corpus may be the training corpus (coherence's reference is
    any corpus), and a topic list records no training corpus."""
    given = config(planted, "lda", "random")
    seen = {**given, "corpora": {**given["corpora"], "heldout": str(planted / "train")}}
    with pytest.raises(
        InputError, match=r"all \d+ documents of the held-out corpus .*train are documents model 'lda' was trained on"
    ):
        tealeaves.evaluate(seen, tmp_path / "run")
    assert not (tmp_path / "run").exists()
    training, held = Corpus.load(planted / "train"), Corpus.load(planted / "heldout")
    docs = [training.doc(i) for i in range(40)] + [held.doc(i) for i in range(len(held))]
    Corpus.from_documents(docs, held.vocab).save(tmp_path / "mixed")  # another split's held-out documents
    mixed = {**given, "corpora": {**given["corpora"], "heldout": str(tmp_path / "mixed")}}
    share = f"40 of the {len(docs)} \\({40 / len(docs):.0%}\\) documents of the held-out corpus .*mixed are documents"
    with pytest.raises(InputError, match=share):
        tealeaves.evaluate(mixed, tmp_path / "run")
    assert not (tmp_path / "run").exists()
    metrics = {name: name == "diversity" for name in METRICS}
    reference = {**given, "metrics": metrics, "corpora": {**given["corpora"], "reference": str(planted / "train")}}
    assert tealeaves.evaluate(reference, tmp_path / "run").manifest["corpora"]["reference"]["path"].endswith("train")


def test_models_over_different_vocabularies_get_no_held_out_likelihood_verdicts(planted, tmp_path):
    """A model over other words than another's (trained on another prepare run's corpus) is refused while the
    held-out likelihood or the predictive metrics are on, naming both models and how far their vocabularies
    differ, with nothing written; with those metrics off the evaluation runs. Before, the held-out likelihood of each
    was computed over its own words and tested as if comparable."""
    from tealeaves.models import TopicModel

    lda = TopicModel.load(planted / "lda")
    words = [*lda.vocab.words[:-5], *(f"other{i}" for i in range(5))]  # 5 words only it knows, 5 it lacks
    other = TopicModel(Vocabulary(words), lda.phi, alpha=lda.alpha, kind="lda-gibbs")
    given = {
        **config(planted, "lda"),
        "models": [{"name": "lda", "path": str(planted / "lda")}, {"name": "other", "model": other}],
    }
    given["metrics"] = {name: name in ("likelihood", "predictive", "diversity") for name in METRICS}
    given["metrics"]["likelihood"] = {"on_missing": "skip", "particles": 5}
    given["metrics"]["predictive"] = {"on_missing": "skip"}
    message = r"^likelihood and predictive compare .* models 'lda' and 'other' have different vocabularies \(300 and 300 words, 10 in one only\)"
    with pytest.raises(InputError, match=message):
        tealeaves.evaluate(given, tmp_path / "run")
    assert not (tmp_path / "run").exists()
    given["metrics"]["predictive"] = False
    with pytest.raises(
        InputError, match=r"^likelihood compares .* or turn it off \(likelihood = false in \[metrics\]\)$"
    ):
        tealeaves.evaluate(given, tmp_path / "run")
    off = {**given, "metrics": {name: name == "diversity" for name in METRICS}}
    assert set(tealeaves.evaluate(off, tmp_path / "off").per_model.model) == {"lda", "other"}


def test_a_second_evaluate_writing_the_same_folder_at_once_is_refused(planted, tmp_path):
    """While one evaluate holds the run folder's lock, another writing it is refused naming the holder's
    process, and writes nothing there; once the lock is free (the holder finished, or was killed: the lock
    goes with its process) the folder is written. Before, both computed every step and the last to finish
    left its tables, possibly beside the other's manifest."""
    import fcntl
    import subprocess

    given = {**config(planted, "random"), "metrics": {name: name == "diversity" for name in METRICS}}
    out = tmp_path / "run"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys, time\nf = open(sys.argv[1], 'a+')\nfcntl.flock(f, fcntl.LOCK_EX)\n"
         "f.write('4242'); f.flush(); print('held', flush=True); time.sleep(60)", str(out / ".lock")],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ArtifactError, match=r"^another tealeaves evaluate is writing .*run \(process 4242\); wait"):
            tealeaves.evaluate(given, out)
        assert sorted(p.name for p in out.iterdir()) == [".lock"]
    finally:
        holder.kill()
        holder.wait()
    run = tealeaves.evaluate(given, out)  # the killed holder's lock went with it
    assert (out / "manifest.json").is_file() and set(run.per_model.model) == {"random"}
    with open(out / ".lock") as lock:  # released when evaluate returned
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    assert tealeaves.evaluate(given, out).to_dict()["steps"]["computed"] == 0


def test_a_metric_option_hint_reads_as_the_configuration_spells_it(planted, tmp_path):
    """A held-out word the models lack: the likelihood's hint on_missing="skip" is the metric's option in the
    configuration's words, and the command line does not turn it into a flag evaluate lacks."""
    from tealeaves.cli.common import in_cli_words
    from tealeaves.cli.evaluate import evaluate_command

    texts = [[*text, "unknown"] for text in Corpus.load(planted / "heldout").texts()[:20]]
    given = {**config(planted, "lda", "lda2"), "metrics": {name: name == "likelihood" for name in METRICS}}
    given["corpora"] = {**given["corpora"], "heldout": texts}
    hint = '[metrics] likelihood = { on_missing = "skip" }'
    with pytest.raises(InputError, match="metric 'likelihood': 20 tokens in 20 documents are outside") as refused:
        tealeaves.evaluate(given, tmp_path / "run")
    assert hint in str(refused.value) and hint in in_cli_words(str(refused.value), evaluate_command)
    given["metrics"]["likelihood"] = {"on_missing": "skip", "particles": 5}
    assert (tealeaves.evaluate(given, tmp_path / "run").per_model.metric == "heldout_log_likelihood").sum() == 2


def test_primary_metrics_are_a_family_of_their_own_and_the_others_exploratory(planted, tmp_path):
    """primary = [...]: the primary metrics' comparisons are one Westfall-Young family and the others
    another, labelled exploratory in the table and on the page. On the same joint resampling (the same
    seed), a family of fewer comparisons adjusts each p-value no further than the whole report's does."""
    from tealeaves import wording

    metrics = {name: name in ("npmi", "cv", "diversity") for name in METRICS}
    given = {**config(planted, "lda", "random", "lda2"), "metrics": metrics}
    whole = tealeaves.evaluate(given, tmp_path / "whole").comparisons.set_index(["metric", "model_a", "model_b"])
    split = tealeaves.evaluate({**given, "primary": ["npmi"]}, tmp_path / "split")
    table = split.comparisons.set_index(["metric", "model_a", "model_b"])
    tested = table[table.p.notna()]
    primary = tested.index.get_level_values("metric") == "npmi"
    others = sorted(set(tested.index.get_level_values("metric")[~primary]))
    assert primary.sum() == 3 and len(others) >= 3
    assert (tested.family[primary] == wording.family_name("primary", 3, ["npmi"])).all()
    assert (tested.family[~primary] == wording.family_name("exploratory", int((~primary).sum()), others)).all()
    assert whole.loc[tested.index, "family"].str.startswith("Westfall-Young report-wide").all()
    assert tested.p.to_numpy() == pytest.approx(whole.loc[tested.index, "p"].to_numpy())  # the same resampling
    assert (tested.p_report <= whole.loc[tested.index, "p_report"] + 1e-12).all()
    assert (tested.p_report >= tested.p - 1e-12).all()
    assert ((tested.better != "") == (tested.p_report < 0.05)).all()
    html = split._repr_html_()
    assert "primary metric (npmi)" in html and "exploratory: over the" in html


def test_primary_metrics_over_runs_are_holm_within_each_family(planted, tmp_path):
    """With several runs per model the report's families are Holm's: the primary metrics' pairs adjusted
    among themselves, the exploratory ones among themselves."""
    from tealeaves.stats import holm

    models = {
        "lda": [str(planted / "lda"), str(planted / "lda2")],
        "random": [str(planted / "random.txt"), str(tmp_path / "random2.txt")],
    }
    rng = np.random.default_rng(1)
    words = Corpus.load(planted / "train").vocab.words
    Topics(tuple(tuple(rng.choice(words, 25, replace=False)) for _ in range(K))).save(tmp_path / "random2.txt")
    metrics = {name: name in ("npmi", "cv", "diversity") for name in METRICS}
    given = {**config(planted), "models": models, "metrics": metrics, "primary": ["npmi", "cv"]}
    compared = tealeaves.evaluate(given, tmp_path / "run").comparisons
    compared = compared[compared.p.notna()]
    primary = compared.metric.isin(["npmi", "cv"]).to_numpy()
    assert primary.sum() == 2 and (~primary).sum() >= 2
    for part in (compared[primary], compared[~primary]):
        assert part.family.nunique() == 1 and part.family.iloc[0].startswith("Holm")
        assert part.p_report.to_numpy() == pytest.approx(holm(part.p.to_numpy()))
    assert compared[primary].family.iloc[0].startswith("Holm over the 2 comparisons of the primary metrics (cv, npmi)")
