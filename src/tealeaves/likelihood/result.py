"""The result of an estimator run: per-document log probabilities, kept with every run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tealeaves.results import Columns, Result


@dataclass(frozen=True)
class LikelihoodResult(Result):
    """Estimates of log P(w | Φ, αm) (or of log P(w^(2) | w^(1), Φ, αm)) for each document.

    Attributes
    ----------
    method, label : str
        The method's name (``"left-to-right"``) and its abbreviation in Wallach et al. 2009, Table 1.
    estimand : str
        What is estimated, per document.
    guarantee : str
        What the estimator promises (unbiased for P(w), biased, ...).
    params : dict
        The parameters used (Table 1 names: particles, samples, temperatures, burn_in, iterations).
    ids : tuple of str
        Document ids.
    log_prob : float64[D]
        log P̄ per document: the log of the estimates of P averaged over the runs (§6.2).
    run_log_prob : float64[runs, D]
        The log estimate of every run.
    n_tokens : int64[D]
        Tokens scored per document (the held part under document completion).
    n_oov : int64[D]
        Out-of-vocabulary tokens dropped per document (``on_missing="skip"``).
    total_sd : float or None
        Bootstrap standard deviation of ``total`` over runs (§6.2), when there are several runs.
    site_updates : float
        Gibbs site updates spent over all documents and runs, as each method's docstring counts
        them (Table 1's formulas; Chib's adds its burn-in and ICM sweeps).
    seed : int
        The seed the estimator was called with.
    seconds : float
        Wall-clock time of the runs.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.likelihood import estimate
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> result = estimate(phi, np.array([0.5, 0.5]), [[0, 1, 3], [2, 3, 3, 2]], particles=100, runs=3, seed=0)
    >>> result.method, result.runs, result.run_log_prob.shape, result.n_scored
    ('left-to-right', 3, (3, 2), 7)
    >>> [round(float(v), 4) for v in result.log_prob]  # log of the mean of P̂ over the 3 runs
    [-4.4696, -4.434]
    >>> round(result.total, 4), round(result.per_token, 4), round(result.perplexity, 4)  # eq. 6, total / 7, exp(-total / 7)
    (-8.9036, -1.2719, 3.5678)
    >>> round(result.total_sd, 4)  # bootstrap over the runs (§6.2)
    0.0121
    """

    method: str
    label: str
    estimand: str
    guarantee: str
    params: dict[str, Any]
    ids: tuple[str, ...]
    log_prob: np.ndarray
    run_log_prob: np.ndarray
    n_tokens: np.ndarray
    n_oov: np.ndarray
    total_sd: float | None
    site_updates: float
    seed: int
    seconds: float

    @property
    def runs(self) -> int:
        """Number of independent runs per document."""
        return int(self.run_log_prob.shape[0])

    @property
    def total(self) -> float:
        """Σ_d log P̄(w^(d)): the log probability of all the documents (eq. 6)."""
        return float(self.log_prob.sum())

    @property
    def n_scored(self) -> int:
        """Tokens scored in all documents."""
        return int(self.n_tokens.sum())

    @property
    def per_token(self) -> float:
        """``total`` divided by the number of tokens scored (natural log, per token)."""
        return self.total / self.n_scored if self.n_scored else 0.0

    @property
    def perplexity(self) -> float:
        """exp(-per_token)."""
        return float(np.exp(-self.per_token))

    def summary(self) -> dict[str, Any]:
        """The aggregates, as printed by the CLI."""
        return {
            "method": f"{self.method} ({self.label})",
            "estimand": self.estimand,
            "guarantee": self.guarantee,
            **{f"param {k}": v for k, v in self.params.items()},
            "documents": len(self.ids),
            "tokens scored": self.n_scored,
            "out-of-vocabulary tokens dropped": int(self.n_oov.sum()),
            "runs": self.runs,
            "total log probability": self.total,
            "bootstrap sd of the total": self.total_sd,
            "per token": self.per_token,
            "perplexity": self.perplexity,
            "Gibbs site updates": self.site_updates,
            "seconds": self.seconds,
        }

    def to_dict(self) -> dict[str, Any]:
        """All fields plus ``total``, ``n_scored``, ``per_token`` and ``perplexity``."""
        extra = {"total": self.total, "n_scored": self.n_scored, "per_token": self.per_token}
        return {**super().to_dict(), **extra, "perplexity": self.perplexity}

    def columns(self) -> Columns:
        """One row per document: id, tokens scored, OOV tokens, log P̄, per token, and each run."""
        n = np.maximum(self.n_tokens, 1)
        columns: Columns = {
            "doc": np.arange(len(self.ids)),
            "id": list(self.ids),
            "n_tokens": self.n_tokens,
            "n_oov": self.n_oov,
            "log_prob": self.log_prob,
            "log_prob_per_token": np.where(self.n_tokens > 0, self.log_prob / n, 0.0),
        }
        if self.runs > 1:
            for r in range(self.runs):
                columns[f"run_{r}"] = self.run_log_prob[r]
        return columns
