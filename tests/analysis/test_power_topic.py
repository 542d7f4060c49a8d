"""The topic-level power analysis: the test the study analysis runs, answers clustered by topic and annotator."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tealeaves.analysis import annotators_for_study, compare_models, load_hoyle2021, topic_level_power
from tealeaves.analysis.power import HOYLE_SPREAD
from tealeaves.errors import InputError


def mc_se(p: float, *sims: int) -> float:
    """The standard error of a simulated rate p (of the difference of independent ones)."""
    return float(np.sqrt(p * (1 - p) * sum(1 / n for n in sims)))


def test_spread_is_measured_on_hoyle_2021(shared_data):
    """HOYLE_SPREAD recomputed from the per-respondent responses: topic means, their spread, annotators."""
    responses = load_hoyle2021(shared_data / "human" / "hoyle2021").responses
    responses = responses[~responses["is_check"].astype(bool)]
    for task, column in (("word-intrusion", "correct"), ("rating", "response")):
        part = responses[responses["task"] == task]
        y = part[column].astype(float)
        key = part["dataset"] + "/" + part["model"] + "/" + part["topic"].astype(str)
        topic = y.groupby(key)
        within = np.average(topic.var(ddof=1), weights=topic.size() - 1)  # pooled within-topic variance
        tau2 = topic.mean().var(ddof=1) - np.mean(within / topic.size())
        residual = (y - topic.transform("mean")).groupby(part["annotator"])
        annotator2 = residual.mean().var(ddof=1) - np.mean(within / residual.size())
        spread = HOYLE_SPREAD[task]
        assert topic.ngroups == 300
        assert topic.mean().mean() == pytest.approx(spread.mean, abs=6e-4)
        assert np.sqrt(tau2) == pytest.approx(spread.sd, abs=6e-4)
        assert np.sqrt(annotator2) == pytest.approx(spread.annotator_sd, abs=6e-4)


def direct_power(task: str, m: int | None, k: int, r: int, sims: int, seed: int) -> float:
    """Study by study: Beta topic scores, r incoherent topics in B, each topic answered by m
    distinct annotators drawn at random from the 4m of the study, each answer drawn; the p-value of
    study analysis' comparison (Welch's two-sided t over topics, as compare_models, by scipy)."""
    s = HOYLE_SPREAD[task]
    mean, var = (s.mean - s.low) / s.steps, (s.sd / s.steps) ** 2
    a = mean * (mean * (1 - mean) / var - 1)
    b = a * (1 - mean) / mean
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(sims):
        theta = s.low + s.steps * rng.beta(a, b, size=(2, k))
        theta[1, :r] = s.incoherent
        scores = theta.copy()
        if m is not None:
            effects = rng.normal(0, s.annotator_sd, 4 * m)
            who = np.argsort(rng.random((2, k, 4 * m)), axis=-1)[..., :m]  # m distinct annotators a topic
            q = np.clip((theta[..., None] + effects[who] - s.low) / s.steps, 0, 1)
            scores = (s.low + rng.binomial(s.steps, q)).mean(axis=-1)
        p = stats.ttest_ind(scores[0], scores[1], equal_var=False).pvalue
        if not hits:  # the analysis' comparison is this test (compare_models is slower than scipy)
            assert compare_models({"a": scores[0], "b": scores[1]})["pvalue"].iloc[0] == pytest.approx(p)
        hits += p < 0.05
    return hits / sims


@pytest.mark.parametrize(("task", "r"), [("word-intrusion", 8), ("rating", 6)])
def test_power_matches_a_direct_simulation_of_the_topic_test(task, r):
    ours = topic_level_power(task, 5, k=30, effect=r, n_sim=4000, seed=1)
    direct = direct_power(task, 5, 30, r, sims=600, seed=2)
    assert 0.2 < ours < 0.8  # an informative point of the curve
    # two independent Monte Carlo estimates: 4,000 and 600 studies, SE of the difference <= 0.022
    assert abs(ours - direct) < 4 * mc_se(0.5, 4000, 600)
    ceiling = topic_level_power(task, None, k=30, effect=r, n_sim=4000, seed=1)
    assert abs(ceiling - direct_power(task, None, 30, r, sims=600, seed=3)) < 4 * mc_se(0.5, 4000, 600)
    assert ceiling > ours  # unlimited answers: the most any number of annotators gives


@pytest.mark.parametrize("task", ["word-intrusion", "rating"])
def test_under_the_null_the_topic_test_rejects_at_its_level(task):
    # 20,000 simulated studies: MC SE sqrt(0.05 * 0.95 / 20000) = 0.0015
    rate = topic_level_power(task, 10, k=20, effect=0, n_sim=20000, seed=4)
    assert abs(rate - 0.05) < 4 * mc_se(0.05, 20000)
    # three models: Holm's first level, 0.05 / 3
    rate = topic_level_power(task, 10, k=20, effect=0, n_sim=20000, seed=5, pairs=3)
    assert abs(rate - 0.05 / 3) < 4 * mc_se(0.05 / 3, 20000)


def test_a_study_is_sized_for_the_topic_test():
    # Rating 50 topics, a model with 15 more incoherent: reachable; the fewest answers reaching 0.9
    size = annotators_for_study("rating", 50, effect=0.3)
    assert size.reachable and size.fewer == 15
    assert size.power == topic_level_power("rating", size.annotators, 50, 15) >= 0.9
    assert size.annotators == 1 or topic_level_power("rating", size.annotators - 1, 50, 15) < 0.9
    # Hoyle et al.'s design, 4 more incoherent of 50: no number of answers gives power 0.9 with the
    # topic-level test (Hoyle et al.'s pooled test, answers as independent, claims it with 22)
    size = annotators_for_study("word-intrusion", 50, effect=4)
    assert not size.reachable and size.ceiling < 0.2
    assert size.ceiling - 0.01 <= size.power <= size.ceiling
    assert topic_level_power("topic-intrusion", 3, 20, 4, n_sim=500) == topic_level_power(
        "word-intrusion", 3, 20, 4, n_sim=500
    )
    assert topic_level_power("word-intrusion", None, 200, 16) > 2 * size.ceiling  # more topics help
    assert annotators_for_study("rating", 10, effect=0.001).fewer == 1  # at least one item


def test_topic_power_refuses_bad_arguments():
    with pytest.raises(InputError, match="task"):
        topic_level_power("essay", 5)
    # each value out of its range is named, with what it must be (one message listed every condition)
    for options, message in [
        ({"k": 1}, r"^the power analysis needs k >= 2 topics per model \(a whole number\), got 1$"),
        ({"share": 0}, r"^the power analysis needs 0 < share <= 1, got 0$"),
        ({"alpha": 0.0}, r"^the power analysis needs 0 < alpha <= 0.5, got 0.0$"),
        ({"alpha": float("nan")}, r"^the power analysis needs 0 < alpha <= 0.5, got nan$"),
        ({"alpha": 0.95}, r"^the power analysis needs 0 < alpha <= 0.5, got 0.95$"),  # a confidence: taken before
        ({"k": 10, "effect": 11}, r"^the power analysis needs 0 <= effect <= k = 10 \(a whole number\), got 11$"),
        ({"pairs": 0}, r"^the power analysis needs pairs >= 1 \(a whole number\), got 0$"),
        ({"n_sim": 0}, r"^the power analysis needs n_sim >= 1 \(a whole number\), got 0$"),
    ]:
        with pytest.raises(InputError, match=message):
            topic_level_power("rating", 5, **options)
    with pytest.raises(InputError, match="two items"):
        annotators_for_study("rating", 1)
    # an effect of no item, a share above 1 ('4.0' for 4) or more items than there are: refused, not clamped
    for effect in (0, -2, 0.0, -0.1, 4.0, 11):
        with pytest.raises(InputError, match=r"effect must be a share of the 10 items per model in \(0, 1\]"):
            annotators_for_study("rating", 10, effect=effect)
    with pytest.raises(InputError, match="effect"):
        annotators_for_study("rating", 10, effect=True)
