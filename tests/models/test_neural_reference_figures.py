"""dvae and etm recover planted topics as well as the authors' own code does.

The figures below were measured by ``benchmarks/neural_vs_reference.py`` beside Hoyle et al.'s
D-VAE (ahoho/dvae at 267cff1, Pyro) and their ETM (ahoho/ETM, Dieng et al.'s ``main.py``), on the
K = 10, V = 500 LDA corpus of ``planted.py``, with the settings of ``PLANTED_NEURAL`` in
``planted.py`` (those of ``test_neural.py``), seeds 0, 1, 2, two PyTorch threads, on the shared 2-core machine::

    python benchmarks/neural_vs_reference.py --dvae-ref PATH --etm-ref PATH --parts planted --seeds 0 1 2

Each tuple holds, per seed, the largest (worst) and the median Hellinger distance from a planted
topic to its matched learned topic (Hungarian matching). The two implementations spread alike:
D-VAE's Φ_k = softmax(B_k) is flatter than a planted topic, so both sit near 0.59 at the median,
and either sometimes merges two planted topics (worst 0.75 at seed 0 for both); ETM's worst topic
moves between 0.54 and 0.93 from seed to seed in both. No defect of ours shows: the gap is a
property of the models, not of the reimplementation. The test holds ours (seed 0, one thread, so
the same model on any machine; trained once for this module and ``test_neural.py``) to what the
reference reached.
"""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.models.compare import match_topics

pytest.importorskip("torch")
pytest.importorskip("gensim")

# (worst, median) matched Hellinger distance at seeds 0, 1, 2, measured by the command in the docstring
REFERENCE = {
    "dvae": {"worst": (0.750, 0.612, 0.609), "median": (0.595, 0.586, 0.586)},
    "etm": {"worst": (0.538, 0.664, 0.933), "median": (0.346, 0.388, 0.517)},
}
OURS = {
    "dvae": {"worst": (0.753, 0.615, 0.733), "median": (0.595, 0.587, 0.592)},
    "etm": {"worst": (0.698, 0.743, 0.543), "median": (0.354, 0.401, 0.350)},
}
MARGIN = 0.02  # two threads in the benchmark, one here: the same seed gives a slightly different model


def test_measured_figures_agree():
    """The documented figures: ours and the reference's means over the three seeds are within
    two standard errors of each other, worst and median (the claim the guide makes)."""
    for kind in ("dvae", "etm"):
        for figure in ("worst", "median"):
            ours, ref = np.array(OURS[kind][figure]), np.array(REFERENCE[kind][figure])
            se = np.hypot(ours.std(ddof=1), ref.std(ddof=1)) / np.sqrt(3)
            assert abs(ours.mean() - ref.mean()) <= 2 * se + 1e-9, (kind, figure)


@pytest.mark.parametrize("kind", ["dvae", "etm"])
def test_planted_recovery_as_good_as_the_reference(planted_neural, kind):
    _, true_phi, _, models = planted_neural
    model = models[kind]
    _, distances = match_topics(true_phi, model.phi)
    print(f"{kind} planted Hellinger distances: {np.round(np.sort(distances), 3)}")
    assert distances.max() <= max(REFERENCE[kind]["worst"]) + MARGIN
    assert np.median(distances) <= max(REFERENCE[kind]["median"]) + MARGIN
