"""The package as users get it: an sdist and a wheel that install into a clean virtualenv."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

import tealeaves

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "tealeaves"


def package_data() -> list[str]:
    """Every file the package needs beside its modules (templates, scripts, the typing marker)."""
    files = [p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix not in {".py", ".pyc", ".nbi", ".nbc"}]
    return sorted(str(p.relative_to(PACKAGE.parent)) for p in files if "__pycache__" not in p.parts)


@pytest.mark.slow
def test_sdist_and_wheel_install_into_a_clean_virtualenv(tmp_path):
    dist = tmp_path / "dist"
    # the default build makes the sdist, then the wheel from the unpacked sdist: both must be complete
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], check=True, capture_output=True)
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    assert wheel.name == f"tealeaves-{tealeaves.__version__}-py3-none-any.whl"
    expected = package_data()
    assert "tealeaves/py.typed" in expected and any("templates/" in name for name in expected)
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert [name for name in expected if name not in in_wheel] == []
    assert [name for name in expected if f"src/{name}" not in in_sdist] == []

    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True)
    done = subprocess.run([str(env / "bin" / "tealeaves"), "demo", "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "built-in State of the Union corpus" in done.stdout
    probe = (
        "import importlib.resources as r, tealeaves\n"
        "root = r.files('tealeaves')\n"
        f"missing = [n for n in {expected!r} if not root.joinpath(n.split('/', 1)[1]).is_file()]\n"
        "print(tealeaves.__version__, missing, tealeaves.__file__)"
    )
    version, missing, location = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.split(maxsplit=2)
    assert version == tealeaves.__version__ and missing == "[]"
    assert str(env) in location  # the installed copy, not this checkout
