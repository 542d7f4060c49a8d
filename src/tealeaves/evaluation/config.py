"""The ``tealeaves evaluate`` configuration: a TOML file (or the same structure as a dict).

::

    seed = 0            # every step's seed
    n_resamples = 1000  # bootstrap resamples for the 95% intervals (once "bootstrap")
    alpha = 0.05        # the report-wide error rate of its "better than" verdicts (once "level")
    primary = ["npmi"]  # optional: the primary metrics, adjusted apart from the others (exploratory)

    [corpora]
    heldout = "sotu/heldout"     # held-out likelihood and Chang's predictive metrics
    reference = "sotu/heldout"   # coherence and WI-Auto (default: the held-out corpus)
    train = "sotu/train"         # the vocabulary imported models are aligned to

    [[models]]
    name = "lda"
    path = "sotu-lda"            # a tealeaves model folder, or a topic list (one topic a line)

    [[models]]
    name = "lda-vb"
    runs = ["vb-seed0", "vb-seed1", "vb-seed2"]  # several trained runs (seeds) of one model
                                                 # (or path = [...]: the same)

    [[models]]
    name = "gensim"
    format = "gensim"            # anything `tealeaves import` reads
    path = "lda.gensim"
    options = {}                 # the importer's options

    [metrics]                    # absent: the default metrics with their default options
    predictive = false           # turn a default metric off
    npmi = { topn = 10 }         # or change its options

    [study]                      # optional: human scores from a study export
    export = "responses.csv"

Relative paths are relative to the configuration file's folder (to the working folder for a dict).

A dict may also hold the objects themselves: a model as ``{"name": "lda", "model": lda}`` (a
TopicModel, word lists, a gensim ``LdaModel``, OCTIS's model output, ... anything
:func:`tealeaves.models.as_model` reads, with its ``options``, e.g. ``{"time_slice": 3}``),
runs as a list of such objects, and a corpus as a :class:`~tealeaves.corpus.Corpus` or token
lists (anything :func:`tealeaves.corpus.as_corpus` reads). ``models`` may also be a mapping of
each name to its path or object, or to a list of them, one per trained run:
``{"lda": [run0, run1, run2], "ctm": ["ctm-s0", "ctm-s1", "ctm-s2"]}`` (in TOML, a ``[models]``
table: ``lda = ["lda-s0", "lda-s1"]``). The whole configuration, every key
of every table and every metric's options, is checked before any step runs: an unknown key
is refused with the closest known one.

The keys' old names, ``bootstrap`` and ``level``, are read too, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tealeaves.deprecation import renamed_attribute, warn_renamed
from tealeaves.errors import InputError, describe, is_count, is_level, is_real
from tealeaves.metrics import METRICS, unknown_keys

TOP_KEYS = {"seed", "n_resamples", "alpha", "primary", "corpora", "models", "metrics", "study"}
RENAMED_KEYS = {"bootstrap": "n_resamples", "level": "alpha"}  # deprecated key -> its name
CORPORA = ("heldout", "reference", "train")
MODEL_KEYS = {"name", "path", "model", "runs", "format", "options"}
STUDY_KEYS = {"export", "familiar_only"}


@dataclass(frozen=True)
class ModelSpec:
    """One trained model of the configuration: a folder or topic list (``format`` None), an import, or an object.

    Attributes
    ----------
    name : str
        The model's name in the tables (``MODEL/1``, ``MODEL/2``, ... for the runs of a model).
    path : Path or None
        The model folder, topic list or file to import, resolved against the configuration's
        folder; None for an object.
    format : str or None
        A ``tealeaves import`` format, or None for a tealeaves model folder or a topic list
        (and for an object, whose library is recognised).
    options : dict
        The importer's (or the object's adapter's) options.
    run_of : str or None
        The model this is one run of, when the configuration gave that model several runs
        (``runs = [...]``).
    model : object, optional
        The model itself, when a dict configuration gave it (``"model": lda``) instead of a path.

    Examples
    --------
    >>> from tealeaves.evaluation import read_config
    >>> config = read_config({"models": [{"name": "lda", "runs": ["lda-seed0", "lda-seed1"]}]})
    >>> spec = config.models[1]
    >>> spec.name, spec.run_of, spec.path.name, spec.format
    ('lda/2', 'lda', 'lda-seed1', None)
    """

    name: str
    path: Path | None
    format: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    run_of: str | None = None
    model: Any = None


@dataclass(frozen=True)
class EvaluateConfig:
    """A checked configuration; ``metrics`` maps each metric to run to its options.

    Attributes
    ----------
    models : tuple of ModelSpec
        The models (or runs of models) in the order given.
    metrics : dict of str to dict
        Each metric to run and its options (the defaults overridden by ``[metrics]``).
    corpora : dict of str to Path or object
        ``heldout``, ``reference`` (default: the held-out corpus) and ``train``, those given:
        a corpus folder, or the corpus or texts a dict configuration gave.
    study : dict or None
        ``export`` (a study export) and ``familiar_only``, when human scores are read.
    seed : int
        Every step's seed.
    n_resamples : int
        Bootstrap resamples for the 95% intervals (``bootstrap``, its old name, is deprecated).
    alpha : float
        The probability of any false "better than" in the report under the null (Westfall and
        Young's step-down over every comparison: :func:`tealeaves.evaluation.stats.report_family`;
        ``level``, its old name, is deprecated).
    primary : tuple of str
        The outputs (``npmi``, ``heldout_log_likelihood``, ...) named primary: their comparisons
        are one family and the other metrics', labelled exploratory, another; empty: one family,
        the whole report.
    source : dict
        The configuration as given, for the manifest.

    Examples
    --------
    >>> from tealeaves.evaluation import read_config
    >>> config = read_config(
    ...     {
    ...         "corpora": {"heldout": "heldout"},
    ...         "models": [{"name": "lda", "runs": ["a", "b"]}, {"name": "vb", "runs": ["c", "d"]}],
    ...         "metrics": {"cv": False, "npmi": {"topn": 5}},
    ...     }
    ... )
    >>> list(config.metrics), config.metrics["npmi"]
    (['npmi', 'diversity', 'wi-auto', 'likelihood', 'predictive'], {'topn': 5, 'window': 10, 'on_missing': 'skip'})
    >>> config.runs, sorted(config.corpora)  # the reference corpus defaults to the held-out one
    ({'lda': ['lda/1', 'lda/2'], 'vb': ['vb/1', 'vb/2']}, ['heldout', 'reference'])
    >>> config.seed, config.n_resamples, config.alpha
    (0, 1000, 0.05)
    """

    models: tuple[ModelSpec, ...]
    metrics: dict[str, dict[str, Any]]
    corpora: dict[str, Any]
    study: dict[str, Any] | None = None
    seed: int = 0
    n_resamples: int = 1000
    alpha: float = 0.05
    source: dict[str, Any] = field(default_factory=dict)  # the configuration as given, for the manifest
    primary: tuple[str, ...] = ()

    bootstrap = renamed_attribute("n_resamples")
    level = renamed_attribute("alpha")

    @property
    def runs(self) -> dict[str, list[str]]:
        """Each model's runs, by name, when models have several runs (empty when each has one)."""
        runs: dict[str, list[str]] = {}
        for spec in self.models:
            if spec.run_of is not None:
                runs.setdefault(spec.run_of, []).append(spec.name)
        return runs


def read_config(config: str | os.PathLike[str] | dict[str, Any] | EvaluateConfig) -> EvaluateConfig:
    """Read and check a configuration: a TOML file, a dict of the same structure, or one already read.

    Parameters
    ----------
    config : path, dict or EvaluateConfig
        A TOML file (its relative paths are relative to its folder), a dict of the same
        structure (relative paths are relative to the working folder), or a configuration
        already read, returned as it is. The keys are in the module docstring.

    Returns
    -------
    EvaluateConfig

    Raises
    ------
    InputError
        For unreadable TOML, unknown keys (all of them, each with the closest known key), a
        model without a name or path, a name given twice, or a seed, n_resamples or alpha out of
        range; the message says which.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.evaluation import read_config
    >>> toml = '''
    ... seed = 1
    ... [corpora]
    ... heldout = "sotu/heldout"
    ... [[models]]
    ... name = "lda"
    ... path = "sotu-lda"
    ... [[models]]
    ... name = "gensim"
    ... format = "gensim"
    ... path = "lda.gensim"
    ... [metrics]
    ... predictive = false
    ... '''
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "evaluate.toml").write_text(toml)
    ...     config = read_config(Path(tmp) / "evaluate.toml")
    ...     print(config.models[0].path == Path(tmp).resolve() / "sotu-lda")
    True
    >>> [(m.name, m.format) for m in config.models], config.seed, "predictive" in config.metrics
    ([('lda', None), ('gensim', 'gensim')], 1, False)
    """
    if isinstance(config, EvaluateConfig):
        return config
    if isinstance(config, dict):
        return parse_config(config, Path.cwd())
    if not isinstance(config, (str, os.PathLike)):
        raise InputError(
            f"the configuration must be a TOML file's path, a dict of the same structure or an EvaluateConfig, got "
            f"{describe(config)}"
        )
    path = Path(config)
    return parse_config(read_toml(path), path.resolve().parent)


def read_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The configuration file's TOML as a dict, unchecked (:func:`parse_config` checks it).

    Raises
    ------
    InputError
        For a file that cannot be read or is not valid TOML.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except IsADirectoryError as exc:
        raise InputError(f"{path} is a folder; pass the evaluation's configuration, a TOML file") from exc
    except OSError as exc:
        raise InputError(f"cannot read the configuration {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path} is not valid TOML: {exc}") from exc


def parse_config(data: dict[str, Any], base: Path) -> EvaluateConfig:
    """Check the structure of ``data`` and resolve its paths against ``base``."""
    from tealeaves.evaluation.metrics import active_metrics

    source, data = data, _renamed_keys(data)
    refuse_unknown_keys(data)
    corpora_in = _table(data.get("corpora", {}), "[corpora]")
    corpora = {name: _corpus(corpora_in[name], base, f"corpora.{name}") for name in CORPORA if name in corpora_in}
    if "reference" not in corpora and "heldout" in corpora:
        corpora["reference"] = corpora["heldout"]
    models = _models(data.get("models"), base)
    study = None
    if "study" in data:
        study = dict(_table(data["study"], "[study]"))
        if "export" not in study:
            raise InputError("[study] needs export = the study export (CSV or Parquet) to read human scores from")
        study["export"] = _path(study["export"], base, "study.export")
        study["familiar_only"] = bool(study.get("familiar_only", False))
    seed, n_resamples, alpha = data.get("seed", 0), data.get("n_resamples", 1000), data.get("alpha", 0.05)
    if not is_count(seed, 0):
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    if not is_count(n_resamples, 100):
        raise InputError(f"n_resamples must be an integer of at least 100 resamples, got {n_resamples!r}")
    if not is_real(alpha) or not 0 < alpha < 1:
        raise InputError(f"alpha must be a significance level between 0 and 1, got {alpha!r}")
    if not is_level(alpha):  # a confidence where the level goes: 0.95 would call chance differences "better"
        raise InputError(
            f"alpha is the probability of any false 'better than' on the page, at most 0.5; {alpha!r} looks like a "
            f"confidence level: give alpha = {1 - alpha:.2g}"
        )
    metrics = active_metrics(_table(data.get("metrics", {}), "[metrics]"))
    return EvaluateConfig(
        models=models,
        metrics=metrics,
        corpora=corpora,
        study=study,
        seed=int(seed),
        n_resamples=int(n_resamples),
        alpha=float(alpha),
        source=_plain(source),
        primary=_primary(data.get("primary", []), metrics, study is not None),
    )


def _primary(given: Any, metrics: dict[str, dict[str, Any]], study: bool) -> tuple[str, ...]:
    """The primary metrics: a list of output names, each one the evaluation knows and computes here (its
    metric turned on; a human score with a [study]): a primary output left uncomputed would leave no
    confirmatory family, every comparison labelled exploratory."""
    from tealeaves.evaluation.metrics import HUMAN_OUTPUTS, outputs

    known = outputs()
    if isinstance(given, str) or not isinstance(given, (list, tuple)):
        raise InputError(f'primary must be a list of output names (e.g. ["npmi"]), got {given!r}')
    unknown = [name for name in given if name not in known]
    if unknown:
        raise InputError(f"primary names unknown outputs {unknown}; known: {', '.join(known)}")
    source = {out: name for name, metric in METRICS.items() for out in metric.outputs}
    computed = {out for out, name in source.items() if name in metrics} | (set(HUMAN_OUTPUTS) if study else set())
    off = [
        f"{name} ([study] is not given)" if name in HUMAN_OUTPUTS else f"{name} ([metrics] {source[name]} is off)"
        for name in given
        if name not in computed
    ]
    if off:
        raise InputError(
            f"primary names outputs this evaluation does not compute: {', '.join(off)}; turn their metric on "
            "(or add [study] for human scores), or leave them out of primary"
        )
    return tuple(given)


def refuse_unknown_keys(data: dict[str, Any]) -> None:
    """Refuse, in one message, every unknown key of the configuration: of the top level, ``[corpora]``,
    ``[[models]]``, ``[study]``, ``[metrics]`` and each metric's options, each with the closest known one.

    Parameters
    ----------
    data : dict
        The configuration as read.

    Raises
    ------
    InputError
        Naming each table with unknown keys, the keys, their closest known keys and the valid ones.

    Examples
    --------
    >>> from tealeaves.evaluation.config import refuse_unknown_keys
    >>> refuse_unknown_keys({"seed": 0, "metrics": {"npmi": {"windw": 10}}})
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: [metrics] npmi has unknown option windw (did you mean window?); its options: ...
    """
    problems: list[str] = []

    def check(table: Any, known: Any, where: str, what: str = "key") -> None:
        if isinstance(table, dict):
            try:
                unknown_keys(table, known, where, what, top_level=TOP_KEYS if where != "the configuration" else ())
            except InputError as exc:
                problems.append(str(exc))

    check(data, TOP_KEYS, "the configuration")
    check(data.get("corpora"), CORPORA, "[corpora]")
    check(data.get("study"), STUDY_KEYS, "[study]")
    models = data.get("models")
    for i, entry in enumerate(models if isinstance(models, list) else []):
        check(entry, MODEL_KEYS, f"[[models]] #{i + 1}")
    metrics = data.get("metrics")
    check(metrics, METRICS, "[metrics]", what="metric")
    for name, options in metrics.items() if isinstance(metrics, dict) else ():
        check_options = getattr(METRICS.get(name), "check", None)
        if (isinstance(options, dict) or options is True) and check_options is not None:
            try:
                given = options if isinstance(options, dict) else {}
                check_options({**METRICS[name].defaults, **given}, f"[metrics] {name}")
            except InputError as exc:
                problems.append(str(exc))
    if problems:
        raise InputError(
            "; ".join(problems) if len(problems) == 1 else f"{len(problems)} problems: " + "; ".join(problems)
        )


def _renamed_keys(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the deprecated top-level keys under their names (:data:`RENAMED_KEYS`), with a warning."""
    for old, new in RENAMED_KEYS.items():
        if old in data:
            if new in data:
                raise InputError(f"the configuration gives both {new} and {old}, its deprecated name: give {new} only")
            warn_renamed(f"the configuration key {old!r}", repr(new), stacklevel=4)
            data = {**{k: v for k, v in data.items() if k != old}, new: data[old]}
    return data


def _entries(entries: Any) -> list[Any]:
    """``[[models]]`` as a list of tables: a mapping of name to a path, an object or a list of either
    (one per trained run) becomes one table a name, and a table whose path is a list, runs."""
    if isinstance(entries, dict):
        entries = [
            {"name": name, "runs": list(given)}
            if _several(given)
            else {"name": name, ("path" if isinstance(given, (str, os.PathLike)) else "model"): given}
            for name, given in entries.items()
        ]
    if isinstance(entries, tuple):
        entries = list(entries)
    if entries is not None and not isinstance(entries, list):
        raise InputError(
            f"models must be [[models]] tables with name and path, or a mapping of name to path (a dict), got "
            f"{describe(entries)}: {entries!r:.60}"
        )
    if not entries:
        raise InputError("the configuration names no model: add [[models]] tables with name and path")
    return [
        {**{k: v for k, v in e.items() if k != "path"}, "runs": e["path"]}
        if isinstance(e, dict) and isinstance(e.get("path"), list) and "runs" not in e
        else e
        for e in entries
    ]


def _several(given: Any) -> bool:
    """Whether a mapping's value lists runs: a list, but not a topic list (lists of words) nor a scikit-learn
    model with its vectorizer."""
    from tealeaves.models.adapters import is_vectorizer_pair

    if not isinstance(given, (list, tuple)) or is_vectorizer_pair(given):  # a path or one model
        return False
    return not all(isinstance(t, (list, tuple)) and all(isinstance(w, str) for w in t) for t in given or [None])


def _models(entries: Any, base: Path) -> tuple[ModelSpec, ...]:
    models = []
    for i, entry in enumerate(_entries(entries)):
        if not isinstance(entry, dict):
            raise InputError(
                f"[[models]] #{i + 1} must be a table with a name and a path or model, got {entry!r:.80}; in a dict "
                'configuration, name each model: {"models": {"lda": model}} or [{"name": "lda", "model": model}]'
            )
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise InputError(f"[[models]] #{i + 1} needs a name (a non-empty string without '/'), got {name!r}")
        if sum(key in entry for key in ("path", "model", "runs")) != 1:
            raise InputError(
                f"model {name!r} needs one of path (a model folder, a topic list or a file to import), model (the "
                "model itself, in a dict configuration) or runs (a list of either, one per trained run)"
            )
        fmt = entry.get("format")
        if fmt is not None and not isinstance(fmt, str):
            raise InputError(f"model {name!r}: format must be the name of a `tealeaves import` format, got {fmt!r}")
        options = _table(entry.get("options", {}), f"model {name!r} options")
        if options and fmt is None and "path" in entry:
            raise InputError(f"model {name!r}: options apply to imports only; add format = ... or remove them")
        if "runs" not in entry:
            models.append(_spec(name, entry.get("path", entry.get("model")), base, fmt, options, f"model {name!r}"))
            continue
        runs = entry["runs"]
        if not isinstance(runs, list) or len(runs) < 2:
            raise InputError(f"model {name!r}: runs must list two or more trained runs (paths), got {runs!r}")
        for r, run in enumerate(runs, start=1):
            spec = _spec(f"{name}/{r}", run, base, fmt, options, f"model {name!r} run {r}")
            models.append(ModelSpec(spec.name, spec.path, fmt, dict(options), run_of=name, model=spec.model))
    names = [m.run_of or m.name for m in models if m.run_of is None or m.name.endswith("/1")]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"model name(s) {', '.join(twice)} appear twice; give every model its own name")
    single = [m.name for m in models if m.run_of is None]
    if single and len(single) < len(models):
        raise InputError(
            f"model(s) {', '.join(single)} have one run while others have several: runs are the units of the "
            "tests, so give every model two or more runs (or every model one)"
        )
    return tuple(models)


def _spec(name: str, value: Any, base: Path, fmt: str | None, options: dict[str, Any], where: str) -> ModelSpec:
    """A model given by a path (resolved against ``base``) or as the object itself."""
    if isinstance(value, (str, os.PathLike)):
        return ModelSpec(name, _path(value, base, f"{where} path"), fmt, dict(options))
    if value is None:
        raise InputError(f"{where} must be a path or the model itself, got None")
    return ModelSpec(name, None, fmt, dict(options), model=value)


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where} must be a table (key = value pairs), got {value!r}")
    return value


def _path(value: Any, base: Path, where: str) -> Path:
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise InputError(f"{where} must be a path, got {value!r}")
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


def _corpus(value: Any, base: Path, where: str) -> Any:
    """A corpus folder resolved against ``base``, or the corpus or texts a dict configuration gave as they are."""
    return _path(value, base, where) if isinstance(value, (str, os.PathLike)) else value


def _plain(data: Any) -> Any:
    """``data`` as the manifest records it: objects given in a dict configuration by their class name."""
    if isinstance(data, dict):
        return {key: _plain(value) for key, value in data.items()}
    if isinstance(data, list) and all(isinstance(item, (str, int, float, bool, dict, os.PathLike)) for item in data):
        return [_plain(item) for item in data]
    if isinstance(data, (str, int, float, bool, os.PathLike)) or data is None:
        return data
    return f"<{type(data).__name__} object>"
