"""Corpus: documents as token ids over a Vocabulary, saved as memory-mappable arrays.

On disk a corpus is a folder with

- ``tokens.npy``  int32[n_tokens], all documents concatenated in order;
- ``offsets.npy`` int64[n_docs + 1], document ``i`` is ``tokens[offsets[i]:offsets[i+1]]``;
- ``vocab.txt``   one word per line, line ``j`` is token id ``j``;
- ``docs.jsonl``  one line per document: ``id``, ``title``, ``snippet`` (the first ~300
  characters of the original text, for topic intrusion) and ``meta`` (other fields);
- ``manifest.json`` provenance (see :mod:`tealeaves.artifacts`) and statistics.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
from collections.abc import Iterator, Sequence, Sized
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from tealeaves import display
from tealeaves.artifacts import arrays_sha256, new_manifest, read_manifest, write_artifact, write_json
from tealeaves.corpus.readers import is_frame
from tealeaves.corpus.vocabulary import Vocabulary
from tealeaves.errors import ArtifactError, InputError, is_real
from tealeaves.missing import OnMissingSkip

if TYPE_CHECKING:
    import scipy.sparse as sp

HalvesMode = Literal["first-half", "alternate", "random"]
HALVES_MODES: tuple[str, ...] = ("first-half", "alternate", "random")
"""How :meth:`Corpus.halves` splits each document's tokens into an observed and a held part for
document completion: the first ``ceil(N/2)`` tokens and the rest, even and odd positions, or a
random ``ceil(N/2)`` positions and the rest."""


TOKEN_LISTS_NOT_STRINGS = (
    "texts must be token lists (one list of words per document), not strings: split each text (text.split()), or "
    "prepare raw texts with tealeaves.prepare"
)
"""The refusal of texts given as strings where token lists go."""


class Corpus:
    """Documents as token ids (see the module docstring for the on-disk layout).

    Attributes
    ----------
    vocab : Vocabulary
    tokens : int32 array, all documents concatenated
    offsets : int64 array of length ``n_docs + 1``
    ids, titles, snippets : list of str, one per document
    metadata : list of dict, one per document (other fields of the input)
    manifest : dict, provenance and statistics

    A loaded corpus reads ``docs.jsonl`` (ids, titles, snippets, metadata) only when one of
    those is first used, so work that needs only the token arrays never parses it.

    Examples
    --------
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> corpus = Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab)
    >>> corpus
    Corpus(3 documents, 8 tokens, 4 words)
    >>> corpus.doc(0)
    array([0, 1, 1], dtype=int32)
    >>> [vocab.word(i) for i in corpus.doc(1)]
    ['war', 'peace']

    Indexed as a list of documents is: a number gives that document's token ids, a slice, a list of
    numbers or a boolean mask a corpus of those documents; iterating gives each document's token ids.

    >>> corpus[-1]
    array([0, 1, 3], dtype=int32)
    >>> corpus[1:], corpus[corpus.doc_lengths() == 3]
    (Corpus(2 documents, 5 tokens, 4 words), Corpus(2 documents, 6 tokens, 4 words))
    >>> [len(doc) for doc in corpus]
    [3, 2, 3]

    In a notebook the corpus displays its statistics and its first documents' first words.
    """

    def __init__(
        self,
        vocab: Vocabulary,
        tokens: np.ndarray,
        offsets: np.ndarray,
        ids: Sequence[str] | None = None,
        titles: Sequence[str] | None = None,
        snippets: Sequence[str] | None = None,
        metadata: Sequence[dict[str, Any]] | None = None,
        manifest: dict[str, Any] | None = None,
        *,
        docs_file: Path | None = None,
    ):
        self.vocab = vocab if isinstance(vocab, Vocabulary) else Vocabulary(vocab)
        self.tokens = tokens if isinstance(tokens, np.memmap) else np.ascontiguousarray(tokens, dtype=np.int32)
        self.offsets = offsets if isinstance(offsets, np.memmap) else np.ascontiguousarray(offsets, dtype=np.int64)
        self.manifest = dict(manifest) if manifest is not None else new_manifest("corpus")
        self._fingerprint: str | None = None
        self._hashes: np.ndarray | None = None
        self._validate()
        self._docs_file = docs_file  # read on first use (Corpus.load)
        self._docs: tuple[list[str], list[str], list[str], list[dict[str, Any]]] | None = None
        if docs_file is None:
            self._set_docs(ids, titles, snippets, metadata)

    def _set_docs(
        self,
        ids: Sequence[str] | None,
        titles: Sequence[str] | None,
        snippets: Sequence[str] | None,
        metadata: Sequence[dict[str, Any]] | None,
    ) -> None:
        n = len(self)
        id_list = list(ids) if ids is not None else [str(i) for i in range(n)]
        docs = (
            id_list,
            list(titles) if titles is not None else list(id_list),
            list(snippets) if snippets is not None else [""] * n,
            list(metadata) if metadata is not None else [{} for _ in range(n)],
        )
        columns: tuple[Sized, ...] = docs
        for name, values in zip(("ids", "titles", "snippets", "metadata"), columns):
            if len(values) != n:
                raise ArtifactError(f"corpus has {n} documents but {len(values)} {name}")
        self._docs = docs

    def _doc_fields(self) -> tuple[list[str], list[str], list[str], list[dict[str, Any]]]:
        if self._docs is None:
            assert self._docs_file is not None
            try:
                text = self._docs_file.read_text(encoding="utf-8")
                records = [json.loads(line) for line in text.splitlines()]
                ids, titles, snippets = ([r[key] for r in records] for key in ("id", "title", "snippet"))
            except (OSError, ValueError, KeyError, TypeError) as exc:  # TypeError: a line that is not an object
                raise ArtifactError(f"{self._docs_file} is incomplete or corrupt ({exc}); prepare it again") from exc
            self._set_docs(ids, titles, snippets, [r.get("meta", {}) for r in records])
        assert self._docs is not None
        return self._docs

    @property
    def folder(self) -> Path | None:
        """The folder the corpus was loaded from (:meth:`load`); None for one built in memory."""
        return None if self._docs_file is None else self._docs_file.parent

    @property
    def ids(self) -> list[str]:
        """Document ids, one per document."""
        return self._doc_fields()[0]

    @property
    def titles(self) -> list[str]:
        """Document titles (shown in topic intrusion)."""
        return self._doc_fields()[1]

    @property
    def snippets(self) -> list[str]:
        """The first ~300 characters of each original text (shown in topic intrusion)."""
        return self._doc_fields()[2]

    @property
    def metadata(self) -> list[dict[str, Any]]:
        """Other fields of each input document."""
        return self._doc_fields()[3]

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_documents(cls, docs: Sequence[Sequence[int] | np.ndarray], vocab: Vocabulary, **fields: Any) -> Corpus:
        """A corpus from per-document sequences of token ids (``fields``: ids, titles, ...)."""
        given = [np.asarray(d) for d in docs]
        odd = next(
            (d for d, ids in enumerate(given) if ids.ndim != 1 or (ids.size and ids.dtype.kind not in "iu")), None
        )
        if odd is not None:
            raise InputError(
                f"document {odd} is not a list of token ids (it holds {given[odd].dtype} values of shape "
                f"{given[odd].shape}): documents must be lists of integer ids, one list per document; lists of words "
                "go to Corpus.from_tokenized"
            )
        lengths = np.array([len(ids) for ids in given], dtype=np.int64)
        offsets = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        tokens = np.concatenate(given).astype(np.int64) if offsets[-1] > 0 else np.zeros(0, dtype=np.int64)
        outside = np.flatnonzero((tokens < 0) | (tokens >= len(vocab)))
        if len(outside):
            raise InputError(
                f"document {int(np.searchsorted(offsets, outside[0], side='right')) - 1} holds token id "
                f"{tokens[outside[0]]}, outside 0 .. {len(vocab) - 1}, the ids of the vocabulary's {len(vocab)} words"
            )
        return cls(vocab, tokens.astype(np.int32), offsets, **fields)

    @classmethod
    def from_tokenized(
        cls,
        docs: Sequence[Sequence[str]],
        vocab: Vocabulary | None = None,
        on_missing: OnMissingSkip = "skip",
        **fields: Any,
    ) -> Corpus:
        """A corpus from already tokenized documents (lists of word strings, gensim style).

        Without ``vocab`` the vocabulary is every word seen, sorted; with it, words outside
        it are dropped (``on_missing="skip"``) or refused (``"error"``).
        """
        if isinstance(docs, (str, bytes)) or any(isinstance(d, (str, bytes)) for d in docs):
            raise InputError(TOKEN_LISTS_NOT_STRINGS)
        if vocab is None:
            vocab = Vocabulary(sorted({w for d in docs for w in d}))
        return cls.from_documents([vocab.ids(list(d), on_missing=on_missing) for d in docs], vocab, **fields)

    def _validate(self) -> None:
        offsets, tokens = self.offsets, self.tokens
        n = len(offsets) - 1
        if tokens.ndim != 1 or offsets.ndim != 1 or n < 0:
            raise ArtifactError("corpus tokens and offsets must be one-dimensional arrays")
        if offsets[0] != 0 or offsets[-1] != len(tokens) or np.any(np.diff(offsets) < 0):
            raise ArtifactError(
                "corpus offsets must start at 0, never decrease and end at the number of tokens; "
                "the corpus folder is corrupt: prepare it again"
            )
        if len(tokens) and (int(tokens.min()) < 0 or int(tokens.max()) >= len(self.vocab)):
            raise ArtifactError(
                f"corpus token ids fall outside the vocabulary of {len(self.vocab)} words; "
                "the corpus folder is corrupt: prepare it again"
            )

    # ----------------------------------------------------------------- access
    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __iter__(self) -> Iterator[np.ndarray]:
        """Each document's token ids, in order (:meth:`doc`)."""
        return (self.doc(i) for i in range(len(self)))

    def __getitem__(self, key: int | slice | Sequence[int] | np.ndarray) -> Any:
        """``corpus[i]``: document ``i``'s token ids (:meth:`doc`; from the end where negative, IndexError
        past it, as a list); ``corpus[2:10]``, ``corpus[[4, 1]]`` or ``corpus[lengths >= 50]``: a corpus of
        those documents (:meth:`subset`), as NumPy and pandas select rows."""
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            return self.doc(int(key))
        if isinstance(key, slice):
            return self.subset(np.arange(len(self))[key])
        if isinstance(key, (list, tuple, np.ndarray)) or is_frame(key):
            return self.subset(np.asarray(key))
        raise InputError(
            f"a corpus is indexed by a document number, a slice, a list of numbers or a boolean mask, got {key!r:.80}"
        )

    def __repr__(self) -> str:
        n = len(self)
        return f"Corpus({n} document{'' if n == 1 else 's'}, {self.n_tokens} tokens, {len(self.vocab)} words)"

    def _repr_html_(self) -> str:
        """The notebook display: the statistics and the first documents' first words."""
        words = self.vocab.words
        shown = range(min(len(self), display.MAX_ROWS))
        table = {
            "document": list(shown),
            "tokens": [int(self.offsets[i + 1] - self.offsets[i]) for i in shown],
            "first words": [display.words([words[t] for t in self.doc(i)[: display.MAX_WORDS]]) for i in shown],
        }
        return display.html("Corpus", self.stats(), table, rows=len(self))

    @property
    def n_tokens(self) -> int:
        """Total number of tokens."""
        return int(self.offsets[-1])

    def doc(self, i: int) -> np.ndarray:
        """Token ids of document ``i`` (an int32 view, no copy)."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"document index {i} out of range for a corpus of {len(self)} documents")
        i %= len(self)
        return self.tokens[self.offsets[i] : self.offsets[i + 1]]

    def texts(self) -> list[list[str]]:
        """Each document as the list of its words, in order: the token lists gensim reads.

        The inverse of :meth:`from_tokenized`, for a ``gensim.corpora.Dictionary``, a ``Word2Vec``
        or anything else that takes tokenized texts.

        Examples
        --------
        >>> from tealeaves.corpus import Corpus
        >>> corpus = Corpus.from_tokenized([["tax", "budget", "tax"], ["war"]])
        >>> corpus.texts()
        [['tax', 'budget', 'tax'], ['war']]
        """
        words = np.asarray(self.vocab.words, dtype=object)
        return [words[self.doc(i)].tolist() for i in range(len(self))]

    def doc_lengths(self) -> np.ndarray:
        """Number of tokens in each document (int64)."""
        return np.diff(self.offsets)

    def doc_term_matrix(self) -> sp.csr_matrix:
        """Counts as a scipy CSR matrix, documents x vocabulary (int64)."""
        import scipy.sparse as sp

        rows = np.repeat(np.arange(len(self), dtype=np.int64), self.doc_lengths())
        data = np.ones(len(rows), dtype=np.int64)
        matrix = sp.csr_matrix((data, (rows, np.asarray(self.tokens))), shape=(len(self), len(self.vocab)))
        matrix.sum_duplicates()
        return matrix

    def document_frequency(self) -> np.ndarray:
        """Number of documents containing each word (int64, length ``len(vocab)``)."""
        return np.bincount(self.doc_term_matrix().indices, minlength=len(self.vocab)).astype(np.int64)

    def fingerprint(self) -> str:
        """SHA-256 over tokens, offsets and vocabulary: equal iff the corpora are equal."""
        if self._fingerprint is None:
            self._fingerprint = arrays_sha256(self.tokens, self.offsets, texts=self.vocab.words)
        return self._fingerprint

    def document_hashes(self) -> np.ndarray:
        """A 64-bit key per document (uint64[D]) that names it in any corpus: what tells which documents
        of one corpus are documents of another (:meth:`tealeaves.models.TopicModel.seen_documents`).

        A document with a snippet (every prepared one) is keyed by its source: the first 8 bytes of
        BLAKE2b over its id and snippet, the same whatever vocabulary a split keeps. A document without
        one (a corpus built from token ids) is keyed by its bag of words, :math:`\\sum_n h(w_n) \\bmod 2^{64}`
        with :math:`h(w)` the first 8 bytes of BLAKE2b over the word's UTF-8 bytes; an empty one is 0.

        Examples
        --------
        >>> from tealeaves.corpus import Corpus, Vocabulary
        >>> vocab = Vocabulary(["tax", "budget", "war"])
        >>> corpus = Corpus.from_documents([[0, 1], [1, 0], [2]], vocab)
        >>> keys = corpus.document_hashes()
        >>> bool(keys[0] == keys[1]), bool(keys[0] == keys[2])  # the same bag of words, another one
        (True, False)
        """
        if self._hashes is None:  # computed once (read-only), as the fingerprint
            ids, snippets = self.ids, self.snippets
            sourced = [i for i, text in enumerate(snippets) if text]
            keys = np.zeros(len(self), dtype=np.uint64)
            if len(sourced) < len(self):
                word_keys = _blake64([word.encode() for word in self.vocab.words])
                sums = np.zeros(len(self.tokens) + 1, dtype=np.uint64)
                np.cumsum(word_keys[np.asarray(self.tokens)], dtype=np.uint64, out=sums[1:])  # wraps modulo 2^64
                keys = sums[self.offsets[1:]] - sums[self.offsets[:-1]]
            keys[sourced] = _blake64([f"{ids[i]}\0{snippets[i]}".encode() for i in sourced])
            keys.setflags(write=False)
            self._hashes = keys
        return self._hashes

    def stats(self) -> dict[str, Any]:
        """Summary statistics (also stored in the manifest on save)."""
        lengths = self.doc_lengths()
        return {
            "n_docs": len(self),
            "n_tokens": self.n_tokens,
            "vocab_size": len(self.vocab),
            "mean_doc_length": float(lengths.mean()) if len(lengths) else 0.0,
            "min_doc_length": int(lengths.min()) if len(lengths) else 0,
            "max_doc_length": int(lengths.max()) if len(lengths) else 0,
        }

    # ----------------------------------------------------------------- derived corpora
    def subset(self, indices: Sequence[int] | np.ndarray, note: str | None = None) -> Corpus:
        """The documents at ``indices`` (in that order), or where a boolean mask of one entry per document is
        true (``corpus.subset(corpus.doc_lengths() >= 50)``), sharing this vocabulary.

        A mask used to be read as the document numbers 0 and 1, repeated."""
        picked = np.asarray(indices)
        if picked.dtype == np.bool_:
            if picked.shape != (len(self),):
                raise InputError(
                    f"a mask picks documents with one true or false per document ({len(self)}), got shape {picked.shape}"
                )
            picked = np.flatnonzero(picked)
        elif picked.ndim != 1 or (picked.size and not np.issubdtype(picked.dtype, np.integer)):
            raise InputError(f"indices must be a list of document numbers or a boolean mask, got {indices!r:.80}")
        indices = picked.astype(np.int64)
        docs = [self.doc(int(i)) for i in indices]
        manifest = dict(self.manifest)
        if note:
            manifest["derived"] = [*manifest.get("derived", []), note]
        return Corpus.from_documents(
            docs,
            self.vocab,
            ids=[self.ids[i] for i in indices],
            titles=[self.titles[i] for i in indices],
            snippets=[self.snippets[i] for i in indices],
            metadata=[self.metadata[i] for i in indices],
            manifest=manifest,
        )

    def split(self, heldout: float = 0.2, seed: int | np.random.Generator = 0) -> tuple[Corpus, Corpus]:
        """Random document split into ``(train, heldout)`` sharing this vocabulary.

        ``round(heldout * n_docs)`` documents (at least one of each side) go to the held-out
        part; both parts keep the original document order. The same seed gives the same split.
        (``tealeaves.prepare(..., heldout=...)`` instead builds the vocabulary from the
        training part only, as Hoyle et al. 2021 do.)
        """
        train_idx, held_idx = split_indices(len(self), heldout, seed)
        note = f"split(heldout={heldout}, seed={seed if isinstance(seed, int) else 'generator'})"
        return self.subset(train_idx, note + ": train"), self.subset(held_idx, note + ": heldout")

    def halves(self, mode: HalvesMode = "first-half", seed: int | np.random.Generator = 0) -> tuple[Corpus, Corpus]:
        """Split every document into an observed part and a held part (document completion).

        ``first-half``: the first ``ceil(N/2)`` tokens are observed, the rest held;
        ``alternate``: even positions observed, odd positions held;
        ``random``: a random ``ceil(N/2)`` positions observed (order kept), the rest held,
        drawn from the ``"corpus halves"`` stream family under ``seed``
        (:func:`tealeaves.rng.family_generator`).
        Returns ``(observed, held)``, both with this corpus' documents, ids and vocabulary.
        """
        from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

        if mode not in HALVES_MODES:
            raise InputError(f"halves mode must be one of {', '.join(HALVES_MODES)}, got {mode!r}")
        rng = family_generator(seed, "corpus halves")
        observed, held = [], []
        for i in range(len(self)):
            doc = self.doc(i)
            n = len(doc)
            mask = np.zeros(n, dtype=bool)
            if mode == "first-half":
                mask[: n - n // 2] = True
            elif mode == "alternate":
                mask[::2] = True
            else:
                mask[rng.choice(n, size=n - n // 2, replace=False)] = True
            observed.append(doc[mask])
            held.append(doc[~mask])
        fields = {"ids": self.ids, "titles": self.titles, "snippets": self.snippets, "metadata": self.metadata}
        manifest = {**self.manifest, "derived": [*self.manifest.get("derived", []), f"halves({mode})"]}
        return (
            Corpus.from_documents(observed, self.vocab, manifest=manifest, **fields),
            Corpus.from_documents(held, self.vocab, manifest=manifest, **fields),
        )

    # ----------------------------------------------------------------- persistence
    def save(self, out: str | os.PathLike[str], force: bool = False) -> Path:
        """Write the corpus folder atomically (refuses an existing folder unless ``force``)."""
        manifest = self.saved_manifest()

        def write(tmp: Path) -> None:
            np.save(tmp / "tokens.npy", np.asarray(self.tokens, dtype=np.int32))
            np.save(tmp / "offsets.npy", np.asarray(self.offsets, dtype=np.int64))
            self.vocab.save(tmp / "vocab.txt")
            with open(tmp / "docs.jsonl", "w", encoding="utf-8") as handle:
                for i in range(len(self)):
                    record: dict[str, Any] = {"id": self.ids[i], "title": self.titles[i], "snippet": self.snippets[i]}
                    if self.metadata[i]:
                        record["meta"] = self.metadata[i]
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            write_json(tmp / "manifest.json", manifest)

        write_artifact(out, write, force=force)
        self.manifest = manifest
        return Path(out)

    def saved_manifest(self) -> dict[str, Any]:
        """The manifest written with the corpus: its own, with its statistics and fingerprint."""
        return {**self.manifest, "kind": "corpus", "stats": self.stats(), "fingerprint": self.fingerprint()}

    @classmethod
    def load(cls, path: str | os.PathLike[str], mmap: bool = True) -> Corpus:
        """Load a corpus folder; arrays are memory-mapped read-only unless ``mmap=False``."""
        path = Path(path)
        if path.is_file():  # texts where a prepared corpus goes
            raise ArtifactError(
                f"{path} is a file, not a corpus folder: texts become a corpus with tealeaves prepare {path} "
                "--out <folder>"
            )
        if read_manifest(path).get("kind") == "corpus-split":
            raise ArtifactError(f"{path} holds a train/held-out split: pass {path / 'train'} or {path / 'heldout'}")
        manifest = read_manifest(path, kind="corpus")
        try:
            tokens = np.load(path / "tokens.npy", mmap_mode="r" if mmap else None)
            offsets = np.load(path / "offsets.npy", mmap_mode="r" if mmap else None)
        except (OSError, ValueError) as exc:
            raise ArtifactError(f"corpus {path} is incomplete or corrupt ({exc}); prepare it again") from exc
        if not (path / "docs.jsonl").is_file():
            raise ArtifactError(f"corpus {path} has no docs.jsonl; prepare it again")
        return cls(
            Vocabulary.load(path / "vocab.txt"), tokens, offsets, manifest=manifest, docs_file=path / "docs.jsonl"
        )


def _blake64(items: list[bytes]) -> np.ndarray:
    """The first 8 bytes of BLAKE2b over each item, as uint64 (little-endian)."""
    digests = b"".join(hashlib.blake2b(item, digest_size=8).digest() for item in items)
    return np.frombuffer(digests, dtype="<u8").astype(np.uint64)


def split_indices(n: int, heldout: float, seed: int | np.random.Generator = 0) -> tuple[np.ndarray, np.ndarray]:
    """Sorted ``(train, heldout)`` index arrays of a random split of ``n`` items.

    The permutation comes from the ``"corpus split"`` stream family under ``seed``
    (:func:`tealeaves.rng.family_generator`), so no other function called with the same seed
    draws the same numbers.
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    if not is_real(heldout) or not 0.0 < heldout < 1.0:
        raise InputError(f"heldout must be a fraction between 0 and 1 (exclusive), got {heldout!r}")
    if n < 2:
        raise InputError(f"cannot split {n} document(s) into train and held-out parts; need at least 2")
    n_held = min(max(round(heldout * n), 1), n - 1)
    order = family_generator(seed, "corpus split").permutation(n)
    return np.sort(order[n_held:]), np.sort(order[:n_held])
