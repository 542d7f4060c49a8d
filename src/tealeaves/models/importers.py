"""Import topic models made elsewhere: ``tealeaves import FORMAT PATH`` and :func:`import_model`.

Every importer reads the source library's own saved output, builds a :class:`TopicModel`
(or, for plain topic lists, a :class:`Topics`) and, when a corpus vocabulary is given,
aligns the topics to it with :func:`align_vocabulary`, whose report (words dropped and the
probability mass they carried, corpus words the source lacks, entries floored) is stored in
``manifest["import"]``.

| format | reads | kind (inference) |
|---|---|---|
| ``gensim`` | ``LdaModel`` / ``LdaMulticore`` ``.save()`` files: λ, α, ``id2word`` | ``lda-vb`` (variational) |
| ``sklearn`` | a joblib/pickle file with a fitted ``LatentDirichletAllocation`` and its vectorizer (a ``Pipeline``, a tuple or dict of both, or the model with ``vectorizer=`` / ``vocabulary=``) | ``lda-vb`` |
| ``tomotopy`` | tomotopy ``LDAModel`` and ``CTModel`` files | ``lda-gibbs`` / ``ctm`` |
| ``mallet-state`` | MALLET's ``--output-state`` Gibbs state (gzip or plain) | ``lda-gibbs`` |
| ``mallet`` | MALLET's ``--topic-word-weights-file`` (+ ``doc_topics=`` the ``--output-doc-topics`` file, ``alpha=``, ``beta=``) | ``lda-gibbs`` |
| ``octis`` | OCTIS ``save_model_output`` ``.npz`` (``topic-word-matrix``, ``topic-document-matrix``) with ``vocabulary=`` | ``octis`` |
| ``bertopic`` | a BERTopic ``save(..., serialization="safetensors", save_ctfidf=True)`` folder, or a c-TF-IDF matrix (``.npz`` / ``.npy``) with ``vocabulary=`` | ``bertopic`` (no generative prior) |
| ``topics`` | plain topic lists, one topic per line, words separated by spaces | a :class:`Topics` |

Pickle-based formats (gensim, scikit-learn) execute code from the file while loading it:
import only files you trust.
"""

from __future__ import annotations

import gzip
import inspect
import json
import os
import subprocess
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.artifacts import check_writable, file_sha256, new_manifest, write_artifact, write_json
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError, MissingDependencyError
from tealeaves.models.topic_model import TopicModel
from tealeaves.models.topics import Topics

DEFAULT_FLOOR = 1e-12
MASS_LOSS_WARNING = 0.05  # a topic losing more than this share of its mass to dropped words is warned about


class RenormalisationWarning(UserWarning):
    """Aligning an imported model to a vocabulary removed enough of a topic's probability mass
    that renormalising the rest changes what the model infers (θ̂, likelihoods)."""


def import_model(
    format: str,
    path: str | os.PathLike[str],
    vocab_from: Corpus | Vocabulary | str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    force: bool = False,
    floor: float = DEFAULT_FLOOR,
    **options: Any,
) -> TopicModel | Topics:
    """Read the model at ``path`` saved by the library ``format`` (see the module docstring).

    Parameters
    ----------
    format : str
        One of :data:`IMPORTERS`: ``gensim``, ``sklearn``, ``tomotopy``, ``mallet-state``,
        ``mallet``, ``octis``, ``bertopic``, ``topics``.
    path : path
        The file (or folder) the library saved.
    vocab_from : Corpus, Vocabulary or path, optional
        A Corpus, a corpus folder or a Vocabulary to align the topics to
        (:func:`align_vocabulary`: source words outside it are dropped, its words the source
        lacks get ``floor``, each topic is renormalised; the report is in
        ``manifest["import"]``). Without it the model keeps the source's vocabulary.
    out : path, optional
        Also save the result there (a Topics as ``out/topics.txt`` with a manifest).
    force : bool
        Replace an existing ``out`` folder.
    floor : float
        The probability given to zero entries and missing words, 0 < floor < 1e-3.
    **options
        The format's own options (e.g. ``vocabulary``, ``doc_topics``, ``alpha``); unknown
        names are refused.

    Returns
    -------
    TopicModel or Topics
        A Topics for the ``topics`` format, otherwise a TopicModel.

    Examples
    --------
    A MALLET topic-word weights file (``topic<TAB>word<TAB>weight``, weights β + n_kw), aligned
    to a corpus vocabulary that orders the words differently:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import Vocabulary
    >>> from tealeaves.models import import_model
    >>> lines = ["0\\ttax\\t6", "0\\tbudget\\t3", "0\\twar\\t1", "1\\ttax\\t1", "1\\tbudget\\t1", "1\\twar\\t8"]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "weights.txt"
    ...     _ = path.write_text("\\n".join(lines) + "\\n")
    ...     model = import_model("mallet", path, vocab_from=Vocabulary(["war", "tax", "budget"]), alpha=0.1)
    >>> model, model.vocab.words
    (TopicModel(kind='lda-gibbs', K=2, V=3), ('war', 'tax', 'budget'))
    >>> model.phi  # each topic's weights over its sum: 6/10, 3/10, 1/10 and 1/10, 1/10, 8/10
    array([[0.1, 0.6, 0.3],
           [0.8, 0.1, 0.1]])
    """
    reader = _reader(format)
    accepted = list(importer_options(format))
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise InputError(
            f"the {format} importer has no option {', '.join(unknown)}; its options are {', '.join(accepted) or 'none'}"
        )
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path} does not exist; pass the file (or folder) the library saved")
    if not np.isfinite(floor) or not 0 < floor < 1e-3:
        raise InputError(f"floor must be a small positive probability (0 < floor < 1e-3), got {floor}")
    if out is not None:
        check_writable(out, force)
    target = _vocabulary(vocab_from)
    source = reader(path, **options)
    provenance: dict[str, Any] = {"format": format, "source": str(path), "options": options}
    if path.is_file():
        provenance["sha256"] = file_sha256(path)
    if isinstance(source, Topics):
        result: TopicModel | Topics = _topics_against(source, target, provenance)
    else:
        result = source.build(target, floor, provenance)
    if out is not None:
        _save(result, out, force)
    return result


def importer_options(format: str) -> dict[str, Any]:
    """The options an importer accepts, with their defaults."""
    signature = inspect.signature(_reader(format))
    return {n: p.default for n, p in signature.parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}


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


# --------------------------------------------------------------------------- what readers return
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
def read_gensim(path: Path) -> Source:
    """A gensim ``LdaModel`` or ``LdaMulticore`` saved with ``.save(path)``.

    Φ is λ / Σ_w λ with λ = ``model.state.get_lambda()`` (= η + the expected counts), α is
    ``model.alpha``; λ's row sums are kept so that variational inference applies.
    """
    gensim = _require("gensim", "gensim")
    try:
        model = gensim.models.LdaModel.load(str(path))
    except Exception as exc:  # gensim raises many kinds of errors on foreign files
        raise InputError(f"cannot load {path} as a gensim LdaModel ({type(exc).__name__}: {exc})") from exc
    if not hasattr(model, "state") or not hasattr(model, "id2word"):
        raise InputError(f"{path} holds a {type(model).__name__}, not a gensim LdaModel or LdaMulticore")
    lam = np.asarray(model.state.get_lambda(), dtype=np.float64)
    if model.id2word is None:
        raise InputError(f"{path} was saved without its id2word dictionary; pass id2word when training")
    words = [model.id2word[i] for i in range(lam.shape[1])]
    eta = np.asarray(model.eta, dtype=np.float64).ravel()
    params = {"eta": float(eta[0]) if np.ptp(eta) == 0 else "asymmetric", "library": "gensim"}
    return Source("lda-vb", words, lam, alpha=np.asarray(model.alpha), lambda_sum=lam.sum(axis=1), params=params)


# --------------------------------------------------------------------------- scikit-learn
def read_sklearn(path: Path, *, vectorizer: str | None = None, vocabulary: str | None = None) -> Source:
    """A fitted scikit-learn ``LatentDirichletAllocation`` saved with joblib or pickle.

    The file holds a ``Pipeline`` (vectorizer then LDA), a tuple/list/dict holding both, or
    the LDA alone with ``vectorizer=`` (a joblib/pickle file of the fitted vectorizer) or
    ``vocabulary=`` (one word per line, in column order). λ is ``components_`` (the
    variational topic-word parameters, including ``topic_word_prior_``), α is
    ``doc_topic_prior_``.
    """
    _require("sklearn", "scikit-learn")
    from sklearn.decomposition import LatentDirichletAllocation

    objects = _flatten(_unpickle(path))
    lda = next((o for o in objects if isinstance(o, LatentDirichletAllocation)), None)
    if lda is None or not hasattr(lda, "components_"):
        raise InputError(f"{path} holds no fitted LatentDirichletAllocation")
    vec = next((o for o in objects if hasattr(o, "get_feature_names_out") and o is not lda), None)
    if vectorizer is not None:
        vec = next((o for o in _flatten(_unpickle(Path(vectorizer))) if hasattr(o, "get_feature_names_out")), None)
    if vocabulary is not None:
        words = _read_vocabulary(Path(vocabulary))
    elif vec is not None:
        words = [str(w) for w in vec.get_feature_names_out()]
    else:
        raise InputError(
            f"{path} has no vectorizer to say which word each column is; save a Pipeline, or pass "
            "--vocabulary (one word per line) or the vectorizer file"
        )
    lam = np.asarray(lda.components_, dtype=np.float64)
    params = {"eta": float(lda.topic_word_prior_), "library": "scikit-learn", "method": lda.learning_method}
    return Source(
        "lda-vb", words, lam, alpha=np.asarray(lda.doc_topic_prior_), lambda_sum=lam.sum(axis=1), params=params
    )


def _unpickle(path: Path) -> Any:
    import joblib

    try:
        return joblib.load(path)
    except Exception as exc:  # unpickling foreign files fails in many ways
        raise InputError(f"cannot load {path} with joblib/pickle ({type(exc).__name__}: {exc})") from exc


def _flatten(obj: Any) -> list[Any]:
    """The object, or the steps of a Pipeline, or the items of a tuple/list/dict."""
    if hasattr(obj, "steps"):
        return [step for _, step in obj.steps]
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return [obj]


# --------------------------------------------------------------------------- tomotopy
TOMOTOPY_CLASSES = {b"LDA": "LDAModel", b"CTM": "CTModel"}


def read_tomotopy(path: Path) -> Source:
    """A tomotopy ``LDAModel`` or ``CTModel`` file (``model.save(path)``).

    The file's header names the model family (``LDA``, ``CTM``, ...; tomotopy also writes
    ``LDA`` for some of its LDA variants), and loading a file with the wrong tomotopy class
    aborts the whole process, so the file is first loaded in a child process.
    ``LDAModel``: Φ from ``get_topic_word_dist`` over ``used_vocabs``, α from ``alpha``, kind
    ``lda-gibbs``. ``CTModel``: ``prior_mean`` and ``prior_cov`` too, kind ``ctm``. θ of the
    training documents comes along when the file holds them.
    """
    tp = _require("tomotopy", "tomotopy")
    try:
        with open(path, "rb") as handle:
            header = handle.read(16)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    model_id = header.split(b"\0", 1)[0]
    if b"TPTK" not in header or model_id not in TOMOTOPY_CLASSES:
        known = b"TPTK" in header
        raise InputError(
            f"{path} is {'a tomotopy ' + model_id.decode(errors='replace') + ' model' if known else 'not a tomotopy model file'}; "
            f"tealeaves imports tomotopy {', '.join(TOMOTOPY_CLASSES.values())} files"
        )
    cls = getattr(tp, TOMOTOPY_CLASSES[model_id])
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, tomotopy; getattr(tomotopy, sys.argv[1]).load(sys.argv[2])",
            cls.__name__,
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        reason = (probe.stderr.strip().splitlines() or ["it cannot be loaded"])[-1]
        raise InputError(
            f"{path} is not a tomotopy {cls.__name__} file ({reason}); tealeaves imports tomotopy "
            f"{', '.join(TOMOTOPY_CLASSES.values())} files, not other LDA variants"
        )
    try:
        model = cls.load(str(path))
    except Exception as exc:  # tomotopy raises its own and OSError
        raise InputError(f"cannot load {path} as a tomotopy {cls.__name__} ({type(exc).__name__}: {exc})") from exc
    words = list(model.used_vocabs)
    weights = np.array([model.get_topic_word_dist(k) for k in range(model.k)], dtype=np.float64)
    theta = np.array([d.get_topic_dist() for d in model.docs], dtype=np.float64) if len(model.docs) else None
    params = {"eta": float(model.eta), "library": f"tomotopy {tp.__version__}", "class": cls.__name__}
    if cls is tp.CTModel:
        mean = np.asarray(model.prior_mean, dtype=np.float64)
        cov = np.asarray(model.prior_cov, dtype=np.float64).reshape(model.k, model.k)
        return Source("ctm", words, weights, theta=theta, extra={"prior_mean": mean, "prior_cov": cov}, params=params)
    return Source("lda-gibbs", words, weights, alpha=np.asarray(model.alpha), theta=theta, params=params)


# --------------------------------------------------------------------------- MALLET
def read_mallet_state(path: Path) -> Source:
    """MALLET's Gibbs state (``--output-state``, gzip or plain text).

    Lines ``doc source pos typeindex type topic`` after the headers ``#alpha : α_1 ... α_K``
    and ``#beta : β``. Φ = (n_kw + β) / (n_k + Vβ) and θ = (n_dk + α_k) / (N_d + Σα) from
    the assignment counts, as MALLET computes them (V: the types present in the state).
    """
    alpha: np.ndarray | None = None
    beta: float | None = None
    docs: list[int] = []
    types: list[int] = []
    topics: list[int] = []
    names: dict[int, str] = {}
    with _open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            if line.startswith("#alpha"):
                alpha = np.array([float(x) for x in line.split(":", 1)[1].split()])
            elif line.startswith("#beta"):
                beta = float(line.split(":", 1)[1])
            elif line.startswith("#") or not line.strip():
                continue
            else:
                parts = line.rsplit(None, 4)
                try:
                    doc, typeindex, topic = int(parts[0].split(None, 1)[0]), int(parts[2]), int(parts[4])
                except (IndexError, ValueError):
                    raise InputError(f"{path}, line {number}: expected 'doc source pos typeindex type topic'") from None
                docs.append(doc)
                types.append(typeindex)
                topics.append(topic)
                names.setdefault(typeindex, parts[3])
    if alpha is None or beta is None:
        raise InputError(f"{path} lacks the '#alpha :' and '#beta :' header lines of a MALLET state file")
    if not docs:
        raise InputError(f"{path} holds no token assignments")
    k = len(alpha)
    z = np.asarray(topics, dtype=np.int64)
    if z.min() < 0 or z.max() >= k:
        raise InputError(f"{path} assigns topic {int(z.max())} but its #alpha line has {k} topics")
    present = np.array(sorted(names), dtype=np.int64)
    column = np.full(int(present.max()) + 1, -1, dtype=np.int64)
    column[present] = np.arange(len(present))
    w = column[np.asarray(types, dtype=np.int64)]
    n_kw = np.zeros((k, len(present)))
    np.add.at(n_kw, (z, w), 1.0)
    d = np.asarray(docs, dtype=np.int64)
    n_dk = np.zeros((int(d.max()) + 1, k))
    np.add.at(n_dk, (d, z), 1.0)
    theta = (n_dk + alpha) / (n_dk.sum(axis=1, keepdims=True) + alpha.sum())
    words = [names[int(t)] for t in present]
    params = {"beta": beta, "library": "MALLET"}
    return Source("lda-gibbs", words, n_kw + beta, alpha=alpha, theta=theta, params=params)


def read_mallet(
    path: Path,
    *,
    doc_topics: str | None = None,
    alpha: float | Sequence[float] | str | None = None,
    beta: float | None = None,
) -> Source:
    """MALLET's ``--topic-word-weights-file``: lines ``topic<TAB>word<TAB>weight``.

    The weights are β + n_kw, so Φ is each topic's weights normalised. ``doc_topics`` is the
    ``--output-doc-topics`` file: dense (``doc name p_0 ... p_K-1``, MALLET 2.0.9 and later)
    or sparse (a ``#doc name topic proportion ...`` header, then topic/proportion pairs).
    ``alpha`` is the per-topic Dirichlet parameter α_k (one value or K comma-separated
    values; MALLET's ``--alpha`` option is their sum, so divide it by K); without it the
    model has no prior and no inference. ``beta`` is recorded.
    """
    rows: dict[int, dict[str, float]] = {}
    order: dict[str, int] = {}
    with _open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            try:
                topic, word, weight = int(parts[0]), parts[1], float(parts[2])
            except (IndexError, ValueError):
                raise InputError(f"{path}, line {number}: expected 'topic<TAB>word<TAB>weight'") from None
            rows.setdefault(topic, {})[word] = weight
            order.setdefault(word, len(order))
    if not rows or sorted(rows) != list(range(len(rows))):
        raise InputError(f"{path} must list topics 0 .. K-1")
    k = len(rows)
    words = list(order)
    weights = np.zeros((k, len(words)))
    for topic, entries in rows.items():
        for word, weight in entries.items():
            weights[topic, order[word]] = weight
    theta = None if doc_topics is None else _mallet_doc_topics(Path(doc_topics), k)
    params: dict[str, Any] = {"library": "MALLET"}
    if beta is not None:
        params["beta"] = float(beta)
    return Source("lda-gibbs", words, weights, alpha=_alpha(alpha, k), theta=theta, params=params)


def _mallet_doc_topics(path: Path, k: int) -> np.ndarray:
    rows: list[np.ndarray] = []
    with _open_text(path) as handle:
        lines = [line.rstrip("\n") for line in handle if line.strip()]
    sparse = bool(lines) and lines[0].startswith("#doc")
    for number, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        fields = line.split()
        row = np.zeros(k)
        try:
            if sparse:
                pairs = fields[2:]
                for i in range(0, len(pairs) - 1, 2):
                    row[int(pairs[i])] = float(pairs[i + 1])
            else:
                if len(fields) != k + 2:
                    raise ValueError
                row[:] = [float(x) for x in fields[2:]]
        except (ValueError, IndexError):
            raise InputError(f"{path}, line {number}: not a MALLET doc-topics line for {k} topics") from None
        rows.append(row)
    if not rows:
        raise InputError(f"{path} holds no documents")
    return np.vstack(rows)


def _alpha(alpha: float | Sequence[float] | str | None, k: int) -> np.ndarray | None:
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


# --------------------------------------------------------------------------- OCTIS
def read_octis(
    path: Path, *, vocabulary: str | None = None, alpha: float | Sequence[float] | str | None = None
) -> Source:
    """An OCTIS model output saved by ``save_model_output`` (a ``.npz``).

    ``topic-word-matrix`` (K x V) gives Φ after normalisation (OCTIS rounds it to 7 decimals,
    so small probabilities may be 0 and are floored); ``topic-document-matrix`` (K x D)
    gives θ. ``vocabulary`` is required: the JSON index-to-word file that OCTIS'
    ``load_model_output`` reads, or one word per line in column order. ``alpha`` (optional)
    declares a Dirichlet prior, which enables Gibbs inference of θ with Φ fixed.
    """
    if vocabulary is None:
        raise InputError("octis needs --vocabulary: the word of each topic-word-matrix column (JSON or one per line)")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: np.asarray(data[name]) for name in data.files}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {path} as an OCTIS .npz model output ({exc})") from exc
    if "topic-word-matrix" not in arrays:
        raise InputError(f"{path} has no 'topic-word-matrix'; it is not an OCTIS model output")
    weights = arrays["topic-word-matrix"]
    words = _read_vocabulary(Path(vocabulary))
    theta = arrays["topic-document-matrix"].T if "topic-document-matrix" in arrays else None
    return Source(
        "octis", words, weights, alpha=_alpha(alpha, weights.shape[0]), theta=theta, params={"library": "OCTIS"}
    )


# --------------------------------------------------------------------------- BERTopic
BERTOPIC_NOTE = (
    "BERTopic is not a generative topic model: it has no prior over topic proportions and no likelihood. "
    "Phi is each topic's c-TF-IDF row normalised to sum to 1; likelihood-based evaluations do not apply."
)


def read_bertopic(path: Path, *, vocabulary: str | None = None, outliers: bool = False) -> Source:
    """BERTopic's topic-word matrix (c-TF-IDF) and vocabulary.

    ``path`` is a folder written by ``BERTopic.save(folder, serialization="safetensors",
    save_ctfidf=True)`` (``ctfidf.safetensors``: the CSR arrays indptr, indices, data, shape;
    ``ctfidf_config.json``: the vectorizer's word-to-column ``vocab``; ``topics.json``:
    ``_outliers``), or a matrix file (``.npz`` from ``scipy.sparse.save_npz`` or ``.npy``)
    with ``vocabulary=`` (one word per line). The outlier topic -1 (the first row when
    ``_outliers`` is 1) is left out unless ``outliers``.
    """
    import scipy.sparse as sp

    skip = 0
    if path.is_dir():
        tensors = read_safetensors(path / "ctfidf.safetensors")
        try:
            config = json.loads((path / "ctfidf_config.json").read_text(encoding="utf-8"))
            topics_json = json.loads((path / "topics.json").read_text(encoding="utf-8"))
            mapping = config["vectorizer_model"]["vocab"]
        except (OSError, json.JSONDecodeError, KeyError) as exc:
            raise InputError(f"{path} is not a BERTopic folder saved with save_ctfidf=True ({exc})") from exc
        shape = tuple(int(x) for x in tensors["shape"])
        matrix = sp.csr_matrix((tensors["data"], tensors["indices"], tensors["indptr"]), shape=shape).toarray()
        words = [""] * len(mapping)
        for word, column in mapping.items():
            words[int(column)] = word
        skip = int(topics_json.get("_outliers", 0)) and not outliers
    else:
        if vocabulary is None:
            raise InputError("a BERTopic matrix file needs --vocabulary (one word per line, in column order)")
        words = _read_vocabulary(Path(vocabulary))
        try:
            matrix = sp.load_npz(path).toarray() if path.suffix == ".npz" else np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the c-TF-IDF matrix {path} ({exc})") from exc
    params = {"library": "BERTopic", "generative": False, "outlier_topic_included": bool(outliers)}
    return Source("bertopic", words, np.asarray(matrix)[skip:], params=params, note=BERTOPIC_NOTE)


SAFETENSORS_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file: an 8-byte little-endian header length, a JSON
    header mapping each name to its dtype, shape and byte offsets, then the raw bytes."""
    try:
        raw = path.read_bytes()
        size = int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8 : 8 + size])
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {path} as a safetensors file ({exc})") from exc
    body = memoryview(raw)[8 + size :]
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        if spec.get("dtype") not in SAFETENSORS_DTYPES:
            raise InputError(f"{path}: tensor {name} has unsupported dtype {spec.get('dtype')}")
        begin, end = spec["data_offsets"]
        array = np.frombuffer(body[begin:end], dtype=SAFETENSORS_DTYPES[spec["dtype"]])
        tensors[name] = array.reshape(spec["shape"]).copy()
    return tensors


# --------------------------------------------------------------------------- plain topic lists
def read_topics(path: Path) -> Topics:
    """Plain topic lists: one topic per line, words separated by whitespace (:meth:`Topics.load`)."""
    return Topics.load(path)


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


# --------------------------------------------------------------------------- shared helpers
IMPORTERS: dict[str, Callable[..., Source | Topics]] = {
    "gensim": read_gensim,
    "sklearn": read_sklearn,
    "tomotopy": read_tomotopy,
    "mallet-state": read_mallet_state,
    "mallet": read_mallet,
    "octis": read_octis,
    "bertopic": read_bertopic,
    "topics": read_topics,
}
"""The importers by format name, for :func:`import_model`: each reads its library's saved output
(the table in the module docstring)."""


def _reader(format: str) -> Callable[..., Source | Topics]:
    if format not in IMPORTERS:
        raise InputError(f"unknown import format {format!r}; choose one of {', '.join(IMPORTERS)}")
    return IMPORTERS[format]


def _vocabulary(vocab_from: Corpus | Vocabulary | str | os.PathLike[str] | None) -> Vocabulary | None:
    if vocab_from is None or isinstance(vocab_from, Vocabulary):
        return vocab_from
    if isinstance(vocab_from, Corpus):
        return vocab_from.vocab
    return Corpus.load(vocab_from).vocab


def _read_vocabulary(path: Path) -> list[str]:
    """Words in column order: a JSON list, a JSON {index: word} object, or one word per line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the vocabulary {path}: {exc}") from exc
    if text.lstrip().startswith(("{", "[")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path} is not valid JSON ({exc})") from exc
        if isinstance(data, dict):
            try:
                return [str(data[key]) for key in sorted(data, key=int)]
            except ValueError:
                raise InputError(f"{path}: a JSON vocabulary object must map column numbers to words") from None
        return [str(w) for w in data]
    return [line.strip() for line in text.splitlines() if line.strip()]


def _open_text(path: Path) -> Any:
    try:
        with open(path, "rb") as probe:
            gzipped = probe.read(2) == b"\x1f\x8b"
        return gzip.open(path, "rt", encoding="utf-8") if gzipped else open(path, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot open {path}: {exc}") from exc


def _require(module: str, package: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(f"importing this format needs {package}: pip install {package}") from None


def _save(result: TopicModel | Topics, out: str | os.PathLike[str], force: bool) -> None:
    if isinstance(result, TopicModel):
        result.save(out, force=force)
        return
    manifest = new_manifest("topics", name=result.name, n_topics=len(result), meta=result.meta)

    def write(tmp: Path) -> None:
        result.save(tmp / "topics.txt")
        write_json(tmp / "manifest.json", manifest)

    write_artifact(out, write, force=force)
