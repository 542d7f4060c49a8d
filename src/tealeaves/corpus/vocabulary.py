"""Vocabulary: the ordered list of word types that token ids index."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from tealeaves.deprecation import moved_names
from tealeaves.errors import ArtifactError, InputError, describe
from tealeaves.missing import SKIP, OnMissingSkip, check_on_missing

__getattr__ = moved_names(__name__, {"OnMissing": "tealeaves.missing.OnMissingSkip"})


class Vocabulary:
    """An ordered list of distinct word strings; token id ``i`` is ``words[i]``.

    Words may not be empty or contain whitespace (they are stored one per line).

    Parameters
    ----------
    words : iterable of str
        The distinct words, in id order.

    Raises
    ------
    InputError
        For a repeated word, an empty one or one containing whitespace.

    Examples
    --------
    >>> from tealeaves.corpus import Vocabulary
    >>> vocab = Vocabulary(["tax", "budget", "war"])
    >>> vocab.id("war"), vocab.word(1), len(vocab)
    (2, 'budget', 3)
    >>> vocab.ids(["tax", "war"])
    array([0, 2])
    """

    __slots__ = ("_index", "_words")

    def __init__(self, words: Iterable[str]):
        if isinstance(words, (str, bytes)) or not isinstance(words, Iterable):
            raise InputError(f"a vocabulary is a list of distinct words, got {describe(words)}")
        self._words: tuple[str, ...] = tuple(words)
        odd = [w for w in self._words if not isinstance(w, str)]
        if odd:
            raise InputError(f"vocabulary word {odd[0]!r} is {describe(odd[0])}; words must be strings")
        self._index: dict[str, int] = {w: i for i, w in enumerate(self._words)}
        if len(self._index) != len(self._words):
            seen: set[str] = set()
            dup = next(w for w in self._words if w in seen or seen.add(w))  # type: ignore[func-returns-value]
            raise InputError(f"vocabulary lists the word {dup!r} twice; words must be distinct")
        bad = next((w for w in self._words if w.split() != [w]), None)  # empty, or split by whitespace
        if bad is not None:
            raise InputError(f"vocabulary word {bad!r} is empty or contains whitespace")

    @property
    def words(self) -> tuple[str, ...]:
        """All words, in id order."""
        return self._words

    def __len__(self) -> int:
        return len(self._words)

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def __getitem__(self, i: int) -> str:
        return self._words[i]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self._words == other._words

    def __hash__(self) -> int:
        return hash(self._words)

    def __repr__(self) -> str:
        head = ", ".join(self._words[:5])
        return f"Vocabulary({len(self)} words: {head}{', ...' if len(self) > 5 else ''})"

    def id(self, word: str) -> int:
        """The id of ``word``; a clear error when it is not in the vocabulary."""
        try:
            return self._index[word]
        except KeyError:
            raise InputError(f"word {word!r} is not in the vocabulary ({len(self)} words)") from None

    def get(self, word: str, default: int = -1) -> int:
        """The id of ``word``, or ``default`` when absent."""
        return self._index.get(word, default)

    def word(self, i: int) -> str:
        """The word with id ``i``."""
        return self._words[i]

    def ids(self, words: Sequence[str], on_missing: OnMissingSkip = "error") -> np.ndarray:
        """Ids of ``words`` as int64; missing words raise (``"error"``) or are dropped (``"skip"``)."""
        check_on_missing(on_missing, SKIP)
        out = [self._index.get(w, -1) for w in words]
        missing = [w for w, i in zip(words, out) if i < 0]
        if missing and on_missing == "error":
            raise InputError(
                f"{len(missing)} word(s) not in the vocabulary: {', '.join(missing[:10])}; "
                'pass on_missing="skip" to drop them'
            )
        return np.array([i for i in out if i >= 0], dtype=np.int64)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write one word per line (UTF-8)."""
        Path(path).write_text("".join(w + "\n" for w in self._words), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Vocabulary:
        """Read a file written by :meth:`save`."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ArtifactError(f"cannot read vocabulary {path}: {exc}") from exc
        return cls(text.splitlines())
