"""The standard preprocessing of Hoyle et al. 2021, Appendix A.2, one configurable rule each.

Document rules
    ``min_doc_words=25``: documents with fewer whitespace-separated tokens are not processed;
    ``max_doc_words=None``: optional truncation to that many whitespace-separated tokens
    (Hoyle et al. used 5,000 for NYT and 19,000 for WIKI);
    ``min_doc_tokens=5``: after all token filtering, shorter documents are dropped.

Token rules (applied in this order; a token removed is counted under the first rule that
removes it)
    spaCy tokenization (a blank English pipeline, or ``entities=MODEL``), lowercased
    (``lowercase=True``), no lemmatization; with ``entities``, spans of the types
    ``ORG, PERSON, FAC, GPE, LOC`` (the paper's ORG, PERSON, FACILITY, GPE, LOC) are merged into
    one token joined by underscores (``New York City`` -> ``new_york_city``) after trimming
    leading and trailing stop words, so stop words inside an entity are kept;
    ``stopwords="spacy"``: spaCy's English stop list (``None`` keeps stop words, a path reads
    one word per line);
    ``min_chars=3``: tokens of 2 characters or fewer are dropped;
    ``token_pattern``: tokens must match ``^[\\w-]*[a-zA-Z][\\w-]*$``.

Vocabulary rules (on document frequencies of the training documents)
    ``max_df=0.9``: tokens in more than 90% of documents are dropped (a float is a share of
    documents, an int a count, as in scikit-learn);
    ``min_df="auto"``: tokens in fewer than ``2 * (0.02 * |D|) ** (1 / ln 10)`` documents are
    dropped (2 at |D| = 50, about 110 at |D| = 500,000; Hoyle et al. footnote 24), or give a
    number of documents.

Texts already tokenized (``tokenizer="whitespace"``: tokens separated by whitespace, as
gensim users keep them; the ``tokenized`` input format) are split on whitespace instead of
by spaCy, and :data:`TOKENIZED` takes them as they are: no rule removes a token or a
document except empty ones, unless a rule is given. Only spaCy tokenization, ``entities``
and ``stopwords="spacy"`` need spaCy (``pip install 'tealeaves[prepare]'``).

The vocabulary is sorted alphabetically, so results do not depend on how work was split
over processes.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.errors import InputError, MissingDependencyError, with_guesses

TOKEN_PATTERN = r"^[\w-]*[a-zA-Z][\w-]*$"
ENTITY_TYPES = ("ORG", "PERSON", "FAC", "GPE", "LOC")
TOKEN_RULES = ("stopwords", "min_chars", "token_pattern")
TOKENIZERS = ("spacy", "whitespace")
_SPACE = -4
_CODES = {rule: -(i + 1) for i, rule in enumerate(TOKEN_RULES)}  # -code is the column in counts


def min_df_threshold(n_docs: int) -> float:
    """Hoyle et al. 2021's minimum document frequency ``2 * (0.02 * |D|) ** (1 / ln 10)``.

    The rule ``min_df="auto"`` of :class:`PreprocessConfig` (Hoyle et al. 2021, footnote 24).

    Parameters
    ----------
    n_docs : int
        Documents in the training corpus, ``|D|``.

    Returns
    -------
    float
        The number of documents a word must occur in to be kept.

    Examples
    --------
    2 at 50 documents (``0.02 * 50 = 1``), about 110 at 500,000:

    >>> from tealeaves.corpus import min_df_threshold
    >>> min_df_threshold(50), round(min_df_threshold(500_000), 1)
    (2.0, 109.2)
    """
    return 2.0 * (0.02 * n_docs) ** (1.0 / math.log(10.0))


RULES_ELSEWHERE = {
    "no_below": ("min_df", "gensim's"),  # Dictionary.filter_extremes: kept where in at least no_below documents
    "no_above": ("max_df", "gensim's"),  # a share of the documents, as a float max_df
    "stop_words": ("stopwords", "scikit-learn's"),
}
"""The names gensim and scikit-learn give the rules (name -> ours, whose), for the refusal of one."""


@dataclass(frozen=True)
class PreprocessConfig:
    """Every rule of the pipeline; the defaults are Hoyle et al. 2021's (see module docstring).

    Attributes
    ----------
    min_doc_words : int, default 25
        Documents with fewer whitespace-separated tokens are not processed.
    max_doc_words : int or None, default None
        Truncate documents to that many whitespace-separated tokens.
    lowercase : bool, default True
        Lowercase the tokens.
    entities : str or None, default None
        A spaCy pipeline with named entities (package name or path) whose entity spans are
        merged into one token (``new_york_city``).
    stopwords : str, list of str or None, default "spacy"
        spaCy's English stop list, None to keep stop words, a file of one word per line, or the stop
        words themselves (a list or set, as scikit-learn's ``stop_words`` takes them; kept lowercased and
        sorted).
    min_chars : int, default 3
        Tokens of fewer characters are dropped.
    token_pattern : str, default ``^[\\w-]*[a-zA-Z][\\w-]*$``
        Tokens must match this regular expression.
    max_df : float or int, default 0.9
        Words in more than this share (float) or number (int) of documents are dropped.
    min_df : "auto" or int, default "auto"
        Words in fewer documents are dropped; "auto" is :func:`min_df_threshold`.
    min_doc_tokens : int, default 5
        Documents left with fewer tokens are dropped.
    entity_types : tuple of str
        The entity labels merged (``ORG, PERSON, FAC, GPE, LOC``).
    tokenizer : {"spacy", "whitespace"}, default "spacy"
        spaCy's tokenizer, or splitting on whitespace (texts already tokenized).

    Examples
    --------
    >>> from tealeaves.corpus import PreprocessConfig
    >>> config = PreprocessConfig.from_rules(min_chars=2, max_df=100)
    >>> config.min_chars, config.max_df_count(1000), config.min_df_count(50)
    (2, 100.0, 2.0)
    >>> PreprocessConfig.from_rules(min_dff=3)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: unknown preprocessing rule(s) min_dff (did you mean min_df?); known rules: ...
    >>> PreprocessConfig.from_rules(no_below=5)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: unknown preprocessing rule(s) no_below (gensim's name for min_df); known rules: ...
    """

    min_doc_words: int = 25
    max_doc_words: int | None = None
    lowercase: bool = True
    entities: str | None = None
    stopwords: str | tuple[str, ...] | None = "spacy"
    min_chars: int = 3
    token_pattern: str = TOKEN_PATTERN
    max_df: float | int = 0.9
    min_df: str | int = "auto"
    min_doc_tokens: int = 5
    entity_types: tuple[str, ...] = field(default=ENTITY_TYPES)
    tokenizer: str = "spacy"

    @classmethod
    def from_rules(cls, base: PreprocessConfig | None = None, **rules: Any) -> PreprocessConfig:
        """A config from keyword rules, refusing unknown names and invalid values."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(rules) - known)
        if unknown:
            raise InputError(
                f"unknown preprocessing rule(s) {with_guesses(unknown, known, RULES_ELSEWHERE)}; "
                f"known rules: {', '.join(sorted(known))}"
            )
        if "entity_types" in rules:
            given = rules["entity_types"]
            if isinstance(given, str) or not isinstance(given, Iterable):  # "ORG" became ("O", "R", "G")
                raise InputError(f"entity_types must be a list of entity labels, e.g. ['ORG', 'PERSON'], got {given!r}")
            rules["entity_types"] = tuple(given)
        stop = rules.get("stopwords")
        if isinstance(stop, (list, tuple, set, frozenset)):  # the words themselves, as scikit-learn takes them
            if not all(isinstance(word, str) for word in stop):
                raise InputError(
                    f"stopwords given as a list must be words (strings), got {sorted(map(repr, stop))[:5]}"
                )
            rules["stopwords"] = tuple(sorted({word.strip().lower() for word in stop}))
        config = replace(base or cls(), **rules)
        config.validate()
        return config

    def validate(self) -> None:
        def need(ok: bool, message: str) -> None:
            if not ok:
                raise InputError(message)

        need(self.tokenizer in TOKENIZERS, f"tokenizer must be one of {', '.join(TOKENIZERS)}, got {self.tokenizer!r}")
        need(
            self.entities is None or self.tokenizer == "spacy",
            "entities are merged by spaCy; they cannot be combined with texts already tokenized",
        )
        need(isinstance(self.min_doc_words, int) and self.min_doc_words >= 0, "min_doc_words must be an integer >= 0")
        need(
            self.max_doc_words is None or (isinstance(self.max_doc_words, int) and self.max_doc_words > 0),
            "max_doc_words must be a positive integer or None",
        )
        need(isinstance(self.min_chars, int) and self.min_chars >= 0, "min_chars must be an integer >= 0")
        need(
            isinstance(self.min_doc_tokens, int) and self.min_doc_tokens >= 0, "min_doc_tokens must be an integer >= 0"
        )
        if isinstance(self.max_df, float):
            need(0.0 < self.max_df <= 1.0, "max_df as a share of documents must lie in (0, 1]; use an int for a count")
        else:
            need(isinstance(self.max_df, int) and self.max_df >= 1, "max_df must be a share in (0, 1] or a count >= 1")
        need(
            self.min_df == "auto" or (isinstance(self.min_df, int) and self.min_df >= 0),
            f"min_df must be 'auto' or a whole number of documents, got {self.min_df!r}",
        )
        need(
            isinstance(self.token_pattern, str),
            f"token_pattern must be a regular expression, got {self.token_pattern!r}",
        )
        try:
            re.compile(self.token_pattern)
        except re.error as exc:
            raise InputError(f"token_pattern {self.token_pattern!r} is not a valid regular expression: {exc}") from None
        stop = self.stopwords
        if not (
            stop is None
            or isinstance(stop, tuple)
            or (isinstance(stop, str) and (stop == "spacy" or Path(stop).is_file()))
        ):
            raise InputError(
                f"stopwords must be 'spacy', None, a file of one word per line or a list of words; {stop!r} is none"
            )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def needs_spacy(self) -> bool:
        """Whether these rules load spaCy (its tokenizer, a pipeline with entities, its stop list)."""
        return self.tokenizer == "spacy" or self.entities is not None or self.stopwords == "spacy"

    def min_df_count(self, n_docs: int) -> float:
        """The minimum document frequency for a training corpus of ``n_docs`` documents."""
        return min_df_threshold(n_docs) if self.min_df == "auto" else float(self.min_df)

    def max_df_count(self, n_docs: int) -> float:
        """The maximum document frequency for a training corpus of ``n_docs`` documents."""
        return self.max_df * n_docs if isinstance(self.max_df, float) else float(self.max_df)


#: The rules of texts already tokenized: split on whitespace, every token and every non-empty document kept.
TOKENIZED = PreprocessConfig(
    tokenizer="whitespace",
    min_doc_words=0,
    lowercase=False,
    stopwords=None,
    min_chars=0,
    token_pattern=".",
    max_df=1.0,
    min_df=0,
    min_doc_tokens=1,
)


def count_whitespace_words(text: str, limit: int | None) -> tuple[int, str]:
    """Number of whitespace-separated tokens, and the text truncated to ``limit`` of them."""
    words = text.split()
    if limit is not None and len(words) > limit:
        return len(words), " ".join(words[:limit])
    return len(words), text


# --------------------------------------------------------------------------- tokenization
@dataclass
class TokenizedBatch:
    """Output of :func:`tokenize_batch`: tokens over a batch-local word list."""

    words: list[str]
    tokens: np.ndarray  # int32 ids into ``words``
    lengths: np.ndarray  # int64[n_docs] tokens kept per document
    counts: np.ndarray  # int64[n_docs, 1 + len(TOKEN_RULES)]: spaCy tokens seen, then removed per rule


_PIPELINES: dict[str | None, Any] = {}


def load_pipeline(entities: str | None) -> Any:
    """The spaCy pipeline: blank English, or ``entities`` (a package name or a path) with NER.

    Cached per process.
    """
    if entities in _PIPELINES:
        return _PIPELINES[entities]
    import spacy

    if entities is None:
        nlp = spacy.blank("en")
    else:
        try:
            nlp = spacy.load(entities)
        except OSError as exc:
            raise MissingDependencyError(
                f"spaCy pipeline {entities!r} is not installed: install one with named entities, e.g. "
                f"`python -m spacy download en_core_web_sm`, or pass the path of a saved pipeline"
            ) from exc
        if not any(name in nlp.pipe_names for name in ("ner", "entity_ruler")):
            raise InputError(
                f"spaCy pipeline {entities!r} has no 'ner' or 'entity_ruler' component, so it cannot merge "
                "entities; use e.g. en_core_web_sm"
            )
        keep = {"ner", "entity_ruler", "tok2vec", "transformer"}
        for name in list(nlp.pipe_names):
            if name not in keep:
                nlp.disable_pipe(name)
    _PIPELINES[entities] = nlp
    return nlp


def trim_pipeline(entities: str | None, max_strings: int = 500_000) -> bool:
    """Forget the cached pipeline once its string store holds more than ``max_strings`` strings.

    spaCy keeps every new string it sees, so a worker that tokenizes shard after shard would
    grow with the corpus (Wikipedia has millions of distinct strings); the next
    :func:`load_pipeline` loads a fresh one. Tokenization does not depend on what the store
    holds.

    Parameters
    ----------
    entities : str or None
        Which cached pipeline: the blank English one (None) or that of ``entities``.
    max_strings : int, default 500000
        The string store's size above which the pipeline is dropped.

    Returns
    -------
    bool
        Whether the pipeline was dropped.

    Examples
    --------
    >>> from tealeaves.corpus.preprocess import load_pipeline, trim_pipeline
    >>> nlp = load_pipeline(None)
    >>> _ = nlp("Taxes, budgets and deficits")  # the store keeps every new string
    >>> trim_pipeline(None, max_strings=1_000_000), trim_pipeline(None, max_strings=0)
    (False, True)
    >>> load_pipeline(None) is nlp  # a fresh pipeline next time
    False
    """
    nlp = _PIPELINES.get(entities)
    if nlp is None or len(nlp.vocab.strings) <= max_strings:
        return False
    del _PIPELINES[entities]
    return True


def load_stopwords(stopwords: str | tuple[str, ...] | None) -> frozenset[str]:
    """The stop list named by the ``stopwords`` rule."""
    if stopwords is None:
        return frozenset()
    if stopwords == "spacy":
        from spacy.lang.en.stop_words import STOP_WORDS

        return frozenset(STOP_WORDS)
    if isinstance(stopwords, tuple):
        return frozenset(stopwords)
    return frozenset(w.strip().lower() for w in Path(stopwords).read_text(encoding="utf-8").split())


@dataclass(frozen=True)
class TokenizeTask:
    """A picklable unit of work for :func:`tokenize_batch`."""

    texts: list[str]
    config: PreprocessConfig


def tokenize_batch(task: TokenizeTask) -> TokenizedBatch:
    """Tokenize ``task.texts`` with spaCy (or split them on whitespace) and apply the token rules.

    Runs in worker processes (see :mod:`tealeaves.parallel`).
    """
    config = task.config
    stop = load_stopwords(config.stopwords)
    pattern = re.compile(config.token_pattern)
    words: list[str] = []

    def code(text: str) -> int:
        if text.isspace() or not text:
            return _SPACE
        if text in stop:
            return _CODES["stopwords"]
        if len(text) < config.min_chars:
            return _CODES["min_chars"]
        if not pattern.match(text):
            return _CODES["token_pattern"]
        words.append(text)
        return len(words) - 1

    strings = list(_strings(task.texts, config, stop))
    flat = list(itertools.chain.from_iterable(strings))
    code_of = {text: code(text) for text in dict.fromkeys(flat)}  # each distinct string once, as first seen
    codes = np.fromiter(map(code_of.__getitem__, flat), dtype=np.int64, count=len(flat))
    n_docs = len(task.texts)
    doc = np.repeat(np.arange(n_docs), np.fromiter(map(len, strings), dtype=np.int64, count=n_docs))
    kept = codes >= 0
    lengths = np.bincount(doc[kept], minlength=n_docs).astype(np.int64)
    counts = np.zeros((n_docs, 1 + len(TOKEN_RULES)), dtype=np.int64)
    for column in range(1, 1 + len(TOKEN_RULES)):
        counts[:, column] = np.bincount(doc[codes == -column], minlength=n_docs)
    counts[:, 0] = lengths + counts[:, 1:].sum(axis=1)
    return TokenizedBatch(words, codes[kept].astype(np.int32), lengths, counts)


def _strings(texts: list[str], config: PreprocessConfig, stop: frozenset[str]) -> Iterator[list[str]]:
    """Each text's token strings, by the configured tokenizer."""
    if config.tokenizer == "whitespace":
        for text in texts:
            yield (text.lower() if config.lowercase else text).split()
        return
    nlp = load_pipeline(config.entities)
    docs = nlp.pipe(texts, batch_size=256) if config.entities else nlp.tokenizer.pipe(texts, batch_size=256)
    for doc in docs:
        yield _entity_strings(doc, config, stop) if config.entities else _token_strings(doc, config.lowercase)


def _token_strings(doc: Any, lowercase: bool) -> list[str]:
    return [t.lower_ for t in doc] if lowercase else [t.text for t in doc]


def _entity_strings(doc: Any, config: PreprocessConfig, stop: frozenset[str]) -> list[str]:
    """Token strings with entity spans merged (``new_york_city``), stop words trimmed at the edges."""
    merged: dict[int, tuple[int, str]] = {}
    for ent in doc.ents:
        if ent.label_ not in config.entity_types:
            continue
        start, end = ent.start, ent.end
        while start < end and doc[start].lower_ in stop:
            start += 1
        while end > start and doc[end - 1].lower_ in stop:
            end -= 1
        if end - start > 1:
            text = doc[start:end].text
            merged[start] = (end, re.sub(r"\s+", "_", text.lower() if config.lowercase else text))
    strings: list[str] = []
    i = 0
    while i < len(doc):
        if i in merged:
            end, text = merged[i]
            strings.append(text)
            i = end
        else:
            strings.append(doc[i].lower_ if config.lowercase else doc[i].text)
            i += 1
    return strings
