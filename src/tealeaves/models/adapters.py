"""Topic models of other libraries as tealeaves reads them: live objects, their saved output, OCTIS's dict.

:func:`as_model` is the one conversion that every entry point calls (:func:`~tealeaves.coherence.score`,
:func:`~tealeaves.coherence.diversity`, :func:`~tealeaves.intrusion.auto_word_intrusion`,
:func:`~tealeaves.evaluate`, :func:`~tealeaves.models.import_model`), so a model trained in a
notebook is scored as it is:

| library | object | kind (inference) |
|---|---|---|
| gensim | ``LdaModel``, ``LdaMulticore``: λ, α, ``id2word`` | ``lda-vb`` (variational) |
| gensim | ``LdaSeqModel``: one time slice (``time_slice=``), α | ``dtm`` |
| gensim | ``Nmf``: ``get_topics()``, ``id2word`` | ``nmf`` (no prior) |
| scikit-learn | ``LatentDirichletAllocation`` or ``NMF`` with its vectorizer (a ``Pipeline``, a ``(model, vectorizer)`` pair, or ``vectorizer=``) | ``lda-vb`` / ``nmf`` (no prior) |
| tomotopy | ``LDAModel``, ``CTModel`` | ``lda-gibbs`` / ``ctm`` |
| BERTopic | a fitted ``BERTopic``: its c-TF-IDF (``c_tf_idf_``) and ``vectorizer_model`` | ``bertopic`` (no prior) |
| OCTIS | a model output dict: ``topics``, ``topic-word-matrix`` (K × V), ``topic-document-matrix`` (K × D) | ``octis``, or a :class:`Topics` without ``vocabulary=`` |

Each ``from_LIBRARY`` function reads one library's object into a :class:`Source` (words,
topic-word weights, prior, θ), which :func:`build_model` aligns to a vocabulary
(:func:`align_vocabulary`); the libraries are recognised by the attributes they have, so
nothing is imported to recognise them. Anything else is refused with one
:class:`~tealeaves.errors.InputError` naming what is accepted (:data:`ACCEPTED`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError, describe, is_count, is_real
from tealeaves.models.topic_model import TopicModel
from tealeaves.models.topics import TOPICS_NOT_STRINGS, Topics, gensim_printed_topics

DEFAULT_FLOOR = 1e-12
MASS_LOSS_WARNING = 0.05  # a topic losing more than this share of its mass to dropped words is warned about


class RenormalisationWarning(UserWarning):
    """Aligning an imported model to a vocabulary removed enough of a topic's probability mass
    that renormalising the rest changes what the model infers (θ̂, likelihoods)."""


ACCEPTED = (
    "a TopicModel, a Topics, word lists ([['tax', 'budget', ...], ...]), a gensim LdaModel, LdaMulticore, "
    "LdaSeqModel or Nmf, a scikit-learn LatentDirichletAllocation or NMF with its vectorizer (a Pipeline or a "
    "(model, vectorizer) pair), a tomotopy LDAModel or CTModel, a fitted BERTopic model, or an OCTIS model "
    "output (a dict of 'topics', 'topic-word-matrix', 'topic-document-matrix')"
)
"""What :func:`as_model` accepts, in the words of its refusal."""


# --------------------------------------------------------------------------- vocabulary alignment
def align_vocabulary(
    words: Sequence[str], weights: np.ndarray, vocab: Vocabulary, floor: float = DEFAULT_FLOOR
) -> tuple[np.ndarray, dict[str, Any]]:
    """Topic-word probabilities over ``vocab`` from non-negative ``weights`` (K x len(words)).

    Policy: each source topic is normalised to sum to 1 over its own words; words absent from
    ``vocab`` are dropped, and the share of each topic's mass they carried is reported; every
    zero probability, including those of ``vocab`` words the source lacks, is raised to
    ``floor``; each topic is then renormalised over ``vocab``. Returns Φ (K x len(vocab))
    and the report stored in the manifest.

    Renormalising divides a topic's kept probabilities by ``1 - dropped mass``: a topic that
    lost mass becomes more likely for every word it kept, so θ inferred with the aligned
    model can differ from the source library's (a document's dominant topic can change).
    A :class:`RenormalisationWarning` names every topic that lost more than
    ``MASS_LOSS_WARNING`` (5%) of its mass.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != len(words):
        raise InputError(f"the topic-word matrix has shape {weights.shape} but the vocabulary has {len(words)} words")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise InputError(
            "topic-word weights must be finite and non-negative (a model with signed loadings, such as LSI, has no topic-word distributions)"
        )
    totals = weights.sum(axis=1)
    if np.any(totals <= 0):
        raise InputError(f"topic {int(np.argmin(totals))} has no weight on any word")
    source = weights / totals[:, None]
    ids = np.array([vocab.get(w) for w in words], dtype=np.int64)
    kept = ids >= 0
    dropped_mass = source[:, ~kept].sum(axis=1)
    if np.any(dropped_mass >= 1.0 - 1e-12):
        worst = int(np.argmax(dropped_mass))
        raise InputError(f"topic {worst} has no mass on any word of the corpus vocabulary; is it the right corpus?")
    phi = np.zeros((weights.shape[0], len(vocab)))
    phi[:, ids[kept]] = source[:, kept]
    zeros = phi <= 0
    phi[zeros] = floor
    phi /= phi.sum(axis=1, keepdims=True)
    present = np.zeros(len(vocab), dtype=bool)
    present[ids[kept]] = True
    missing = [vocab.word(int(i)) for i in np.flatnonzero(~present)]
    dropped = [w for w, k in zip(words, kept) if not k]
    _warn_mass_loss(dropped_mass, dropped)
    report = {
        "policy": "source words not in the vocabulary are dropped; zero probabilities (and vocabulary words the "
        "source lacks) are raised to the floor; every topic is renormalised",
        "source_words": len(words),
        "vocabulary_words": len(vocab),
        "matched_words": int(kept.sum()),
        "dropped_words": len(dropped),
        "dropped_examples": dropped[:20],
        "dropped_mass_mean": float(dropped_mass.mean()),
        "dropped_mass_max": float(dropped_mass.max()),
        "dropped_mass_per_topic": dropped_mass,
        "missing_words": len(missing),
        "missing_examples": missing[:20],
        "floored_entries": int(zeros.sum()),
        "floor": floor,
        "topics_losing_over_5pct": np.flatnonzero(dropped_mass > MASS_LOSS_WARNING).tolist(),
    }
    return phi, report


def _warn_mass_loss(dropped_mass: np.ndarray, dropped: list[str]) -> None:
    """Warn when renormalisation scales a topic up by more than ``1 / (1 - MASS_LOSS_WARNING)``."""
    heavy = np.flatnonzero(dropped_mass > MASS_LOSS_WARNING)
    if not len(heavy):
        return
    worst = heavy[np.argsort(-dropped_mass[heavy])]
    shown = ", ".join(f"topic {k} {dropped_mass[k]:.1%}" for k in worst[:10])
    more = f" and {len(heavy) - 10} more" if len(heavy) > 10 else ""
    warnings.warn(
        f"{len(heavy)} topic(s) lost more than {MASS_LOSS_WARNING:.0%} of their probability mass to "
        f"{len(dropped)} source word(s) missing from the corpus vocabulary (e.g. {', '.join(dropped[:5])}): "
        f"{shown}{more}. Renormalising makes these topics likelier for every word they kept, so inferred "
        "θ can differ from the source model's; align to a corpus prepared like the model's training data",
        RenormalisationWarning,
        stacklevel=3,
    )


# --------------------------------------------------------------------------- what every library gives
class Source:
    """A model as read from a library, before alignment: words, weights and what else is known."""

    def __init__(
        self,
        kind: str,
        words: Sequence[str],
        weights: np.ndarray,
        alpha: np.ndarray | None = None,
        theta: np.ndarray | None = None,
        lambda_sum: np.ndarray | None = None,
        extra: dict[str, np.ndarray] | None = None,
        params: dict[str, Any] | None = None,
        note: str | None = None,
    ):
        if len(set(words)) != len(words):
            raise InputError("the source vocabulary lists a word twice; it cannot be aligned")
        self.kind, self.words, self.weights = kind, list(words), np.asarray(weights, dtype=np.float64)
        self.alpha = None if alpha is None else np.asarray(alpha, dtype=np.float64)
        self.theta = None if theta is None else np.asarray(theta, dtype=np.float64)
        self.lambda_sum = lambda_sum
        self.extra = dict(extra or {})
        self.params = dict(params or {})
        self.note = note

    def build(self, vocab: Vocabulary | None, floor: float, provenance: dict[str, Any]) -> TopicModel:
        """The TopicModel over ``vocab`` (the source's own words when None)."""
        target = Vocabulary(self.words) if vocab is None else vocab
        phi, report = align_vocabulary(self.words, self.weights, target, floor)
        extra = dict(self.extra)
        if self.lambda_sum is not None:
            # a Dirichlet renormalised to a subset of its categories is the Dirichlet of their parameters
            kept = np.array([target.get(w) >= 0 for w in self.words])
            extra["lambda_sum"] = self.weights[:, kept].sum(axis=1)
        k = self.weights.shape[0]
        alpha = self.alpha
        if alpha is not None and alpha.shape == ():
            alpha = np.full(k, float(alpha))
        theta = self.theta
        if theta is not None:
            theta = _normalise_rows(theta, "document-topic proportions")
        params = {**self.params, "k": k, "source": provenance["format"]}
        model = TopicModel(target, phi, alpha=alpha, theta=theta, kind=self.kind, params=params, extra=extra)
        model.manifest["import"] = {**provenance, "vocabulary_alignment": report}
        if self.note:
            model.manifest["import"]["note"] = self.note
        if theta is not None:
            model.manifest["import"]["theta"] = "rows are the source's training documents, in its order"
        return model


def _normalise_rows(matrix: np.ndarray, what: str) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise InputError(f"{what} must be a finite, non-negative matrix")
    totals = matrix.sum(axis=1, keepdims=True)
    if np.any(totals <= 0):
        raise InputError(f"{what}: row {int(np.argmin(totals))} sums to zero")
    return matrix / totals


# --------------------------------------------------------------------------- gensim
def from_gensim(model: Any, *, time_slice: int | None = None) -> Source:
    """A gensim ``LdaModel``/``LdaMulticore``, one time slice of an ``LdaSeqModel``, or an ``Nmf``.

    ``LdaModel``: Φ is λ / Σ_w λ with λ = ``model.state.get_lambda()`` (= η + the expected
    counts), α is ``model.alpha``; λ's row sums are kept so that variational inference
    applies (kind ``lda-vb``). ``LdaSeqModel`` (the dynamic topic model): Φ at time slice t is
    ``exp(e_log_prob[:, t])`` of each topic chain, normalised, as its ``print_topic(k, time=t)``
    computes it, and α its ``alphas`` (kind ``dtm``). ``Nmf``: Φ is each row of ``get_topics(normalize=False)``
    normalised, what its ``get_topics(normalize=True)`` gives (kind ``nmf``, no prior), as scikit-learn's NMF.

    Parameters
    ----------
    model : gensim LdaModel, LdaMulticore, LdaSeqModel or Nmf
        A trained model with its ``id2word`` dictionary.
    time_slice : int, optional
        The time slice of an ``LdaSeqModel`` (0 .. T - 1); required for one, refused for an ``LdaModel``.

    Returns
    -------
    Source
    """
    name = type(model).__name__
    if not hasattr(model, "topic_chains") and not hasattr(model, "state") and name != "Nmf":
        raise InputError(
            f"a gensim {name} is not a topic model tealeaves reads: pass an LdaModel, LdaMulticore, LdaSeqModel or Nmf"
        )
    if getattr(model, "id2word", None) is None or type(model.id2word).__name__ == "FakeDict":
        # trained without id2word=, gensim names each column by its number ("0", "1", ...)
        raise InputError(
            f"the gensim {name} has no id2word dictionary to name its columns, only their numbers; set "
            "model.id2word = <the Dictionary of its bags of words>, or train it with id2word="
        )
    if hasattr(model, "topic_chains"):
        return _gensim_time_slice(model, time_slice)
    if time_slice is not None:
        raise InputError(f"time_slice applies to gensim's LdaSeqModel, not to an {name}; leave it out")
    if name == "Nmf":
        weights = np.asarray(model.get_topics(normalize=False), dtype=np.float64)
        words = [str(model.id2word[i]) for i in range(weights.shape[1])]
        params = {"library": "gensim", "class": "Nmf", "generative": False}
        return Source("nmf", words, weights, params=params, note=NMF_NOTE)
    lam = np.asarray(model.state.get_lambda(), dtype=np.float64)
    words = [str(model.id2word[i]) for i in range(lam.shape[1])]
    eta = np.asarray(model.eta, dtype=np.float64).ravel()
    params = {"eta": float(eta[0]) if np.ptp(eta) == 0 else "asymmetric", "library": "gensim"}
    return Source("lda-vb", words, lam, alpha=np.asarray(model.alpha), lambda_sum=lam.sum(axis=1), params=params)


def _gensim_time_slice(model: Any, time_slice: int | None) -> Source:
    slices = int(model.num_time_slices)
    if not is_count(time_slice, 0) or time_slice >= slices:
        raise InputError(
            f"an LdaSeqModel has topics per time slice (0 to {slices - 1}): choose one with time_slice=T, "
            f"got {time_slice!r}"
        )
    log_prob = np.stack([np.asarray(chain.e_log_prob, dtype=np.float64)[:, time_slice] for chain in model.topic_chains])
    weights = np.exp(log_prob - log_prob.max(axis=1, keepdims=True))
    words = [str(model.id2word[i]) for i in range(weights.shape[1])]
    params = {"library": "gensim", "class": "LdaSeqModel", "time_slice": int(time_slice), "time_slices": slices}
    return Source("dtm", words, weights, alpha=np.asarray(model.alphas, dtype=np.float64), params=params)


# --------------------------------------------------------------------------- scikit-learn
NMF_NOTE = (
    "NMF is not a probabilistic topic model: it has no prior over topic proportions and no likelihood. "
    "Phi is each topic's row of weights (components_, get_topics()) normalised to sum to 1; likelihood-based "
    "evaluations do not apply."
)


def from_sklearn(model: Any, *, vectorizer: Any = None, vocabulary: Sequence[str] | None = None) -> Source:
    """A fitted scikit-learn ``LatentDirichletAllocation`` or ``NMF`` and the words of its columns.

    ``LatentDirichletAllocation``: λ is ``components_`` (the variational topic-word parameters,
    including ``topic_word_prior_``), α is ``doc_topic_prior_`` (kind ``lda-vb``). ``NMF``: Φ is
    each row of ``components_`` normalised (kind ``nmf``, no prior).

    Parameters
    ----------
    model : estimator, Pipeline, or a tuple, list or dict holding the estimator and its vectorizer
        The words come from the fitted vectorizer's ``get_feature_names_out()``.
    vectorizer : fitted vectorizer, optional
        When ``model`` is the estimator alone.
    vocabulary : sequence of str, optional
        The word of each column, in order, instead of a vectorizer.

    Returns
    -------
    Source
    """
    parts = _flatten(model)
    models = [p for p in parts if hasattr(p, "components_") or hasattr(p, "steps") or isinstance(p, (list, tuple))]
    if len(models) > 1 and not hasattr(model, "steps"):
        raise InputError(
            f"{describe(model)} holds {len(models)} models, not one model with its vectorizer: pass them one at a "
            "time (evaluate, and compare_word_intrusion, compare several)"
        )
    estimator = next((part for part in parts if hasattr(part, "components_")), None)
    if estimator is None:
        raise InputError(
            f"{describe(model)} holds no fitted LatentDirichletAllocation or NMF (no components_): fit it first"
        )
    if not hasattr(estimator, "doc_topic_prior_") and not hasattr(estimator, "reconstruction_err_"):
        raise InputError(
            f"a scikit-learn {type(estimator).__name__} has no topic-word distributions; tealeaves reads "
            "LatentDirichletAllocation and NMF"
        )
    vec = vectorizer or next((p for p in parts if hasattr(p, "get_feature_names_out") and p is not estimator), None)
    if isinstance(vocabulary, (str, os.PathLike)):
        raise InputError("vocabulary= is the words of the columns, a list; a vocabulary file is read by import_model")
    if vocabulary is not None:
        words = [str(w) for w in vocabulary]
    elif vec is not None:
        words = [str(w) for w in vec.get_feature_names_out()]
    else:
        raise InputError(
            f"a scikit-learn {type(estimator).__name__} has no vectorizer to say which word each column is: pass a "
            "Pipeline or a (model, vectorizer) pair, or vectorizer=<the fitted vectorizer>"
        )
    weights = np.asarray(estimator.components_, dtype=np.float64)
    if hasattr(estimator, "doc_topic_prior_"):
        params = {"eta": float(estimator.topic_word_prior_), "library": "scikit-learn"}
        params["method"] = estimator.learning_method
        alpha = np.asarray(estimator.doc_topic_prior_)
        return Source("lda-vb", words, weights, alpha=alpha, lambda_sum=weights.sum(axis=1), params=params)
    params = {"library": "scikit-learn", "class": "NMF", "generative": False}
    return Source("nmf", words, weights, params=params, note=NMF_NOTE)


def is_vectorizer_pair(obj: Any) -> bool:
    """Whether ``obj`` is one scikit-learn model given with its vectorizer: a tuple or list of two, exactly
    one of them a vectorizer (it has ``build_analyzer``). Such a pair is one model, not two runs or an array.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from tealeaves.models.adapters import is_vectorizer_pair
    >>> is_vectorizer_pair(("the model", CountVectorizer())), is_vectorizer_pair([[0.5, 0.5], [0.1, 0.9]])
    (True, False)
    """
    return isinstance(obj, (tuple, list)) and len(obj) == 2 and sum(hasattr(x, "build_analyzer") for x in obj) == 1


def _sklearn_parts(obj: Any) -> bool:
    """Whether ``obj`` is a fitted estimator with ``components_``, a Pipeline, or a small tuple, list or dict
    holding one, or holding scikit-learn objects (an estimator not fitted yet, which ``from_sklearn`` refuses
    in those words)."""
    if hasattr(obj, "components_") or hasattr(obj, "steps"):
        return True
    items = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (tuple, list)) and len(obj) <= 3 else ()
    return any(hasattr(item, "components_") or type(item).__module__.split(".")[0] == "sklearn" for item in items)


# --------------------------------------------------------------------------- tomotopy
def from_tomotopy(model: Any) -> Source:
    """A trained tomotopy ``LDAModel`` or ``CTModel``.

    ``LDAModel``: Φ from ``get_topic_word_dist`` over ``used_vocabs``, α from ``alpha``, kind
    ``lda-gibbs``. ``CTModel``: ``prior_mean`` and ``prior_cov`` too, kind ``ctm``. θ of the
    training documents comes along when the model holds them. Other tomotopy models (HDP, DMR,
    PA, ...) have other parameters and are refused.

    Parameters
    ----------
    model : tomotopy.LDAModel or tomotopy.CTModel

    Returns
    -------
    Source
    """
    import tomotopy as tp

    if type(model) not in (tp.LDAModel, tp.CTModel):
        raise InputError(
            f"a tomotopy {type(model).__name__} has other parameters than LDA's; tealeaves reads tomotopy LDAModel "
            "and CTModel"
        )
    words = list(model.used_vocabs)
    if not words:
        raise InputError(f"the tomotopy {type(model).__name__} has no vocabulary yet: add documents and train it first")
    weights = np.array([model.get_topic_word_dist(k) for k in range(model.k)], dtype=np.float64)
    theta = np.array([d.get_topic_dist() for d in model.docs], dtype=np.float64) if len(model.docs) else None
    params = {"eta": float(model.eta), "library": f"tomotopy {tp.__version__}", "class": type(model).__name__}
    if type(model) is tp.CTModel:
        mean = np.asarray(model.prior_mean, dtype=np.float64)
        cov = np.asarray(model.prior_cov, dtype=np.float64).reshape(model.k, model.k)
        return Source("ctm", words, weights, theta=theta, extra={"prior_mean": mean, "prior_cov": cov}, params=params)
    return Source("lda-gibbs", words, weights, alpha=np.asarray(model.alpha), theta=theta, params=params)


# --------------------------------------------------------------------------- BERTopic
BERTOPIC_NOTE = (
    "BERTopic is not a generative topic model: it has no prior over topic proportions and no likelihood. "
    "Phi is each topic's c-TF-IDF row normalised to sum to 1; likelihood-based evaluations do not apply."
)


def from_bertopic(model: Any, *, outliers: bool = False) -> Source:
    """A fitted BERTopic model: its c-TF-IDF matrix (``c_tf_idf_``) over the words of its ``vectorizer_model``.

    The outlier topic -1 (the first row when ``_outliers`` is 1) is left out unless ``outliers``.

    Parameters
    ----------
    model : bertopic.BERTopic
        Fitted (``fit`` or ``fit_transform``), so that ``c_tf_idf_`` is set.
    outliers : bool
        Keep the outlier topic.

    Returns
    -------
    Source
    """
    matrix = getattr(model, "c_tf_idf_", None)
    if matrix is None:
        raise InputError("the BERTopic model has no c-TF-IDF matrix (c_tf_idf_ is None): fit it first")
    words = [str(w) for w in model.vectorizer_model.get_feature_names_out()]
    dense = matrix.toarray() if hasattr(matrix, "toarray") else np.asarray(matrix)
    return bertopic_source(dense, words, bool(getattr(model, "_outliers", 0)), outliers)


def bertopic_source(matrix: np.ndarray, words: Sequence[str], has_outliers: bool, outliers: bool) -> Source:
    """The Source of a BERTopic c-TF-IDF matrix whose first row is the outlier topic when ``has_outliers``."""
    skip = int(has_outliers and not outliers)
    params = {"library": "BERTopic", "generative": False, "outlier_topic_included": bool(outliers)}
    return Source("bertopic", words, np.asarray(matrix, dtype=np.float64)[skip:], params=params, note=BERTOPIC_NOTE)


# --------------------------------------------------------------------------- OCTIS
def from_octis(
    model_output: Mapping[str, Any],
    *,
    vocabulary: Sequence[str] | Mapping[Any, str] | None = None,
    alpha: float | Sequence[float] | str | None = None,
) -> Source | Topics:
    """An OCTIS model output: the dict a model's ``train_model`` returns (or ``save_model_output`` saves).

    ``topics`` are the top words of each topic; ``topic-word-matrix`` (K × V) gives Φ after
    normalisation, ``topic-document-matrix`` (K × D) θ of the training documents. OCTIS keeps
    no vocabulary in the output, so without ``vocabulary`` the result is a :class:`Topics` of
    the ``topics`` lists (coherence, diversity and word intrusion need no more); with it, a
    model, checked against ``topics``: a vocabulary out of column order is refused.

    Parameters
    ----------
    model_output : dict
        ``"topics"`` (list of word lists; ``[word, weight]`` pairs as ``load_model_output``
        gives them are read too), ``"topic-word-matrix"``, ``"topic-document-matrix"``.
    vocabulary : sequence of str or dict of column to word, optional
        The word of each topic-word-matrix column (OCTIS's ``vocabulary.json`` maps column
        numbers to words).
    alpha : float, sequence of float or str, optional
        A Dirichlet prior to declare (OCTIS does not keep one), which enables Gibbs inference of θ.

    Returns
    -------
    Source or Topics
    """
    topics = model_output.get("topics")
    listed = None if topics is None else [_topic_words(topic, k) for k, topic in enumerate(topics)]
    if vocabulary is None:
        if listed is None:
            raise InputError(
                "an OCTIS model output without 'topics' needs vocabulary= (the word of each topic-word-matrix column)"
            )
        return Topics(tuple(tuple(t) for t in listed), name="octis", meta={"library": "OCTIS"})
    if "topic-word-matrix" not in model_output:
        raise InputError("the OCTIS model output has no 'topic-word-matrix'; leave vocabulary= out to read its topics")
    weights = np.asarray(model_output["topic-word-matrix"], dtype=np.float64)
    if isinstance(vocabulary, (str, os.PathLike)):
        raise InputError(
            "vocabulary= is the words of the columns (a list, or OCTIS's {column: word} dict); to read a vocabulary "
            "file, import the saved output: import_model('octis', path, vocabulary=file)"
        )
    if isinstance(vocabulary, Mapping):
        try:
            words = [str(vocabulary[key]) for key in sorted(vocabulary, key=int)]
        except (TypeError, ValueError):
            raise InputError("a vocabulary dict must map column numbers to words, as OCTIS's vocabulary.json") from None
    else:
        words = [str(w) for w in vocabulary]
    if weights.ndim != 2 or weights.shape[1] != len(words):
        raise InputError(f"the topic-word-matrix has shape {weights.shape} but the vocabulary has {len(words)} words")
    if listed is not None:
        _check_columns(weights, words, listed)
    theta = model_output.get("topic-document-matrix")
    theta = None if theta is None else np.asarray(theta, dtype=np.float64).T
    alpha_k = dirichlet_alpha(alpha, weights.shape[0])
    return Source("octis", words, weights, alpha=alpha_k, theta=theta, params={"library": "OCTIS"})


def _topic_words(topic: Any, k: int) -> list[str]:
    """A topic's words from word strings or ``(word, weight)`` pairs (gensim's, BERTopic's, OCTIS's), or gensim's
    printed topic (``'0.034*"tax" + 0.021*"budget" + ...'``)."""
    printed = gensim_printed_topics([topic]) if isinstance(topic, str) else None
    if printed is not None:
        return printed[0]
    if isinstance(topic, (str, bytes)) or not isinstance(topic, (Sequence, np.ndarray)):
        raise InputError(f"topic {k} is {describe(topic)}, not a list of words; give every topic as a list of words")
    words = []
    for item in topic:
        if isinstance(item, (tuple, list, np.ndarray)) and len(item) == 2 and isinstance(item[0], str):
            item = item[0]  # (word, weight)
        if not isinstance(item, str):
            raise InputError(f"topic {k} holds {item!r} ({describe(item)}); topic words must be strings")
        words.append(item)
    return words


def _check_columns(weights: np.ndarray, words: list[str], listed: list[list[str]]) -> None:
    """Refuse a vocabulary under which most topics' listed words are not their largest columns."""
    column = {w: i for i, w in enumerate(words)}
    agree = 0
    for row, topic in zip(weights, listed):
        ids = [column.get(w, -1) for w in topic]
        if topic and min(ids) >= 0:
            threshold = np.sort(row)[-len(topic)] if len(topic) <= len(row) else -np.inf
            agree += bool(np.all(row[ids] >= threshold))
    if agree * 2 < len(listed):
        raise InputError(
            f"the vocabulary does not name the topic-word-matrix columns: the listed top words of only {agree} of "
            f"{len(listed)} topics are their largest columns under it; pass the words in column order"
        )


# --------------------------------------------------------------------------- any of them
LIBRARIES: dict[str, Callable[..., Source | Topics]] = {
    "gensim": from_gensim,
    "sklearn": from_sklearn,
    "tomotopy": from_tomotopy,
    "bertopic": from_bertopic,
    "octis": from_octis,
}
"""The library adapters by the name of their :func:`~tealeaves.models.import_model` format."""


def library_of(obj: Any) -> str | None:
    """The library whose model ``obj`` is (a key of :data:`LIBRARIES`), recognised by its attributes; None otherwise.

    Parameters
    ----------
    obj : object
        Anything.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from tealeaves.models.adapters import library_of
    >>> library_of({"topics": [["tax", "budget"]], "topic-word-matrix": [[0.6, 0.4]]})
    'octis'
    >>> library_of([["tax", "budget"]]) is None
    True
    """
    if isinstance(obj, Mapping) and ("topics" in obj or "topic-word-matrix" in obj):
        return "octis"
    if hasattr(obj, "id2word") and (hasattr(obj, "state") or hasattr(obj, "topic_chains")):
        return "gensim"
    if hasattr(obj, "get_topic_word_dist") and hasattr(obj, "used_vocabs"):
        return "tomotopy"
    if hasattr(obj, "c_tf_idf_") and hasattr(obj, "vectorizer_model"):
        return "bertopic"
    if _sklearn_parts(obj):
        return "sklearn"
    package = type(obj).__module__.split(".")[0]
    return package if package in LIBRARIES else None


def as_model(
    obj: Any,
    *,
    vocab_from: Corpus | Vocabulary | str | os.PathLike[str] | None = None,
    floor: float = DEFAULT_FLOOR,
    **options: Any,
) -> TopicModel | Topics:
    """A TopicModel (or Topics) from anything a user scores: ours, word lists, or another library's model.

    Parameters
    ----------
    obj : object
        A :class:`TopicModel` or :class:`Topics` (returned as they are), word lists (a
        :class:`Topics`; a topic may be ``(word, weight)`` pairs, as gensim's ``show_topic``
        and BERTopic's ``get_topic`` give them, or gensim's printed ``0.034*"tax" + ...``; gensim's
        ``show_topics`` and ``print_topics``, ``(k, topic)`` pairs, are read when they list every
        topic in order), or a model of one of :data:`LIBRARIES` (the table of the module docstring).
    vocab_from : Corpus, Vocabulary or path, optional
        Align another library's model to this vocabulary (:func:`align_vocabulary`; without
        it the model keeps its own words), or report the topic words it lacks
        (``meta["import"]``); a TopicModel is returned as it is.
    floor : float
        The probability given to zero entries and missing words by the alignment.
    **options
        The library adapter's options: ``time_slice`` (gensim's ``LdaSeqModel``),
        ``vectorizer``, ``vocabulary`` (scikit-learn), ``outliers`` (BERTopic), ``vocabulary``,
        ``alpha`` (OCTIS).

    Returns
    -------
    TopicModel or Topics

    Raises
    ------
    InputError
        For anything else (:data:`ACCEPTED`), an option the object's library does not take, or
        a model the library adapter cannot read (unfitted, without its vocabulary, ...).

    Examples
    --------
    OCTIS's model output, with the vocabulary of its columns, is a model; without it, its topics:

    >>> from tealeaves.models import as_model
    >>> output = {"topics": [["tax", "budget"], ["war", "army"]], "topic-word-matrix": [[6, 3, 1, 0], [1, 0, 5, 4]]}
    >>> model = as_model(output, vocabulary=["tax", "budget", "war", "army"])
    >>> model, model.top_words(2)
    (TopicModel(kind='octis', K=2, V=4), [['tax', 'budget'], ['war', 'army']])
    >>> as_model(output).words
    (('tax', 'budget'), ('war', 'army'))
    >>> as_model(42)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: cannot read an int as topics: pass a TopicModel, a Topics, word lists ...
    """
    library = library_of(obj)
    if library is None:
        if options:
            raise InputError(f"option(s) {', '.join(sorted(options))} apply to other libraries' models, not to topics")
        if isinstance(obj, TopicModel):
            return obj
        topics = obj if isinstance(obj, Topics) else Topics(tuple(tuple(t) for t in _word_lists(obj)), name="topics")
        if vocab_from is None:
            return topics
        return build_model(topics, target_vocabulary(vocab_from), floor, {"format": "topics", "source": "topics"})
    adapter = LIBRARIES[library]
    check_options(library, adapter, options)
    source = adapter(obj, **options)
    provenance = {"format": library, "source": f"a {type(obj).__name__} in memory", "options": _plain(options)}
    return build_model(source, target_vocabulary(vocab_from), floor, provenance)


def as_topics(topics: Any, topn: int | None = None) -> Topics:
    """A :class:`Topics` from a TopicModel (its top ``topn`` words), Topics, word lists, or another library's model.

    Parameters
    ----------
    topics : TopicModel, Topics, sequence of sequence of str, or a model of another library
        A model (its most probable words), a Topics object, word lists in rank order, or
        anything :func:`~tealeaves.models.as_model` reads (a gensim ``LdaModel``, OCTIS's
        model output, ...).
    topn : int, optional
        Words kept per topic: the first ``topn`` (default: 10 for a model, every word
        otherwise); a topic with fewer words is refused.

    Returns
    -------
    Topics

    Raises
    ------
    InputError
        For a list of strings instead of word lists, an empty topic, a word listed twice in a
        topic, a topic shorter than ``topn``, or an object that is none of these.

    Examples
    --------
    >>> from tealeaves.models import as_topics
    >>> as_topics([["tax", "budget", "deficit"], ["war", "peace", "army"]], topn=2).words
    (('tax', 'budget'), ('war', 'peace'))

    A model gives its top words, most probable first:

    >>> import numpy as np
    >>> from tealeaves.corpus import Vocabulary
    >>> from tealeaves.models import TopicModel
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> model = TopicModel(Vocabulary(["tax", "budget", "war", "peace"]), phi, kind="example")
    >>> as_topics(model, topn=2)
    Topics(topics=2, words per topic=2, name=example)
    """
    model = as_model(topics)
    return model.topics(10 if topn is None else topn) if isinstance(model, TopicModel) else model.top(topn)


def check_options(library: str, reader: Callable[..., Any], options: Mapping[str, Any]) -> None:
    """Refuse options that ``reader`` (an adapter or a file importer of ``library``) does not take, naming those it does."""
    import inspect

    accepted = [n for n, p in inspect.signature(reader).parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise InputError(
            f"the {library} importer has no option {', '.join(unknown)}; its options are {', '.join(accepted) or 'none'}"
        )


def build_model(
    source: Source | Topics, vocab: Vocabulary | None, floor: float, provenance: dict[str, Any]
) -> TopicModel | Topics:
    """The TopicModel of ``source`` aligned to ``vocab`` (a Topics with its words absent from ``vocab`` reported)."""
    if isinstance(source, Topics):
        return _topics_against(source, vocab, provenance)
    return source.build(vocab, floor, provenance)


def _word_lists(obj: Any) -> list[list[str]]:
    """The topics of word lists, or the one refusal naming what :func:`as_model` accepts."""
    if isinstance(obj, (str, bytes, Mapping)) or not isinstance(obj, (Sequence, np.ndarray)):
        raise InputError(f"cannot read {describe(obj)} as topics: pass {ACCEPTED}")
    if isinstance(obj, np.ndarray) and obj.ndim == 2 and obj.dtype.kind in "fiu":
        raise InputError(
            f"an array of {obj.shape[0]} x {obj.shape[1]} topic-word weights names no words: pass the model itself, "
            "or TopicModel(Vocabulary(words), weights) with the word of each column"
        )
    if len(obj) and all(isinstance(t, str) for t in obj) and gensim_printed_topics(list(obj)) is None:
        raise InputError(TOPICS_NOT_STRINGS)
    return [_topic_words(topic, k) for k, topic in enumerate(_unnumbered(obj))]


def _unnumbered(obj: Sequence[Any] | np.ndarray) -> Sequence[Any] | np.ndarray:
    """The topics of gensim's ``show_topics`` and ``print_topics``, ``(k, topic)`` pairs, without their numbers
    ``k``, which must be 0 to K - 1 in order; its ``top_topics``, ordered by coherence, is refused."""
    if not len(obj) or not all(isinstance(t, tuple) and len(t) == 2 for t in obj):
        return obj
    if all(is_count(t[0], minimum=0) for t in obj):
        numbers = [int(t[0]) for t in obj]
        if numbers != list(range(len(obj))):
            raise InputError(
                f"these are topics {', '.join(map(str, numbers[:10]))}{', ...' if len(numbers) > 10 else ''} of a "
                "model, not all of its topics in order (gensim's show_topics lists 10 by default): pass the model "
                "itself, or show_topics(num_topics=-1, formatted=False)"
            )
        return [t[1] for t in obj]
    if all(isinstance(t[0], list) and is_real(t[1]) for t in obj):
        raise InputError(
            "gensim's top_topics lists topics by coherence, without their numbers: pass the model itself, or "
            "[model.show_topic(k, topn=10) for k in range(model.num_topics)]"
        )
    return obj


def _plain(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options as the manifest records them: an object by its class name."""
    simple = (str, int, float, bool, type(None))
    return {k: v if isinstance(v, simple) else describe(v) for k, v in options.items()}


def _flatten(obj: Any) -> list[Any]:
    """The object, or the steps of a Pipeline, or the items of a tuple/list/dict."""
    if hasattr(obj, "steps"):
        return [step for _, step in obj.steps]
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return [obj]


def dirichlet_alpha(alpha: float | Sequence[float] | str | None, k: int) -> np.ndarray | None:
    """A declared Dirichlet prior: one number or ``k`` of them (a string: comma-separated), checked positive."""
    if alpha is None:
        return None
    if isinstance(alpha, str):
        try:
            alpha = [float(x) for x in alpha.split(",")]
        except ValueError:
            raise InputError(f"alpha must be a number or K comma-separated numbers, got {alpha!r}") from None
    values = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    if values.size == 1:
        values = np.full(k, float(values[0]))
    if values.shape != (k,) or not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise InputError(f"alpha must be one positive number or {k} of them (one per topic)")
    return values


def _topics_against(topics: Topics, vocab: Vocabulary | None, provenance: dict[str, Any]) -> Topics:
    """Report the topic words absent from ``vocab`` (coherence and intrusion apply their own policy)."""
    meta = {**topics.meta, "import": provenance}
    if vocab is not None:
        missing = sorted({w for topic in topics.words for w in topic if w not in vocab})
        meta["import"]["vocabulary_alignment"] = {
            "policy": "topic words are kept as given; words not in the vocabulary are reported",
            "missing_words": len(missing),
            "missing_examples": missing[:20],
        }
    return Topics(topics.words, name=topics.name, meta=meta)


def target_vocabulary(vocab_from: Corpus | Vocabulary | str | os.PathLike[str] | None) -> Vocabulary | None:
    """The vocabulary to align to: a Vocabulary, a Corpus' or a corpus folder's (None: the source's own)."""
    if vocab_from is None or isinstance(vocab_from, Vocabulary):
        return vocab_from
    if isinstance(vocab_from, Corpus):
        return vocab_from.vocab
    return Corpus.load(vocab_from).vocab
