"""A linear ranking SVM with SVM-rank's objective (Joachims 2002, 2006), as Lau et al. 2014 used it.

Training data are rankings (Lau et al.: one per word-intrusion set), each a few items with a
feature vector and a grade (the intruder 1, the topic's own words 0). Every pair of items of
one ranking with different grades gives the difference ``d = x_better - x_worse``; the ranking
SVM wants ``w . d >= 1``. With ``n`` rankings it solves

    min_w  1/2 ||w||^2 + (C / n) sum_pairs max(0, 1 - w . d)

which is SVM-rank's problem: its ``-c`` is interpreted differently from SVM-light's,
"C_light = C_rank / n, where n is the number of training queries" (Joachims, SVM-rank
documentation), and SVM-light with ``-z p`` solves the problem above with C_light. Lau et al.'s
toolkit runs ``svm_rank_learn -c 0.01``, hence ``c=0.01`` by default; there is no bias term
(a ranking is unchanged by one), L1 slacks (``-p 1``) and one slack per pair.

The problem is solved exactly in its dual, ``max_a sum(a) - 1/2 ||sum_p a_p d_p||^2`` over
``0 <= a_p <= C / n``, by dual coordinate descent (Hsieh et al. 2008, Algorithm 1) to a
projected-gradient spread of ``tol``; the fit records the primal and dual objectives, whose
difference (the duality gap) bounds how far the primal objective is from its minimum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tealeaves.errors import InputError, is_real
from tealeaves.intrusion import _kernels

SVM_RANK_C = 0.01  # Lau et al.'s toolkit (run-wi.sh): svm_rank_learn -c 0.01


@dataclass(frozen=True)
class RankingSVM:
    """A fitted linear ranking function ``score(x) = w·x`` (higher ranks first).

    Attributes
    ----------
    weights : float64[F]
        The ranking function's weights, one per feature.
    c : float
        SVM-rank's C; the per-pair slack weight is ``c / n_rankings``.
    n_rankings, n_pairs : int
        Rankings and preference pairs trained on.
    primal, dual : float
        Objective values at the solution (``primal - dual >= 0`` is the duality gap).
    epochs : int
        Passes of dual coordinate descent.
    converged : bool
        Whether the projected-gradient spread reached ``tol`` within ``max_epochs``.

    Examples
    --------
    >>> from tealeaves.intrusion import fit_ranking_svm
    >>> import numpy as np
    >>> features = np.array([[[0.0, 1.0], [1.0, 0.0], [0.2, 0.1]], [[0.1, 0.9], [0.9, 0.3], [0.0, 0.0]]])
    >>> grades = np.array([[0, 1, 0], [0, 1, 0]])  # the second item of each ranking should rank first
    >>> ranker = fit_ranking_svm(features, grades, c=10)
    >>> ranker.score(features).argmax(axis=1)  # each ranking's first place
    array([1, 1])
    >>> ranker.n_rankings, ranker.n_pairs, ranker.converged
    (2, 4, True)
    """

    weights: np.ndarray
    c: float
    n_rankings: int
    n_pairs: int
    primal: float
    dual: float
    epochs: int
    converged: bool

    def score(self, features: np.ndarray) -> np.ndarray:
        """``features @ weights`` over the last axis (any leading shape)."""
        features = np.asarray(features, dtype=np.float64)
        if features.shape[-1:] != self.weights.shape:
            raise InputError(
                f"features have {features.shape[-1]} columns; this ranker was fitted on {len(self.weights)}"
            )
        return features @ self.weights


def preference_pairs(features: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """Differences ``x_i - x_j`` for every pair of items of a ranking with ``grade_i > grade_j``.

    Parameters
    ----------
    features : array-like of shape (R, n, F)
        R rankings of n items with F features each.
    grades : array-like of shape (R, n)
        Higher grades should rank higher; items of equal grade give no pair.

    Returns
    -------
    ndarray of shape (P, F)
        The pairs of ranking 0 first, then of ranking 1, and so on.

    Examples
    --------
    >>> from tealeaves.intrusion import preference_pairs
    >>> import numpy as np
    >>> features = np.array([[[0.0, 1.0], [1.0, 0.0], [0.2, 0.1]], [[0.1, 0.9], [0.9, 0.3], [0.0, 0.0]]])
    >>> grades = np.array([[0, 1, 0], [0, 1, 0]])  # the second item of each ranking should rank first
    >>> preference_pairs(features, grades)  # item 1 minus items 0 and 2, in each ranking
    array([[ 1. , -1. ],
           [ 0.8, -0.1],
           [ 0.8, -0.6],
           [ 0.9,  0.3]])
    """
    features = np.asarray(features, dtype=np.float64)
    grades = np.asarray(grades)
    if features.ndim != 3 or grades.shape != features.shape[:2]:
        raise InputError("features must be [rankings, items, features] and grades [rankings, items]")
    ranking, better, worse = np.nonzero(grades[:, :, None] > grades[:, None, :])
    return features[ranking, better] - features[ranking, worse]


def fit_ranking_svm(
    features: np.ndarray,
    grades: np.ndarray,
    c: float = SVM_RANK_C,
    tol: float = 1e-9,
    max_epochs: int = 100_000,
) -> RankingSVM:
    """Fit the ranking SVM of the module docstring.

    Solves min_w 1/2 ||w||^2 + (C / n) Σ_pairs max(0, 1 - w · d) over the preference pairs d
    (:func:`preference_pairs`) of n rankings, SVM-rank's problem (Joachims 2002, 2006), by dual
    coordinate descent (Hsieh et al. 2008).

    Parameters
    ----------
    features : float[R, n, F]
        R rankings of n items with F features each.
    grades : array[R, n]
        Higher grades should rank higher; items of equal grade are not compared.
    c : float
        SVM-rank's C (default 0.01, Lau et al.'s setting).
    tol : float
        Stop dual coordinate descent when the projected gradients spread by at most ``tol``.
    max_epochs : int
        At most this many passes over the pairs.

    Returns
    -------
    RankingSVM

    Examples
    --------
    >>> from tealeaves.intrusion import fit_ranking_svm
    >>> import numpy as np
    >>> features = np.array([[[0.0, 1.0], [1.0, 0.0], [0.2, 0.1]], [[0.1, 0.9], [0.9, 0.3], [0.0, 0.0]]])
    >>> grades = np.array([[0, 1, 0], [0, 1, 0]])  # the second item of each ranking should rank first
    >>> ranker = fit_ranking_svm(features, grades, c=10)
    >>> ranker.weights.round(4)  # (16/13, -2/13): every pair's margin w · d is at least 1
    array([ 1.2308, -0.1538])
    >>> round(ranker.primal, 4), round(ranker.dual, 4)  # no duality gap: the optimum
    (0.7692, 0.7692)
    """
    if not (is_real(c) and np.isfinite(c) and c > 0):
        raise InputError(f"C must be a positive number, got {c!r}")
    if not (tol > 0 and max_epochs >= 1):
        raise InputError("tol must be positive and max_epochs at least 1")
    features = np.asarray(features, dtype=np.float64)
    diffs = preference_pairs(features, grades)
    if not np.all(np.isfinite(diffs)):
        raise InputError("ranking features must be finite")
    n_rankings = features.shape[0]
    if n_rankings == 0:
        raise InputError("a ranking SVM needs at least one ranking to train on")
    upper = c / n_rankings
    w, alpha, epochs, spread = _kernels.dual_coordinate_descent(diffs, upper, tol, max_epochs)
    hinge = np.maximum(0.0, 1.0 - diffs @ w)
    primal = 0.5 * float(w @ w) + upper * float(hinge.sum())
    dual = float(alpha.sum()) - 0.5 * float(w @ w)
    return RankingSVM(w, float(c), int(n_rankings), len(diffs), primal, dual, int(epochs), bool(spread <= tol))
