"""The estimators of P(w | Φ, αm) of Wallach, Murray, Salakhutdinov & Mimno (2009), §4.

Each function estimates the log probability of every document of a batch (numba kernels in
:mod:`tealeaves.likelihood._kernels`, one random stream per document) and documents what it
estimates, what it guarantees, and its cost in Gibbs site updates for a document of N tokens
(Table 1). ``N`` is the document's length; ``K`` topics.

Unbiased for P(w) means E[P̂] = P(w); then, by Jensen's inequality, E[log P̂] <= log P(w):
the log estimate is a stochastic lower bound, so larger estimates are more likely to be
right (§6.2: "the largest estimate is likely to be the best").

The methods are registered in :data:`METHODS`; :func:`tealeaves.likelihood.estimate` runs them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tealeaves.errors import InputError
from tealeaves.likelihood import _kernels
from tealeaves.likelihood.documents import Documents
from tealeaves.likelihood.schedules import temperatures_schedule

UNBIASED = "unbiased for P(w) (its log is a stochastic lower bound on log P(w))"
VARIANTS = {"sis": _kernels.SIS, "wallach": _kernels.WALLACH, "mallet": _kernels.MALLET}
DEFAULT_PARTICLES = {"sis": 1000, "wallach": 20, "mallet": 1000}
ICM_SWEEPS = 100  # cap on iterated-conditional-modes sweeps when setting the Chib special state


def positive(name: str, value: Any, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum``; a clear error otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


# --------------------------------------------------------------------------- §4.1 importance sampling
def is_prior_theta(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, samples: int = 1000
) -> np.ndarray:
    """IS-PT: importance sampling from the prior over θ (eqs. 12-13); MALLET's "empirical likelihood".

    P̂(w) = (1/S) Σ_s Π_n Σ_t φ_{w_n|t} θ_t^(s),  θ^(s) ~ Dir(αm).

    Unbiased for P(w); its variance can be infinite, and it underestimates badly for long
    documents because prior draws of θ rarely explain w. Cost: S N (Table 1).
    """
    samples = positive("samples", samples)
    return _kernels.is_prior_theta(docs.tokens, docs.offsets, phi_t, alpha, samples, seed, docs.base)


def is_pzw(phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, samples: int = 1000) -> np.ndarray:
    """IS-PZW: importance sampling of z from Q(z_n) ∝ α m_{z_n} φ_{w_n|z_n}, tokens independent (§4.1).

    P̂(w) = (1/S) Σ_s P(w | z^(s), Φ) P(z^(s) | αm) / Π_n Q(z_n^(s)),  with P(z | αm) from eq. 5.

    Unbiased for P(w). Cost: S N (Table 1).
    """
    samples = positive("samples", samples)
    return _kernels.is_topic_proposal(docs.tokens, docs.offsets, phi_t, alpha, 0, samples, seed, docs.base)


def is_iterated_pseudocounts(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, iterations: int = 10, samples: int = 1000
) -> np.ndarray:
    """IS-IP: importance sampling of z with "iterated pseudo-counts" proposals (eq. 11).

    Starting from Q(z_n)^(0) ∝ α m_{z_n} φ_{w_n|z_n}, ``iterations`` synchronous updates
    Q(z_n)^(i) ∝ (α m_{z_n} + Σ_{n' != n} Q(z_{n'})^(i-1)) φ_{w_n|z_n} are applied; the proposal
    is then fixed before sampling, and P̂(w) is formed as in :func:`is_pzw`.

    Unbiased for P(w) (the proposal does not depend on the samples). Cost: (I + S) N (Table 1).
    """
    iterations = positive("iterations", iterations, 0)
    samples = positive("samples", samples)
    return _kernels.is_topic_proposal(docs.tokens, docs.offsets, phi_t, alpha, iterations, samples, seed, docs.base)


# --------------------------------------------------------------------------- §4.2 harmonic mean
def harmonic_mean(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, burn_in: int = 100, samples: int = 1000
) -> np.ndarray:
    """HM: the harmonic mean method (Newton & Raftery 1994; eq. 15). KNOWN TO BE BIASED: a baseline only.

    P̂(w) = 1 / ((1/S) Σ_s 1 / P(w | z^(s), Φ)), z^(s) the Gibbs states (eq. 7) of S sweeps
    after ``burn_in`` sweeps, without thinning.

    1/P̂ is unbiased for 1/P(w) only under exact posterior samples; P̂ itself overestimates
    P(w) in expectation (Jensen), and in practice wildly, because the estimate is dominated by
    the few samples with the smallest P(w | z) (§6.2). Cost: N (B + S) (Table 1).
    """
    burn_in = positive("burn_in", burn_in, 0)
    samples = positive("samples", samples)
    return _kernels.harmonic_mean(docs.tokens, docs.offsets, phi_t, alpha, burn_in, samples, seed, docs.base)


# --------------------------------------------------------------------------- §4.3 AIS
def annealed_importance_sampling(
    phi_t: np.ndarray,
    alpha: np.ndarray,
    docs: Documents,
    seed: int,
    *,
    temperatures: int = 1000,
    schedule: str = "geometric",
) -> np.ndarray:
    """AIS: annealed importance sampling (Neal 2001; Algorithm 1), one annealing run per document.

    With inverse temperatures 0 = τ_0 < τ_1 < ... < τ_S = 1 (``schedule``: see
    :mod:`tealeaves.likelihood.schedules`) and P_s(z) ∝ P(w | z, Φ)^τ_s P(z | αm):
    z^(1) ~ P(z | αm) (the Pólya urn), z^(s) ~ T_{s-1}(· <- z^(s-1)) a Gibbs sweep of eq. 16, and

    P̂(w) = Π_{s=1}^{S} P(w | z^(s), Φ)^(τ_s - τ_{s-1}).

    Unbiased for P(w) (eq. 20) for any S; accurate when S is large. Cost: S N (Table 1).
    """
    taus = temperatures_schedule(positive("temperatures", temperatures), schedule)
    return _kernels.annealed_importance(docs.tokens, docs.offsets, docs.starts, phi_t, alpha, taus, 0, seed, docs.base)


# --------------------------------------------------------------------------- §4.4 Chib-style estimator
def chib_style(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, samples: int = 1000, burn_in: int = 20
) -> np.ndarray:
    """CS: the Chib-style estimator (Algorithm 2) with Murray & Salakhutdinov's (2009) unbiased construction.

    The special state z* comes from ``burn_in`` Gibbs sweeps followed by iterated conditional
    modes (each z_n set to the mode of eq. 7, positions 1..N, until a sweep changes nothing).
    Then s ~ Uniform{1..S}, z^(s) ~ T̃(· <- z*) where T̃ applies eq. 7 in reverse order
    (N..1), forward sweeps T give z^(s+1), ..., z^(S) and reverse sweeps T̃ give
    z^(s-1), ..., z^(1), all starting from z^(s), and

    P̂(w) = P(z*, w | Φ, αm) / ((1/S) Σ_{s'} T(z* <- z^(s'))),

    with T(z* <- z) = Π_n P(z*_n | z*_<n, z_>n, w, Φ, αm) (eq. 24) and P(z*, w) from eqs. 4-5.

    Unbiased for P(w) for any chain length S ("formally unbiased, even for finite runs"), but
    its spread depends on z*: with 3 sweeps before ICM, z* of 200-token documents from a
    50-topic AP model sometimes lands in a poor local mode (runs differing by up to 12 nats);
    the default 20 sweeps (1% of the cost at S = 1000, as in the paper) brings that below 1 nat.
    When the posterior is diffuse or multimodal (e.g. heavily perturbed Φ) the chain started at
    z* rarely leaves its mode and typical estimates fall below P(w) (the heavy upper tail of
    §6.2). Cost: 2 S N (Table 1; S sweeps plus S evaluations of eq. 24), plus B N for z*.
    """
    samples = positive("samples", samples)
    burn_in = positive("burn_in", burn_in, 0)
    return _kernels.chib(docs.tokens, docs.offsets, phi_t, alpha, samples, burn_in, ICM_SWEEPS, seed, docs.base)


# --------------------------------------------------------------------------- §4.5 left-to-right
def left_to_right(
    phi_t: np.ndarray,
    alpha: np.ndarray,
    docs: Documents,
    seed: int,
    *,
    particles: int | None = None,
    variant: str = "sis",
) -> np.ndarray:
    """LR: the "left-to-right" algorithm (Wallach 2008; Algorithm 3) with R = ``particles``.

    P(w) = Π_n P(w_n | w_<n) (eq. 25). Each particle r draws z_n ~ P(z_n | w_n, z_<n) from left
    to right and records p_n^(r) = P(w_n | z_<n^(r)) = Σ_t φ_{w_n|t} (N_t + α m_t) / (n - 1 + α).

    - ``variant="sis"`` (default): sequential importance sampling without resampling,
      P̂(w) = (1/R) Σ_r Π_n p_n^(r). Unbiased for P(w): each particle's Π_n p_n^(r) is its
      importance weight P(w, z) / Q(z) under the sequential proposal. Cost: R N.
    - ``variant="wallach"``: Algorithm 3 as printed: before scoring position n, every particle
      resamples z_<n by one Gibbs sweep over positions 1..n-1 given w_<n (lines 5-7);
      log P̂(w) = Σ_n log (1/R) Σ_r p_n^(r). Not unbiased; as R grows it converges to
      Σ_n log E_q[P(w_n | z_<n)] under the law q of the resampled particles, which is near but
      not exactly log P(w) (the Gibbs sweeps do not reach the posterior exactly).
      Cost: R N (N - 1) / 2 (Table 1).
    - ``variant="mallet"``: what MALLET's evaluate-topics computes (no resampling), the same
      product of per-position particle averages. Not unbiased; it converges as R grows to
      Σ_n log E_q[P(w_n | z_<n)] under the sequential proposal q, which differs from log P(w)
      for N >= 3. Cost: R N.

    ``particles`` defaults to 1000 for ``sis`` and ``mallet`` and 20 for ``wallach``. With few
    particles ``sis`` is unbiased for P(w) but its log falls well below log P(w) on long
    documents (the particle weights degenerate): on 200-token documents from a 50-topic AP model
    R = 20 gives about 10 nats per document less than CS and ``wallach`` with R = 20, R = 200
    about 3.5, R = 2000 about 0.7 (benchmarks/likelihood.py).

    For document completion (``starts > 0``) only positions of w^(2) are scored; ``sis`` then
    returns the ratio of the particle averages of P̂(w^(1), w^(2)) and P̂(w^(1)) (§5.3).
    """
    checked = left_to_right_params({"variant": variant, "particles": particles})
    code = VARIANTS[checked["variant"]]
    return _kernels.left_to_right(
        docs.tokens, docs.offsets, docs.starts, phi_t, alpha, checked["particles"], code, seed, docs.base
    )


# --------------------------------------------------------------------------- the registry
@dataclass(frozen=True)
class Method:
    """An estimator: its function, its Table 1 label, what it guarantees and its cost."""

    name: str
    label: str
    function: Callable[..., np.ndarray]
    guarantee: Callable[[dict[str, Any]], str]
    cost: Callable[[dict[str, Any], Documents], np.ndarray]  # Gibbs site updates per document (Table 1)
    complete_params: Callable[[dict[str, Any]], dict[str, Any]] = dict  # fills defaults that depend on others

    def defaults(self) -> dict[str, Any]:
        """The method's parameters with their defaults."""
        signature = inspect.signature(self.function)
        return {name: p.default for name, p in signature.parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}

    def resolve(self, params: dict[str, Any]) -> dict[str, Any]:
        """Defaults updated with ``params``; unknown names are refused."""
        accepted = self.defaults()
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            raise InputError(
                f"{self.name} has no parameter {', '.join(unknown)}; its parameters are "
                f"{', '.join(f'{k}={v!r}' for k, v in accepted.items())}"
            )
        return self.complete_params({**accepted, **params})

    def describe(self, params: dict[str, Any]) -> str:
        """``label`` with the variant, when there is one."""
        return f"{self.label}-{params['variant']}" if "variant" in params else self.label


def _left_to_right_guarantee(params: dict[str, Any]) -> str:
    if params["variant"] == "sis":
        return UNBIASED
    return "biased, converges as particles grow to a limit near log P(w) (product of per-position averages)"


def left_to_right_params(params: dict[str, Any]) -> dict[str, Any]:
    """Check ``variant`` and fill in its default number of particles."""
    if params["variant"] not in VARIANTS:
        raise InputError(f"variant must be one of {', '.join(VARIANTS)}, got {params['variant']!r}")
    particles = DEFAULT_PARTICLES[params["variant"]] if params["particles"] is None else params["particles"]
    return {**params, "particles": positive("particles", particles)}


def left_to_right_cost(params: dict[str, Any], docs: Documents) -> np.ndarray:
    """R N (N - 1) / 2 site updates for ``wallach``, R N otherwise (Table 1)."""
    n = docs.lengths.astype(np.float64)
    if params["variant"] == "wallach":
        return params["particles"] * n * (n - 1) / 2
    return params["particles"] * n


METHODS: dict[str, Method] = {
    "is-prior-theta": Method(
        "is-prior-theta", "IS-PT", is_prior_theta, lambda p: UNBIASED, lambda p, d: p["samples"] * d.lengths
    ),
    "is-pzw": Method("is-pzw", "IS-PZW", is_pzw, lambda p: UNBIASED, lambda p, d: p["samples"] * d.lengths),
    "is-iterated-pseudocounts": Method(
        "is-iterated-pseudocounts",
        "IS-IP",
        is_iterated_pseudocounts,
        lambda p: UNBIASED,
        lambda p, d: (p["iterations"] + p["samples"]) * d.lengths,
    ),
    "harmonic-mean": Method(
        "harmonic-mean",
        "HM",
        harmonic_mean,
        lambda p: "BIASED: overestimates P(w), often wildly (kept as the known-bad baseline)",
        lambda p, d: (p["burn_in"] + p["samples"]) * d.lengths,
    ),
    "ais": Method(
        "ais", "AIS", annealed_importance_sampling, lambda p: UNBIASED, lambda p, d: p["temperatures"] * d.lengths
    ),
    "chib": Method("chib", "CS", chib_style, lambda p: UNBIASED, lambda p, d: 2 * p["samples"] * d.lengths),
    "left-to-right": Method(
        "left-to-right", "LR", left_to_right, _left_to_right_guarantee, left_to_right_cost, left_to_right_params
    ),
}


def find_method(name: str, registry: dict[str, Method]) -> Method:
    """The registered method ``name``; a clear error listing the others."""
    if name not in registry:
        raise InputError(f"unknown method {name!r}; choose one of {', '.join(registry)}")
    return registry[name]
