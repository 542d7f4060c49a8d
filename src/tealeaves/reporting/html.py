"""``tealeaves.report(run, out)``: one self-contained HTML page that answers which model is best.

The page reads an evaluation run (:class:`tealeaves.evaluation.Evaluation`) and shows, in order:

1. the summary: models x metrics with 95% intervals, the models each one is significantly
   better than, in bold only a model significantly better than every other, model-level rows
   labelled, one sentence per metric of what was found and how sure (two-sided tests by the
   metric's plan, adjusted over the whole report by Westfall and Young's step-down;
   :mod:`tealeaves.evaluation.stats`, worded by
   :mod:`tealeaves.wording`), and what the verdicts are about (one trained run per model, this
   reference corpus);
2. the model comparison per metric, value and interval per model (Hoyle et al. 2021 Fig. 2);
3. the distribution over topics of each per-topic metric per model (Chang et al. 2009 Figs. 3
   and 5, box plots; model precision and topic log odds when the run has human data);
4. held-out likelihood (or predictive log likelihood) against an interpretability score, one
   point per model (Chang et al. 2009 Fig. 6), with
   :data:`~tealeaves.evaluation.overview.MIN_SCATTER_MODELS` models or more
   (with fewer, a scatter of a handful of points invites reading a trend into noise);
5. with human data, per-topic automated metrics against model precision with Spearman's rho and
   its bootstrap interval (Hoyle et al. 2021 Fig. 3, Table 3);
6. topic cards: top words, every metric, flags (redundant, rare words, low WI-Auto), searchable
   and sortable;
7. the configuration, versions and fingerprints that reproduce the run.

Sections 1 to 5 are :func:`tealeaves.evaluation.overview.summary_and_figures`, which the notebook
display of an :class:`~tealeaves.evaluation.Evaluation` shows too (the same HTML and SVG, no
script), so the report sits above the evaluation and never the other way round. Figures are
inline SVG (:mod:`tealeaves.svg`); the page makes no request: its one style sheet and one script
are inline and allowed by their SHA-256 hashes in a Content-Security-Policy that forbids
everything else. Colours are the Okabe-Ito palette; the layout reflows down to a phone's width
and prints without the controls. The :class:`Report` that :func:`report` returns displays the
whole page in a notebook, in a sandboxed ``<iframe srcdoc>`` (:meth:`Report._repr_html_`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tealeaves.artifacts import atomic_file
from tealeaves.display import number as fmt
from tealeaves.errors import InputError

if TYPE_CHECKING:
    from tealeaves.evaluation import Evaluation

STYLE = """
:root { --ink: #1a1a1a; --muted: #555; --line: #ccc; --bg: #fff; --band: #f4f6f8; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, sans-serif; color: var(--ink); background: var(--bg); margin: 0 auto;
  max-width: 1240px; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; margin: .5rem 0; } h2 { font-size: 1.25rem; margin-top: 2.2rem;
  border-bottom: 2px solid var(--line); padding-bottom: .2rem; }
p.lead { color: var(--muted); margin-top: 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .6rem; text-align: left; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
td.best { font-weight: bold; }
td small, .muted { color: var(--muted); }
ul.verdicts li { margin: .2rem 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 480px), 1fr)); gap: 1rem; }
figure { margin: 0; padding: .5rem; background: var(--band); border-radius: 6px; break-inside: avoid; }
figure svg { width: 100%; height: auto; display: block; background: #fff; }
figcaption { font-size: .85rem; color: var(--muted); padding: .3rem .2rem 0; }
.controls { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin: .5rem 0 1rem; }
.controls input, .controls select { font: inherit; padding: .3rem .5rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 280px), 1fr)); gap: .8rem; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; break-inside: avoid; }
.card h3 { font-size: 1rem; margin: 0 0 .3rem; } .card .words { font-weight: 600; }
.card dl { display: grid; grid-template-columns: auto auto; gap: 0 .8rem; margin: .4rem 0; font-size: .85rem; }
.card dd { margin: 0; text-align: right; font-variant-numeric: tabular-nums; }
.card ul.flags { margin: .3rem 0 0; padding-left: 1.1rem; font-size: .85rem; color: #a33b00; }
.card[hidden] { display: none; }
pre { background: var(--band); padding: .8rem; overflow-x: auto; font-size: .8rem; }
@media (max-width: 600px) { body { padding: .5rem .7rem 2rem; font-size: 14px; } th, td { padding: .3rem .35rem; } }
@media print { .controls { display: none; } body { max-width: none; padding: 0; font-size: 11pt; }
  h2 { break-after: avoid; } figure, .card, tr { break-inside: avoid; } .cards { display: block; }
  .card { margin-bottom: .4rem; } a { color: inherit; text-decoration: none; } }
""".strip()

SCRIPT = """
(function () {
  var search = document.getElementById("search");
  var sort = document.getElementById("sort");
  var model = document.getElementById("model");
  var box = document.getElementById("cards");
  var cards = Array.prototype.slice.call(box.querySelectorAll(".card"));
  function update() {
    var q = search.value.trim().toLowerCase();
    var m = model.value;
    var key = sort.value;
    cards.forEach(function (c) {
      var text = (c.getAttribute("data-words") + " " + c.getAttribute("data-flags")).toLowerCase();
      c.hidden = (q && text.indexOf(q) < 0) || (m && c.getAttribute("data-model") !== m);
    });
    var sorted = cards.slice();
    if (key) {
      sorted.sort(function (a, b) {
        var x = parseFloat(a.getAttribute("data-" + key)), y = parseFloat(b.getAttribute("data-" + key));
        if (isNaN(x)) return 1; if (isNaN(y)) return -1; return y - x;
      });
    }
    sorted.forEach(function (c) { box.appendChild(c); });
  }
  [search, sort, model].forEach(function (el) { el.addEventListener("input", update); });
})();
""".strip()


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


CSP = (
    f"default-src 'none'; style-src '{_sha256(STYLE)}'; script-src '{_sha256(SCRIPT)}'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)

IFRAME_HEIGHT = 720  # pixels of a notebook cell the report's page scrolls in

ONE_RUN_METHODS = (
    "Intervals are 95% intervals: bootstrap-t intervals over topics for topic metrics (for shares at a ceiling, "
    "reaching down to Gaffke's limit: junk topics the sample may miss), bootstrap-t intervals over the held-out "
    "documents (the same documents for every model) for likelihoods, jackknife intervals over topics for "
    "model-level quantities. Differences are tested two-sided (a bootstrap-t test of Welch's t over topics, a "
    "studentised randomisation test of the paired t over documents, a randomisation test over regroupings of "
    "both models' topics for model-level quantities)"
)
"""What the report's introduction says its intervals and tests are, with one trained run per model."""

RUNS_METHODS = (
    "Intervals are 95% t intervals over each model's trained runs (its value is the mean of its runs' values; "
    "a bounded metric's on the logit or log scale of its range and back). Differences are tested two-sided by "
    "the mixed model's t over the runs, with each run's topics or held-out documents within it (the documents "
    "the same for every run of every model)"
)
"""What the report's introduction says its intervals and tests are, with several trained runs per model."""


class Report(type(Path())):  # type: ignore[misc]  # PosixPath or WindowsPath: Path itself is not subclassable before 3.12
    """The path :func:`report` wrote, which a notebook displays as the page itself.

    A :class:`~pathlib.Path` in every other way (``read_text()``, ``open()``, ``str()``, equal to
    the plain path), so code that used the path :func:`report` returned works unchanged.

    Parameters
    ----------
    *args : str or path
        The path, as for :class:`~pathlib.Path`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.evaluation import evaluate
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> words = "tax budget deficit war peace army school teacher student farm crop harvest".split()
    >>> docs = [[3 * k + (i + s) % 3 for i in range(3)] for k in range(4) for s in range(2)]  # 2 per topic
    >>> _ = Corpus.from_documents(docs, Vocabulary(words)).save(folder / "reference")
    >>> _ = (folder / "clean.txt").write_text("tax budget deficit\\nwar peace army\\nschool teacher student\\nfarm crop harvest\\n")
    >>> _ = (folder / "mixed.txt").write_text("tax war school\\nbudget peace farm\\ndeficit army crop\\nteacher student harvest\\n")
    >>> config = {
    ...     "corpora": {"reference": str(folder / "reference")},
    ...     "models": [
    ...         {"name": "clean", "path": str(folder / "clean.txt")},
    ...         {"name": "mixed", "path": str(folder / "mixed.txt")},
    ...     ],
    ...     "metrics": {"npmi": {"topn": 3, "window": "document"}, "cv": False, "wi-auto": False, "diversity": False},
    ... }
    >>> evaluation = evaluate(config, folder / "run")
    >>> from tealeaves.reporting import Report, report
    >>> page = report(evaluation, folder / "report.html")
    >>> isinstance(page, Report), page == folder / "report.html"
    (True, True)
    >>> page._repr_html_().startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;')  # the page, in a sandboxed frame
    True
    >>> tmp.cleanup()
    """

    def _repr_html_(self) -> str | None:
        """The page in an ``<iframe srcdoc>`` (the page HTML-escaped into the attribute), sandboxed.

        The sandbox gives the page an opaque origin, so it cannot reach the notebook; it allows
        scripts because the page's one script (search and sort of the topic cards, allowed by the
        page's own Content-Security-Policy) needs it. None (no HTML display) when the file is gone.
        """
        if not self.is_file():
            return None
        page = self.read_text(encoding="utf-8")
        return (
            f'<iframe srcdoc="{escape(page, quote=True)}" sandbox="allow-scripts" '
            f'title="tealeaves report {escape(self.name, quote=True)}" width="100%" height="{IFRAME_HEIGHT}" '
            'frameborder="0"></iframe>'
        )


def report(run: str | os.PathLike[str] | Evaluation, out: str | os.PathLike[str]) -> Report:
    """Write the HTML report of the evaluation ``run`` (a run folder or an Evaluation) to ``out``.

    One self-contained page: the summary table and verdicts, the papers' figures as inline SVG,
    a card per topic and the provenance; no network request, a strict Content-Security-Policy.

    Parameters
    ----------
    run : path or Evaluation
        A run folder written by :func:`tealeaves.evaluate`, or the Evaluation it returned.
    out : path
        The HTML file to write (``.html`` or ``.htm``); its folder is created when missing.

    Returns
    -------
    Report
        The path written (atomically: a temporary file renamed into place), a
        :class:`~pathlib.Path` that a notebook displays as the page.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.evaluation import evaluate
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> words = "tax budget deficit war peace army school teacher student farm crop harvest".split()
    >>> docs = [[3 * k + (i + s) % 3 for i in range(3)] for k in range(4) for s in range(2)]  # 2 per topic
    >>> _ = Corpus.from_documents(docs, Vocabulary(words)).save(folder / "reference")
    >>> _ = (folder / "clean.txt").write_text("tax budget deficit\\nwar peace army\\nschool teacher student\\nfarm crop harvest\\n")
    >>> _ = (folder / "mixed.txt").write_text("tax war school\\nbudget peace farm\\ndeficit army crop\\nteacher student harvest\\n")
    >>> config = {
    ...     "corpora": {"reference": str(folder / "reference")},
    ...     "models": [
    ...         {"name": "clean", "path": str(folder / "clean.txt")},
    ...         {"name": "mixed", "path": str(folder / "mixed.txt")},
    ...     ],
    ...     "metrics": {"npmi": {"topn": 3, "window": "document"}, "cv": False, "wi-auto": False, "diversity": False},
    ... }
    >>> evaluation = evaluate(config, folder / "run")
    >>> from tealeaves.reporting import report
    >>> page = report(folder / "run", folder / "report.html")
    >>> page.name, page.is_file()
    ('report.html', True)
    >>> "<title>tealeaves report: clean, mixed</title>" in page.read_text(encoding="utf-8")
    True
    >>> tmp.cleanup()
    """
    from tealeaves.evaluation import Evaluation

    evaluation = run if isinstance(run, Evaluation) else Evaluation.load(run)
    out = Path(out)
    if out.suffix.lower() not in {".html", ".htm"}:
        raise InputError(f"the report is an HTML file: give out=<a file name ending in .html>, got {out}")
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(out) as tmp:
        tmp.write_text(render(evaluation), encoding="utf-8")
    return Report(out)


def render(evaluation: Evaluation) -> str:
    """The report page of ``evaluation`` as one HTML string.

    Parameters
    ----------
    evaluation : Evaluation
        A run of :func:`tealeaves.evaluate` (or :meth:`Evaluation.load`).

    Returns
    -------
    str
        The page :func:`report` writes.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.evaluation import evaluate
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> words = "tax budget deficit war peace army school teacher student farm crop harvest".split()
    >>> docs = [[3 * k + (i + s) % 3 for i in range(3)] for k in range(4) for s in range(2)]  # 2 per topic
    >>> _ = Corpus.from_documents(docs, Vocabulary(words)).save(folder / "reference")
    >>> _ = (folder / "clean.txt").write_text("tax budget deficit\\nwar peace army\\nschool teacher student\\nfarm crop harvest\\n")
    >>> _ = (folder / "mixed.txt").write_text("tax war school\\nbudget peace farm\\ndeficit army crop\\nteacher student harvest\\n")
    >>> config = {
    ...     "corpora": {"reference": str(folder / "reference")},
    ...     "models": [
    ...         {"name": "clean", "path": str(folder / "clean.txt")},
    ...         {"name": "mixed", "path": str(folder / "mixed.txt")},
    ...     ],
    ...     "metrics": {"npmi": {"topn": 3, "window": "document"}, "cv": False, "wi-auto": False, "diversity": False},
    ... }
    >>> evaluation = evaluate(config, folder / "run")
    >>> from tealeaves.reporting import render
    >>> page = render(evaluation)
    >>> page.startswith("<!DOCTYPE html>"), page.count("<svg") > 0
    (True, True)
    >>> tmp.cleanup()
    """
    from tealeaves.evaluation.metrics import outputs
    from tealeaves.evaluation.overview import summary_and_figures
    from tealeaves.wording import families, scope

    manifest = evaluation.manifest
    runs = manifest.get("runs") or {}
    models = list(runs) or list(manifest["models"])
    sections = [
        *summary_and_figures(evaluation),
        _cards(evaluation, list(manifest["models"]), outputs()),
        _provenance(manifest),
    ]
    when = escape(str(manifest.get("created", "")))
    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>tealeaves report: {escape(', '.join(models))}</title><style>{STYLE}</style></head><body>"
    )
    intro = (
        f"<header><h1>Which model is best?</h1><p class='lead'>{len(models)} models "
        f"({escape(', '.join(models))}), evaluated by tealeaves {escape(str(manifest.get('tealeaves_version')))} "
        f"on {when}. {RUNS_METHODS if runs else ONE_RUN_METHODS}: "
        f"{escape(families(evaluation.comparisons.to_dict('records'), evaluation.alpha))}.</p>"
        f"<p class='lead' id='scope'>{escape(scope(runs))}</p></header>"
    )
    return head + intro + "".join(s for s in sections if s) + f"<script>{SCRIPT}</script></body></html>\n"


def _cards(evaluation, models, known) -> str:
    per_topic = evaluation.per_topic
    values = {(r.model, int(r.topic), r.metric): r.value for r in per_topic.itertuples()}
    metrics = list(dict.fromkeys(per_topic["metric"]))
    cards = []
    for row in evaluation.topics.itertuples():
        own = [(m, values[row.model, int(row.topic), m]) for m in metrics if (row.model, int(row.topic), m) in values]
        data = " ".join(f"data-{m.replace('_', '-')}='{float(v)!r}'" for m, v in own)
        listing = "".join(f"<dt>{escape(known[m].label if m in known else m)}</dt><dd>{fmt(v)}</dd>" for m, v in own)
        flags = [f for f in str(row.flags or "").split("; ") if f]
        flag_list = "<ul class='flags'>" + "".join(f"<li>{escape(f)}</li>" for f in flags) + "</ul>" if flags else ""
        cards.append(
            f"<article class='card' data-model='{escape(row.model)}' data-topic='{int(row.topic)}' "
            f"data-words='{escape(row.words)}' data-flags='{escape('; '.join(flags))}' {data}>"
            f"<h3>{escape(row.model)} · topic {int(row.topic)}</h3><div class='words'>{escape(row.words)}</div>"
            f"<dl>{listing}</dl>{flag_list}</article>"
        )
    sort = "".join(
        f"<option value='{m.replace('_', '-')}'>{escape(known[m].label if m in known else m)}</option>" for m in metrics
    )
    model_options = "".join(f"<option value='{escape(m)}'>{escape(m)}</option>" for m in models)
    controls = (
        "<div class='controls'><label>Search words and flags <input id='search' type='search' placeholder='e.g. war'></label>"
        f"<label>Model <select id='model'><option value=''>all</option>{model_options}</select></label>"
        f"<label>Sort by <select id='sort'><option value=''>model and topic</option>{sort}</select></label></div>"
    )
    return (
        "<section id='topics'><h2>Topics</h2><p class='muted'>Every topic's top ten words, its scores and "
        "flags: redundant (duplicate of another topic: the same top-5 words), rare words (missing from the reference "
        "corpus), low WI-Auto.</p>" + controls + f"<div class='cards' id='cards'>{''.join(cards)}</div></section>"
    )


def _provenance(manifest: dict[str, Any]) -> str:
    keep = {
        k: manifest.get(k)
        for k in ("config", "corpora", "models", "versions", "seed", "n_resamples", "alpha", "timings", "skipped")
    }
    steps = manifest.get("steps", [])
    computed = sum(not s["cached"] for s in steps)
    text = json.dumps(keep, indent=2, ensure_ascii=False, default=str)
    return (
        "<section id='provenance'><h2>Reproduce this run</h2>"
        f"<p class='muted'>{len(steps)} steps, {computed} computed and {len(steps) - computed} read from the cache. "
        "The configuration, the inputs' fingerprints and the versions:</p>"
        f"<pre>{escape(text)}</pre></section>"
    )
