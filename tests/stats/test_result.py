"""TestResult: one type for every test, its table, and the old names of PairedTest's fields."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.stats import TestResult, bootstrap_z_test, t_test, welch_test


def test_a_result_shows_itself_and_tabulates_batched_tests():
    single = welch_test([0.12, 0.15, 0.11, 0.14], [0.08, 0.10, 0.09, 0.12, 0.02])
    assert repr(single).startswith("TestResult(test=Welch's t, statistic=2.504, pvalue=p = 0.0462")
    assert single.columns()["pvalue"].tolist() == [single.pvalue] and single.columns()["n"].tolist() == [9]
    batched = t_test(np.zeros((3, 4)) + np.arange(4), np.ones((3, 5)) + np.arange(5), "smaller")
    table = batched.columns()
    assert len(table["statistic"]) == 3 and table["test"] == ["Student t"] * 3 and table["alternative"][0] == "smaller"
    frame = batched.to_frame()
    assert list(frame.columns)[:2] == ["statistic", "pvalue"] and len(frame) == 3
    assert "<table>" in single._repr_html_() and single.n_resamples == 0


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("p_value", "pvalue"),
        ("observed", "difference"),
        ("n_topics", "n"),
        ("n_boot", "n_resamples"),
        ("replicates", "resamples"),
        ("method", "estimand"),
        ("uncertainty", "resampled"),
    ],
)
def test_the_fields_of_paired_test_are_deprecated_names(old, new):
    result = bootstrap_z_test(0.2, np.linspace(0, 0.4, 50), n=12, estimand="spearman", resampled="topics")
    with pytest.warns(DeprecationWarning, match=f"TestResult.{old} is deprecated; use TestResult.{new}"):
        value = getattr(result, old)
    assert value is getattr(result, new) or value == getattr(result, new)


def test_test_result_is_not_collected_by_pytest():
    assert TestResult.__test__ is False
