"""Numba kernel of the ranking SVM: dual coordinate descent (Hsieh et al. 2008, Algorithm 1)."""

from __future__ import annotations

import numpy as np

from tealeaves.jit import kernel


@kernel
def dual_coordinate_descent(
    diffs: np.ndarray, upper: float, tol: float, max_epochs: int
) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Solve ``min_a 1/2 a'Qa - sum(a)`` over ``0 <= a <= upper``, ``Q = diffs diffs'``.

    The dual of the L1-loss linear SVM without bias whose examples are the rows of ``diffs``,
    all labelled +1. Coordinates are visited in order; a coordinate's projected gradient
    decides whether it moves, and the run stops when the spread of the projected gradients
    over one epoch is at most ``tol``. A row that is all zero has gradient -1 whatever ``w``:
    its coordinate sits at ``upper`` from the start and ``w`` does not depend on it.

    Returns ``(w, alpha, epochs, spread)`` with ``w = diffs' alpha``.
    """
    n_pairs, n_features = diffs.shape
    alpha = np.zeros(n_pairs)
    w = np.zeros(n_features)
    q = np.zeros(n_pairs)
    for p in range(n_pairs):
        for f in range(n_features):
            q[p] += diffs[p, f] * diffs[p, f]
        if q[p] == 0.0:
            alpha[p] = upper
    spread = 0.0
    for epoch in range(max_epochs):
        pg_max = -np.inf
        pg_min = np.inf
        for p in range(n_pairs):
            if q[p] == 0.0:
                continue
            g = -1.0
            for f in range(n_features):
                g += w[f] * diffs[p, f]
            if alpha[p] <= 0.0:
                pg = min(g, 0.0)
            elif alpha[p] >= upper:
                pg = max(g, 0.0)
            else:
                pg = g
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if pg != 0.0:
                new = min(max(alpha[p] - g / q[p], 0.0), upper)
                step = new - alpha[p]
                for f in range(n_features):
                    w[f] += step * diffs[p, f]
                alpha[p] = new
        spread = pg_max - pg_min if pg_max >= pg_min else 0.0
        if spread <= tol:
            return w, alpha, epoch + 1, spread
    return w, alpha, max_epochs, spread
