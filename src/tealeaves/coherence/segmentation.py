"""Segmentations: which (W', W*) pairs of a topic's words a measure confirms (Röder et al. 2015, §3.1).

For a topic of ``m`` words ranked ``w_0, w_1, ...`` (most probable first), each function
returns ``(prime, star)`` index arrays; ``star = -1`` stands for the whole topic ``W``.
"""

from __future__ import annotations

import numpy as np

SET = -1  # W* is the whole topic


def one_one(m: int) -> tuple[np.ndarray, np.ndarray]:
    """S_one^one: ``W' = {w_i}``, ``W* = {w_j}``, every ordered pair ``i != j``."""
    prime, star = np.nonzero(~np.eye(m, dtype=bool))
    return prime.astype(np.int64), star.astype(np.int64)


def one_preceding(m: int) -> tuple[np.ndarray, np.ndarray]:
    """S_one^pre: ``W' = {w_i}``, ``W* = {w_j}``, ``j < i`` (the condition ranks higher)."""
    prime, star = np.tril_indices(m, k=-1)
    return prime.astype(np.int64), star.astype(np.int64)


def one_set(m: int) -> tuple[np.ndarray, np.ndarray]:
    """S_one^set: ``W' = {w_i}``, ``W* = W`` for every word."""
    return np.arange(m, dtype=np.int64), np.full(m, SET, dtype=np.int64)
