"""Topics: ranked word lists, the input that coherence and intrusion need.

A :class:`Topics` object may come from a :class:`~tealeaves.models.TopicModel` (its top words),
from a plain text file (one topic per line, words separated by spaces, as Lau et al.'s
toolkit and Palmetto read them) or from Python lists. :func:`~tealeaves.models.as_topics`
accepts any of these, and any model :func:`~tealeaves.models.as_model` reads
(:mod:`tealeaves.models.adapters`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.deprecation import moved_names
from tealeaves.errors import InputError, is_count
from tealeaves.results import Columns, Result
from tealeaves.textfiles import DEFAULT_ENCODING, read_text

__getattr__ = moved_names(__name__, {"as_topics": "tealeaves.models.adapters.as_topics"})

SHOWN_WORDS = 20
"""The words of a topic an error message quotes (a file that is no topic list has lines of thousands)."""


TOPICS_NOT_STRINGS = (
    "topics must be a list of word lists (e.g. [['apple', 'pear'], ...]), not a list of strings: split each topic's "
    "words (topic.split())"
)
"""The refusal of topics given as strings where word lists go."""


@dataclass(frozen=True)
class Topics(Result):
    """Topics as ranked word lists (most probable word first).

    Attributes
    ----------
    words : tuple of tuple of str
        ``words[k]`` is topic ``k``'s words in rank order.
    name : str
        Where the topics came from (a file name, a model kind), for reports.
    meta : dict
        Anything else known about the source.

    Examples
    --------
    >>> from tealeaves.models import Topics
    >>> topics = Topics((("tax", "budget", "deficit"), ("war", "peace", "army")), name="example")
    >>> len(topics), topics[1]
    (2, ('war', 'peace', 'army'))
    >>> topics.top(2).words
    (('tax', 'budget'), ('war', 'peace'))

    A plain text file (one topic per line) reads back as the same words:

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     topics.save(Path(tmp) / "example.txt")
    ...     Topics.load(Path(tmp) / "example.txt").words == topics.words
    True

    It displays itself like every result: a one-line ``repr``, and in a notebook its first
    topics' words:

    >>> topics
    Topics(topics=2, words per topic=3, name=example)
    >>> topics.columns()["words"]
    ['tax budget deficit', 'war peace army']
    """

    words: tuple[tuple[str, ...], ...]
    name: str = "topics"
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        given = self.words
        if isinstance(given, (str, bytes)) or any(isinstance(topic, (str, bytes)) for topic in given):
            raise InputError(TOPICS_NOT_STRINGS)
        words = tuple(tuple(str(w) for w in topic) for topic in given)
        object.__setattr__(self, "words", words)
        if not words:
            raise InputError("no topics given: a Topics object needs at least one topic")
        empty = [k for k, topic in enumerate(words) if not topic]
        if empty:
            raise InputError(f"topic {empty[0]} has no words; every topic needs at least one word")
        for k, topic in enumerate(words):
            if len(set(topic)) != len(topic):
                twice = next(w for i, w in enumerate(topic) if w in topic[:i])
                shown = " ".join(topic[:SHOWN_WORDS]) + (
                    f" ... ({len(topic)} words)" if len(topic) > SHOWN_WORDS else ""
                )
                raise InputError(
                    f"topic {k} lists the word {twice!r} twice ({shown}); words of a topic must be distinct"
                )

    def __len__(self) -> int:
        return len(self.words)

    def summary(self) -> dict[str, Any]:
        """The number of topics, their length (``3`` or ``3-10``) and the name: what the display shows first."""
        lengths = sorted({len(topic) for topic in self.words})
        span = str(lengths[0]) if len(lengths) == 1 else f"{lengths[0]}-{lengths[-1]}"
        return {"topics": len(self.words), "words per topic": span, "name": self.name}

    def columns(self) -> Columns:
        """One row per topic: its number and its words, space-separated."""
        return {"topic": np.arange(len(self.words)), "words": [" ".join(topic) for topic in self.words]}

    def __getitem__(self, k: int) -> tuple[str, ...]:
        return self.words[k]

    def top(self, n: int | None) -> Topics:
        """The first ``n`` words of every topic (all words when ``n`` is None)."""
        if n is None:
            return self
        if not is_count(n):  # -1 dropped each topic's last word, as a slice does
            raise InputError(f"n must be a number of top words (1 or more), got {n!r}")
        short = [k for k, t in enumerate(self.words) if len(t) < n]
        if short:
            fewest = min(len(t) for t in self.words)
            raise InputError(
                f"topic {short[0]} has only {len(self.words[short[0]])} words, fewer than the {n} asked for; ask "
                f"for at most {fewest} top words, or give longer topics"
            )
        return Topics(tuple(t[:n] for t in self.words), self.name, self.meta)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write one topic per line, words separated by spaces."""
        Path(path).write_text("".join(" ".join(t) + "\n" for t in self.words), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str], encoding: str = DEFAULT_ENCODING) -> Topics:
        """Read a plain topic list: one topic per line, words separated by whitespace, in ``encoding``
        (a byte that is not valid is refused with its line: :func:`tealeaves.textfiles.read_text`).

        MALLET's ``--output-topic-keys`` file is read as its words too: its lines are
        ``topic<TAB>α_k<TAB>words`` (``ParallelTopicModel.printTopWords``), the topics numbered 0 to
        K - 1 in order; ``meta["alpha"]`` keeps the α_k. So are gensim's printed topics, a line per topic as
        ``print_topic(k)`` gives it (``0.034*"tax" + 0.020*"budget" + ...``) or as ``print_topics()`` lists
        it (``(0, '0.034*"tax" + ...')``): their words, the weights set aside."""
        path = Path(path)
        _refuse_saved_model(path)
        text = read_text(path, encoding)
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            raise InputError(f"topic list {path} is empty; write one topic per line, words separated by spaces")
        meta: dict[str, Any] = {"source": str(path)}
        keys, printed = mallet_topic_keys(lines), gensim_printed_topics(lines)
        if keys is not None:
            lines = [words for _, words in keys]
            meta.update({"format": "mallet-topic-keys", "alpha": [alpha for alpha, _ in keys]})
        elif printed is not None:
            lines = [" ".join(words) for words in printed]
            meta["format"] = "gensim-print-topics"
        return cls(tuple(tuple(line.split()) for line in lines), name=path.stem, meta=meta)


SAVED_MODELS = {
    b"\x80": ("a pickle", "a model gensim or scikit-learn saved", "gensim"),
    b"\x1f\x8b": ("gzip-compressed", "MALLET's --output-state", "mallet-state"),
}
"""The first bytes of files that are saved models, not topic lists: what they are, and the import format."""


def _refuse_saved_model(path: Path) -> None:
    """Refuse a saved model given where a topic list goes, naming the format that imports it (its bytes were
    read as text: "byte 0x80 is not valid utf-8; read it with --encoding latin-1")."""
    if not path.is_file():
        return
    with open(path, "rb") as handle:
        head = handle.read(2)
    for magic, (what, likely, format) in SAVED_MODELS.items():
        if head.startswith(magic):
            raise InputError(
                f'{path} is {what}, not a topic list ({likely}?): import it with its format, format = "{format}" '
                f"in its [[models]] table, or tealeaves import {format} {path} --vocab-from <the training corpus>"
            )


def mallet_topic_keys(lines: list[str]) -> list[tuple[float, str]] | None:
    """``(α_k, words)`` of each line of MALLET's ``--output-topic-keys`` file (``k<TAB>α_k<TAB>w1 w2 ...``,
    k = 0 .. K - 1 in order; α_k as MALLET's number format writes it, a decimal comma too); None where
    the lines are not all such."""
    keys = []
    for k, line in enumerate(lines):
        fields = line.split("\t")
        if len(fields) != 3 or fields[0].strip() != str(k):
            return None
        try:
            alpha = float(fields[1].strip().replace(",", "."))
        except ValueError:
            return None
        keys.append((alpha, fields[2]))
    return keys


_GENSIM_TERM = re.compile(r'-?[0-9.]+(?:e-?[0-9]+)?\*"([^"]*)"')
_GENSIM_LISTED = re.compile(r"\(\s*\d+\s*,\s*'(.*)'\s*\)")


def gensim_printed_topics(lines: list[str]) -> list[list[str]] | None:
    """The words of gensim's printed topics (``weight*"word" + ...``, bare or in ``(k, '...')``), None where
    a line is anything else: each line must hold such terms and nothing but the ``+`` between them."""
    topics = []
    for line in lines:
        words = _GENSIM_TERM.findall(line)
        rest = _GENSIM_TERM.sub(" ", line).strip()
        listed = _GENSIM_LISTED.fullmatch(rest)
        if not words or (listed.group(1) if listed else rest).replace("+", " ").strip():
            return None
        topics.append(words)
    return topics
