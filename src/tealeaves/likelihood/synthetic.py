"""Synthetic data (Wallach et al. 2009, §6.1) and the sensitivity to perturbed Φ and m (§6.4).

Synthetic corpora are drawn from LDA's generative process with given Φ and αm (e.g. those of a
model trained on real text, "to make the statistics of the synthetic documents as close as
possible to real documents"): θ_d ~ Dir(αm), z_n ~ θ_d, w_n ~ φ_{z_n}, every document with the
same fixed length.

The perturbation study interpolates towards random parameters, λ in {0, .25, .5, .75}:
Φ_λ = (1 - λ) Φ + λ Φ' with each φ'_t ~ Dir(1, ..., 1) (a uniformly random distribution over
words), and m_λ = (1 - λ) m + λ m' with m' ~ Dir(1, ..., 1) and the concentration α unchanged;
each evaluator is run on every perturbed model and reported as the log ratio
Σ_d log P_λ - Σ_d log P_0 (Figure 3).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves import display
from tealeaves.artifacts import new_manifest
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError, is_count
from tealeaves.jit import batches, map_threads
from tealeaves.likelihood import _kernels
from tealeaves.likelihood.completion import complete
from tealeaves.likelihood.documents import Docs, check_alpha, check_phi, model_arrays
from tealeaves.likelihood.estimation import estimate
from tealeaves.likelihood.result import LikelihoodResult
from tealeaves.models import TopicModel
from tealeaves.results import Columns, Result
from tealeaves.rng import as_seed, family_generator, family_seed

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

Evaluator = Callable[..., LikelihoodResult]
PERTURBATION_LAMBDAS = (0.0, 0.25, 0.5, 0.75)


def synthetic_corpus(
    phi: TopicModel | ArrayLike,
    alpha: ArrayLike | None,
    n_docs: int,
    doc_length: int,
    seed: int | np.random.Generator = 0,
) -> Corpus:
    """``n_docs`` documents of exactly ``doc_length`` tokens drawn from LDA with Φ and αm (§6.1).

    θ_d ~ Dir(αm), z_n ~ θ_d, w_n ~ φ_{z_n}. Document d is drawn from stream d of this
    function's own stream family under ``seed`` (:func:`tealeaves.rng.family_seed`), so an
    estimator called with the same seed never reuses the draws that generated the documents.

    Parameters
    ----------
    phi : TopicModel or array-like of shape (K, V)
        Topic-word probabilities (a TopicModel also supplies αm and its vocabulary).
    alpha : array-like of shape (K,) or None
        The Dirichlet prior αm (None: the model's).
    n_docs : int
        Number of documents.
    doc_length : int
        Tokens per document.
    seed : int or Generator
        Seed of the draws.

    Returns
    -------
    Corpus
        Documents ``synthetic-0``, ``synthetic-1``, ... over the model's vocabulary when ``phi``
        is a TopicModel, otherwise words named by their ids; its manifest records the generator.

    Examples
    --------
    >>> from tealeaves.corpus import Vocabulary
    >>> from tealeaves.likelihood import synthetic_corpus
    >>> from tealeaves.models import TopicModel
    >>> import numpy as np
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> alpha = np.array([0.5, 0.5])
    >>> model = TopicModel(Vocabulary(["tax", "budget", "war", "peace"]), phi, alpha=alpha)
    >>> corpus = synthetic_corpus(model, None, n_docs=3, doc_length=5, seed=0)
    >>> corpus
    Corpus(3 documents, 15 tokens, 4 words)
    >>> [[corpus.vocab.words[i] for i in corpus.doc(d)] for d in range(3)]  # α = Σ αm = 1: most lean to one topic
    [['budget', 'budget', 'budget', 'tax', 'budget'],
     ['tax', 'tax', 'peace', 'peace', 'budget'],
     ['war', 'peace', 'peace', 'war', 'war']]
    """
    vocab = phi.vocab if isinstance(phi, TopicModel) else None
    phi, alpha, _ = model_arrays(phi, alpha, "synthetic data")
    for name, value in (("n_docs", n_docs), ("doc_length", doc_length)):
        if not is_count(value):
            raise InputError(f"{name} must be a positive integer, got {value!r}")
    seed = as_seed(seed)
    phi_cum, lengths, family = (
        np.cumsum(phi, axis=1),
        np.full(n_docs, doc_length, dtype=np.int64),
        family_seed(seed, "synthetic corpus"),
    )
    parts = map_threads(
        lambda span: _kernels.sample_documents(phi_cum, alpha, lengths[span[0] : span[1]], family, span[0]),
        batches(n_docs),
    )
    tokens, offsets = np.concatenate(parts), np.concatenate([[0], np.cumsum(lengths)])
    vocab = vocab or Vocabulary(str(i) for i in range(phi.shape[1]))
    manifest = new_manifest(
        "corpus", synthetic={"k": phi.shape[0], "n_docs": n_docs, "doc_length": doc_length, "seed": seed}
    )
    return Corpus(vocab, tokens, offsets, ids=[f"synthetic-{d}" for d in range(n_docs)], manifest=manifest)


def perturb_topics(phi: ArrayLike, lam: float, seed: int | np.random.Generator = 0) -> np.ndarray:
    """(1 - λ) Φ + λ Φ' with rows φ'_t ~ Dir(1, ..., 1) drawn from this function's stream family under ``seed`` (§6.4).

    Parameters
    ----------
    phi : array-like of shape (K, V)
        Topic-word probabilities.
    lam : float
        The interpolation weight λ, in [0, 1).
    seed : int or Generator
        Seed of the random topics Φ'.

    Returns
    -------
    ndarray of shape (K, V)
        The perturbed topics, rows summing to 1 (values that underflow to 0 are raised to the
        smallest positive float).

    Examples
    --------
    >>> from tealeaves.likelihood import perturb_topics
    >>> import numpy as np
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> alpha = np.array([0.5, 0.5])
    >>> perturbed = perturb_topics(phi, 0.5, seed=0)
    >>> perturbed.round(3)
    array([[0.326, 0.517, 0.073, 0.084],
           [0.138, 0.295, 0.26 , 0.306]])
    >>> perturbed.sum(axis=1)
    array([1., 1.])
    >>> bool(np.array_equal(perturb_topics(phi, 0.0), phi))  # λ = 0 leaves Φ as it is
    True
    """
    phi = check_phi(phi)
    lam = _interpolation(lam)
    random_topics = family_generator(seed, "perturb topics").dirichlet(np.ones(phi.shape[1]), size=phi.shape[0])
    mixed = (1 - lam) * phi + lam * random_topics
    positive = np.maximum(mixed, np.finfo(np.float64).tiny)  # Dir(1) draws can underflow to 0
    return positive / positive.sum(axis=1, keepdims=True)


def perturb_base_measure(alpha: ArrayLike, lam: float, seed: int | np.random.Generator = 0) -> np.ndarray:
    """α((1 - λ) m + λ m') with m' ~ Dir(1, ..., 1) from this function's stream family under ``seed``; α = Σ αm is kept (§6.4).

    Parameters
    ----------
    alpha : array-like of shape (K,)
        The Dirichlet prior αm.
    lam : float
        The interpolation weight λ, in [0, 1).
    seed : int or Generator
        Seed of the random base measure m'.

    Returns
    -------
    ndarray of shape (K,)
        The perturbed prior, with the same concentration α = Σ αm.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.likelihood import perturb_base_measure
    >>> perturbed = perturb_base_measure(np.array([0.5, 0.5]), 0.5, seed=0)
    >>> perturbed.round(4), float(perturbed.sum())
    (array([0.3451, 0.6549]), 1.0)
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    alpha = check_alpha(alpha, len(alpha), "perturbing the base measure")
    lam = _interpolation(lam)
    concentration = alpha.sum()
    random_measure = family_generator(seed, "perturb base measure").dirichlet(np.ones(len(alpha)))
    mixed = (1 - lam) * alpha / concentration + lam * random_measure
    return concentration * np.maximum(mixed, np.finfo(np.float64).tiny)


def figure_3_evaluators() -> dict[str, Evaluator]:
    """The estimators of Figure 3: estimated θ (completion), IS-PT and left-to-right (sis).

    Returns
    -------
    dict of str to callable
        Label to evaluator ``(phi, alpha, docs, seed=..., **options) -> LikelihoodResult``, the
        default of :func:`perturbation_study`.

    Examples
    --------
    >>> from tealeaves.likelihood import figure_3_evaluators
    >>> evaluators = figure_3_evaluators()
    >>> list(evaluators)
    ['ET (completion)', 'IS-PT', 'LR']
    >>> evaluators["IS-PT"].keywords
    {'method': 'is-prior-theta'}
    """
    return {
        "ET (completion)": functools.partial(complete, method="estimated-theta"),
        "IS-PT": functools.partial(estimate, method="is-prior-theta"),
        "LR": functools.partial(estimate, method="left-to-right"),
    }


@dataclass(frozen=True)
class PerturbationResult(Result):
    """Total log probabilities under perturbed Φ or m, one row per (target, λ, evaluator).

    Attributes
    ----------
    target : tuple of str
        ``"phi"`` (Φ perturbed) or ``"m"`` (the base measure perturbed), per row.
    lam : tuple of float
        The interpolation weight λ, per row.
    evaluator : tuple of str
        The evaluator's label, per row.
    total : tuple of float
        Σ_d log P_λ(w^(d)) by that evaluator.
    log_ratio : tuple of float
        Σ_d log P_λ - Σ_d log P_0 for the same target and evaluator (Figure 3).

    Examples
    --------
    >>> import functools
    >>> from tealeaves.likelihood import estimate, perturbation_study
    >>> import numpy as np
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> alpha = np.array([0.5, 0.5])
    >>> evaluators = {"LR": functools.partial(estimate, method="left-to-right", particles=100)}
    >>> result = perturbation_study(phi, alpha, [[0, 1, 3], [2, 3, 3, 2]], evaluators, lambdas=[0.5], seed=0)
    >>> list(result.columns())
    ['target', 'lam', 'evaluator', 'total', 'log_ratio']
    >>> result.target, result.lam
    (('phi', 'phi', 'm', 'm'), (0.0, 0.5, 0.0, 0.5))
    >>> [round(v, 4) for v in result.log_ratio]
    [0.0, -1.3511, 0.0, 0.1998]
    """

    target: tuple[str, ...]
    lam: tuple[float, ...]
    evaluator: tuple[str, ...]
    total: tuple[float, ...]
    log_ratio: tuple[float, ...]

    def summary(self) -> dict[str, Any]:
        """What was perturbed, the λ values and the evaluators, with the number of rows."""
        return {
            "targets": ", ".join(dict.fromkeys(self.target)),
            "lambdas": ", ".join(display.number(v) for v in dict.fromkeys(self.lam)),
            "evaluators": ", ".join(dict.fromkeys(self.evaluator)),
            "rows": len(self.total),
        }

    def columns(self) -> Columns:
        """Columns target ("phi" or "m"), lam, evaluator, total, log_ratio."""
        return {
            "target": self.target,
            "lam": self.lam,
            "evaluator": self.evaluator,
            "total": self.total,
            "log_ratio": self.log_ratio,
        }


def perturbation_study(
    phi: TopicModel | ArrayLike,
    alpha: ArrayLike | None,
    docs: Docs,
    evaluators: Mapping[str, Evaluator] | None = None,
    lambdas: Sequence[float] = PERTURBATION_LAMBDAS,
    seed: int | np.random.Generator = 0,
    **options: Any,
) -> PerturbationResult:
    """Figure 3: how each evaluator's total log probability moves as Φ and m are perturbed (§6.4).

    For each target (Φ by :func:`perturb_topics`, then m by :func:`perturb_base_measure`),
    each λ and each evaluator, the total Σ_d log P_λ(w^(d)) and its log ratio to λ = 0.

    Parameters
    ----------
    phi : TopicModel or array-like of shape (K, V)
        Topic-word probabilities (a TopicModel also supplies αm).
    alpha : array-like of shape (K,) or None
        The Dirichlet prior αm (None: the model's).
    docs : Corpus or list of int arrays
        The documents evaluated.
    evaluators : mapping of str to callable, optional
        Label to a function ``(phi, alpha, docs, seed=..., **options)`` returning a
        :class:`LikelihoodResult` (default: :func:`figure_3_evaluators`).
    lambdas : sequence of float
        Interpolation weights in [0, 1); λ = 0 is always evaluated, as the reference of the log
        ratios.
    seed : int or Generator
        Seed of the perturbations and of every evaluator.
    **options
        Passed to every evaluator (e.g. ``runs``).

    Returns
    -------
    PerturbationResult
        One row per (target, λ, evaluator).

    Examples
    --------
    Perturbing Φ halfway towards random topics lowers the probability of documents drawn
    from Φ's topics:

    >>> import functools
    >>> from tealeaves.likelihood import estimate, perturbation_study
    >>> import numpy as np
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> alpha = np.array([0.5, 0.5])
    >>> evaluators = {"LR": functools.partial(estimate, method="left-to-right", particles=100)}
    >>> result = perturbation_study(phi, alpha, [[0, 1, 3], [2, 3, 3, 2]], evaluators, lambdas=[0.5], seed=0)
    >>> [(t, lam, round(r, 4)) for t, lam, r in zip(result.target, result.lam, result.log_ratio)]
    [('phi', 0.0, 0.0), ('phi', 0.5, -1.3511), ('m', 0.0, 0.0), ('m', 0.5, 0.1998)]
    """
    phi, alpha, _ = model_arrays(phi, alpha, "the perturbation study")
    evaluators = dict(evaluators or figure_3_evaluators())
    if isinstance(lambdas, str) or not isinstance(lambdas, Iterable):
        raise InputError(f"lambdas must be a list of interpolation weights in [0, 1), e.g. [0.5], got {lambdas!r}")
    lambdas = sorted({0.0, *(_interpolation(x) for x in lambdas)})
    seed = as_seed(seed)
    rows: list[tuple[str, float, str, float]] = []
    for target in ("phi", "m"):
        for lam in lambdas:
            if target == "phi":
                model = (perturb_topics(phi, lam, seed), alpha)
            else:
                model = (phi, perturb_base_measure(alpha, lam, seed))
            for label, evaluate in evaluators.items():
                rows.append((target, lam, label, evaluate(*model, docs, seed=seed, **options).total))
    reference = {(t, label): total for t, lam, label, total in rows if lam == 0.0}
    return PerturbationResult(
        target=tuple(r[0] for r in rows),
        lam=tuple(r[1] for r in rows),
        evaluator=tuple(r[2] for r in rows),
        total=tuple(r[3] for r in rows),
        log_ratio=tuple(r[3] - reference[(r[0], r[2])] for r in rows),
    )


def _interpolation(lam: float) -> float:
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating)) or not 0.0 <= lam < 1.0:
        raise InputError(f"the interpolation weight λ must be a number in [0, 1), got {lam!r}")
    return float(lam)
