"""``estimate``: log P(w | Φ, αm) of every held-out document by any method of Wallach et al. 2009."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.deprecation import renamed_parameters
from tealeaves.errors import InputError, is_count
from tealeaves.jit import batches, map_threads, threads
from tealeaves.likelihood.documents import Docs, Documents, as_documents, model_arrays, warn_if_training_documents
from tealeaves.likelihood.estimators import METHODS, Estimates, Method, find_method
from tealeaves.likelihood.result import LikelihoodResult
from tealeaves.likelihood.uncertainty import average_runs, bootstrap_sd, run_seed
from tealeaves.missing import OnMissingSkip
from tealeaves.models import TopicModel
from tealeaves.progress import ProgressCallback, notify
from tealeaves.rng import as_seed, family_seed

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

FULL_DOCUMENT = "log P(w | Φ, αm)"
BATCHES = 50  # with a progress callback, documents run in at least this many batches, reported after each


@renamed_parameters(bootstrap="n_resamples")
def estimate(
    phi: TopicModel | ArrayLike,
    alpha: ArrayLike | None,
    docs: Docs,
    method: str = "left-to-right",
    seed: int | np.random.Generator = 0,
    *,
    runs: int = 1,
    n_resamples: int = 10_000,
    on_missing: OnMissingSkip = "error",
    progress: ProgressCallback | None = None,
    **params: Any,
) -> LikelihoodResult:
    """Estimate log P(w | Φ, αm) for each document of ``docs`` (Wallach et al. 2009, §4).

    Parameters
    ----------
    phi : float64[K, V] or TopicModel
        Topic-word probabilities, strictly positive (a TopicModel also supplies αm and its vocabulary).
    alpha : float64[K] or None
        The asymmetric Dirichlet prior αm (None: the model's).
    docs : Corpus or list of int arrays
        Held-out documents.
    method : str
        One of :data:`~tealeaves.likelihood.estimators.METHODS`: ``is-prior-theta``, ``is-pzw``,
        ``is-iterated-pseudocounts``, ``harmonic-mean`` (biased baseline), ``ais``, ``chib``,
        ``left-to-right`` (variants ``sis``, ``wallach``, ``mallet``).
    seed : int or Generator
        Document d of run r uses the random stream (run seed, d), where run 0's seed is the
        method's own stream family under ``seed`` (:func:`tealeaves.rng.family_seed`, so no other
        function called with the same seed, e.g. :func:`synthetic_corpus`, shares its streams):
        results do not depend on threads.
    runs : int
        Independent runs per document; ``log_prob`` is the log of the mean of P̂ over runs, and with
        several runs ``total_sd`` is the bootstrap standard deviation of the total (§6.2).
    n_resamples : int
        Bootstrap resamples for ``total_sd`` (``bootstrap``, its old name, is deprecated).
    on_missing : "error" or "skip"
        What to do with tokens outside the vocabulary (see :mod:`tealeaves.likelihood.documents`).
    progress : callable, optional
        Receives an update after each batch of documents.
    **params
        The method's parameters, named as in Table 1: ``samples``, ``particles``, ``temperatures``,
        ``burn_in``, ``iterations`` (and ``variant``, ``schedule``).

    Returns
    -------
    LikelihoodResult
        log P̄ per document (``log_prob``), every run's estimate, and the aggregates ``total``,
        ``per_token`` and ``perplexity``.

    See Also
    --------
    exact : The same quantity by enumeration, for tiny documents.
    complete : Document completion, log P(w^(2) | w^(1), Φ, αm).

    Examples
    --------
    The left-to-right estimate of two short documents under a two-topic model, beside the
    exact values:

    >>> import numpy as np
    >>> from tealeaves.likelihood import estimate, exact
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> alpha = np.array([0.5, 0.5])
    >>> docs = [[0, 1, 3], [2, 3, 3, 2]]
    >>> result = estimate(phi, alpha, docs, method="left-to-right", particles=1000, seed=0)
    >>> [round(float(v), 3) for v in result.log_prob]
    [-4.481, -4.454]
    >>> [round(exact(phi, alpha, doc), 3) for doc in docs]
    [-4.481, -4.446]
    >>> result.label, round(result.total, 3), result.n_scored
    ('LR-sis', -8.935, 7)

    The harmonic mean, a biased baseline, overestimates both:

    >>> [round(float(v), 3) for v in estimate(phi, alpha, docs, method="harmonic-mean").log_prob]
    [-4.404, -4.298]
    """
    spec = find_method(method, METHODS)
    resolved = spec.resolve(params)
    warn_if_training_documents(phi, docs, "the likelihood", stacklevel=4)  # under renamed_parameters
    phi, alpha, vocab = model_arrays(phi, alpha, f"{spec.name} ({spec.label})")
    documents = as_documents(docs, phi.shape[1], on_missing, vocab)
    return run(
        spec, resolved, phi, alpha, documents, FULL_DOCUMENT, f"estimate {spec.name}", seed, runs, n_resamples, progress
    )


def run(
    spec: Method,
    params: dict[str, Any],
    phi: np.ndarray,
    alpha: np.ndarray,
    documents: Documents,
    estimand: str,
    purpose: str,
    seed: int | np.random.Generator,
    runs: int,
    n_resamples: int,
    progress: ProgressCallback | None,
) -> LikelihoodResult:
    """Run ``spec`` ``runs`` times over ``documents`` in batches and collect the result.

    The kernels draw from the stream family of ``purpose`` under ``seed``; run r uses
    ``run_seed(family, r)``. ``seed`` itself is what the result records. The batches run on
    threads (:func:`tealeaves.jit.map_threads`); every document has its own stream, so the
    result does not depend on them.
    """
    if not is_count(runs):
        raise InputError(f"runs must be an integer >= 1, got {runs!r}")
    seed = as_seed(seed)
    family = family_seed(seed, purpose)
    phi_t = np.ascontiguousarray(phi.T)
    n_docs = len(documents)
    spans = batches(n_docs, max(4 * threads(), BATCHES if progress is not None else 1))
    task = f"{spec.describe(params)} likelihood"
    started = time.perf_counter()
    run_log_prob = np.zeros((runs, n_docs))
    site_updates = 0.0
    notify(progress, task, 0, runs * n_docs)
    for r in range(runs):
        tell = functools.partial(notify, progress, task, total=runs * n_docs, run=r + 1)
        log_prob, updates = _one_run(
            spec, params, phi_t, alpha, documents, run_seed(family, r), spans, tell, r * n_docs
        )
        run_log_prob[r] = log_prob
        site_updates += updates
    seconds = time.perf_counter() - started
    if not np.all(np.isfinite(run_log_prob)):  # pragma: no cover - a kernel defect, never input
        raise FloatingPointError(f"{spec.name} produced a non-finite log probability")
    return LikelihoodResult(
        method=spec.name,
        label=spec.describe(params),
        estimand=estimand,
        guarantee=spec.guarantee(params),
        params=params,
        ids=documents.ids,
        log_prob=average_runs(run_log_prob),
        run_log_prob=run_log_prob,
        n_tokens=documents.scored,
        n_oov=documents.n_oov,
        total_sd=bootstrap_sd(run_log_prob, n_resamples, seed),
        site_updates=site_updates,
        seed=seed,
        seconds=round(seconds, 4),
    )


def _one_run(
    spec: Method,
    params: dict[str, Any],
    phi_t: np.ndarray,
    alpha: np.ndarray,
    documents: Documents,
    seed: int,
    spans: list[tuple[int, int]],
    tell: Callable[[int], None],
    done_before: int,
) -> tuple[np.ndarray, float]:
    """One run of ``spec`` over the batches ``spans`` of ``documents``, on threads; ``tell(done)`` after each batch.

    Returns log P̂ per document and the Gibbs site updates spent.
    """
    finished = [done_before]

    def estimate_batch(span: tuple[int, int]) -> Estimates:
        return spec.function(phi_t, alpha, documents.batch(*span), seed, **params)

    def report(i: int) -> None:
        finished[0] += spans[i][1] - spans[i][0]
        tell(finished[0])

    estimates = map_threads(estimate_batch, spans, done=report)
    log_prob = np.concatenate([e.log_prob for e in estimates])
    return log_prob, sum(float(np.sum(e.site_updates, dtype=np.float64)) for e in estimates)
