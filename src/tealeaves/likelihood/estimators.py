"""The estimators of P(w | Φ, αm) of Wallach, Murray, Salakhutdinov & Mimno (2009), §4.

Each function estimates the log probability of every document of a batch (numba kernels in
:mod:`tealeaves.likelihood._kernels`, one random stream per document) and returns it with the
Gibbs site updates it spent on each document (:class:`Estimates`); its docstring says what it
estimates, what it guarantees, and that cost for a document of N tokens (Table 1's unit).
``N`` is the document's length; ``K`` topics.

Unbiased for P(w) means E[P̂] = P(w); then, by Jensen's inequality, E[log P̂] <= log P(w):
the log estimate is a stochastic lower bound, so larger estimates are more likely to be
right (§6.2: "the largest estimate is likely to be the best").

The methods are registered in :data:`METHODS`; :func:`tealeaves.likelihood.estimate` runs them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from tealeaves.errors import InputError, unknown_name, with_guesses
from tealeaves.likelihood import _kernels
from tealeaves.likelihood.documents import Documents
from tealeaves.likelihood.schedules import SCHEDULES, temperatures_schedule
from tealeaves.models.hyperparameters import check_hyperparameters, count, named_elsewhere, one_of

UNBIASED = "unbiased for P(w) (its log is a stochastic lower bound on log P(w))"
VARIANTS = ("sis", "wallach", "mallet")
DEFAULT_PARTICLES = {"sis": 1000, "wallach": 20, "mallet": 1000}
ICM_SWEEPS = 100  # cap on iterated-conditional-modes sweeps when setting the Chib special state


class Estimates(NamedTuple):
    """What an estimator returns for a batch of documents."""

    log_prob: np.ndarray  # float64[D]: log P̂ per document
    site_updates: np.ndarray  # [D]: Gibbs site updates spent on each document (the unit of Table 1)


RULES = {
    "samples": count(1),
    "burn_in": count(0),
    "iterations": count(0),
    "temperatures": count(1),
    "schedule": one_of(*SCHEDULES),
    "particles": count(1, also={"num_particles": "MALLET's"}),
    "variant": one_of(*VARIANTS),
}
"""The values each option of the estimators accepts, the same for every estimator that takes it (:class:`Method`
checks those given before any work; each function checks its own)."""


# --------------------------------------------------------------------------- §4.1 importance sampling
def is_prior_theta(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, samples: int = 1000
) -> Estimates:
    """IS-PT: importance sampling from the prior over θ (eqs. 12-13); MALLET's "empirical likelihood".

    P̂(w) = (1/S) Σ_s Π_n Σ_t φ_{w_n|t} θ_t^(s),  θ^(s) ~ Dir(αm).

    Unbiased for P(w); its variance can be infinite, and it underestimates badly for long
    documents because prior draws of θ rarely explain w. Cost: S N (Table 1).
    """
    check_hyperparameters("is-prior-theta", RULES, locals())
    log_prob = _kernels.is_prior_theta(docs.tokens, docs.offsets, phi_t, alpha, samples, seed, docs.base)
    return Estimates(log_prob, samples * docs.lengths)


def is_pzw(phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, samples: int = 1000) -> Estimates:
    """IS-PZW: importance sampling of z from Q(z_n) ∝ α m_{z_n} φ_{w_n|z_n}, tokens independent (§4.1).

    P̂(w) = (1/S) Σ_s P(w | z^(s), Φ) P(z^(s) | αm) / Π_n Q(z_n^(s)),  with P(z | αm) from eq. 5.

    Unbiased for P(w). Cost: S N (Table 1).
    """
    check_hyperparameters("is-pzw", RULES, locals())
    log_prob = _kernels.is_topic_proposal(docs.tokens, docs.offsets, phi_t, alpha, 0, samples, seed, docs.base)
    return Estimates(log_prob, samples * docs.lengths)


def is_iterated_pseudocounts(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, iterations: int = 10, samples: int = 1000
) -> Estimates:
    """IS-IP: importance sampling of z with "iterated pseudo-counts" proposals (eq. 11).

    Starting from Q(z_n)^(0) ∝ α m_{z_n} φ_{w_n|z_n}, ``iterations`` synchronous updates
    Q(z_n)^(i) ∝ (α m_{z_n} + Σ_{n' != n} Q(z_{n'})^(i-1)) φ_{w_n|z_n} are applied; the proposal
    is then fixed before sampling, and P̂(w) is formed as in :func:`is_pzw`.

    Unbiased for P(w) (the proposal does not depend on the samples). Cost: (I + S) N (Table 1).
    """
    check_hyperparameters("is-iterated-pseudocounts", RULES, locals())
    log_prob = _kernels.is_topic_proposal(docs.tokens, docs.offsets, phi_t, alpha, iterations, samples, seed, docs.base)
    return Estimates(log_prob, (iterations + samples) * docs.lengths)


# --------------------------------------------------------------------------- §4.2 harmonic mean
def harmonic_mean(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, burn_in: int = 100, samples: int = 1000
) -> Estimates:
    """HM: the harmonic mean method (Newton & Raftery 1994; eq. 15). KNOWN TO BE BIASED: a baseline only.

    P̂(w) = 1 / ((1/S) Σ_s 1 / P(w | z^(s), Φ)), z^(s) the Gibbs states (eq. 7) of S sweeps
    after ``burn_in`` sweeps, without thinning.

    1/P̂ is unbiased for 1/P(w) only under exact posterior samples; P̂ itself overestimates
    P(w) in expectation (Jensen), and in practice wildly, because the estimate is dominated by
    the few samples with the smallest P(w | z) (§6.2). Cost: N (B + S) (Table 1).
    """
    check_hyperparameters("harmonic-mean", RULES, locals())
    log_prob = _kernels.harmonic_mean(docs.tokens, docs.offsets, phi_t, alpha, burn_in, samples, seed, docs.base)
    return Estimates(log_prob, (burn_in + samples) * docs.lengths)


# --------------------------------------------------------------------------- §4.3 AIS
def annealed_importance_sampling(
    phi_t: np.ndarray,
    alpha: np.ndarray,
    docs: Documents,
    seed: int,
    *,
    temperatures: int = 1000,
    schedule: str = "geometric",
) -> Estimates:
    """AIS: annealed importance sampling (Neal 2001; Algorithm 1), one annealing run per document.

    With inverse temperatures 0 = τ_0 < τ_1 < ... < τ_S = 1 (``schedule``: see
    :mod:`tealeaves.likelihood.schedules`) and P_s(z) ∝ P(w | z, Φ)^τ_s P(z | αm):
    z^(1) ~ P(z | αm) (the Pólya urn), z^(s) ~ T_{s-1}(· <- z^(s-1)) a Gibbs sweep of eq. 16, and

    P̂(w) = Π_{s=1}^{S} P(w | z^(s), Φ)^(τ_s - τ_{s-1}).

    Unbiased for P(w) (eq. 20) for any S; accurate when S is large. Cost: S N (Table 1).
    """
    check_hyperparameters("ais", RULES, locals())
    taus = temperatures_schedule(temperatures, schedule)
    log_prob = _kernels.annealed_importance(
        docs.tokens, docs.offsets, docs.starts, phi_t, alpha, taus, 0, seed, docs.base
    )
    return Estimates(log_prob, temperatures * docs.lengths)


# --------------------------------------------------------------------------- §4.4 Chib-style estimator
def chib_style(
    phi_t: np.ndarray, alpha: np.ndarray, docs: Documents, seed: int, *, samples: int = 1000, burn_in: int = 20
) -> Estimates:
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
    §6.2). Cost: (2 S + B + I) N: 2 S N as in Table 1 (S sweeps plus S evaluations of eq. 24),
    plus B N for the burn-in and I N for the I sweeps of iterated conditional modes that setting
    z* took in that document (the last of them changed nothing, or I = 100, the cap). Like
    Table 1 for every method, the initial sequential draw of z (N site updates) is not counted.
    """
    check_hyperparameters("chib", RULES, locals())
    log_prob, icm_sweeps = _kernels.chib(
        docs.tokens, docs.offsets, phi_t, alpha, samples, burn_in, ICM_SWEEPS, seed, docs.base
    )
    return Estimates(log_prob, (2 * samples + burn_in + icm_sweeps) * docs.lengths)


# --------------------------------------------------------------------------- §4.5 left-to-right
def left_to_right(
    phi_t: np.ndarray,
    alpha: np.ndarray,
    docs: Documents,
    seed: int,
    *,
    particles: int | None = None,
    variant: str = "sis",
) -> Estimates:
    """LR: the "left-to-right" algorithm (Wallach 2008; Algorithm 3) with R = ``particles``.

    P(w) = Π_n P(w_n | w_<n) (eq. 25). Each particle r draws z_n ~ P(z_n | w_n, z_<n) from left
    to right and records p_n^(r) = P(w_n | z_<n^(r)) = Σ_t φ_{w_n|t} (N_t + α m_t) / (n - 1 + α).

    - ``variant="sis"`` (default): sequential importance sampling without resampling,
      P̂(w) = (1/R) Σ_r Π_n p_n^(r). Unbiased for P(w): each particle's Π_n p_n^(r) is its
      importance weight P(w, z) / Q(z) under the sequential proposal. Cost: R N.
    - ``variant="wallach"``: Algorithm 3 as printed: before scoring position n, every particle
      resamples z_<n by one Gibbs sweep over positions 1..n-1 given w_<n (lines 5-7);
      log P̂(w) = Σ_n log (1/R) Σ_r p_n^(r). Not unbiased. As R grows it converges to

          L = Σ_n log E_{q_n}[P(w_n | z_<n)],

      where q_n is the exact law of one particle's z_<n when position n is scored: q_1 is
      trivial and q_{n+1} = G_n[q_n(z_<n) P(z_n | w_n, z_<n)], with G_n one forward Gibbs
      sweep (eq. 7) over positions 1..n given w_<=n. L would be log P(w) only if every q_n were
      the posterior P(z_<n | w_<n) (eq. 25). It is not: a particle appends z_n without the
      weight P(w_n | z_<n) / P(w_n | w_<n) that sequential Monte Carlo would give it, and one
      Gibbs sweep, though it leaves the posterior invariant, does not restore it. q_n is exact
      for n <= 2 only, so for N >= 3 L differs from log P(w), by an amount of either sign that
      grows with the skew of αm: on random 4- and 5-token documents with αm log-uniform on
      [0.03, 3], L - log P(w) ranged from -0.075 to +0.028 nats (tests/likelihood/
      test_unbiased.py), and with K = 2, N = 5, αm = (0.05, 1.7) it exceeds +0.13 nats for some
      Φ and w. So the estimate is not a stochastic lower bound as the unbiased methods' logs are.
      Cost: R N (N - 1) / 2 (Table 1).
    - ``variant="mallet"``: what MALLET's evaluate-topics computes (no resampling), the same
      product of per-position particle averages. Not unbiased; it converges as R grows to the
      same L with q_n the sequential proposal Π_{i<n} P(z_i | w_i, z_<i) (G_n the identity),
      which also differs from log P(w), in either direction, for N >= 3, by more than
      ``wallach`` does (-0.26 to +0.08 nats on the random models above). Cost: R N.

    ``particles`` defaults to 1000 for ``sis`` and ``mallet`` and 20 for ``wallach``. With few
    particles ``sis`` is unbiased for P(w) but its log falls well below log P(w) on long
    documents (the particle weights degenerate): on 200-token documents from a 50-topic AP model
    R = 20 gives about 10 nats per document less than CS and ``wallach`` with R = 20, R = 200
    about 3.5, R = 2000 about 0.7 (benchmarks/likelihood.py).

    For document completion (``starts > 0``) only positions of w^(2) are scored; ``sis`` then
    returns the ratio of the particle averages of P̂(w^(1), w^(2)) and P̂(w^(1)) (§5.3).
    """
    checked = left_to_right_params({"variant": variant, "particles": particles})
    shared = (docs.tokens, docs.offsets, docs.starts, phi_t, alpha, checked["particles"])
    if checked["variant"] == "sis":
        log_prob = _kernels.left_to_right_sis(*shared, seed, docs.base)
    else:
        log_prob = _kernels.left_to_right(*shared, checked["variant"] == "wallach", seed, docs.base)
    return Estimates(log_prob, left_to_right_cost(checked, docs))


# --------------------------------------------------------------------------- the registry
@dataclass(frozen=True)
class Method:
    """An estimator: its function (returning :class:`Estimates`), its Table 1 label and what it guarantees."""

    name: str
    label: str
    function: Callable[..., Estimates]
    guarantee: Callable[[dict[str, Any]], str]
    complete_params: Callable[[dict[str, Any]], dict[str, Any]] = dict  # fills defaults that depend on others

    def defaults(self) -> dict[str, Any]:
        """The method's parameters with their defaults."""
        signature = inspect.signature(self.function)
        return {name: p.default for name, p in signature.parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}

    def resolve(self, params: dict[str, Any]) -> dict[str, Any]:
        """Defaults updated with ``params``; unknown names and values outside :data:`RULES` are refused."""
        accepted = self.defaults()
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            raise InputError(
                f"{self.name} has no parameter {with_guesses(unknown, accepted, named_elsewhere(RULES))}; its "
                f"parameters are {', '.join(f'{k}={v!r}' for k, v in accepted.items())}"
            )
        check_hyperparameters(self.name, RULES, {k: v for k, v in params.items() if v is not None})  # before any work
        return self.complete_params({**accepted, **params})

    def describe(self, params: dict[str, Any]) -> str:
        """``label`` with the variant, when there is one."""
        return f"{self.label}-{params['variant']}" if "variant" in params else self.label


def _left_to_right_guarantee(params: dict[str, Any]) -> str:
    if params["variant"] == "sis":
        return UNBIASED
    return (
        "biased: converges as particles grow to Σ_n log E_q[P(w_n | z_<n)] under its particles' law q, "
        "not to log P(w) (above or below it)"
    )


def left_to_right_params(params: dict[str, Any]) -> dict[str, Any]:
    """Check ``variant`` and fill in its default number of particles."""
    check_hyperparameters("left-to-right", RULES, {"variant": params["variant"]})
    particles = DEFAULT_PARTICLES[params["variant"]] if params["particles"] is None else params["particles"]
    check_hyperparameters("left-to-right", RULES, {"particles": particles})
    return {**params, "particles": particles}


def left_to_right_cost(params: dict[str, Any], docs: Documents) -> np.ndarray:
    """R N (N - 1) / 2 site updates for ``wallach``, R N otherwise (Table 1)."""
    n = docs.lengths.astype(np.float64)
    if params["variant"] == "wallach":
        return params["particles"] * n * (n - 1) / 2
    return params["particles"] * n


METHODS: dict[str, Method] = {
    "is-prior-theta": Method("is-prior-theta", "IS-PT", is_prior_theta, lambda p: UNBIASED),
    "is-pzw": Method("is-pzw", "IS-PZW", is_pzw, lambda p: UNBIASED),
    "is-iterated-pseudocounts": Method(
        "is-iterated-pseudocounts", "IS-IP", is_iterated_pseudocounts, lambda p: UNBIASED
    ),
    "harmonic-mean": Method(
        "harmonic-mean",
        "HM",
        harmonic_mean,
        lambda p: "BIASED: overestimates P(w), often wildly (kept as the known-bad baseline)",
    ),
    "ais": Method("ais", "AIS", annealed_importance_sampling, lambda p: UNBIASED),
    "chib": Method("chib", "CS", chib_style, lambda p: UNBIASED),
    "left-to-right": Method("left-to-right", "LR", left_to_right, _left_to_right_guarantee, left_to_right_params),
}
"""The estimators of log P(w | Φ, αm) by name (Wallach et al. 2009, Table 1), for :func:`estimate`.

Each :class:`Method` holds the estimator's abbreviation (IS-PT, IS-PZW, IS-IP, HM, AIS, CS, LR),
its function, whose docstring states its formula and cost, and what it guarantees.
"""


def find_method(name: str, registry: dict[str, Method]) -> Method:
    """The registered method ``name``; a clear error listing the others."""
    if not isinstance(name, str) or name not in registry:
        raise unknown_name("method", name, registry)
    return registry[name]
