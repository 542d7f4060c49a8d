"""The response store: SQLAlchemy 2 tables for studies, items, participants, assignments, responses.

SQLite (a file, in WAL mode) by default; PostgreSQL with a ``postgresql://`` URL. The schema
carries a version number (:data:`SCHEMA_VERSION`, table ``meta``) checked on opening.

Guarantees, kept by the database and not only by the app:

- an item is never assigned twice to the same participant (unique participant + item);
- a response is stored at most once per assignment and per participant and item (unique
  constraints), so a replayed or resubmitted answer is refused and changes nothing;
- assignment is serialised per study (``BEGIN IMMEDIATE`` on SQLite, a row lock on the study
  on PostgreSQL), and the counts it reads come from one statement, so concurrent participants
  never push an item past its target by racing;
- a participant inactive for the study's timeout has their unanswered items released to the
  pool; an answer that arrives late is still stored, never lost.

Times are integer milliseconds since the Unix epoch (UTC).
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
import time
from collections.abc import Callable, Iterator
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
    create_engine,
    event,
    func,
    literal,
    make_url,
    select,
    union_all,
    update,
)
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from tealeaves.errors import ArtifactError, InputError, TealeavesError
from tealeaves.study.design import Study
from tealeaves.study.texts import FAMILIARITY

SCHEMA_VERSION = 1

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
    Column("created_ms", BigInteger, nullable=False),
    Column("last_seen_ms", BigInteger, nullable=False),
    Column("completed_ms", BigInteger),
    UniqueConstraint("study_id", "external_id", name="uq_participant_external"),
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
    ForeignKeyConstraint(["study_id", "item_id"], ["item.study_id", "item.item_id"]),
    UniqueConstraint("participant_id", "item_id", name="uq_response_item"),
    Index("ix_response_study_item", "study_id", "item_id"),
)

ASSIGNED, ANSWERED, RELEASED = "assigned", "answered", "released"


# --------------------------------------------------------------------------- errors
class StoreError(TealeavesError):
    """A refused participant request; ``status`` is the HTTP status the app answers with."""

    status = 400


class UnknownSession(StoreError):
    """No participant has this session token, or the session has no such question."""

    status = 404


class WrongKey(StoreError):
    """The session belongs to another browser (the cookie's key does not match)."""

    status = 403


class AlreadyAnswered(StoreError):
    """This question was answered already: a replayed or resubmitted answer."""

    status = 409


class AlreadyStarted(StoreError):
    """This platform participant id has a session in another browser."""

    status = 409


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Slot:
    """One assigned question of a participant, in the order they see them."""

    position: int
    item_id: str
    status: str
    shown_ms: int | None
    answer: int | None = None


@dataclass(frozen=True)
class Session:
    """A participant's state: their questions and whether they finished."""

    token: str
    annotator: str
    external_id: str | None
    created_ms: int
    completed_ms: int | None
    slots: tuple[Slot, ...]

    @property
    def pending(self) -> Slot | None:
        """The first question not yet answered (and not released), in display order."""
        return next((s for s in self.slots if s.status == ASSIGNED), None)

    @property
    def answered(self) -> int:
        return sum(s.status == ANSWERED for s in self.slots)

    def slot(self, position: int) -> Slot:
        for s in self.slots:
            if s.position == position:
                return s
        raise UnknownSession(f"this session has no question {position}")


def hash_key(key: str) -> str:
    """SHA-256 hex of a session key (only the hash is stored)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def annotator_id(study_id: str, raw_id: str) -> str:
    """The hashed annotator id of the exports: SHA-256 of study id and raw id, 16 hex digits.

    Salting with the study id keeps one person's ids in different studies unlinkable.
    """
    return hashlib.sha256(f"{study_id}:{raw_id}".encode()).hexdigest()[:16]


def normalise_url(url: str) -> str:
    """SQLAlchemy URL: ``postgresql://`` uses psycopg 3; a bare path means a SQLite file."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if "://" not in url:
        return f"sqlite:///{url}"
    return url


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
        Breaks ties between equally needed items (seed it for reproducible assignment).
    """

    def __init__(self, url: str, clock: Callable[[], int] | None = None, rng: random.Random | None = None):
        self.url = normalise_url(url)
        self.clock = clock or (lambda: time.time_ns() // 1_000_000)
        self.rng = rng or random.Random()
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

            @event.listens_for(engine, "connect")
            def _on_connect(dbapi_connection: Any, _record: Any) -> None:
                dbapi_connection.isolation_level = None  # transactions are begun explicitly below
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.execute("PRAGMA busy_timeout=60000")
                cursor.close()

            @event.listens_for(engine, "begin")
            def _on_begin(conn: Connection) -> None:
                write = conn.get_execution_options().get("tealeaves_write", False)
                conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

            return engine
        return create_engine(self.url, pool_size=20, max_overflow=20, pool_timeout=60, pool_pre_ping=True)

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    @contextmanager
    def _write(self, study_id: str | None = None) -> Iterator[Connection]:
        """A write transaction; with ``study_id`` it is serialised with other assignments of the study."""
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
            elif int(version) != SCHEMA_VERSION:
                raise ArtifactError(
                    f"the response store has schema version {version}, this tealeaves writes version "
                    f"{SCHEMA_VERSION}; use a new database or the tealeaves version that created it"
                )

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
    ) -> tuple[str, str]:
        """Create a participant and assign their questions; returns ``(token, key)``.

        A platform id (``PROLIFIC_PID``) may start only once per study: a second start raises
        :class:`AlreadyStarted` (the first browser keeps the session).
        """
        token, key = secrets.token_urlsafe(16), secrets.token_urlsafe(24)
        now = self.clock()
        annotator = annotator_id(study.study_id, external_id or token)
        try:
            with self._write(study.study_id) as conn:
                result = conn.execute(
                    participant_table.insert().values(
                        study_id=study.study_id,
                        token=token,
                        key_hash=hash_key(key),
                        annotator=annotator,
                        external_id=external_id,
                        prolific_study_id=prolific_study_id,
                        prolific_session_id=prolific_session_id,
                        created_ms=now,
                        last_seen_ms=now,
                    )
                )
                participant_id = int(result.inserted_primary_key[0])
                self._fill(conn, study, participant_id, now)
        except IntegrityError:
            raise AlreadyStarted(
                "this participant id has already started the study in another browser; continue there"
            ) from None
        return token, key

    def session(self, study: Study, token: str, key: str) -> Session:
        """The participant's state; raises :class:`UnknownSession` or :class:`WrongKey`."""
        with self._read() as conn:
            return self._session(conn, study, token, key)

    def _participant(self, conn: Connection, study: Study, token: str, key: str) -> Any:
        """The participant row of ``token``, after checking the browser's ``key``."""
        p = participant_table
        row = conn.execute(
            select(p.c.id, p.c.key_hash, p.c.annotator, p.c.external_id, p.c.created_ms, p.c.completed_ms).where(
                p.c.token == token, p.c.study_id == study.study_id
            )
        ).first()
        if row is None:
            raise UnknownSession("no session with this address; start the study from its link")
        if not secrets.compare_digest(row.key_hash, hash_key(key)):
            raise WrongKey("this session belongs to another browser")
        return row

    def _participant_id(self, conn: Connection, study: Study, token: str, key: str) -> int:
        return int(self._participant(conn, study, token, key).id)

    def _session(self, conn: Connection, study: Study, token: str, key: str) -> Session:
        row = self._participant(conn, study, token, key)
        a, r = assignment_table, response_table
        slots = conn.execute(
            select(a.c.position, a.c.item_id, a.c.status, a.c.shown_ms, r.c.answer)
            .outerjoin(r, r.c.assignment_id == a.c.id)
            .where(a.c.participant_id == row.id)
            .order_by(a.c.position)
        ).all()
        return Session(
            token=token,
            annotator=row.annotator,
            external_id=row.external_id,
            created_ms=row.created_ms,
            completed_ms=row.completed_ms,
            slots=tuple(Slot(s.position, s.item_id, s.status, s.shown_ms, s.answer) for s in slots),
        )

    def show(self, study: Study, token: str, key: str, position: int) -> Session:
        """Record that question ``position`` is being shown (the time is kept from the first
        showing only, unless it was answered already) and return the participant's session."""
        now = self.clock()
        with self._write() as conn:
            participant_id = self._participant_id(conn, study, token, key)
            a = assignment_table
            found = conn.execute(
                update(a)
                .where(
                    a.c.participant_id == participant_id,
                    a.c.position == position,
                    a.c.shown_ms.is_(None),
                    a.c.status != ANSWERED,
                )
                .values(shown_ms=now)
            )
            conn.execute(
                update(participant_table).where(participant_table.c.id == participant_id).values(last_seen_ms=now)
            )
            session = self._session(conn, study, token, key)
            if not found.rowcount:
                session.slot(position)  # raises UnknownSession for a question the session does not have
            return session

    def refill(self, study: Study, token: str, key: str) -> Session:
        """A returning participant whose unanswered questions were released: take back those still
        needed (below target), then top up with others; return the session."""
        now = self.clock()
        with self._write(study.study_id) as conn:
            participant_id = self._participant_id(conn, study, token, key)
            conn.execute(
                update(participant_table).where(participant_table.c.id == participant_id).values(last_seen_ms=now)
            )
            self._fill(conn, study, participant_id, now)
            return self._session(conn, study, token, key)

    def complete(self, study: Study, token: str, key: str) -> Session:
        """Mark the participant as finished (idempotent) when they answered everything assigned."""
        now = self.clock()
        with self._write() as conn:
            participant_id = self._participant_id(conn, study, token, key)
            session = self._session(conn, study, token, key)
            if session.pending is None and session.answered and session.completed_ms is None:
                p = participant_table
                conn.execute(update(p).where(p.c.id == participant_id).values(completed_ms=now, last_seen_ms=now))
                session = self._session(conn, study, token, key)
            return session

    # ----------------------------------------------------------------- assignment
    def _fill(self, conn: Connection, study: Study, participant_id: int, now: int) -> None:
        """Assign questions until the participant holds their quota of items and checks.

        Items are drawn from those furthest below their target (target minus answers minus
        questions currently assigned), ties broken at random; checks from the least answered.
        A participant never gets an item twice (also not one released from them earlier).
        """
        self._release_stale(conn, study, now)
        a = assignment_table
        counts = self._counts(conn, study.study_id)
        target = int(study.settings["annotators"])
        mine = conn.execute(
            select(a.c.id, a.c.item_id, a.c.status, a.c.position).where(a.c.participant_id == participant_id)
        ).all()
        back = [
            r.id
            for r in mine
            if r.status == RELEASED
            and (study.item(r.item_id).is_check or target - sum(counts.get(r.item_id, (0, 0))) > 0)
        ]
        if back:  # the participant's own released questions that nobody has taken since
            conn.execute(update(a).where(a.c.id.in_(back)).values(status=ASSIGNED, released_ms=None))
            mine = conn.execute(
                select(a.c.id, a.c.item_id, a.c.status, a.c.position).where(a.c.participant_id == participant_id)
            ).all()
            counts = self._counts(conn, study.study_id)
        seen = {r.item_id for r in mine}
        holding = [r.item_id for r in mine if r.status != RELEASED]
        held_checks = sum(study.item(i).is_check for i in holding)
        want_items = int(study.settings["items_per_participant"]) - (len(holding) - held_checks)
        want_checks = int(study.settings["checks_per_participant"]) - held_checks
        if want_items <= 0 and want_checks <= 0:
            return
        regular, checks = [], []
        for item in study.items:
            if item.item_id in seen:
                continue
            answered, assigned = counts.get(item.item_id, (0, 0))
            if item.is_check:
                checks.append((answered + assigned, self.rng.random(), item.item_id))
            elif target - answered - assigned > 0:
                regular.append((-(target - answered - assigned), self.rng.random(), item.item_id))
        chosen = [i for *_, i in sorted(regular)[: max(want_items, 0)]]
        if not chosen and not holding:
            return  # nothing left to answer: no checks alone
        chosen += [i for *_, i in sorted(checks)[: max(want_checks, 0)]]
        self.rng.shuffle(chosen)
        start = max((r.position for r in mine), default=0) + 1
        if chosen:
            conn.execute(
                a.insert(),
                [
                    {
                        "participant_id": participant_id,
                        "study_id": study.study_id,
                        "item_id": item_id,
                        "position": start + n,
                        "status": ASSIGNED,
                        "assigned_ms": now,
                    }
                    for n, item_id in enumerate(chosen)
                ],
            )

    def _counts(self, conn: Connection, study_id: str) -> dict[str, tuple[int, int]]:
        """Answers and live assignments per item, read in one statement (one snapshot)."""
        r, a = response_table, assignment_table
        both = union_all(
            select(r.c.item_id, literal(1).label("answered"), literal(0).label("assigned")).where(
                r.c.study_id == study_id
            ),
            select(a.c.item_id, literal(0).label("answered"), literal(1).label("assigned")).where(
                a.c.study_id == study_id, a.c.status == ASSIGNED
            ),
        ).subquery()
        rows = conn.execute(
            select(both.c.item_id, func.sum(both.c.answered), func.sum(both.c.assigned)).group_by(both.c.item_id)
        ).all()
        return {row[0]: (int(row[1]), int(row[2])) for row in rows}

    def _release_stale(self, conn: Connection, study: Study, now: int) -> int:
        """Release the unanswered questions of participants inactive for the study's timeout."""
        cutoff = now - int(float(study.settings["timeout_minutes"]) * 60_000)
        p, a = participant_table, assignment_table
        stale = select(p.c.id).where(p.c.study_id == study.study_id, p.c.last_seen_ms < cutoff)
        result = conn.execute(
            update(a)
            .where(a.c.study_id == study.study_id, a.c.status == ASSIGNED, a.c.participant_id.in_(stale))
            .values(status=RELEASED, released_ms=now)
        )
        return int(result.rowcount or 0)

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
    ) -> tuple[Slot, int | None]:
        """Store the answer to question ``position``; refuse a second answer with :class:`AlreadyAnswered`.

        Returns the answered slot and the position of the participant's next unanswered
        question (None when there is none).

        ``answer`` and ``familiarity`` are checked against the item (:class:`InputError`). The response
        time is the browser's measurement when given and plausible (not longer than the time
        since the page was first served), otherwise the server's.
        """
        now = self.clock()
        try:
            with self._write() as conn:
                participant_id = self._participant_id(conn, study, token, key)
                a = assignment_table
                query = select(a.c.id, a.c.item_id, a.c.status, a.c.shown_ms).where(
                    a.c.participant_id == participant_id, a.c.position == position
                )
                row = conn.execute(query if self.is_sqlite else query.with_for_update()).first()
                if row is None:
                    raise UnknownSession(f"this session has no question {position}")
                if row.status == ANSWERED:
                    raise AlreadyAnswered("this question was answered already; its first answer is kept")
                item = study.item(row.item_id)
                if answer not in item.answers():
                    raise InputError(f"the answer must be one of {item.answers()} for this question, got {answer}")
                if (familiarity is None) == item.familiarity or familiarity not in (None, *FAMILIARITY):
                    asked = "one of 1, 2 or 3" if item.familiarity else "absent: this question does not ask it"
                    raise InputError(f"the familiarity must be {asked}, got {familiarity}")
                shown = row.shown_ms if row.shown_ms is not None else now
                server_rt = max(0, now - shown)
                rt = rt_ms if rt_ms is not None and 0 <= rt_ms <= server_rt + 1000 else server_rt
                conn.execute(
                    response_table.insert().values(
                        assignment_id=row.id,
                        participant_id=participant_id,
                        study_id=study.study_id,
                        item_id=row.item_id,
                        answer=answer,
                        familiarity=familiarity,
                        correct=item.is_correct(answer),
                        rt_ms=int(min(rt, 2**31 - 1)),
                        shown_ms=shown,
                        answered_ms=now,
                    )
                )
                conn.execute(update(a).where(a.c.id == row.id).values(status=ANSWERED, shown_ms=shown))
                conn.execute(
                    update(participant_table).where(participant_table.c.id == participant_id).values(last_seen_ms=now)
                )
                following = conn.execute(
                    select(func.min(a.c.position)).where(a.c.participant_id == participant_id, a.c.status == ASSIGNED)
                ).scalar()
                return Slot(position, row.item_id, ANSWERED, shown, answer), following
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
                p.c.annotator,
                p.c.token,
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
        """``{item_id: (answers, live assignments)}`` for items with any."""
        with self._read() as conn:
            return self._counts(conn, study_id)

    def participants(self, study_id: str) -> list[dict[str, Any]]:
        """Participants with their platform ids (for paying them; never exported with responses)."""
        p, r = participant_table, response_table
        answers = select(r.c.participant_id, func.count().label("answers")).group_by(r.c.participant_id).subquery()
        query = (
            select(
                p.c.annotator,
                p.c.external_id,
                p.c.prolific_study_id,
                p.c.prolific_session_id,
                p.c.created_ms,
                p.c.last_seen_ms,
                p.c.completed_ms,
                func.coalesce(answers.c.answers, 0).label("answers"),
            )
            .outerjoin(answers, answers.c.participant_id == p.c.id)
            .where(p.c.study_id == study_id)
            .order_by(p.c.id)
        )
        with self._read() as conn:
            return [dict(row._mapping) for row in conn.execute(query)]
