"""A human evaluation study: its items and settings, as an artifact folder.

``create_study`` turns one or more models into the items of one task (see
:mod:`tealeaves.study.items`), interleaves the models' items at random and anonymises them
(participants never see model names or topic numbers), and records every item and setting in
a study folder:

- ``items.jsonl``   one line per item, with its answer key (never served before answering);
- ``manifest.json`` the settings, the models (label, kind, fingerprint of Φ), the seed and counts;
- ``secrets.json``  (readable by its owner only) the completion code and the study secret, drawn
  with :mod:`secrets` at creation and never from the seed: nobody can derive them from the
  items, the settings or the seed.

The same inputs and seed give the same study, byte for byte in ``items.jsonl`` and with the
same study id (the secrets are drawn anew each time and are no part of the id). Responses are not stored here but in the response store
(:mod:`tealeaves.study.store`), by default ``responses.sqlite`` inside the folder.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tealeaves.artifacts import check_writable, json_safe, new_manifest, read_manifest, write_artifact, write_json
from tealeaves.corpus import Corpus
from tealeaves.errors import ArtifactError, InputError, check_each, describe, is_count, is_real
from tealeaves.intrusion import PROTOCOLS
from tealeaves.models import TopicModel, Topics, as_topics
from tealeaves.rng import as_seed, family_generator
from tealeaves.study import texts
from tealeaves.study.items import check_items, ranked_words
from tealeaves.study.schema import TASKS
from tealeaves.study.tasks.base import HumanTask, ItemRequest
from tealeaves.study.tasks.item import CHECK_LABEL, Item
from tealeaves.study.tasks.registry import task_named

ITEMS_FILE = "items.jsonl"
SECRETS_FILE = "secrets.json"
DEFAULT_DB_FILE = "responses.sqlite"

ANNOTATORS_PER_ITEM: dict[str, int] = {name: task_named(name).annotators for name in TASKS}
"""Annotators per item Hoyle et al. 2021 used after their power analysis (§5, Appendix A.5): 15 for
ratings and 26 for intrusion (power above 0.9 at α = 0.05 to detect 4 fewer coherent topics in 50),
each built-in task's :attr:`~tealeaves.study.tasks.HumanTask.annotators`.
``tealeaves study create`` instead sizes the study's own design for the topic-level test its
analysis runs (:func:`tealeaves.analysis.annotators_for_study`)."""

ITEMS_PER_PARTICIPANT_SHARE = 0.25
"""Hoyle et al. 2021 (Appendix A.4) showed each respondent 25% of the questions."""


def default_annotators(task: str) -> int:
    """Annotators per item when none is given (Hoyle et al. 2021's power analysis).

    Parameters
    ----------
    task : str
        The study's task: ``"word-intrusion"``, ``"topic-intrusion"``, ``"rating"`` or a registered one.

    Returns
    -------
    int
        The task's :attr:`~tealeaves.study.tasks.HumanTask.annotators` (:data:`ANNOTATORS_PER_ITEM`
        of a built-in task).

    Examples
    --------
    >>> from tealeaves.study import default_annotators
    >>> default_annotators("rating"), default_annotators("word-intrusion")
    (15, 26)
    """
    return task_named(task).annotators


@dataclass(frozen=True)
class Study:
    """A study: ``items`` (with answer keys) and ``settings``; see the module docstring.

    Attributes
    ----------
    study_id : str
        Derived from the items and settings, so the same study always has the same id.
    task : str
    items : tuple of Item
        In the order they were interleaved (item ids ``q0001``, ``q0002``, ...).
    settings : dict
        Everything a participant or the assignment depends on (texts, targets, codes, ...).
    models : list of dict
        Label, kind and fingerprint of each model (never shown to participants).
    manifest : dict
    secrets : dict
        ``completion_code`` and ``secret`` (64 hex digits), from :func:`new_secrets`; kept in
        ``secrets.json``, apart from the items and settings and outside the fingerprint.

    Examples
    --------
    A study is made by :func:`create_study`, saved as a folder and loaded back:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.study import Study, create_study
    >>> lda = [
    ...     ["tax", "budget", "deficit", "spending", "revenue", "debt", "income", "fiscal", "cuts", "billion"],
    ...     ["war", "army", "troops", "peace", "military", "soldiers", "enemy", "battle", "forces", "navy"],
    ... ]
    >>> nmf = [
    ...     ["oil", "energy", "gas", "power", "fuel", "coal", "prices", "supply", "nuclear", "electricity"],
    ...     ["court", "law", "justice", "judges", "crime", "rights", "congress", "police", "prison", "legal"],
    ... ]
    >>> study = create_study({"lda": lda, "nmf": nmf}, "word-intrusion", seed=0)
    >>> study
    Study('st-...', task='word-intrusion', 4 items, models=['lda', 'nmf'])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = study.save(Path(folder) / "study")
    ...     files = sorted(path.name for path in out.iterdir())
    ...     loaded = Study.load(out)
    >>> files
    ['items.jsonl', 'manifest.json', 'secrets.json']
    >>> loaded.study_id == study.study_id, loaded.item("q0001") == study.items[0]
    (True, True)
    """

    study_id: str
    task: str
    items: tuple[Item, ...]
    settings: dict[str, Any]
    models: list[dict[str, Any]] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=lambda: new_secrets(), repr=False)
    _by_id: dict[str, Item] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {item.item_id: item for item in self.items})

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"Study({self.study_id!r}, task={self.task!r}, {len(self.items)} items, models={self.labels})"

    @property
    def labels(self) -> list[str]:
        """Model labels in the order given."""
        return [m["label"] for m in self.models]

    def item(self, item_id: str) -> Item:
        """The item with this id (raises :class:`InputError` for an unknown id)."""
        try:
            return self._by_id[item_id]
        except KeyError:
            raise InputError(f"study {self.study_id} has no item {item_id!r}") from None

    def has_item(self, item_id: str) -> bool:
        """Whether the study has an item with this id."""
        return item_id in self._by_id

    @property
    def completion_code(self) -> str:
        """The study's completion code (drawn with :mod:`secrets`, or the one given at creation)."""
        return self.secrets["completion_code"]

    def derive(self, purpose: str, value: str) -> bytes:
        """HMAC-SHA256 of ``purpose:value`` under the study secret (codes, session keys, address hashes)."""
        return hmac.new(bytes.fromhex(self.secrets["secret"]), f"{purpose}:{value}".encode(), "sha256").digest()

    def participant_code(self, raw_id: str) -> str:
        """The per-participant completion code: ``TL`` + 10 base-32 characters of
        HMAC-SHA256(study secret, ``code:`` + raw id), the raw id being the ``PROLIFIC_PID`` (or
        the session token of a participant without one). Only who holds the secret can make it."""
        return "TL" + base64.b32encode(self.derive("code", raw_id)).decode("ascii")[:10]

    def code_for(self, raw_id: str) -> str:
        """The code shown to this participant: per participant when the study asks for that, else the study's."""
        return self.participant_code(raw_id) if self.settings.get("per_participant_codes") else self.completion_code

    def partial_code_for(self, raw_id: str) -> str:
        """The code for partial completion shown to this participant (a session that came back after
        the idle limit, when the server gives partial codes): ``TP`` + 10 base-32 characters of
        HMAC-SHA256(study secret, ``partial-code:`` + the raw id), or of ``partial-code:`` alone when
        the study shares one code among its participants. Register it on the recruitment site as
        the code of partial completion."""
        shared = not self.settings.get("per_participant_codes")
        return "TP" + base64.b32encode(self.derive("partial-code", "" if shared else raw_id)).decode("ascii")[:10]

    @property
    def fingerprint(self) -> str:
        """SHA-256 over the items and settings: what the response store checks on opening."""
        return fingerprint(self.items, self.settings)

    def to_frame(self) -> pd.DataFrame:
        """One row per item with its key (for the researcher, never for participants)."""
        rows = []
        for item in self.items:
            row = item.to_dict()
            row["words"] = " ".join(item.words)
            row["options"] = " | ".join(" ".join(o) for o in item.options)
            row["option_topics"] = " ".join(map(str, item.option_topics))
            row["option_theta"] = " ".join(f"{t:.6g}" for t in item.option_theta)
            row["source"] = json.dumps(row["source"], sort_keys=True)
            rows.append(row)
        return pd.DataFrame(rows)

    # ----------------------------------------------------------------- persistence
    def save(self, out: str | os.PathLike[str], force: bool = False) -> Path:
        """Write the study folder atomically (refuses an existing folder unless ``force``)."""
        manifest = {
            **self.manifest,
            "kind": "study",
            "study_id": self.study_id,
            "task": self.task,
            "settings": self.settings,
            "models": self.models,
            "fingerprint": self.fingerprint,
        }

        def write(tmp: Path) -> None:
            (tmp / ITEMS_FILE).write_text(items_jsonl(self.items), encoding="utf-8")
            write_json(tmp / "manifest.json", manifest)
            descriptor = os.open(tmp / SECRETS_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(self.secrets, handle, sort_keys=True)

        write_artifact(out, write, force=force)
        object.__setattr__(self, "manifest", manifest)
        return Path(out)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Study:
        """Load a study folder and check that its items match the recorded fingerprint."""
        path = Path(path)
        manifest = read_manifest(path, kind="study")
        try:
            lines = (path / ITEMS_FILE).read_text(encoding="utf-8").splitlines()
            items = tuple(Item.from_dict(json.loads(line)) for line in lines if line.strip())
        except (OSError, ValueError, TypeError) as exc:
            raise ArtifactError(f"study {path} has a missing or corrupt {ITEMS_FILE} ({exc}); create it again") from exc
        try:
            kept = json.loads((path / SECRETS_FILE).read_text(encoding="utf-8"))
            bytes.fromhex(kept["secret"])
            if not isinstance(kept["completion_code"], str):
                raise TypeError("completion_code is not text")
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise ArtifactError(
                f"study {path} has a missing or corrupt {SECRETS_FILE} ({exc}); a study made by an older tealeaves "
                "has none: create the study again"
            ) from exc
        study = cls(
            study_id=manifest["study_id"],
            task=manifest["task"],
            items=items,
            settings=manifest["settings"],
            models=manifest.get("models", []),
            manifest=manifest,
            secrets={"completion_code": kept["completion_code"], "secret": kept["secret"]},
        )
        if study.fingerprint != manifest.get("fingerprint"):
            raise ArtifactError(
                f"study {path}: {ITEMS_FILE} or the settings were changed after the study was created; "
                "create the study again instead of editing it"
            )
        return study


def new_secrets(completion_code: str | None = None) -> dict[str, str]:
    """A study's secrets, drawn with :mod:`secrets`: the completion code (``TL`` + 10 base-32
    characters, 50 bits, unless one is given) and a 256-bit secret for per-participant codes,
    session keys and signed admin cookies."""
    code = completion_code or "TL" + base64.b32encode(secrets.token_bytes(10)).decode("ascii")[:10]
    return {"completion_code": code, "secret": secrets.token_hex(32)}


def items_jsonl(items: Sequence[Item]) -> str:
    """The items as JSON lines (stable key order)."""
    return "".join(json.dumps(item.to_dict(), sort_keys=True, ensure_ascii=False) + "\n" for item in items)


def fingerprint(items: Sequence[Item], settings: dict[str, Any]) -> str:
    """SHA-256 over the items' JSON lines and the settings' canonical JSON."""
    digest = hashlib.sha256(items_jsonl(items).encode("utf-8"))
    digest.update(json.dumps(settings, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()


# --------------------------------------------------------------------------- creation
ModelLike = TopicModel | Topics | Sequence[Sequence[str]] | str | os.PathLike[str]


def load_model_like(source: ModelLike) -> TopicModel | Topics:
    """A TopicModel (model folder or object) or Topics (topic-list file, Topics, word lists)."""
    if isinstance(source, (TopicModel, Topics)):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            return TopicModel.load(path)
        if path.is_file():
            return Topics.load(path)
        raise InputError(f"{path} is neither a model folder nor a topic-list file")
    return as_topics(source)


def items_per_model(
    models: Sequence[ModelLike], task: str, *, docs: int = 40, topics_per_model: int | None = None
) -> int:
    """Items each model contributes to a study of ``task``: the documents shown for a task whose
    items are documents (topic intrusion), otherwise the topics (all, or ``topics_per_model``) of
    the smallest model."""
    if task_named(task).unit == "document":
        return docs
    sizes = [m.k if isinstance(m, TopicModel) else len(m) for m in map(load_model_like, models)]
    if not sizes:
        raise InputError("a study needs at least one model")
    return min(sizes) if topics_per_model is None else min(topics_per_model, *sizes)


def create_study(
    models: Mapping[str, ModelLike] | Sequence[ModelLike],
    task: str,
    out: str | os.PathLike[str] | None = None,
    *,
    labels: Sequence[str] | None = None,
    corpus: Corpus | str | os.PathLike[str] | None = None,
    seed: int | np.random.Generator = 0,
    protocol: str = "hoyle",
    draws: int = 1,
    scale: int = 3,
    familiarity: bool | None = None,
    topics_per_model: int | None = None,
    docs: int = 40,
    low_share: float = 0.5,
    annotators: int | None = None,
    items_per_participant: int | float | None = None,
    checks: int | None = None,
    checks_per_participant: int | None = None,
    check_sources: Sequence[ModelLike] | None = None,
    show_answer: bool = False,
    title: str = "Reading lists of words",
    consent: str | None = None,
    instructions: str | None = None,
    corpus_description: str | None = None,
    completion_code: str | None = None,
    per_participant_codes: bool | None = None,
    redirect_url: str | None = None,
    timeout_minutes: float = 10.0,
    force: bool = False,
) -> Study:
    """Create a human evaluation study of ``task`` over one or more models.

    Parameters
    ----------
    models : mapping of label to model, or a sequence of models
        TopicModel objects or folders; for word intrusion and ratings also topic lists
        (:class:`~tealeaves.models.Topics`, a one-topic-per-line file, or lists of words).
    task : str
        ``"word-intrusion"``, ``"topic-intrusion"``, ``"rating"`` or a registered task
        (:mod:`tealeaves.study.tasks`), which makes the items.
    out : path, optional
        Write the study folder here (atomically).
    labels : list of str, optional
        Model labels when ``models`` is a sequence (default: folder names, or model1, model2, ...).
        Labels are recorded with the responses and never shown to participants.
    corpus : Corpus or folder
        Topic intrusion: the documents (with titles and snippets), over the models' vocabulary.
    seed : int or Generator
        The same seed gives the same study. The topics, the items' draws, the attention checks and
        the item order each come from a stream family of their own under ``seed``
        (:func:`tealeaves.rng.family_generator`).
    protocol : {"hoyle", "chang"}
        Word intrusion: 5 of the top 10 words (Hoyle et al. 2021) or the top 5 (Chang et al. 2009).
    draws : int
        Word intrusion: independent intruder sets per topic.
    scale : {3, 5}
        Ratings: the 3-point scale of Newman et al. 2010 / Hoyle et al. 2021, or a 5-point one.
    familiarity : bool, optional
        Ask Hoyle et al.'s familiarity question (default: yes for word intrusion and ratings,
        no for topic intrusion).
    topics_per_model : int, optional
        Sample this many topics of each model at random (default: all topics).
    docs : int
        Topic intrusion: documents sampled from the corpus (the same documents for every model).
    low_share : float
        Topic intrusion: the intruder is drawn from the ``ceil(low_share * K)`` least probable topics.
    annotators : int, optional
        Target answers per item (default: 15 for ratings, 26 for intrusion, as Hoyle et al. used;
        :func:`tealeaves.analysis.annotators_for_study` gives the number for another design).
    items_per_participant : int or float, optional
        Questions per participant: a count, or a share of the items (default 0.25, Hoyle et al. A.4).
    checks : int, optional
        Ratings: synthetic attention-check topics (default 8; 0 disables). Intrusion tasks have none.
    checks_per_participant : int, optional
        Attention checks added to each participant's questions (default: 2 when there are checks).
    check_sources : list of models, optional
        Topics the check words are drawn from (Hoyle et al. used other runs; default: the models).
    show_answer : bool
        After each intrusion answer, show the model's answer (Chang et al. 2009 §3).
    title, consent, instructions, corpus_description : str, optional
        Texts shown to participants (defaults in :mod:`tealeaves.study.texts`).
    completion_code : str, optional
        Code shown at the end (default: drawn with :mod:`secrets`, never from the seed; kept in
        ``secrets.json``); with ``redirect_url`` the participant is sent to
        ``redirect_url?cc=CODE`` (Prolific's completion URL).
    redirect_url : str, optional
        An http(s) URL the participant is sent to when done, with ``cc=CODE`` appended.
    per_participant_codes : bool, optional
        Show each participant their own code, HMAC-SHA256 of their ``PROLIFIC_PID`` under the
        study secret (:meth:`Study.participant_code`), listed in the export for checking. Default:
        on with ``redirect_url`` (Prolific), where a shared code, once seen, can be submitted by
        any account; off otherwise.
    timeout_minutes : float
        The lease on the question a participant has on screen: it goes back to the pool when
        they have shown no activity for this long (each page they open renews it).
    force : bool
        Replace an existing ``out`` folder.

    Returns
    -------
    Study
        Its items in interleaved order (``q0001``, ``q0002``, ...), settings and secrets.

    Raises
    ------
    InputError
        For an unknown task or protocol, a bad scale, count or URL, attention checks in an
        intrusion study, or a study without items.

    Examples
    --------
    A word-intrusion study of two models' topics (lists of words here; trained models or
    their folders work the same): each topic gets one item, five of its top ten words and an
    intruder from another topic, in an order drawn from ``seed``.

    >>> from tealeaves.study import create_study
    >>> lda = [
    ...     ["tax", "budget", "deficit", "spending", "revenue", "debt", "income", "fiscal", "cuts", "billion"],
    ...     ["war", "army", "troops", "peace", "military", "soldiers", "enemy", "battle", "forces", "navy"],
    ... ]
    >>> nmf = [
    ...     ["oil", "energy", "gas", "power", "fuel", "coal", "prices", "supply", "nuclear", "electricity"],
    ...     ["court", "law", "justice", "judges", "crime", "rights", "congress", "police", "prison", "legal"],
    ... ]
    >>> study = create_study({"lda": lda, "nmf": nmf}, "word-intrusion", seed=0)
    >>> len(study), study.settings["annotators"]  # items, and answers wanted per item
    (4, 26)
    >>> item = study.items[0]
    >>> item.model, item.words, item.intruder
    ('nmf', ('justice', 'law', 'prison', 'rights', 'prices', 'judges'), 'prices')

    A ratings study shows each topic's top ten words; ``checks=0`` leaves out the synthetic
    attention checks, which need more topics to draw from than these four:

    >>> ratings = create_study({"lda": lda, "nmf": nmf}, "rating", seed=0, checks=0)
    >>> ratings.items[0].words[:4], ratings.items[0].scale
    (('court', 'law', 'justice', 'judges'), 3)
    """
    return _Creation(**locals()).study()  # every argument by name; the steps are _Creation's methods


@dataclass(frozen=True)
class _Creation:
    """The arguments of one :func:`create_study` call, and its steps in order (:meth:`study`)."""

    models: Mapping[str, ModelLike] | Sequence[ModelLike]
    task: str
    out: str | os.PathLike[str] | None
    labels: Sequence[str] | None
    corpus: Corpus | str | os.PathLike[str] | None
    seed: int | np.random.Generator
    protocol: str
    draws: int
    scale: int
    familiarity: bool | None
    topics_per_model: int | None
    docs: int
    low_share: float
    annotators: int | None
    items_per_participant: int | float | None
    checks: int | None
    checks_per_participant: int | None
    check_sources: Sequence[ModelLike] | None
    show_answer: bool
    title: str
    consent: str | None
    instructions: str | None
    corpus_description: str | None
    completion_code: str | None
    per_participant_codes: bool | None
    redirect_url: str | None
    timeout_minutes: float
    force: bool

    def check_out(self) -> None:
        """Refuse an ``out`` that is or holds a model folder, a topic file or the corpus the study is made of
        (:func:`~tealeaves.artifacts.check_writable`), before anything is read."""
        if self.out is None:
            return
        models = self.models
        given = (
            list(models.values())
            if isinstance(models, Mapping)
            else [models]
            if isinstance(models, ONE_MODEL)
            else list(models)
        )
        check_writable(self.out, self.force, inputs=[*given, *(self.check_sources or []), self.corpus])

    def study(self) -> Study:
        """Check the options, make the task's items and the attention checks, number them, settle
        the settings; the study, saved to ``out`` when given."""
        task = self.checked_task()
        self.check_out()
        labelled = _labelled(self.models, self.labels)
        familiarity = task.familiarity if self.familiarity is None else bool(self.familiarity)
        annotators = task.annotators if self.annotators is None else int(self.annotators)
        checks, checks_per_participant = self.attention_checks(task)
        root = as_seed(self.seed)
        # a study's four streams under its seed: which topics or documents, the items' own draws,
        # the attention checks, the order of the items
        pick_rng = family_generator(root, "study topic selection")
        task_rng = family_generator(root, "study item draws")
        check_rng = family_generator(root, "study attention checks")
        order_rng = family_generator(root, "study item order")
        request = ItemRequest(
            models=labelled,
            corpus=self.corpus,
            protocol=self.protocol,
            draws=int(self.draws),
            scale=int(self.scale),  # NumPy's integers are not JSON
            familiarity=familiarity,
            topics_per_model=self.topics_per_model,
            docs=int(self.docs),
            low_share=self.low_share,
            pick_rng=pick_rng,
            task_rng=task_rng,
        )
        items, model_records = task.items(request)
        if checks:
            items += self.check_items(task, labelled, checks, familiarity, check_rng)
        if not items:
            raise InputError("the study has no items: select at least one topic or document")
        items = _interleaved(items, order_rng)
        n_regular = sum(not item.is_check for item in items)
        per = _items_per_participant(self.items_per_participant, n_regular)
        counts = {
            "annotators": annotators,
            "items_per_participant": per,
            "checks": checks,
            "checks_per_participant": checks_per_participant,
        }
        settings = self.settings(task, request, counts)
        manifest = new_manifest(
            "study",
            seed=self.seed if isinstance(self.seed, int) else None,
            stats={
                "items": len(items),
                "checks": len(items) - n_regular,
                "target_answers": n_regular * annotators,
                "participants_needed": math.ceil(n_regular * annotators / per),
            },
        )
        study_id = "st-" + fingerprint(items, settings)[:12]
        kept = new_secrets(self.completion_code)
        study = Study(study_id, task.name, tuple(items), settings, model_records, manifest, kept)
        if self.out is not None:
            study.save(self.out, force=self.force)
        return study

    def checked_task(self) -> HumanTask:
        """The task, after checking the options every study has."""
        task = task_named(self.task)
        if not isinstance(self.protocol, str) or self.protocol not in PROTOCOLS:
            raise InputError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {self.protocol!r}")
        if not is_count(self.scale) or int(self.scale) not in texts.RATING_LABELS:
            raise InputError(f"the rating scale must be 3 or 5 points, got {self.scale}")
        for name, value in (("draws", self.draws), ("docs", self.docs)):
            if not is_count(value):
                raise InputError(f"{name} must be a whole number of at least 1, got {value!r}")
        self.check_values()
        if self.redirect_url is not None and not self.redirect_url.startswith(("https://", "http://")):
            raise InputError(f"redirect_url must be an http(s) URL, got {self.redirect_url!r}")
        return task

    def check_values(self) -> None:
        """Refuse a text, a switch, a count or a share of another type or out of its range, naming it: a list for
        a title or NaN for a share went into the study's settings, "abc" for a count raised int()'s ValueError."""
        texts_given = {
            "title": self.title,
            "consent": self.consent,
            "instructions": self.instructions,
            "corpus_description": self.corpus_description,
            "completion_code": self.completion_code,
            "redirect_url": self.redirect_url,
        }
        for name, value in texts_given.items():
            if not isinstance(value, str) and (value is not None or name == "title"):
                raise InputError(f"{name} must be a text (a string), got {describe(value)}")
        switches: dict[str, bool | None] = {
            "familiarity": self.familiarity,
            "show_answer": self.show_answer,
            "per_participant_codes": self.per_participant_codes,
            "force": self.force,
        }
        for name, switch in switches.items():
            optional = name in ("familiarity", "per_participant_codes")  # None: the task's or the redirect's default
            if not isinstance(switch, (bool, np.bool_)) and (switch is not None or not optional):
                raise InputError(f"{name} must be True or False, got {switch!r}")
        sources = self.check_sources
        if sources is not None and (isinstance(sources, (str, os.PathLike)) or not isinstance(sources, Sequence)):
            raise InputError(f"check_sources must be a list of models (or their folders), got {sources!r}")
        minutes, share, per = self.timeout_minutes, self.low_share, self.items_per_participant
        check_each(
            "a study",
            [
                (is_real(minutes) and 0 < minutes < math.inf, "timeout_minutes > 0 and finite", minutes),
                (is_real(share) and 0 < share <= 1, "0 < low_share <= 1", share),
                (
                    self.annotators is None or is_count(self.annotators),
                    "annotators >= 1 (a whole number)",
                    self.annotators,
                ),
                (self.checks is None or is_count(self.checks, 0), "checks >= 0 (a whole number)", self.checks),
                (
                    self.checks_per_participant is None or is_count(self.checks_per_participant, 0),
                    "checks_per_participant >= 0 (a whole number)",
                    self.checks_per_participant,
                ),
                (
                    self.topics_per_model is None or is_count(self.topics_per_model),
                    "topics_per_model >= 1 (a whole number)",
                    self.topics_per_model,
                ),
                (
                    per is None or (is_real(per) and per > 0),
                    "items_per_participant > 0 (a share in (0, 1] or a whole count)",
                    per,
                ),
            ],
        )

    def attention_checks(self, task: HumanTask) -> tuple[int, int]:
        """The study's attention checks and those each participant gets (the task's defaults: 2 when there are checks)."""
        checks = task.checks if self.checks is None else int(self.checks)
        if checks and not task.checks:
            raise InputError(
                "attention checks are synthetic poor topics for the ratings task (Hoyle et al. 2021, footnote 14); "
                f"a poor topic has no intruder to find, so {task.name} studies take checks=0"
            )
        per = self.checks_per_participant
        per = (min(2, checks) if checks else 0) if per is None else per
        if not 0 <= per <= checks:
            raise InputError(f"checks_per_participant must be between 0 and the {checks} checks, got {per}")
        return checks, per

    def check_items(
        self,
        task: HumanTask,
        labelled: dict[str, TopicModel | Topics],
        n: int,
        familiarity: bool,
        rng: np.random.Generator,
    ) -> list[Item]:
        """``n`` synthetic attention checks, from the models' topics or from ``check_sources``."""
        study_topics = [words for model in labelled.values() for words in ranked_words(model)]
        sources = None
        if self.check_sources is not None:
            sources = [words for source in self.check_sources for words in ranked_words(load_model_like(source))]
        return check_items(study_topics, n, int(self.scale), familiarity, rng, sources=sources, task=task.name)

    def settings(self, task: HumanTask, request: ItemRequest, counts: dict[str, int]) -> dict[str, Any]:
        """What every participant and the assignment depend on (and the study id), with the
        ``counts`` of answers, questions and checks; the options the task does not use
        (:attr:`~tealeaves.study.tasks.HumanTask.options`) are None."""

        def used(name: str) -> Any:
            return getattr(request, name) if name in task.options else None

        redirect, codes = self.redirect_url, self.per_participant_codes
        return json_safe(
            {  # NumPy's integers, which a caller may pass, are not JSON
                "task": task.name,
                "title": self.title,
                "protocol": used("protocol"),
                "draws": used("draws"),
                "scale": used("scale"),
                "familiarity": request.familiarity,
                **counts,
                "show_answer": bool(self.show_answer) and task.has_key,
                "consent": texts.CONSENT if self.consent is None else self.consent,
                "instructions": task.instructions if self.instructions is None else self.instructions,
                "corpus_description": (
                    texts.CORPUS_DESCRIPTION if self.corpus_description is None else self.corpus_description
                ),
                "per_participant_codes": bool(redirect is not None if codes is None else codes),
                "redirect_url": redirect,
                "timeout_minutes": float(self.timeout_minutes),
                "topics_per_model": self.topics_per_model,
                "docs": used("docs"),
                "low_share": used("low_share"),
            }
        )


def _interleaved(items: list[Item], rng: np.random.Generator) -> list[Item]:
    """The items in an order drawn from ``rng``, numbered ``q0001``, ``q0002``, ... in that order."""
    order = rng.permutation(len(items))
    width = max(4, len(str(len(items))))
    return [replace(items[int(i)], item_id=f"q{n + 1:0{width}d}") for n, i in enumerate(order)]


ONE_MODEL = (str, os.PathLike, TopicModel, Topics)  # one model given where several may be, rather than a list


def _labelled(
    models: Mapping[str, ModelLike] | Sequence[ModelLike], labels: Sequence[str] | None
) -> dict[str, TopicModel | Topics]:
    if isinstance(models, Mapping):
        if labels is not None:
            raise InputError("give labels either as the keys of a mapping or as labels=, not both")
        pairs = [(str(k), v) for k, v in models.items()]
    else:
        if isinstance(models, ONE_MODEL):
            models = [models]
        models = list(models)
        if labels is None:
            labels = [
                Path(m).name if isinstance(m, (str, os.PathLike)) else f"model{i + 1}" for i, m in enumerate(models)
            ]
        if len(labels) != len(models):
            raise InputError(f"{len(labels)} labels for {len(models)} models; give one label per model")
        pairs = list(zip(labels, models))
    if not pairs:
        raise InputError("a study needs at least one model")
    names = [label for label, _ in pairs]
    if len(set(names)) != len(names) or any(not n.strip() for n in names):
        raise InputError(f"model labels must be distinct and non-empty, got {names}; pass --label for each model")
    if CHECK_LABEL in names:
        raise InputError(f"{CHECK_LABEL!r} labels the attention checks; give the model another label")
    return {label: load_model_like(model) for label, model in pairs}


def _items_per_participant(value: int | float | None, n_items: int) -> int:
    """A count, or a share of the (non-check) items rounded up; at least 1 and at most all."""
    if n_items == 0:
        raise InputError("the study has only attention checks; it needs real items too")
    if value is None:
        value = ITEMS_PER_PARTICIPANT_SHARE
    if isinstance(value, float) and 0 < value <= 1:
        return max(1, math.ceil(value * n_items))
    if isinstance(value, float) and not value.is_integer():
        raise InputError(f"items_per_participant is a share in (0, 1] or a whole count, got {value}")
    count = int(value)
    if not 1 <= count <= n_items:
        raise InputError(f"items_per_participant must be between 1 and the {n_items} items, got {count}")
    return count
