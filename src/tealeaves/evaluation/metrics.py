"""The metrics of an evaluation run: which the configuration's ``[metrics]`` table turns on, and every output.

How each metric is computed is :mod:`tealeaves.metrics` (the registry that ``tealeaves evaluate``,
``validate`` and ``sweep`` share: :data:`~tealeaves.metrics.METRICS`,
:func:`~tealeaves.metrics.register`); what the evaluation adds is its own: the metrics a run uses
and their options (:func:`active_metrics`), and the outputs its tables and tests know
(:func:`outputs`): every registered metric's, and the human scores of a study export
(:data:`HUMAN_OUTPUTS`). To add a metric, write its computation and register it
(:mod:`tealeaves.metrics.registry`); ``[metrics] NAME = {...}`` in the configuration turns it on.
"""

from __future__ import annotations

import math
from typing import Any

from tealeaves.deprecation import moved_names
from tealeaves.errors import InputError
from tealeaves.metrics.measured import INDEPENDENT, Output
from tealeaves.metrics.registry import METRICS

__getattr__ = moved_names(
    __name__,
    {
        **{
            name: f"tealeaves.metrics.{name}"
            for name in ("Metric", "Items", "Measured", "Inputs", "register", "PAIRED", "JACKKNIFE", "unknown_keys")
        },
        "accepts": "tealeaves.metrics.accepts",
        "DEFAULT_PLAN": "tealeaves.metrics.measured.DEFAULT_PLAN",
        "model_level_topics": "tealeaves.metrics.words.model_level_topics",
        "leave_one_topic_out": "tealeaves.metrics.words.leave_one_topic_out",
    },
)

HUMAN_OUTPUTS = {  # scores per topic (per rated document for topic log odds), tested like topic metrics
    "model_precision": Output("model precision", bounds=(0.0, 1.0)),
    "topic_log_odds": Output(  # at most 0: the intruder is drawn from the document's least probable topics
        "topic log odds", unit="document", plan=INDEPENDENT, bounds=(-math.inf, 0.0)
    ),
    "mean_rating": Output("mean rating"),
}


def outputs() -> dict[str, Output]:
    """Every output of every registered metric, and of the human scores, by name."""
    table = {name: out for metric in METRICS.values() for name, out in metric.outputs.items()}
    return {**table, **HUMAN_OUTPUTS}


def active_metrics(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The metrics to run and their options, from the configuration's ``[metrics]`` table.

    Default metrics run unless set to ``false``; a table (or ``true``) turns a metric on and
    overrides its default options. Names and options are checked before
    (:func:`tealeaves.evaluation.config.refuse_unknown_keys`).
    """
    active = {}
    for name, metric in METRICS.items():
        value = table.get(name, metric.default)
        if value is False:
            continue
        if value is not True and not isinstance(value, dict):
            raise InputError(f"[metrics] {name} must be true, false or a table of options, got {value!r}")
        active[name] = {**metric.defaults, **(value if isinstance(value, dict) else {})}
    if not active:
        raise InputError("every metric is turned off; leave at least one on in [metrics]")
    return active
