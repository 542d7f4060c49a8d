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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.artifacts import atomic_folder, check_writable, new_manifest, write_json
from tealeaves.corpus.corpus import Corpus, split_indices
from tealeaves.corpus.formats import check_format, read_inputs
from tealeaves.corpus.preprocess import (
    TOKEN_RULES,
    PreprocessConfig,
    TokenizedBatch,
    TokenizeTask,
    tokenize_batch,
)
from tealeaves.corpus.readers import FieldNames, RawDocument, ReadStats, is_frame, snippet
from tealeaves.corpus.steps import (
    describe_input,
    document_frequency,
    fixed_vocabulary,
    map_documents,
    merge_batches,
    no_vocabulary_left,
    rules_config,
    screen_text,
    vocabulary_from_df,
)
from tealeaves.corpus.vocabulary import Vocabulary
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.parallel import parallel_map, resolve_workers
from tealeaves.progress import ProgressCallback
from tealeaves.textfiles import DEFAULT_ENCODING, check_encoding

PathLike = str | os.PathLike[str]


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
    inputs : path, ``"builtin:sotu"``, pandas DataFrame or Series, or a list of them
        Files and folders in any format of :mod:`tealeaves.corpus.formats`, or texts held in
        memory: a DataFrame's rows (``text_field``, ``title_field`` and ``id_field`` name its
        columns, as a CSV file's; the others are kept as metadata), a Series' values (its index
        names them).
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
    input_list: list[Any] = [inputs] if isinstance(inputs, (str, os.PathLike)) or is_frame(inputs) else list(inputs)
    check_format(format)  # a misspelt format is named as such, before what the rules would need
    check_encoding(encoding)
    fields = FieldNames(text_field, title_field, id_field, encoding)
    if shard_size is not None:
        return _prepare_in_shards(
            input_list,
            out,
            heldout,
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
        check_writable(out, force, inputs=[*input_list, vocab_from])
    source = Corpus.load(vocab_from) if isinstance(vocab_from, (str, os.PathLike)) else vocab_from
    config = rules_config(source, format, rules)
    texts = _read_and_tokenize(input_list, format, fields, config, workers, scheduler, progress)
    all_idx = np.arange(len(texts.docs))
    train_idx, held_idx = split_indices(len(texts.docs), heldout, seed) if heldout is not None else (all_idx, None)
    chosen = _choose_vocabulary(texts, source, train_idx, config)
    provenance = {
        "heldout": heldout,
        "inputs": [describe_input(i) for i in input_list],
        "seed": seed if heldout is not None else None,
        "vocab_from": {"fingerprint": source.fingerprint(), "n_words": len(source.vocab)}
        if source is not None
        else None,
    }
    if held_idx is None:
        corpus = _part(texts, chosen, train_idx, "full", config, provenance)
        if out is not None:
            corpus.save(out, force=force)
        return corpus
    train = _part(texts, chosen, train_idx, "train", config, provenance)
    held = _part(texts, chosen, held_idx, "heldout", config, provenance)
    if out is not None:
        _save_split(Path(out), train, held, heldout, seed, force)
    return train, held


def _prepare_in_shards(
    inputs: list[PathLike],
    out: PathLike | None,
    heldout: float | None,
    shard_size: int,
    vocab_from: Corpus | PathLike | None,
    **options: Any,
) -> Corpus:
    """``prepare(shard_size=...)``: refuses what sharded preparation cannot do, then runs it
    (:func:`tealeaves.corpus.shards.prepare_sharded`)."""
    from tealeaves.corpus.shards import prepare_sharded

    if any(is_frame(spec) for spec in inputs):
        raise InputError(
            "texts held in memory are prepared in one process: leave shard_size out, or write them to a file"
        )
    if heldout is not None:
        raise InputError(
            "heldout=<share> cannot be combined with shard_size=<documents>: prepare the training corpus in one "
            "process and the (large) reference corpus in shards with vocab_from=<the training corpus>"
        )
    if out is None:
        raise InputError("preparing in shards needs an output folder: out=<folder>")
    return prepare_sharded(inputs, out, shard_size, vocab_from, **options)


@dataclass
class _Texts:
    """The documents read and tokenized in this process, over one word list, before any vocabulary."""

    docs: list[RawDocument]
    doc_counts: dict[str, int]  # documents read, skipped under min_doc_words, truncated
    read: dict[str, int]  # what the readers counted (ReadStats)
    words: list[str]
    tokens: np.ndarray
    lengths: np.ndarray
    token_counts: np.ndarray  # per document: spaCy tokens seen, then removed by each token rule


def _read_and_tokenize(
    inputs: list[PathLike],
    format: str | None,
    fields: FieldNames,
    config: PreprocessConfig,
    workers: int | None,
    scheduler: str | None,
    progress: ProgressCallback | None,
) -> _Texts:
    stats = ReadStats()
    docs, doc_counts = _read_documents(inputs, format, fields, config, stats)
    words, tokens, lengths, token_counts = merge_batches(_tokenize(docs, config, workers, scheduler, progress))
    return _Texts(docs, doc_counts, stats.as_dict(), words, tokens, lengths, token_counts)


Chosen = tuple[Vocabulary, np.ndarray, np.ndarray, dict[str, Any]]  # vocabulary, word -> id, removal codes, counts


def _choose_vocabulary(texts: _Texts, source: Corpus | None, train_idx: np.ndarray, config: PreprocessConfig) -> Chosen:
    """The vocabulary of ``vocab_from``, else the one the training documents' frequencies give."""
    if source is not None:
        chosen = fixed_vocabulary(texts.words, source.vocab)
    else:
        chosen = _build_vocabulary(texts.words, texts.tokens, texts.lengths, train_idx, config)
    if len(chosen[0]) == 0:
        raise no_vocabulary_left(chosen[3])
    return chosen


def _part(
    texts: _Texts, chosen: Chosen, indices: np.ndarray, role: str, config: PreprocessConfig, provenance: dict[str, Any]
) -> Corpus:
    """The corpus of documents ``indices`` (``role``: full, train or heldout) with its manifest."""
    vocab, mapping, reason, vocab_info = chosen
    corpus = _assemble(texts.docs, texts.tokens, texts.lengths, indices, mapping, reason, vocab, config)
    part_counts = texts.token_counts[indices].sum(axis=0)
    seen = {"input": int(part_counts[0]), **{rule: int(n) for rule, n in zip(TOKEN_RULES, part_counts[1:])}}
    preprocessing = {
        "config": config.as_dict(),
        "read": texts.read,
        "documents": {**texts.doc_counts, "in_part": len(indices), **corpus.manifest.pop("_dropped")},
        "tokens": {**seen, **corpus.manifest.pop("_removed"), "kept": corpus.n_tokens},
        "vocabulary": vocab_info,
    }
    heldout = provenance["heldout"]
    described = {key: value for key, value in provenance.items() if key != "heldout"}
    corpus.manifest = new_manifest("corpus", role=role, heldout=heldout, preprocessing=preprocessing, **described)
    if len(corpus) == 0:
        raise EmptyResultError(
            f"no {'' if role == 'full' else role + ' '}document is left after filtering ({preprocessing['documents']}); "
            "lower min_doc_tokens=<tokens> or min_doc_words=<words>, or give more documents"
        )
    return corpus


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


def _build_vocabulary(
    words: list[str], tokens: np.ndarray, lengths: np.ndarray, train_idx: np.ndarray, config: PreprocessConfig
) -> tuple[Vocabulary, np.ndarray, np.ndarray, dict[str, Any]]:
    """Vocabulary from document frequencies of the training documents (max_df, min_df)."""
    in_train = np.zeros(len(lengths), dtype=bool)
    in_train[train_idx] = True
    return vocabulary_from_df(words, document_frequency(tokens, lengths, len(words), in_train), len(train_idx), config)


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
