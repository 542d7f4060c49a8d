"""Document completion (Wallach et al. 2009, §5): log P(w^(2) | w^(1), Φ, αm).

Each document is split into an observed part w^(1) and a held part w^(2) by
:meth:`tealeaves.corpus.Corpus.halves` (``first-half``, ``alternate`` or ``random``), and

P(w^(2) | w^(1), Φ, αm) = P(w^(2), w^(1) | Φ, αm) / P(w^(1) | Φ, αm)   (eq. 26)

is estimated directly by one of :data:`COMPLETION_METHODS`: ``estimated-theta`` (§5.1),
``left-to-right`` (§5.3) or ``ais`` (Algorithm 4, §5.2). LDA is exchangeable, so the order of
the tokens within w^(1) and within w^(2) does not change the probability.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.corpus import HALVES_MODES, Corpus, Vocabulary
from tealeaves.deprecation import renamed_parameters
from tealeaves.errors import InputError
from tealeaves.likelihood import _kernels
from tealeaves.likelihood.documents import Docs, Documents, as_documents, model_arrays, warn_if_training_documents
from tealeaves.likelihood.estimation import run
from tealeaves.likelihood.estimators import (
    RULES,
    Estimates,
    Method,
    find_method,
    left_to_right,
    left_to_right_params,
)
from tealeaves.likelihood.result import LikelihoodResult
from tealeaves.likelihood.schedules import temperatures_schedule
from tealeaves.missing import OnMissingSkip
from tealeaves.models import TopicModel
from tealeaves.models.hyperparameters import check_hyperparameters
from tealeaves.progress import ProgressCallback
from tealeaves.rng import as_seed

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def estimated_theta(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, burn_in: int = 100, samples: int = 1000
) -> Estimates:
    """ET: the estimated θ method (§5.1, eq. 27).

    Gibbs sampling on w^(1) alone gives z^(1,s) after ``burn_in`` sweeps, one per sweep for S
    sweeps; θ̂_t^(s) = (N_t^(1,s) + α m_t) / (N^(1) + α) is then clamped for all of w^(2):

    P̂(w^(2) | w^(1)) = (1/S) Σ_s Π_{n in w^(2)} Σ_t φ_{w_n|t} θ̂_t^(s).

    Biased even as S grows: clamping θ ignores how w^(2) itself informs the topic proportions
    (it understates the effect of perturbing Φ, Fig. 3). Cost: (B + S) N^(1) site updates plus
    S N^(2) evaluations.
    """
    check_hyperparameters("estimated-theta", RULES, locals())
    log_prob = _kernels.estimated_theta(
        docs.tokens, docs.offsets, docs.starts, phi_t, alpha, burn_in, samples, seed, docs.base
    )
    return Estimates(log_prob, (burn_in + samples) * docs.starts)


def ais_completion(
    phi_t: np.ndarray,
    alpha: np.ndarray,
    docs: Documents,
    seed: int,
    *,
    temperatures: int = 1000,
    schedule: str = "geometric",
    burn_in: int = 100,
) -> Estimates:
    """AIS for document completion (§5.2, Algorithm 4).

    P_s(z) ∝ P(w^(2) | z, Φ)^τ_s P(z | w^(1), Φ, αm) over the topics z of all tokens; z^(1)
    comes from ``burn_in`` Gibbs sweeps on w^(1) (approximately P(z | w^(1))) with the topics
    of w^(2) drawn from the prior urn given them; each later z^(s) is a Gibbs sweep over all
    tokens with the φ of w^(2) raised to τ_{s-1}; and

    P̂(w^(2) | w^(1)) = Π_s P(w^(2) | z^(s), Φ)^(τ_s - τ_{s-1}).

    Unbiased for P(w^(2) | w^(1)) when z^(1) is an exact posterior sample; the burn-in only
    approximates one. Cost: B N^(1) + S N site updates.
    """
    check_hyperparameters("ais", RULES, locals())
    taus = temperatures_schedule(temperatures, schedule)
    log_prob = _kernels.annealed_importance(
        docs.tokens, docs.offsets, docs.starts, phi_t, alpha, taus, burn_in, seed, docs.base
    )
    return Estimates(log_prob, burn_in * docs.starts + temperatures * docs.lengths)


def _left_to_right_guarantee(params: dict[str, Any]) -> str:
    if params["variant"] == "sis":
        return "consistent (ratio of unbiased estimates of P(w1, w2) and P(w1) from the same particles)"
    return (
        "biased: converges as particles grow to Σ_n log E_q[P(w_n | z_<n)] over w2 under its particles' law q, "
        "not to log P(w2 | w1) (above or below it)"
    )


COMPLETION_METHODS: dict[str, Method] = {
    "estimated-theta": Method(
        "estimated-theta",
        "ET",
        estimated_theta,
        lambda p: "biased (θ clamped to point estimates from w1)",
    ),
    "left-to-right": Method("left-to-right", "LR", left_to_right, _left_to_right_guarantee, left_to_right_params),
    "ais": Method(
        "ais",
        "AIS",
        ais_completion,
        lambda p: "unbiased for P(w2 | w1) given an exact posterior sample of z over w1 (burn-in approximates it)",
    ),
}
"""The document completion estimators by name (§5), for :func:`complete`: estimated θ (ET, §5.1,
biased), left-to-right (LR, §5.3) and AIS (Algorithm 4, §5.2)."""


@renamed_parameters(bootstrap="n_resamples")
def complete(
    phi: TopicModel | ArrayLike,
    alpha: ArrayLike | None,
    docs: Docs,
    method: str = "left-to-right",
    split: str = "first-half",
    seed: int | np.random.Generator = 0,
    *,
    runs: int = 1,
    n_resamples: int = 10_000,
    on_missing: OnMissingSkip = "error",
    progress: ProgressCallback | None = None,
    **params: Any,
) -> LikelihoodResult:
    """Estimate log P(w^(2) | w^(1), Φ, αm) for each document (document completion, §5).

    P(w^(2) | w^(1), Φ, αm) = P(w^(2), w^(1) | Φ, αm) / P(w^(1) | Φ, αm) (eq. 26), estimated
    directly by one of :data:`COMPLETION_METHODS`.

    Parameters
    ----------
    phi : float64[K, V] or TopicModel
        Topic-word probabilities, strictly positive (a TopicModel also supplies αm and its vocabulary).
    alpha : float64[K] or None
        The asymmetric Dirichlet prior αm (None: the model's).
    docs : Corpus or list of int arrays
        Held-out documents.
    method : str
        One of :data:`COMPLETION_METHODS`: ``estimated-theta`` (§5.1, biased), ``left-to-right``
        (§5.3) or ``ais`` (Algorithm 4, §5.2).
    split : str
        How w^(1) is chosen: ``first-half`` (the first ceil(N/2) tokens), ``alternate`` (even
        positions) or ``random`` (ceil(N/2) random positions, drawn with ``seed``); the rest is
        w^(2), and ``n_tokens`` of the result counts it.
    seed : int or Generator
        As for :func:`tealeaves.likelihood.estimate`.
    runs : int
        Independent runs per document (``log_prob`` averages P̂ over them).
    n_resamples : int
        Bootstrap resamples for ``total_sd`` (``bootstrap``, its old name, is deprecated).
    on_missing : "error" or "skip"
        What to do with tokens outside the vocabulary.
    progress : callable, optional
        Receives an update after each batch of documents.
    **params
        The method's parameters (``particles``, ``samples``, ``burn_in``, ``temperatures``, ...).

    Returns
    -------
    LikelihoodResult
        log P̄(w^(2) | w^(1)) per document; ``n_tokens`` counts the held tokens w^(2).

    Examples
    --------
    With the first-half split, w^(1) of ``[0, 1, 3]`` is ``[0, 1]``, so the exact value is
    log P(0, 1, 3) - log P(0, 1):

    >>> import numpy as np
    >>> from tealeaves.likelihood import complete, exact
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> alpha = np.array([0.5, 0.5])
    >>> docs = [[0, 1, 3], [2, 3, 3, 2]]
    >>> result = complete(phi, alpha, docs, method="left-to-right", particles=5000, seed=0)
    >>> [round(float(v), 3) for v in result.log_prob], result.n_tokens.tolist()
    ([-1.974, -1.94], [1, 2])
    >>> round(exact(phi, alpha, [0, 1, 3]) - exact(phi, alpha, [0, 1]), 3)
    -1.975
    >>> round(exact(phi, alpha, [2, 3, 3, 2]) - exact(phi, alpha, [2, 3]), 3)
    -1.94
    """
    spec = find_method(method, COMPLETION_METHODS)
    resolved = spec.resolve(params)
    if split not in HALVES_MODES:
        raise InputError(f"split must be one of {', '.join(HALVES_MODES)}, got {split!r}")
    warn_if_training_documents(phi, docs, "document completion", stacklevel=4)  # under renamed_parameters
    phi, alpha, vocab = model_arrays(phi, alpha, f"document completion by {spec.name} ({spec.label})")
    documents = as_documents(docs, phi.shape[1], on_missing, vocab)
    seed = as_seed(seed)
    halves = split_documents(documents, phi.shape[1], split, seed)
    estimand = f"log P(w2 | w1, Φ, αm), {split} split"
    return run(spec, resolved, phi, alpha, halves, estimand, f"complete {spec.name}", seed, runs, n_resamples, progress)


def split_documents(documents: Documents, n_words: int, split: str, seed: int) -> Documents:
    """Each document reordered as w^(1) then w^(2) (:meth:`Corpus.halves`), with ``starts = |w^(1)|``."""
    placeholder = Vocabulary(str(i) for i in range(n_words))
    corpus = Corpus(placeholder, documents.tokens, documents.offsets, ids=documents.ids)
    observed, held = corpus.halves(split, seed)  # type: ignore[arg-type]
    order = np.argsort(np.concatenate([_doc_index(observed), _doc_index(held)]), kind="stable")
    tokens = np.concatenate([observed.tokens, held.tokens])[order]
    return Documents(
        tokens=np.ascontiguousarray(tokens, dtype=np.int32),
        offsets=documents.offsets,
        starts=observed.doc_lengths().astype(np.int64),
        ids=documents.ids,
        n_oov=documents.n_oov,
    )


def _doc_index(corpus: Corpus) -> np.ndarray:
    return np.repeat(np.arange(len(corpus)), corpus.doc_lengths())
