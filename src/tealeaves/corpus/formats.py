"""Input formats: which reader reads an input, and :func:`read_inputs`, which reads every input in turn.

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
described in :mod:`tealeaves.corpus.wikipedia`; the readers of the other formats are
:mod:`tealeaves.corpus.readers`' (:data:`~tealeaves.corpus.readers.READERS`). Every file may be
gzip- or bzip2-compressed (``.gz``, ``.bz2``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from tealeaves.corpus.readers import READERS, FieldNames, RawDocument, ReadStats, is_frame, open_binary, read_frame
from tealeaves.errors import InputError, unknown_name

FORMATS = ("txt-folder", "lines", "tokenized", "trec", "jsonl", "csv", "parquet", "wikipedia-xml", "wikiextractor")
"""The input formats of :func:`read_inputs` (and ``format=`` of :func:`~tealeaves.corpus.prepare`),
each described in the module docstring's table; ``builtin:NAME`` inputs need no format."""


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
    inputs : list of paths, ``builtin:`` names, or pandas DataFrames or Series
        Files and folders, read in turn; a DataFrame's rows are read as a CSV file's, a Series'
        values as texts (:func:`~tealeaves.corpus.readers.read_frame`).
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
        if is_frame(spec):  # a pandas DataFrame or Series: texts held in memory
            yield from _counted(read_frame(spec, fields, stats), stats)
            continue
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
        ``unknown format 'tokenised'; did you mean 'tokenized'? choose one of ...``.

    Examples
    --------
    >>> from tealeaves.corpus.formats import check_format
    >>> check_format("tokenized")
    >>> check_format("tokenised")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: unknown format 'tokenised'; did you mean 'tokenized'? choose one of txt-folder, lines, ...
    """
    if format is None or format in FORMATS:
        return
    raise unknown_name("format", format, FORMATS)


def input_format(path: Path, format: str | None) -> str:
    """The format of input ``path`` (``format``, or detected from the path); refuses a missing
    path, a folder given to a file format and a file given to a folder format."""
    if not path.exists():
        text = str(path)
        if " " in text or "\n" in text:  # a text given where paths go
            shown = repr(text[:60] + ("..." if len(text) > 60 else ""))
            raise InputError(
                f"input {shown} does not exist; check the path (texts held in memory go in as a pandas Series or "
                "DataFrame)"
            )
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
    return READERS[fmt]


def _counted(docs: Iterator[RawDocument], stats: ReadStats) -> Iterator[RawDocument]:
    for doc in docs:
        stats.documents += 1
        yield doc
