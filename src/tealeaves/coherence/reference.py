"""The reference corpus of coherence and word intrusion, however it is given: :func:`as_reference_index`."""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path
from typing import Any

from tealeaves.artifacts import MANIFEST, read_manifest
from tealeaves.coherence.index import KIND, RefIndex
from tealeaves.errors import ArtifactError

INDEX_NOTE_SECONDS = 1.0  # indexing that took at least this long gets a note of what it cost


class IndexBuildWarning(UserWarning):
    """A reference index was built from texts for one call: built once and passed again, it is not rebuilt."""


def as_reference_index(reference: Any) -> RefIndex:
    """The :class:`RefIndex` of a reference corpus given as an index, a folder, a corpus or texts.

    An index (or an index folder) is used as it is. Anything else is indexed here, each call
    again: a corpus folder, a :class:`~tealeaves.corpus.Corpus`, or texts as
    :func:`~tealeaves.corpus.as_corpus` reads them (gensim's token lists, a Dictionary with its
    bag-of-words corpus). Indexing is one pass over the tokens (about a second per million
    tokens, and memory about twice the token array), which a call on a large corpus pays every
    time: indexing that took :data:`INDEX_NOTE_SECONDS` or more gets an :class:`IndexBuildWarning`
    saying what it cost (a corpus of 148,449 tokens, indexed in 0.02 s, got one where a token count
    decided); build the index once with ``RefIndex.build(texts)`` (``out=`` keeps it
    on disk) and pass that.

    Parameters
    ----------
    reference : RefIndex, path, Corpus, or texts
        The reference corpus.

    Returns
    -------
    RefIndex

    Raises
    ------
    InputError
        For anything that is none of these (:data:`tealeaves.corpus.adapters.ACCEPTED_TEXTS`).

    Examples
    --------
    >>> from tealeaves.coherence.reference import as_reference_index
    >>> index = as_reference_index([["tax", "budget"], ["war", "peace", "war"]])
    >>> index, as_reference_index(index) is index
    (RefIndex(2 documents, 5 tokens, 4 words), True)
    """
    if isinstance(reference, RefIndex):
        return reference
    if isinstance(reference, (str, os.PathLike)) and (Path(reference) / MANIFEST).is_file():
        found = read_manifest(reference).get("kind")
        if found == KIND:
            return RefIndex.load(reference)
        if found not in ("corpus", "corpus-split"):  # a split is named by Corpus.load
            raise ArtifactError(
                f"{reference} holds a {found!r} artifact, not a reference corpus; pass a folder written by "
                "tealeaves index (or a corpus folder, indexed for this call)"
            )
    started = time.perf_counter()
    index = RefIndex.build(reference)
    if time.perf_counter() - started >= INDEX_NOTE_SECONDS:
        warnings.warn(
            f"indexed the reference corpus for this call: {index.n_docs:,} documents, {index.n_tokens:,} tokens in "
            f"{time.perf_counter() - started:.1f} s; build the index once with RefIndex.build(texts) and pass it",
            IndexBuildWarning,
            stacklevel=3,
        )
    return index
