"""Every public entry point given a value of the wrong type or range refuses it as a TealeavesError (or takes it,
where it is valid there: ``particles=3``), never with another exception.

A value of another type where a name (a measure, a method, a task, a format) or a number goes raised
Python's own errors from deep inside: "unhashable type: 'list'", "'<' not supported between instances of
'str' and 'int'", "'float' object is not iterable", numpy's "ufunc 'isfinite' not supported". The one
exception kept is Python's own TypeError for a number where a path or an iterable goes
(``evaluate(config, out=3)``), as numpy and pandas raise it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import tealeaves
from tealeaves import analysis, stats
from tealeaves.analysis.correlation import RaggedScores
from tealeaves.coherence import RefIndex, diversity, inverted_rbo, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import TealeavesError
from tealeaves.likelihood import complete, estimate, perturbation_study, predictive, temperatures_schedule
from tealeaves.metrics import get_metric
from tealeaves.models import TopicModel, as_topics, topic_significance, trainer_rules
from tealeaves.parallel import parallel_map

WRONG = {
    "None": None,
    "int": 3,
    "negative": -1,
    "float": 2.5,
    "nan": math.nan,
    "str": "abc",
    "list": ["a"],
    "dict": {"a": 1},
    "bool": True,
    "empty": "",
}


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(0)
    vocab = Vocabulary([f"w{i}" for i in range(40)])
    model = TopicModel(vocab, rng.dirichlet(np.ones(40), size=4), alpha=np.full(4, 0.5), kind="lda-gibbs")
    corpus = Corpus.from_documents([rng.integers(0, 40, size=20) for _ in range(30)], vocab)
    return model, corpus, RefIndex.build(corpus)


def calls(model, corpus, index):
    return {
        "evaluate(config)": lambda v: tealeaves.evaluate(v, "unused"),
        "create_study(task)": lambda v: tealeaves.create_study({"a": model}, v),
        "import_model(format)": lambda v: tealeaves.import_model(v, "unused"),
        "estimate(method)": lambda v: estimate(model, None, corpus, method=v),
        "estimate(particles)": lambda v: estimate(model, None, corpus, particles=v),
        "estimate(runs)": lambda v: estimate(model, None, corpus, runs=v, particles=2),
        "predictive(split)": lambda v: predictive(model, corpus, split=v),
        "score(measure)": lambda v: score(model, index, measure=v),
        "score(topn)": lambda v: score(model, index, topn=v),
        "score(window)": lambda v: score(model, index, window=v),
        "score(on_missing)": lambda v: score(model, index, on_missing=v),
        "diversity(topn)": lambda v: diversity(model, diversity_topn=v),
        "split(heldout)": lambda v: corpus.split(heldout=v),
        "train(iterations)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=2, iterations=v),
        "train(model)": lambda v: tealeaves.train(corpus, v, k=2),
        "auto_word_intrusion(c)": lambda v: tealeaves.auto_word_intrusion(model, index, c=v),
        "auto_word_intrusion(folds)": lambda v: tealeaves.auto_word_intrusion(model, index, folds=v),
        "auto_word_intrusion(protocol)": lambda v: tealeaves.auto_word_intrusion(model, index, protocol=v),
        "auto_word_intrusion(association)": lambda v: tealeaves.auto_word_intrusion(model, index, association=v),
        "auto_word_intrusion(draws)": lambda v: tealeaves.auto_word_intrusion(model, index, draws=v),
        "estimate(variant)": lambda v: estimate(model, None, corpus, variant=v, particles=2),
        "estimate(schedule)": lambda v: estimate(model, None, corpus, method="ais", schedule=v, temperatures=5),
        "estimate(on_missing)": lambda v: estimate(model, None, corpus, on_missing=v, particles=2),
        "complete(split)": lambda v: complete(model, None, corpus, split=v, particles=2),
        "halves(mode)": lambda v: corpus.halves(v),
        "top_words(n)": lambda v: model.top_words(v),
        "infer(on_missing)": lambda v: model.infer(corpus, on_missing=v),
        "train(k)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=v, iterations=2),
        "train(seed)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=2, seed=v, iterations=2),
        "lda-gibbs(sampler)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=2, sampler=v, iterations=2),
        "lda-vb(method)": lambda v: tealeaves.train(corpus, "lda-vb", k=2, method=v, iterations=2),
        "create_study(protocol)": lambda v: tealeaves.create_study({"a": model}, "word-intrusion", protocol=v),
        "create_study(scale)": lambda v: tealeaves.create_study({"a": model}, "rating", scale=v),
        "inverted_rbo(p)": lambda v: inverted_rbo(model, p=v),
        "diversity(min_uniqueness)": lambda v: diversity(model, min_uniqueness=v),
        "temperatures_schedule(temperatures)": lambda v: temperatures_schedule(v),
        "perturbation_study(lambdas)": lambda v: perturbation_study(model, None, corpus, lambdas=v),
        "topic_significance(epsilon)": lambda v: topic_significance(model, np.full((30, 4), 0.25), epsilon=v),
        "subset(indices)": lambda v: corpus.subset(v),
        "train(progress)": lambda v: tealeaves.train(corpus, "lda-gibbs", k=2, iterations=2, progress=v),
        "estimate(progress)": lambda v: estimate(model, None, corpus, particles=2, progress=v),
        "parallel_map(workers)": lambda v: parallel_map(abs, [1, -2], workers=v),
        "parallel_map(scheduler)": lambda v: parallel_map(abs, [1, -2], scheduler=v),
        "Topics.top(n)": lambda v: as_topics(model).top(v),  # -1 dropped each topic's last word
        "trainer_rules(model)": lambda v: trainer_rules(v),
        "lda-vb(kappa)": lambda v: tealeaves.train(corpus, "lda-vb", k=2, kappa=v, iterations=2),
        "dvae(checkpoint)": lambda v: tealeaves.train(corpus, "dvae", k=2, checkpoint=v),  # refused before torch
        "etm(validation_share)": lambda v: tealeaves.train(corpus, "etm", k=2, validation_share=v, epochs=1),
        "get_metric(name)": lambda v: get_metric(v),
    }


def each_wrong_value(calls):
    """Each call given each wrong value: the other exceptions than TealeavesError raised, and the values taken."""
    raw, taken = [], []
    for (name, call), (kind, value) in itertools.product(calls.items(), WRONG.items()):
        try:
            call(value)
        except TealeavesError:
            continue
        except Exception as error:  # what the tests look for
            raw.append(f"{name} <- {kind}: {type(error).__name__}: {error}")
            continue
        taken.append((name, kind))
    return raw, taken


def test_a_value_of_the_wrong_type_or_range_is_a_tealeaves_error(inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    raw, _ = each_wrong_value(calls(*inputs))
    assert raw == []


@pytest.fixture(scope="module")
def human(tmp_path_factory):
    """Twelve topics' ratings, two metrics' values and a CSV of them: what the analysis functions read."""
    rng = np.random.default_rng(1)
    answers = [rng.integers(1, 4, size=rng.integers(3, 7)).astype(float) for _ in range(12)]
    topics = pd.DataFrame(
        {"dataset": "d", "model": "m", "topic": range(12), "words": [f"w{k} x{k}" for k in range(12)]}
    )
    judgments = analysis.HumanJudgments("d rating", "rating", topics, RaggedScores(answers))
    metrics = pd.DataFrame({"a": rng.normal(size=12), "b": rng.normal(size=12)})
    path = tmp_path_factory.mktemp("metrics") / "scores.csv"
    metrics.assign(model="m", topic=range(12)).to_csv(path, index=False)
    return judgments, metrics, f"csv:{path}"


def analysis_calls(judgments, metrics, spec):
    a, groups, fast = metrics["a"].to_numpy(), {"x": [0.9, 0.8, 0.7], "y": [0.5, 0.6, 0.4]}, {"n_sim": 20}
    human, means, margins = judgments.answers, judgments.answers.means(), {"a": 0.05, "b": 0.05}
    return {
        "validate(judgments)": lambda v: analysis.validate(v, [spec], n_resamples=20),
        "validate(metrics)": lambda v: analysis.validate([judgments], v, n_resamples=20),
        "validate(n_resamples)": lambda v: analysis.validate([judgments], [spec], n_resamples=v),
        "validate(confidence)": lambda v: analysis.validate([judgments], [spec], n_resamples=20, confidence=v),
        "validate(resample)": lambda v: analysis.validate([judgments], [spec], n_resamples=20, resample=v),
        "annotators_needed(task)": lambda v: analysis.annotators_needed(v, **fast),
        "annotators_needed(power)": lambda v: analysis.annotators_needed("rating", power=v, **fast),
        "annotators_needed(effect)": lambda v: analysis.annotators_needed("rating", effect=v, **fast),
        "annotators_needed(max_annotators)": lambda v: analysis.annotators_needed("rating", max_annotators=v, **fast),
        "simulate_power(annotators)": lambda v: analysis.simulate_power("rating", v, **fast),
        "power_curve(annotators)": lambda v: analysis.power_curve("rating", v, **fast),
        "topic_level_power(share)": lambda v: analysis.topic_level_power("rating", 5, share=v, **fast),
        "equivalence_margin(step)": lambda v: analysis.equivalence_margin("rating", 5, step=v, **fast),
        "annotators_for_study(items_per_model)": lambda v: analysis.annotators_for_study("rating", v, **fast),
        "annotators_for_study(models)": lambda v: analysis.annotators_for_study("rating", 20, models=v, **fast),
        "bootstrap_correlations(n_resamples)": lambda v: analysis.bootstrap_correlations(human, metrics, n_resamples=v),
        "topic_bootstrap_correlations(confidence)": lambda v: analysis.topic_bootstrap_correlations(
            means, metrics, confidence=v, n_resamples=20
        ),
        "paired_bootstrap(a)": lambda v: analysis.paired_bootstrap(human, v, a, n_resamples=20),
        "paired_bootstrap(n_resamples)": lambda v: analysis.paired_bootstrap(human, a, a, n_resamples=v),
        "split_half(n_splits)": lambda v: analysis.split_half([0, 1, 2, 3] * 3, [3, 2, 1, 2] * 3, n_splits=v),
        "krippendorff_alpha(score)": lambda v: analysis.krippendorff_alpha([0, 1], [0, 0], v),
        "compare_models(groups)": lambda v: analysis.compare_models(v),
        "compare_models(alpha)": lambda v: analysis.compare_models(groups, alpha=v),
        "pairwise_tests(alpha)": lambda v: analysis.pairwise_tests(groups, "t", alpha=v),
        "cluster_bootstrap_comparison(answers)": lambda v: analysis.cluster_bootstrap_comparison(v),
        "false_discovery_rates(n_iter)": lambda v: analysis.false_discovery_rates(
            "rating", human, metrics, margins, k=4, n_iter=v
        ),
        "false_discovery_rates(alpha)": lambda v: analysis.false_discovery_rates(
            "rating", human, metrics, margins, k=4, n_iter=10, alpha=v
        ),
        "false_discovery_rates(metric_margins)": lambda v: analysis.false_discovery_rates(
            "rating", human, metrics, v, k=4, n_iter=10
        ),
        "rank_mixtures(weights)": lambda v: analysis.rank_mixtures(pd.DataFrame(), "a", "b", weights=v),
        "select(responses)": lambda v: analysis.select(v),
        "human_scores(responses)": lambda v: analysis.human_scores(v),
        "regress(y)": lambda v: analysis.regress(v, a, "linear"),
        "topic_log_odds(theta)": lambda v: analysis.topic_log_odds(v, [0], 1),
    }


def test_an_analysis_value_of_the_wrong_type_or_range_is_a_tealeaves_error(human):
    # the analysis package (power, validation, comparisons, agreement) was not in the sweep above: 222 of
    # these 330 calls raised Python's, NumPy's or pandas' own errors, and 9 took a NaN level, a negative
    # count or a word (annotators_for_study(models=nan), false_discovery_rates(alpha=-1), ...)
    raw, taken = each_wrong_value(analysis_calls(*human))
    assert raw == []
    assert [(name, kind) for name, kind in taken if kind in ("nan", "negative", "str", "list", "dict", "empty")] == []


def stats_calls():
    """The statistics layer's public tests, intervals, corrections and designs, each with one value replaced."""
    a, b = np.random.default_rng(0).normal(size=(2, 12))
    stream = lambda: np.random.default_rng(0)  # noqa: E731
    at_ceiling, null = np.array([0.5, 0.9, 1.0]), np.random.default_rng(1).normal(size=(100, 2))
    return {
        "welch_test(a)": lambda v: stats.welch_test(v, b),
        "paired_t_test(a)": lambda v: stats.paired_t_test(v, b),  # a number was broadcast against b
        "t_test_of_estimate(se)": lambda v: stats.t_test_of_estimate(0.1, v, 10),
        "mean_with_interval(values)": lambda v: stats.mean_with_interval(v),
        "mean_with_interval(bounds)": lambda v: stats.mean_with_interval(a, bounds=v),
        "bootstrap_t_interval(values)": lambda v: stats.bootstrap_t_interval(v),
        "percentile_interval(resamples)": lambda v: stats.percentile_interval(v),
        "bootstrap_se(resamples)": lambda v: stats.bootstrap_se(v),
        "jackknife_se(leave_one_out)": lambda v: stats.jackknife_se(v),
        "gaffke_limit(values)": lambda v: stats.gaffke_limit(v, 1.0, 0.95, stream()),
        "gaffke_limit(rng)": lambda v: stats.gaffke_limit(at_ceiling, 1.0, 0.95, v),
        "bounded_t_interval(bounds)": lambda v: stats.bounded_t_interval(0.5, 0.1, 10, bounds=v),
        "permutation_test(a)": lambda v: stats.permutation_test(v, b, stream(), n_resamples=99),
        "permutation_test(rng)": lambda v: stats.permutation_test(a, b, v, n_resamples=99),
        "permutation_test(n_resamples)": lambda v: stats.permutation_test(a, b, stream(), n_resamples=v),
        "studentised_permutation_test(rng)": lambda v: stats.studentised_permutation_test(a, b, v, n_resamples=99),
        "randomisation_test(n)": lambda v: stats.randomisation_test(lambda g: g.sum(axis=1), 5, v, stream(), 99),
        "randomisation_test(quantity)": lambda v: stats.randomisation_test(v, 5, 10, stream(), 99),
        "bootstrap_z_test(resamples)": lambda v: stats.bootstrap_z_test(0.1, v),
        "holm(pvalues)": lambda v: stats.holm(v),
        "benjamini_hochberg(pvalues)": lambda v: stats.benjamini_hochberg(v),
        "bonferroni_intervals(alpha)": lambda v: stats.bonferroni_intervals([0.5, 0.1], [0.1, 0.1], [10, 10], v),
        "max_t_pvalues(observed)": lambda v: stats.max_t_pvalues(v, [0.1, 0.1], [a, b]),
        "westfall_young(alpha)": lambda v: stats.westfall_young([2.0, 1.0], null, alpha=v),
        "westfall_young(null)": lambda v: stats.westfall_young([2.0, 1.0], v),
        "minimal_detectable_difference(se)": lambda v: stats.minimal_detectable_difference(v, 20),
        "minimal_detectable_difference(alpha)": lambda v: stats.minimal_detectable_difference(0.1, 20, alpha=v),
        "detectable_difference(power)": lambda v: stats.detectable_difference(2.0, 0.1, 20, power=v),
        "tost_pvalue(margin)": lambda v: stats.tost_pvalue(0.1, 0.05, 20, v),
        "mann_whitney(a)": lambda v: stats.mann_whitney(v, [1, 2, 3]),
        "mann_whitney_counts(counts_a)": lambda v: stats.mann_whitney_counts(v, [1, 2, 3]),
        "t_test(a)": lambda v: stats.t_test(v, b),
        "proportion_test(count_a)": lambda v: stats.proportion_test(v, 10, 5, 10),
        "runs_t_test(a)": lambda v: stats.runs_t_test(v, [a, b]),
        "random_orders(rng)": lambda v: stats.random_orders(v, 5, 4),
        "bootstrap_counts(n_resamples)": lambda v: stats.bootstrap_counts(5, v, stream()),  # None: one draw, unshaped
        "stratified_indices(strata)": lambda v: stats.stratified_indices(v, 10, stream()),
        "stratified_counts(rng)": lambda v: stats.stratified_counts([0, 0, 1], 10, v),
        "within_group_draws(sizes)": lambda v: stats.within_group_draws(np.arange(5.0), v, 10, stream()),
        "resampled_group_means(rng)": lambda v: stats.resampled_group_means(np.arange(5.0), [2, 3], 10, v),
        "paired_ratio_bootstrap(series)": lambda v: stats.paired_ratio_bootstrap(v, 10, stream()),
        "delete_d_jackknife_se(k)": lambda v: stats.delete_d_jackknife_se(lambda m: m.sum(1), v, stream(), 20),
        "two_way_cluster_bootstrap(rng)": lambda v: stats.two_way_cluster_bootstrap(
            np.ones(4), np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([0, 0]), 10, v
        ),
    }


def test_a_stats_value_of_the_wrong_type_or_range_is_a_tealeaves_error():
    # 415 of these calls (with 2-d and one-value arrays too) raised NumPy's or Python's own errors, and some
    # took a wrong value without a word: a number as a paired series (broadcast against the other),
    # negative or NaN counts in proportion_test, westfall_young(alpha=-1), bonferroni_intervals(alpha=True),
    # a negative margin in tost_pvalue, a negative standard error in minimal_detectable_difference
    raw, taken = each_wrong_value(stats_calls())
    assert raw == []
    # what remains taken is valid there: no bounds (unbounded), a NaN standard error (untestable: NaN p), a
    # number of resamples or units, counts (True is 1, as NumPy reads a correct answer), labels
    assert sorted(taken) == [
        ("bootstrap_counts(n_resamples)", "int"),
        ("bounded_t_interval(bounds)", "None"),
        ("delete_d_jackknife_se(k)", "int"),
        ("mean_with_interval(bounds)", "None"),
        ("minimal_detectable_difference(se)", "bool"),
        ("minimal_detectable_difference(se)", "float"),
        ("minimal_detectable_difference(se)", "int"),
        ("minimal_detectable_difference(se)", "nan"),
        ("permutation_test(n_resamples)", "int"),
        ("proportion_test(count_a)", "bool"),
        ("proportion_test(count_a)", "float"),
        ("proportion_test(count_a)", "int"),
        ("stratified_indices(strata)", "list"),  # one unit labelled "a"
        ("t_test_of_estimate(se)", "float"),
        ("t_test_of_estimate(se)", "int"),
        ("t_test_of_estimate(se)", "nan"),
        ("tost_pvalue(margin)", "float"),
        ("tost_pvalue(margin)", "int"),
    ]


def test_an_untestable_difference_is_never_called_equivalent():
    # a NaN standard error was read as no spread at all: p = 0 ("equivalent") for any estimate inside the margin
    assert math.isnan(stats.tost_pvalue(0.01, math.nan, 20, 0.05))
    assert stats.tost_pvalue(0.01, 0.0, 20, 0.05) == 0.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: stats.paired_t_test([1.0, 2.0, 3.0], [1.0, 2.0]), "same units, got 3 and 2"),
        (lambda: stats.holm([0.01, 1.5]), r"pvalues must lie in \[0, 1\].*1\.5"),
        (lambda: stats.benjamini_hochberg([-0.2, 0.3]), r"pvalues must lie in \[0, 1\]"),
        (lambda: stats.proportion_test(12, 10, 5, 10), "counts between 0 and their observations"),
        (lambda: stats.proportion_test(-1, 10, 5, 10), "counts between 0 and their observations"),
        (lambda: stats.mann_whitney([1, 2, 5], [1, 2], levels=[1, 2, 3]), "on the scale of levels"),
        (lambda: stats.mann_whitney_counts([1, 2], [1, 2, 3]), "same categories, got 2 and 3"),
        (lambda: stats.westfall_young([2.0, 1.0, 0.5], np.zeros((99, 2))), r"shape \(B, 3\).*\(99, 2\)"),
        (lambda: stats.bonferroni_intervals([0.5, 0.1], [0.1], [10, 10]), "one se and df a difference"),
        (lambda: stats.mean_with_interval([0.2, 0.4], bounds=(1.0, 0.0)), "low < high"),
        (lambda: stats.jackknife_se([0.3]), "at least two units, got 1"),
        (lambda: stats.randomisation_test(lambda g: g.sum(axis=1), 10, 10, np.random.default_rng(0)), "0 < n_a < n"),
        (lambda: stats.tost_pvalue(0.1, 0.05, 20, -0.2), "margin > 0"),
    ],
)
def test_stats_inputs_that_do_not_fit_together_are_refused_by_name(call, message):
    # each was taken without a word (a p-value of 1.5 adjusted, 12 successes in 10 trials tested, a response
    # off the scale dropped) or failed inside NumPy
    with pytest.raises(TealeavesError, match=message):
        call()
