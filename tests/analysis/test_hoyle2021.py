"""Replication of Hoyle et al. 2021 on their released files: Tables 3, 4 and 10, agreement, A.5."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tealeaves.analysis import load_hoyle2021, replicate_hoyle2021
from tealeaves.analysis.replication import KEYS

COLUMNS = [(m, r) for m in ("NPMI", "Cv") for r in ("NYT", "WIKI", "Train", "Val")]
ROWS = [(t, d) for t in ("Intrusion", "Rating") for d in ("NYT", "WIKI", "Concatenated")]
TABLE_3 = [  # Spearman rho, the paper's Table 3 (rows in ROWS order, columns in COLUMNS order)
    [0.27, 0.43, 0.27, 0.24, 0.34, 0.45, 0.35, 0.34],
    [0.34, 0.36, 0.39, 0.17, 0.32, 0.34, 0.34, 0.20],
    [0.29, 0.40, 0.32, 0.17, 0.32, 0.40, 0.35, 0.24],
    [0.37, 0.48, 0.37, 0.39, 0.41, 0.46, 0.44, 0.45],
    [0.34, 0.41, 0.44, 0.28, 0.32, 0.40, 0.40, 0.34],
    [0.37, 0.44, 0.41, 0.35, 0.38, 0.42, 0.42, 0.42],
]
TABLE_10 = [  # logistic (intrusion) / ordered probit (ratings) coefficients, Table 10
    [2.42, 4.16, 2.11, 1.97, 2.50, 3.27, 2.55, 2.40],
    [4.11, 5.08, 5.45, 0.87, 2.23, 2.79, 2.74, 0.70],
    [2.82, 4.56, 3.18, 0.78, 2.30, 3.05, 2.64, 0.87],
    [1.92, 2.08, 1.77, 1.85, 2.55, 2.51, 2.68, 2.59],
    [2.97, 4.10, 4.29, 1.45, 2.01, 2.82, 2.86, 0.80],
    [2.20, 2.75, 2.52, 1.17, 2.27, 2.60, 2.74, 1.07],
]
TABLE_4 = [  # FDR / FOR in percent, Table 4 (NYT, WIKI, Train references of NPMI then C_v)
    [(46, 53), (34, 48), (48, 50), (35, 38), (30, 29), (34, 35)],
    [(44, 76), (33, 78), (33, 75), (45, 48), (38, 49), (37, 45)],
    [(42, 67), (40, 66), (41, 64), (36, 46), (31, 44), (30, 45)],
    [(45, 50), (45, 51), (41, 47), (27, 29), (26, 26), (21, 26)],
    [(40, 73), (31, 73), (33, 71), (38, 40), (31, 40), (28, 34)],
    [(39, 66), (36, 66), (37, 62), (31, 38), (28, 38), (19, 36)],
]


def paper_frame(values, names) -> pd.DataFrame:
    rows = []
    for (task, dataset), row in zip(ROWS, values):
        columns = COLUMNS if len(row) == 8 else [c for c in COLUMNS if c[1] != "Val"]
        for (metric, reference), value in zip(columns, row):
            rows.append(
                {
                    "task": task,
                    "dataset": dataset,
                    "metric": metric,
                    "reference": reference,
                    **dict(zip(names, np.atleast_1d(value))),
                }
            )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def replication(shared_data):
    study = load_hoyle2021(shared_data / "human" / "hoyle2021")
    return replicate_hoyle2021(study, n_boot=300, n_iter=10000, n_sim=2000, seed=0)


def test_table_3_spearman(replication):
    merged = paper_frame(TABLE_3, ["paper"]).merge(replication.correlations, on=KEYS)
    deviation = (merged["spearman"] - merged["paper"]).abs()
    assert len(merged) == 48
    assert deviation.mean() <= 0.015 and deviation.max() <= 0.05
    assert ((merged["ci_low"] < merged["spearman"]) & (merged["spearman"] < merged["ci_high"])).all()
    best = replication.correlations[replication.correlations["best"]]
    assert len(best) == 6  # one per row


def test_table_10_regressions(replication):
    merged = paper_frame(TABLE_10, ["paper"]).merge(replication.regressions, on=KEYS)
    assert len(merged) == 48
    assert (merged["coef"] - merged["paper"]).abs().max() <= 0.3
    assert (merged["coef"] - merged["paper"]).abs().max() <= 0.006  # in fact equal to the printed digits


def test_table_4_false_discovery_and_omission(replication):
    merged = paper_frame(TABLE_4, ["paper_fdr", "paper_for"]).merge(replication.fdr, on=KEYS)
    assert len(merged) == 36
    assert (100 * merged["fdr"] - merged["paper_fdr"]).abs().max() <= 10
    assert (100 * merged["for"] - merged["paper_for"]).abs().max() <= 10


def test_agreement_one_vs_rest(replication):
    table = replication.agreement.set_index(["task", "dataset", "items", "measure"])["value"].sort_index()
    ratings = table[("Rating", "Concatenated", "with attention checks")]
    # the paper reports a mean one-vs-rest Spearman of 0.75 (ratings, with its synthetic topics)
    assert abs(ratings["one-vs-rest Pearson"] - 0.75) < 0.02
    assert 0.65 < ratings["one-vs-rest Spearman"] < 0.75
    assert table[("Rating", "NYT", "with attention checks", "one-vs-rest Spearman")] == pytest.approx(0.72, abs=0.01)
    assert (replication.agreement["value"] > 0).all()


def test_power_and_model_comparisons(replication):
    power = replication.power.set_index("task")
    assert abs(power.loc["Intrusion", "annotators_needed"] - 25) <= 3
    assert abs(power.loc["Rating", "annotators_needed"] - 15) <= 3
    tests = replication.comparisons.set_index(["dataset", "task", "familiar_only", "model_a", "model_b"])["significant"]
    # Fig. 2 / §6.1: NPMI declares D-VAE the winner; ratings favour G-LDA (mallet); intrusion favours D-VAE
    for dataset in ("NYT", "WIKI"):
        assert tests[(dataset, "NPMI", False, "dvae", "mallet")] and tests[(dataset, "NPMI", False, "dvae", "etm")]
        assert tests[(dataset, "Rating", False, "mallet", "dvae")]
        assert tests[(dataset, "Intrusion", False, "dvae", "etm")]


def test_familiarity(replication):
    scores = replication.scores
    dvae = scores[(scores["model"] == "dvae") & ~scores["familiar_only"]]
    assert (dvae["familiar_share"] < 0.85).all()  # §6.3: about 70% for D-VAE, over 90% for the others
    assert (scores[(scores["model"] != "dvae")]["familiar_share"] > 0.9).all()
    filtered = scores[scores["familiar_only"] & (scores["model"] == "dvae")].set_index(["task", "dataset"])["mean"]
    assert (filtered > dvae.set_index(["task", "dataset"])["mean"]).all()  # Fig. 3: D-VAE improves


TABLE_11A = [  # Table 11a: Spearman rho after removing answers of annotators unfamiliar with the terms
    [0.34, 0.51, 0.32, 0.25, 0.44, 0.55, 0.42, 0.38],
    [0.39, 0.39, 0.40, 0.14, 0.38, 0.40, 0.39, 0.13],
    [0.36, 0.45, 0.36, 0.18, 0.41, 0.48, 0.41, 0.26],
    [0.45, 0.59, 0.44, 0.43, 0.51, 0.58, 0.53, 0.52],
    [0.45, 0.51, 0.51, 0.21, 0.44, 0.51, 0.51, 0.23],
    [0.47, 0.54, 0.47, 0.35, 0.49, 0.53, 0.51, 0.42],
]
TABLE_11C = [  # Table 11c: regression coefficients after the same filtering
    [3.71, 7.14, 3.04, 2.54, 3.34, 4.54, 3.23, 2.94],
    [5.87, 6.46, 6.19, 0.85, 3.23, 3.59, 3.39, 0.42],
    [4.24, 6.81, 4.17, 0.94, 3.18, 4.06, 3.30, 0.91],
    [4.40, 5.87, 3.85, 3.93, 3.97, 4.44, 4.03, 3.89],
    [4.84, 5.95, 5.65, 1.33, 2.96, 3.73, 3.69, 0.62],
    [4.49, 5.80, 4.56, 1.78, 3.45, 3.91, 3.81, 1.32],
]


def test_table_11_familiarity_filtering(shared_data):
    from tealeaves.analysis.replication import correlation_table, regression_table

    study = load_hoyle2021(shared_data / "human" / "hoyle2021")
    correlations = paper_frame(TABLE_11A, ["paper"]).merge(correlation_table(study, True, 300, 0, None), on=KEYS)
    deviation = (correlations["spearman"] - correlations["paper"]).abs()
    assert len(correlations) == 48 and deviation.mean() <= 0.015 and deviation.max() <= 0.05
    regressions = paper_frame(TABLE_11C, ["paper"]).merge(regression_table(study, True, None), on=KEYS)
    assert len(regressions) == 48 and (regressions["coef"] - regressions["paper"]).abs().max() <= 0.006
