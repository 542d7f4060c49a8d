"""Text files read in a known encoding: bytes that are not valid are refused with their file and line.

Every text a user gives tealeaves (corpus inputs, topic lists, vocabularies, MALLET files) is
decoded here. The default is UTF-8 (a byte-order mark is dropped). A byte that is not valid
in the encoding stops the reading with the file, the line, the column and the byte, and says
how to read it: ``encoding="latin-1"`` (``--encoding latin-1``), or the file's own encoding,
or ``encoding="utf-8:replace"``, which replaces each invalid sequence by U+FFFD and lets the
reader count the lines or documents it changed. Nothing is replaced silently.
"""

from __future__ import annotations

import codecs
import gzip
import os
from collections.abc import Iterator
from pathlib import Path

from tealeaves.errors import InputError

DEFAULT_ENCODING = "utf-8"
REPLACE = ":replace"  # the suffix of an encoding whose invalid bytes are replaced rather than refused


def check_encoding(encoding: str) -> tuple[str, bool]:
    """The codec of ``encoding`` and whether invalid bytes are replaced (``"utf-8:replace"``).

    Parameters
    ----------
    encoding : str
        A Python codec name (``"utf-8"``, ``"latin-1"``, ``"cp1252"``), optionally with ``:replace``.

    Returns
    -------
    tuple of (str, bool)
        The codec to decode with (UTF-8 under any spelling as ``utf-8-sig``, which drops a
        byte-order mark) and whether invalid bytes are replaced.

    Raises
    ------
    InputError
        For a codec Python does not know.

    Examples
    --------
    >>> from tealeaves.textfiles import check_encoding
    >>> check_encoding("latin-1"), check_encoding("UTF8:replace")
    (('latin-1', False), ('utf-8-sig', True))
    """
    if not isinstance(encoding, str):  # "'NoneType' object has no attribute 'endswith'" before
        raise InputError(f'encoding must be a codec\'s name such as "utf-8" or "latin-1", got {encoding!r}')
    name, replace = (encoding[: -len(REPLACE)], True) if encoding.endswith(REPLACE) else (encoding, False)
    try:
        utf8 = codecs.lookup(name).name == "utf-8"
    except LookupError:
        raise InputError(
            f'unknown encoding {encoding!r}; give a Python codec name such as encoding="utf-8" or encoding="latin-1"'
        ) from None
    return ("utf-8-sig" if utf8 else name), replace


def decode(data: bytes, source: str | os.PathLike[str], encoding: str = DEFAULT_ENCODING, line: int = 1) -> str:
    """``data`` decoded; an invalid byte is refused with ``source``, its line and column, and the ``encoding=`` to use.

    Parameters
    ----------
    data : bytes
        A whole file, or a part of one that starts at line ``line``.
    source : str or path
        The file, for the message.
    encoding : str
        As :func:`check_encoding` reads it; with ``:replace`` invalid bytes become U+FFFD.
    line : int
        The line number of the first line of ``data``.

    Returns
    -------
    str

    Raises
    ------
    InputError
        ``FILE, line N, column C: byte 0xe9 is not valid UTF-8; read it with encoding="latin-1" ...``.

    Examples
    --------
    >>> from tealeaves.textfiles import decode
    >>> decode("café".encode("latin-1"), "ref.txt", "latin-1")
    'café'
    >>> decode(b"tax budget\\ncaf\\xe9", "ref.txt")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: ref.txt, line 2, column 4: byte 0xe9 is not valid utf-8; read it with encoding="latin-1" ...
    """
    codec, replace = check_encoding(encoding)
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        if replace:
            return data.decode(codec, errors="replace")
        start = data.rfind(b"\n", 0, exc.start) + 1
        line += data.count(b"\n", 0, exc.start)
        name = "utf-8" if codec == "utf-8-sig" else codec
        raise InputError(
            f"{source}, line {line}, column {exc.start - start + 1}: byte "
            f'0x{data[exc.start]:02x} is not valid {name}; read it with encoding="latin-1" (or the file\'s own '
            f'encoding), or encoding="{name}:replace" to replace such bytes'
        ) from None


def replaced(text: str, data: bytes) -> bool:
    """Whether decoding ``data`` put a replacement character into ``text`` that the bytes did not hold."""
    return "\ufffd" in text and b"\xef\xbf\xbd" not in data


def read_text(path: str | os.PathLike[str], encoding: str = DEFAULT_ENCODING) -> str:
    """The text of ``path`` (gzip-compressed or not), decoded by :func:`decode`.

    Parameters
    ----------
    path : str or path
        A text file.
    encoding : str
        As :func:`check_encoding` reads it.

    Returns
    -------
    str

    Raises
    ------
    InputError
        For a file that cannot be read, or a byte that is not valid in ``encoding``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.textfiles import read_text
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "topics.txt").write_bytes("café tax\\n".encode("latin-1"))
    ...     read_text(Path(tmp) / "topics.txt", "latin-1")
    'café tax\\n'
    """
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    return decode(data, path, encoding)


def text_lines(path: str | os.PathLike[str], encoding: str = DEFAULT_ENCODING) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of ``path`` (gzip-compressed or not), each decoded by :func:`decode`, newline kept.

    Parameters
    ----------
    path : str or path
        A text file, read line by line (a file of any size).
    encoding : str
        As :func:`check_encoding` reads it.

    Yields
    ------
    tuple of (int, str)

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.textfiles import text_lines
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "weights.txt").write_text("0\\ttax\\t6\\n0\\twar\\t1\\n")
    ...     list(text_lines(Path(tmp) / "weights.txt"))
    [(1, '0\\ttax\\t6\\n'), (2, '0\\twar\\t1\\n')]
    """
    path = Path(path)
    check_encoding(encoding)
    try:
        with open(path, "rb") as probe:
            gzipped = probe.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rb") if gzipped else open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                yield number, decode(raw, path, encoding, number)
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read {path}: {exc}; is the file complete?") from exc
