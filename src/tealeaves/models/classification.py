"""Document classification on θ: how well the documents' topic proportions predict a label they carry.

:func:`classify` trains a linear SVM on the topic proportions θ of labelled documents (a
metadata field of the corpus: a newsgroup, a party, a year) and scores its predictions by
accuracy, F1, precision and recall, as OCTIS's classification metrics do
(``octis/evaluation_metrics/classification_metrics.py``: ``F1Score``, ``PrecisionScore``,
``RecallScore``, ``AccuracyScore``). scikit-learn is the ``classification`` extra.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.errors import InputError, is_count, unknown_name
from tealeaves.extras import require
from tealeaves.results import Columns, Result
from tealeaves.rng import family_seed

if TYPE_CHECKING:
    from tealeaves.corpus import Corpus
    from tealeaves.models.topic_model import TopicModel

AVERAGES = ("macro", "micro", "weighted")
"""How F1, precision and recall are averaged over the classes (scikit-learn's ``average``)."""


@dataclass(frozen=True)
class ClassificationResult(Result):
    """The predictions of :func:`classify`, one per scored document, and their four scores.

    Attributes
    ----------
    label : str
        The metadata field predicted.
    protocol : str
        ``"cross-validation"`` (stratified folds over the documents of ``corpus``) or
        ``"held-out"`` (trained on ``corpus``, scored on ``heldout``).
    documents : int64[N]
        Each scored document's position in its corpus (``corpus``, or ``heldout``).
    truth, predicted : str[N]
        Each scored document's label and the SVM's prediction.
    fold : int64[N] or None
        Each document's cross-validation fold (None for the held-out protocol).
    accuracy : float
        The share of documents predicted right.
    f1, precision, recall : float
        Averaged over the classes by ``average``.
    average : str
        ``"macro"`` (every class counts equally), ``"micro"`` (every document: all three equal
        the accuracy) or ``"weighted"`` (classes by their documents).
    classes : tuple of str
        The labels of the documents the SVM was trained on, sorted.
    folds : int or None
        The number of folds (None for the held-out protocol).
    n_train : int
        Labelled documents of ``corpus`` (in cross-validation each fit uses the other folds' share).
    unlabelled : int
        Scored corpus' documents left out for lacking the label (no field, None or an empty string).
    scale : bool
        Whether θ was standardised (the training documents' mean and standard deviation).

    Examples
    --------
    Four documents, two on each side, with two folds:

    >>> import numpy as np
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models import TopicModel, classify
    >>> corpus = Corpus.from_documents([[0, 1]] * 4, Vocabulary(["a", "b"]), metadata=[{"side": s} for s in "xxyy"])
    >>> phi, theta = np.array([[0.9, 0.1], [0.1, 0.9]]), np.array([[0.9, 0.1], [0.8, 0.2], [0.2, 0.8], [0.1, 0.9]])
    >>> result = classify(TopicModel(corpus.vocab, phi, theta=theta), corpus, "side", folds=2)
    >>> result
    ClassificationResult(accuracy=1, f1 (macro)=1, precision (macro)=1, recall (macro)=1, label=side, protocol=cross-validation, …)
    >>> result.columns()["predicted"].tolist()
    ['x', 'x', 'y', 'y']
    """

    label: str
    protocol: str
    documents: np.ndarray
    truth: np.ndarray
    predicted: np.ndarray
    fold: np.ndarray | None
    accuracy: float
    f1: float
    precision: float
    recall: float
    average: str
    classes: tuple[str, ...]
    folds: int | None
    n_train: int
    unlabelled: int
    scale: bool

    @property
    def correct(self) -> np.ndarray:
        """Whether each scored document was predicted right (bool[N])."""
        return np.asarray(self.truth == self.predicted)

    def summary(self) -> dict[str, Any]:
        """The four scores, then the label, the protocol and the counts."""
        values: dict[str, Any] = {"accuracy": self.accuracy}
        for name in ("f1", "precision", "recall"):
            values[f"{name} ({self.average})"] = getattr(self, name)
        values.update(label=self.label, protocol=self.protocol, documents=len(self.documents))
        values.update(classes=len(self.classes), folds=self.folds, unlabelled=self.unlabelled)
        return values

    def columns(self) -> Columns:
        """One row per scored document: its position, label, prediction, whether right, and its fold."""
        columns: Columns = {
            "document": self.documents,
            "label": self.truth,
            "predicted": self.predicted,
            "correct": self.correct,
        }
        if self.fold is not None:
            columns["fold"] = self.fold
        return columns


def classify(
    model: TopicModel,
    corpus: Corpus,
    label: str,
    *,
    heldout: Corpus | None = None,
    infer: bool = False,
    folds: int = 5,
    average: str = "macro",
    scale: bool = True,
    seed: int | np.random.Generator = 0,
) -> ClassificationResult:
    """Predict each document's ``label`` from its topic proportions θ with a linear SVM; score the predictions.

    The SVM is OCTIS's: scikit-learn's ``LinearSVC`` with its defaults (one-vs-rest, squared
    hinge loss, L2 penalty, C = 1), on θ standardised by the training documents' mean and
    standard deviation (``scale``). The unit is the document: every scored document is
    predicted by an SVM that never saw it, and

    - accuracy = (1/N) Σ_d [ŷ_d = y_d] over the N scored documents;
    - precision_c = TP_c / (TP_c + FP_c), recall_c = TP_c / (TP_c + FN_c), F1_c their harmonic
      mean, for each class c (0 where undefined), averaged over the classes by ``average``
      (``"macro"``: unweighted; ``"weighted"``: by the classes' documents; ``"micro"``: over the
      documents, where all three equal the accuracy).

    Two protocols:

    - without ``heldout``, stratified k-fold cross-validation over the labelled documents of
      ``corpus`` (``folds`` folds, shuffled under ``seed``; each class's share is the same in
      every fold): each fold is predicted by an SVM trained on the others, so every document is
      scored once, all of them count, and no held-out corpus or inference is needed. The
      default: the training documents' θ (``model.theta``), so ``corpus`` is the model's
      training corpus;
    - with ``heldout``, OCTIS's: the SVM is trained on θ of the labelled documents of
      ``corpus`` and scores the labelled documents of ``heldout``, whose θ is inferred
      (:meth:`TopicModel.infer` under ``seed``). A held-out label that no training document
      has can never be predicted, and counts as an error (OCTIS fails on it).

    Sources: OCTIS 1.14.0 (``octis/evaluation_metrics/classification_metrics.py``), after the
    document classification of Blei, Ng & Jordan (2003), Sect. 7.2. Differences from OCTIS:
    OCTIS scores one split, the dataset's own train and test partitions (here the held-out
    protocol), and averages F1, precision and recall by ``"micro"``, which for one label per
    document all equal the accuracy; the default here is cross-validation and ``"macro"``
    (``average="micro"`` gives OCTIS's). The SVM is solved in the primal (``dual=False``, what
    scikit-learn 1.5 and later choose for more documents than topics; deterministic), where
    OCTIS's pinned scikit-learn 1.1 solved the dual by coordinate descent with an unseeded
    random order, which stops at 1,000 iterations: the same optimum up to its tolerance, so a
    few predictions near the boundary may differ. OCTIS's ``use_log``, non-linear kernels and
    multi-label random forest are not offered. ``benchmarks/octis_metrics.py`` runs both on the
    same model.

    Parameters
    ----------
    model : TopicModel
        The model; its θ of the training documents unless ``infer``.
    corpus : Corpus
        The documents the SVM learns from (and, without ``heldout``, the ones scored): the
        model's training corpus, or, with ``infer``, any corpus over the model's vocabulary.
    label : str
        The metadata field to predict (``"group"``); its values are compared as text.
        Documents without it are left out and counted (``unlabelled``).
    heldout : Corpus, optional
        Score these documents instead, their θ inferred (OCTIS's protocol).
    infer : bool, default False
        Infer θ for ``corpus`` too (:meth:`TopicModel.infer`), instead of ``model.theta``.
    folds : int, default 5
        Cross-validation folds (without ``heldout``).
    average : str, default "macro"
        ``"macro"``, ``"micro"`` (OCTIS's) or ``"weighted"``.
    scale : bool, default True
        Standardise θ (OCTIS's ``scale``).
    seed : int or numpy.random.Generator, default 0
        Seeds the folds (the stream family ``"classification folds"``) and the inference.

    Returns
    -------
    ClassificationResult

    Raises
    ------
    InputError
        For a field no document has, a label with one class, a model without θ (without
        ``infer``) or whose θ is not of ``corpus``, fewer labelled documents than folds, a
        fold whose training documents hold one class, or an unknown ``average``.
    MissingDependencyError
        Without scikit-learn (``pip install 'tealeaves[classification]'``).

    Examples
    --------
    Six speeches of two parties, three of whose θ lean to each topic: every fold's SVM predicts
    its documents right.

    >>> import numpy as np
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models import TopicModel, classify
    >>> theta = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.3, 0.7], [0.2, 0.8], [0.1, 0.9]])
    >>> meta = [{"party": p} for p in ["left"] * 3 + ["right"] * 3]
    >>> corpus = Corpus.from_documents([[0, 1]] * 6, Vocabulary(["tax", "war"]), metadata=meta)
    >>> model = TopicModel(corpus.vocab, np.array([[0.9, 0.1], [0.1, 0.9]]), theta=theta)
    >>> result = classify(model, corpus, "party", folds=3)
    >>> result.accuracy, result.f1, result.fold.tolist()
    (1.0, 1.0, [1, 2, 0, 1, 2, 0])
    >>> classify(model, corpus, "year")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: no document has the metadata field 'year'; the documents' fields are: party
    """
    require("classification", what="document classification on θ")
    if average not in AVERAGES:
        raise unknown_name("average", average, AVERAGES)
    if not is_count(folds, 2):
        raise InputError(f"folds must be an integer of at least 2, got {folds!r}")
    labels, keep = _labels(corpus, label)
    theta = _theta(model, corpus, infer, seed)[keep]
    labels = labels[keep]
    classes = tuple(sorted(set(labels.tolist())))
    if len(classes) < 2:
        raise InputError(
            f"every labelled document has {label} = {classes[0]!r}; classification needs two or more classes"
        )
    fold = None
    if heldout is None:
        documents, truth = np.flatnonzero(keep), labels
        predicted, fold = _cross_validate(theta, labels, folds, scale, seed)
    else:
        held_labels, held_keep = _labels(heldout, label)
        documents, truth = np.flatnonzero(held_keep), held_labels[held_keep]
        predicted = _fit_predict(theta, labels, model.infer(heldout, seed=seed)[held_keep], scale)
    scores = _scores(truth, predicted, average)
    return ClassificationResult(
        label=label,
        protocol="cross-validation" if heldout is None else "held-out",
        documents=documents,
        truth=truth,
        predicted=predicted,
        fold=fold,
        **scores,
        average=average,
        classes=classes,
        folds=folds if heldout is None else None,
        n_train=len(labels),
        unlabelled=int((~keep).sum()) if heldout is None else int((~held_keep).sum()),
        scale=scale,
    )


def _labels(corpus: Corpus, label: str) -> tuple[np.ndarray, np.ndarray]:
    """Each document's ``label`` as text ("" where it has none) and whether it has one."""
    values = [meta.get(label) for meta in corpus.metadata]
    text = np.array(["" if v is None else str(v) for v in values], dtype=str)
    keep = text != ""
    if not keep.any():
        fields = sorted({name for meta in corpus.metadata for name in meta})
        present = f"the documents' fields are: {', '.join(fields)}" if fields else "the documents have no metadata"
        raise InputError(f"no document has the metadata field {label!r}; {present}")
    return text, keep


def _theta(model: TopicModel, corpus: Corpus, infer: bool, seed: int | np.random.Generator) -> np.ndarray:
    """θ of ``corpus``'s documents: inferred, or the model's own, checked to be of this corpus."""
    if infer:
        return model.infer(corpus, seed=seed)
    if model.theta is None:
        raise InputError(
            f"the {model.kind} model has no θ of its training documents; infer θ for the corpus "
            "with infer=True (--infer on the command line)"
        )
    trained_on = model.training_fingerprint
    if len(model.theta) != len(corpus) or (trained_on is not None and trained_on != corpus.fingerprint()):
        raise InputError(
            f"the model's θ is of {len(model.theta)} training documents, not of this corpus of {len(corpus)}: "
            "pass the corpus the model was trained on, or infer θ for this one with infer=True (--infer)"
        )
    return model.theta


def _cross_validate(
    theta: np.ndarray, labels: np.ndarray, folds: int, scale: bool, seed: int | np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold predictions of stratified k-fold cross-validation, and each document's fold."""
    import warnings

    from sklearn.model_selection import StratifiedKFold

    if len(labels) < folds:
        raise InputError(f"{len(labels)} labelled documents cannot be split into {folds} folds; use fewer folds")
    splitter = StratifiedKFold(folds, shuffle=True, random_state=family_seed(seed, "classification folds") % 2**32)
    predicted = np.empty_like(labels)
    fold = np.empty(len(labels), dtype=np.int64)
    with warnings.catch_warnings():  # a class smaller than the folds: some folds lack it, which is fine here
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        splits = list(splitter.split(theta, labels))
    for i, (train, test) in enumerate(splits):
        if len(np.unique(labels[train])) < 2:
            raise InputError(f"fold {i}'s training documents hold one class; use fewer folds or more documents")
        predicted[test] = _fit_predict(theta[train], labels[train], theta[test], scale)
        fold[test] = i
    return predicted, fold


def _fit_predict(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, scale: bool) -> np.ndarray:
    """OCTIS's linear SVM (scikit-learn's defaults, the primal solver) trained on standardised θ."""
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    if scale:
        scaler = StandardScaler().fit(x_train)
        x_train, x_test = scaler.transform(x_train), scaler.transform(x_test)
    return np.asarray(LinearSVC(dual=False).fit(x_train, y_train).predict(x_test))


def _scores(truth: np.ndarray, predicted: np.ndarray, average: str) -> dict[str, float]:
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support

    precision, recall, f1, _ = precision_recall_fscore_support(truth, predicted, average=average, zero_division=0)
    return {
        "accuracy": float(accuracy_score(truth, predicted)),
        "f1": float(f1),
        "precision": float(precision),
        "recall": float(recall),
    }
