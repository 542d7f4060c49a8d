"""Windows: the units a reference corpus is cut into before words are counted.

Three kinds (Röder et al. 2015, §3.2; Lau et al. 2014, §4.2; Aletras & Stevenson 2013):

- ``sliding`` of size ``s`` (*boolean sliding window*, P_sw(s)): every run of ``s`` consecutive
  tokens of a document is a window, so a document of length ``L`` gives ``max(1, L - s + 1)``
  windows (a document shorter than ``s`` is one window). A window counts a word once, however
  often it occurs there. This is the definition of Palmetto and gensim; tealeaves counts it
  exactly. ``compat="gensim"`` reproduces gensim 4.x's undercount and ``compat="lau"`` Lau et
  al.'s toolkit's padded windows (``L + s - 1`` per document, windows running off both ends);
- ``document`` (*boolean document*, P_bd): each document is one window;
- ``context`` with half-width ``c`` (±c context windows, for context vectors): every token is
  the centre of a window holding the tokens at distance 1..c in its document. Counts are over
  (centre, context) position pairs: ``N`` is the number of such pairs in the corpus, ``n(w)``
  the number with ``w`` at the centre and ``n(w, v)`` the number with ``w`` at the centre and
  ``v`` in the context (symmetric; for ``w = v`` two distinct occurrences). So
  ``P(w, v) = n(w, v) / N`` is a joint distribution whose marginals are ``P(w) = n(w) / N``,
  the word-context co-occurrence model of distributional similarity (Aletras & Stevenson
  2013; Palmetto's P_cw counts the same pairs but divides by another total).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from tealeaves.coherence import counting
from tealeaves.errors import InputError

WindowKind = Literal["sliding", "document", "context"]
Compat = Literal["gensim", "lau"]
COMPATS: tuple[str, ...] = ("gensim", "lau")


@dataclass(frozen=True)
class Window:
    """A window kind and its size (``s`` for sliding windows, ``c`` for ±c context windows).

    Parameters
    ----------
    kind : {"sliding", "document", "context"}
        Sliding windows of ``size`` tokens, whole documents, or the ±``size`` tokens around each
        occurrence (C_A, DS).
    size : int, default 0
        The window size; none (0) for a document window.

    Raises
    ------
    InputError
        For another kind, a size given to a document window, or a size below 1 otherwise.

    Examples
    --------
    >>> from tealeaves.coherence import Window
    >>> Window("sliding", 10)
    Window(kind='sliding', size=10)
    >>> [str(Window.parse(w)) for w in (10, "document", "context:5")]
    ['sliding:10', 'document', 'context:5']
    """

    kind: WindowKind
    size: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("sliding", "document", "context"):
            raise InputError(f"window kind must be sliding, document or context, got {self.kind!r}")
        if self.kind == "document" and self.size != 0:
            raise InputError("a document window has no size")
        if self.kind != "document" and (not isinstance(self.size, (int, np.integer)) or self.size < 1):
            raise InputError(f"a {self.kind} window needs a positive integer size, got {self.size!r}")

    def __str__(self) -> str:
        return "document" if self.kind == "document" else f"{self.kind}:{self.size}"

    @classmethod
    def parse(cls, value: Window | int | str) -> Window:
        """``10`` or ``"sliding:10"``: sliding windows of 10 tokens; ``"document"``;
        ``"context:5"``: ±5-token context windows."""
        if isinstance(value, Window):
            return value
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return cls("sliding", int(value))
        if isinstance(value, str):
            text = value.strip().lower()
            if text in ("document", "doc", "boolean-document"):
                return cls("document")
            kind, sep, size = text.partition(":")
            if not sep:
                kind, size = "sliding", kind
            if kind in ("sliding", "context") and size.isdigit():
                return cls(kind, int(size))  # type: ignore[arg-type]
        raise InputError(f"cannot read the window {value!r}: give a size (10), 'sliding:10', 'document' or 'context:5'")


def check_compat(compat: str | None) -> None:
    """Refuse an unknown ``compat`` value."""
    if compat is not None and compat not in COMPATS:
        raise InputError(f"compat must be None, {' or '.join(repr(c) for c in COMPATS)}; got {compat!r}")


def counting_mode(window: Window, compat: str | None) -> int:
    """The kernel mode that counts ``window`` (compat changes sliding windows only)."""
    check_compat(compat)
    if window.kind == "document":
        return counting.DOCUMENT
    if window.kind == "sliding":
        return {None: counting.SLIDING, "gensim": counting.GENSIM, "lau": counting.LAU}[compat]
    raise InputError("context windows are counted by position pairs, not by windows")


def windows_per_document(lengths: np.ndarray, window: Window, compat: str | None = None) -> np.ndarray:
    """Number of windows (for context windows: of (centre, context) pairs) in documents of ``lengths``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    check_compat(compat)
    if window.kind == "document":
        return np.ones_like(lengths)
    if window.kind == "context":
        reach = np.minimum(lengths, window.size)
        return 2 * (reach * lengths - reach * (reach + 1) // 2)
    if compat == "lau":
        return lengths + window.size - 1
    return np.maximum(1, lengths - window.size + 1)


def count_windows(length_values: np.ndarray, length_counts: np.ndarray, window: Window, compat: str | None) -> int:
    """Total windows of a corpus from its document-length histogram."""
    return int(np.dot(windows_per_document(length_values, window, compat), np.asarray(length_counts, np.int64)))
