"""The metric registry: :data:`METRICS`, :func:`register` and :func:`get_metric`, the one dispatch of how
each metric is computed.

``tealeaves evaluate`` runs the registered metrics a configuration turns on (its statistical
plans and tables are :mod:`tealeaves.evaluation`'s), ``tealeaves validate`` looks up the
metrics its specs name (:func:`get_metric`: any coherence measure too; the spec syntax and the
variants are :mod:`tealeaves.analysis.metric_specs`') and ``tealeaves sweep`` scores each
trial with ``npmi``, ``cv`` and ``diversity`` (its selection is
:func:`tealeaves.model_selection.select_best`). The computations are
:mod:`tealeaves.metrics.words` (a model's top words) and :mod:`tealeaves.metrics.documents`
(Φ, the prior and θ on documents).
"""

from __future__ import annotations

import math
from typing import Any

from tealeaves.errors import InputError, unknown_name
from tealeaves.metrics.documents import (
    classification_metric,
    classification_options,
    likelihood_metric,
    likelihood_options,
    not_a_dirichlet_mixture,
    not_a_model,
    predictive_metric,
    significance_metric,
    without_inference,
    without_theta,
)
from tealeaves.metrics.measured import JACKKNIFE, Metric, Output
from tealeaves.metrics.options import accepts
from tealeaves.metrics.words import (
    coherence_metric,
    diversity_metric,
    embedding_intrusion_metric,
    wi_auto_metric,
    wi_auto_options,
)

METRICS: dict[str, Metric] = {}
"""The registered metrics by name: ``npmi``, ``cv``, ``diversity``, ``wi-auto``, ``likelihood`` and
``predictive`` (which :func:`tealeaves.evaluate` runs by default), ``significance``,
``classification``, ``embedding``, ``embedding_centroid`` and ``embedding_intrusion`` (which a
configuration turns on; ``tealeaves validate``'s defaults); :func:`register` adds one."""


def register(metric: Metric) -> Metric:
    """Add ``metric`` to :data:`METRICS` (a name may be registered once).

    ``[metrics] NAME = {...}`` in a configuration then turns it on (or it runs by default when
    ``metric.default`` is True).

    Parameters
    ----------
    metric : Metric
        The metric, with a name no registered metric has.

    Returns
    -------
    Metric
        ``metric`` itself.

    Raises
    ------
    InputError
        When a metric of that name is already registered.

    Examples
    --------
    A metric of the number of distinct first letters among each topic's top words:

    >>> from tealeaves.metrics import METRICS, Measured, Metric, Output, register
    >>> from tealeaves.models import as_topics
    >>> def letters(model, inputs, seed, topn=5):
    ...     measured = Measured()
    ...     measured.per_topic("letters", [len({w[0] for w in t}) for t in as_topics(model, topn).words])
    ...     return measured
    >>> metric = register(Metric("letters", letters, {"letters": Output("first letters")}, default=False))
    >>> "letters" in METRICS
    True
    >>> METRICS["letters"].compute([["tax", "tariff", "budget"]], None, 0, topn=3).items["letters"].values
    array([2.])
    >>> del METRICS["letters"]  # this example leaves the registry as it was
    """
    if metric.name in METRICS:
        raise InputError(f"a metric named {metric.name!r} is already registered")
    METRICS[metric.name] = metric
    return metric


def get_metric(name: str) -> Metric:
    """The metric named ``name``: a registered one, or any coherence measure of :func:`tealeaves.coherence.score`.

    ``tealeaves validate`` scores any coherence measure (``umass@INDEX``); those not registered
    (all but NPMI, C_V and the embedding measures) are made here, computed as the registered
    ones are.

    Parameters
    ----------
    name : str
        A key of :data:`METRICS`, or a measure of :data:`~tealeaves.coherence.MEASURES` (gensim's
        names accepted).

    Returns
    -------
    Metric

    Raises
    ------
    InputError
        For any other name, listing the registered ones.

    Examples
    --------
    >>> from tealeaves.metrics import METRICS, get_metric
    >>> get_metric("npmi") is METRICS["npmi"]
    True
    >>> umass = get_metric("u_mass")
    >>> umass.name, umass.needs, umass.outputs["umass"].label
    ('umass', ('index',), 'umass')
    """
    from tealeaves.coherence.measures import ALIASES, MEASURES

    if isinstance(name, str):
        if name in METRICS:
            return METRICS[name]
        measure = ALIASES.get(name.lower(), name.lower())
        if measure in METRICS:
            return METRICS[measure]
        if measure in MEASURES:
            return _coherence(measure, measure)
    raise unknown_name(
        "metric", name, METRICS, also="or a coherence measure", guesses=[*METRICS, *MEASURES], hints=NAMED_ELSEWHERE
    )


_LIKELIHOOD = "'likelihood' is the held-out log likelihood per token (Wallach et al. 2009's left-to-right estimate)"
NAMED_ELSEWHERE = {
    "perplexity": f"{_LIKELIHOOD}, of which the perplexity is exp(-x)",
    "log_perplexity": f"{_LIKELIHOOD}; gensim's log_perplexity is a variational lower bound on it",
    "heldout": _LIKELIHOOD,
    "held_out": _LIKELIHOOD,
    "coherence": "'npmi' and 'cv' are Hoyle et al.'s coherences, and any measure of tealeaves.coherence is one by its "
    "name (umass, uci, ...)",
    "td": "'diversity' gives topic diversity (td), topic uniqueness and inverted RBO",
    "rbo": "'diversity' gives inverted RBO, topic diversity and topic uniqueness",
}
"""What an unknown metric name other tools or papers use means here (lowercased name -> hint)."""


SHARE = (0.0, 1.0)  # a share of sets or of annotators (WI-Auto, word intrusion)
DIVERGENCE = (0.0, math.inf)  # a KL divergence


def _measure_bounds(measure: str) -> tuple[float, float] | None:
    """A coherence measure's range (:attr:`tealeaves.coherence.measures.Measure.bounds`), None where unbounded."""
    from tealeaves.coherence.measures import EMBEDDING_MEASURES, MEASURES

    found = MEASURES.get(measure) or EMBEDDING_MEASURES.get(measure)
    return found.bounds if found is not None else None


def _coherence(measure: str, label: str, **settings: Any) -> Metric:
    """A coherence measure as a metric: counted in the reference index, or from word vectors with ``reference=False``."""
    reference = settings.pop("reference", True)
    return Metric(
        measure,
        coherence_metric(measure),
        {measure: Output(label, bounds=_measure_bounds(measure))},
        needs=("index",) if reference else (),
        check=accepts("tealeaves.coherence.scoring:score", "topics", "index", "measure", "progress"),
        **settings,
    )


_COHERENCE_SOURCES = "Lau et al. 2014; Röder et al. 2015; Hoyle et al. 2021"
for _measure, _label, _window in (("npmi", "NPMI", 10), ("cv", "C_V", 110)):
    register(
        _coherence(
            _measure, _label, defaults={"topn": 10, "window": _window, "on_missing": "skip"}, source=_COHERENCE_SOURCES
        )
    )
register(
    Metric(
        "diversity",
        diversity_metric,
        {
            "topic_uniqueness": Output("topic uniqueness", plan=JACKKNIFE),
            "topic_diversity": Output("topic diversity", unit="model", plan=JACKKNIFE),
            "inverted_rbo": Output("inverted RBO", unit="model", plan=JACKKNIFE),
            "redundant": Output("redundant (Hoyle et al.'s filter)", higher_is_better=False, unit="model"),
        },
        source="Dieng et al. 2020; Nan et al. 2019; Bianchi et al. 2021; Hoyle et al. 2021",
        check=accepts("tealeaves.coherence.redundancy:diversity", "topics"),
    )
)
register(
    Metric(
        "wi-auto",
        wi_auto_metric,
        {"wi_auto_pmi": Output("WI-Auto-PMI", bounds=SHARE), "wi_auto_npmi": Output("WI-Auto-NPMI", bounds=SHARE)},
        defaults={"on_missing": "zero", "flag_below": 0.25},
        needs=("index",),
        source="Lau et al. 2014",
        pooled=True,
        check=wi_auto_options,
    )
)
register(
    Metric(
        "likelihood",
        likelihood_metric,
        {"heldout_log_likelihood": Output("held-out log likelihood per token", unit="document")},
        defaults={"method": "left-to-right"},  # its variant "sis" is left_to_right's: no other method takes one
        needs=("heldout",),
        model_only=True,
        applies=not_a_dirichlet_mixture,
        source="Wallach et al. 2009",
        check=likelihood_options,
    )
)
register(
    Metric(
        "predictive",
        predictive_metric,
        {
            "predictive_log_likelihood": Output("predictive log likelihood per word", unit="document"),
            "predictive_rank": Output("predictive rank", higher_is_better=False, unit="document"),
        },
        needs=("heldout",),
        model_only=True,
        applies=not_a_model,
        source="Chang et al. 2009",
    )
)
register(
    Metric(
        "significance",
        significance_metric,
        {
            "kl_uniform": Output("KL divergence from W-Uniform (nats)", bounds=DIVERGENCE),
            "kl_vacuous": Output("KL divergence from W-Vacuous (nats)", bounds=DIVERGENCE),
            "kl_background": Output("KL divergence from D-BGround (nats)", bounds=DIVERGENCE),
        },
        defaults={"epsilon": 1e-5},
        model_only=True,
        applies=without_theta,
        default=False,
        check=accepts("tealeaves.models.significance:topic_significance", "model", "theta"),
        source="AlSumait et al. 2009; OCTIS",
    )
)
register(
    Metric(
        "classification",
        classification_metric,
        {
            "classification_accuracy": Output("classification accuracy", unit="document", bounds=(0.0, 1.0)),
            "classification_f1": Output("classification F1", unit="model"),
            "classification_precision": Output("classification precision", unit="model"),
            "classification_recall": Output("classification recall", unit="model"),
        },
        defaults={"label": None, "folds": 5, "average": "macro", "scale": True},
        needs=("heldout",),
        model_only=True,
        applies=without_inference,
        default=False,
        check=classification_options,
        source="Blei et al. 2003; OCTIS",
    )
)
for _measure, _label in (
    ("embedding", "embedding coherence"),
    ("embedding_centroid", "embedding coherence (centroid)"),
):
    register(
        _coherence(
            _measure,
            _label,
            reference=False,
            defaults={"topn": 10, "on_missing": "skip"},
            default=False,
            source="Fang et al. 2016; Aletras & Stevenson 2013",
        )
    )
register(
    Metric(
        "embedding_intrusion",
        embedding_intrusion_metric,
        {"embedding_intrusion": Output("embedding word intrusion", bounds=SHARE)},
        defaults={"draws": 26, "protocol": "hoyle", "on_missing": "zero"},
        default=False,
        check=accepts("tealeaves.intrusion.embedding:embedding_word_intrusion", "topics", "seed", "progress"),
        source="Chang et al. 2009; Hoyle et al. 2021",
    )
)
