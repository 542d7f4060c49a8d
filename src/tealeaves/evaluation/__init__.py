"""One run from models to verdict: every metric of every model, cached per step, as tidy tables.

- :func:`evaluate`: read a TOML configuration (models, corpora, metrics, an optional study
  export), run the metrics of :data:`METRICS` on every model in parallel, cache each step by
  the fingerprints of its inputs, and write ``per_topic``, ``per_model``, ``comparisons``,
  ``topics`` and ``correlations`` (Parquet and CSV) with a manifest;
- :class:`Evaluation`: those tables, read back with :meth:`Evaluation.load`;
- :data:`METRICS` and :func:`register`: the metric registry, :mod:`tealeaves.metrics`' (which
  ``validate`` and ``sweep`` share).
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.evaluation.config import EvaluateConfig, ModelSpec, read_config
    from tealeaves.evaluation.run import Evaluation, evaluate, model_fingerprint
    from tealeaves.evaluation.stats import verdicts
    from tealeaves.metrics.measured import Inputs, Items, Measured, Metric, Output
    from tealeaves.metrics.registry import METRICS, register

__getattr__, __dir__ = attach(__name__, __file__, extra="report")

__all__ = [
    "METRICS",
    "EvaluateConfig",
    "Evaluation",
    "Inputs",
    "Items",
    "Measured",
    "Metric",
    "ModelSpec",
    "Output",
    "evaluate",
    "model_fingerprint",
    "read_config",
    "register",
    "verdicts",
]
