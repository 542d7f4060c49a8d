"""Comparing topics: Hellinger distances and a one-to-one matching of two models' topics.

Used to check that a trainer recovers planted topics and to show several models' topics side
by side (the demo).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from tealeaves.errors import InputError


def hellinger(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """H(p, q) = √(½ Σ_w (√p_w - √q_w)²) along the last axis (0 for equal, 1 for disjoint supports)."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    return np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2, axis=-1))


def match_topics(reference: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pair each reference topic with a distinct topic of ``other`` minimising the total Hellinger distance.

    ``reference`` (K x V) and ``other`` (K' x V, K' >= K) are topic-word distributions over one
    vocabulary. Returns ``(columns, distances)``: reference topic k is matched with
    ``other[columns[k]]`` at Hellinger distance ``distances[k]`` (the Hungarian algorithm).
    """
    reference, other = np.asarray(reference), np.asarray(other)
    if reference.ndim != 2 or other.ndim != 2 or reference.shape[1] != other.shape[1]:
        raise InputError(
            f"topics to match must be K x V matrices over one vocabulary, got {reference.shape} and {other.shape}"
        )
    if other.shape[0] < reference.shape[0]:
        raise InputError(f"cannot match {reference.shape[0]} topics one-to-one with only {other.shape[0]}")
    # for distributions, H² = 1 - Σ_w √(p_w q_w) (the Bhattacharyya coefficient)
    distances = np.sqrt(np.clip(1.0 - np.sqrt(reference) @ np.sqrt(other).T, 0.0, 1.0))
    rows, columns = linear_sum_assignment(distances)
    order = np.empty(reference.shape[0], dtype=np.int64)
    order[rows] = columns
    return order, distances[np.arange(reference.shape[0]), order]
