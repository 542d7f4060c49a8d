"""RefIndex: a positional inverted index of a reference corpus, memory-mapped.

Coherence measures need, for a handful of topic words, how many windows of a reference
corpus hold each word and each pair. Scanning the corpus for every topic set and window size
(as gensim does) costs a pass over every token each time. A RefIndex is built once, in one
pass over the prepared reference corpus (processed identically to the training corpus, with
its vocabulary: Hoyle et al. 2021, A.2 and footnote 18), and answers any window size, the
whole-document window and ±c context windows from the positions of the words asked about:
their occurrences, merged in position order, are swept once, in time proportional to those
occurrences, not to the corpus. Up to
:data:`~tealeaves.coherence.counting.NUMPY_MAX_OCCURRENCES` occurrences numpy counts them
(:mod:`tealeaves.coherence.counting`); more, or a process's counts past
:data:`~tealeaves.coherence.counting.NUMPY_BUDGET`, are swept by numba kernels on threads.

On disk an index is a folder with

- ``positions.npy``    int32 (int64 past 2**31 tokens) [n_tokens]: for each word in id order,
  the global positions of its occurrences, increasing;
- ``word_offsets.npy`` int64[V + 1]: word ``w``'s positions are
  ``positions[word_offsets[w]:word_offsets[w + 1]]``;
- ``doc_offsets.npy``  int64[D + 1]: the corpus' document offsets (the document of a position);
- ``vocab.txt`` and ``manifest.json`` (the corpus fingerprint and statistics, the
  document-length histogram, how the index was built).

The positions and the two offset arrays are the corpus' token array regrouped plus
``8 (V + D + 2)`` bytes: the index is about as large as the token array.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from tealeaves import display
from tealeaves.artifacts import check_writable, new_manifest, read_manifest, write_artifact, write_json
from tealeaves.coherence import counting
from tealeaves.coherence.windows import Window, check_compat, count_windows, counting_mode, windows_per_document
from tealeaves.corpus import Corpus, Vocabulary, as_corpus
from tealeaves.errors import ArtifactError, InputError
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Columns, Result

KIND = "ref-index"
INT32_LIMIT = 2**31 - 1
SLAB_TOKENS = 1 << 24  # tokens grouped by word at once when building: bounds the sort's memory (10 bytes a token)
DENSE_PAIRS_MAX = 2048  # up to this many words, the sweep looks pairs up in a word x word matrix

# for each word slot, its partners as CSR arrays: start[m + 1], partner slot, pair index (see _partners)
_Partners = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class WindowCounts(Result):
    """Marginal and pairwise window counts of a set of words (see :meth:`RefIndex.window_counts`).

    Attributes
    ----------
    words : tuple of str
    word_ids : int64[m]
    marginal : int64[m]
        Windows holding each word (context windows: (centre, context) pairs centred on it).
    joint : int64[m, m]
        Windows holding both words (context windows: pairs with one at the centre and the
        other in the context). For sliding and document windows the diagonal is ``marginal``.
    n_windows : int
        Windows in the corpus (context windows: (centre, context) pairs).
    window : str
    compat : str or None

    Examples
    --------
    Sliding windows of 2 tokens over "tax budget budget", "war peace" and "tax budget peace":
    2 + 1 + 2 = 5 windows, "budget" in 4 of them, with "tax" in 2.

    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary, as_corpus
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab))
    >>> counts = index.window_counts(["tax", "budget"], 2)
    >>> counts.n_windows, counts.marginal.tolist(), counts.joint.tolist()
    (5, [2, 4], [[2, 2], [2, 4]])
    >>> counts.columns()["joint"].tolist()  # pairs (tax, tax), (tax, budget), (budget, budget)
    [2, 2, 4]
    """

    words: tuple[str, ...]
    word_ids: np.ndarray
    marginal: np.ndarray
    joint: np.ndarray
    n_windows: int
    window: str
    compat: str | None

    def columns(self) -> Columns:
        """One row per pair of words (``i <= j``) with both marginals and the joint count."""
        a, b = np.triu_indices(len(self.words))
        return {
            "word_a": [self.words[i] for i in a],
            "word_b": [self.words[j] for j in b],
            "count_a": np.asarray(self.marginal, dtype=np.int64)[a],
            "count_b": np.asarray(self.marginal, dtype=np.int64)[b],
            "joint": np.asarray(self.joint, dtype=np.int64)[a, b],
            "n_windows": np.full(len(a), self.n_windows, dtype=np.int64),
        }


class RefIndex:
    """Positional index of a reference corpus (see the module docstring).

    Attributes
    ----------
    vocab : Vocabulary
    positions : int32 or int64 array
    word_offsets : int64[V + 1]
    doc_offsets : int64[D + 1]
    manifest : dict

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary, as_corpus
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab))
    >>> index
    RefIndex(3 documents, 8 tokens, 4 words)
    >>> index.frequency([vocab.id("budget")])
    array([3])

    In a notebook the index displays its size and its most frequent words.
    """

    def __init__(
        self,
        vocab: Vocabulary,
        positions: np.ndarray,
        word_offsets: np.ndarray,
        doc_offsets: np.ndarray,
        manifest: dict[str, Any] | None = None,
    ):
        self.vocab = vocab
        self.positions = positions
        self.word_offsets = word_offsets
        self.doc_offsets = doc_offsets
        self.manifest = dict(manifest) if manifest is not None else new_manifest(KIND)
        self._validate()
        lengths, counts = np.unique(np.diff(self.doc_offsets), return_counts=True)
        self.length_values = lengths.astype(np.int64)
        self.length_counts = counts.astype(np.int64)

    def _validate(self) -> None:
        v, n = len(self.vocab), len(self.positions)
        wo, do = self.word_offsets, self.doc_offsets
        if self.positions.ndim != 1 or wo.shape != (v + 1,) or do.ndim != 1 or len(do) < 1:
            raise ArtifactError(f"index arrays have the wrong shapes for a vocabulary of {v} words; rebuild the index")
        if wo[0] != 0 or wo[-1] != n or do[0] != 0 or do[-1] != n:
            raise ArtifactError("index offsets do not span its positions; the index is corrupt: rebuild it")

    # ----------------------------------------------------------------- construction
    @classmethod
    def build(
        cls,
        corpus: Corpus | str | os.PathLike[str],
        out: str | os.PathLike[str] | None = None,
        *,
        workers: int | None = 1,
        scheduler: str | None = None,
        shards: int | None = None,
        force: bool = False,
        progress: ProgressCallback | None = None,
    ) -> RefIndex:
        """Index a prepared reference corpus in one pass (a stable radix sort of its tokens by word).

        Parameters
        ----------
        corpus : Corpus, path, or texts
            The reference corpus, processed identically to the training corpus and with its
            vocabulary (``tealeaves prepare REFTEXTS --vocab-from TRAIN``), or texts as
            :func:`~tealeaves.corpus.as_corpus` reads them (gensim's token lists, a
            Dictionary with its bag-of-words corpus).
        out : path, optional
            Also write the index folder here (atomically).
        workers, scheduler
            Spread the shards over processes or a Dask cluster (:mod:`tealeaves.parallel`).
        shards : int, optional
            Number of document-aligned shards (default: one per worker; a corpus prepared in
            shards, :mod:`tealeaves.corpus.shards`, is indexed in its own shards when the work
            is spread over several workers or a scheduler).
        force : bool
            Replace an existing ``out``.
        """
        from tealeaves.parallel import parallel_map, resolve_workers  # processes: only to build

        if out is not None:
            check_writable(out, force, inputs=[corpus])
        corpus = as_corpus(corpus)
        started = time.perf_counter()
        n_shards = resolve_workers(workers) if shards is None else shards
        if n_shards < 1:
            raise InputError(f"shards must be at least 1, got {n_shards}")
        n_words, n_tokens = len(corpus.vocab), corpus.n_tokens
        dtype = np.int32 if n_tokens <= INT32_LIMIT else np.int64
        recorded = (corpus.manifest.get("shards") or {}).get("token_bounds")
        if shards is None and recorded and recorded[-1] == n_tokens and (scheduler is not None or n_shards > 1):
            bounds = np.asarray(recorded, dtype=np.int64)
        else:
            bounds = _shard_bounds(np.asarray(corpus.offsets), n_shards)
        if len(bounds) == 2:
            counts, positions = _group_by_word(corpus.tokens, 0, n_words, dtype)
            notify(progress, "index", 1, 1)
        else:
            source = getattr(corpus.tokens, "filename", None)
            tasks = [
                _Shard(source, None if source else np.asarray(corpus.tokens[a:b]), int(a), int(b), n_words, dtype)
                for a, b in itertools.pairwise(bounds)
            ]
            parts = parallel_map(
                _index_shard, tasks, workers=workers, scheduler=scheduler, progress=progress, task="index"
            )
            counts, positions = _merge_groups(parts, n_words, dtype)
        word_offsets = _offsets(counts)
        doc_offsets = np.array(corpus.offsets, dtype=np.int64)
        lengths, length_counts = np.unique(np.diff(doc_offsets), return_counts=True)
        manifest = new_manifest(
            KIND,
            corpus={
                "fingerprint": corpus.fingerprint(),
                "stats": corpus.stats(),
                "role": corpus.manifest.get("role"),
                "word_order": corpus.manifest.get("word_order", True),
                "preprocessing": (corpus.manifest.get("preprocessing") or {}).get("config"),
            },
            length_histogram={"lengths": lengths, "counts": length_counts},
            build={
                "shards": len(bounds) - 1,
                "workers": resolve_workers(workers),
                "scheduler": scheduler,
                "seconds": time.perf_counter() - started,
            },
            stats={"n_docs": len(corpus), "n_tokens": n_tokens, "vocab_size": n_words},
        )
        index = cls(corpus.vocab, positions, word_offsets, doc_offsets, manifest)
        if out is not None:
            index.save(out, force=force)
        return index

    def save(self, out: str | os.PathLike[str], force: bool = False) -> Path:
        """Write the index folder atomically (refuses an existing folder unless ``force``)."""
        token_bytes = 4 * self.n_tokens
        array_bytes = self.positions.nbytes + self.word_offsets.nbytes + self.doc_offsets.nbytes
        manifest = {
            **self.manifest,
            "kind": KIND,
            "size": {
                "array_bytes": array_bytes,
                "token_array_bytes": token_bytes,
                "ratio_to_token_array": array_bytes / token_bytes if token_bytes else None,
            },
        }

        def write(tmp: Path) -> None:
            np.save(tmp / "positions.npy", np.asarray(self.positions))
            np.save(tmp / "word_offsets.npy", np.asarray(self.word_offsets))
            np.save(tmp / "doc_offsets.npy", np.asarray(self.doc_offsets))
            self.vocab.save(tmp / "vocab.txt")
            write_json(tmp / "manifest.json", manifest)

        write_artifact(out, write, force=force)
        self.manifest = manifest
        return Path(out)

    @classmethod
    def load(cls, path: str | os.PathLike[str], mmap: bool = True) -> RefIndex:
        """Load an index folder; its arrays are memory-mapped read-only unless ``mmap=False``."""
        path = Path(path)
        manifest = read_manifest(path, kind=KIND)
        mode: Literal["r"] | None = "r" if mmap else None
        try:
            positions, word_offsets, doc_offsets = (
                np.load(path / f"{name}.npy", mmap_mode=mode) for name in ("positions", "word_offsets", "doc_offsets")
            )
        except (OSError, ValueError) as exc:
            raise ArtifactError(f"index {path} is incomplete or corrupt ({exc}); build it again") from exc
        return cls(Vocabulary.load(path / "vocab.txt"), positions, word_offsets, doc_offsets, manifest=manifest)

    # ----------------------------------------------------------------- access
    def __repr__(self) -> str:
        n = self.n_docs
        return f"RefIndex({n} document{'' if n == 1 else 's'}, {self.n_tokens} tokens, {len(self.vocab)} words)"

    def _repr_html_(self) -> str:
        """The notebook display: documents, tokens, words, the corpus fingerprint and the most frequent words."""
        counts = np.diff(np.asarray(self.word_offsets, dtype=np.int64))
        top = np.argsort(-counts, kind="stable")[: display.MAX_ROWS]
        summary = {
            "documents": self.n_docs,
            "tokens": self.n_tokens,
            "words (V)": len(self.vocab),
            "corpus fingerprint": (self.corpus_fingerprint or "")[:16] or None,
        }
        table = {"word": [self.vocab.words[i] for i in top], "occurrences": counts[top]}
        return display.html("RefIndex", summary, table, rows=len(self.vocab))

    @property
    def n_tokens(self) -> int:
        """Tokens in the reference corpus."""
        return int(self.doc_offsets[-1])

    @property
    def n_docs(self) -> int:
        """Documents in the reference corpus."""
        return len(self.doc_offsets) - 1

    @property
    def corpus_fingerprint(self) -> str | None:
        """Fingerprint of the indexed corpus (:meth:`Corpus.fingerprint`)."""
        return (self.manifest.get("corpus") or {}).get("fingerprint")

    def frequency(self, word_ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """Occurrences of each word in the reference corpus (int64)."""
        ids = np.asarray(word_ids, dtype=np.int64)
        return np.asarray(self.word_offsets[ids + 1] - self.word_offsets[ids], dtype=np.int64)

    def occurrences(self, word: str | int) -> np.ndarray:
        """Sorted global positions of ``word`` (a view into the index)."""
        w = self.vocab.id(word) if isinstance(word, str) else int(word)
        if not 0 <= w < len(self.vocab):
            raise InputError(f"word id {w} is outside the index vocabulary of {len(self.vocab)} words")
        return self.positions[self.word_offsets[w] : self.word_offsets[w + 1]]

    def n_windows(self, window: Window | int | str, compat: str | None = None) -> int:
        """Windows in the corpus for ``window`` (context windows: (centre, context) pairs)."""
        return count_windows(self.length_values, self.length_counts, self._ordered(window), compat)

    def _ordered(self, window: Window | int | str) -> Window:
        """``window`` parsed; refused unless whole documents when the corpus was a bag of words (no word order)."""
        parsed = Window.parse(window)
        if parsed.kind != "document" and (self.manifest.get("corpus") or {}).get("word_order") is False:
            raise InputError(
                f"the reference corpus is a bag of words (no word order), so {parsed} windows cannot be counted "
                'on it: use window="document" (as gensim\'s u_mass counts), or pass the token lists'
            )
        return parsed

    # ----------------------------------------------------------------- counting
    def window_counts(
        self,
        word_ids: Sequence[int] | Sequence[str] | np.ndarray,
        window: Window | int | str,
        compat: str | None = None,
    ) -> WindowCounts:
        """Marginal and pairwise co-occurrence counts of a set of words.

        Parameters
        ----------
        word_ids : sequence of int or str
            Word ids of the index vocabulary, or the words themselves.
        window : Window, int or str
            ``10`` (sliding windows of 10 tokens), ``"document"`` or ``"context:5"``
            (see :mod:`tealeaves.coherence.windows`).
        compat : None, "gensim" or "lau"
            Count sliding windows exactly (None), as gensim 4.x does, or as Lau et al.'s
            toolkit does (padded windows). Document and context counts are the same for all.

        Returns
        -------
        WindowCounts
        """
        ids = self._word_ids(word_ids)
        m = len(ids)
        left, right = np.triu_indices(m)
        marginal, pairs, n_windows = self.pair_counts(ids, left, right, window, compat)
        joint = np.zeros((m, m), dtype=np.int64)
        joint[left, right] = pairs
        joint[right, left] = pairs
        words = tuple(self.vocab.word(int(i)) for i in ids)
        return WindowCounts(words, ids, marginal, joint, n_windows, str(Window.parse(window)), compat)

    def pair_counts(
        self,
        word_ids: np.ndarray,
        left: np.ndarray,
        right: np.ndarray,
        window: Window | int | str,
        compat: str | None = None,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Counts for chosen pairs only: ``(marginal[m], joint[k], n_windows)``.

        ``joint[k]`` counts windows holding both ``word_ids[left[k]]`` and
        ``word_ids[right[k]]``; use this instead of :meth:`window_counts` when only some of
        the ``m * m`` pairs are needed (e.g. the pairs inside each of many topics).
        """
        ids = self._word_ids(word_ids)
        if len(np.unique(ids)) != len(ids):
            twice = next(int(i) for n, i in enumerate(ids) if i in ids[:n])
            raise InputError(f"the words must be distinct, but {self.vocab.word(twice)!r} is given twice")
        left = np.asarray(left, dtype=np.int64)
        right = np.asarray(right, dtype=np.int64)
        if left.shape != right.shape or (
            len(left) and (min(left.min(), right.min()) < 0 or max(left.max(), right.max()) >= len(ids))
        ):
            raise InputError("pair indices must be equal-length arrays of positions in word_ids")
        window = self._ordered(window)
        check_compat(compat)
        n_windows = self.n_windows(window, compat)
        if len(ids) * (max(self.n_tokens, n_windows) + 2) >= 2**62:
            raise InputError(f"cannot count {len(ids)} words at once in {self.n_tokens} tokens; ask for fewer words")
        occurrences, offsets = counting.gather_occurrences(
            np.asarray(self.positions), np.asarray(self.word_offsets), ids
        )
        if counting.counts_here(len(occurrences)):
            marginal, joint = self._numpy_counts(occurrences, offsets, left, right, window, compat)
        else:
            marginal, joint = self._swept_counts(occurrences, offsets, ids, left, right, window, compat)
        if window.kind != "context":
            same = left == right
            joint[same] = marginal[left[same]]
        return marginal, joint, n_windows

    def _window_offsets(self, window: Window, compat: str | None) -> np.ndarray:
        """The global number of each document's first window (int64[D + 1])."""
        window_offsets = np.zeros(self.n_docs + 1, dtype=np.int64)
        np.cumsum(windows_per_document(np.diff(np.asarray(self.doc_offsets)), window, compat), out=window_offsets[1:])
        return window_offsets

    def _numpy_counts(
        self,
        occurrences: np.ndarray,
        offsets: np.ndarray,
        left: np.ndarray,
        right: np.ndarray,
        window: Window,
        compat: str | None,
    ) -> tuple[np.ndarray, np.ndarray]:
        doc_offsets = np.asarray(self.doc_offsets)
        if window.kind == "context":
            return counting.context_counts(occurrences, offsets, doc_offsets, window.size, left, right)
        mode = counting_mode(window, compat)
        window_offsets = self._window_offsets(window, compat)
        return counting.window_counts(occurrences, offsets, doc_offsets, window_offsets, mode, window.size, left, right)

    def _swept_counts(
        self,
        occurrences: np.ndarray,
        offsets: np.ndarray,
        ids: np.ndarray,
        left: np.ndarray,
        right: np.ndarray,
        window: Window,
        compat: str | None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The numba sweep (:mod:`tealeaves.coherence._kernels`) over the occurrences merged in
        position order, in chunks cut between documents, on threads."""
        from tealeaves import jit
        from tealeaves.coherence import _kernels

        m = len(ids)
        bits = max(1, (m - 1).bit_length())
        keys = (occurrences << bits) | np.repeat(np.arange(m, dtype=np.int64), np.diff(offsets))
        keys.sort()
        positions, word_offsets, doc_offsets = (
            np.asarray(self.positions),
            np.asarray(self.word_offsets),
            np.asarray(self.doc_offsets),
        )
        chunks = _chunks(keys >> bits, doc_offsets, 4 * jit.threads())
        partners = _partners(m, left, right)
        marginal = np.zeros((len(chunks) - 1, m), dtype=np.int64)
        joint = np.zeros((len(chunks) - 1, len(left)), dtype=np.int64)
        stream = (keys, bits, positions, word_offsets, ids, doc_offsets)
        if window.kind == "context":

            def sweep(c: int) -> None:
                _kernels.context_sweep(chunks[c], chunks[c + 1], *stream, *partners, window.size, marginal[c], joint[c])

        else:
            mode, window_offsets = counting_mode(window, compat), self._window_offsets(window, compat)
            pair_of = _pair_matrix(m, partners)

            def sweep(c: int) -> None:
                _kernels.window_sweep(
                    chunks[c],
                    chunks[c + 1],
                    *stream,
                    window_offsets,
                    mode,
                    window.size,
                    *partners,
                    pair_of,
                    marginal[c],
                    joint[c],
                )

        jit.map_threads(sweep, range(len(chunks) - 1))
        total = joint.sum(axis=0)
        if window.kind == "context":
            total[left == right] *= 2  # ordered pairs of two occurrences of one word
        return marginal.sum(axis=0), total

    def _word_ids(self, words: Sequence[int] | Sequence[str] | np.ndarray) -> np.ndarray:
        items = list(words) if not isinstance(words, np.ndarray) else words.tolist()
        strings = [w for w in items if isinstance(w, str)]
        if items and len(strings) == len(items):
            return self.vocab.ids(strings, on_missing="error")
        try:
            ids = np.asarray(items, dtype=np.int64).reshape(-1)
        except (TypeError, ValueError):
            raise InputError("word_ids must be word ids (ints) or words (strings)") from None
        if len(ids) and (ids.min() < 0 or ids.max() >= len(self.vocab)):
            raise InputError(f"word ids must lie in 0..{len(self.vocab) - 1} (the index vocabulary)")
        return ids


@dataclass(frozen=True)
class _Shard:
    """A document-aligned slice of the token array, by file (memory-mapped) or by value."""

    path: str | None
    tokens: np.ndarray | None
    start: int
    stop: int
    n_words: int
    dtype: type[np.signedinteger]


def _index_shard(shard: _Shard) -> tuple[np.ndarray, np.ndarray]:
    """Counts and word-grouped global positions of one shard (runs in a worker)."""
    if shard.path is not None:
        tokens = np.load(shard.path, mmap_mode="r")[shard.start : shard.stop]
    else:
        tokens = np.asarray(shard.tokens)
    return _group_by_word(tokens, shard.start, shard.n_words, shard.dtype)


def _group_by_word(
    tokens: np.ndarray, first_position: int, n_words: int, dtype: type[np.signedinteger]
) -> tuple[np.ndarray, np.ndarray]:
    """Each word's count and the global positions of its occurrences, word by word, in increasing
    order (a stable sort of the token array by word id), ``SLAB_TOKENS`` tokens at a time."""
    parts = []
    for start in range(0, max(len(tokens), 1), SLAB_TOKENS):
        slab = np.asarray(tokens[start : start + SLAB_TOKENS])
        order = _stable_order(slab, n_words)
        parts.append(
            (np.bincount(slab, minlength=n_words).astype(np.int64), (order + first_position + start).astype(dtype))
        )
    return _merge_groups(parts, n_words, dtype)


def _stable_order(tokens: np.ndarray, n_words: int) -> np.ndarray:
    """The indices that sort ``tokens`` stably: numpy's radix sort of 16-bit keys, in two passes
    (low half, then high half) past 65,536 words."""
    if n_words <= 1 << 16:
        return np.argsort(tokens.astype(np.uint16), kind="stable")
    order = np.argsort((tokens & 0xFFFF).astype(np.uint16), kind="stable")
    return order[np.argsort((tokens[order] >> 16).astype(np.uint16), kind="stable")]


def _merge_groups(
    parts: list[tuple[np.ndarray, np.ndarray]], n_words: int, dtype: type[np.signedinteger]
) -> tuple[np.ndarray, np.ndarray]:
    """One word-grouped array from the word-grouped ``(counts, positions)`` of consecutive parts:
    each part's positions of a word follow those of the parts before it."""
    if len(parts) == 1:
        return parts[0]
    counts = np.sum([c for c, _ in parts], axis=0, dtype=np.int64).reshape(n_words)
    positions = np.empty(int(counts.sum()), dtype=dtype)
    cursor = _offsets(counts)[:-1]
    for part_counts, part_positions in parts:
        moved = cursor - _offsets(part_counts)[:-1]  # where each word's positions go, less where they are
        positions[np.arange(len(part_positions)) + np.repeat(moved, part_counts)] = part_positions
        cursor += part_counts
    return counts, positions


def _partners(m: int, left: np.ndarray, right: np.ndarray) -> _Partners:
    """For each word slot, its partners' slots and the index of the pair (CSR arrays).

    A pair of two slots is listed under both; a slot paired with itself once.
    """
    pair = np.arange(len(left), dtype=np.int64)
    other = left != right
    owner = np.concatenate([left, right[other]])
    partner = np.concatenate([right, left[other]])
    index = np.concatenate([pair, pair[other]])
    order = np.argsort(owner, kind="stable")
    return _offsets(np.bincount(owner, minlength=m).astype(np.int64)), partner[order], index[order]


def _pair_matrix(m: int, partners: _Partners) -> np.ndarray:
    """Pair index of every two word slots (-1: not paired), or an empty matrix past ``DENSE_PAIRS_MAX`` words."""
    if m > DENSE_PAIRS_MAX:
        return np.zeros((0, 0), dtype=np.int64)
    start, partner, pair = partners
    matrix = np.full((m, m), -1, dtype=np.int64)
    matrix[np.repeat(np.arange(m), np.diff(start)), partner] = pair
    return matrix


def _chunks(keys: np.ndarray, boundaries: np.ndarray, n_chunks: int) -> np.ndarray:
    """Cut sorted ``keys`` into up to ``n_chunks`` chunks, only where ``boundaries`` (documents) fall."""
    n = len(keys)
    targets = np.linspace(0, n, n_chunks + 1)[1:-1].astype(np.int64)
    if n == 0:
        return np.zeros(2, dtype=np.int64)
    documents = np.searchsorted(boundaries, keys[targets], side="right")
    cuts = np.searchsorted(keys, boundaries[np.minimum(documents, len(boundaries) - 1)], side="left")
    return np.unique(np.concatenate([[0], cuts, [n]])).astype(np.int64)


def _offsets(counts: np.ndarray) -> np.ndarray:
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def _shard_bounds(doc_offsets: np.ndarray, n_shards: int) -> np.ndarray:
    """Token boundaries of up to ``n_shards`` document-aligned shards of about equal size."""
    n_tokens = int(doc_offsets[-1])
    if n_tokens == 0:
        return np.zeros(2, dtype=np.int64)
    targets = np.linspace(0, n_tokens, n_shards + 1)[1:-1]
    cuts = doc_offsets[np.searchsorted(doc_offsets, targets)]
    return np.unique(np.concatenate([[0], cuts, [n_tokens]])).astype(np.int64)
