"""Sharded preparation: reference corpora too large for one process, prepared on a Dask cluster.

:func:`prepare_sharded` (``tealeaves prepare INPUTS --out DIR --shard-size N --scheduler …``)
gives the same corpus as :func:`tealeaves.corpus.prepare` (same vocabulary, tokens, offsets,
documents and fingerprint) in four steps, each a :func:`tealeaves.parallel.parallel_map` over
workers except the third:

1. **split** (one task per input file): stream the input and write its documents, as read,
   in chunks of at most ``N`` (JSON lines); a Wikipedia dump keeps its wikitext here, so that
   the costly markup stripping runs in step 2 on every shard at once;
2. **tokenize** (one task per shard of about ``N`` documents): strip markup, apply the
   document rules and the tokenizer with the token rules (Hoyle et al. 2021, A.2), and write
   the shard's tokens over its own word list, with each word's document frequency;
3. **vocabulary** (here): the document frequencies are summed over shards, the vocabulary
   rules (``max_df``, ``min_df``) applied to the totals, or the fixed vocabulary of
   ``vocab_from`` taken, and every word seen given its vocabulary id or removal reason;
4. **map** (one task per shard): the shard's tokens onto the vocabulary, documents left under
   ``min_doc_tokens`` dropped;

then the shards are concatenated into one corpus folder (``tokens.npy`` is written through a
memory map, a shard at a time), whose manifest records the shards' document and token
boundaries (``shards``) so that :meth:`tealeaves.coherence.RefIndex.build` indexes the same
shards in parallel. The result is an ordinary corpus folder: :meth:`Corpus.load` memory-maps it.

Memory: a worker holds one shard (its documents' tokens and word list) at a time, never the
corpus, and reloads spaCy's pipeline when its string store passes 500,000 strings
(:func:`~tealeaves.corpus.preprocess.trim_pipeline`); this process holds the word list of the
whole corpus (for the document frequencies) and the document offsets.

Failure and restart: the work happens in ``.NAME.work/`` beside the output folder. Every task
writes its output under a temporary name and renames it when complete, and returns the
finished output when it finds one, so a task that Dask runs again (its worker was lost) or a
job started again after an interruption skips what is done. The folder records what the job
was (inputs with their hashes, rules, shard size); a job with other inputs or rules starts
afresh. It is removed once the corpus is written.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.artifacts import atomic_folder, check_writable, new_manifest, write_json
from tealeaves.corpus.corpus import Corpus
from tealeaves.corpus.formats import input_format, read_inputs
from tealeaves.corpus.preprocess import (
    TOKEN_RULES,
    PreprocessConfig,
    TokenizedBatch,
    TokenizeTask,
    tokenize_batch,
    trim_pipeline,
)
from tealeaves.corpus.readers import FieldNames, ReadStats, snippet
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
from tealeaves.errors import EmptyResultError, InputError, is_count
from tealeaves.parallel import local_cluster, parallel_map
from tealeaves.progress import ProgressCallback

PathLike = str | os.PathLike[str]
BATCH_CHARS = 1_000_000  # characters handed to the tokenizer at once inside a shard


@dataclass(frozen=True)
class _Split:
    """Step 1 for one input file: its documents into chunks of at most ``shard_size``."""

    unit: int
    spec: str
    format: str | None
    fields: FieldNames
    shard_size: int
    work: str


@dataclass(frozen=True)
class _Tokenize:
    """Step 2 for one shard: chunk files (and whether they hold wikitext) to tokens."""

    shard: int
    chunks: tuple[tuple[str, bool], ...]
    config: PreprocessConfig
    work: str


@dataclass(frozen=True)
class _Map:
    """Step 4 for one shard: its tokens onto the vocabulary."""

    shard: int
    min_doc_tokens: int
    work: str


def prepare_sharded(
    inputs: list[PathLike],
    out: PathLike,
    shard_size: int,
    vocab_from: Corpus | PathLike | None = None,
    *,
    format: str | None = None,
    fields: FieldNames = FieldNames(),
    workers: int | None = 1,
    scheduler: str | None = None,
    force: bool = False,
    progress: ProgressCallback | None = None,
    **rules: Any,
) -> Corpus:
    """Prepare ``inputs`` in shards of ``shard_size`` documents (see the module docstring).

    Parameters
    ----------
    inputs : list of paths or ``builtin:`` names
        As for :func:`tealeaves.corpus.prepare`; a WikiExtractor folder counts as one input
        per ``wiki_NN`` file, so its files are split in parallel.
    out : path
        The corpus folder to write; ``.NAME.work/`` beside it holds the work until it is done.
    shard_size : int
        Input documents per shard (a worker holds one shard at a time).
    vocab_from : Corpus or path, optional
        Process the inputs identically to that corpus, with its vocabulary.
    format, fields
        Input format override and the fields of structured inputs.
    workers, scheduler
        Worker processes, or a Dask scheduler: ``"local"`` (a ``LocalCluster`` of ``workers``
        processes) or ``"tcp://host:port"`` (every worker must see ``out``'s folder, e.g. on a
        shared file system).
    force : bool
        Replace an existing ``out``.
    **rules
        The preprocessing rules (:class:`~tealeaves.corpus.preprocess.PreprocessConfig`).

    Returns
    -------
    Corpus
        The corpus written to ``out``, memory-mapped.

    Examples
    --------
    Four documents in two shards of two give the corpus that :func:`~tealeaves.corpus.prepare`
    gives in one process:

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
    >>> from tealeaves.corpus.shards import prepare_sharded
    >>> small = {"min_doc_words": 0, "min_df": 1, "max_df": 1.0, "min_doc_tokens": 1}
    >>> corpus = prepare_sharded([path], Path(tmp.name) / "corpus", 2, **small)
    >>> corpus, corpus.fingerprint() == prepare(path, **small).fingerprint()
    (Corpus(4 documents, 18 tokens, 12 words), True)
    >>> corpus.manifest["shards"]["doc_bounds"], corpus.manifest["shards"]["token_bounds"]
    ([0, 2, 4], [0, 8, 18])
    >>> tmp.cleanup()
    """
    if not is_count(shard_size):
        raise InputError(f"shard_size must be a positive number of documents, got {shard_size!r}")
    out = check_writable(out, force, inputs=[*inputs, vocab_from])
    source = Corpus.load(vocab_from) if isinstance(vocab_from, (str, os.PathLike)) else vocab_from
    config = rules_config(source, format, rules)
    units = _units(inputs, format)
    described = [describe_input(i) for i in inputs]
    job = {
        "inputs": described,
        "format": format,
        "fields": [fields.text, fields.title, fields.id, fields.encoding],
        "shard_size": shard_size,
        "config": config.as_dict(),
        "vocab_from": source.fingerprint() if source is not None else None,
    }
    work = _work_folder(out, job)
    with _cluster(scheduler, workers) as address:
        return _run(
            work, out, units, config, source, {**job, "scheduler": scheduler}, workers, address, force, progress
        )


@contextlib.contextmanager
def _cluster(scheduler: str | None, workers: int | None) -> Iterator[str | None]:
    """The scheduler the steps share: ``"local"`` starts one ``LocalCluster`` for the whole job
    (not one per step, so that workers load spaCy once), other values pass through."""
    if scheduler != "local":
        yield scheduler
        return
    with local_cluster(workers) as cluster:
        yield cluster.scheduler_address


def _run(
    work: Path,
    out: Path,
    units: list[tuple[str, str | None]],
    config: PreprocessConfig,
    source: Corpus | None,
    job: dict[str, Any],
    workers: int | None,
    scheduler: str | None,
    force: bool,
    progress: ProgressCallback | None,
) -> Corpus:
    """The four steps and the corpus folder (see the module docstring); ``job`` as recorded in the work folder."""
    shard_size, described = job["shard_size"], job["inputs"]
    fields = FieldNames(*job["fields"])
    splits = parallel_map(
        _split_input,
        [_Split(i, spec, fmt, fields, shard_size, str(work)) for i, (spec, fmt) in enumerate(units)],
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        task="split",
    )
    read_stats = ReadStats()
    for split in splits:
        read_stats.add(split["read"])
    if read_stats.documents == 0:
        raise EmptyResultError("the input holds no documents; check the path and format=<the input format>")
    shard_chunks = _group_chunks(splits, work, shard_size)
    tokenized = parallel_map(
        _tokenize_shard,
        [_Tokenize(i, chunks, config, str(work)) for i, chunks in enumerate(shard_chunks)],
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        task="tokenize",
    )
    n_docs = sum(t["docs"] for t in tokenized)
    doc_counts = {
        "read": read_stats.documents,
        "min_doc_words": sum(t["min_doc_words"] for t in tokenized),
        "truncated": sum(t["truncated"] for t in tokenized),
    }
    if n_docs == 0:
        raise EmptyResultError(
            f"all {read_stats.documents} documents have fewer than {config.min_doc_words} whitespace-separated "
            "words; lower min_doc_words=<words>"
        )

    vocab, vocab_info = _vocabulary(work, len(shard_chunks), n_docs, config, source)
    mapped = parallel_map(
        _map_shard,
        [_Map(i, config.min_doc_tokens, str(work)) for i in range(len(shard_chunks))],
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        task="map",
    )
    seen: np.ndarray = np.asarray([t["seen"] for t in tokenized], dtype=np.int64).sum(axis=0)
    removed = {k: sum(m["removed"][k] for m in mapped) for k in mapped[0]["removed"]}
    kept_docs = sum(m["docs"] for m in mapped)
    preprocessing = {
        "config": config.as_dict(),
        "read": read_stats.as_dict(),
        "documents": {**doc_counts, "in_part": n_docs, "min_doc_tokens": n_docs - kept_docs, "kept": kept_docs},
        "tokens": {
            "input": int(seen[0]),
            **{rule: int(n) for rule, n in zip(TOKEN_RULES, seen[1:])},
            **removed,
            "kept": sum(m["tokens"] for m in mapped),
        },
        "vocabulary": vocab_info,
    }
    if kept_docs == 0:
        raise EmptyResultError(
            f"no document is left after filtering ({preprocessing['documents']}); "
            "lower min_doc_tokens=<tokens> or min_doc_words=<words>, or give more documents"
        )
    manifest = new_manifest(
        "corpus",
        role="full",
        heldout=None,
        preprocessing=preprocessing,
        inputs=described,
        seed=None,
        vocab_from={"fingerprint": source.fingerprint(), "n_words": len(source.vocab)} if source is not None else None,
    )
    manifest["shards"] = {
        "shard_size": shard_size,
        "count": len(shard_chunks),
        "doc_bounds": np.concatenate([[0], np.cumsum([m["docs"] for m in mapped])]),
        "token_bounds": np.concatenate([[0], np.cumsum([m["tokens"] for m in mapped])]),
        "resumed": {
            "split": sum(s["resumed"] for s in splits),
            "tokenize": sum(t["resumed"] for t in tokenized),
            "map": sum(m["resumed"] for m in mapped),
        },
        "worker_peak_rss_bytes": max(r["peak_rss"] for r in (*splits, *tokenized, *mapped)),
        "scheduler": job["scheduler"],
    }
    _assemble(work, out, vocab, len(shard_chunks), manifest, force)
    shutil.rmtree(work, ignore_errors=True)
    return Corpus.load(out)


# --------------------------------------------------------------------------- the work folder
def _work_folder(out: Path, job: dict[str, Any]) -> Path:
    """``.NAME.work`` beside ``out``, kept when it was made by the same job, else made afresh."""
    work = out.parent / f".{out.name}.work"
    key = hashlib.sha256(json.dumps(job, sort_keys=True, default=str).encode()).hexdigest()
    record = work / "job.json"
    if work.exists():
        try:
            same = json.loads(record.read_text(encoding="utf-8")).get("key") == key
        except (OSError, ValueError):
            same = False
        if not same:
            shutil.rmtree(work)
    for sub in ("split", "tokenize", "map"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    if not record.exists():
        write_json(record, {"key": key, "job": job})
    return work


def _done(folder: Path) -> dict[str, Any] | None:
    """The summary of a finished step output, or None when it is not there."""
    summary = folder / "summary.json"
    if not summary.is_file():
        return None
    return {**json.loads(summary.read_text(encoding="utf-8")), "resumed": 1}


def _finish(target: Path, write: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    """Run ``write(tmp)`` and move the finished folder to ``target`` (idempotent: a task run
    twice writes the same output)."""
    with atomic_folder(target, force=True) as tmp:
        summary = {**write(tmp), "peak_rss": _peak_rss()}
        write_json(tmp / "summary.json", summary)
    return {**summary, "resumed": 0}


def _peak_rss() -> int:
    """Peak resident memory of this (worker) process, in bytes: ``VmHWM`` on Linux, else
    ``getrusage``'s ``ru_maxrss``. Not ``ru_maxrss`` on Linux: a process started by fork and exec
    (how Dask's nanny and multiprocessing's spawn start workers) inherits there the peak of the
    process that forked it, so a worker of a large client would report the client's memory."""
    import resource
    import sys

    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


# --------------------------------------------------------------------------- step 1: split
def _units(inputs: list[PathLike], format: str | None) -> list[tuple[str, str | None]]:
    """The inputs as (path, format) units of the split step, in reading order."""
    from tealeaves.corpus.wikipedia import wikiextractor_files

    if not inputs:
        raise InputError("no input given: pass one or more files, folders or builtin:sotu")
    units: list[tuple[str, str | None]] = []
    for spec in inputs:
        if str(spec).startswith("builtin:"):
            units.append((str(spec), None))
            continue
        path = Path(spec)
        fmt = input_format(path, format)
        if fmt == "wikiextractor":
            units.extend((str(file), fmt) for file in wikiextractor_files(path))
        else:
            units.append((str(path), fmt))
    return units


def _split_input(task: _Split) -> dict[str, Any]:
    """Write one input's documents, as read, in chunks of at most ``shard_size`` (runs on a worker)."""
    target = Path(task.work) / "split" / f"U{task.unit:06d}"
    done = _done(target)
    if done is not None:
        return done

    def write(tmp: Path) -> dict[str, Any]:
        stats = ReadStats()
        chunks: list[list[Any]] = []
        docs = iter(read_inputs([task.spec], format=task.format, fields=task.fields, stats=stats, keep_markup=True))
        while (first := next(docs, None)) is not None:
            name = f"{len(chunks):06d}.jsonl"
            with open(tmp / name, "w", encoding="utf-8") as handle:
                for doc in itertools.chain([first], itertools.islice(docs, task.shard_size - 1)):
                    record = {"id": doc.id, "title": doc.title, "text": doc.text, "meta": doc.meta}
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            chunks.append([name, stats.documents - sum(n for _, n in chunks)])
        return {"chunks": chunks, "wikitext": task.format == "wikipedia-xml", "read": stats.as_dict()}

    return _finish(target, write)


def _group_chunks(splits: list[dict[str, Any]], work: Path, shard_size: int) -> list[tuple[tuple[str, bool], ...]]:
    """Consecutive chunks grouped into shards of about ``shard_size`` documents, in reading order."""
    shards: list[tuple[tuple[str, bool], ...]] = []
    current: list[tuple[str, bool]] = []
    size = 0
    for unit, split in enumerate(splits):
        folder = work / "split" / f"U{unit:06d}"
        for name, n in split["chunks"]:
            current.append((str(folder / name), split["wikitext"]))
            size += n
            if size >= shard_size:
                shards.append(tuple(current))
                current, size = [], 0
    if current:
        shards.append(tuple(current))
    return shards


# --------------------------------------------------------------------------- step 2: tokenize
def _chunk_documents(chunks: tuple[tuple[str, bool], ...]) -> Iterator[tuple[dict[str, Any], bool]]:
    for path, wikitext in chunks:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                yield json.loads(line), wikitext


def _tokenize_shard(task: _Tokenize) -> dict[str, Any]:
    """Document rules, tokenizer and token rules on one shard; its tokens over its own word list,
    with document frequencies (runs on a worker)."""
    target = Path(task.work) / "tokenize" / f"S{task.shard:06d}"
    done = _done(target)
    if done is not None:
        return done

    def write(tmp: Path) -> dict[str, Any]:
        from tealeaves.corpus.wikipedia import strip_wikitext

        config = task.config
        batches: list[TokenizedBatch] = []
        texts: list[str] = []
        size = read = short = truncated = 0
        with open(tmp / "docs.jsonl", "w", encoding="utf-8") as docs_out:
            for record, wikitext in _chunk_documents(task.chunks):
                read += 1
                raw = strip_wikitext(record["text"]) if wikitext else record["text"]
                text = screen_text(raw, config)
                if text is None:
                    short += 1
                    continue
                truncated += text is not raw
                entry: dict[str, Any] = {"id": record["id"], "title": record["title"], "snippet": snippet(raw)}
                if record["meta"]:
                    entry["meta"] = record["meta"]
                docs_out.write(json.dumps(entry, ensure_ascii=False) + "\n")
                texts.append(text)
                size += len(text)
                if size >= BATCH_CHARS:
                    batches.append(tokenize_batch(TokenizeTask(texts, config)))
                    texts, size = [], 0
        if texts:
            batches.append(tokenize_batch(TokenizeTask(texts, config)))
        trim_pipeline(config.entities)
        words, tokens, lengths, counts = merge_batches(batches)
        (tmp / "words.json").write_text(json.dumps(words, ensure_ascii=False), encoding="utf-8")
        np.save(tmp / "tokens.npy", tokens.astype(np.int32))
        np.save(tmp / "lengths.npy", lengths)
        np.save(tmp / "df.npy", document_frequency(tokens, lengths, len(words)))
        return {
            "read": read,
            "min_doc_words": short,
            "truncated": int(truncated),
            "docs": len(lengths),
            "seen": counts.sum(axis=0).tolist(),
        }

    return _finish(target, write)


# --------------------------------------------------------------------------- step 3: vocabulary
def _vocabulary(
    work: Path, n_shards: int, n_docs: int, config: PreprocessConfig, source: Corpus | None
) -> tuple[Vocabulary, dict[str, Any]]:
    """Sum the shards' document frequencies, apply the vocabulary rules (or take ``source``'s
    vocabulary) and write each word's vocabulary id and removal reason for the map step."""
    target = work / "vocabulary"
    if not (target / "info.json").is_file():
        with atomic_folder(target, force=True) as tmp:
            index: dict[str, int] = {}
            df = np.zeros(1024, dtype=np.int64)
            for shard in range(n_shards):
                folder = work / "tokenize" / f"S{shard:06d}"
                words = json.loads((folder / "words.json").read_text(encoding="utf-8"))
                ids = np.fromiter((index.setdefault(w, len(index)) for w in words), dtype=np.int64, count=len(words))
                if len(index) > len(df):
                    df = np.concatenate([df, np.zeros(max(len(index), 2 * len(df)) - len(df), dtype=np.int64)])
                df[ids] += np.load(folder / "df.npy")
                np.save(tmp / f"S{shard:06d}.npy", ids)
            seen = list(index)
            if source is not None:
                vocab, mapping, reason, info = fixed_vocabulary(seen, source.vocab)
            else:
                vocab, mapping, reason, info = vocabulary_from_df(seen, df[: len(seen)], n_docs, config)
            if len(vocab) == 0:
                raise no_vocabulary_left(info)
            np.save(tmp / "mapping.npy", mapping)
            np.save(tmp / "reason.npy", reason)
            vocab.save(tmp / "vocab.txt")
            write_json(tmp / "info.json", info)
    info = json.loads((target / "info.json").read_text(encoding="utf-8"))
    return Vocabulary.load(target / "vocab.txt"), info


# --------------------------------------------------------------------------- step 4: map
def _map_shard(task: _Map) -> dict[str, Any]:
    """One shard's tokens onto the vocabulary; documents under ``min_doc_tokens`` dropped (runs on a worker)."""
    work = Path(task.work)
    target = work / "map" / f"S{task.shard:06d}"
    done = _done(target)
    if done is not None:
        return done
    source = work / "tokenize" / f"S{task.shard:06d}"

    def write(tmp: Path) -> dict[str, Any]:
        vocabulary = work / "vocabulary"
        ids = np.load(vocabulary / f"S{task.shard:06d}.npy")
        mapping = np.asarray(np.load(vocabulary / "mapping.npy", mmap_mode="r")[ids])
        reason = np.asarray(np.load(vocabulary / "reason.npy", mmap_mode="r")[ids])
        tokens, lengths, kept, removed = map_documents(
            np.load(source / "tokens.npy"), np.load(source / "lengths.npy"), mapping, reason, task.min_doc_tokens
        )
        np.save(tmp / "tokens.npy", tokens)
        np.save(tmp / "lengths.npy", lengths)
        with open(source / "docs.jsonl", encoding="utf-8") as docs_in, open(tmp / "docs.jsonl", "w") as docs_out:
            for line, keep in zip(docs_in, kept):
                if keep:
                    docs_out.write(line)
        return {"docs": len(lengths), "tokens": len(tokens), "removed": removed}

    return _finish(target, write)


# --------------------------------------------------------------------------- the corpus folder
def _assemble(work: Path, out: Path, vocab: Vocabulary, n_shards: int, manifest: dict[str, Any], force: bool) -> None:
    """Concatenate the mapped shards into one corpus folder, a shard at a time."""
    folders = [work / "map" / f"S{i:06d}" for i in range(n_shards)]
    n_tokens = int(manifest["shards"]["token_bounds"][-1])
    n_docs = int(manifest["shards"]["doc_bounds"][-1])
    with atomic_folder(out, force=force) as tmp:
        offsets = np.zeros(n_docs + 1, dtype=np.int64)
        if n_tokens:
            tokens = np.lib.format.open_memmap(tmp / "tokens.npy", mode="w+", dtype=np.int32, shape=(n_tokens,))
        else:
            np.save(tmp / "tokens.npy", np.zeros(0, dtype=np.int32))
        position = doc = 0
        with open(tmp / "docs.jsonl", "wb") as docs_out:
            for folder in folders:
                shard_tokens = np.load(folder / "tokens.npy", mmap_mode="r")
                lengths = np.load(folder / "lengths.npy")
                if len(shard_tokens):
                    tokens[position : position + len(shard_tokens)] = shard_tokens
                offsets[doc + 1 : doc + 1 + len(lengths)] = position + np.cumsum(lengths)
                position += len(shard_tokens)
                doc += len(lengths)
                with open(folder / "docs.jsonl", "rb") as docs_in:
                    shutil.copyfileobj(docs_in, docs_out)
        if n_tokens:
            tokens.flush()
            del tokens
        np.save(tmp / "offsets.npy", offsets)
        vocab.save(tmp / "vocab.txt")
        corpus = Corpus(
            vocab, np.load(tmp / "tokens.npy", mmap_mode="r"), offsets, manifest=manifest, docs_file=tmp / "docs.jsonl"
        )
        write_json(tmp / "manifest.json", corpus.saved_manifest())
