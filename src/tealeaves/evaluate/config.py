"""The ``tealeaves evaluate`` configuration: a TOML file (or the same structure as a dict).

::

    seed = 0            # every step's seed
    bootstrap = 1000    # resamples for the 95% intervals
    level = 0.05        # significance level of the Holm-corrected two-sided tests

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
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tealeaves.errors import InputError

TOP_KEYS = {"seed", "bootstrap", "level", "corpora", "models", "metrics", "study"}
CORPORA = ("heldout", "reference", "train")
MODEL_KEYS = {"name", "path", "runs", "format", "options"}
STUDY_KEYS = {"export", "familiar_only"}


@dataclass(frozen=True)
class ModelSpec:
    """One trained model of the configuration: a folder or topic list (``format`` None), or an import.

    ``run_of`` names the model it is one run of, when the configuration gave that model several
    runs (``runs = [...]``); its own name is then ``MODEL/1``, ``MODEL/2``, ...
    """

    name: str
    path: Path
    format: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    run_of: str | None = None


@dataclass(frozen=True)
class EvaluateConfig:
    """A checked configuration; ``metrics`` maps each metric to run to its options."""

    models: tuple[ModelSpec, ...]
    metrics: dict[str, dict[str, Any]]
    corpora: dict[str, Path]
    study: dict[str, Any] | None = None
    seed: int = 0
    bootstrap: int = 1000
    level: float = 0.05
    source: dict[str, Any] = field(default_factory=dict)  # the configuration as given, for the manifest

    @property
    def runs(self) -> dict[str, list[str]]:
        """Each model's runs, by name, when models have several runs (empty when each has one)."""
        runs: dict[str, list[str]] = {}
        for spec in self.models:
            if spec.run_of is not None:
                runs.setdefault(spec.run_of, []).append(spec.name)
        return runs


def read_config(config: str | os.PathLike[str] | dict[str, Any] | EvaluateConfig) -> EvaluateConfig:
    """Read and check a configuration: a TOML file, a dict of the same structure, or one already read."""
    if isinstance(config, EvaluateConfig):
        return config
    if isinstance(config, dict):
        return parse_config(config, Path.cwd())
    path = Path(config)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the configuration {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path} is not valid TOML: {exc}") from exc
    return parse_config(data, path.resolve().parent)


def parse_config(data: dict[str, Any], base: Path) -> EvaluateConfig:
    """Check the structure of ``data`` and resolve its paths against ``base``."""
    from tealeaves.evaluate.metrics import active_metrics

    _unknown(data, TOP_KEYS, "the configuration")
    corpora_in = _table(data.get("corpora", {}), "[corpora]")
    _unknown(corpora_in, set(CORPORA), "[corpora]")
    corpora = {name: _path(corpora_in[name], base, f"corpora.{name}") for name in CORPORA if name in corpora_in}
    if "reference" not in corpora and "heldout" in corpora:
        corpora["reference"] = corpora["heldout"]
    models = _models(data.get("models"), base)
    study = None
    if "study" in data:
        study = dict(_table(data["study"], "[study]"))
        _unknown(study, STUDY_KEYS, "[study]")
        if "export" not in study:
            raise InputError("[study] needs export = the study export (CSV or Parquet) to read human scores from")
        study["export"] = _path(study["export"], base, "study.export")
        study["familiar_only"] = bool(study.get("familiar_only", False))
    seed, bootstrap, level = data.get("seed", 0), data.get("bootstrap", 1000), data.get("level", 0.05)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 100:
        raise InputError(f"bootstrap must be an integer of at least 100 resamples, got {bootstrap!r}")
    if not isinstance(level, (int, float)) or not 0 < level < 1:
        raise InputError(f"level must be a significance level between 0 and 1, got {level!r}")
    return EvaluateConfig(
        models=models,
        metrics=active_metrics(_table(data.get("metrics", {}), "[metrics]")),
        corpora=corpora,
        study=study,
        seed=seed,
        bootstrap=bootstrap,
        level=float(level),
        source=data,
    )


def _models(entries: Any, base: Path) -> tuple[ModelSpec, ...]:
    if not isinstance(entries, list) or not entries:
        raise InputError("the configuration names no model: add [[models]] tables with name and path")
    models = []
    for i, entry in enumerate(entries):
        entry = _table(entry, f"[[models]] #{i + 1}")
        _unknown(entry, MODEL_KEYS, f"[[models]] #{i + 1}")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise InputError(f"[[models]] #{i + 1} needs a name (a non-empty string without '/'), got {name!r}")
        if ("path" in entry) == ("runs" in entry):
            raise InputError(
                f"model {name!r} needs a path (a model folder, a topic list or a file to import) "
                "or runs (a list of such paths, one per trained run), not both"
            )
        fmt = entry.get("format")
        if fmt is not None and not isinstance(fmt, str):
            raise InputError(f"model {name!r}: format must be the name of a `tealeaves import` format, got {fmt!r}")
        options = _table(entry.get("options", {}), f"model {name!r} options")
        if options and fmt is None:
            raise InputError(f"model {name!r}: options apply to imports only; add format = ... or remove them")
        if "path" in entry:
            models.append(ModelSpec(name, _path(entry["path"], base, f"model {name!r} path"), fmt, dict(options)))
            continue
        runs = entry["runs"]
        if not isinstance(runs, list) or len(runs) < 2:
            raise InputError(f"model {name!r}: runs must list two or more trained runs (paths), got {runs!r}")
        for r, run in enumerate(runs, start=1):
            path = _path(run, base, f"model {name!r} run {r}")
            models.append(ModelSpec(f"{name}/{r}", path, fmt, dict(options), run_of=name))
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


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where} must be a table (key = value pairs), got {value!r}")
    return value


def _unknown(table: dict[str, Any], known: set[str], where: str) -> None:
    extra = sorted(set(table) - known)
    if extra:
        raise InputError(f"{where} has unknown key(s) {', '.join(extra)}; known: {', '.join(sorted(known))}")


def _path(value: Any, base: Path, where: str) -> Path:
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise InputError(f"{where} must be a path, got {value!r}")
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path
