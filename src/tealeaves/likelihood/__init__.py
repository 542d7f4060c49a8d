"""Held-out likelihood: every estimator of Wallach et al. 2009, document completion, Chang's predictive metrics.

- :func:`estimate`: log P(w | Φ, αm) per document by IS-PT, IS-PZW, IS-IP, the harmonic mean
  (biased baseline), AIS, the Chib-style estimator or the left-to-right algorithm (§4);
- :func:`exact`: the same by enumeration, for tiny documents;
- :func:`complete`: document completion, log P(w^(2) | w^(1), Φ, αm) (§5);
- :func:`predictive`: predictive log likelihood and rank with a plug-in θ̂ (Chang et al. 2009, §4.2);
- :func:`synthetic_corpus`, :func:`perturbation_study`: synthetic data and the sensitivity study (§6).

Usage::

    from tealeaves.likelihood import estimate
    result = estimate(model.phi, model.alpha, heldout, method="left-to-right", particles=20)
    result.log_prob, result.total, result.per_token
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.likelihood.completion import COMPLETION_METHODS, complete
    from tealeaves.likelihood.documents import NotAMixtureError, TrainingDocumentsWarning
    from tealeaves.likelihood.enumeration import exact
    from tealeaves.likelihood.estimation import estimate
    from tealeaves.likelihood.estimators import METHODS
    from tealeaves.likelihood.prediction import PredictiveResult, predictive
    from tealeaves.likelihood.result import LikelihoodResult
    from tealeaves.likelihood.schedules import SCHEDULES, temperatures_schedule
    from tealeaves.likelihood.synthetic import (
        PerturbationResult,
        figure_3_evaluators,
        perturb_base_measure,
        perturb_topics,
        perturbation_study,
        synthetic_corpus,
    )
    from tealeaves.likelihood.uncertainty import bootstrap_sd

__getattr__, __dir__ = attach(__name__, __file__)

__all__ = [
    "COMPLETION_METHODS",
    "METHODS",
    "SCHEDULES",
    "LikelihoodResult",
    "NotAMixtureError",
    "PerturbationResult",
    "PredictiveResult",
    "TrainingDocumentsWarning",
    "bootstrap_sd",
    "complete",
    "estimate",
    "exact",
    "figure_3_evaluators",
    "perturb_base_measure",
    "perturb_topics",
    "perturbation_study",
    "predictive",
    "synthetic_corpus",
    "temperatures_schedule",
]
