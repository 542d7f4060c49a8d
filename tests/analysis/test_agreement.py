"""Agreement: Krippendorff's alpha by hand and against the krippendorff package; one-vs-rest; split-half."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tealeaves.analysis import krippendorff_alpha, one_vs_rest, split_half
from tealeaves.errors import EmptyResultError, InputError


def test_krippendorff_hand_example():
    # units (a,a), (a,b), (b,b), (b,b): o_aa = 2, o_ab = o_ba = 1, o_bb = 4; n_a = 3, n_b = 5, n = 8
    # alpha = 1 - (n - 1) * (o_ab + o_ba) / (2 n_a n_b) = 1 - 7 * 2 / 30
    annotator = ["x", "y"] * 4
    item = [0, 0, 1, 1, 2, 2, 3, 3]
    score = [0, 0, 0, 1, 1, 1, 1, 1]
    assert krippendorff_alpha(annotator, item, score, "nominal") == pytest.approx(1 - 14 / 30)
    # a single-valued unit is not pairable and changes nothing
    assert krippendorff_alpha([*annotator, "z"], [*item, 9], [*score, 0], "nominal") == pytest.approx(1 - 14 / 30)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_matches_package(level):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 4, size=40)
    data = np.where(rng.random((6, 40)) < 0.7, truth, rng.integers(1, 4, size=(6, 40))).astype(float)
    data[rng.random((6, 40)) < 0.3] = np.nan  # missing judgments
    annotators, items = np.nonzero(~np.isnan(data))
    ours = krippendorff_alpha(annotators, items, data[annotators, items], level)
    assert ours == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement=level), rel=1e-9)


def test_one_vs_rest_equals_brute_force():
    rng = np.random.default_rng(8)
    quality = rng.normal(size=30)
    rows = [(a, i, quality[i] + rng.normal(scale=0.8)) for a in range(6) for i in range(30) if rng.random() < 0.6]
    annotator, item, score = map(np.array, zip(*rows))
    result = one_vs_rest(annotator, item, score, method="spearman")
    brute = []
    for a in range(6):
        mine = {i: s for (b, i, s) in rows if b == a}
        pairs = []
        for i, s in mine.items():
            others = [t for (b, j, t) in rows if j == i and b != a]
            if others:
                pairs.append((s, np.mean(others)))
        x, y = np.array(pairs).T
        brute.append(stats.spearmanr(x, y)[0])
    assert result.value == pytest.approx(np.mean(brute))
    assert len(result.per_annotator) == 6
    pearson = one_vs_rest(annotator, item, score, method="pearson", unit="response").value
    assert 0.3 < pearson < 1


def test_split_half_bounds():
    items = np.repeat(np.arange(20), 8)
    perfect = np.repeat(np.linspace(0, 1, 20), 8)  # everybody gives an item the same score
    assert split_half(items, perfect, n_splits=5) == pytest.approx(1.0)
    rng = np.random.default_rng(9)
    values = [split_half(items, rng.random(items.size), n_splits=5, seed=s) for s in range(40)]
    assert abs(np.mean(values)) < 0.1  # pure noise: no agreement on average
    with pytest.raises(EmptyResultError):
        split_half([0, 1], [1.0, 2.0])


def test_agreement_refuses_responses_that_do_not_line_up():
    # pandas' "All arrays must be of the same length" and NumPy's "could not convert string to float" before
    with pytest.raises(InputError, match=r"one entry per response, got \{'annotator': 3, 'item': 3, 'score': 2\}"):
        krippendorff_alpha(["a", "b", "c"], [0, 0, 1], [1.0, 2.0])
    with pytest.raises(InputError, match=r"^score must be an array of numbers"):
        split_half([0, 1, 2], ["high", "low", "high"])
