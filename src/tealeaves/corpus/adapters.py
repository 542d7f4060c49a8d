"""Texts as other libraries keep them, as a :class:`~tealeaves.corpus.Corpus`: :func:`as_corpus`.

gensim's ``CoherenceModel(texts=...)`` takes token lists and its ``corpus=``/``dictionary=``
a bag-of-words corpus; OCTIS's datasets are token lists too. Every function that reads a
reference corpus (:func:`~tealeaves.coherence.score`, the intrusion functions,
:meth:`~tealeaves.coherence.RefIndex.build`, :func:`~tealeaves.evaluate`) accepts them through
:func:`as_corpus`:

- a :class:`Corpus`, or a corpus folder (``tealeaves prepare``);
- token lists: one list of word strings per document, as gensim keeps its ``texts``;
- a gensim ``Dictionary`` with a bag-of-words corpus (``[dictionary.doc2bow(text) for text in
  texts]``), as a pair in either order. A bag of words has no word order, so the corpus is
  marked ``manifest["word_order"] = False`` and only whole-document windows can be counted
  on it (gensim's ``u_mass`` counts so too).

A model reads documents over its own vocabulary: :func:`onto_vocabulary` maps texts, or a corpus
prepared with another vocabulary, onto it, refusing or dropping (and counting) the words it lacks.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tealeaves.artifacts import new_manifest
from tealeaves.corpus.corpus import TOKEN_LISTS_NOT_STRINGS, Corpus
from tealeaves.corpus.readers import is_frame
from tealeaves.corpus.vocabulary import Vocabulary
from tealeaves.errors import EmptyResultError, InputError, describe
from tealeaves.missing import SKIP, OnMissingSkip, check_on_missing

ACCEPTED_TEXTS = (
    "a Corpus or a corpus folder, token lists ([['tax', 'budget', ...], ...], one list of words per document), "
    "or a gensim Dictionary with its bag-of-words corpus as a pair (dictionary, [dictionary.doc2bow(text), ...])"
)
"""What :func:`as_corpus` accepts, in the words of its refusal."""


def as_corpus(texts: Any) -> Corpus:
    """A :class:`Corpus` from texts as a user has them (see the module docstring).

    Parameters
    ----------
    texts : Corpus, path, token lists, or (gensim Dictionary, bag-of-words corpus)
        The documents. Token lists are read once (a generator will do); the vocabulary is
        every word seen, sorted.

    Returns
    -------
    Corpus
        Token lists and bags of words give an in-memory corpus whose manifest says where it
        came from (``source``) and, for bags of words, ``word_order: False``.

    Raises
    ------
    InputError
        For untokenized strings, a token that is not a string, a bag-of-words corpus without
        its Dictionary (or with weights instead of counts), or anything else (:data:`ACCEPTED_TEXTS`).
    EmptyResultError
        When the texts hold no token at all.

    Examples
    --------
    >>> from tealeaves.corpus import as_corpus
    >>> corpus = as_corpus([["tax", "budget", "tax"], ["war", "peace"]])
    >>> corpus, corpus.vocab.words
    (Corpus(2 documents, 5 tokens, 4 words), ('budget', 'peace', 'tax', 'war'))

    gensim's bag of words, with the Dictionary that names its ids (here a stand-in with the
    same attributes; ``gensim.corpora.Dictionary(texts)`` in practice):

    >>> class Dictionary(dict):  # what gensim's Dictionary has: token2id and doc2bow
    ...     token2id = {"tax": 0, "budget": 1}
    ...     def doc2bow(self, text): ...
    >>> bags = [[(0, 2), (1, 1)], [(1, 3)]]
    >>> corpus = as_corpus((Dictionary(), bags))
    >>> corpus, corpus.manifest["word_order"]
    (Corpus(2 documents, 6 tokens, 2 words), False)
    >>> as_corpus(["tax budget", "war peace"])
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: texts must be token lists (one list of words per document), not strings: ...
    """
    if isinstance(texts, Corpus):
        return texts
    if isinstance(texts, (str, os.PathLike)):
        return Corpus.load(texts)
    if _is_dictionary(texts):
        raise InputError(
            "a gensim Dictionary alone holds no texts: pass it with its bag-of-words corpus, (dictionary, corpus)"
        )
    if isinstance(texts, tuple) and len(texts) == 2 and any(_is_dictionary(part) for part in texts):
        dictionary, bags = texts if _is_dictionary(texts[0]) else texts[::-1]
        return _from_bags_of_words(dictionary, bags)
    if isinstance(texts, (bytes, Mapping)) or not isinstance(texts, Iterable):
        raise InputError(f"cannot read {describe(texts)} as texts: pass {ACCEPTED_TEXTS}")
    if is_frame(texts) and (type(texts).__name__ == "DataFrame" or any(isinstance(t, str) for t in texts)):
        raise InputError(
            f"{describe(texts)} of raw texts: prepare it with tealeaves.prepare(...) (vocab_from=<the training "
            "corpus> for a held-out or reference corpus), which reads pandas objects as it reads files"
        )
    shape, dtype = getattr(texts, "shape", ()), getattr(getattr(texts, "dtype", None), "kind", None)
    if len(shape) == 2 and dtype in ("b", "i", "u", "f"):  # scikit-learn's X, dense or sparse
        raise InputError(
            f"{describe(texts)} of shape {shape} is a document-term matrix, whose columns name no words: pass "
            "the texts as token lists (a vectorizer's build_analyzer() splits a text as it did), or a Corpus"
        )
    return _from_token_lists(texts)


def onto_vocabulary(texts: Any, vocab: Vocabulary, on_missing: OnMissingSkip = "error") -> tuple[Corpus, np.ndarray]:
    """``texts`` as a :class:`Corpus` over ``vocab`` (a model's words), and the tokens dropped from each document.

    Each token is mapped by its word; a word ``vocab`` lacks is refused or dropped
    (:func:`drop_missing`). The documents keep their ids, titles, snippets and metadata.

    Parameters
    ----------
    texts : Corpus, path, token lists, or (gensim Dictionary, bag-of-words corpus)
        Anything :func:`as_corpus` reads, over any vocabulary.
    vocab : Vocabulary
        The vocabulary to map onto.
    on_missing : "error" or "skip"
        A word outside ``vocab``: refuse the texts (default), or drop its tokens and count them.

    Returns
    -------
    (Corpus, int64[D])
        The corpus over ``vocab`` (``texts`` itself when it is a Corpus over it already) and the
        tokens dropped per document.

    Raises
    ------
    InputError
        With ``on_missing="error"``, for a word outside ``vocab``: how many tokens, in how many
        documents, the first document's id.

    Examples
    --------
    >>> from tealeaves.corpus import Vocabulary, onto_vocabulary
    >>> corpus, dropped = onto_vocabulary([["war", "tax", "xyz"], ["tax"]], Vocabulary(["tax", "war"]), "skip")
    >>> corpus.texts(), dropped.tolist()
    ([['war', 'tax'], ['tax']], [1, 0])
    """
    check_on_missing(on_missing, SKIP)
    corpus = as_corpus(texts)
    if corpus.vocab == vocab:
        return corpus, np.zeros(len(corpus), dtype=np.int64)
    mapping = np.array([vocab.get(word) for word in corpus.vocab.words], dtype=np.int64)
    tokens = mapping[np.asarray(corpus.tokens, dtype=np.int64)] if len(mapping) else np.zeros(0, dtype=np.int64)
    tokens, offsets, dropped = drop_missing(tokens, corpus.offsets, tokens < 0, corpus.ids, len(vocab), on_missing)
    fields = (corpus.ids, corpus.titles, corpus.snippets, corpus.metadata)
    return Corpus(vocab, tokens, offsets, *fields, manifest=corpus.manifest), dropped


def drop_missing(
    tokens: np.ndarray,
    offsets: np.ndarray,
    missing: np.ndarray,
    ids: Sequence[str],
    n_words: int,
    on_missing: OnMissingSkip,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tokens, offsets, dropped)`` without the tokens flagged ``missing`` (words outside a model's ``n_words``):
    refused (``on_missing="error"``: how many tokens, in how many documents, the first one's id) or dropped,
    ``dropped`` counting them per document."""
    n_docs = len(offsets) - 1
    doc_of_token = np.repeat(np.arange(n_docs), np.diff(offsets))
    dropped = np.bincount(doc_of_token[missing], minlength=n_docs).astype(np.int64)
    if not missing.any():
        return tokens, offsets, dropped
    if on_missing == "error":
        first = int(np.argmax(dropped > 0))
        raise InputError(
            f"{int(missing.sum())} tokens in {int((dropped > 0).sum())} documents are outside the model's "
            f'vocabulary of {n_words} words (first in document {ids[first]!r}); pass on_missing="skip" '
            "to drop and count them"
        )
    keep = ~missing
    offsets = np.concatenate([[0], np.cumsum(np.bincount(doc_of_token[keep], minlength=n_docs))])
    return tokens[keep], offsets, dropped


def _from_token_lists(texts: Iterable[Any]) -> Corpus:
    """One pass over the texts: token ids in order of first sight, then renumbered by the sorted vocabulary."""
    index: dict[str, int] = {}
    lengths: list[int] = []
    ids: list[int] = []
    for d, text in enumerate(texts):
        if isinstance(text, str):
            raise InputError(TOKEN_LISTS_NOT_STRINGS)
        if isinstance(text, (bytes, Mapping)) or not isinstance(text, Iterable):
            raise InputError(f"text {d} is {describe(text)}, not a list of words: pass {ACCEPTED_TEXTS}")
        before = len(ids)
        for token in text:
            if not isinstance(token, str):
                bag = isinstance(token, tuple) and len(token) == 2
                hint = "; a bag-of-words corpus needs its Dictionary: pass (dictionary, corpus)" if bag else ""
                raise InputError(f"text {d} holds {token!r} ({describe(token)}); tokens must be strings{hint}")
            ids.append(index.setdefault(token, len(index)))
        lengths.append(len(ids) - before)
    if not ids:
        raise EmptyResultError(f"the {len(lengths)} texts hold no tokens; give at least one non-empty text")
    words = np.array(list(index), dtype=object)
    order = np.argsort(words, kind="stable")
    renumber = np.empty(len(order), dtype=np.int32)
    renumber[order] = np.arange(len(order), dtype=np.int32)
    tokens = renumber[np.asarray(ids, dtype=np.int64)]
    manifest = new_manifest("corpus", role="texts", source="token lists")
    return Corpus(Vocabulary(words[order].tolist()), tokens, _offsets(lengths), manifest=manifest)


def _from_bags_of_words(dictionary: Any, bags: Iterable[Any]) -> Corpus:
    """Each document's words repeated by their counts, in id order (a bag of words has no order)."""
    by_id = sorted((int(i), str(w)) for w, i in dictionary.token2id.items())
    column = {i: c for c, (i, _) in enumerate(by_id)}
    lengths: list[int] = []
    parts: list[np.ndarray] = []
    for d, bag in enumerate(bags):
        pairs = list(bag)
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
            raise InputError(f"document {d} of the bag-of-words corpus is not a list of (id, count) pairs")
        counts = np.array([c for _, c in pairs], dtype=np.float64)
        if np.any(counts != np.round(counts)) or np.any(counts < 0):
            raise InputError(
                f"document {d} of the bag-of-words corpus has weights, not counts (e.g. tf-idf); pass the "
                "counts (dictionary.doc2bow) or the token lists"
            )
        unknown = [i for i, _ in pairs if int(i) not in column]
        if unknown:
            raise InputError(f"document {d} holds word id {unknown[0]}, which the Dictionary lacks; is it its corpus?")
        parts.append(np.repeat(np.array([column[int(i)] for i, _ in pairs], dtype=np.int32), counts.astype(np.int64)))
        lengths.append(int(counts.sum()))
    if not sum(lengths):
        raise EmptyResultError(f"the {len(lengths)} bags of words hold no words; give at least one non-empty document")
    manifest = new_manifest("corpus", role="texts", source="gensim bag-of-words corpus", word_order=False)
    tokens = np.concatenate(parts)
    return Corpus(Vocabulary([w for _, w in by_id]), tokens, _offsets(lengths), manifest=manifest)


def _offsets(lengths: list[int]) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _is_dictionary(obj: Any) -> bool:
    """gensim's ``Dictionary`` (or anything with its ``token2id`` and ``doc2bow``)."""
    return hasattr(obj, "token2id") and hasattr(obj, "doc2bow")
