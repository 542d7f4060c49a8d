"""Readers: raw texts from files of the built-in formats, as :class:`RawDocument` streams.

A reader is a function ``(path, fields, stats)`` yielding the documents of one input file (or
folder), counting them and their decode errors in :class:`ReadStats`; :data:`READERS` holds the
built-in ones by format. Which format an input has and which reader reads it, the Wikipedia
readers (:mod:`tealeaves.corpus.wikipedia`) and the built-in corpora
(:mod:`tealeaves.corpus.builtin`) included, is :mod:`tealeaves.corpus.formats`, whose
:func:`~tealeaves.corpus.formats.read_inputs` reads every input in turn.

Text files are read as UTF-8 unless ``encoding=`` names another codec
(:mod:`tealeaves.textfiles`); a byte that is not valid stops the reading with the file and
line, and ``encoding="utf-8:replace"`` replaces such bytes instead, counting the documents
affected in :class:`ReadStats`.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tealeaves.deprecation import moved_names
from tealeaves.errors import InputError
from tealeaves.extras import require
from tealeaves.textfiles import DEFAULT_ENCODING, decode, replaced

__getattr__ = moved_names(
    __name__,
    {
        name: f"tealeaves.corpus.formats.{name}"
        for name in ("FORMATS", "detect_format", "read_inputs", "check_format", "input_format", "reader")
    },
)
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


def _record_document(record: dict[str, Any], where: str, fields: FieldNames, label: str | None = None) -> RawDocument:
    """The document of one record; ``where`` names it in a refusal and, without an id field (and ``label``), is its id."""
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
    doc_id = str(record[id_field]) if id_field else (label or where)
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


def is_frame(obj: Any) -> bool:
    """Whether ``obj`` is a pandas DataFrame or Series: texts held in memory (recognised without importing pandas)."""
    return type(obj).__module__.split(".")[0] == "pandas" and type(obj).__name__ in ("DataFrame", "Series")


def read_frame(frame: Any, fields: FieldNames, stats: ReadStats) -> Iterator[RawDocument]:
    """The rows of a pandas DataFrame as documents, its columns read as a CSV file's (``fields``: the text, title
    and id columns; the others kept as metadata), or a Series' values as texts; a row without an id column, and
    a Series' value, is named by its index label. A missing text (NaN, None) is an empty one."""
    if type(frame).__name__ == "Series":
        for label, value in frame.items():
            text = "" if value is None or value != value else str(value)  # value != value: NaN
            yield RawDocument(id=str(label), title=str(label), text=text)
        return
    columns = [str(column) for column in frame.columns]
    for label, row in zip(frame.index, frame.itertuples(index=False, name=None), strict=True):
        record = {column: (None if value is None or value != value else value) for column, value in zip(columns, row)}
        yield _record_document(record, f"the DataFrame's row {label!r}", fields, label=str(label))


def _read_bytes_io(path: Path) -> io.BytesIO:
    return io.BytesIO(_read_bytes(path))


READERS = {
    "txt-folder": _read_txt_folder,
    "lines": _read_lines,
    "tokenized": _read_lines,
    "trec": _read_trec,
    "jsonl": read_jsonl,
    "csv": _read_csv,
    "parquet": _read_parquet,
}
"""The built-in readers by format; :func:`tealeaves.corpus.formats.reader` adds the Wikipedia ones."""
