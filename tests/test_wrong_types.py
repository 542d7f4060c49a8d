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
from tealeaves import analysis
from tealeaves.analysis.correlation import RaggedScores
from tealeaves.coherence import RefIndex, diversity, inverted_rbo, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import TealeavesError
from tealeaves.likelihood import complete, estimate, perturbation_study, predictive, temperatures_schedule
from tealeaves.models import TopicModel, as_topics, topic_significance
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
