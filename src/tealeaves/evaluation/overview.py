"""What an evaluation shows first, as HTML: the summary table and verdicts, and the papers' figures.

The sections 1 to 5 of the report (:func:`tealeaves.report`) and the notebook display of an
:class:`~tealeaves.evaluation.Evaluation` (:func:`inline`) are the same HTML, made here, below
both: the summary (models x metrics with 95% intervals, the models each one is significantly
better than, in bold only a model significantly better than every other, one verdict per
metric; :mod:`tealeaves.wording`), the model comparison per metric (Hoyle et al. 2021, Fig. 2),
the distribution over topics of each per-topic metric (Chang et al. 2009, Figs. 3 and 5),
likelihood against interpretability (Chang et al. 2009, Fig. 6) and, with human data, the
automated metrics against the human scores (Hoyle et al. 2021, Fig. 3, Table 3). Figures are
inline SVG (:mod:`tealeaves.svg`); the HTML has no script.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

import numpy as np

from tealeaves import svg, wording
from tealeaves.display import number as fmt
from tealeaves.evaluation.metrics import outputs

if TYPE_CHECKING:
    from tealeaves.evaluation.run import Evaluation

LIKELIHOODS = ("heldout_log_likelihood", "predictive_log_likelihood")
MIN_SCATTER_MODELS = 5
INTERPRETABILITY = ("model_precision", "topic_log_odds", "wi_auto_pmi", "npmi")
# the few rules of STYLE that the inline display needs, scoped to it (a notebook has its own style sheet)
INLINE_STYLE = (
    ".tealeaves-evaluation td.num { text-align: right; white-space: nowrap; } "
    ".tealeaves-evaluation td.best { font-weight: bold; } "
    ".tealeaves-evaluation .muted, .tealeaves-evaluation td small { color: #555; } "
    ".tealeaves-evaluation .grid { display: flex; flex-wrap: wrap; gap: 1rem; } "
    ".tealeaves-evaluation figure { margin: 0; width: min(100%, 480px); } "
    ".tealeaves-evaluation figure svg { width: 100%; height: auto; background: #fff; }"
)


def summary_and_figures(evaluation: Evaluation) -> list[str]:
    """The report's sections 1 to 5 as HTML: the summary (table and verdicts), the model comparison,
    the per-topic distributions, likelihood against interpretability and, with human data, the
    automated metrics against the human scores (empty strings for sections the run has nothing for)."""
    manifest = evaluation.manifest
    trained = list(manifest["models"])  # with several runs per model, the runs (MODEL/1, ...)
    models = list(manifest.get("runs") or {}) or trained
    known = outputs()
    per_model = evaluation.per_model
    metrics = [m for m in dict.fromkeys(per_model["metric"]) if m in known]
    alpha = evaluation.alpha
    comparisons = evaluation.comparisons.to_dict("records")
    lines = wording.verdicts(comparisons, known, alpha)
    return [
        _summary(per_model, comparisons, models, metrics, known, lines, alpha, wording.runs_note(manifest.get("runs"))),
        _comparison_figures(per_model, models, metrics, known, comparisons, alpha),
        _distribution_figures(evaluation, trained, known),
        _likelihood_figures(per_model, models, known),
        _human_figures(evaluation, trained, known),
    ]


def inline(evaluation: Evaluation) -> str:
    """The notebook display of ``evaluation``: what the run is about and the report's sections 1
    to 5 (:func:`summary_and_figures`, the same tables and SVG), with a scoped style sheet and no
    script; the topic cards and the provenance stay in the page :func:`tealeaves.report` writes."""
    where = escape(str(evaluation.path))
    sections = "".join(s for s in summary_and_figures(evaluation) if s)
    return (
        f"<div class='tealeaves-evaluation'><style>{INLINE_STYLE}</style>"
        f"<p><strong>Evaluation</strong> <small>{where}</small></p>"
        f"<p class='muted'>{escape(wording.scope(evaluation.manifest.get('runs')))}</p>{sections}</div>"
    )


def _summary(per_model, comparisons, models, metrics, known, lines, alpha, note="") -> str:
    best = wording.winners(comparisons)
    beats = wording.beaten(comparisons)
    table = per_model.set_index(["model", "metric"])
    head = "".join(f"<th class='num'>{escape(model)}</th>" for model in models)
    rows = []
    for metric in metrics:
        over_runs = bool((per_model.loc[per_model.metric == metric, "plan"] == "runs").any())
        cells = [f"<th>{escape(wording.row_label(known[metric], over_runs))}</th>"]
        for model in models:
            if (model, metric) not in table.index:
                cells.append("<td class='num muted'>–</td>")
                continue
            r = table.loc[(model, metric)]
            ci = f"<br><small>[{fmt(r.ci_low)}, {fmt(r.ci_high)}]</small>" if np.isfinite(r.ci_low) else ""
            won = beats.get((model, metric))
            mark = f"<br><small class='beats'>better than {escape(', '.join(won))}</small>" if won else ""
            cls = "num best" if best.get(metric) == model else "num"
            cells.append(
                f"<td class='{cls}' data-model='{escape(model)}' data-metric='{metric}' "
                f"data-value='{float(r['mean'])!r}'><span class='value'>{fmt(r['mean'])}</span>{ci}{mark}</td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    verdict_items = "".join(f"<li data-metric='{m}'>{escape(line)}</li>" for m, line in lines.items())
    model_level = (
        "Model-level rows are one number per run, averaged over the runs; all but the untested ones have an "
        "interval and a test over the runs."
        if (per_model["plan"] == "runs").any()
        else "Model-level rows are one number per model; only the jackknifed ones have an interval and a test."
    )
    return (
        "<section id='summary'><h2>Summary</h2><div class='scroll'><table id='summary-table'>"
        f"<thead><tr><th>metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        f"<p class='muted'>Bold: a model significantly better than every other model on that metric "
        f"(none is bold where no model is); under a value, the models it is significantly better than "
        f"({escape(wording.families(comparisons, alpha))}). {model_level}"
        f"{escape(f' Bold and marks: {note}.' if note else '')}</p>"
        f"<h3>Verdicts</h3><ul class='verdicts'>{verdict_items}</ul></section>"
    )


def _figure(name: str, body: str, caption: str) -> str:
    return f"<figure data-figure='{name}'>{body}<figcaption>{escape(caption)}</figcaption></figure>"


def _comparison_figures(per_model, models, metrics, known, comparisons, alpha) -> str:
    figures = []
    for metric in metrics:
        part = per_model[(per_model["metric"] == metric) & per_model["ci_low"].notna()].set_index("model")
        names = [m for m in models if m in part.index]
        if not names:
            continue
        body = svg.interval_plot(
            wording.directed_label(known[metric]),
            known[metric].label,
            names,
            part.loc[names, "mean"].tolist(),
            part.loc[names, "ci_low"].tolist(),
            part.loc[names, "ci_high"].tolist(),
        )
        caption = wording.comparison_caption([r for r in comparisons if r["metric"] == metric], alpha)
        figures.append(_figure(f"comparison-{metric}", body, caption))
    return _section(
        "comparison", "Model comparison (Hoyle et al. 2021, Fig. 2)", figures, "Value and 95% interval per model."
    )


def _distribution_figures(evaluation, models, known) -> str:
    per_topic, per_document = evaluation.per_topic, evaluation.per_document
    parts = [(m, per_topic[per_topic["metric"] == m], "topic") for m in dict.fromkeys(per_topic["metric"])]
    if "topic_log_odds" in set(per_document["metric"]):  # Chang et al. Fig. 5: one value per document
        parts.append(("topic_log_odds", per_document[per_document["metric"] == "topic_log_odds"], "document"))
    figures = []
    for metric, part, unit in parts:
        groups = {m: part.loc[part["model"] == m, "value"].to_numpy() for m in models if (part["model"] == m).any()}
        label = known[metric].label if metric in known else metric
        body = svg.box_plot(f"{label} per {unit}", label, groups)
        caption = f"{label} of every {unit}, per model (box: quartiles; whiskers: 1.5 IQR)."
        figures.append(_figure(f"distribution-{metric}", body, caption))
    return _section(
        "distributions",
        "Per-topic distributions (Chang et al. 2009, Figs. 3 and 5)",
        figures,
        "Each box summarises one model's topics (documents for topic log odds).",
    )


def _likelihood_figures(per_model, models, known) -> str:
    table = per_model.set_index(["model", "metric"])["mean"]
    present = set(per_model["metric"])
    figures: list[str] = []
    title = "Likelihood against interpretability (Chang et al. 2009, Fig. 6)"
    if len(models) < MIN_SCATTER_MODELS:
        why = (
            f"Shown with {MIN_SCATTER_MODELS} models or more: with {len(models)}, one point per model "
            "cannot show whether a better fit goes with more interpretable topics."
        )
        return _section("likelihood", title, figures, why)
    for x_metric in (m for m in LIKELIHOODS if m in present):
        for y_metric in (m for m in INTERPRETABILITY if m in present):
            points = [
                (float(table[m, x_metric]), float(table[m, y_metric]), m, i)
                for i, m in enumerate(models)
                if (m, x_metric) in table.index and (m, y_metric) in table.index
            ]
            if not points:
                continue
            x_label, y_label = known[x_metric].label, known[y_metric].label
            body = svg.scatter_plot(f"{y_label} against {x_label}", x_label, y_label, points, labelled=True)
            figures.append(
                _figure(
                    f"likelihood-{x_metric}-{y_metric}",
                    body,
                    "One point per model: does a better fit mean more interpretable topics?",
                )
            )
        if len(figures) >= 4:
            break
    return _section("likelihood", title, figures, "Models without a prior have no held-out likelihood.")


def _human_figures(evaluation, models, known) -> str:
    correlations = evaluation.correlations
    per_topic = evaluation.per_topic
    if correlations.empty or "model_precision" not in set(per_topic["metric"]):
        return ""
    human = per_topic[per_topic["metric"] == "model_precision"].set_index(["model", "topic"])["value"]
    figures = []
    for row in correlations[correlations["task"] == "word-intrusion"].itertuples():
        part = per_topic[per_topic["metric"] == row.metric].set_index(["model", "topic"])["value"]
        keys = [k for k in part.index if k in human.index]
        points = [(float(part[k]), float(human[k]), f"{k[0]} topic {k[1]}", models.index(k[0])) for k in keys]
        label = known[row.metric].label if row.metric in known else row.metric
        title = f"model precision against {label}: Spearman {row.spearman:.2f} [{row.ci_low:.2f}, {row.ci_high:.2f}]"
        body = svg.scatter_plot(title, label, "model precision", points)
        figures.append(
            _figure(
                f"human-{row.metric}",
                body,
                "One point per topic; colours are models. Interval: bootstrap over annotators.",
            )
        )
    return _section(
        "human", "Automated metrics against human judgments (Hoyle et al. 2021, Fig. 3 and Table 3)", figures, ""
    )


def _section(ident: str, title: str, figures: list[str], lead: str) -> str:
    if not figures:
        return f"<section id='{ident}'><h2>{escape(title)}</h2><p class='muted'>Not available for this run. {escape(lead)}</p></section>"
    return f"<section id='{ident}'><h2>{escape(title)}</h2><p class='muted'>{escape(lead)}</p><div class='grid'>{''.join(figures)}</div></section>"
