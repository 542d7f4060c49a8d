"""Any metric as a scikit-learn scorer: ``scoring=`` of ``GridSearchCV``, ``cross_val_score`` and the like.

scikit-learn chooses a ``LatentDirichletAllocation``'s settings by ``score``, the variational bound
of the held-out fold's log likelihood, where Chang et al. (2009) found that held-out likelihood and
what people judge coherent disagree. :func:`scorer` makes any metric of :data:`~tealeaves.metrics.METRICS`
a scorer, ``scorer(estimator, X, y=None) -> float``, as ``sklearn.metrics.make_scorer`` does: NPMI
or C_V on a reference corpus (Lau et al. 2014; Hoyle et al. 2021 select by NPMI), topic diversity,
WI-Auto, or Wallach et al.'s (2009) left-to-right estimate of the held-out fold's log likelihood per
token. The fitted estimator is read by :func:`tealeaves.models.as_model`; the fold's documents ``X``
are the texts a fitted ``Pipeline`` vectorizes (tokenized by its vectorizer's analyzer, in their word
order) or a document-term matrix of counts whose columns are the model's words.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.errors import InputError, describe, unknown_name
from tealeaves.metrics.measured import Inputs

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus
    from tealeaves.models import TopicModel


@dataclass(frozen=True)
class Scorer:
    """A metric's output as a scikit-learn scorer (what :func:`scorer` returns): greater is better.

    Called as ``scorer(estimator, X, y=None)``, it returns the output's value for the fitted
    ``estimator`` (the mean over topics, or the documents' ratio, as ``tealeaves evaluate``'s
    per-model table gives it), negated where lower is better (``predictive_rank``), as scikit-learn's
    ``neg_`` scorers are. A plain dataclass: it pickles, so ``GridSearchCV(n_jobs=...)`` can send it
    to its workers.

    Attributes
    ----------
    metric, output : str
        The metric (:func:`tealeaves.metrics.get_metric`) and which of its outputs.
    reference : RefIndex, path or None
        The reference corpus' index, for the metrics that read one.
    vocabulary : tuple of str or None
        The word of each column of a bare estimator's document-term matrix.
    seed : int
        The metric's seed.
    options : dict
        The metric's options, its defaults overridden.

    Examples
    --------
    >>> from tealeaves.metrics import scorer
    >>> scorer("npmi", reference="sotu-reference-index", topn=5)
    Scorer(metric='npmi', output='npmi', higher_is_better=True)
    """

    metric: str
    output: str
    reference: RefIndex | str | os.PathLike[str] | None = field(default=None, repr=False)
    vocabulary: tuple[str, ...] | None = field(default=None, repr=False)
    seed: int = field(default=0, repr=False)
    options: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def higher_is_better(self) -> bool:
        """Whether the output's larger values are better (otherwise the scorer returns minus the value)."""
        from tealeaves.metrics.registry import get_metric

        return get_metric(self.metric).outputs[self.output].higher_is_better

    def __repr__(self) -> str:
        return f"Scorer(metric={self.metric!r}, output={self.output!r}, higher_is_better={self.higher_is_better})"

    def __call__(self, estimator: Any, X: Any, y: Any = None) -> float:
        """The output's value for ``estimator``, with ``X`` the held-out fold (``y`` is not read)."""
        from tealeaves.metrics.registry import get_metric
        from tealeaves.models import TopicModel, as_model

        entry = get_metric(self.metric)
        options: dict[str, Any] = {"vocabulary": list(self.vocabulary)} if self.vocabulary is not None else {}
        model = as_model(estimator, **options) if not isinstance(estimator, TopicModel) else estimator
        skipped = entry.applies(model)
        if skipped is not None:
            raise InputError(f"{self.metric} cannot score {describe(estimator)}: {skipped}")
        heldout = _fold(estimator, X, model) if "heldout" in entry.needs and isinstance(model, TopicModel) else None
        inputs = Inputs(heldout=heldout, index=self.reference)
        if entry.pooled:
            measured = entry.compute({"model": model}, inputs, self.seed, **self.options)["model"]
        else:
            measured = entry.compute(model, inputs, self.seed, **self.options)
        if self.output in measured.scalars:
            value = float(measured.scalars[self.output])
        else:
            value = measured.items[self.output].ratio()
        return value if self.higher_is_better else -value


def scorer(
    metric: str,
    output: str | None = None,
    *,
    reference: RefIndex | str | os.PathLike[str] | None = None,
    vocabulary: Sequence[str] | None = None,
    seed: int = 0,
    **options: Any,
) -> Scorer:
    """A metric as a scikit-learn scorer, for ``GridSearchCV(..., scoring=...)`` and ``cross_val_score``.

    The scorer reads the fitted estimator as :func:`tealeaves.models.as_model` does (a ``Pipeline``
    of a vectorizer and a ``LatentDirichletAllocation`` or ``NMF``, or the estimator alone with
    ``vocabulary``) and computes the metric's ``output`` as ``tealeaves evaluate`` does: the mean
    over topics of a topic-level output, :math:`\\sum_d \\log P(w_d) / \\sum_d N_d` of the held-out
    fold for ``likelihood`` (Wallach et al. 2009's left-to-right estimator, ``sis``, its default),
    negated where lower is better. The metrics that read held-out documents (``likelihood``,
    ``predictive``) read the fold ``X``: raw texts for a ``Pipeline``, tokenized by its vectorizer's
    analyzer in their order, its words outside the fitted vocabulary left out (as the vectorizer
    leaves them out); counts for an estimator alone; for another library's model (gensim's), token
    lists, ``(dictionary, bow_corpus)`` or a Corpus, its words outside the model's left out. The coherence metrics read ``reference`` and
    not ``X``: coherence is measured on a reference corpus, whatever the fold. Held-out likelihoods
    per token compare models over the same words only: a grid that varies the vectorizer
    (``min_df``, ``max_features``) scores each setting on its own vocabulary, whose dropped words
    make a smaller vocabulary look more likely; vary the topic model's settings alone when scoring
    by likelihood.

    Parameters
    ----------
    metric : str
        A metric of :data:`~tealeaves.metrics.METRICS` (``"npmi"``, ``"cv"``, ``"diversity"``,
        ``"wi-auto"``, ``"likelihood"``, ``"predictive"``, ...) or any coherence measure of
        :func:`tealeaves.coherence.score` (``"umass"``).
    output : str, optional
        Which of the metric's outputs (``"topic_uniqueness"`` of ``"diversity"``,
        ``"predictive_rank"`` of ``"predictive"``); default its first.
    reference : RefIndex, path, Corpus or texts, optional
        The reference corpus' index (:class:`tealeaves.coherence.RefIndex`, or its folder: a path
        pickles light, for ``n_jobs``), for the metrics that need one; a Corpus or texts (gensim's
        token lists) are indexed once, here.
    vocabulary : sequence of str, optional
        For an estimator scored alone on a document-term matrix: the word of each column.
    seed : int, optional
        The metric's seed (the same seed, the same value).
    **options
        The metric's options (``topn=10``, ``window=10``, ``on_missing="skip"``, ``particles=20``),
        checked now, as ``[metrics]`` of ``tealeaves evaluate`` is.

    Returns
    -------
    Scorer

    Raises
    ------
    InputError
        For an unknown metric or output, an option the metric does not take, or a metric that reads
        a reference corpus without ``reference``.

    Examples
    --------
    A scikit-learn LDA of two topics on twenty documents, scored by NPMI on a reference corpus and by
    the left-to-right estimate of held-out documents' log likelihood per token:

    >>> from sklearn.decomposition import LatentDirichletAllocation
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.pipeline import make_pipeline
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.metrics import scorer
    >>> texts = ["tax budget deficit spending tax", "war army peace troops war"] * 10
    >>> pipeline = make_pipeline(CountVectorizer(), LatentDirichletAllocation(2, random_state=0)).fit(texts)
    >>> npmi = scorer("npmi", reference=RefIndex.build([t.split() for t in texts]), topn=3)
    >>> heldout = scorer("likelihood", particles=5)
    >>> round(npmi(pipeline, texts), 3), round(heldout(pipeline, ["tax deficit war", "army troops"]), 3)
    (1.0, -2.077)

    In a search, ``GridSearchCV(pipeline, grid, scoring={"npmi": npmi, "heldout": heldout},
    refit="npmi")``; the getting-started guide runs one.
    """
    from tealeaves.metrics.registry import get_metric

    entry = get_metric(metric)
    chosen = next(iter(entry.outputs)) if output is None else output
    if chosen not in entry.outputs:
        raise unknown_name(f"output of {entry.name}", chosen, entry.outputs)
    if "index" in entry.needs and reference is None:
        raise InputError(f"{entry.name} is measured on a reference corpus: pass reference=<a RefIndex or its folder>")
    if reference is not None and not isinstance(reference, (str, os.PathLike)):
        from tealeaves.coherence.reference import as_reference_index

        reference = as_reference_index(reference)  # texts or a Corpus indexed once here, not at every fold
    if vocabulary is not None and (
        isinstance(vocabulary, (str, os.PathLike)) or not all(isinstance(w, str) for w in vocabulary)
    ):
        raise InputError(f"vocabulary must be the word of each column, a list of strings, got {describe(vocabulary)}")
    merged = {**entry.defaults, **options}
    if entry.check is not None:
        entry.check(merged, f"scorer({entry.name!r})")
    return Scorer(entry.name, chosen, reference, tuple(vocabulary) if vocabulary is not None else None, seed, merged)


def _fold(estimator: Any, X: Any, model: TopicModel) -> Corpus:
    """The held-out fold ``X`` as a corpus over ``model``'s words: a Pipeline's texts, tokenized by its vectorizer
    in their order, a document-term matrix of counts whose columns are the model's words, or for another model
    (gensim's) texts as :func:`tealeaves.corpus.onto_vocabulary` reads them, its other words left out."""
    from scipy import sparse

    from tealeaves.corpus import Corpus, onto_vocabulary

    steps = [step for _, step in getattr(estimator, "steps", [])]
    fitted = next((i for i, step in enumerate(steps) if hasattr(step, "components_")), 0)
    if fitted and hasattr(steps[fitted - 1], "build_analyzer"):
        vectorizer = steps[fitted - 1]
        texts = estimator[: fitted - 1].transform(X) if fitted > 1 else X
        analyze, known = vectorizer.build_analyzer(), vectorizer.vocabulary_
        if isinstance(texts, str) or not hasattr(texts, "__iter__"):
            raise InputError(f"the held-out fold of a Pipeline is its texts, a list of strings, got {describe(texts)}")
        ids = model.vocab.ids
        return Corpus.from_documents([ids([w for w in analyze(text) if w in known]) for text in texts], model.vocab)
    counts = estimator[:fitted].transform(X) if fitted else X
    if not fitted and not (sparse.issparse(counts) or isinstance(counts, np.ndarray)):
        return onto_vocabulary(counts, model.vocab, "skip")[0]  # texts as gensim keeps them, or a Corpus
    return _bags(counts, model)


def _bags(counts: Any, model: TopicModel) -> Corpus:
    """A document-term matrix of counts (dense or SciPy sparse), one column per word of ``model``, as a corpus
    whose documents list each word as often as it is counted (no word order: a bag of words)."""
    from scipy import sparse

    from tealeaves.corpus import Corpus

    if not (sparse.issparse(counts) or isinstance(counts, np.ndarray)) or np.ndim(counts) != 2:
        raise InputError(
            f"the held-out fold must be texts for a Pipeline or a document-term matrix of counts, got {describe(counts)}"
        )
    matrix = sparse.csr_matrix(counts)
    if matrix.shape[1] != len(model.vocab):
        raise InputError(
            f"the document-term matrix has {matrix.shape[1]} columns; the model has {len(model.vocab)} words"
        )
    matrix.sum_duplicates()
    if not (np.all(matrix.data >= 0) and np.all(matrix.data == np.round(matrix.data))):
        raise InputError(
            "the document-term matrix must hold counts (whole numbers >= 0), as CountVectorizer gives; "
            "a likelihood of TF-IDF weights is not defined"
        )
    lengths = np.asarray(matrix.sum(axis=1), dtype=np.int64).ravel()
    tokens = np.repeat(matrix.indices, matrix.data.astype(np.int64))
    rows = np.split(tokens, np.cumsum(lengths)[:-1])
    manifest = {"source": "a document-term matrix", "word_order": False}
    return Corpus.from_documents(rows, model.vocab, manifest=manifest)
