"""Inference of θ for documents given a trained model: ``TopicModel.infer``.

Each model kind may register its own inference in :data:`INFERENCE` (``"module:function"``,
a function ``(model, corpus, seed, progress, **options) -> theta``). Models with a Dirichlet
prior and no registered inference use :func:`gibbs_fixed_phi`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.corpus import Corpus, onto_vocabulary
from tealeaves.errors import InputError, check_each
from tealeaves.jit import by_documents
from tealeaves.missing import OnMissingSkip
from tealeaves.models._kernels import gibbs_theta_fixed_phi
from tealeaves.progress import ProgressCallback, notify
from tealeaves.rng import family_seed

if TYPE_CHECKING:
    from tealeaves.models.topic_model import TopicModel

INFERENCE: dict[str, str] = {
    "lda-vb": "tealeaves.models.lda_vb:infer",
    "plsi": "tealeaves.models.plsi:infer",
    "ctm": "tealeaves.models.ctm:infer",
    "dvae": "tealeaves.models.neural.dvae:infer",
    "etm": "tealeaves.models.neural.etm:infer",
}


def infer(
    model: TopicModel,
    corpus: Corpus | Any,
    seed: int | np.random.Generator = 0,
    progress: ProgressCallback | None = None,
    on_missing: OnMissingSkip = "error",
    **options: Any,
) -> np.ndarray:
    """θ̂ (float64[D, K], rows sum to 1) for every document of ``corpus`` under ``model``.

    ``corpus`` over another vocabulary, or texts (:func:`~tealeaves.corpus.as_corpus`), is mapped
    onto the model's words (:func:`~tealeaves.corpus.onto_vocabulary`): a word the model lacks is
    refused, or with ``on_missing="skip"`` left out of its document.
    """
    corpus = onto_vocabulary(corpus, model.vocab, on_missing)[0]
    if model.kind in INFERENCE:
        module, name = INFERENCE[model.kind].split(":")
        function = getattr(importlib.import_module(module), name)
        theta = function(model, corpus, seed=seed, progress=progress, **options)
    elif model.alpha is not None:
        theta = gibbs_fixed_phi(model.phi, model.alpha, corpus, seed=seed, progress=progress, **options)
    else:
        raise InputError(f"models of kind {model.kind!r} have no Dirichlet prior and no inference of their own")
    return np.asarray(theta, dtype=np.float64)


def gibbs_fixed_phi(
    phi: np.ndarray,
    alpha: np.ndarray,
    corpus: Corpus,
    seed: int | np.random.Generator = 0,
    progress: ProgressCallback | None = None,
    burn_in: int = 50,
    samples: int = 150,
) -> np.ndarray:
    """θ̂ by collapsed Gibbs sampling of the topic assignments with Φ fixed.

    With θ_d ~ Dir(αm) integrated out, each sweep resamples every token's topic from
    p(z_n = k | z_-n, w) ∝ φ_{k,w_n} (n_{d,k}^{-n} + α_k), starting from
    p(z_n = k | w_n) ∝ α_k φ_{k,w_n}. After ``burn_in`` sweeps, the estimate
    θ̂_{d,k} = (n_{d,k} + α_k) / (N_d + Σ_j α_j) is averaged over the next ``samples`` sweeps
    (Griffiths & Steyvers 2004's estimator; MALLET's inferencer does the same with thinning).
    An empty document gets the prior mean α / Σα. Document d draws from stream d of this
    function's own stream family under ``seed`` (:func:`tealeaves.rng.family_seed`).
    """
    check_each("Gibbs inference", [(burn_in >= 0, "burn_in >= 0", burn_in), (samples >= 1, "samples >= 1", samples)])
    notify(progress, "infer", 0, len(corpus))
    tokens = np.asarray(corpus.tokens, dtype=np.int32)
    offsets = np.asarray(corpus.offsets, dtype=np.int64)
    phi_t, prior, family = (
        np.ascontiguousarray(phi.T),
        np.asarray(alpha, dtype=np.float64),
        family_seed(seed, "gibbs inference"),
    )

    def run(first: int, stop: int) -> tuple[np.ndarray, ...]:
        start = offsets[first]
        batch_tokens, batch_offsets = tokens[start : offsets[stop]], offsets[first : stop + 1] - start
        return (
            gibbs_theta_fixed_phi(batch_tokens, batch_offsets, phi_t, prior, int(burn_in), int(samples), family, first),
        )

    (theta,) = by_documents(run, len(corpus))
    notify(progress, "infer", len(corpus), len(corpus))
    return theta
