"""Inputs of the estimators: Φ, αm and held-out documents, checked once at the edge.

- Φ must be a K x V matrix of strictly positive, finite probabilities whose rows sum to 1:
  a zero would make log P(w) = -inf for any document using that word under every topic.
- αm must hold K positive, finite values (the asymmetric Dirichlet prior of Wallach et al.
  2009, eq. 2). Models without a Dirichlet prior (pLSI, CTM) have none, and every estimator
  of P(w | Φ, αm) refuses them; :func:`tealeaves.likelihood.predictive` evaluates them.
- Documents are a :class:`~tealeaves.corpus.Corpus` or a sequence of token-id arrays. Words
  outside the model's vocabulary follow ``on_missing``: ``"error"`` (the default) refuses the
  documents, ``"skip"`` drops those tokens and counts them per document (``n_oov``). There is
  no ``"zero"`` policy: a word of probability zero would make the log probability -inf.
  An empty document has probability 1 (log 0.0) and is kept with zero tokens.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.corpus import Corpus, Vocabulary, onto_vocabulary
from tealeaves.corpus.adapters import drop_missing
from tealeaves.deprecation import moved_names
from tealeaves.errors import InputError, describe
from tealeaves.missing import SKIP, OnMissingSkip, check_on_missing
from tealeaves.models import TopicModel
from tealeaves.models.topic_model import training_share

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__getattr__ = moved_names(__name__, {"OnMissing": "tealeaves.missing.OnMissingSkip"})
ROW_SUM_TOLERANCE = 1e-6

Docs = Corpus | str | os.PathLike[str] | Sequence["ArrayLike"]


@dataclass(frozen=True)
class Documents:
    """Validated token ids of the documents to score (all or part of a corpus).

    ``starts[d]`` tokens at the front of document ``d`` are observed and not scored (document
    completion); ``base`` is the index of the first document in the whole input, which fixes
    each document's random stream.
    """

    tokens: np.ndarray
    offsets: np.ndarray
    starts: np.ndarray
    ids: tuple[str, ...]
    n_oov: np.ndarray
    base: int = 0

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        """Tokens per document (observed and scored)."""
        return np.diff(self.offsets)

    @property
    def scored(self) -> np.ndarray:
        """Tokens scored per document."""
        return self.lengths - self.starts

    def batch(self, lo: int, hi: int) -> Documents:
        """Documents ``lo..hi-1`` with their offsets rebased and ``base`` set."""
        offsets = self.offsets[lo : hi + 1]
        return replace(
            self,
            tokens=self.tokens[offsets[0] : offsets[-1]],
            offsets=offsets - offsets[0],
            starts=self.starts[lo:hi],
            ids=self.ids[lo:hi],
            n_oov=self.n_oov[lo:hi],
            base=self.base + lo,
        )


def check_phi(phi: ArrayLike) -> np.ndarray:
    """Φ as a C-contiguous float64 K x V array; a clear error if it is not a positive stochastic matrix."""
    try:
        phi = np.ascontiguousarray(phi, dtype=np.float64)
    except (TypeError, ValueError) as exc:  # ragged lists, strings, objects
        raise InputError(
            f"phi must be a K x V matrix of topic-word probabilities or a topic model, got {describe(phi)} that is "
            f"neither ({exc})"
        ) from exc
    if phi.ndim != 2 or phi.shape[0] < 1 or phi.shape[1] < 1:
        raise InputError(f"phi must be a K x V matrix of topic-word probabilities, got shape {phi.shape}")
    if not np.all(np.isfinite(phi)):
        raise InputError("phi holds NaN or infinite values; pass the topic-word probabilities of a fitted model")
    bad = np.argwhere(phi <= 0)
    if len(bad):
        k, v = bad[0]
        raise InputError(
            f"phi must be strictly positive, but {len(bad)} entries are zero or negative (e.g. topic {k}, word {v}); "
            "smooth it first, e.g. (n_kw + beta) / (n_k + V beta), since a zero makes log P(w) -inf"
        )
    worst = float(np.max(np.abs(phi.sum(axis=1) - 1.0)))
    if worst > ROW_SUM_TOLERANCE:
        raise InputError(
            f"each row of phi must sum to 1 (a distribution over words); the worst row is off by {worst:.3g}: "
            "normalise it with phi / phi.sum(axis=1, keepdims=True)"
        )
    return phi


def check_alpha(alpha: ArrayLike | None, k: int, what: str, kind: str | None = None) -> np.ndarray:
    """αm as float64[K]; ``what`` names the method that needs it, for the error message."""
    if alpha is None:
        source = f"a model of kind {kind!r}" if kind else "alpha=None"
        raise InputError(
            f"{what} needs the Dirichlet prior αm over topic proportions, and {source} has none; "
            "pass alpha, or evaluate the model with tealeaves.likelihood.predictive (Chang et al. 2009, §4.2)"
        )
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    if alpha.shape != (k,) or not np.all(np.isfinite(alpha)) or np.any(alpha <= 0):
        raise InputError(f"alpha must hold {k} positive finite values (one per topic), got {alpha!r}")
    return alpha


class NotAMixtureError(InputError):
    """The model's decoder is not the mixture p(w | θ) = Σ_k θ_k φ_{k,w} that the estimators assume.

    Raised by the estimators of Wallach et al. (:func:`~tealeaves.likelihood.estimate`,
    :func:`~tealeaves.likelihood.complete`, ...) for a model whose ``params["mixture_decoder"]``
    is false (e.g. ``dvae``); an :class:`~tealeaves.errors.InputError`, so the CLI exits with 2.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.corpus import Vocabulary
    >>> from tealeaves.likelihood import NotAMixtureError, estimate
    >>> from tealeaves.models import TopicModel
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> model = TopicModel(vocab, phi, np.array([0.5, 0.5]), kind="dvae", params={"mixture_decoder": False})
    >>> try:
    ...     estimate(model, None, [[0, 1]])
    ... except NotAMixtureError as error:
    ...     print(str(error)[:72])
    left-to-right (LR) needs a model whose words are drawn from the mixture
    """


def check_mixture(model: TopicModel, what: str) -> None:
    """Refuse a model whose decoder is not a mixture of its topics (``params["mixture_decoder"]``
    false, e.g. ``dvae``: softmax(Bθ + b), with batch norm on the logits while training). Wallach
    et al.'s estimators integrate θ ~ Dirichlet(αm) out of Π_n Σ_k θ_k φ_{k,w_n}: with another
    decoder their numbers would be the likelihood of a different model."""
    if model.params.get("mixture_decoder", True) is False:
        raise NotAMixtureError(
            f"{what} needs a model whose words are drawn from the mixture Σ_k θ_k φ_k, and a {model.kind!r} "
            "model decodes softmax(Bθ + b) instead; evaluate it with tealeaves.likelihood.predictive "
            "(tealeaves predictive; Chang et al. 2009, §4.2, with the encoder's θ), coherence or intrusion"
        )


class TrainingDocumentsWarning(UserWarning):
    """The documents given to a held-out estimate are documents the model was trained on.

    Warned by :func:`~tealeaves.likelihood.estimate`, :func:`~tealeaves.likelihood.complete` and
    :func:`~tealeaves.likelihood.predictive` when at least 10% of the documents are documents the model
    was trained on (:meth:`~tealeaves.models.TopicModel.seen_documents`): its training corpus, or the
    held-out split of another ``prepare`` run; ``tealeaves evaluate`` refuses such a held-out corpus.

    Examples
    --------
    >>> import warnings
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.likelihood import TrainingDocumentsWarning, estimate
    >>> from tealeaves.models import train
    >>> corpus = Corpus.from_documents([[0, 1, 0], [2, 3, 2], [0, 1, 1]], Vocabulary(["tax", "budget", "war", "peace"]))
    >>> model = train(corpus, "lda-gibbs", k=2, iterations=20)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = estimate(model, None, corpus, particles=10)
    >>> caught[0].category is TrainingDocumentsWarning, str(caught[0].message)[:64]
    (True, 'all 3 documents are documents the lda-gibbs model was trained on')
    """


def warn_if_training_documents(model: Any, docs: Any, what: str, stacklevel: int = 3) -> None:
    """Warn (:class:`TrainingDocumentsWarning`) when ``docs`` are documents ``model`` was trained on, at
    least :data:`~tealeaves.models.topic_model.SEEN_LIMIT` of them
    (:func:`~tealeaves.models.topic_model.training_share`): ``what`` the caller estimates of them measures
    the model's fit there, which is higher than on documents it has not seen (Wallach et al. 2009 evaluate
    held-out documents). ``stacklevel`` is the caller's caller's, as :func:`warnings.warn` counts (one more
    under a decorator), so that the warning points at the user's line."""
    seen = training_share(model, docs)
    if seen is not None:
        warnings.warn(
            f"{seen} documents are documents the {model.kind} model was trained on: {what} of them measures its "
            "fit, not how it predicts documents it has not seen; pass the held-out split written beside its "
            "training split (tealeaves prepare --heldout writes both; the held-out split of another prepare run, "
            "with another seed or share, holds training documents)",
            TrainingDocumentsWarning,
            stacklevel=stacklevel,
        )


def as_topic_model(obj: Any, what: str) -> Any:
    """``obj`` as a :class:`~tealeaves.models.TopicModel` where it is another library's model (a gensim
    ``LdaModel``, a scikit-learn LDA with its vectorizer, ...: :func:`tealeaves.models.as_model`, which
    refuses in one line what it cannot read); a TopicModel and arrays as they are."""
    from tealeaves.models.adapters import is_vectorizer_pair

    if isinstance(obj, (TopicModel, np.ndarray)) or (isinstance(obj, (list, tuple)) and not is_vectorizer_pair(obj)):
        return obj
    from tealeaves.models import Topics, as_model

    model = as_model(obj)
    if isinstance(model, Topics):
        raise InputError(f"{what} needs topic-word probabilities; a {type(obj).__name__} gives only top words")
    return model


def model_arrays(
    phi: TopicModel | ArrayLike, alpha: ArrayLike | None, what: str
) -> tuple[np.ndarray, np.ndarray, Vocabulary | None]:
    """(Φ, αm, vocabulary) from a TopicModel (αm defaults to the model's), another library's model
    (:func:`as_topic_model`) or arrays."""
    phi = as_topic_model(phi, what)
    if isinstance(phi, TopicModel):
        model = phi
        check_mixture(model, what)
        return (
            check_phi(model.phi),
            check_alpha(model.alpha if alpha is None else alpha, model.k, what, model.kind),
            model.vocab,
        )
    checked = check_phi(phi)
    return checked, check_alpha(alpha, checked.shape[0], what), None


def as_documents(
    docs: Docs, n_words: int, on_missing: OnMissingSkip = "error", vocab: Vocabulary | None = None
) -> Documents:
    """Validate ``docs`` against a vocabulary of ``n_words`` words (``vocab``: the model's words).

    A corpus folder is loaded; a corpus over another vocabulary is mapped word by word onto ``vocab``; without ``vocab``
    (bare arrays) its vocabulary must have exactly ``n_words`` words. Texts as gensim keeps them
    (token lists, a Dictionary with its bags of words) are read as a corpus
    (:func:`tealeaves.corpus.as_corpus`) where the model has a vocabulary to map them onto.
    """
    check_on_missing(on_missing, SKIP, why="a word of probability zero has log -inf")
    if isinstance(docs, (str, os.PathLike)):  # a corpus folder
        docs = Corpus.load(docs)
    if vocab is not None and (isinstance(docs, Corpus) or _texts(docs)):
        corpus, n_oov = onto_vocabulary(docs, vocab, on_missing)
        tokens, offsets, ids = corpus.tokens, corpus.offsets, tuple(corpus.ids)
    else:
        if isinstance(docs, Corpus):
            if len(docs.vocab) != n_words:
                raise InputError(
                    f"the corpus has a vocabulary of {len(docs.vocab)} words but phi has {n_words} columns; "
                    "prepare the corpus with vocab_from=<the model's training corpus>, or pass the TopicModel itself"
                )
            tokens, offsets, ids = np.asarray(docs.tokens, dtype=np.int64), docs.offsets, tuple(docs.ids)
        else:
            tokens, offsets = _concatenate(docs)
            ids = tuple(str(i) for i in range(len(offsets) - 1))
        tokens, offsets, n_oov = drop_missing(
            tokens, offsets, (tokens < 0) | (tokens >= n_words), ids, n_words, on_missing
        )
    n_docs = len(offsets) - 1
    return Documents(
        tokens=np.ascontiguousarray(tokens, dtype=np.int32),
        offsets=np.ascontiguousarray(offsets, dtype=np.int64),
        starts=np.zeros(n_docs, dtype=np.int64),
        ids=ids,
        n_oov=n_oov,
    )


def _texts(docs: Any) -> bool:
    """Whether ``docs`` holds words rather than token ids: its first document is no sequence of integers
    (token strings, a bag of words' (id, count) pairs, or a gensim Dictionary first)."""
    if not isinstance(docs, (list, tuple)) or not docs:
        return False
    first = docs[0]
    if not isinstance(first, (list, tuple, np.ndarray)):
        return True
    tokens = list(first)
    return bool(tokens) and not isinstance(tokens[0], (int, np.integer))


def _concatenate(docs: Sequence[ArrayLike]) -> tuple[np.ndarray, np.ndarray]:
    if (
        isinstance(docs, (str, bytes))
        or (isinstance(docs, np.ndarray) and docs.ndim != 1)
        or not hasattr(docs, "__len__")
    ):
        raise InputError(
            "docs must be a Corpus or a corpus folder, token-id arrays (one per document), or with a TopicModel "
            "gensim's texts (token lists, or a Dictionary with its bags of words)"
        )
    if isinstance(docs, np.ndarray) and docs.dtype != object:
        raise InputError("docs is a single array; pass a list of documents, e.g. [doc], or a Corpus")
    arrays = []
    for i, doc in enumerate(docs):
        array = np.asarray(doc)
        if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
            raise InputError(f"document {i} must be a one-dimensional array of integer token ids, got {array!r:.80}")
        arrays.append(array.astype(np.int64))
    lengths = np.array([len(a) for a in arrays], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    tokens = np.concatenate(arrays) if arrays and offsets[-1] else np.zeros(0, dtype=np.int64)
    return tokens, offsets
