"""Artifact folders: a `manifest.json` saying what made them, written atomically.

Every artifact (corpus, model, index, study, ...) is a folder holding its arrays and a
``manifest.json`` with the artifact ``kind``, the tealeaves version, the creation time,
the configuration, the inputs (with hashes), the seed and summary statistics, so that any
number tealeaves prints can be traced back to what produced it.

Writes are atomic: the folder is built under a temporary name beside the target and renamed
into place only once complete, so a failure never leaves a half-written artifact behind.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import hashlib
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.errors import ArtifactError

MANIFEST = "manifest.json"


LOCK = ".lock"
"""The file in an output folder that the command writing it holds locked (``fcntl.flock``)."""


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike[str], command: str) -> Iterator[Path]:
    """Create ``folder`` and hold its lock while ``command`` (``"evaluate"``, ``"sweep"``) writes it.

    A second command writing the same folder at once is refused, where both would compute every step
    and the last to finish leave its files beside the other's. The lock goes with the process, so a
    killed run leaves none held; where the system has no ``fcntl`` (Windows), folders are not locked.

    Parameters
    ----------
    folder : path
        The output folder (created if absent).
    command : str
        What writes it, as the refusal names it.

    Yields
    ------
    Path
        The folder.

    Raises
    ------
    ArtifactError
        While another process holds the lock: which process, and what to do.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.artifacts import folder_lock
    >>> tmp = tempfile.TemporaryDirectory()
    >>> with folder_lock(Path(tmp.name) / "run", "evaluate") as out:
    ...     with folder_lock(out, "evaluate"):
    ...         pass
    Traceback (most recent call last):
    ...
    tealeaves.errors.ArtifactError: another tealeaves evaluate is writing .../run (process ...); wait for it to finish, or choose another out=<folder>
    >>> tmp.cleanup()
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ArtifactError(f"{folder} exists and is not a folder; choose another out=<folder>")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield folder
        return
    with open(folder / LOCK, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise ArtifactError(
                f"another tealeaves {command} is writing {folder} (process {holder}); wait for it to finish, or "
                "choose another out=<folder>"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield folder
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cache_root() -> Path:
    """tealeaves' on-disk cache (not artifacts: what can be recomputed): ``$TEALEAVES_CACHE``, else
    ``$XDG_CACHE_HOME/tealeaves`` or ``~/.cache/tealeaves``."""
    if os.environ.get("TEALEAVES_CACHE"):
        return Path(os.environ["TEALEAVES_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tealeaves"


def tealeaves_version() -> str:
    """The tealeaves version (``tealeaves.__version__``, the one version source).

    Returns
    -------
    str
        The installed version, as every manifest records it.

    Examples
    --------
    >>> import tealeaves
    >>> from tealeaves.artifacts import tealeaves_version
    >>> tealeaves_version() == tealeaves.__version__
    True
    """
    from tealeaves import __version__

    return __version__


def new_manifest(kind: str, **fields: Any) -> dict[str, Any]:
    """A manifest for an artifact of ``kind`` with provenance filled in.

    Parameters
    ----------
    kind : str
        The artifact kind (``"corpus"``, ``"topic-model"``, ``"ref-index"``, ...), which
        :func:`read_manifest` checks.
    **fields
        Config, inputs, seed, stats, ... stored as given after :func:`json_safe` (numpy values
        become plain JSON types, non-finite floats ``None``).

    Returns
    -------
    dict
        ``kind``, ``tealeaves_version``, ``created`` (UTC, ISO 8601), ``python`` and ``fields``.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.artifacts import new_manifest
    >>> manifest = new_manifest("corpus", seed=0, stats={"documents": np.int64(3), "ratio": np.nan})
    >>> manifest["kind"], manifest["seed"], manifest["stats"]
    ('corpus', 0, {'documents': 3, 'ratio': None})
    >>> sorted(manifest)
    ['created', 'kind', 'python', 'seed', 'stats', 'tealeaves_version']
    """
    manifest: dict[str, Any] = {
        "kind": kind,
        "tealeaves_version": tealeaves_version(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
    }
    manifest.update(json_safe(fields))
    return manifest


def json_safe(value: Any) -> Any:
    """Convert numpy scalars/arrays, paths, tuples and sets to plain JSON types.

    Non-finite floats become ``None`` so that no NaN or infinity is written silently.

    Parameters
    ----------
    value : object
        A value, possibly nested in dicts, lists, tuples and sets; dict keys become strings.

    Returns
    -------
    object
        The same value made of dicts, lists, str, int, float, bool and None.

    Examples
    --------
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from tealeaves.artifacts import json_safe
    >>> json_safe({"phi": np.array([0.5, 0.5]), "k": np.int64(2), "nan": float("nan"), "out": Path("runs/a")})
    {'phi': [0.5, 0.5], 'k': 2, 'nan': None, 'out': 'runs/a'}
    >>> json_safe({1: (np.float32(0.25), float("inf"))})
    {'1': [0.25, None]}
    """
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        return json_safe(value.item())
    if isinstance(value, float):
        return value if np.isfinite(value) else None
    if isinstance(value, Path):
        return str(value)
    return value


def write_json(path: Path, data: Any) -> None:
    """Write JSON-safe ``data`` to ``path`` (UTF-8, indented, trailing newline)."""
    path.write_text(json.dumps(json_safe(data), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def read_manifest(folder: str | os.PathLike[str], kind: str | None = None) -> dict[str, Any]:
    """Read ``folder/manifest.json``; check its ``kind`` when one is expected.

    Parameters
    ----------
    folder : str or path
        An artifact folder.
    kind : str, optional
        The artifact kind expected (``"corpus"``, ``"topic-model"``, ...); any kind when omitted.

    Returns
    -------
    dict
        The manifest.

    Raises
    ------
    ArtifactError
        When the folder does not exist, has no valid ``manifest.json`` or holds another kind.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.artifacts import new_manifest, read_manifest, write_artifact, write_json
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = write_artifact(Path(tmp.name) / "a", lambda f: write_json(f / "manifest.json", new_manifest("corpus")))
    >>> read_manifest(out, "corpus")["kind"]
    'corpus'
    >>> read_manifest(out, "topic-model")
    Traceback (most recent call last):
    ...
    tealeaves.errors.ArtifactError: ... holds a 'corpus' artifact, not a 'topic-model'; pass a topic-model folder
    >>> tmp.cleanup()
    """
    folder = Path(folder)
    path = folder / MANIFEST
    if folder.is_file():
        raise ArtifactError(f"{folder} is a file, not a tealeaves artifact folder")
    if not folder.is_dir():
        raise ArtifactError(f"{folder} is not a tealeaves artifact folder: it does not exist")
    if not path.is_file():
        raise ArtifactError(
            f"{folder} has no {MANIFEST}: it is not a tealeaves artifact (or was not written completely)"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ArtifactError(f"{path} is not valid JSON ({exc}); rebuild the artifact") from exc
    if kind is not None and manifest.get("kind") != kind:
        found = manifest.get("kind")
        raise ArtifactError(
            f"{folder} holds {_a(str(found))} {found!r} artifact, not {_a(kind)} {kind!r}; pass {_a(kind)} {kind} folder"
        )
    return manifest


def _a(word: str) -> str:
    """The indefinite article of ``word``: "an evaluation", "a corpus"."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def file_sha256(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def arrays_sha256(*arrays: np.ndarray, texts: tuple[str, ...] = ()) -> str:
    """Hex SHA-256 over the bytes of arrays (with dtype and shape) and strings."""
    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.data.cast("B"))
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def check_writable(out: str | os.PathLike[str], force: bool = False, inputs: Iterable[Any] = ()) -> Path:
    """Refuse an existing output folder unless ``force``, and one that is or holds an input even with ``force``
    (replacing it would delete what it is made from); return the target as a Path.

    Parameters
    ----------
    out : str or path
        The output folder an artifact is about to be written to.
    force : bool, default False
        Accept an existing folder (to be replaced); a file in its place is refused anyway.
    inputs : iterable, optional
        What the artifact is made from: paths, or objects with a ``folder`` (a loaded
        :class:`~tealeaves.corpus.Corpus`); anything else is held in memory and skipped.

    Returns
    -------
    Path
        ``out``.

    Raises
    ------
    ArtifactError
        When ``out`` exists and ``force`` is not given, when it is not a folder, or when it is or holds
        one of ``inputs``.

    Examples
    --------
    >>> import tempfile
    >>> from tealeaves.artifacts import check_writable
    >>> tmp = tempfile.TemporaryDirectory()
    >>> check_writable(tmp.name, force=True).is_dir()
    True
    >>> check_writable(tmp.name)
    Traceback (most recent call last):
    ...
    tealeaves.errors.ArtifactError: output ... already exists; choose another path or pass force=True to replace it
    >>> check_writable(tmp.name, force=True, inputs=[f"{tmp.name}/train"])
    Traceback (most recent call last):
    ...
    tealeaves.errors.ArtifactError: output ... holds the input .../train: replacing the output would delete the input; choose another path
    >>> tmp.cleanup()
    """
    out = Path(out)
    target = out.resolve()
    for given in inputs:
        given = getattr(given, "folder", given)
        source = Path(given).resolve() if isinstance(given, (str, os.PathLike)) else None
        if source is not None and (target == source or target in source.parents):
            raise ArtifactError(
                f"output {out} {'is' if target == source else 'holds'} the input {given}: replacing the output would "
                "delete the input; choose another path"
            )
    if out.exists() and not force:
        raise ArtifactError(f"output {out} already exists; choose another path or pass force=True to replace it")
    if out.exists() and not out.is_dir():
        raise ArtifactError(f"output {out} exists and is not a folder; remove it or choose another path")
    return out


@contextlib.contextmanager
def atomic_folder(out: str | os.PathLike[str], force: bool = False) -> Iterator[Path]:
    """Yield a temporary folder beside ``out``; on success rename it to ``out``.

    On any exception the temporary folder is removed and ``out`` is left as it was.
    With ``force`` an existing ``out`` is replaced only after the new one is complete.

    Parameters
    ----------
    out : str or path
        The artifact folder to create (:func:`check_writable` checks it first).
    force : bool, default False
        Replace an existing ``out``.

    Yields
    ------
    Path
        The temporary folder to write the artifact's files into.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.artifacts import atomic_folder
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = Path(tmp) / "model"
    ...     with atomic_folder(out) as folder:
    ...         _ = (folder / "vocab.txt").write_text("tax")
    ...         print(out.exists())  # not yet: the files are beside it
    ...     print(sorted(p.name for p in out.iterdir()))
    ...     try:
    ...         with atomic_folder(out, force=True) as folder:
    ...             raise RuntimeError("training failed")
    ...     except RuntimeError:
    ...         pass
    ...     print(sorted(p.name for p in Path(tmp).iterdir()))  # the old folder is kept, nothing else
    False
    ['vocab.txt']
    ['model']
    """
    out = check_writable(out, force)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    except OSError as exc:
        _refuse_write_failure(out, exc)
        raise
    try:
        yield tmp
        if out.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, trash / out.name)
            os.replace(tmp, out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        _refuse_write_failure(out, exc)
        raise


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary file name beside ``path``; on success rename the file onto ``path``.

    On any exception the temporary file is removed and ``path`` is left as it was. The name is
    unique to the writer (process id and a random suffix), so concurrent writers never share it.

    Parameters
    ----------
    path : str or path
        The file to write; its folder must exist.

    Yields
    ------
    Path
        The temporary name to write to (the file does not exist yet).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.artifacts import atomic_file
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "result.json"
    ...     _ = path.write_text("old")
    ...     with atomic_file(path) as part:
    ...         _ = part.write_text("new")
    ...         print(path.read_text())  # readers still see the old file
    ...     print(path.read_text(), [p.name for p in Path(tmp).iterdir()])
    old
    new ['result.json']
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        _refuse_write_failure(path, exc)
        raise


# what a full disk, a quota, a file-size limit, a read-only or a forbidden folder make a write fail with
WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM})


def _refuse_write_failure(out: Path, exc: BaseException) -> None:
    """Raise the :class:`ArtifactError` that says what to do for an OSError of writing ``out`` (its partial
    files removed): one of :data:`WRITE_FAILURES`, or an OSError without an errno (numpy's short write of an
    array to a full disk, "325140 requested and 180720 written"). Anything else is the caller's to raise."""
    if not isinstance(exc, OSError) or (exc.errno is not None and exc.errno not in WRITE_FAILURES):
        return
    hint = "write elsewhere"
    if exc.errno in (None, errno.ENOSPC, errno.EDQUOT, errno.EFBIG):  # out of room
        with contextlib.suppress(OSError):
            free = shutil.disk_usage(out.parent).free
            hint = f"{free / 1e9:.1f} GB free there" if free >= 1e9 else f"{free / 1e6:.1f} MB free there"
            hint += ": free some space or write elsewhere"
    raise ArtifactError(f"could not write {out} ({exc.strerror or exc}); {hint}") from exc


def write_artifact(out: str | os.PathLike[str], write: Callable[[Path], None], force: bool = False) -> Path:
    """Call ``write(tmp_folder)`` and move the finished folder to ``out`` atomically.

    Parameters
    ----------
    out : str or path
        The artifact folder to create.
    write : callable
        ``write(folder)`` writes the artifact's files into a temporary folder (see
        :func:`atomic_folder`).
    force : bool, default False
        Replace an existing ``out``.

    Returns
    -------
    Path
        ``out``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.artifacts import new_manifest, read_manifest, write_artifact, write_json
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = write_artifact(Path(tmp) / "run", lambda f: write_json(f / "manifest.json", new_manifest("run")))
    ...     print(out.name, read_manifest(out)["kind"])
    run run
    """
    with atomic_folder(out, force=force) as tmp:
        write(tmp)
    return Path(out)
