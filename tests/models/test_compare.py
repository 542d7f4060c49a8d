"""Hellinger distances and one-to-one topic matching."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tealeaves.errors import InputError
from tealeaves.models.compare import hellinger, match_topics


def test_hellinger_values():
    assert hellinger([0.5, 0.5], [0.5, 0.5]) == 0.0
    assert hellinger([1.0, 0.0], [0.0, 1.0]) == pytest.approx(1.0)
    assert hellinger([0.25, 0.75], [0.75, 0.25]) == pytest.approx(np.sqrt(1 - np.sqrt(3) / 2))


def test_matching_is_the_best_permutation():
    rng = np.random.default_rng(0)
    reference = rng.dirichlet(np.ones(8), size=4)
    other = rng.dirichlet(np.ones(8), size=5)
    order, distances = match_topics(reference, other)
    assert len(set(order)) == 4 and np.allclose(distances, hellinger(reference, other[order]))
    best = min(
        sum(hellinger(reference[i], other[j]) for i, j in enumerate(perm))
        for perm in itertools.permutations(range(5), 4)
    )
    assert distances.sum() == pytest.approx(best)
    shuffled = reference[[2, 0, 3, 1]]
    order, distances = match_topics(reference, shuffled)
    assert list(order) == [1, 3, 0, 2] and np.allclose(distances, 0, atol=1e-7)
    with pytest.raises(InputError, match="one-to-one"):
        match_topics(other, reference)
