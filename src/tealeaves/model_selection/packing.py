"""Many trials at once in a sweep: the Dask scheduler's work items are packs of trials, and the
ETM and D-VAE trials of one shape go into packs trained as one batched computation on one device
(:mod:`tealeaves.models.neural.batched`).

A pack holds the trials of one trainer that share a corpus and
:func:`~tealeaves.models.neural.batched.shape_key` (k, network sizes, minibatch size, epochs;
the other settings and the seed may differ), at most ``max_trials`` of them and no
more than fit in ``memory_bytes`` by :func:`~tealeaves.models.neural.batched.trial_bytes`'s
estimate of one trial's memory. Every other trial (G-LDA, ETM with ``validation_share``)
is a pack of one, trained as before. Each trial of a pack is recorded as if trained alone: a
batched trial equals its own run (``tests/models/test_batched.py``); its training seconds are
the pack's divided by its trials, and a pack that fails fails each of its trials.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tealeaves.errors import InputError

if TYPE_CHECKING:
    from tealeaves.model_selection.run import Trial

BATCHED = ("etm", "dvae")  # the trainers whose trials train as one batch


def pack_trials(
    trials: Sequence[Trial],
    max_trials: int,
    memory_bytes: float,
    sizes: dict[str, tuple[int, int, int]] | None = None,
) -> list[list[Trial]]:
    """The trials in packs, in order of their first trial (module docstring).

    Parameters
    ----------
    trials : sequence of Trial
        The trials to train.
    max_trials : int
        Most trials in one pack (1: every trial alone).
    memory_bytes : float
        The memory one pack may use on its device.
    sizes : dict, optional
        (vocabulary size, documents, nonzero counts) of corpus folders already known; the others are read.

    Returns
    -------
    list of list of Trial

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from tealeaves.model_selection.packing import pack_trials
    >>> trials = [SimpleNamespace(model="lda-gibbs", trial="g")] + [
    ...     SimpleNamespace(model="etm", trial=f"e{i}", corpus="c", k=50, params={"epochs": 500 + 500 * (i % 2)})
    ...     for i in range(5)
    ... ]
    >>> sizes = {"c": (7316, 13133, 900000)}  # V, documents, nonzero counts: about 0.2 GB a trial
    >>> packs = pack_trials(trials, 32, 80e9, sizes=sizes)
    >>> [[t.trial for t in p] for p in packs]
    [['g'], ['e0', 'e2', 'e4'], ['e1', 'e3']]
    >>> [[t.trial for t in p] for p in pack_trials(trials, 2, 80e9, sizes=sizes)]
    [['g'], ['e0', 'e2'], ['e1', 'e3'], ['e4']]
    >>> dvae = [SimpleNamespace(model="dvae", trial=f"d{i}", corpus="c", k=50, params={}) for i in range(3)]
    >>> [[t.trial for t in p] for p in pack_trials(trials[:2] + dvae, 32, 80e9, sizes=sizes)]
    [['g'], ['e0'], ['d0', 'd1', 'd2']]
    """
    if max_trials < 1:
        raise InputError(f"batch_trials must be a positive integer, got {max_trials!r}")
    from tealeaves.models.neural.batched import shape_key, trial_bytes

    groups: dict[Any, list[Trial]] = {}
    packs: list[list[Trial]] = []
    known = dict(sizes or {})
    for trial in trials:
        if trial.model not in BATCHED or max_trials == 1 or trial.params.get("validation_share", 0.0):
            packs.append([trial])
            continue
        params = {"k": trial.k, **trial.params}
        if trial.corpus not in known:
            known[trial.corpus] = _corpus_size(trial.corpus)
        fits = max(1, int(memory_bytes // trial_bytes(*known[trial.corpus], params, trial.model)))
        key = (trial.model, trial.corpus, shape_key(params, trial.model))
        if key not in groups or len(groups[key]) >= min(max_trials, fits):
            groups[key] = []
            packs.append(groups[key])
        groups[key].append(trial)
    return packs


def _corpus_size(path: str) -> tuple[int, int, int]:
    """(vocabulary size, documents, nonzero document-term counts) of the corpus at ``path``."""
    from tealeaves.corpus import Corpus

    corpus = Corpus.load(path)
    return len(corpus.vocab), len(corpus), int(corpus.doc_term_matrix().nnz)
