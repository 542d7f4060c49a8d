"""The result of :func:`~tealeaves.analysis.validate`: tidy tables, and the comparisons chosen after the run.

:class:`ValidationResult` holds the correlations, the paired comparisons, the leaderboard and
every topic's values; :meth:`~ValidationResult.versus_best` tests each metric against the
best-correlating variant of a family (Holm and a max-T adjustment over the rows), and
:meth:`~ValidationResult.select_and_test` chooses a variant on some data sets and tests it on the
others, :meth:`~ValidationResult.leave_one_out` does so for every data set in turn, and
:meth:`~ValidationResult.weighted_summary` summarises the data sets with explicit weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from tealeaves.deprecation import renamed_attribute
from tealeaves.errors import InputError
from tealeaves.results import Result
from tealeaves.stats.design import minimal_detectable_difference
from tealeaves.stats.multiplicity import holm, max_t_pvalues
from tealeaves.wording import pair_verdict


@dataclass(frozen=True)
class ValidationResult(Result):
    """Every metric against every human data set (:func:`validate`); tidy tables.

    Attributes
    ----------
    correlations : DataFrame
        One row per (human data set, metric, method): ``human``, ``task``, ``metric``,
        ``family``, ``method``, ``estimate``, ``ci_low``, ``ci_high``, ``observed`` (on the mean
        scores), ``n_topics``, ``coverage``, ``best``, ``overlaps_best`` (within the data set and
        method) and ``uncertainty``, what the interval resamples: with answers, Hoyle et al.'s
        annotator bootstrap (topics fixed; the estimate is the mean over resamples, as Table 3);
        with means only, the topics (the estimate is the observed correlation).
    comparisons : DataFrame
        One row per (human data set, ordered metric pair): ``metric``, ``versus``, ``method``,
        ``observed`` and ``difference`` (the observed difference of Spearman correlations, the
        estimate), ``se``, ``ci_low``, ``ci_high``, ``p_value`` (two-sided, of equal
        correlations), ``p_holm`` (Holm over the data set's unordered pairs), ``n_topics``,
        ``uncertainty``.
    leaderboard : DataFrame
        One row per metric, best first: ``rank``, ``metric``, ``family``, ``mean_spearman``
        (each data set weighted equally), ``pooled_spearman`` (every topic weighted equally:
        the human scores and the metric ranked within each data set, so that data sets of
        different scales are not mixed), ``min_spearman``, ``datasets``, ``wins`` (data sets
        where it has the largest Spearman), ``mean_coverage``.
    topic_values : DataFrame
        One row per (human data set, topic, metric): keys, ``words``, ``human_mean``,
        ``answers``, ``value``.
    settings : dict
        The run's settings: ``human`` (the data sets' names), ``n_resamples``, ``confidence``,
        ``seed``, the resampling.
    resamples : dict
        Per (human data set, metric, versus), the bootstrap resamples of the difference, which
        the max-T adjustment of :meth:`versus_best` uses (``replicates``, its old name, is
        deprecated).

    Examples
    --------
    Two metrics of a CSV against the mean ratings of eight topics (see :func:`validate`):

    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from tealeaves.analysis import csv_judgments, validate
    >>> folder = tempfile.TemporaryDirectory()
    >>> keys = {"model": ["lda"] * 4 + ["nmf"] * 4, "topic": [0, 1, 2, 3] * 2}
    >>> human = Path(folder.name) / "ratings.csv"
    >>> pd.DataFrame({
    ...     **keys,
    ...     "words": ["tax budget", "war peace", "court law", "oil gas", "tax war", "law oil", "court gas", "peace oil"],
    ...     "mean": [2.8, 2.5, 2.2, 2.6, 1.4, 1.2, 1.9, 1.6],  # each topic's mean rating
    ... }).to_csv(human, index=False)
    >>> scores = Path(folder.name) / "scores.csv"
    >>> pd.DataFrame({
    ...     **keys,
    ...     "npmi": [0.14, 0.10, 0.05, 0.12, -0.02, -0.05, 0.03, 0.04],
    ...     "umass": [-1.1, -1.5, -1.2, -2.8, -2.0, -2.2, -1.4, -1.3],
    ... }).to_csv(scores, index=False)
    >>> result = validate(csv_judgments(human), [f"csv:{scores}"], n_resamples=200, seed=0)
    >>> result
    ValidationResult(correlations=6 rows × 14 columns, comparisons=2 rows × 14 columns, leaderboard=2 rows × 9 columns, topic_values=16 rows × 10 columns)
    >>> result.spearman_table().round(3)
    human   ratings score
    metric
    npmi            0.976
    umass           0.333
    >>> folder.cleanup()
    """

    correlations: pd.DataFrame
    comparisons: pd.DataFrame
    leaderboard: pd.DataFrame
    topic_values: pd.DataFrame
    settings: dict = field(default_factory=dict)
    resamples: dict = field(default_factory=dict, repr=False)

    replicates = renamed_attribute("resamples")

    TABLES = ("leaderboard", "correlations", "comparisons", "topic_values")

    def to_frame(self) -> pd.DataFrame:
        return self.leaderboard.copy()

    def to_dict(self) -> dict:
        return {"settings": self.settings, **{t: getattr(self, t).to_dict(orient="records") for t in self.TABLES}}

    def spearman_table(self) -> pd.DataFrame:
        """Metrics (rows, leaderboard order) by human data sets (columns): Spearman estimates."""
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        table = spearman.pivot(index="metric", columns="human", values="estimate")
        return table.loc[self.leaderboard["metric"], list(dict.fromkeys(spearman["human"]))]

    def _difference(self, human: str, metric: str, versus: str) -> np.ndarray:
        if (human, metric, versus) in self.resamples:
            return self.resamples[human, metric, versus]
        return -self.resamples[human, versus, metric]

    def _reselected(self, human: str, metric: str, candidates: list[str]) -> np.ndarray:
        """The bootstrap resamples of ``metric``'s difference from the baseline re-chosen in each resample:
        the candidate with the largest resampled Spearman is the one ``metric`` differs least from,
        :math:`d^*_b = \\min_c (\\rho^*_{b,\\mathrm{metric}} - \\rho^*_{b,c})` over the candidates
        compared with ``metric`` (the same resampled topics for all of them)."""
        diffs = [
            self._difference(human, metric, c)
            for c in candidates
            if (human, metric, c) in self.resamples or (human, c, metric) in self.resamples
        ]
        with np.errstate(invalid="ignore"):
            return np.nanmin(np.vstack(diffs), axis=0) if len(diffs) > 1 else diffs[0]

    def versus_best(self, prefix: str, metrics: Sequence[str] | None = None, alpha: float = 0.05) -> pd.DataFrame:
        """Each data set's metrics against its best-correlating metric whose name starts with ``prefix`` (any case).

        ``metrics`` limits the rows to those metrics (default: every metric not starting with
        ``prefix``); the rows are the family of tests printed together. Columns: ``human``,
        ``metric``, ``spearman`` (observed), ``baseline`` (the ``prefix`` metric with the largest
        observed Spearman there), ``baseline_spearman``, ``difference`` (observed), ``ci_low``,
        ``ci_high``, ``p_value`` (two-sided), ``p_holm`` (Holm over the rows), ``p_maxt`` (the
        max-T bootstrap adjustment over the rows: each resample's largest
        :math:`|d^* - d| / \\mathrm{SE}` over the family, with the baseline chosen again in every
        resample, :math:`d^*` the difference from the candidate with the largest resampled
        Spearman, so that picking the best of several variants on these data is accounted for), ``detectable`` (the difference the test finds
        with 80% power at level ``alpha`` over the number of rows), ``verdict``. Empty when no
        metric matches.
        """
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        pairs = self.comparisons.set_index(["human", "metric", "versus"])
        rows, resamples = [], []
        for human, part in spearman.groupby("human", sort=False):
            family = part["metric"].str.lower().str.startswith(prefix.lower())
            base = part[family]
            if base.empty:
                continue
            best = base.loc[base["observed"].idxmax()]
            chosen = part[~family]
            if metrics is not None:
                chosen = chosen[chosen["metric"].isin(list(metrics))]
            for row in chosen.itertuples():
                if (human, row.metric, best["metric"]) not in pairs.index:
                    continue
                test = pairs.loc[(human, row.metric, best["metric"])]
                resamples.append(self._reselected(str(human), row.metric, list(base["metric"])))
                rows.append(
                    {
                        "human": human,
                        "metric": row.metric,
                        "spearman": row.observed,
                        "baseline": best["metric"],
                        "baseline_spearman": best["observed"],
                        "difference": test["difference"],
                        "se": test["se"],
                        "ci_low": test["ci_low"],
                        "ci_high": test["ci_high"],
                        "p_value": test["p_value"],
                    }
                )
        frame = pd.DataFrame(rows)
        if frame.empty:
            return frame
        frame["p_holm"] = holm(frame["p_value"].to_numpy())
        frame["p_maxt"] = max_t_pvalues(frame["difference"].to_numpy(), frame["se"].to_numpy(), resamples)
        frame["verdict"] = _verdicts(frame, alpha)
        return frame

    def select_and_test(
        self, candidates: Sequence[str], select_on: Sequence[str], baseline: str = "NPMI", alpha: float = 0.05
    ) -> pd.DataFrame:
        """Selection-aware comparison: choose a variant on some data sets, test it on the others.

        Among ``candidates`` (metric labels), the one with the largest mean observed Spearman
        over the data sets whose names start with one of ``select_on`` is chosen; on every other
        data set it is compared with that data set's best ``baseline`` metric
        (:meth:`versus_best`, Holm over those data sets). The test data sets played no part in
        the choice, so their p-values are those of a single pre-specified comparison. One row
        per test data set, with ``chosen``, ``selected_on`` and ``selection_spearman``.
        """
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        names = list(dict.fromkeys(spearman["human"]))
        selection = [h for h in names if any(h.startswith(prefix) for prefix in select_on)]
        tested = [h for h in names if h not in selection]
        if not selection or not tested:
            raise InputError(
                f"select_on {list(select_on)} must name some of the data sets {names} (by prefix) and leave others to test on"
            )
        unknown = set(candidates) - set(spearman["metric"])
        if unknown or not candidates:
            raise InputError(
                f"unknown candidate metric(s) {sorted(unknown)}; choose among {sorted(set(spearman['metric']))}"
            )
        on = spearman[spearman["human"].isin(selection) & spearman["metric"].isin(list(candidates))]
        score = on.groupby("metric")["observed"].mean()
        chosen = str(score.idxmax())
        sub = ValidationResult(
            spearman[spearman["human"].isin(tested)],
            self.comparisons[self.comparisons["human"].isin(tested)],
            self.leaderboard,
            self.topic_values,
            self.settings,
            self.resamples,
        )
        out = sub.versus_best(baseline, [chosen], alpha)
        return out.assign(chosen=chosen, selected_on=", ".join(selection), selection_spearman=float(score[chosen]))

    def topic_sources(self) -> dict[str, frozenset[str]]:
        """Each human data set's topic sources: the values of its topics' ``dataset`` column.

        Two data sets that share a source (Hoyle et al.'s NYT ratings and NYT word intrusion)
        judge the same topics, so neither is out of sample for the other.
        """
        values = self.topic_values
        return {str(h): frozenset(part["dataset"].astype(str)) for h, part in values.groupby("human", sort=False)}

    def weighted_summary(self, weights: Mapping[str, float]) -> pd.DataFrame:
        """Per metric, the weighted mean of its observed Spearman correlations over the data sets.

        :math:`\\bar\\rho_m = \\sum_h w_h \\rho_{m,h} / \\sum_h w_h`, over the data sets the metric
        scores (a metric missing on a data set is averaged over the others, and ``datasets`` says
        over how many). The weights are given, never implied: e.g. each topic source equally,
        split between its tasks. One row per metric, best first: ``metric``, ``family``,
        ``weighted_spearman``, ``datasets``; the weights are in ``attrs["weights"]``.
        """
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        unknown = set(weights) - set(spearman["human"])
        if unknown or not weights or min(weights.values()) < 0:
            raise InputError(
                f"weights must be non-negative and name data sets among {sorted(set(spearman['human']))}; "
                f"unknown: {sorted(unknown)}"
            )
        part = spearman[spearman["human"].isin(list(weights))].assign(w=lambda f: f["human"].map(weights))
        part = part.assign(wr=part["w"] * part["observed"])
        grouped = part.groupby(["metric", "family"], sort=False)
        frame = (grouped["wr"].sum() / grouped["w"].sum()).rename("weighted_spearman").reset_index()
        frame["datasets"] = frame["metric"].map(part.groupby("metric")["human"].nunique())
        frame = frame.sort_values(["weighted_spearman", "metric"], ascending=[False, True], ignore_index=True)
        frame.attrs["weights"] = dict(weights)
        return frame

    def leave_one_out(
        self, candidates: Sequence[str], baseline: str = "NPMI", reference: str | None = None, alpha: float = 0.05
    ) -> pd.DataFrame:
        """Leave one data set out: choose a candidate on the others, test it on the one left out, every time.

        For each data set ``h``, the candidate with the largest mean observed Spearman over the
        data sets that share no topic source with ``h`` (:meth:`topic_sources`) is chosen, and
        only then compared on ``h`` with ``h``'s best ``baseline`` metric (the paired test of
        :meth:`versus_best`; the baseline is the best of its family on ``h`` itself, which favours
        the baseline). ``h``'s numbers played no part in the choice, so each row is an
        out-of-sample test; Holm runs over the rows (``p_holm``). With ``reference`` (a
        pre-specified metric, e.g. plain embedding coherence), the chosen metric is also tested
        against it on ``h`` (``reference_difference``, ``reference_p``, ``reference_p_holm``;
        zero and 1 where it is the chosen metric, NaN where ``h`` lacks it). A data set with no other source to choose on
        is left out of the table. Columns: those of :meth:`versus_best` but ``p_maxt``, with
        ``chosen``, ``selected_on`` and ``selection_spearman``.
        """
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        unknown = set(candidates) - set(spearman["metric"])
        if unknown or not candidates:
            raise InputError(
                f"unknown candidate metric(s) {sorted(unknown)}; choose among {sorted(set(spearman['metric']))}"
            )
        sources = self.topic_sources()
        pairs = self.comparisons.set_index(["human", "metric", "versus"])
        rows = []
        for held_out in dict.fromkeys(spearman["human"]):
            others = [h for h in sources if not sources[h] & sources[held_out]]
            on = spearman[spearman["human"].isin(others) & spearman["metric"].isin(list(candidates))]
            if on.empty:
                continue
            score = on.groupby("metric")["observed"].mean()
            chosen = str(score.idxmax())
            sub = replace(self, correlations=spearman[spearman["human"] == held_out])
            test = sub.versus_best(baseline, [chosen], alpha)
            if test.empty:
                continue
            row = test.iloc[0].to_dict() | {
                "chosen": chosen,
                "selected_on": ", ".join(others),
                "selection_spearman": float(score[chosen]),
            }
            if reference is not None:
                key, same = (held_out, chosen, reference), chosen == reference
                row["reference"] = reference
                row["reference_difference"] = 0.0 if same else pairs["difference"].get(key, np.nan)
                row["reference_p"] = 1.0 if same else pairs["p_value"].get(key, np.nan)
            rows.append(row)
        frame = pd.DataFrame(rows).drop(columns=["p_maxt"], errors="ignore")
        if frame.empty:
            return frame
        frame["p_holm"] = holm(frame["p_value"].to_numpy())
        if reference is not None:
            tested = frame["reference_p"].notna().to_numpy()
            frame["reference_p_holm"] = np.nan
            frame.loc[tested, "reference_p_holm"] = holm(frame.loc[tested, "reference_p"].to_numpy())
        frame["verdict"] = _verdicts(frame, alpha)
        return frame


def _verdicts(frame: pd.DataFrame, alpha: float) -> list[str]:
    """Each row's verdict of its Holm-adjusted test, with the difference detectable at ``alpha`` over the rows."""
    frame["detectable"] = minimal_detectable_difference(frame["se"].to_numpy(), alpha=alpha / len(frame))
    return [
        pair_verdict(
            r.metric,
            r.baseline,
            r.difference,
            r.p_holm,
            r.detectable,
            alpha,
            better="correlates better than",
            untestable="untestable (no variation in the replicates)",
            digits=".2f",
        )
        for r in frame.itertuples()
    ]
