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
import hashlib
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves.errors import ArtifactError

MANIFEST = "manifest.json"


def cache_root() -> Path:
    """tealeaves' on-disk cache (not artifacts: what can be recomputed): ``$TEALEAVES_CACHE``, else
    ``$XDG_CACHE_HOME/tealeaves`` or ``~/.cache/tealeaves``."""
    if os.environ.get("TEALEAVES_CACHE"):
        return Path(os.environ["TEALEAVES_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tealeaves"


def tealeaves_version() -> str:
    """The tealeaves version (``tealeaves.__version__``, the one version source)."""
    from tealeaves import __version__

    return __version__


def new_manifest(kind: str, **fields: Any) -> dict[str, Any]:
    """A manifest for an artifact of ``kind`` with provenance filled in.

    ``fields`` (config, inputs, seed, stats, ...) are stored as given; they must be JSON-safe
    (see :func:`json_safe`).
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
    """Read ``folder/manifest.json``; check its ``kind`` when one is expected."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not folder.is_dir():
        raise ArtifactError(f"{folder} is not a tealeaves artifact folder: it does not exist or is not a folder")
    if not path.is_file():
        raise ArtifactError(
            f"{folder} has no {MANIFEST}: it is not a tealeaves artifact (or was not written completely)"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ArtifactError(f"{path} is not valid JSON ({exc}); rebuild the artifact") from exc
    if kind is not None and manifest.get("kind") != kind:
        raise ArtifactError(f"{folder} holds a {manifest.get('kind')!r} artifact, not a {kind!r}; pass a {kind} folder")
    return manifest


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


def check_writable(out: str | os.PathLike[str], force: bool = False) -> Path:
    """Refuse an existing output folder unless ``force``; return the target as a Path."""
    out = Path(out)
    if out.exists() and not force:
        raise ArtifactError(f"output {out} already exists; choose another path or pass --force to replace it")
    if out.exists() and not out.is_dir():
        raise ArtifactError(f"output {out} exists and is not a folder; remove it or choose another path")
    return out


@contextlib.contextmanager
def atomic_folder(out: str | os.PathLike[str], force: bool = False) -> Iterator[Path]:
    """Yield a temporary folder beside ``out``; on success rename it to ``out``.

    On any exception the temporary folder is removed and ``out`` is left as it was.
    With ``force`` an existing ``out`` is replaced only after the new one is complete.
    """
    out = check_writable(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        yield tmp
        if out.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, trash / out.name)
            os.replace(tmp, out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary file name beside ``path``; on success rename the file onto ``path``.

    On any exception the temporary file is removed and ``path`` is left as it was. The name is
    unique to the writer (process id and a random suffix), so concurrent writers never share it.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_artifact(out: str | os.PathLike[str], write: Callable[[Path], None], force: bool = False) -> Path:
    """Call ``write(tmp_folder)`` and move the finished folder to ``out`` atomically."""
    with atomic_folder(out, force=force) as tmp:
        write(tmp)
    return Path(out)
