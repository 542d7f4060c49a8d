"""The whole analysis of Hoyle et al. 2021 §5-6 and Appendices A.5-A.7 on their released files.

:func:`replicate_hoyle2021` recomputes, from ``human/hoyle2021``:

- ``correlations``: Table 3 (Spearman's rho between mean human scores and NPMI / C_v for each
  reference, mean over bootstrap resamples of each topic's annotators, 95% interval, best and
  overlapping-best flags), and Table 11a with ``familiar_only``;
- ``regressions``: Table 10 (logistic / ordered probit coefficients with 95% intervals);
- ``fdr``: Table 4 (false discovery and omission rates by the resampling procedure, with the
  authors' weighting of false discoveries and Concatenated as one pool of 300 topics);
- ``agreement``: one-vs-rest Spearman and Pearson (the paper: 0.75), split-half Pearson and
  Krippendorff's alpha, per task and dataset, from the per-respondent CSVs;
- ``power``: the annotators needed (A.5) and the equivalence margins (A.5.1) by simulation;
- ``comparisons``: Fig. 2's pairwise one-tailed tests between models;
- ``scores``: per-model human scores with and without familiarity filtering (Fig. 3).

Labels follow the paper: task ``Intrusion`` / ``Rating``; dataset ``NYT`` / ``WIKI`` /
``Concatenated`` (the NYT and WIKI topics pooled); metric ``NPMI`` / ``Cv``; reference ``NYT`` /
``WIKI`` / ``Train`` / ``Val``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from tealeaves.analysis.agreement import krippendorff_alpha, one_vs_rest, split_half
from tealeaves.analysis.comparison import pairwise_tests
from tealeaves.analysis.correlation import RaggedScores, bootstrap_correlations
from tealeaves.analysis.discovery import HUMAN_MARGINS, METRIC_MARGINS, false_discovery_rates
from tealeaves.analysis.hoyle2021 import METRICS, REFERENCES, Hoyle2021, load_hoyle2021
from tealeaves.analysis.power import annotators_needed, equivalence_margin, power_curve, simulate_power
from tealeaves.analysis.regression import regress
from tealeaves.analysis.responses import failed_checks
from tealeaves.deprecation import renamed_parameters
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result

TASK_LABELS = {"word-intrusion": "Intrusion", "rating": "Rating"}
DATASET_GROUPS = {"NYT": ("NYT",), "WIKI": ("WIKI",), "Concatenated": ("NYT", "WIKI")}
KEYS = ["task", "dataset", "metric", "reference"]
# the paper's values, for the side-by-side columns of the output
PAPER_POWER = {"word-intrusion": 25, "rating": 15}
PAPER_MARGINS = {"word-intrusion": 0.05, "rating": 0.11}
PAPER_ANNOTATORS = {"word-intrusion": 26, "rating": 15}
# Table 4: the authors count a discovery as false with probability 1 - beta = 0.9 (discovery.py)
AUTHORS_FDR_WEIGHT = 0.9
# Table 4 as printed, (FDR, FOR) in percent: rows in TASK_LABELS x DATASET_GROUPS order, columns
# the NYT, WIKI and Train references of NPMI, then of C_v
PAPER_TABLE_4 = (
    ((46, 53), (34, 48), (48, 50), (35, 38), (30, 29), (34, 35)),
    ((44, 76), (33, 78), (33, 75), (45, 48), (38, 49), (37, 45)),
    ((42, 67), (40, 66), (41, 64), (36, 46), (31, 44), (30, 45)),
    ((45, 50), (45, 51), (41, 47), (27, 29), (26, 26), (21, 26)),
    ((40, 73), (31, 73), (33, 71), (38, 40), (31, 40), (28, 34)),
    ((39, 66), (36, 66), (37, 62), (31, 38), (28, 38), (19, 36)),
)


@dataclass(frozen=True)
class Hoyle2021Replication(Result):
    """Every table of the replication, as DataFrames keyed by the paper's labels.

    Attributes
    ----------
    correlations : pandas.DataFrame
        Table 3 (11a): per task, dataset, metric and reference, ``spearman`` (the mean over
        the bootstrap), ``ci_low``, ``ci_high``, ``observed``, ``best``, ``overlaps_best``,
        ``n_topics``.
    regressions : pandas.DataFrame
        Table 10 (11c): the metric's coefficient with its interval, standard error, p-value
        and BIC, per task, dataset, metric and reference.
    fdr : pandas.DataFrame
        Table 4: ``fdr`` and ``for`` with the counts behind them.
    agreement : pandas.DataFrame
        Per task, dataset and treatment of the attention checks: one-vs-rest Spearman and
        Pearson, split-half Pearson, Krippendorff's alpha.
    power : pandas.DataFrame
        Per task: the annotators needed (A.5) and the equivalence margin (A.5.1), beside the
        paper's values.
    power_curves : pandas.DataFrame
        Power by number of annotators, per task.
    comparisons : pandas.DataFrame
        Fig. 2's pairwise one-tailed tests between the models.
    scores : pandas.DataFrame
        Per-model human scores with and without familiarity filtering (Fig. 3).
    topic_scores : pandas.DataFrame
        Per-topic mean human scores and in-domain NPMI (Fig. 2's boxes).
    settings : dict
        ``n_resamples``, ``n_iter``, ``n_sim``, ``seed``, ``familiar_only``, the source folder and
        the filled metric values.

    Examples
    --------
    A replication is made by :func:`replicate_hoyle2021` (whose example runs one); its tables,
    in the order :func:`write_replication` writes them:

    >>> from tealeaves.analysis import Hoyle2021Replication
    >>> Hoyle2021Replication.TABLES
    ('correlations', 'regressions', 'fdr', 'agreement', 'power', 'power_curves', 'comparisons', 'scores', 'topic_scores')
    """

    correlations: pd.DataFrame
    regressions: pd.DataFrame
    fdr: pd.DataFrame
    agreement: pd.DataFrame
    power: pd.DataFrame
    power_curves: pd.DataFrame
    comparisons: pd.DataFrame
    scores: pd.DataFrame
    topic_scores: pd.DataFrame
    settings: dict = field(default_factory=dict)

    TABLES = (
        "correlations",
        "regressions",
        "fdr",
        "agreement",
        "power",
        "power_curves",
        "comparisons",
        "scores",
        "topic_scores",
    )

    def to_frame(self) -> pd.DataFrame:
        return self.correlations.copy()

    def to_dict(self) -> dict:
        return {"settings": self.settings, **{t: getattr(self, t).to_dict(orient="records") for t in self.TABLES}}


def _split_column(table: pd.DataFrame) -> pd.DataFrame:
    parts = table["metric_column"].str.split("/", expand=True)
    return table.drop(columns="metric_column").assign(metric=parts[0], reference=parts[1])


def _pool(study: Hoyle2021, task: str, datasets: tuple[str, ...], familiar_only: bool):
    """Per-topic answers (ragged) and metric rows of the topics of ``datasets``, aligned."""
    metrics = study.metrics[study.metrics["dataset"].isin(datasets)]
    answers = study.annotations[(study.annotations["task"] == task) & study.annotations["dataset"].isin(datasets)]
    if familiar_only:
        answers = answers[answers["familiar"]]
    grouped = {key: g["score"].to_numpy() for key, g in answers.groupby(["dataset", "model", "topic"], sort=False)}
    keys = list(zip(metrics["dataset"], metrics["model"], metrics["topic"]))
    keep = np.array([key in grouped for key in keys])
    human = RaggedScores([grouped[key] for key, k in zip(keys, keep) if k])
    return (
        human,
        metrics.loc[keep, study.metric_columns].reset_index(drop=True),
        metrics.loc[keep].reset_index(drop=True),
    )


def correlation_table(study, familiar_only, n_resamples, seed, progress) -> pd.DataFrame:
    """Table 3 (Table 11a with ``familiar_only``): bootstrapped Spearman rho for every row and column."""
    frames = []
    for task, task_label in TASK_LABELS.items():
        for dataset, members in DATASET_GROUPS.items():
            human, metrics, _ = _pool(study, task, members, familiar_only)
            result = bootstrap_correlations(human, metrics, "spearman", n_resamples, seed=seed)
            table = _split_column(result.table).rename(columns={"mean": "spearman"})
            frames.append(table.assign(task=task_label, dataset=dataset))
            notify(progress, "correlations (Table 3)", len(frames), 6)
    out = pd.concat(frames, ignore_index=True)
    cols = [*KEYS, "spearman", "ci_low", "ci_high", "observed", "best", "overlaps_best", "n_topics"]
    return out[cols]


def regression_table(study, familiar_only, progress) -> pd.DataFrame:
    """Table 10 (Table 11c with ``familiar_only``): the metric's coefficient for every row and column."""
    rows = []
    for task, task_label in TASK_LABELS.items():
        kind = "logistic" if task == "word-intrusion" else "ordered-probit"
        for dataset, members in DATASET_GROUPS.items():
            human, metrics, _ = _pool(study, task, members, familiar_only)
            y = human.values
            for column in metrics.columns:
                x = np.repeat(metrics[column].to_numpy(), human.sizes)
                fit = regress(y, x, kind)
                metric, reference = column.split("/")
                rows.append(
                    {
                        "task": task_label,
                        "dataset": dataset,
                        "metric": metric,
                        "reference": reference,
                        "coef": fit.coef,
                        "ci_low": fit.ci_low,
                        "ci_high": fit.ci_high,
                        "se": fit.se,
                        "pvalue": fit.pvalue,
                        "bic": fit.bic,
                        "n": fit.n,
                        "model": kind,
                    }
                )
            notify(progress, "regressions (Table 10)", len(rows), 96)
    return pd.DataFrame(rows)


def discovery_table(study, familiar_only, n_iter, seed, progress) -> pd.DataFrame:
    """Table 4 as the authors' notebook computes it: for each dataset two sets of 50 of its 150
    topics, for Concatenated two sets of 50 of the 300 topics of both (their ``"all"`` data frame,
    as in Tables 3 and 10); false discoveries weighted by :data:`AUTHORS_FDR_WEIGHT`."""
    frames = []
    margins = {f"{m}/{r}": METRIC_MARGINS[m] for m in METRICS for r in REFERENCES}
    for task, task_label in TASK_LABELS.items():
        for dataset, members in DATASET_GROUPS.items():
            human, metrics, _ = _pool(study, task, members, familiar_only)
            result = false_discovery_rates(
                task,
                human,
                metrics,
                margins,
                k=50,
                n_iter=n_iter,
                seed=seed,
                false_discovery_weight=AUTHORS_FDR_WEIGHT,
            )
            frames.append(_split_column(result.table).assign(task=task_label, dataset=dataset))
            notify(progress, "false discovery rates (Table 4)", len(frames), 6)
    out = pd.concat(frames, ignore_index=True)
    counts = ["discoveries", "false_discoveries", "human_differences", "false_omissions"]
    return out[[*KEYS, "fdr", "for", *counts]]


def paper_table_4() -> pd.DataFrame:
    """Hoyle et al.'s Table 4 as printed: :data:`KEYS`, ``paper_fdr`` and ``paper_for`` (percent)."""
    rows = [(task, dataset) for task in TASK_LABELS.values() for dataset in DATASET_GROUPS]
    columns = [(metric, reference) for metric in METRICS for reference in ("NYT", "WIKI", "Train")]
    return pd.DataFrame(
        [
            {"task": task, "dataset": dataset, "metric": metric, "reference": reference, "paper_fdr": f, "paper_for": o}
            for (task, dataset), cells in zip(rows, PAPER_TABLE_4)
            for (metric, reference), (f, o) in zip(columns, cells)
        ]
    )


def _agreement(study, seed) -> pd.DataFrame:
    rows = []
    responses = study.responses
    for task, task_label in TASK_LABELS.items():
        for dataset, members in DATASET_GROUPS.items():
            part = responses[(responses["task"] == task) & responses["dataset"].isin(members)]
            variants = [("without attention checks", part[~part["is_check"]])]
            if part["is_check"].any():
                failed = failed_checks(part)
                passed = part[~part["annotator"].isin(failed.loc[failed["failed"] > 0, "annotator"])]
                variants = [
                    ("with attention checks", part),
                    ("with attention checks, annotators who failed one excluded", passed),
                    *variants,
                ]
            for checks, data in variants:
                score = data["response"] if task == "rating" else data["correct"].astype(float)
                args = (data["annotator"], data["item_id"], score)
                level: Literal["ordinal", "nominal"] = "ordinal" if task == "rating" else "nominal"
                values = {
                    "one-vs-rest Spearman": one_vs_rest(*args, method="spearman").value,
                    "one-vs-rest Pearson": one_vs_rest(*args, method="pearson").value,
                    "split-half Pearson": split_half(data["item_id"], score, n_splits=100, seed=seed),
                    f"Krippendorff alpha ({level})": krippendorff_alpha(*args, level=level),
                }
                for measure, value in values.items():
                    rows.append(
                        {
                            "task": task_label,
                            "dataset": dataset,
                            "items": checks,
                            "measure": measure,
                            "value": value,
                            "annotators": data["annotator"].nunique(),
                            "responses": len(data),
                        }
                    )
    return pd.DataFrame(rows)


def _power(seed, n_sim) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, curves = [], []
    for task, label in TASK_LABELS.items():
        needed = annotators_needed(task, power=0.9, alpha=0.05, effect=4, k=50, seed=seed, n_sim=n_sim)
        rows.append(
            {
                "task": label,
                "power": 0.9,
                "alpha": 0.05,
                "effect": 4,
                "k": 50,
                "annotators_needed": needed,
                "paper_annotators": PAPER_POWER[task],
                "power_at_paper_annotators": simulate_power(task, PAPER_POWER[task], 50, 4, 0.05, n_sim, seed),
                "equivalence_margin": equivalence_margin(task, PAPER_ANNOTATORS[task], 50, 0.9, 0.05, n_sim, seed),
                "paper_equivalence_margin": PAPER_MARGINS[task],
                "human_margin_used": HUMAN_MARGINS[task],
            }
        )
        curve = power_curve(task, range(2, 41), 50, 4, 0.05, n_sim, seed).table
        curves.append(curve.assign(task=label))
    return pd.DataFrame(rows), pd.concat(curves, ignore_index=True)


def _comparisons(study) -> pd.DataFrame:
    frames = []
    for dataset in ("NYT", "WIKI"):
        answers = study.annotations[study.annotations["dataset"] == dataset]
        for familiar_only in (False, True):
            kept = answers[answers["familiar"]] if familiar_only else answers
            for task, test in (("word-intrusion", "proportion"), ("rating", "mann-whitney")):
                part = kept[kept["task"] == task]
                groups = {m: g["score"].to_numpy() for m, g in part.groupby("model")}
                frames.append(
                    pairwise_tests(groups, test).assign(
                        dataset=dataset, task=TASK_LABELS[task], familiar_only=familiar_only
                    )
                )
        metrics = study.metrics[study.metrics["dataset"] == dataset]
        groups = {m: g[f"NPMI/{dataset}"].to_numpy() for m, g in metrics.groupby("model")}  # in-domain NPMI
        frames.append(pairwise_tests(groups, "t").assign(dataset=dataset, task="NPMI", familiar_only=False))
    return pd.concat(frames, ignore_index=True)


def _scores(study) -> pd.DataFrame:
    rows = []
    for familiar_only in (False, True):
        answers = study.annotations[study.annotations["familiar"]] if familiar_only else study.annotations
        table = answers.groupby(["task", "dataset", "model"])["score"].agg(["mean", "count"]).reset_index()
        familiar = study.annotations.groupby(["task", "dataset", "model"])["familiar"].mean().rename("familiar_share")
        table = table.join(familiar, on=["task", "dataset", "model"])
        rows.append(table.assign(task=table["task"].map(TASK_LABELS), familiar_only=familiar_only))
    return pd.concat(rows, ignore_index=True)


def _topic_scores(study) -> pd.DataFrame:
    """Per-topic mean human scores and in-domain NPMI: the values of Fig. 2's boxes."""
    human = study.annotations.groupby(["task", "dataset", "model", "topic"])["score"].mean().reset_index()
    human["panel"] = human["dataset"] + " " + human["task"].map(TASK_LABELS)
    metrics = study.metrics
    own = np.where(metrics["dataset"] == "NYT", metrics["NPMI/NYT"], metrics["NPMI/WIKI"])
    auto = metrics[["dataset", "model", "topic"]].assign(task="NPMI", score=own, panel=metrics["dataset"] + " NPMI")
    return pd.concat([human.assign(task=human["task"].map(TASK_LABELS)), auto], ignore_index=True)


@renamed_parameters(n_boot="n_resamples")
def replicate_hoyle2021(
    path_or_study,
    n_resamples: int = 1000,
    n_iter: int = 1000,
    n_sim: int = 4000,
    seed: int = 0,
    familiar_only: bool = False,
    progress: ProgressCallback | None = None,
) -> Hoyle2021Replication:
    """Recompute Hoyle et al. 2021's Tables 3, 4, 10 (11 with ``familiar_only``), agreement and A.5.

    Parameters
    ----------
    path_or_study : str, path-like or Hoyle2021
        The ``human/hoyle2021`` folder or a loaded :class:`Hoyle2021`.
    n_resamples : int, optional
        Bootstrap resamples for Table 3 (the paper: 1,000; ``n_boot``, its old name, is
        deprecated).
    n_iter : int, optional
        Resampling iterations for Table 4 (the paper: 1,000).
    n_sim : int, optional
        Simulations per power estimate.
    seed : int, optional
        Seed of every resampling and simulation.
    familiar_only : bool, optional
        Keep only answers of annotators familiar with the terms (Table 11).
    progress : callable, optional
        Called with each table's progress.

    Returns
    -------
    Hoyle2021Replication

    Examples
    --------
    A made-up release of the released files' shape (see :func:`load_hoyle2021`) whose metrics
    follow each topic's quality, as do its answers; 34 topics per model, so that Table 4 can
    draw two disjoint sets of 50 topics from each data set's pool:

    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> def model(other, k=34):  # a model's topics, its metrics per reference, its resampled answers
    ...     quality = rng.random(k)
    ...     metrics = {
    ...         f"{m}_{r}": (quality / 5 + rng.normal(0, 0.05, k)).tolist()
    ...         for m in ("c_npmi_10", "c_v")
    ...         for r in ("full", f"{other}_full", "train", "val")
    ...     }
    ...     for task, low, high in (("ratings", 1, 3), ("intrusion", 0, 1)):
    ...         good = rng.random((k, 6)) < quality[:, None]  # better topics, more good answers
    ...         metrics[f"{task}_scores_raw"] = np.where(good, high, low).tolist()
    ...         metrics[f"{task}_confidences_raw"] = (rng.random((k, 6)) < 0.8).tolist()  # familiar?
    ...     return {"topics": [[f"word{i}", f"term{i}"] for i in range(k)], "metrics": metrics}
    >>> data = {d: {m: model(o) for m in ("mallet", "dvae", "etm")} for d, o in (("nytimes", "wikitext"), ("wikitext", "nytimes"))}
    >>> folder = tempfile.TemporaryDirectory()  # a release of the shape of Hoyle et al.'s, made up
    >>> _ = (Path(folder.name) / "all_data.json").write_text(json.dumps(data))
    >>> for d in data:  # 4 respondents, each "answer,familiarity" for 6 topics
    ...     header = "," + ",".join(f"{d}_{m}_{k}" for m in ("mallet", "dvae") for k in range(3))
    ...     for task, answers, familiar in (("ratings", [1, 2, 3], 4), ("intrusion", [1, 6], 7)):
    ...         rows = [f"{r}," + ",".join(f'"{rng.choice(answers)},{familiar}"' for _ in range(6)) for r in range(4)]
    ...         _ = (Path(folder.name) / f"{d}_{task}.csv").write_text("\\n".join([header, *rows]) + "\\n")
    >>> from tealeaves.analysis import replicate_hoyle2021
    >>> result = replicate_hoyle2021(folder.name, n_resamples=20, n_iter=20, n_sim=20, seed=0)
    >>> result.correlations[["task", "dataset", "metric", "reference", "spearman", "ci_low", "ci_high"]].head(2).round(3)
            task dataset metric reference  spearman  ci_low  ci_high
    0  Intrusion     NYT   NPMI       NYT     0.575   0.512    0.626
    1  Intrusion     NYT   NPMI      WIKI     0.662   0.601    0.714
    >>> result.power[["task", "annotators_needed", "paper_annotators"]]
            task  annotators_needed  paper_annotators
    0  Intrusion                 17                25
    1     Rating                 10                15
    >>> folder.cleanup()
    """
    study = path_or_study if isinstance(path_or_study, Hoyle2021) else load_hoyle2021(path_or_study)
    power, curves = _power(seed, n_sim)
    return Hoyle2021Replication(
        correlations=correlation_table(study, familiar_only, n_resamples, seed, progress),
        regressions=regression_table(study, familiar_only, progress),
        fdr=discovery_table(study, familiar_only, n_iter, seed, progress),
        agreement=_agreement(study, seed),
        power=power,
        power_curves=curves,
        comparisons=_comparisons(study),
        scores=_scores(study),
        topic_scores=_topic_scores(study),
        settings={
            "n_resamples": n_resamples,
            "n_iter": n_iter,
            "n_sim": n_sim,
            "seed": seed,
            "familiar_only": familiar_only,
            "source": str(study.path),
            "missing_metric_values": study.filled,
        },
    )
