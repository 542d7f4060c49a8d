"""How each metric is computed: one registry shared by ``tealeaves evaluate``, ``validate`` and ``sweep``.

- :data:`METRICS`, :func:`register`, :func:`get_metric`: the metrics by name, each a
  :class:`Metric` whose ``compute(model, inputs, seed, **options)`` calls its package's public
  function (coherence, diversity, word intrusion, likelihood, predictive metrics, topic
  significance, classification) and returns a :class:`Measured`;
- :class:`Output`, :class:`Items`, :class:`Measured`, :class:`Inputs`: what a metric produces
  and reads;
- :func:`scorer`: any of them as a scikit-learn scorer (``GridSearchCV(..., scoring=scorer("npmi",
  reference=index))``), computed as ``evaluate`` computes it.

Each caller keeps what is its own: the evaluation its statistical plans and tables
(:mod:`tealeaves.evaluation`), validation the metric specs of its command line and their
variants (:mod:`tealeaves.analysis`), the sweep its selection criterion
(:mod:`tealeaves.model_selection`). The package imports the packages it computes with inside the
functions, so ``import tealeaves.metrics`` loads NumPy alone.
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.metrics.measured import INDEPENDENT, JACKKNIFE, PAIRED, Inputs, Items, Measured, Metric, Output
    from tealeaves.metrics.options import accepts, unknown_keys
    from tealeaves.metrics.registry import METRICS, get_metric, register
    from tealeaves.metrics.scorers import Scorer, scorer

__getattr__, __dir__ = attach(__name__, __file__)

__all__ = [
    "INDEPENDENT",
    "JACKKNIFE",
    "METRICS",
    "PAIRED",
    "Inputs",
    "Items",
    "Measured",
    "Metric",
    "Output",
    "Scorer",
    "accepts",
    "get_metric",
    "register",
    "scorer",
    "unknown_keys",
]
