"""Topic-level correlations, the annotator bootstrap and its intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tealeaves.analysis import RaggedScores, bootstrap_correlations, correlate_rows, model_level_correlation
from tealeaves.analysis.correlation import flag_overlaps
from tealeaves.errors import EmptyResultError, InputError


def test_correlate_rows_equals_scipy():
    rng = np.random.default_rng(10)
    human = rng.integers(0, 5, size=(20, 40)).astype(float)  # many ties
    metric = np.round(rng.normal(size=40), 1)
    spearman = correlate_rows(human, metric, "spearman")
    pearson = correlate_rows(human, metric, "pearson")
    for i in range(20):
        assert spearman[i] == pytest.approx(stats.spearmanr(human[i], metric)[0], rel=1e-12)
        assert pearson[i] == pytest.approx(stats.pearsonr(human[i], metric)[0], rel=1e-12)


def test_resampled_means_draw_each_topics_own_answers():
    groups = [np.array([0.0, 1.0]), np.array([5.0]), np.array([1.0, 2.0, 3.0, 10.0])]
    ragged = RaggedScores(groups)
    assert ragged.means() == pytest.approx([0.5, 5.0, 4.0])
    boots = ragged.resampled_means(4000, np.random.default_rng(0))
    assert (boots[:, 1] == 5.0).all()  # a single answer resamples to itself
    assert set(np.round(boots[:, 0] * 2) / 2) <= {0.0, 0.5, 1.0}
    assert boots.mean(axis=0) == pytest.approx(ragged.means(), abs=0.1)  # unbiased for the mean
    # variance of a resampled mean of n values: population variance / n
    assert boots[:, 2].var() == pytest.approx(np.var(groups[2]) / 4, rel=0.1)


def test_bootstrap_correlations_interval_and_flags():
    rng = np.random.default_rng(11)
    quality = rng.normal(size=60)
    groups = [q + rng.normal(scale=1.0, size=15) for q in quality]
    metrics = pd.DataFrame({"good": quality + rng.normal(scale=0.3, size=60), "noise": rng.normal(size=60)})
    result = bootstrap_correlations(RaggedScores(groups), metrics, n_resamples=300, seed=1)
    table = result.table.set_index("metric_column")
    assert table.loc["good", "best"] and not table.loc["noise", "best"]
    assert table.loc["good", "ci_low"] < table.loc["good", "mean"] < table.loc["good", "ci_high"]
    assert table.loc["noise", "ci_low"] < 0.3 and not table.loc["noise", "overlaps_best"]
    assert result.resamples.shape == (300, 2)
    again = bootstrap_correlations(RaggedScores(groups), metrics, n_resamples=300, seed=1)
    pd.testing.assert_frame_equal(result.table, again.table)  # same seed, same numbers


def test_flag_overlaps():
    table = pd.DataFrame({"mean": [0.3, 0.5, 0.45], "ci_low": [0.2, 0.4, 0.41], "ci_high": [0.39, 0.6, 0.5]})
    flagged = flag_overlaps(table)
    assert flagged["best"].tolist() == [False, True, False]
    assert flagged["overlaps_best"].tolist() == [False, True, True]


def test_model_level_and_errors():
    value, means = model_level_correlation([1, 2, 3, 4, 5, 6], [1, 1, 2, 2, 3, 4], ["a", "a", "b", "b", "c", "c"])
    assert value == pytest.approx(stats.pearsonr([1.5, 3.5, 5.5], [1, 2, 3.5])[0])
    assert len(means) == 3 and means["topics"].tolist() == [2, 2, 2]
    # an unscored topic (NaN metric) leaves its model's means, and the count says so
    value, means = model_level_correlation([1, 2, 3, 4, 5, 6], [1, np.nan, 2, 2, 3, 4], ["a", "a", "b", "b", "c", "c"])
    assert value == pytest.approx(stats.pearsonr([1, 3.5, 5.5], [1, 2, 3.5])[0])
    assert means["topics"].tolist() == [1, 2, 2] and not means.isna().any().any()
    with pytest.raises(EmptyResultError):
        model_level_correlation([1, 2], [1, 2], ["a", "b"])
    with pytest.raises(InputError, match="align"):
        bootstrap_correlations(RaggedScores([np.ones(2)] * 3), pd.DataFrame({"m": [1.0, 2.0]}))


def test_inputs_that_do_not_align_are_refused_by_name():
    # NumPy's "mismatch in its core dimension" and pandas' "All arrays must be of the same length" before
    with pytest.raises(InputError, match=r"^human scores of 3 topics and metric values of 2: they must align$"):
        correlate_rows(np.ones((2, 3)), [1.0, 2.0])
    with pytest.raises(InputError, match=r"one entry per topic, got \{'model': 4, 'human': 4, 'metric': 3\} entries"):
        model_level_correlation([1, 2, 3, 4], [1, 2, 3], ["a", "a", "b", "b"])


def test_answers_as_lists_make_human_judgments_and_words_are_refused():
    # HumanJudgments took a list as answers (and failed later inside validate); RaggedScores raised NumPy's
    # "could not convert string to float" for words and "all the input arrays must have same number of dimensions"
    from tealeaves.analysis import HumanJudgments

    topics = pd.DataFrame({"dataset": "d", "model": "m", "topic": range(3), "words": ["tax budget"] * 3})
    listed = HumanJudgments("d rating", "rating", topics, [[3, 2], [1, 2, 1], [3]])
    assert (
        listed.answers.means().tolist() == RaggedScores([[3, 2], [1, 2, 1], [3]]).means().tolist() == [2.5, 4 / 3, 3.0]
    )
    with pytest.raises(InputError, match=r"^topic 0's answers must be an array of numbers, got a list"):
        RaggedScores([["high", "low"], [1]])
    with pytest.raises(InputError, match=r"^topic 0's answers must be a list of numbers \(1 dimension\)"):
        RaggedScores([[[1, 2]], [3]])
    with pytest.raises(InputError, match=r"topics must be a DataFrame with the columns dataset, model, topic, words"):
        HumanJudgments("d rating", "rating", [0, 1, 2], [[3], [2], [1]])
