"""The metrics of a model's Φ, prior and θ on documents: held-out likelihood, Chang et al.'s predictive
metrics, topic significance and document classification, with why a model is skipped (``applies``) and
the option checks of those whose options depend on another (the likelihood's method, the label to
predict).

Each is a ``compute(model, inputs, seed, **options) -> Measured`` calling its package's public
function (:mod:`tealeaves.likelihood`, :mod:`tealeaves.models`), registered in
:data:`tealeaves.metrics.METRICS` (:mod:`tealeaves.metrics.registry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.errors import InputError
from tealeaves.metrics.measured import Inputs, Items, Measured
from tealeaves.metrics.options import accepts, unknown_keys

if TYPE_CHECKING:
    from tealeaves.models import TopicModel


def likelihood_options(options: dict[str, Any], where: str) -> None:
    """The options of :func:`tealeaves.likelihood.estimate` and those of its ``method``, names and values."""
    from tealeaves.likelihood.estimators import METHODS, find_method

    method = find_method(options.get("method", "left-to-right"), METHODS)
    general = ("method", "runs", "n_resamples", "bootstrap", "on_missing")  # bootstrap: n_resamples' old name
    own = {k: v for k, v in options.items() if k not in general}
    unknown_keys(own, [*method.defaults(), *general], where, what="option")
    try:
        method.resolve(own)  # the values, by the estimators' rules, before any work
    except InputError as refused:
        raise InputError(f"{where}: {refused}") from None


def classification_options(options: dict[str, Any], where: str) -> None:
    """The options of :func:`tealeaves.models.classify`, and the label field it needs."""
    accepts("tealeaves.models.classification:classify", "model", "corpus", "heldout", "infer", "seed")(options, where)
    if not isinstance(options.get("label"), str) or not options["label"]:
        raise InputError(f'{where} needs the metadata field to predict: classification = {{ label = "FIELD" }}')


def not_a_dirichlet_mixture(model: Any) -> str | None:
    """Why Wallach et al.'s estimators do not apply (None when they do)."""
    from tealeaves.models import TopicModel

    if not isinstance(model, TopicModel):
        return "a topic list has no Φ"
    if model.alpha is None:
        return "no Dirichlet prior"
    return "its decoder is not a mixture of its topics" if model.params.get("mixture_decoder", True) is False else None


def not_a_model(model: Any) -> str | None:
    from tealeaves.models import TopicModel

    return None if isinstance(model, TopicModel) else "a topic list has no Φ"


def without_theta(model: Any) -> str | None:
    """Why topic significance does not apply (None when it does)."""
    return not_a_model(model) or (None if model.theta is not None else "no θ of its training documents")


def without_inference(model: Any) -> str | None:
    """Why θ cannot be inferred for held-out documents (None when it can)."""
    from tealeaves.models.inference import INFERENCE

    reason = not_a_model(model)
    if reason is None and model.kind not in INFERENCE and model.alpha is None:
        reason = "no inference of θ for held-out documents (no prior, no inference of its own)"
    return reason


def likelihood_metric(model: TopicModel, inputs: Inputs, seed: int, **options: Any) -> Measured:
    """Held-out log P(w) per token (:func:`tealeaves.likelihood.estimate`, left-to-right ``sis``)."""
    from tealeaves.likelihood import estimate

    result = estimate(model, None, inputs.heldout, seed=seed, **options)  # type: ignore[arg-type]
    scored = np.asarray(result.n_tokens, dtype=float)  # without the words on_missing="skip" dropped
    ids = np.arange(len(scored))
    items = {"heldout_log_likelihood": Items(np.asarray(result.log_prob), scored, ids)}
    return Measured(items=items, result=result)


def predictive_metric(model: TopicModel, inputs: Inputs, seed: int, **options: Any) -> Measured:
    """Chang et al.'s predictive log likelihood per word and rank (:func:`tealeaves.likelihood.predictive`)."""
    from tealeaves.likelihood import predictive

    result = predictive(model, inputs.heldout, seed=seed, **options)  # type: ignore[arg-type]
    ids = np.arange(len(result.ids))
    scored = result.n_terms > 0
    measured = Measured(result=result)
    measured.items["predictive_log_likelihood"] = Items(result.log_likelihood, result.n_tokens.astype(float), ids)
    measured.items["predictive_rank"] = Items(result.rank[scored], np.ones(int(scored.sum())), ids[scored])
    return measured


def significance_metric(model: TopicModel, inputs: Inputs, seed: int, **options: Any) -> Measured:
    """Each topic's KL divergence from W-Uniform, W-Vacuous and D-BGround over its training documents' θ
    (:func:`tealeaves.models.topic_significance`, as OCTIS)."""
    from tealeaves.models import topic_significance
    from tealeaves.models.significance import JUNK

    result = topic_significance(model, **options)
    measured = Measured(result=result)
    for name in JUNK:
        measured.per_topic(name, getattr(result, name))
    return measured


def classification_metric(model: TopicModel, inputs: Inputs, seed: int, *, label: str, **options: Any) -> Measured:
    """Whether a linear SVM on θ inferred for each held-out document predicts its label, by stratified
    cross-validation over the held-out documents (:func:`tealeaves.models.classify`); F1, precision and recall.

    The held-out documents are the units, the same for every model (the same folds under the run's
    seed), so the accuracy is compared by the paired plan; the training documents' θ would tie a
    model's score to its own training corpus, which imported models need not share.
    """
    from tealeaves.models import classify

    result = classify(model, inputs.heldout, label, infer=True, seed=seed, **options)  # type: ignore[arg-type]
    correct = Items(result.correct.astype(np.float64), np.ones(len(result.documents)), result.documents)
    scalars = {f"classification_{name}": getattr(result, name) for name in ("f1", "precision", "recall")}
    return Measured(items={"classification_accuracy": correct}, scalars=scalars, result=result)
