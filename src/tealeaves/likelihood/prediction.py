"""Chang et al. 2009, §4.2: predictive log likelihood and predictive rank with a plug-in θ̂.

Following Teh et al.'s approximation p(w_d | D_train) ≈ p(w_d | θ̂_d), for each test document
θ̂_d is the model's own point estimate (:meth:`tealeaves.models.TopicModel.infer`: the model
kind's inference, e.g. pLSI folding-in or a variational posterior mean, or Gibbs sampling with
Φ fixed under the Dirichlet prior), and for every word of the vocabulary

p(w | θ̂_d) = Σ_z p(w | z) p(z | θ̂_d) = Σ_z φ_{w|z} θ̂_{d,z}.

- predictive log likelihood: the mean over scored tokens of log p(w_n | θ̂_d) (natural log);
- predictive rank: for each document, the mean over the distinct words that appear in it of
  their rank among all V words ordered by p(w | θ̂_d), rank 1 the most probable (lower is
  better; a word's rank is one plus the number of words strictly more probable); then the mean
  over documents.

The documents may be a corpus over another vocabulary than the model's, or gensim's texts (token
lists, a Dictionary with its bags of words): their words are mapped onto the model's, and a word
the model lacks is refused or, with ``on_missing="skip"``, dropped and counted per document
(``n_oov``), as the held-out likelihood does (:mod:`tealeaves.likelihood.documents`).

Any model with an ``infer`` works, with or without a Dirichlet prior. As in Chang et al., θ̂_d is
inferred from the whole document by default; ``split`` infers it from one half
(:meth:`Corpus.halves`) and scores the other, which does not let θ̂ see the scored words.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tealeaves.corpus import HALVES_MODES, Corpus, onto_vocabulary
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.jit import batches, map_threads
from tealeaves.likelihood import _kernels
from tealeaves.likelihood.documents import as_topic_model, check_phi, warn_if_training_documents
from tealeaves.missing import SKIP, OnMissingSkip, check_on_missing
from tealeaves.models import TopicModel
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Columns, Result
from tealeaves.rng import as_seed


@dataclass(frozen=True)
class PredictiveResult(Result):
    """Per-document predictive log likelihood and rank under a plug-in θ̂ (Chang et al. 2009, §4.2).

    Attributes
    ----------
    model : str
        The model kind.
    split : str or None
        None: θ̂ from the whole document (as Chang et al.); otherwise the halves protocol used.
    ids : tuple of str
    log_likelihood : float64[D]
        Σ over the document's scored tokens of log p(w_n | θ̂_d).
    n_tokens : int64[D]
        Tokens scored.
    rank : float64[D]
        Mean rank of the document's distinct scored words (0 for a document with none).
    n_terms : int64[D]
        Distinct words scored.
    n_oov : int64[D]
        Tokens outside the model's vocabulary, dropped (``on_missing="skip"``); zeros otherwise.
    seed : int
        The seed of the inference.
    seconds : float
        Wall-clock time of inference and scoring.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.likelihood import predictive
    >>> from tealeaves.models import TopicModel
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> model = TopicModel(vocab, phi, alpha=np.array([0.5, 0.5]), kind="example")
    >>> result = predictive(model, Corpus.from_documents([[0, 1, 3], [2, 3, 3, 2]], vocab), seed=0)
    >>> result.n_tokens.tolist(), result.n_terms.tolist()
    ([3, 4], [3, 2])
    >>> print(result.summary()["theta from"], round(result.summary()["predictive rank"], 2))
    the whole document 1.75
    """

    model: str
    split: str | None
    ids: tuple[str, ...]
    log_likelihood: np.ndarray
    n_tokens: np.ndarray
    rank: np.ndarray
    n_terms: np.ndarray
    n_oov: np.ndarray
    seed: int
    seconds: float

    @property
    def log_likelihood_per_word(self) -> float:
        """Σ_d Σ_n log p(w_n | θ̂_d) / Σ_d N_d: the predictive log likelihood per word."""
        return float(self.log_likelihood.sum() / self.n_tokens.sum())

    @property
    def mean_rank(self) -> float:
        """The predictive rank: the mean over documents (with scored words) of their mean rank."""
        return float(self.rank[self.n_terms > 0].mean())

    def summary(self) -> dict[str, Any]:
        """The aggregates, as printed by the CLI."""
        return {
            "model": self.model,
            "theta from": "the whole document" if self.split is None else f"the observed half ({self.split})",
            "documents": len(self.ids),
            "tokens scored": int(self.n_tokens.sum()),
            **({"tokens outside the model's vocabulary (dropped)": int(self.n_oov.sum())} if self.n_oov.any() else {}),
            "predictive log likelihood per word": self.log_likelihood_per_word,
            "predictive rank": self.mean_rank,
            "seconds": self.seconds,
        }

    def to_dict(self) -> dict[str, Any]:
        """All fields plus ``log_likelihood_per_word`` and ``mean_rank``."""
        aggregates = {"log_likelihood_per_word": self.log_likelihood_per_word, "mean_rank": self.mean_rank}
        return {**super().to_dict(), **aggregates}

    def columns(self) -> Columns:
        """One row per document."""
        n = np.maximum(self.n_tokens, 1)
        return {
            "doc": np.arange(len(self.ids)),
            "id": list(self.ids),
            "n_tokens": self.n_tokens,
            "log_likelihood": self.log_likelihood,
            "log_likelihood_per_word": np.where(self.n_tokens > 0, self.log_likelihood / n, 0.0),
            "n_terms": self.n_terms,
            "rank": self.rank,
            "n_oov": self.n_oov,
        }


def predictive(
    model: TopicModel,
    corpus: Corpus,
    seed: int | np.random.Generator = 0,
    split: str | None = None,
    progress: ProgressCallback | None = None,
    on_missing: OnMissingSkip = "error",
    **infer_options: Any,
) -> PredictiveResult:
    """Chang et al.'s predictive log likelihood and predictive rank of ``model`` on ``corpus``.

    With θ̂_d from ``model.infer``, p(w | θ̂_d) = Σ_z φ_{w|z} θ̂_{d,z}; the predictive log
    likelihood is the mean over scored tokens of log p(w_n | θ̂_d), the predictive rank the
    mean over documents of the mean rank of their distinct words among all V words (rank 1
    the most probable; see the module docstring).

    Parameters
    ----------
    model : TopicModel
        Any model with an ``infer``, with or without a Dirichlet prior.
    corpus : Corpus or texts
        Test documents: a corpus prepared with the model's vocabulary (``--vocab-from``), or over
        another (its words mapped onto the model's), or gensim's texts
        (:func:`~tealeaves.corpus.as_corpus`).
    seed : int or Generator
        Seed of the inference (and of the ``random`` split).
    split : str, optional
        None (default, as Chang et al.): θ̂_d from the whole document. ``first-half``,
        ``alternate`` or ``random``: θ̂_d from one half (:meth:`Corpus.halves`), the other scored.
    progress : callable, optional
        Receives the inference's updates.
    on_missing : "error" or "skip"
        A word outside the model's vocabulary: refuse the documents (default), or drop it and
        count it per document (``n_oov``).
    **infer_options
        Passed to ``model.infer``.

    Returns
    -------
    PredictiveResult

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.likelihood import predictive
    >>> from tealeaves.models import TopicModel
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> model = TopicModel(vocab, phi, alpha=np.array([0.5, 0.5]), kind="example")
    >>> corpus = Corpus.from_documents([[0, 1, 3], [2, 3, 3, 2]], vocab)
    >>> result = predictive(model, corpus, seed=0)
    >>> round(result.log_likelihood_per_word, 4)
    -1.0814
    >>> result.rank.tolist(), result.mean_rank  # "war" and "peace" rank 2 and 1 in document 1
    ([2.0, 1.5], 1.75)
    """
    model = as_topic_model(model, "predictive")
    if not isinstance(model, TopicModel):
        raise InputError(f"predictive needs a TopicModel, got {type(model).__name__}")
    if split is not None and split not in HALVES_MODES:
        raise InputError(f"split must be None or one of {', '.join(HALVES_MODES)}, got {split!r}")
    phi = check_phi(model.phi)
    check_on_missing(on_missing, SKIP, why="a word of probability zero has log -inf")
    corpus, n_oov = onto_vocabulary(corpus, model.vocab, on_missing)
    warn_if_training_documents(model, corpus, "the predictive likelihood")
    seed = as_seed(seed)
    observed, scored = (corpus, corpus) if split is None else corpus.halves(split, seed)  # type: ignore[arg-type]
    if scored.n_tokens == 0:
        raise EmptyResultError("the corpus has no tokens to score; pass documents with words")
    started = time.perf_counter()
    theta = model.infer(observed, seed=seed, progress=progress, **infer_options)
    if theta.shape != (len(corpus), model.k) or not np.all(np.isfinite(theta)):
        raise InputError(
            f"{model.kind} inference returned θ of shape {theta.shape}, expected ({len(corpus)}, {model.k})"
        )
    tokens = np.ascontiguousarray(scored.tokens, dtype=np.int32)
    offsets = np.ascontiguousarray(scored.offsets, dtype=np.int64)
    theta = np.ascontiguousarray(theta, dtype=np.float64)

    def predict(span: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lo, hi = span
        first = offsets[lo]
        return _kernels.plug_in_predictive(tokens[first : offsets[hi]], offsets[lo : hi + 1] - first, theta[lo:hi], phi)

    parts = map_threads(predict, batches(len(corpus)))
    log_likelihood, rank_sum, n_terms = (np.concatenate(column) for column in zip(*parts, strict=True))
    notify(progress, "predictive", len(corpus), len(corpus))
    return PredictiveResult(
        model=model.kind,
        split=split,
        ids=tuple(corpus.ids),
        log_likelihood=log_likelihood,
        n_tokens=scored.doc_lengths(),
        rank=rank_sum / np.maximum(n_terms, 1),
        n_terms=n_terms,
        n_oov=n_oov,
        seed=seed,
        seconds=round(time.perf_counter() - started, 4),
    )
