"""Topic significance: how far each topic is from three "junk" distributions (AlSumait et al. 2009).

A topic that spreads its probability evenly over the vocabulary, that says no more than the
corpus' overall word distribution, or that is spread evenly over the documents is junk; the
further a topic is from each of these, the more significant it is. :func:`topic_significance`
computes the Kullback-Leibler divergence of every topic from the three, as OCTIS does
(``octis/evaluation_metrics/topic_significance_metrics.py``: ``KL_uniform``, ``KL_vacuous``,
``KL_background``), from the model alone: Φ and the documents' topic proportions θ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import rel_entr

from tealeaves import display
from tealeaves.errors import InputError, as_numbers, is_real
from tealeaves.results import Columns, Result
from tealeaves.topic_means import interval_label, mean_interval

if TYPE_CHECKING:
    from tealeaves.models.topic_model import TopicModel

OCTIS_EPSILON = 1e-5
"""What OCTIS's ``_KL`` adds to every probability of both distributions before the divergence."""

THETA_ROW_TOLERANCE = 1e-6
JUNK = {
    "kl_uniform": "W-Uniform (uniform over words)",
    "kl_vacuous": "W-Vacuous (the corpus' word distribution)",
    "kl_background": "D-BGround (uniform over documents)",
}
"""Each output of :func:`topic_significance` and the junk distribution it is the divergence from."""


@dataclass(frozen=True)
class SignificanceResult(Result):
    """Each topic's KL divergence from the three junk distributions of :func:`topic_significance`.

    Attributes
    ----------
    kl_uniform : float64[K]
        From the uniform distribution over the V words (W-Uniform), in nats; at most ln V.
    kl_vacuous : float64[K]
        From the vacuous distribution Σ_j p(j) φ_j (W-Vacuous), in nats.
    kl_background : float64[K]
        Of the topic's distribution over the documents from the uniform one (D-BGround), in
        nats; at most ln D.
    model_mean : dict of str to float
        The mean over topics of each (OCTIS's score of the model), by the names above.
    topics : tuple of tuple of str
        Each topic's ten most probable words.
    epsilon : float
        Added to every probability before the divergence (OCTIS's 1e-5; 0: the exact divergence).
    n_documents : int
        D, the documents of θ.
    n_words : int
        V, the vocabulary's size.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.corpus import Vocabulary
    >>> from tealeaves.models import TopicModel, topic_significance
    >>> phi = np.array([[0.7, 0.1, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25]])
    >>> theta = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
    >>> model = TopicModel(Vocabulary(["tax", "war", "farm", "school"]), phi, theta=theta)
    >>> result = topic_significance(model, epsilon=0)
    >>> result.kl_uniform.round(4)  # the second topic is uniform over the words: junk
    array([0.4458, 0.    ])
    >>> round(result.model_mean["kl_uniform"], 4)
    0.2229
    >>> result
    SignificanceResult(kl_uniform mean (95% CI, t over 2 topics)=0.2229 [0, 3.055], kl_vacuous mean (...)=0.1053 ...)
    >>> result.columns()["words"][0]
    'tax war farm school'
    """

    kl_uniform: np.ndarray
    kl_vacuous: np.ndarray
    kl_background: np.ndarray
    model_mean: dict[str, float]
    topics: tuple[tuple[str, ...], ...]
    epsilon: float
    n_documents: int
    n_words: int

    def summary(self) -> dict[str, Any]:
        """Each divergence's mean over topics with its 95% interval (:func:`tealeaves.topic_means.mean_interval`, kept
        at or above 0: a divergence is never negative), named by what the interval is; then topics, documents,
        words and ε."""
        values: dict[str, Any] = {
            f"{name} mean ({interval_label(getattr(self, name), bounds=(0.0, math.inf))})": mean_interval(
                getattr(self, name), (0.0, math.inf)
            )
            for name in JUNK
        }
        return {
            **values,
            "topics": len(self.kl_uniform),
            "documents": self.n_documents,
            "words": self.n_words,
            "epsilon": self.epsilon,
        }

    def columns(self) -> Columns:
        """One row per topic: its three divergences (nats) and its top words."""
        return {
            "topic": np.arange(len(self.kl_uniform)),
            **{name: getattr(self, name) for name in JUNK},
            "words": [" ".join(words) for words in self.topics],
        }


def topic_significance(
    model: TopicModel, theta: np.ndarray | None = None, *, epsilon: float = OCTIS_EPSILON
) -> SignificanceResult:
    """The KL divergence of each topic from AlSumait et al.'s three junk distributions, as OCTIS computes it.

    With Φ the K x V topic-word matrix, θ the D x K topic proportions of D documents, ε
    ``epsilon`` and :math:`KL_ε(p \\| q) = \\sum_i (p_i + ε) \\ln \\frac{p_i + ε}{q_i + ε}`
    (natural logarithms: nats), topic k's divergences are

    - W-Uniform: :math:`KL_ε(φ_k \\| 1/V)`, from the uniform distribution over the words;
    - W-Vacuous: :math:`KL_ε(φ_k \\| v)` with :math:`v_w = \\sum_j p(j)\\, φ_{j,w}` and
      :math:`p(j) = \\frac1D \\sum_d θ_{d,j}`: from the word distribution the model implies for
      the whole corpus, each topic weighted by its mean proportion over the documents;
    - D-BGround: :math:`KL_ε(ψ_k \\| 1/D)` with :math:`ψ_{k,d} = θ_{d,k} / \\sum_{d'} θ_{d',k}`,
      the topic's distribution over the documents, from the uniform one (a topic no document
      uses has ψ_k uniform, and divergence 0).

    Larger is more significant. The model's score is each divergence's mean over topics
    (``model_mean``). W-Uniform is at most ln V and D-BGround at most ln D, so values are
    comparable only between models over the same vocabulary and documents.

    Sources: AlSumait, Barbará, Gentle & Domeniconi (2009), "Topic significance ranking of LDA
    generative models", ECML PKDD, which defines the three junk distributions; OCTIS 1.14.0
    (``KL_uniform``, ``KL_vacuous``, ``KL_background`` in
    ``octis/evaluation_metrics/topic_significance_metrics.py``), whose formulas these are.

    Differences from the paper: the paper measures each distance three ways (symmetric KL
    divergence, cosine dissimilarity, correlation) and combines the nine distances into one
    significance score by a four-phase weighted combination; OCTIS, and this function, give
    the one-directional divergence of the topic from the junk distribution, smoothed by ε, and
    no combined score. Differences from OCTIS, all without effect on a model whose θ gives
    every topic some mass: θ is D x K here (OCTIS's ``topic-document-matrix`` is K x D); a
    topic with θ = 0 in every document gets p(j) = 0 in the vacuous distribution, where OCTIS,
    having replaced its row of θ by 1/D, gives it 1/D; OCTIS renormalises Φ's rows, which sum to
    1 here already; OCTIS returns only the mean of W-Vacuous and D-BGround, here every topic's
    value too. ``benchmarks/octis_metrics.py`` runs both on the same model.

    Parameters
    ----------
    model : TopicModel
        Φ, and θ of its training documents unless ``theta`` is given.
    theta : float64[D, K], optional
        Topic proportions of the documents W-Vacuous and D-BGround are over (rows summing to
        1), e.g. ``model.infer(corpus)``; default ``model.theta``.
    epsilon : float, default 1e-5
        Added to every probability of both distributions (OCTIS's ε, which keeps the
        divergence finite); 0 gives the exact divergence, finite here since every junk
        distribution is positive.

    Returns
    -------
    SignificanceResult

    Raises
    ------
    InputError
        For a model without θ and no ``theta``, a ``theta`` that is not D x K proportions, or a
        negative or non-finite ``epsilon``.

    Examples
    --------
    A topic only the first of three documents uses, and one all three do: with ε = 0, the
    first topic's distribution over the documents is (1, 0, 0), ln 3 = 1.0986 nats from the
    uniform one; the second's is (0.25, 1, 1) / 2.25, 0.1336 nats from it.

    >>> import numpy as np
    >>> from tealeaves.corpus import Vocabulary
    >>> from tealeaves.models import TopicModel, topic_significance
    >>> phi = np.array([[0.8, 0.1, 0.1], [0.1, 0.45, 0.45]])
    >>> theta = np.array([[0.75, 0.25], [0.0, 1.0], [0.0, 1.0]])
    >>> result = topic_significance(TopicModel(Vocabulary(["tax", "war", "farm"]), phi, theta=theta), epsilon=0)
    >>> result.kl_background.round(4)
    array([1.0986, 0.1336])
    >>> result.kl_vacuous.round(4)  # from v = 0.25 φ_0 + 0.75 φ_1 = (0.275, 0.3625, 0.3625)
    array([0.5967, 0.0934])

    OCTIS's ε = 1e-5, the default, moves the first value: ε ln(ε / (1/3 + ε)) = -0.0001 nats for
    each of the two documents without the topic.

    >>> topic_significance(TopicModel(Vocabulary(["tax", "war", "farm"]), phi, theta=theta)).kl_background.round(4)
    array([1.0984, 0.1336])
    """
    if not (is_real(epsilon) and np.isfinite(epsilon)) or epsilon < 0:
        raise InputError(f"epsilon must be a non-negative number, got {epsilon!r}")
    phi = model.phi
    k, v = phi.shape
    theta = _proportions(model, theta)
    d = len(theta)
    uniform_words = np.full((1, v), 1.0 / v)
    vacuous = (theta.mean(axis=0) @ phi)[None, :]
    totals = theta.sum(axis=0)
    used = totals > 0
    over_documents = np.full((k, d), 1.0 / d)
    over_documents[used] = theta[:, used].T / totals[used, None]
    divergences = {
        "kl_uniform": _kl(phi, uniform_words, epsilon),
        "kl_vacuous": _kl(phi, vacuous, epsilon),
        "kl_background": _kl(over_documents, np.full((1, d), 1.0 / d), epsilon),
    }
    return SignificanceResult(
        **divergences,
        model_mean={name: float(values.mean()) for name, values in divergences.items()},
        topics=tuple(tuple(words) for words in model.top_words(display.MAX_WORDS)),
        epsilon=float(epsilon),
        n_documents=d,
        n_words=v,
    )


def _kl(p: np.ndarray, q: np.ndarray, epsilon: float) -> np.ndarray:
    """:math:`\\sum_i (p_i + ε) \\ln((p_i + ε) / (q_i + ε))` of every row of ``p`` against ``q`` (0 ln 0 = 0)."""
    return rel_entr(p + epsilon, q + epsilon).sum(axis=1)


def _proportions(model: TopicModel, theta: np.ndarray | None) -> np.ndarray:
    """``theta`` (or the model's), checked to be D x K topic proportions."""
    if theta is None:
        if model.theta is None:
            raise InputError(
                f"the {model.kind} model has no θ of its training documents, which W-Vacuous and D-BGround are "
                "over; pass theta= (e.g. model.infer(corpus)), or on the command line --corpus CORPUS to infer it"
            )
        return model.theta
    theta = as_numbers(theta, "theta")
    if theta.ndim != 2 or theta.shape[1] != model.k or len(theta) == 0:
        raise InputError(f"theta must be a D x {model.k} matrix of topic proportions, got shape {theta.shape}")
    if not np.all(np.isfinite(theta)) or np.any(theta < 0):
        raise InputError("theta must hold non-negative finite topic proportions")
    worst = float(np.max(np.abs(theta.sum(axis=1) - 1.0)))
    if worst > THETA_ROW_TOLERANCE:
        raise InputError(f"theta's rows must sum to 1 within {THETA_ROW_TOLERANCE:g}; the worst is off by {worst:.3g}")
    return theta
