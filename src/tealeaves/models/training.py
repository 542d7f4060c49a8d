"""``train``: one entry point for every trainer, by name.

A trainer is a function ``fit(corpus, k, seed=0, progress=None, **params) -> TopicModel``
in a module of its own, registered in :data:`TRAINERS` by a ``"module:function"`` string so
that heavy dependencies load only when that trainer is used. ``train`` validates the
arguments, times the run, records the training corpus' fingerprint and saves the result.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tealeaves.artifacts import check_writable
from tealeaves.corpus import Corpus, as_corpus
from tealeaves.errors import EmptyResultError, InputError, is_count, is_real, unknown_name, with_guesses
from tealeaves.extras import require
from tealeaves.models.hyperparameters import Rule, check_hyperparameters, named_elsewhere
from tealeaves.models.topic_model import TRAINING_DOCUMENTS, TopicModel
from tealeaves.progress import ProgressCallback


@dataclass(frozen=True)
class TrainerSpec:
    """Where a trainer lives, what it is, and the extra (and its modules) it needs beyond the core."""

    fit: str
    description: str
    extra: str | None = None
    modules: tuple[str, ...] = ()
    cell_bytes: tuple[int, int] = (8, 8)
    """The least bytes the trainer holds at once per topic-word cell (K x V) and per document-topic cell
    (D x K), for :func:`train`'s check that a model fits in memory: by default the result's Φ and θ
    (float64); the core trainers' working matrices add to it (their peaks, measured with ``tracemalloc`` over
    vocabulary-heavy and document-heavy corpora, are 1.3 to 6 times these: ``tests/models/test_training.py``
    checks that the bound stays below them)."""

    def module(self) -> Any:
        """The module that holds the trainer's ``fit`` (and its ``RULES``), imported on first use."""
        return importlib.import_module(self.fit.split(":")[0])

    def load(self) -> Callable[..., TopicModel]:
        return getattr(self.module(), self.fit.split(":")[1])


TRAINERS: dict[str, TrainerSpec] = {
    "lda-gibbs": TrainerSpec(
        "tealeaves.models.lda_gibbs:fit",
        "LDA by collapsed Gibbs sampling, alpha (asymmetric) and beta optimised during sampling as MALLET does",
        cell_bytes=(20, 20),
    ),
    "lda-vb": TrainerSpec(
        "tealeaves.models.lda_vb:fit",
        "LDA by variational Bayes, batch (Blei et al. 2003) or online (Hoffman et al. 2010)",
        cell_bytes=(32, 16),
    ),
    "plsi": TrainerSpec(
        "tealeaves.models.plsi:fit",
        "pLSI by EM (Hofmann 1999) with pseudo-count smoothing of theta (Chang et al. 2009)",
        cell_bytes=(32, 12),
    ),
    "ctm": TrainerSpec(
        "tealeaves.models.ctm:fit",
        "correlated topic model by variational EM (Blei & Lafferty 2007)",
        cell_bytes=(32, 16),
    ),
    "dvae": TrainerSpec(
        "tealeaves.models.neural.dvae:fit",
        "Dirichlet VAE (Burkhardt & Kramer 2019) as Hoyle et al. 2021 reimplemented it (PyTorch)",
        "neural",
        ("torch",),
    ),
    "etm": TrainerSpec(
        "tealeaves.models.neural.etm:fit",
        "Embedded Topic Model (Dieng et al. 2020) with skip-gram embeddings of the corpus (PyTorch, gensim)",
        "neural",
        ("torch", "gensim"),
    ),
}
"""The trainers by name, for :func:`train`: where each ``fit`` lives (loaded on first use), what
it is, and the extra it needs beyond the core (``neural`` for PyTorch)."""


def trainer_params(model: str) -> dict[str, Any]:
    """The hyperparameters a trainer accepts, with their defaults.

    Parameters
    ----------
    model : str
        A trainer of :data:`TRAINERS`.

    Returns
    -------
    dict
        Each keyword-only parameter of the trainer's ``fit`` and its default: the names that
        :func:`train` accepts as ``**params``.

    Raises
    ------
    InputError
        For an unknown trainer; MissingDependencyError when its extra is not installed.

    Examples
    --------
    >>> from tealeaves.models import trainer_params
    >>> trainer_params("plsi")
    {'iterations': 200, 'smoothing': 1.0, 'beta': 0.01}
    """
    signature = inspect.signature(_spec(model).load())
    return {name: p.default for name, p in signature.parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}


def trainer_rules(model: str) -> dict[str, Rule]:
    """The ranges and choices of a trainer's hyperparameters: the ``RULES`` beside its ``fit``.

    Parameters
    ----------
    model : str
        A trainer of :data:`TRAINERS`.

    Returns
    -------
    dict of str to Rule
        Each hyperparameter with a range or choices, and its :class:`~tealeaves.models.hyperparameters.Rule`
        (and ``k``'s, where a trainer needs more than one topic); :func:`train` and a sweep's configuration
        check them before any work.

    Raises
    ------
    InputError
        For an unknown trainer.

    Examples
    --------
    >>> from tealeaves.models import trainer_rules
    >>> {name: rule.describe(name) for name, rule in trainer_rules("plsi").items()}
    {'iterations': 'iterations >= 1 (a whole number)', 'smoothing': 'smoothing > 0 (Chang et al. use 1)', 'beta': 'beta > 0'}
    """
    return dict(getattr(_spec(model).module(), "RULES", {}))  # a trainer registered without rules: none


def train(
    corpus: Corpus | str | os.PathLike[str] | Any,
    model: str = "lda-gibbs",
    k: int = 20,
    seed: int = 0,
    out: str | os.PathLike[str] | None = None,
    force: bool = False,
    progress: ProgressCallback | None = None,
    **params: Any,
) -> TopicModel:
    """Train a topic model of kind ``model`` with ``k`` topics on ``corpus``.

    The run is timed, and the model's manifest records the seed and the training corpus'
    fingerprint (``manifest["training"]``).

    Parameters
    ----------
    corpus : Corpus, path, or texts
        The training corpus, its folder (``tealeaves prepare``), or texts as
        :func:`~tealeaves.corpus.as_corpus` reads them: gensim's token lists (one list of words
        per document) or a Dictionary with its bag-of-words corpus.
    model : str
        A trainer of :data:`TRAINERS`: ``lda-gibbs``, ``lda-vb``, ``plsi``, ``ctm``, ``dvae``,
        ``etm``.
    k : int
        Number of topics.
    seed : int
        Seed of the trainer's random draws.
    out : path, optional
        Also save the model there (atomically).
    force : bool
        Replace an existing ``out`` folder.
    progress : callable, optional
        Receives the trainer's progress updates.
    **params
        The trainer's hyperparameters (see :func:`trainer_params`); unknown names are refused.

    Returns
    -------
    TopicModel

    Raises
    ------
    InputError
        For an unknown trainer or parameter, texts :func:`~tealeaves.corpus.as_corpus` cannot read, ``k`` < 1, or a model whose matrices alone need more
        memory than the machine has available (a ``k`` or a vocabulary too large: refused before
        any of it is allocated, where the system would otherwise kill the process); EmptyResultError
        for a corpus without tokens.

    Examples
    --------
    Two topics from six short documents on two subjects:

    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models import train
    >>> vocab = Vocabulary(["tax", "budget", "deficit", "war", "peace", "army"])
    >>> docs = [[0, 1, 2, 0, 1], [1, 2, 0, 2], [0, 0, 1, 2], [3, 4, 5, 3], [4, 3, 5, 5, 4], [5, 3, 4, 3]]
    >>> model = train(Corpus.from_documents(docs, vocab), "lda-gibbs", k=2, seed=0, iterations=20)
    >>> model
    TopicModel(kind='lda-gibbs', K=2, V=6)
    >>> sorted(sorted(topic) for topic in model.top_words(3))
    [['army', 'peace', 'war'], ['budget', 'deficit', 'tax']]
    >>> model.manifest["training"]["n_tokens"]
    26
    """
    spec = _spec(model)
    if not is_count(k):
        raise InputError(f"k must be a positive number of topics, got {k!r}")
    k = int(k)
    accepted = trainer_params(model)
    check_param_names(model, params, accepted)
    check_param_types(model, params, accepted)
    check_hyperparameters(model, trainer_rules(model), {"k": k, **params})
    if out is not None:
        check_writable(out, force, inputs=[corpus])
    corpus = as_corpus(corpus)
    if len(corpus) == 0 or corpus.n_tokens == 0:
        raise EmptyResultError("the training corpus has no tokens; prepare it with looser rules")
    _check_memory(model, k, len(corpus.vocab), len(corpus))
    started = time.perf_counter()
    fitted = spec.load()(corpus, k, seed=seed, progress=progress, **params)
    seconds = time.perf_counter() - started
    fitted.manifest.setdefault("training", {}).update(
        {
            "seconds": round(seconds, 3),
            "seed": seed,
            "corpus_fingerprint": corpus.fingerprint(),
            "n_docs": len(corpus),
            "n_tokens": corpus.n_tokens,
        }
    )
    fitted.extra[TRAINING_DOCUMENTS] = corpus.document_hashes()
    if out is not None:
        fitted.save(out, force=force)
    return fitted


def check_param_names(model: str, names: Iterable[str], accepted: Mapping[str, Any]) -> None:
    """Refuse the names a trainer does not have, each with the one it most likely meant: ours where the
    name is another tool's (``decay``, gensim's name for lda-vb's ``kappa``; ``num_topics``, for ``k``),
    else the closest by spelling."""
    unknown = sorted(set(names) - set(accepted))
    if not unknown:
        return
    named = with_guesses(unknown, accepted, named_elsewhere(trainer_rules(model)))
    raise InputError(f"{model} has no parameter {named}; its parameters are {', '.join(sorted(accepted))}")


def check_param_types(model: str, params: Mapping[str, Any], accepted: Mapping[str, Any]) -> None:
    """Refuse a hyperparameter of another type than its default: a whole number for an int, a finite real
    for a float (NaN would pass every range check), true or false for a bool, a string for a str; the
    command line's ``-p beta=abc`` arrives as the string ``'abc'``, a sweep's ``alpha_sum = "0.1"`` too. The
    ranges are the trainer's to check."""
    for name, value in params.items():
        default = accepted[name]
        if isinstance(default, bool):
            ok, wanted = isinstance(value, (bool, np.bool_)), "true or false"
        elif isinstance(default, int):
            ok, wanted = is_count(value, minimum=-(2**63)), "a whole number"
        elif isinstance(default, float):
            ok, wanted = is_real(value) and math.isfinite(value), "a finite number"
        elif isinstance(default, str):
            ok, wanted = isinstance(value, str), "a string"
        else:  # None: a corpus, a path, ... (the trainer reads it)
            continue
        if not ok:
            raise InputError(f"{model}'s {name} must be {wanted} (its default is {default!r}), got {value!r}")


def memory_needed(model: str, k: int, n_words: int, n_docs: int) -> int:
    """The least bytes trainer ``model`` holds at once with ``k`` topics, ``n_words`` words and ``n_docs`` documents.

    :math:`K (c_w V + c_d D)`, with :math:`(c_w, c_d)` the trainer's ``cell_bytes`` (:class:`TrainerSpec`):
    its topic-word and document-topic matrices alone, a lower bound of its peak (the tokens, the
    vocabulary and the rest come on top).

    Examples
    --------
    Gibbs LDA with 100,000 topics (a typo for 100) on the State of the Union paragraphs:

    >>> from tealeaves.models.training import memory_needed
    >>> round(memory_needed("lda-gibbs", 100_000, 4_023, 16_257) / 1e9, 1)
    40.6
    """
    per_word, per_document = _spec(model).cell_bytes
    return k * (per_word * n_words + per_document * n_docs)


def available_memory() -> int | None:
    """The bytes this process could still allocate: Linux's ``MemAvailable`` plus free swap (``/proc/meminfo``),
    elsewhere the physical memory (``os.sysconf``), or None where neither is known."""
    try:
        with open("/proc/meminfo", encoding="ascii") as lines:
            fields = dict(line.split(":", 1) for line in lines if ":" in line)
        return sum(int(fields[name].split()[0]) * 1024 for name in ("MemAvailable", "SwapFree"))
    except (OSError, KeyError, ValueError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _check_memory(model: str, k: int, n_words: int, n_docs: int) -> None:
    """Refuse a model whose matrices alone (:func:`memory_needed`) exceed :func:`available_memory`."""
    needed, available = memory_needed(model, k, n_words, n_docs), available_memory()
    if available is not None and needed > available:
        raise InputError(
            f"{model} with k = {k:,} topics over {n_words:,} words and {n_docs:,} documents needs at least "
            f"{needed / 1e9:.1f} GB of memory for its topic matrices, and {available / 1e9:.1f} GB is available: "
            "use fewer topics (k=<fewer>), or a smaller vocabulary (min_df=<a larger count> or max_df=<a smaller "
            "share> when preparing the corpus)"
        )


def _spec(model: str) -> TrainerSpec:
    """The trainer ``model``, refused in one line when its extra is not installed."""
    if not isinstance(model, str) or model not in TRAINERS:
        raise unknown_name("model", model, TRAINERS)
    spec = TRAINERS[model]
    if spec.extra is not None:
        require(spec.extra, *spec.modules, what=f"the {model} trainer")
    return spec
