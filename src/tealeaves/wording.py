"""How every surface words what the statistics found: verdicts, scope, winners, row labels, summary cells.

The command line (``tealeaves evaluate``, ``analyze``, ``validate``), the report, the notebook
display of an :class:`~tealeaves.evaluation.Evaluation`, the demo and the analysis' model
comparisons read their sentences here, so a verdict is worded once. Numbers are worded by
:mod:`tealeaves.display`; the tests behind the sentences are :mod:`tealeaves.stats`'s.

Plain Python: tables come in as records (``DataFrame.to_dict("records")``, one mapping per
row), and a metric's description as any object with the attributes of
:class:`tealeaves.metrics.Output` (``label``, ``higher_is_better``, ``unit``, ``plan``), so this
module imports neither pandas nor the packages whose results it words.

A verdict says only what the test found: "A better than B" where the adjusted p-value is below
the level (an evaluation's: Westfall and Young's over its whole report, or Holm's over it where
trained runs are the units, :func:`family_name`; elsewhere Holm's over a metric's pairs), and otherwise "not significant" with the difference the test could have
found, or that it could not reach the level at all, never that two models are equal (only an
equivalence test within a stated margin says that).

Examples
--------
>>> from tealeaves.wording import pair_verdict
>>> pair_verdict("lda", "nmf", 0.28, 0.0333, 0.2, 0.05)
'lda better than nmf (Holm p = 0.0333)'
>>> pair_verdict("etm", "nmf", 0.18, 0.1317, 0.331, 0.05)
'not significant (Holm, level 0.05); a difference of 0.331 would be found with 80% power'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, Protocol

from tealeaves.display import p_value

Row = Mapping[str, Any]

PLAN_WORDS = {
    "paired": "documents as units, paired across models (studentised paired randomisation test of linearised contributions)",
    "independent": "topics as units, independent across models (bootstrap-t test of Welch's t)",
    "jackknife": "model-level quantity, randomisation test over topics, jackknife interval",
    "runs": "trained runs as units, topics or documents within runs (a mixed model's t over runs)",
}
TRAINED_ONLY = "a verdict about these trained models, not the algorithms: give several runs per model"
ONE_RUN = "(this run)"
SCOPE = (
    "Each model is one trained run (one seed): the verdicts are about these trained models, scored "
    "on this held-out and this reference corpus, not about the algorithms that trained them."
)


class Described(Protocol):
    """What the wording needs of a metric's output (:class:`tealeaves.metrics.Output` has it)."""

    @property
    def label(self) -> str: ...

    @property
    def higher_is_better(self) -> bool: ...

    @property
    def unit(self) -> str: ...

    @property
    def plan(self) -> str | None: ...


class SummaryCell(NamedTuple):
    """One model's value of one metric in the summary table: the value, its interval, whether it wins.

    Attributes
    ----------
    value : str
        The value, four significant digits.
    interval : str
        Its 95% interval, ``[low, high]`` with three significant digits; empty without one.
    best : bool
        Whether the model is significantly better than every other on the metric.

    Examples
    --------
    >>> from tealeaves.wording import SummaryCell
    >>> SummaryCell("0.1235", "[0.1, 0.15]", True).interval
    '[0.1, 0.15]'
    """

    value: str
    interval: str
    best: bool


def holm_level(alpha: float) -> str:
    """``Holm, level 0.05``: the correction and level every verdict names."""
    return f"Holm, level {alpha:g}"


FAMILY_WORDS = {
    "report": "report-wide over all {comparisons} of {metrics}",
    "primary": "over the {comparisons} of the primary {metric_word} ({names})",
    "exploratory": "exploratory: over the {comparisons} of the {metric_word} not named primary ({names})",
}


def family_name(family: str, n: int, metrics: list[str], method: str = "Westfall-Young") -> str:
    """The family a report-wide adjusted p-value controls the error over and its correction, in words
    (a comparisons table's ``family``).

    Parameters
    ----------
    family : {"report", "primary", "exploratory"}
        Every comparison of the report, those of the metrics named primary, or the others.
    n : int
        The comparisons in the family.
    metrics : list of str
        Their metrics.
    method : str
        The correction over the family: ``"Westfall-Young"`` (its joint resampling), or ``"Holm"``
        where the units cannot be resampled (trained runs, a few each).

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.wording import family_name
    >>> family_name("report", 54, ["npmi", "cv"])
    'Westfall-Young report-wide over all 54 comparisons of 2 metrics'
    >>> family_name("primary", 6, ["npmi"], method="Holm")
    'Holm over the 6 comparisons of the primary metric (npmi)'
    >>> family_name("report", 1, ["npmi"])
    'Westfall-Young report-wide over all 1 comparison of 1 metric'
    """
    k = len(metrics)
    words = FAMILY_WORDS[family].format(
        comparisons=_counted(n, "comparison"),
        metrics=_counted(k, "metric"),
        metric_word="metric" if k == 1 else "metrics",
        names=", ".join(metrics),
    )
    return f"{method} {words}"


def _counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless ``n`` is 1: ``1 pair``, ``3 pairs``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def correction(row: Row, alpha: float) -> str:
    """The correction, family and level a comparison row was tested at: its ``family``'s
    (:func:`family_name`) where the row has one, Holm over the metric's pairs otherwise (:func:`holm_level`)."""
    family = _family(row)
    return f"{family}, level {alpha:g}" if family else holm_level(alpha)


def families(comparisons: Iterable[Row], alpha: float) -> str:
    """What the significance marks of a page rest on: each family of comparisons and its correction.

    Parameters
    ----------
    comparisons : iterable of mappings
        The rows of an evaluation's ``comparisons`` table.
    alpha : float
        The level.

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.wording import families
    >>> print(families([{"family": "Westfall-Young report-wide over all 6 comparisons of 1 metric"}], 0.05))
    two-sided tests; the probability of any false "better than" on this page is at most 0.05 (Westfall-Young report-wide over all 6 comparisons of 1 metric, level 0.05)
    """
    rows = list(comparisons)
    named = list(dict.fromkeys(_family(r) for r in rows))
    if not any(named):
        return f"two-sided tests, Holm-corrected, level {alpha:g}"
    parts = [f"{family}, level {alpha:g}" if family else holm_level(alpha) for family in named]
    return (
        f'two-sided tests; the probability of any false "better than" on this page is at most {alpha:g} '
        f"({'; '.join(parts)})"
        if len(named) == 1
        else f'two-sided tests, each family\'s probability of any false "better than" at most {alpha:g}: '
        + "; ".join(parts)
    )


def _family(row: Row) -> str:
    """A row's family (:func:`family_name`), empty where it has none (Holm over the metric's pairs)."""
    family = row.get("family")
    return family if isinstance(family, str) else ""


def _adjusted(row: Row) -> float:
    """The adjusted p-value a row's verdict rests on: the report's family's, or Holm's."""
    return float(row["p_report"]) if _family(row) else float(row["p_holm"])


def directed_label(output: Described) -> str:
    """A metric's label, with ``(lower is better)`` where it is."""
    return output.label + ("" if output.higher_is_better else " (lower is better)")


def row_label(output: Described, over_runs: bool = False) -> str:
    """A metric's label as the tables print it: its direction when lower is better, and what a
    model-level row is (jackknifed, or not tested; with the runs as the units, its interval is over
    the runs, which the table's title says, so the row says only that it is model-level).

    Parameters
    ----------
    output : Output
        The metric's description (``label``, ``higher_is_better``, ``plan``).
    over_runs : bool, optional
        Whether the models' values and intervals are over several trained runs each.

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.evaluation.metrics import outputs
    >>> from tealeaves.wording import row_label
    >>> row_label(outputs()["predictive_rank"]), row_label(outputs()["topic_uniqueness"])
    ('predictive rank (lower is better)', 'topic uniqueness (model-level; jackknife over topics)')
    >>> row_label(outputs()["topic_uniqueness"], over_runs=True)
    'topic uniqueness (model-level)'
    """
    if output.plan is None:
        return output.label + " (model-level; not tested)"
    if output.plan != "jackknife":
        return directed_label(output)
    return directed_label(output) + (" (model-level)" if over_runs else " (model-level; jackknife over topics)")


def _other(row: Row) -> str:
    """The model of a comparison row that its ``better`` model beat."""
    return row["model_b"] if row["better"] == row["model_a"] else row["model_a"]


def _by_metric(comparisons: Iterable[Row]) -> dict[str, list[Row]]:
    """The comparison rows of each metric, metrics in order of first appearance."""
    groups: dict[str, list[Row]] = {}
    for row in comparisons:
        groups.setdefault(str(row["metric"]), []).append(row)
    return groups


def winners(comparisons: Iterable[Row]) -> dict[str, str]:
    """Per metric, the model significantly better than every other model (Holm), where one is.

    Parameters
    ----------
    comparisons : iterable of mappings
        The rows of an evaluation's ``comparisons`` table.

    Returns
    -------
    dict of str to str
        Metric -> model.

    Examples
    --------
    >>> from tealeaves.wording import winners
    >>> rows = [
    ...     {"metric": "npmi", "model_a": "a", "model_b": "b", "better": "a"},
    ...     {"metric": "npmi", "model_a": "a", "model_b": "c", "better": "a"},
    ...     {"metric": "npmi", "model_a": "b", "model_b": "c", "better": ""},
    ... ]
    >>> winners(rows)
    {'npmi': 'a'}
    """
    found = {}
    for metric, part in _by_metric(comparisons).items():
        models = {r["model_a"] for r in part} | {r["model_b"] for r in part}
        for model in models:
            if sum(r["better"] == model for r in part) == len(models) - 1:
                found[metric] = str(model)
    return found


def beaten(comparisons: Iterable[Row]) -> dict[tuple[str, str], list[str]]:
    """Per (model, metric), the models it is significantly better than, in the table's order.

    Parameters
    ----------
    comparisons : iterable of mappings
        The rows of an evaluation's ``comparisons`` table.

    Returns
    -------
    dict
        (model, metric) -> the models it beat.

    Examples
    --------
    >>> from tealeaves.wording import beaten
    >>> beaten([{"metric": "npmi", "model_a": "a", "model_b": "b", "better": "b"}])
    {('b', 'npmi'): ['a']}
    """
    beats: dict[tuple[str, str], list[str]] = {}
    for row in comparisons:
        if row["better"]:
            beats.setdefault((row["better"], row["metric"]), []).append(_other(row))
    return beats


def comparison_caption(comparisons: Iterable[Row], alpha: float) -> str:
    """The caption of one metric's comparison figure: the significant pairs, or that there are none.

    Parameters
    ----------
    comparisons : iterable of mappings
        The comparison rows of one metric.
    alpha : float
        The level the pairs were tested at.

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.wording import comparison_caption
    >>> comparison_caption([{"metric": "npmi", "model_a": "a", "model_b": "b", "better": ""}], 0.05)
    'not significant (Holm, level 0.05) for any pair'
    >>> family = "Westfall-Young report-wide over all 9 comparisons of 9 metrics"
    >>> comparison_caption([{"metric": "npmi", "model_a": "a", "model_b": "b", "better": "a", "family": family}], 0.05)
    'significantly (Westfall-Young report-wide over all 9 comparisons of 9 metrics, level 0.05): a better than b'
    """
    rows = list(comparisons)
    marks = [f"{r['better']} better than {_other(r)}" for r in rows if r["better"]]
    tested = correction(rows[0], alpha) if rows else holm_level(alpha)  # one metric's rows share their family
    if marks:
        return f"significantly ({tested}): " + "; ".join(marks)
    return f"not significant ({tested}) for any pair"


def scope(runs: Mapping[str, list[str]] | None) -> str:
    """What the verdicts are about: these trained models (one run each, :data:`SCOPE`), or, with
    several runs per model, the models as trained with these settings (runs are the units).

    Parameters
    ----------
    runs : mapping of str to list of str, or None
        Each model's runs, as the evaluation's manifest records them (empty or None: one run each).

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.wording import scope
    >>> print(scope({"lda": ["lda/1", "lda/2"], "vb": ["vb/1", "vb/2"]})[:60])
    Each model is 2 trained runs (seeds), the units of its inter
    """
    if not runs:
        return SCOPE
    counts = sorted({len(names) for names in runs.values()})
    many = " to ".join(str(n) for n in (counts[0], counts[-1]) if n) if len(counts) > 1 else str(counts[0])
    return (
        f"Each model is {many} trained runs (seeds), the units of its intervals and tests: the verdicts are "
        "about the models as trained with these settings, run to run variation included, scored on this "
        "held-out and this reference corpus."
    )


def _plan_words(output: Described, part: list[Row]) -> str:
    """How one metric's pairs were tested, in words: the units and the tests they had."""
    over_runs = str(part[0]["test"]).endswith("over runs")
    plan = PLAN_WORDS["runs" if over_runs else str(output.plan)]
    if output.unit == "document" and output.plan != "paired":  # topic log odds: the rated documents
        plan = plan.replace("topics as units", "rated documents as units")
    tests = {str(r["test"]) for r in part}
    others = sorted(t for t in tests if t.startswith(("permutation", "studentised permutation")))
    if others:  # too few units, no spread, or values at a ceiling
        phrase = "Welch's t" if over_runs else "bootstrap-t test of Welch's t"
        named = [f"{t} test" if t.endswith("permutation") else t for t in others]
        used = " or ".join(named) if len(others) == len(tests) else " or ".join([phrase, *named])
        plan = plan.replace(phrase, used)
    return plan


def _found(row: Row) -> str:
    """``A better than B by 0.1 [0.05, 0.15] (p = 0.002)``: a significant pair, its size and Holm p;
    with one trained run per model, each name marked ``(this run)``."""
    size = abs(row["difference"])
    low, high = sorted(abs(x) for x in (row["ci_low"], row["ci_high"]))
    interval = f" [{low:.3g}, {high:.3g}]" if row["ci_low"] * row["ci_high"] > 0 else ""
    mark = "" if _over_runs([row]) else f" {ONE_RUN}"
    winner, loser = f"{row['better']}{mark}", f"{_other(row)}{mark}"
    return f"{winner} better than {loser} by {size:.3g}{interval} ({p_value(_adjusted(row))})"


def _over_runs(part: Iterable[Row]) -> bool:
    """Whether comparison rows tested models with their trained runs as the units."""
    return all(str(r["test"]).endswith("over runs") for r in part)


def runs_note(runs: Mapping[str, list[str]] | None) -> str:
    """What a table's bold cells and marks are about, for its title or legend: empty with several
    runs per model, else that they are about these trained models (:data:`TRAINED_ONLY`).

    Parameters
    ----------
    runs : mapping or None
        As :func:`scope` takes it.

    Returns
    -------
    str
        The note, or an empty string.

    Examples
    --------
    >>> from tealeaves.wording import runs_note
    >>> runs_note(None)
    'one run each: a verdict about these trained models, not the algorithms: give several runs per model'
    >>> runs_note({"lda": ["lda/1", "lda/2"]})
    ''
    """
    return "" if runs else f"one run each: {TRAINED_ONLY}"


def summary_title(models: int, k: int, seeds: int) -> str:
    """The demo's summary table title: how many models, K, and how many runs (seeds) each.

    Examples
    --------
    >>> from tealeaves.wording import summary_title
    >>> summary_title(4, 20, 3)
    '4 models, K=20, 3 trained runs (seeds) each as the units (95% intervals)'
    >>> summary_title(4, 20, 1)[:40]
    '4 models, K=20 (95% intervals; one run e'
    """
    if seeds > 1:
        return f"{models} models, K={k}, {seeds} trained runs (seeds) each as the units (95% intervals)"
    return f"{models} models, K={k} (95% intervals; {runs_note(None)})"


def _unreachable(row: Row, alpha: float) -> bool:
    """Whether a row's test cannot reach the level at all (too few units for its family)."""
    attainable = float(row.get("p_attainable", math.nan))
    return math.isfinite(attainable) and attainable >= alpha


def _open(open_pairs: list[Row], alpha: float) -> str:
    """The pairs not found different, with the difference their tests would have found, or that they
    could not find any (the smallest p-value their test can attain, adjusted, is not below the level)."""
    stuck = [r for r in open_pairs if _unreachable(r, alpha)]
    open_pairs = [r for r in open_pairs if not _unreachable(r, alpha)]
    sentences = []
    if stuck:
        names = ", ".join(f"{r['model_a']} vs {r['model_b']}" for r in stuck)
        least = min(float(r["p_attainable"]) for r in stuck)
        sentences.append(
            f"Cannot reach level {alpha:g} ({correction(stuck[0], alpha)}): {names}; too few units, "
            f"the smallest p-value these tests can attain is {least:.2g}."
        )
    if open_pairs:
        sentences.append(_not_found(open_pairs, alpha))
    return " ".join(sentences)


def _not_found(open_pairs: list[Row], alpha: float) -> str:
    """The pairs not found different that could have been, with the difference their tests would have found."""
    names = ", ".join(f"{r['model_a']} vs {r['model_b']}" for r in open_pairs)
    mdd = [float(r["mdd"]) for r in open_pairs if math.isfinite(float(r["mdd"]))]
    span = f"{min(mdd):.3g}" if mdd and f"{min(mdd):.3g}" == f"{max(mdd):.3g}" else ""
    span = span or (f"{min(mdd):.3g} to {max(mdd):.3g}" if mdd else "")
    reach = f"; the smallest true difference these tests find with 80% power: {span}" if span else ""
    return f"Not significant ({correction(open_pairs[0], alpha)}): {names}{reach}."


def verdicts(comparisons: Iterable[Row], outputs: Mapping[str, Described], alpha: float) -> dict[str, str]:
    """One sentence per compared metric of an evaluation: what was found and how sure.

    The pairs significantly different after the row's correction ("A better than B", with the
    difference, its 95% interval and the adjusted two-sided p-value: Westfall and Young's over the
    row's ``family`` where it has one, :func:`correction`, Holm's over the metric's pairs
    otherwise); the other pairs are "not significant (Holm, level 0.05)", with the difference the
    test could have found with 80% power, or "cannot reach level 0.05" with the smallest p-value
    their test can attain where it is not below the level (``p_attainable``), and "equivalent within ±ε (TOST)" where the metric has a margin and the pair passes.
    Where the models were not compared with their trained runs as the units (one run each), every
    model named better or worse is marked "(this run)" and the sentence says that it is a verdict
    about these trained models, not the algorithms (:data:`TRAINED_ONLY`).

    Parameters
    ----------
    comparisons : iterable of mappings
        The rows of an evaluation's ``comparisons`` table.
    outputs : mapping of str to Output
        Each metric's description (:func:`tealeaves.evaluation.metrics.outputs`).
    alpha : float
        The significance level the table was tested at, named in the sentences.

    Returns
    -------
    dict of str to str
        One sentence per metric, by metric name, in the table's order.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from tealeaves.wording import verdicts
    >>> npmi = SimpleNamespace(label="NPMI", higher_is_better=True, unit="topic", plan="independent")
    >>> row = {"metric": "npmi", "model_a": "a", "model_b": "b", "difference": 0.2, "ci_low": 0.1, "ci_high": 0.3,
    ...        "test": "Welch's t", "p_holm": 0.004, "better": "a", "equivalent": False, "mdd": 0.1, "margin": 0.05}
    >>> print(verdicts([row], {"npmi": npmi}, 0.05)["npmi"])
    NPMI (higher is better; topics as units, independent across models (bootstrap-t test of Welch's t), 1 pair): a (this run) better than b (this run) by 0.2 [0.1, 0.3] (p = 0.004) (Holm, level 0.05): a verdict about these trained models, not the algorithms: give several runs per model.
    """
    lines = {}
    for metric, part in _by_metric(comparisons).items():
        output = outputs[metric]
        direction = "higher is better" if output.higher_is_better else "lower is better"
        pairs = _counted(len(part), "pair")
        head = f"{output.label} ({direction}; {_plan_words(output, part)}, {pairs})"
        found = [_found(r) for r in part if r["better"]]
        equivalent = [f"{r['model_a']} and {r['model_b']}" for r in part if not r["better"] and r["equivalent"]]
        open_pairs = [r for r in part if not r["better"] and not r["equivalent"]]
        caveat = "" if _over_runs(part) else f": {TRAINED_ONLY}"
        sentences = [
            f"{', '.join(found)} ({correction(part[0], alpha)}){caveat}." if found else "no pair differs significantly."
        ]
        if equivalent:
            margin = float(part[0]["margin"])
            sentences.append(f"Equivalent within ±{margin:g} (TOST, {holm_level(alpha)}): {', '.join(equivalent)}.")
        if open_pairs:
            sentences.append(_open(open_pairs, alpha))
        lines[metric] = f"{head}: " + " ".join(sentences)
    return lines


def pair_verdict(
    a: str,
    b: str,
    difference: float,
    p_holm: float,
    detectable: float,
    alpha: float,
    power: float = 0.8,
    *,
    better: str = "better than",
    untestable: str = "untestable: no variation within either model",
    digits: str = ".3g",
) -> str:
    """The sentence of one comparison of A and B: who is better, or that the test did not find it and what it could.

    Parameters
    ----------
    a, b : str
        The two compared (models, metrics).
    difference : float
        A − B, signed so that positive means A is better.
    p_holm : float
        The Holm-corrected p-value; NaN where the data could not be tested.
    detectable : float
        The difference the test finds with probability ``power``.
    alpha, power : float
        The level and the power of ``detectable``.
    better : str, optional
        The comparison's verb (``"correlates better than"`` for two metrics).
    untestable : str, optional
        The sentence for a NaN p-value.
    digits : str, optional
        The format of ``detectable``.

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.wording import pair_verdict
    >>> pair_verdict("npmi", "umass", -0.12, 0.004, 0.1, 0.05, better="correlates better than")
    'umass correlates better than npmi (Holm p = 0.004)'
    """
    if not math.isfinite(p_holm):
        return untestable
    if p_holm < alpha:
        winner, loser = (a, b) if difference > 0 else (b, a)
        return f"{winner} {better} {loser} (Holm p = {p_holm:.3g})"
    return (
        f"not significant ({holm_level(alpha)}); a difference of {detectable:{digits}} "
        f"would be found with {power:.0%} power"
    )


def summary_rows(
    per_model: Iterable[Row], comparisons: Iterable[Row] | None, outputs: Mapping[str, Described]
) -> tuple[list[str], list[tuple[str, list[SummaryCell | None]]]]:
    """The summary table of an evaluation (metrics x models) as the terminal shows it.

    Each cell is a model's value of a metric (four significant digits), its 95% interval below
    it (three; none for an untested model-level value) and whether it is the one model
    significantly better than every other (:func:`winners`, which needs ``comparisons``).

    Parameters
    ----------
    per_model : iterable of mappings
        The rows of an evaluation's ``per_model`` table.
    comparisons : iterable of mappings or None
        The rows of its ``comparisons`` table.
    outputs : mapping of str to Output
        Each metric's description.

    Returns
    -------
    models : list of str
        The columns, in the table's order.
    rows : list of (str, list)
        Each metric's :func:`row_label` and one :class:`SummaryCell` per model (None where the
        model has no value).

    Examples
    --------
    >>> from tealeaves.evaluation.metrics import outputs
    >>> from tealeaves.wording import summary_rows
    >>> per_model = [
    ...     {"model": "a", "metric": "npmi", "mean": 0.123456, "ci_low": 0.1, "ci_high": 0.15},
    ...     {"model": "b", "metric": "npmi", "mean": 0.05, "ci_low": 0.01, "ci_high": 0.09},
    ... ]
    >>> summary_rows(per_model, [{"metric": "npmi", "model_a": "a", "model_b": "b", "better": "a"}], outputs())
    (['a', 'b'], [('NPMI', [SummaryCell(value='0.1235', interval='[0.1, 0.15]', best=True), SummaryCell(value='0.05', interval='[0.01, 0.09]', best=False)])])
    """
    rows = list(per_model)
    models = list(dict.fromkeys(str(r["model"]) for r in rows))
    best = winners(comparisons) if comparisons is not None else {}
    table: dict[str, dict[str, Row]] = {}
    for r in rows:
        table.setdefault(str(r["metric"]), {})[str(r["model"])] = r
    out = []
    for metric, values in table.items():
        cells: list[SummaryCell | None] = []
        for model in models:
            value = values.get(model)
            if value is None:
                cells.append(None)
                continue
            low, high = value["ci_low"], value["ci_high"]
            interval = f"[{low:.3g}, {high:.3g}]" if low == low else ""
            cells.append(SummaryCell(f"{value['mean']:.4g}", interval, best.get(metric) == model))
        over_runs = any(r.get("plan") == "runs" for r in values.values())
        out.append((row_label(outputs[metric], over_runs), cells))
    return models, out
