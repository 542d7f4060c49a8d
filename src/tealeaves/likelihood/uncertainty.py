"""Several runs per document and the bootstrap (Wallach et al. 2009, §6.2).

"The estimates of P(w^(d) | Φ, αm) for each held-out document were averaged over 10 runs, to
give P̄(w^(d) | Φ, αm). The log probability of the held-out documents was then estimated as
Σ_d log P̄(w^(d) | Φ, αm). Standard deviations were obtained using a bootstrap method, in which
10,000 log probabilities ... were obtained by sampling with replacement from the 10 runs for
each held-out document."
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from tealeaves.deprecation import renamed_parameters
from tealeaves.errors import InputError, is_count
from tealeaves.rng import family_generator

BOOTSTRAP_CHUNK = 4_000_000  # resampled values held in memory at once


def run_seed(seed: int, run: int) -> int:
    """The seed of run ``run``: ``seed`` itself for run 0, an independent derived seed otherwise."""
    if run == 0:
        return seed
    return int(np.random.SeedSequence(seed, spawn_key=(run,)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def average_runs(run_log_prob: np.ndarray, axis: int = 0) -> np.ndarray:
    """log P̄ per document: log of the mean over runs (``axis``) of P̂ (float64[runs, D] -> float64[D])."""
    return logsumexp(run_log_prob, axis=axis) - np.log(run_log_prob.shape[axis])


@renamed_parameters(replicates="n_resamples")
def bootstrap_sd(run_log_prob: np.ndarray, n_resamples: int = 10_000, seed: int = 0) -> float | None:
    """Standard deviation of Σ_d log P̄(w^(d)) when each document's runs are resampled with replacement.

    Each resample draws, for every document, as many runs as there are with replacement,
    averages their P̂ (log P̄ = log of the mean) and sums over documents; the result is the
    standard deviation of those totals (Wallach et al. 2009, §6.2).

    Parameters
    ----------
    run_log_prob : ndarray of shape (runs, D)
        The log estimate of every run for every document (``LikelihoodResult.run_log_prob``).
    n_resamples : int
        Bootstrap resamples, at least 2 (``replicates``, its old name, is deprecated).
    seed : int
        The resampling draws from the bootstrap's own stream family under ``seed``
        (:func:`tealeaves.rng.family_generator`).

    Returns
    -------
    float or None
        The bootstrap standard deviation, or None for a single run (there is nothing to
        resample).

    Examples
    --------
    Runs that agree leave nothing to vary. Below, document 0's two runs estimate P as 0.1 and
    0.3, so a resampled mean is 0.1, 0.2 or 0.3 with probabilities 1/4, 1/2, 1/4 and the
    standard deviation of its log is 0.395:

    >>> import numpy as np
    >>> from tealeaves.likelihood import bootstrap_sd
    >>> bootstrap_sd(np.array([[-3.0, -5.0], [-3.0, -5.0]]))
    0.0
    >>> round(bootstrap_sd(np.log([[0.1, 0.2], [0.3, 0.2]]), seed=0), 2)
    0.39
    >>> bootstrap_sd(np.array([[-3.0, -5.0]])) is None
    True
    """
    n_runs, n_docs = run_log_prob.shape
    if n_runs < 2:
        return None
    if not is_count(n_resamples, 2):
        raise InputError(f"bootstrap resamples must be an integer >= 2, got {n_resamples!r}")
    rng = family_generator(seed, "bootstrap runs")
    columns = np.arange(n_docs)
    chunk = max(1, BOOTSTRAP_CHUNK // max(1, n_runs * n_docs))
    totals = []
    for lo in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - lo)
        picks = rng.integers(0, n_runs, size=(size, n_runs, n_docs))
        resampled = run_log_prob[picks, columns]
        totals.append(average_runs(resampled, axis=1).sum(axis=1))
    return float(np.concatenate(totals).std(ddof=1))
