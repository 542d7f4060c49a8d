"""The response store: SQLAlchemy 2 tables for studies, items, participants, assignments, responses.

SQLite (a file, in WAL mode, ``synchronous=FULL`` unless asked for ``NORMAL``) by default;
PostgreSQL with a ``postgresql://`` URL. The schema carries a version number
(:data:`SCHEMA_VERSION`, table ``meta``) checked on opening; an older one is upgraded.

Questions are handed out one at a time. A participant holds only the question on their screen,
under a *lease* of the study's ``timeout_minutes`` that every page they open renews. Each session
has a *hold budget* of ``answer_minutes`` (or one lease, if longer) across all the questions it
is handed: the time a question was held and then released unanswered is charged to it (and given
back if the answer still comes), and a question is renewed only while the budget lasts, so a
session that reloads or follows ``/next`` without answering holds questions for that long in
all, never longer. A question handed once the budget is spent can still be answered but holds
nothing. Nothing is reserved at the start. A participant without an answer for ``idle_minutes``
(since the start, their last answer or the last time they were told to wait: waiting is not
idling) *expires*: their question is freed. One who answered nothing gets no other question; one
with answers who comes back either goes on where they left off (``after_idle="resume"``) or is
given the code for partial completion (``"partial"``). An admin may *evict* a participant: their
question is freed and their session refused from then on.
Guarantees, kept by the database and not only by the app:

- an item is never assigned twice to the same participant (unique participant + item);
- a response is stored at most once per assignment and per participant and item (unique
  constraints), so a replayed or resubmitted answer is refused and changes nothing;
- an answer is taken only for a question that was shown to that participant;
- every change of leases and answers is serialised per study (``BEGIN IMMEDIATE`` on SQLite, a
  row lock on the study on PostgreSQL), and for every item it keeps
  ``unflagged answers + live leases <= target``: an answer whose question was released (its
  lease ran out and the item went to someone else, or it was handed to a participant with a
  platform id), or that came to an item which already had its answers, is stored but flagged
  ``late``, so the item reaches its target with unflagged answers and never passes it;
- a platform participant id (``PROLIFIC_PID``) and a consent-form nonce each name one
  participant: starting again with them resumes that participant, never a second one.

Times are integer milliseconds since the Unix epoch (UTC).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Engine,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    case,
    create_engine,
    delete,
    event,
    func,
    make_url,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from tealeaves.errors import ArtifactError, InputError, TealeavesError, check_each
from tealeaves.study.design import Study
from tealeaves.study.texts import FAMILIARITY

SCHEMA_VERSION = 5
"""Version 3 added ``participant.last_answer_ms`` and ``evicted_ms``, version 4 ``participant.pid_class``
and the table ``admin_login``, version 5 ``participant.idle_from_ms``, ``held_ms`` and ``partial`` and
``response.client_hash`` and ``user_agent``; a version 2, 3 or 4 store is upgraded on opening."""
SYNCHRONOUS = ("full", "normal")
"""SQLite ``synchronous`` settings: FULL (default) survives a power cut; NORMAL in WAL mode
survives a crash of the server but may lose the last commits on a power cut."""
START_WINDOW_MS = 3_600_000
"""Starts per client address are counted over this window (one hour)."""
DEFAULT_ANSWER_MINUTES = 20.0
"""A question's lease is renewed for at most this long after it was handed (or the study's lease, if longer)."""
DEFAULT_IDLE_MINUTES = 60.0
"""A participant without an answer for this long expires."""
AFTER_IDLE = ("resume", "partial")
"""What a participant with answers who comes back after ``idle_minutes`` gets: the rest of their
questions (``resume``, the default) or the code for partial completion (``partial``)."""
USER_AGENT_CHARS = 256
"""A browser's ``User-Agent`` is stored with each answer, cut to this many characters."""
CLAIM_PREFIX = "tealeaves-serve:"
"""The PostgreSQL ``application_name`` of a server's connections: ``tealeaves-serve:BUDGET:ID``
(:meth:`Store.claim_connections`)."""

metadata = MetaData()

meta_table = Table(
    "meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

study_table = Table(
    "study",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("task", String(32), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("settings", Text, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
)

item_table = Table(
    "item",
    metadata,
    Column("study_id", String(64), ForeignKey("study.id"), primary_key=True),
    Column("item_id", String(32), primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("model", String(200), nullable=False),
    Column("is_check", Boolean, nullable=False),
    Column("target", Integer, nullable=False),
)

participant_table = Table(
    "participant",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("study_id", String(64), ForeignKey("study.id"), nullable=False),
    Column("token", String(64), nullable=False, unique=True),
    Column("key_hash", String(64), nullable=False),
    Column("annotator", String(32), nullable=False),
    Column("external_id", String(64)),
    Column("prolific_study_id", String(64)),
    Column("prolific_session_id", String(64)),
    Column("start_nonce", String(64)),
    Column("client_hash", String(64)),
    Column("created_ms", BigInteger, nullable=False),
    Column("last_seen_ms", BigInteger, nullable=False),
    Column("completed_ms", BigInteger),
    Column("last_answer_ms", BigInteger),
    Column("evicted_ms", BigInteger),
    Column("pid_class", String(64)),
    Column("idle_from_ms", BigInteger),
    Column("held_ms", BigInteger),
    Column("partial", Boolean),
    UniqueConstraint("study_id", "external_id", name="uq_participant_external"),
    UniqueConstraint("study_id", "start_nonce", name="uq_participant_nonce"),
    Index("ix_participant_client", "study_id", "client_hash", "created_ms"),
    Index("ix_participant_pid_class", "study_id", "pid_class"),
)

assignment_table = Table(
    "assignment",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("participant_id", Integer, ForeignKey("participant.id"), nullable=False),
    Column("study_id", String(64), nullable=False),
    Column("item_id", String(32), nullable=False),
    Column("position", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("assigned_ms", BigInteger, nullable=False),
    Column("lease_until_ms", BigInteger, nullable=False),
    Column("shown_ms", BigInteger),
    Column("released_ms", BigInteger),
    ForeignKeyConstraint(["study_id", "item_id"], ["item.study_id", "item.item_id"]),
    UniqueConstraint("participant_id", "item_id", name="uq_assignment_item"),
    UniqueConstraint("participant_id", "position", name="uq_assignment_position"),
    Index("ix_assignment_study_status", "study_id", "status"),
)

response_table = Table(
    "response",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("assignment_id", Integer, ForeignKey("assignment.id"), nullable=False, unique=True),
    Column("participant_id", Integer, ForeignKey("participant.id"), nullable=False),
    Column("study_id", String(64), nullable=False),
    Column("item_id", String(32), nullable=False),
    Column("answer", Integer, nullable=False),
    Column("familiarity", Integer),
    Column("correct", Boolean),
    Column("rt_ms", Integer, nullable=False),
    Column("shown_ms", BigInteger),
    Column("answered_ms", BigInteger, nullable=False),
    Column("late", Boolean, nullable=False),
    Column("client_hash", String(64)),
    Column("user_agent", String(USER_AGENT_CHARS)),
    ForeignKeyConstraint(["study_id", "item_id"], ["item.study_id", "item.item_id"]),
    UniqueConstraint("participant_id", "item_id", name="uq_response_item"),
    Index("ix_response_study_item", "study_id", "item_id"),
)

login_table = Table(
    "admin_login",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("study_id", String(64), ForeignKey("study.id"), nullable=False),
    Column("source", String(64), nullable=False),
    Column("attempt_ms", BigInteger, nullable=False),
    Column("forgiven", Boolean, nullable=False),
    Index("ix_admin_login_source", "study_id", "source", "attempt_ms"),
)
"""Admin login attempts checked, counted as wrong unless ``forgiven`` (:meth:`Store.admit_login`),
shared by every server process."""

ASSIGNED, ANSWERED, RELEASED = "assigned", "answered", "released"
QUESTION, WAIT, DONE, FULL, EXPIRED, PARTIAL = "question", "wait", "done", "full", "expired", "partial"
RESUME = "resume"


# --------------------------------------------------------------------------- errors
class StoreError(TealeavesError):
    """A refused participant request; ``status`` is the HTTP status the app answers with, and
    ``retry_after`` (seconds), when set, says when the same request may succeed."""

    status = 400

    def __init__(self, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class UnknownSession(StoreError):
    """No participant has this session token, or the session has no such question."""

    status = 404


class WrongKey(StoreError):
    """The session belongs to another browser (the cookie's key does not match)."""

    status = 403


class AlreadyAnswered(StoreError):
    """This question was answered already: a replayed or resubmitted answer."""

    status = 409


class NotShown(StoreError):
    """An answer to a question that was never shown to this participant."""

    status = 409


class TooManyStarts(StoreError):
    """Too many new participants from one client address within :data:`START_WINDOW_MS`, or too
    many of its participants, or of the participants whose ids have the same :func:`pid_class`, still live."""

    status = 429


class Evicted(StoreError):
    """An admin ended this participant's session."""

    status = 403


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Slot:
    """One question handed to a participant, in the order they got them."""

    position: int
    item_id: str
    status: str
    shown_ms: int | None
    answer: int | None = None
    late: bool = False


@dataclass(frozen=True)
class Session:
    """A participant's state: the questions they were handed and whether they finished."""

    token: str
    annotator: str
    external_id: str | None
    created_ms: int
    completed_ms: int | None
    slots: tuple[Slot, ...]
    partial: bool = False

    @property
    def answered(self) -> int:
        return sum(s.status == ANSWERED for s in self.slots)

    def slot(self, position: int) -> Slot:
        for s in self.slots:
            if s.position == position:
                return s
        raise UnknownSession(f"this session has no question {position}")


@dataclass(frozen=True)
class Step:
    """What a participant gets next: a ``question`` (at ``position``), ``wait`` (every item still
    below its target is on someone else's screen; ``wait_s``: seconds until the first of those
    leases runs out), ``done`` (all their questions answered), ``full`` (nothing left for them, and
    they answered nothing), ``expired`` (no answer for ``idle_minutes`` and none before: they get
    no more questions) or ``partial`` (back after ``idle_minutes`` with answers, in a store whose
    ``after_idle`` is ``partial``: they get the code for partial completion)."""

    kind: str
    position: int | None = None
    wait_s: int | None = None


def hash_key(key: str) -> str:
    """SHA-256 hex of a session key (only the hash is stored)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def annotator_id(study_id: str, raw_id: str) -> str:
    """The hashed annotator id of the exports: SHA-256 of study id and raw id, 16 hex digits.

    Salting with the study id keeps one person's ids in different studies unlinkable.
    """
    return hashlib.sha256(f"{study_id}:{raw_id}".encode()).hexdigest()[:16]


def pid_class(pid: str) -> str:
    """The class of a participant id whose live sessions are bounded together: the id case-folded,
    each run of digits replaced by ``#`` (``user1``, ``User22`` and ``USER333`` are ``user#``;
    ``AAAA0001`` to ``AAAA9999`` are ``aaaa#``).

    Ids that a person makes up by counting fall into one class, while the platforms' random ids
    almost never share one: two uniformly random Prolific ids (24 hex digits) share a class with
    probability 1.4e-7 (the sum over classes of P(class)², computed exactly by dynamic programming
    over the class's letters and digit runs, and 6,506 colliding pairs among 300,000 random ids
    against 6,486 expected), two MTurk worker ids (``A`` and 13 random capitals and digits) with
    2.1e-12. An honest participant is refused only when ``N`` others live at the same time share
    their class: expected refusals among ``L`` live participants are at most
    ``L * C(L-1, N) * sum P(class)^(N+1)``, 5.2e-6 for 1,000 live Prolific participants and N = 3.
    """
    return re.sub(r"[0-9]+", "#", pid.casefold())


def normalise_url(url: str) -> str:
    """SQLAlchemy URL: ``postgresql://`` uses psycopg 3; a bare path means a SQLite file."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if "://" not in url:
        return f"sqlite:///{url}"
    return url


def claim_name(budget: int) -> str:
    """A new server's ``application_name``: :data:`CLAIM_PREFIX`, its connection budget and a random id."""
    return f"{CLAIM_PREFIX}{budget}:{secrets.token_hex(6)}"


def _connection_use(conn: Any, own: str) -> tuple[int, int, list[int]]:
    """PostgreSQL's connections as seen on ``conn`` (psycopg): those a non-superuser may open
    (``max_connections`` less ``superuser_reserved_connections`` and, from PostgreSQL 16,
    ``reserved_connections``), the client connections open that belong to no tealeaves server,
    and the budget claimed by each tealeaves server but the one named ``own``."""
    usable = int(conn.execute("SHOW max_connections").fetchone()[0])
    for setting in ("superuser_reserved_connections", "reserved_connections"):
        exists = conn.execute("SELECT 1 FROM pg_settings WHERE name = %s", (setting,)).fetchone()
        if exists:
            usable -= int(conn.execute(f"SHOW {setting}").fetchone()[0])
    rows = conn.execute(
        "SELECT coalesce(application_name, ''), count(*) FROM pg_stat_activity "
        "WHERE (backend_type = 'client backend' "
        "OR (backend_type IS NULL AND datid IS NOT NULL AND usesysid IS NOT NULL)) GROUP BY 1"
    ).fetchall()  # another role's sessions show no backend_type to an unprivileged role
    others, claimed = 0, []
    for name, count in rows:
        budget = name.removeprefix(CLAIM_PREFIX).split(":", 1)[0]
        if name == own:
            continue
        if name.startswith(CLAIM_PREFIX) and budget.isdigit():
            claimed.append(int(budget))
        else:
            others += int(count)
    return usable, others, claimed


# --------------------------------------------------------------------------- the store
class Store:
    """Responses of studies in one database (see the module docstring).

    Parameters
    ----------
    url : str
        ``sqlite:///path.sqlite`` (or a plain path), or ``postgresql://user@host:port/db``.
    clock : callable, optional
        Returns the current time in epoch milliseconds (tests pass a fake clock).
    rng : random.Random, optional
        Breaks ties between equally needed items and places the attention checks among a
        participant's questions (seed it for reproducible assignment).
    synchronous : {"full", "normal"}
        SQLite's ``synchronous`` pragma (see :data:`SYNCHRONOUS`); ignored for PostgreSQL.
    answer_minutes : float
        A question's lease is renewed by page views for at most this long after it was handed
        (or the study's ``timeout_minutes``, if longer); then it runs out unless answered.
    idle_minutes : float
        A participant without an answer for this long (since the start, the last answer or the last
        time they were told to wait) expires.
    after_idle : {"resume", "partial"}
        What a participant with answers who comes back after ``idle_minutes`` gets (:data:`AFTER_IDLE`).
    pool_size : int
        Connections this process keeps to PostgreSQL, and never more (no overflow); ignored for SQLite.
    application_name : str, optional
        PostgreSQL's ``application_name`` of this process's connections (a server's claim,
        :meth:`claim_connections`); ignored for SQLite.

    Examples
    --------
    What the web app does for one participant: start, get a question, show it, answer it.

    >>> import random
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.study import Store, create_study
    >>> lda = [
    ...     ["tax", "budget", "deficit", "spending", "revenue", "debt", "income", "fiscal", "cuts", "billion"],
    ...     ["war", "army", "troops", "peace", "military", "soldiers", "enemy", "battle", "forces", "navy"],
    ... ]
    >>> study = create_study({"lda": lda}, "word-intrusion", seed=0, items_per_participant=1)
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = Store(str(Path(folder.name) / "responses.sqlite"), rng=random.Random(0))
    >>> store.ensure_study(study)
    >>> token, key = store.start(study, "participant-1")  # the participant's PROLIFIC_PID
    >>> step = store.advance(study, token, key)
    >>> step.kind, step.position
    ('question', 1)
    >>> item = study.item(store.show(study, token, key, step.position).slot(step.position).item_id)
    >>> slot, step = store.record(study, token, key, step.position, answer=item.intruder_position, familiarity=1, rt_ms=4000)
    >>> slot.status, step.kind
    ('answered', 'done')
    >>> store.item_counts(study.study_id)[item.item_id]  # (answers, live leases)
    (1, 0)
    >>> store.close()
    >>> folder.cleanup()
    """

    def __init__(
        self,
        url: str,
        clock: Callable[[], int] | None = None,
        rng: random.Random | None = None,
        synchronous: str = "full",
        *,
        answer_minutes: float = DEFAULT_ANSWER_MINUTES,
        idle_minutes: float = DEFAULT_IDLE_MINUTES,
        after_idle: str = RESUME,
        pool_size: int = 20,
        application_name: str | None = None,
    ):
        if synchronous not in SYNCHRONOUS:
            raise InputError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, got {synchronous!r}")
        check_each(
            "the study server",
            [
                (0 < answer_minutes < math.inf, "answer_minutes > 0 and finite", answer_minutes),
                (0 < idle_minutes < math.inf, "idle_minutes > 0 and finite", idle_minutes),
            ],
        )
        if after_idle not in AFTER_IDLE:
            raise InputError(f"after the idle limit a participant may {' or '.join(AFTER_IDLE)}, got {after_idle!r}")
        if pool_size < 1:
            raise InputError(f"the connection pool needs at least 1 connection, got {pool_size}")
        self.answer_ms = int(answer_minutes * 60_000)
        self.idle_ms = int(idle_minutes * 60_000)
        self.after_idle = after_idle
        self.pool_size = pool_size
        self.application_name = application_name
        self.url = normalise_url(url)
        self.clock = clock or (lambda: time.time_ns() // 1_000_000)
        self.rng = rng or random.Random()
        self.synchronous = synchronous
        self.is_sqlite = self.url.startswith("sqlite")
        try:
            self.engine = self._engine()
            self._init_schema()
        except SQLAlchemyError as exc:
            reason = " ".join(str(getattr(exc, "orig", None) or exc).split())
            raise ArtifactError(f"cannot open the response store {self.display_url} ({reason}); check --db") from exc

    @property
    def display_url(self) -> str:
        """The database URL with any password masked."""
        return make_url(self.url).render_as_string(hide_password=True)

    def _engine(self) -> Engine:
        if self.is_sqlite:
            engine = create_engine(
                self.url,
                connect_args={"timeout": 60, "check_same_thread": False},
                pool_size=20,
                max_overflow=20,
                pool_timeout=60,
            )
            synchronous = self.synchronous.upper()

            @event.listens_for(engine, "connect")
            def _on_connect(dbapi_connection: Any, _record: Any) -> None:
                dbapi_connection.isolation_level = None  # transactions are begun explicitly below
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute(f"PRAGMA synchronous={synchronous}")
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.execute("PRAGMA busy_timeout=60000")
                cursor.close()

            @event.listens_for(engine, "begin")
            def _on_begin(conn: Connection) -> None:
                write = conn.get_execution_options().get("tealeaves_write", False)
                conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

            return engine
        named = {"connect_args": {"application_name": self.application_name}} if self.application_name else {}
        return create_engine(
            self.url, pool_size=self.pool_size, max_overflow=0, pool_timeout=30, pool_pre_ping=True, **named
        )

    def claim_connections(self, budget: int, headroom: int) -> Any:
        """Claim ``budget`` PostgreSQL connections for a server and its workers, or refuse (:class:`InputError`).

        The claim is a connection held open for as long as the server runs, whose
        ``application_name`` is ``tealeaves-serve:BUDGET:ID`` (:data:`CLAIM_PREFIX`); the server's
        pools name their connections the same (``application_name`` of each :class:`Store`), so
        the claim and its connections count as ``BUDGET``, however few are open, until the server
        stops (a killed server's connections close with it). Under an advisory lock, so that
        servers starting at once see each other, the claim is refused unless
        ``max_connections`` less the reserved ones holds the other servers' claims, every other
        connection open now, ``headroom`` more and ``budget``. Returns the claim's psycopg
        connection: keep it open, close it when the server stops.
        """
        import psycopg

        if self.is_sqlite or not self.application_name:
            raise InputError("connections are claimed on PostgreSQL, by a store with an application_name")
        dsn = make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)
        claim = psycopg.connect(dsn, autocommit=True, application_name=self.application_name)
        try:
            claim.execute("SELECT pg_advisory_lock(hashtext('tealeaves-serve'))")
            usable, others, claimed = _connection_use(claim, self.application_name)
            if others + sum(claimed) + headroom + budget > usable:
                raise InputError(
                    f"PostgreSQL allows {usable} connections (max_connections less the reserved ones); "
                    f"{others} others are open and {len(claimed)} tealeaves servers claim {sum(claimed)}: "
                    f"this server's {budget} and {headroom} spare for psql and `tealeaves study export` "
                    f"need {others + sum(claimed) + headroom + budget}; raise max_connections in postgresql.conf, "
                    "or give this server a smaller --max-connections (or fewer --workers)"
                )
            claim.execute("SELECT pg_advisory_unlock(hashtext('tealeaves-serve'))")
        except BaseException:
            claim.close()
            raise
        return claim

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    @contextmanager
    def _write(self, study_id: str | None = None) -> Iterator[Connection]:
        """A write transaction; with ``study_id`` it is serialised with the other changes of the study."""
        with self.engine.connect() as conn:
            conn = conn.execution_options(tealeaves_write=True)
            with conn.begin():
                if study_id is not None and not self.is_sqlite:
                    conn.execute(select(study_table.c.id).where(study_table.c.id == study_id).with_for_update())
                yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    def _init_schema(self) -> None:
        for attempt in range(5):
            try:
                metadata.create_all(self.engine)
                break
            except (IntegrityError, OperationalError):  # another worker created the tables at the same time
                if attempt == 4:
                    raise
                time.sleep(0.1 * (attempt + 1))
        with self._write() as conn:
            version = conn.execute(select(meta_table.c.value).where(meta_table.c.key == "schema_version")).scalar()
            if version is None:
                conn.execute(meta_table.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))
                return
            upgrades = {2: self._upgrade_from_2, 3: self._upgrade_from_3, 4: self._upgrade_from_4}
            reached = int(version)
            while reached in upgrades:
                upgrades[reached](conn)
                reached += 1
            if reached != SCHEMA_VERSION:
                raise ArtifactError(
                    f"the response store has schema version {version}, this tealeaves writes version "
                    f"{SCHEMA_VERSION}; use a new database or the tealeaves version that created it"
                )
            if reached != int(version):
                conn.execute(update(meta_table).where(meta_table.c.key == "schema_version").values(value=str(reached)))

    def _upgrade_from_2(self, conn: Connection) -> None:
        """Schema 2 to 3: the participant's last answer time (from their responses) and eviction time."""
        for column in ("last_answer_ms", "evicted_ms"):
            conn.exec_driver_sql(f"ALTER TABLE participant ADD COLUMN {column} BIGINT")
        conn.exec_driver_sql(
            "UPDATE participant SET last_answer_ms = "
            "(SELECT max(answered_ms) FROM response WHERE response.participant_id = participant.id)"
        )

    def _upgrade_from_3(self, conn: Connection) -> None:
        """Schema 3 to 4: each participant's :func:`pid_class`, indexed (``admin_login`` is made by ``create_all``)."""
        p = participant_table
        conn.exec_driver_sql("ALTER TABLE participant ADD COLUMN pid_class VARCHAR(64)")
        rows = conn.execute(select(p.c.id, p.c.external_id).where(p.c.external_id.is_not(None))).all()
        if rows:
            conn.execute(
                update(p).where(p.c.id == bindparam("row_id")).values(pid_class=bindparam("value")),
                [{"row_id": row.id, "value": pid_class(row.external_id)} for row in rows],
            )
        next(index for index in p.indexes if index.name == "ix_participant_pid_class").create(conn)

    def _upgrade_from_4(self, conn: Connection) -> None:
        """Schema 4 to 5: the idle clock (from the last answer, or the start), the hold budget spent,
        partial completion, and each answer's client and browser (unknown for earlier answers)."""
        for column, kind in (("idle_from_ms", "BIGINT"), ("held_ms", "BIGINT"), ("partial", "BOOLEAN")):
            conn.exec_driver_sql(f"ALTER TABLE participant ADD COLUMN {column} {kind}")
        conn.exec_driver_sql("UPDATE participant SET idle_from_ms = coalesce(last_answer_ms, created_ms), held_ms = 0")
        for column, kind in (("client_hash", "VARCHAR(64)"), ("user_agent", f"VARCHAR({USER_AGENT_CHARS})")):
            conn.exec_driver_sql(f"ALTER TABLE response ADD COLUMN {column} {kind}")

    # ----------------------------------------------------------------- studies
    def ensure_study(self, study: Study) -> None:
        """Register ``study`` and its items (once); refuse a different study under the same id."""
        with self._write() as conn:
            known = conn.execute(select(study_table.c.fingerprint).where(study_table.c.id == study.study_id)).scalar()
            if known is not None:
                if known != study.fingerprint:
                    raise ArtifactError(
                        f"the response store holds a different version of study {study.study_id}; "
                        "use another database (--db) for the changed study"
                    )
                return
            conn.execute(
                study_table.insert().values(
                    id=study.study_id,
                    task=study.task,
                    fingerprint=study.fingerprint,
                    settings=json.dumps(study.settings, sort_keys=True),
                    created_ms=self.clock(),
                )
            )
            target = int(study.settings["annotators"])
            conn.execute(
                item_table.insert(),
                [
                    {
                        "study_id": study.study_id,
                        "item_id": item.item_id,
                        "seq": seq,
                        "model": item.model,
                        "is_check": item.is_check,
                        "target": 0 if item.is_check else target,
                    }
                    for seq, item in enumerate(study.items)
                ],
            )

    # ----------------------------------------------------------------- participants
    def start(
        self,
        study: Study,
        external_id: str | None = None,
        prolific_study_id: str | None = None,
        prolific_session_id: str | None = None,
        *,
        key: str | None = None,
        nonce: str | None = None,
        client: str | None = None,
        starts_per_client: int = 0,
        live_per_client: int = 0,
        live_per_pid_class: int = 0,
    ) -> tuple[str, str]:
        """Create a participant, or resume the one with this platform id or consent nonce; returns ``(token, key)``.

        Nothing is handed out here (see :meth:`advance`). A start with a known ``external_id``
        (``PROLIFIC_PID``), or without one but with the ``nonce`` of a consent form already
        submitted (a double click), resumes that participant: the same token, and ``key``
        becomes its key (give the same key, derived from the id, and every browser of the
        participant keeps working; a fresh random key moves the session to the new browser).
        A new participant from a ``client`` (an opaque hash of the address) that already
        started ``starts_per_client`` participants in the last hour, or has ``live_per_client``
        participants live (neither finished, expired nor evicted), is refused with
        :class:`TooManyStarts`, which says when to try again (0: no bound); so is a new participant
        whose ``external_id`` has the :func:`pid_class` of ``live_per_pid_class`` live participants.
        An evicted participant cannot start again (:class:`Evicted`).
        """
        key = key or secrets.token_urlsafe(24)
        now = self.clock()
        p = participant_table
        with self._write(study.study_id) as conn:
            known = None
            columns = (p.c.id, p.c.token, p.c.key_hash, p.c.evicted_ms)
            if external_id is not None:
                known = conn.execute(
                    select(*columns).where(p.c.study_id == study.study_id, p.c.external_id == external_id)
                ).first()
            elif nonce is not None:
                known = conn.execute(
                    select(*columns).where(p.c.study_id == study.study_id, p.c.start_nonce == nonce)
                ).first()
            if known is not None:
                if known.evicted_ms is not None:
                    raise _evicted()
                values: dict[str, Any] = {"last_seen_ms": now}
                if not secrets.compare_digest(known.key_hash, hash_key(key)):
                    values["key_hash"] = hash_key(key)
                conn.execute(update(p).where(p.c.id == known.id).values(**values))
                return known.token, key
            if client is not None:
                self._check_client(conn, study, client, now, starts_per_client, live_per_client)
            kind = pid_class(external_id) if external_id is not None else None
            if kind is not None and live_per_pid_class:
                self._check_live(
                    conn, study, p.c.pid_class == kind, now, live_per_pid_class,
                    "too many people with participant ids like yours are taking this study right now; "
                    "please try again later",
                )  # fmt: skip
            token = secrets.token_urlsafe(16)
            conn.execute(
                p.insert().values(
                    study_id=study.study_id,
                    token=token,
                    key_hash=hash_key(key),
                    annotator=annotator_id(study.study_id, external_id or token),
                    external_id=external_id,
                    prolific_study_id=prolific_study_id,
                    prolific_session_id=prolific_session_id,
                    start_nonce=nonce,
                    client_hash=client,
                    pid_class=kind,
                    created_ms=now,
                    last_seen_ms=now,
                    idle_from_ms=now,
                    held_ms=0,
                )
            )
        return token, key

    def _check_client(self, conn: Connection, study: Study, client: str, now: int, starts: int, live: int) -> None:
        """Refuse a new participant from ``client`` over its bounds (see :meth:`start`)."""
        p = participant_table
        mine = (p.c.study_id == study.study_id) & (p.c.client_hash == client)
        if starts:
            recent = conn.execute(
                select(func.count(), func.min(p.c.created_ms)).where(mine, p.c.created_ms > now - START_WINDOW_MS)
            ).one()
            if int(recent[0] or 0) >= starts:
                raise TooManyStarts(
                    "too many people started this study from your network in the last hour; please try again later",
                    retry_after=_seconds(int(recent[1]) + START_WINDOW_MS - now),
                )
        if live:
            self._check_live(
                conn, study, p.c.client_hash == client, now, live,
                "too many people are taking this study from your network right now; please try again later",
            )  # fmt: skip

    def _check_live(self, conn: Connection, study: Study, among: Any, now: int, bound: int, refusal: str) -> None:
        """Refuse a new participant when ``bound`` participants ``among`` those of the study are live
        (neither finished, expired nor evicted), saying when a place is expected (:meth:`_place_expected`)."""
        p = participant_table
        live = conn.execute(
            select(p.c.id, p.c.idle_from_ms).where(
                p.c.study_id == study.study_id,
                among,
                p.c.completed_ms.is_(None),
                p.c.evicted_ms.is_(None),
                p.c.idle_from_ms > now - self.idle_ms,
            )
        ).all()
        if len(live) >= bound:
            raise TooManyStarts(refusal, retry_after=self._place_expected(conn, study, live, now))

    def _place_expected(self, conn: Connection, study: Study, live: Sequence[Any], now: int) -> int:
        """Seconds until the first of the ``live`` participants is expected to be done: each one's
        questions left at the study's pace (the median time from showing a question to its answer,
        over the last 200 answers, and at most one lease; one lease before any answer), and at the
        latest when it expires for want of an answer."""
        r = response_table
        ids = [row.id for row in live]
        done: dict[int, int] = dict(
            conn.execute(
                select(r.c.participant_id, func.count()).where(r.c.participant_id.in_(ids)).group_by(r.c.participant_id)
            ).all()
        )
        times = sorted(
            conn.execute(select(r.c.rt_ms).where(r.c.study_id == study.study_id).order_by(r.c.id.desc()).limit(200))
            .scalars()
            .all()
        )
        lease = self._lease_ms(study)
        pace = min(lease, times[len(times) // 2]) if times else lease
        quota = int(study.settings["items_per_participant"]) + int(study.settings["checks_per_participant"])
        ends = [min(row.idle_from_ms + self.idle_ms, now + max(1, quota - done.get(row.id, 0)) * pace) for row in live]
        return _seconds(min(ends) - now)

    # ----------------------------------------------------------------- admin logins
    def admit_login(
        self, study: Study, source: str, *, limit: int, window_s: float, slow_lane_s: float
    ) -> tuple[int | None, int]:
        """Count an admin login attempt from ``source`` (a client address or a device) as wrong,
        before its token is checked: ``(attempt, 0)`` when it may be checked, ``(None, seconds)``
        when it is refused, with the seconds before the next attempt is checked.

        Once ``limit`` attempts from ``source`` were counted in the last ``window_s`` seconds, the
        source is locked out: only one attempt per ``slow_lane_s`` seconds is admitted (the slow
        lane), so the real admin behind a guesser's address gets in after at most that long, while
        the guesser gets ``window_s / slow_lane_s`` guesses per window. The count lives in the
        database, so it holds across server processes, and it is taken in a transaction serialised
        with the study's other changes, so concurrent attempts see each other. Give a right token's
        or an unchecked attempt's count back with :meth:`forgive_login`; a right token still takes
        its slot in the slow lane.
        """
        now = self.clock()
        window_ms, slow_ms = int(window_s * 1000), int(slow_lane_s * 1000)
        t = login_table
        with self._write(study.study_id) as conn:
            conn.execute(delete(t).where(t.c.study_id == study.study_id, t.c.attempt_ms <= now - window_ms))
            rows = conn.execute(
                select(t.c.attempt_ms, t.c.forgiven)
                .where(t.c.study_id == study.study_id, t.c.source == source)
                .order_by(t.c.attempt_ms)
            ).all()
            wrong = [row.attempt_ms for row in rows if not row.forgiven]
            if len(wrong) >= limit:
                unlocked = wrong[len(wrong) - limit] + window_ms  # the count falls below the limit
                slot = rows[-1].attempt_ms + slow_ms  # the slow lane's next check
                if now < slot:
                    return None, _seconds(min(slot, unlocked) - now)
            values = {"study_id": study.study_id, "source": source, "attempt_ms": now, "forgiven": False}
            inserted = conn.execute(t.insert().values(**values)).inserted_primary_key
            return int(inserted[0]) if inserted else 0, 0

    def forgive_login(self, attempt: int, checked: bool = True) -> None:
        """Take back an attempt counted by :meth:`admit_login`: its token was right (``checked``), or
        it was never checked (then it is forgotten, slot included)."""
        t = login_table
        with self._write() as conn:
            if checked:
                conn.execute(update(t).where(t.c.id == attempt).values(forgiven=True))
            else:
                conn.execute(delete(t).where(t.c.id == attempt))

    def clear_logins(self, study: Study) -> None:
        """Forget every counted admin login attempt of the study (``serve`` does, at start)."""
        with self._write(study.study_id) as conn:
            conn.execute(delete(login_table).where(login_table.c.study_id == study.study_id))

    def evict(self, study: Study, annotator: str) -> bool:
        """End the session of the participant with this (hashed) ``annotator`` id: their questions
        are freed, their answers kept, and every later request of theirs refused (:class:`Evicted`).
        False when no such participant is live (unknown, finished or evicted already)."""
        now = self.clock()
        p = participant_table
        with self._write(study.study_id) as conn:
            row = conn.execute(
                select(p.c.id).where(
                    p.c.study_id == study.study_id,
                    p.c.annotator == annotator,
                    p.c.completed_ms.is_(None),
                    p.c.evicted_ms.is_(None),
                )
            ).first()
            if row is None:
                return False
            conn.execute(update(p).where(p.c.id == row.id).values(evicted_ms=now))
            self._release_all(conn, row.id, now)
            return True

    def _release_all(self, conn: Connection, participant_id: int, now: int) -> None:
        self._release(conn, assignment_table.c.participant_id == participant_id, now)

    def _release(self, conn: Connection, which: Any, now: int) -> None:
        """Release the held questions ``which`` selects, charging each participant's hold budget with
        the time it held them (from handing to now, or to the end of the lease if that came first)."""
        a, p = assignment_table, participant_table
        held = conn.execute(
            select(a.c.participant_id, a.c.assigned_ms, a.c.lease_until_ms).where(which, a.c.status == ASSIGNED)
        ).all()
        if not held:
            return
        conn.execute(update(a).where(which, a.c.status == ASSIGNED).values(status=RELEASED, released_ms=now))
        charges: dict[int, int] = {}
        for row in held:
            charges[row.participant_id] = charges.get(row.participant_id, 0) + _held(row, now)
        for participant_id, ms in charges.items():
            conn.execute(update(p).where(p.c.id == participant_id).values(held_ms=func.coalesce(p.c.held_ms, 0) + ms))

    def session(self, study: Study, token: str, key: str) -> Session:
        """The participant's state; raises :class:`UnknownSession` or :class:`WrongKey`."""
        with self._read() as conn:
            return self._session(conn, study, self._participant(conn, study, token, key))

    def _participant(self, conn: Connection, study: Study, token: str, key: str) -> Any:
        """The participant row of ``token``, after checking the browser's ``key``."""
        row = self._row(conn, (participant_table.c.token == token) & (participant_table.c.study_id == study.study_id))
        if row is None:
            raise UnknownSession("no session with this address; start the study from its link")
        if not secrets.compare_digest(row.key_hash, hash_key(key)):
            raise WrongKey("this session belongs to another browser; open the study link again to continue here")
        if row.evicted_ms is not None:
            raise _evicted()
        return row

    def _row(self, conn: Connection, which: Any) -> Any:
        """The participant row ``which`` selects (or None), with its idle clock and hold budget spent."""
        p = participant_table
        return conn.execute(
            select(p.c.id, p.c.token, p.c.key_hash, p.c.annotator, p.c.external_id, p.c.created_ms, p.c.completed_ms,
                   p.c.evicted_ms, p.c.partial, func.coalesce(p.c.idle_from_ms, p.c.created_ms).label("idle_from_ms"),
                   func.coalesce(p.c.held_ms, 0).label("held_ms"))
            .where(which)
        ).first()  # fmt: skip

    def _session(self, conn: Connection, study: Study, row: Any) -> Session:
        a, r = assignment_table, response_table
        slots = conn.execute(
            select(a.c.position, a.c.item_id, a.c.status, a.c.shown_ms, r.c.answer, r.c.late)
            .outerjoin(r, r.c.assignment_id == a.c.id)
            .where(a.c.participant_id == row.id)
            .order_by(a.c.position)
        ).all()
        return Session(
            token=row.token,
            annotator=row.annotator,
            external_id=row.external_id,
            created_ms=row.created_ms,
            completed_ms=row.completed_ms,
            slots=tuple(Slot(s.position, s.item_id, s.status, s.shown_ms, s.answer, bool(s.late)) for s in slots),
            partial=bool(row.partial),
        )

    def _touch(self, conn: Connection, participant_id: int, now: int) -> None:
        p = participant_table
        conn.execute(update(p).where(p.c.id == participant_id).values(last_seen_ms=now))

    def _lease_ms(self, study: Study) -> int:
        return int(float(study.settings["timeout_minutes"]) * 60_000)

    def hold_budget_ms(self, study: Study) -> int:
        """How long one session may hold questions without answering them, in all: ``answer_minutes``,
        or one lease if that is longer."""
        return max(self._lease_ms(study), self.answer_ms)

    def _lease_until(self, study: Study, handed_ms: int, now: int, held_ms: int) -> int:
        """A lease renewed now: the study's lease from now, but never past what is left of the
        session's hold budget (:meth:`hold_budget_ms` less ``held_ms``, charged by the questions it
        held before) after the question was handed; just before the handing when nothing is left."""
        left = self.hold_budget_ms(study) - held_ms
        return min(now + self._lease_ms(study), handed_ms + left) if left > 0 else handed_ms - 1

    def _expired(self, row: Any, now: int) -> bool:
        """Whether an unfinished participant has gone ``idle_minutes`` without an answer (or a wait)."""
        return row.completed_ms is None and now - row.idle_from_ms > self.idle_ms

    # ----------------------------------------------------------------- handing out questions
    def advance(self, study: Study, token: str, key: str) -> Step:
        """The participant's next step (see :class:`Step`), handing out a question when they hold none.

        The question on screen is kept while its lease lives, and also after it ran out when
        the item still has room (its lease is renewed, within the session's hold budget);
        otherwise it is released, its time held charged to the budget, and another comes. A new question is the item furthest below its target (target minus unflagged
        answers minus live leases; ties at random) among those the participant has not
        answered; attention checks are placed at random among the participant's questions.
        When every item below its target is on others' screens, a participant with a platform
        id and hold budget left takes over the lease least recently renewed by a participant
        without one (whose answer, if it still comes, is kept and flagged late); anyone else
        waits, and waiting restarts the idle clock of a participant with hold budget left (a
        session that spent it holding questions it never answered expires as it would). A participant
        who has begun and finds every item at its target gets items that have their answers
        (the answers kept, flagged late) until their quota is answered: ``done`` needs every
        question of the quota (``items_per_participant`` + ``checks_per_participant``) answered.
        """
        now = self.clock()
        with self._write(study.study_id) as conn:
            row = self._participant(conn, study, token, key)
            self._touch(conn, row.id, now)
            return self._advance(conn, study, row, now)

    def _mine(self, conn: Connection, participant_id: int) -> list[Any]:
        a = assignment_table
        return list(
            conn.execute(
                select(a.c.id, a.c.participant_id, a.c.item_id, a.c.position, a.c.status, a.c.assigned_ms,
                       a.c.lease_until_ms, a.c.shown_ms, a.c.released_ms)
                .where(a.c.participant_id == participant_id)
                .order_by(a.c.position)
            ).all()
        )  # fmt: skip

    def _room(self, conn: Connection, study: Study, slot: Any, now: int) -> bool:
        """Whether the item of ``slot`` has room for one more unflagged answer or live lease besides
        the slot's own: unflagged answers plus the other live leases below its target (checks always have)."""
        if study.item(slot.item_id).is_check:
            return True
        answered, live = self._counts(conn, study.study_id, now).get(slot.item_id, (0, 0))
        own = slot.status == ASSIGNED and slot.lease_until_ms >= now
        return answered + live - own < int(study.settings["annotators"])

    def _keep(self, conn: Connection, study: Study, slot: Any, now: int, held_ms: int) -> bool:
        """Renew the lease of a held question (within the hold budget, :meth:`_lease_until`) if it is
        live or the item has room; else release it. Past the budget the question stays on screen
        while the item has room, but its lease no longer counts: others may be handed the item."""
        a = assignment_table
        if slot.lease_until_ms >= now or self._room(conn, study, slot, now):
            lease = max(slot.lease_until_ms, self._lease_until(study, slot.assigned_ms, now, held_ms))
            conn.execute(update(a).where(a.c.id == slot.id).values(lease_until_ms=lease))
            return True
        self._release(conn, a.c.id == slot.id, now)
        return False

    def _advance(self, conn: Connection, study: Study, row: Any, now: int) -> Step:
        expired = self._expired(row, now)
        if expired:
            self._release_all(conn, row.id, now)
            row = self._row(conn, participant_table.c.id == row.id)
        mine = self._mine(conn, row.id)
        for slot in mine:
            if slot.status == ASSIGNED:
                if self._keep(conn, study, slot, now, row.held_ms):
                    return Step(QUESTION, slot.position)
                row = self._row(conn, participant_table.c.id == row.id)  # its hold budget was charged
        if row.completed_ms is not None:
            return Step(DONE)
        answered = {s.item_id for s in mine if s.status == ANSWERED}
        checks_done = sum(study.item(i).is_check for i in answered)
        want_items = int(study.settings["items_per_participant"]) - (len(answered) - checks_done)
        want_checks = int(study.settings["checks_per_participant"]) - checks_done
        if want_items <= 0 and want_checks <= 0:
            return Step(DONE)
        if expired:
            if not answered or self.after_idle == PARTIAL:
                return Step(PARTIAL if answered else EXPIRED)
            self._rest(conn, row.id, now)  # back after the idle limit: the rest of their questions
        counts = self._counts(conn, study.study_id, now)
        target = int(study.settings["annotators"])
        open_items, below, rest, checks = [], [], [], []
        for item in study.items:
            if item.item_id in answered:
                continue
            done, live = counts.get(item.item_id, (0, 0))
            need = (done + live, self.rng.random(), item.item_id)
            if item.is_check:
                checks.append(need)
                continue
            rest.append(need)
            if done < target:
                below.append(item.item_id)
                if done + live < target:
                    open_items.append(need)
        if not answered and not below:
            return Step(FULL)  # nothing left to answer: no attention checks alone
        if (
            want_checks > 0
            and checks
            and (want_items <= 0 or self.rng.random() < want_checks / (want_items + want_checks))
        ):
            return self._hand(conn, study, row, min(checks)[2], mine, now)
        if want_items > 0:
            if open_items:
                return self._hand(conn, study, row, min(open_items)[2], mine, now)
            if below:
                budget_left = row.held_ms < self.hold_budget_ms(study)
                taken = self._take_over(conn, study, below, now) if row.external_id and budget_left else None
                if taken is not None:
                    return self._hand(conn, study, row, taken, mine, now)
                if want_checks > 0 and checks:
                    return self._hand(conn, study, row, min(checks)[2], mine, now)
                if budget_left:  # waiting is not idling (but a session that spent its budget idles on)
                    self._rest(conn, row.id, now)
                return Step(WAIT, wait_s=self._question_expected(conn, study, below, now))
            if rest:  # every item has its answers: the participant's last ones are kept, flagged late
                return self._hand(conn, study, row, min(rest)[2], mine, now)
        if want_checks > 0 and checks:
            return self._hand(conn, study, row, min(checks)[2], mine, now)
        return Step(DONE)

    def _rest(self, conn: Connection, participant_id: int, now: int) -> None:
        """Start the participant's idle clock again (told to wait, or back after the idle limit)."""
        p = participant_table
        conn.execute(update(p).where(p.c.id == participant_id).values(idle_from_ms=now))

    def _question_expected(self, conn: Connection, study: Study, items: list[str], now: int) -> int:
        """Seconds until the first live lease on one of ``items`` runs out (it is answered sooner, or freed then)."""
        a = assignment_table
        first = conn.execute(
            select(func.min(a.c.lease_until_ms)).where(
                a.c.study_id == study.study_id,
                a.c.status == ASSIGNED,
                a.c.lease_until_ms >= now,
                a.c.item_id.in_(items),
            )
        ).scalar()
        return _seconds((first if first is not None else now + self._lease_ms(study)) - now)

    def _take_over(self, conn: Connection, study: Study, items: list[str], now: int) -> str | None:
        """Release the live lease, on one of ``items``, least recently renewed by a participant without a platform id."""
        a, p = assignment_table, participant_table
        victim = conn.execute(
            select(a.c.id, a.c.item_id)
            .join(p, p.c.id == a.c.participant_id)
            .where(
                a.c.study_id == study.study_id,
                a.c.status == ASSIGNED,
                a.c.lease_until_ms >= now,
                a.c.item_id.in_(items),
                p.c.external_id.is_(None),
            )
            .order_by(a.c.lease_until_ms, a.c.id)
            .limit(1)
        ).first()
        if victim is None:
            return None
        self._release(conn, a.c.id == victim.id, now)
        return str(victim.item_id)

    def _hand(self, conn: Connection, study: Study, row: Any, item_id: str, mine: list[Any], now: int) -> Step:
        """Lease ``item_id`` to the participant of ``row`` (again, if it was released from them earlier),
        for what is left of their hold budget."""
        a = assignment_table
        lease = self._lease_until(study, now, now, row.held_ms)
        earlier = next((s for s in mine if s.item_id == item_id), None)
        if earlier is not None:
            conn.execute(
                update(a)
                .where(a.c.id == earlier.id)
                .values(status=ASSIGNED, released_ms=None, assigned_ms=now, lease_until_ms=lease)
            )
            return Step(QUESTION, earlier.position)
        position = max((s.position for s in mine), default=0) + 1
        conn.execute(
            a.insert().values(
                participant_id=row.id,
                study_id=study.study_id,
                item_id=item_id,
                position=position,
                status=ASSIGNED,
                assigned_ms=now,
                lease_until_ms=lease,
            )
        )
        return Step(QUESTION, position)

    def show(self, study: Study, token: str, key: str, position: int) -> Session:
        """Question ``position`` is being shown: renew its lease (or release it, see :meth:`advance`)
        and record the first showing; returns the session (the slot's status tells whether to show it)."""
        now = self.clock()
        a = assignment_table
        with self._write(study.study_id) as conn:
            row = self._participant(conn, study, token, key)
            self._touch(conn, row.id, now)
            if self._expired(row, now):
                self._release_all(conn, row.id, now)
            slot = next((s for s in self._mine(conn, row.id) if s.position == position), None)
            if slot is None:
                raise UnknownSession(f"this session has no question {position}")
            kept = slot.status == ASSIGNED and self._keep(conn, study, slot, now, row.held_ms)
            if kept and slot.shown_ms is None:
                conn.execute(update(a).where(a.c.id == slot.id).values(shown_ms=now))
            return self._session(conn, study, row)

    def complete(self, study: Study, token: str, key: str) -> tuple[Step, Session]:
        """Mark the participant as finished when their step is ``done``, or as finished in part when
        it is ``partial`` (idempotent); returns the step and session (``partial`` says which)."""
        now = self.clock()
        with self._write(study.study_id) as conn:
            row = self._participant(conn, study, token, key)
            self._touch(conn, row.id, now)
            step = self._advance(conn, study, row, now)
            if step.kind in (DONE, PARTIAL) and row.completed_ms is None:
                p = participant_table
                conn.execute(update(p).where(p.c.id == row.id).values(completed_ms=now, partial=step.kind == PARTIAL))
                row = self._participant(conn, study, token, key)
            return step, self._session(conn, study, row)

    def _counts(self, conn: Connection, study_id: str, now: int) -> dict[str, tuple[int, int]]:
        """Unflagged answers and live leases per item, read in one statement (one snapshot)."""
        a, r = assignment_table, response_table
        rows = conn.execute(
            select(
                a.c.item_id,
                func.sum(case((r.c.late.is_(False), 1), else_=0)),
                func.sum(case(((a.c.status == ASSIGNED) & (a.c.lease_until_ms >= now), 1), else_=0)),
            )
            .outerjoin(r, r.c.assignment_id == a.c.id)
            .where(a.c.study_id == study_id)
            .group_by(a.c.item_id)
        ).all()
        return {row[0]: (int(row[1] or 0), int(row[2] or 0)) for row in rows}

    # ----------------------------------------------------------------- responses
    def record(
        self,
        study: Study,
        token: str,
        key: str,
        position: int,
        answer: int,
        familiarity: int | None,
        rt_ms: int | None,
        *,
        client: str | None = None,
        user_agent: str | None = None,
    ) -> tuple[Slot, Step]:
        """Store the answer to question ``position``; returns the answered slot and the participant's
        next step (:meth:`advance`, taken in the same transaction, so the reply can lead straight on).
        ``client`` (an opaque hash of the address) and ``user_agent`` (the browser's, cut to
        :data:`USER_AGENT_CHARS`) are stored with the answer.

        Refused: a second answer (:class:`AlreadyAnswered`), an answer to a question never shown
        to the participant (:class:`NotShown`), an answer or familiarity that does not fit the
        item (:class:`InputError`). An answer to a question released from the participant, or
        whose lease ran out while the item filled up, is stored with ``late`` set. The response
        time is the browser's measurement when given and plausible (not longer than the time
        since the page was first served), otherwise the server's. An answer restarts the idle clock,
        and the answer to a released question gives back the hold budget it was charged.
        """
        now = self.clock()
        a = assignment_table
        try:
            with self._write(study.study_id) as conn:
                row = self._participant(conn, study, token, key)
                slot = next((s for s in self._mine(conn, row.id) if s.position == position), None)
                if slot is None:
                    raise UnknownSession(f"this session has no question {position}")
                if slot.status == ANSWERED:
                    raise AlreadyAnswered("this question was answered already; its first answer is kept")
                if slot.shown_ms is None:
                    raise NotShown("this question was not shown to you yet, so no answer to it can be taken")
                item = study.item(slot.item_id)
                if answer not in item.answers():
                    raise InputError(f"the answer must be one of {item.answers()} for this question, got {answer}")
                if (familiarity is None) == item.familiarity or familiarity not in (None, *FAMILIARITY):
                    asked = "one of 1, 2 or 3" if item.familiarity else "absent: this question does not ask it"
                    raise InputError(f"the familiarity must be {asked}, got {familiarity}")
                late = slot.status == RELEASED or not self._room(conn, study, slot, now)
                server_rt = max(0, now - slot.shown_ms)
                rt = rt_ms if rt_ms is not None and 0 <= rt_ms <= server_rt + 1000 else server_rt
                conn.execute(
                    response_table.insert().values(
                        assignment_id=slot.id,
                        participant_id=row.id,
                        study_id=study.study_id,
                        item_id=slot.item_id,
                        answer=answer,
                        familiarity=familiarity,
                        correct=item.is_correct(answer),
                        rt_ms=int(min(rt, 2**31 - 1)),
                        shown_ms=slot.shown_ms,
                        answered_ms=now,
                        late=late,
                        client_hash=client,
                        user_agent=user_agent[:USER_AGENT_CHARS] if user_agent else None,
                    )
                )
                conn.execute(update(a).where(a.c.id == slot.id).values(status=ANSWERED))
                p = participant_table
                refund = _held(slot, slot.released_ms) if slot.status == RELEASED else 0
                conn.execute(
                    update(p)
                    .where(p.c.id == row.id)
                    .values(
                        last_seen_ms=now, last_answer_ms=now, idle_from_ms=now, held_ms=max(0, row.held_ms - refund)
                    )
                )
                answered = Slot(position, slot.item_id, ANSWERED, slot.shown_ms, answer, late)
                return answered, self._advance(conn, study, self._participant(conn, study, token, key), now)
        except IntegrityError:
            raise AlreadyAnswered("this question was answered already; its first answer is kept") from None

    # ----------------------------------------------------------------- reading back
    def responses(self, study_id: str) -> list[dict[str, Any]]:
        """Every stored response of the study with its participant, in the order stored."""
        r, p, a = response_table, participant_table, assignment_table
        query = (
            select(
                r.c.id,
                r.c.item_id,
                r.c.answer,
                r.c.familiarity,
                r.c.correct,
                r.c.rt_ms,
                r.c.shown_ms,
                r.c.answered_ms,
                r.c.late,
                r.c.client_hash.label("answer_client_hash"),
                r.c.user_agent,
                p.c.annotator,
                p.c.token,
                p.c.external_id,
                p.c.client_hash,
                p.c.created_ms,
                p.c.completed_ms,
                p.c.partial,
                a.c.position,
            )
            .join(p, p.c.id == r.c.participant_id)
            .join(a, a.c.id == r.c.assignment_id)
            .where(r.c.study_id == study_id)
            .order_by(r.c.id)
        )
        with self._read() as conn:
            return [dict(row._mapping) for row in conn.execute(query)]

    def item_counts(self, study_id: str) -> dict[str, tuple[int, int]]:
        """``{item_id: (unflagged answers, live leases)}`` for items ever handed out."""
        with self._read() as conn:
            return self._counts(conn, study_id, self.clock())

    def participants(self, study_id: str) -> list[dict[str, Any]]:
        """Participants with their platform ids (for paying them; never exported with responses), and
        ``held_ms``: how long each held questions it released unanswered (its hold budget spent)."""
        p, r = participant_table, response_table
        answers = select(r.c.participant_id, func.count().label("answers")).group_by(r.c.participant_id).subquery()
        query = (
            select(
                p.c.annotator,
                p.c.external_id,
                p.c.prolific_study_id,
                p.c.prolific_session_id,
                p.c.token,
                p.c.client_hash,
                p.c.created_ms,
                p.c.last_seen_ms,
                p.c.last_answer_ms,
                p.c.completed_ms,
                p.c.partial,
                p.c.evicted_ms,
                func.coalesce(p.c.held_ms, 0).label("held_ms"),
                func.coalesce(answers.c.answers, 0).label("answers"),
            )
            .outerjoin(answers, answers.c.participant_id == p.c.id)
            .where(p.c.study_id == study_id)
            .order_by(p.c.id)
        )
        with self._read() as conn:
            return [dict(row._mapping) for row in conn.execute(query)]


def _held(slot: Any, until: int) -> int:
    """Milliseconds a question was held: from handing to ``until``, or to the end of its lease if that came first."""
    return max(0, min(until, slot.lease_until_ms) - slot.assigned_ms)


def _evicted() -> Evicted:
    return Evicted("the organisers of this study ended your session; your answers so far are kept")


def _seconds(ms: int) -> int:
    """Whole seconds, rounded up, at least 1 (a ``Retry-After``)."""
    return max(1, -(-ms // 1000))
