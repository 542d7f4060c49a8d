"""Import topic models made elsewhere: ``tealeaves import FORMAT PATH`` and :func:`import_model`.

Every importer reads the source library's own saved output (or, in Python, the live model
object: :mod:`tealeaves.models.adapters`), builds a :class:`TopicModel` (or, for plain topic
lists, a :class:`Topics`) and, when a corpus vocabulary is given, aligns the topics to it with
:func:`~tealeaves.models.adapters.align_vocabulary`, whose report (words dropped and the
probability mass they carried, corpus words the source lacks, entries floored) is stored in
``manifest["import"]``.

| format | reads | kind (inference) |
|---|---|---|
| ``gensim`` | ``LdaModel`` / ``LdaMulticore`` ``.save()`` files: λ, α, ``id2word`` (live: ``LdaSeqModel`` too, with ``time_slice=``) | ``lda-vb`` (variational) |
| ``sklearn`` | a joblib/pickle file with a fitted ``LatentDirichletAllocation`` or ``NMF`` and its vectorizer (a ``Pipeline``, a tuple or dict of both, or the model with ``vectorizer=`` / ``vocabulary=``) | ``lda-vb`` / ``nmf`` |
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

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.artifacts import check_writable, file_sha256, new_manifest, write_artifact, write_json
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError, MissingDependencyError, describe, unknown_name
from tealeaves.models.adapters import (
    DEFAULT_FLOOR,
    LIBRARIES,
    Source,
    bertopic_source,
    build_model,
    check_options,
    dirichlet_alpha,
    from_gensim,
    from_octis,
    from_sklearn,
    from_tomotopy,
    library_of,
    target_vocabulary,
)
from tealeaves.models.topic_model import TopicModel
from tealeaves.models.topics import Topics, mallet_topic_keys
from tealeaves.textfiles import DEFAULT_ENCODING, read_text, text_lines


def import_model(
    format: str,
    path: Any,
    vocab_from: Corpus | Vocabulary | str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    force: bool = False,
    floor: float = DEFAULT_FLOOR,
    **options: Any,
) -> TopicModel | Topics:
    """Read the model at ``path`` saved by the library ``format`` (see the module docstring), or the model itself.

    Parameters
    ----------
    format : str
        One of :data:`IMPORTERS`: ``gensim``, ``sklearn``, ``tomotopy``, ``mallet-state``,
        ``mallet``, ``octis``, ``bertopic``, ``topics``.
    path : path, or the library's model object
        The file (or folder) the library saved; or, for ``gensim``, ``sklearn``,
        ``tomotopy``, ``bertopic``, ``octis`` and ``topics``, the live object (a trained
        ``LdaModel``, a ``(model, vectorizer)`` pair, OCTIS's model output dict, word lists;
        :func:`~tealeaves.models.as_model`).
    vocab_from : Corpus, Vocabulary or path, optional
        A Corpus, a corpus folder or a Vocabulary to align the topics to
        (:func:`~tealeaves.models.adapters.align_vocabulary`: source words outside it are
        dropped, its words the source lacks get ``floor``, each topic is renormalised; the
        report is in ``manifest["import"]``). Without it the model keeps the source's vocabulary.
    out : path, optional
        Also save the result there (a Topics as ``out/topics.txt`` with a manifest).
    force : bool
        Replace an existing ``out`` folder.
    floor : float
        The probability given to zero entries and missing words, 0 < floor < 1e-3.
    **options
        The format's own options (e.g. ``vocabulary``, ``doc_topics``, ``alpha``; for a live
        object those of its adapter, e.g. ``time_slice``); unknown names are refused.

    Returns
    -------
    TopicModel or Topics
        A Topics for the ``topics`` format (and OCTIS's output without ``vocabulary``), otherwise a TopicModel.

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

    OCTIS's model output as its models return it, with the words of the matrix columns:

    >>> output = {"topics": [["tax", "budget"], ["war", "tax"]], "topic-word-matrix": [[6, 3, 1], [1, 1, 8]]}
    >>> import_model("octis", output, vocabulary=["tax", "budget", "war"]).top_words(2)
    [['tax', 'budget'], ['war', 'tax']]
    """
    reader = _reader(format)
    if not isinstance(path, (str, os.PathLike)):
        return _import_object(format, path, vocab_from, out, force, floor, options)
    check_options(format, reader, options)
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path} does not exist; pass the file (or folder) the library saved")
    _check_floor(floor)
    if out is not None:
        check_writable(out, force, inputs=[path])
    target = target_vocabulary(vocab_from)
    source = reader(path, **options)
    provenance: dict[str, Any] = {"format": format, "source": str(path), "options": options}
    if path.is_file():
        provenance["sha256"] = file_sha256(path)
    result = build_model(source, target, floor, provenance)
    if out is not None:
        _save(result, out, force)
    return result


def _import_object(
    format: str, obj: Any, vocab_from: Any, out: Any, force: bool, floor: float, options: dict[str, Any]
) -> TopicModel | Topics:
    """:func:`import_model` of a live object: the library it comes from must be ``format``'s."""
    from tealeaves.models.adapters import as_model

    if format not in LIBRARIES and format != "topics":
        raise InputError(f"the {format} importer reads files; pass the path of the file it reads")
    library = library_of(obj) or "topics"
    if library != format:
        raise InputError(f"the {format} importer reads {format} models, got {describe(obj)}; pass format={library!r}")
    _check_floor(floor)
    if out is not None:
        check_writable(out, force)
    result = as_model(obj, vocab_from=vocab_from, floor=floor, **options)
    if out is not None:
        _save(result, out, force)
    return result


def _check_floor(floor: float) -> None:
    if not np.isfinite(floor) or not 0 < floor < 1e-3:
        raise InputError(f"floor must be a small positive probability (0 < floor < 1e-3), got {floor}")


# --------------------------------------------------------------------------- gensim
def read_gensim(path: Path) -> Source:
    """A gensim ``LdaModel`` or ``LdaMulticore`` saved with ``.save(path)``, read by
    :func:`~tealeaves.models.adapters.from_gensim` (Φ from λ, α, λ's row sums for variational inference)."""
    gensim = _require("gensim", "gensim")
    try:
        model = gensim.models.LdaModel.load(str(path))
    except FileNotFoundError as exc:  # a file gensim saved beside it (.state, .expElogbeta.npy, .id2word)
        raise InputError(
            f"cannot load {path} as a gensim LdaModel: {Path(exc.filename or '?').name} is missing; gensim saves a "
            f"model as {path.name} and files named {path.name}.* beside it: keep them together"
        ) from exc
    except Exception as exc:  # gensim raises many kinds of errors on foreign files
        raise InputError(f"cannot load {path} as a gensim LdaModel ({type(exc).__name__}: {exc})") from exc
    if not hasattr(model, "state") or not hasattr(model, "id2word"):
        raise InputError(f"{path} holds a {type(model).__name__}, not a gensim LdaModel or LdaMulticore")
    return from_gensim(model)


# --------------------------------------------------------------------------- scikit-learn
def read_sklearn(
    path: Path, *, vectorizer: str | None = None, vocabulary: str | None = None, encoding: str = DEFAULT_ENCODING
) -> Source:
    """A fitted scikit-learn ``LatentDirichletAllocation`` or ``NMF`` saved with joblib or pickle.

    The file holds a ``Pipeline`` (vectorizer then model), a tuple/list/dict holding both, or
    the model alone with ``vectorizer=`` (a joblib/pickle file of the fitted vectorizer) or
    ``vocabulary=`` (one word per line, in column order, in ``encoding``); read by
    :func:`~tealeaves.models.adapters.from_sklearn`.
    """
    _require("sklearn", "scikit-learn")
    vec = None
    if vectorizer is not None:
        loaded = _unpickle(Path(vectorizer))
        vec = next((o for o in _items(loaded) if hasattr(o, "get_feature_names_out")), None)
        if vec is None:
            raise InputError(f"{vectorizer} holds no fitted vectorizer (nothing with get_feature_names_out)")
    words = _read_vocabulary(Path(vocabulary), encoding) if vocabulary is not None else None
    try:
        return from_sklearn(_unpickle(path), vectorizer=vec, vocabulary=words)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from exc


def _unpickle(path: Path) -> Any:
    import joblib

    try:
        return joblib.load(path)
    except Exception as exc:  # unpickling foreign files fails in many ways
        raise InputError(f"cannot load {path} with joblib/pickle ({type(exc).__name__}: {exc})") from exc


def _items(obj: Any) -> list[Any]:
    """The object, or the items of a tuple/list/dict (what a pickle of a vectorizer may hold)."""
    if isinstance(obj, dict):
        return list(obj.values())
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


# --------------------------------------------------------------------------- tomotopy
TOMOTOPY_CLASSES = {b"LDA": "LDAModel", b"CTM": "CTModel"}


def read_tomotopy(path: Path) -> Source:
    """A tomotopy ``LDAModel`` or ``CTModel`` file (``model.save(path)``), read by
    :func:`~tealeaves.models.adapters.from_tomotopy`.

    The file's header names the model family (``LDA``, ``CTM``, ...; tomotopy also writes
    ``LDA`` for some of its LDA variants), and loading a file with the wrong tomotopy class
    aborts the whole process, so the file is first loaded in a child process.
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
    return from_tomotopy(model)


# --------------------------------------------------------------------------- MALLET
def read_mallet_state(path: Path, *, encoding: str = DEFAULT_ENCODING) -> Source:
    """MALLET's Gibbs state (``--output-state``, gzip or plain text, in ``encoding``).

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
    for number, line in text_lines(path, encoding):
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
    encoding: str = DEFAULT_ENCODING,
) -> Source:
    """MALLET's ``--topic-word-weights-file``: lines ``topic<TAB>word<TAB>weight`` (text files in ``encoding``).

    The weights are β + n_kw, so Φ is each topic's weights normalised. ``doc_topics`` is the
    ``--output-doc-topics`` file: dense (``doc name p_0 ... p_K-1``, MALLET 2.0.9 and later)
    or sparse (a ``#doc name topic proportion ...`` header, then topic/proportion pairs).
    ``alpha`` is the per-topic Dirichlet parameter α_k (one value or K comma-separated
    values; MALLET's ``--alpha`` option is their sum, so divide it by K); without it the
    model has no prior and no inference. ``beta`` is recorded.
    """
    rows: dict[int, dict[str, float]] = {}
    order: dict[str, int] = {}
    for number, line in text_lines(path, encoding):
        if not line.strip():
            continue
        parts = line.rstrip("\n").split("\t")
        try:
            topic, word, weight = int(parts[0]), parts[1], float(parts[2])
        except (IndexError, ValueError):
            keys = mallet_topic_keys([line.rstrip("\n")]) is not None  # its first line, topic 0
            hint = (
                ": this is MALLET's --output-topic-keys file, the top words alone; read it as topics (import "
                "topics, Topics.load), or give the --topic-word-weights-file"
                if keys
                else ""
            )
            raise InputError(f"{path}, line {number}: expected 'topic<TAB>word<TAB>weight'{hint}") from None
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
    theta = None if doc_topics is None else _mallet_doc_topics(Path(doc_topics), k, encoding)
    params: dict[str, Any] = {"library": "MALLET"}
    if beta is not None:
        params["beta"] = float(beta)
    return Source("lda-gibbs", words, weights, alpha=dirichlet_alpha(alpha, k), theta=theta, params=params)


def _mallet_doc_topics(path: Path, k: int, encoding: str) -> np.ndarray:
    rows: list[np.ndarray] = []
    lines = [(number, line.rstrip("\n")) for number, line in text_lines(path, encoding) if line.strip()]
    sparse = bool(lines) and lines[0][1].startswith("#doc")
    for number, line in lines:
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


# --------------------------------------------------------------------------- OCTIS
def read_octis(
    path: Path,
    *,
    vocabulary: str | None = None,
    alpha: float | Sequence[float] | str | None = None,
    encoding: str = DEFAULT_ENCODING,
) -> Source | Topics:
    """An OCTIS model output saved by ``save_model_output`` (a ``.npz``), read by
    :func:`~tealeaves.models.adapters.from_octis`.

    ``topic-word-matrix`` (K x V) gives Φ after normalisation (OCTIS rounds it to 7 decimals,
    so small probabilities may be 0 and are floored); ``topic-document-matrix`` (K x D)
    gives θ. ``vocabulary`` is required: the JSON index-to-word file that OCTIS'
    ``load_model_output`` reads, or one word per line in column order. ``alpha`` (optional)
    declares a Dirichlet prior, which enables Gibbs inference of θ with Φ fixed.
    """
    if vocabulary is None:
        raise InputError('octis needs vocabulary="<the word of each topic-word-matrix column: JSON or one per line>"')
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: np.asarray(data[name]) for name in data.files}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {path} as an OCTIS .npz model output ({exc})") from exc
    if "topic-word-matrix" not in arrays:
        raise InputError(f"{path} has no 'topic-word-matrix'; it is not an OCTIS model output")
    output = {name: (value.tolist() if name == "topics" else value) for name, value in arrays.items()}
    return from_octis(output, vocabulary=_read_vocabulary(Path(vocabulary), encoding), alpha=alpha)


# --------------------------------------------------------------------------- BERTopic
def read_bertopic(
    path: Path, *, vocabulary: str | None = None, outliers: bool = False, encoding: str = DEFAULT_ENCODING
) -> Source:
    """BERTopic's topic-word matrix (c-TF-IDF) and vocabulary.

    ``path`` is a folder written by ``BERTopic.save(folder, serialization="safetensors",
    save_ctfidf=True)`` (``ctfidf.safetensors``: the CSR arrays indptr, indices, data, shape;
    ``ctfidf_config.json``: the vectorizer's word-to-column ``vocab``; ``topics.json``:
    ``_outliers``), or a matrix file (``.npz`` from ``scipy.sparse.save_npz`` or ``.npy``)
    with ``vocabulary=`` (one word per line). The outlier topic -1 (the first row when
    ``_outliers`` is 1) is left out unless ``outliers``.
    """
    import scipy.sparse as sp

    has_outliers = False
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
        has_outliers = bool(topics_json.get("_outliers", 0))
    else:
        if vocabulary is None:
            raise InputError('a BERTopic matrix file needs vocabulary="<its words, one per line, in column order>"')
        words = _read_vocabulary(Path(vocabulary), encoding)
        try:
            matrix = sp.load_npz(path).toarray() if path.suffix == ".npz" else np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the c-TF-IDF matrix {path} ({exc})") from exc
    return bertopic_source(np.asarray(matrix), words, has_outliers, outliers)


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
def read_topics(path: Path, *, encoding: str = DEFAULT_ENCODING) -> Topics:
    """Plain topic lists: one topic per line, words separated by whitespace, in ``encoding`` (:meth:`Topics.load`)."""
    return Topics.load(path, encoding=encoding)


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
    if not isinstance(format, str) or format not in IMPORTERS:
        raise unknown_name("import format", format, IMPORTERS)
    return IMPORTERS[format]


def _read_vocabulary(path: Path, encoding: str) -> list[str]:
    """Words in column order: a JSON list, a JSON {index: word} object, or one word per line."""
    text = read_text(path, encoding)
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
