"""Hoyle et al.'s sweep: Table 8's grid drawn without replacement under the authors' constraints,
capped steps that scale the annealing, trials on a Dask LocalCluster that survive a failing trial,
restarts that train only what is missing, and the selection after the redundancy filters."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from tealeaves.artifacts import read_manifest
from tealeaves.cli import app
from tealeaves.coherence import RefIndex, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import ArtifactError, EmptyResultError, InputError
from tealeaves.model_selection import (
    CONSTRAINTS,
    SPACES,
    FailedTrialsWarning,
    SweepConfig,
    cap_steps,
    draw_settings,
    plan,
    select_best,
    sweep,
)
from tealeaves.model_selection.space import Choice, LogUniform
from tealeaves.models import TRAINERS, TopicModel, lda_gibbs, lda_vb, trainer_params, trainer_rules
from tealeaves.models.training import TrainerSpec

ROOT = Path(__file__).resolve().parents[2]
LOG = "TEALEAVES_TEST_SWEEP_LOG"

# Hoyle et al. 2021, Appendix A.3, Table 8, transcribed here independently of tealeaves.sweep
TABLE_8 = {
    "lda-gibbs": {
        "alpha_sum": {0.01, 0.05, 0.1, 0.25, 1.0, 5.0},
        "beta": {0.01, 0.05, 0.1},
        "optimize_interval": {0, 10, 100, 500},
        "iterations": {1000, 2000},
    },
    "dvae": {
        "alpha": {0.001, 0.01, 0.1},
        "learning_rate": {0.001, 0.01},
        "beta_reg": {0.0, 0.01, 0.1, 1.0},
        "gamma_bn": {0, 1, 100, 200},
        "gamma_kl": {100, 200},
        "epochs": {200, 500},
    },
    "etm": {
        "learning_rate": {0.001, 0.002, 0.01, 0.02},
        "weight_decay": {1.2e-5, 1.2e-6, 1.2e-7},
        "anneal_lr": {False, True},
        "epochs": {500, 1000},
    },
}


def flaky_fit(corpus, k, seed=0, progress=None, *, fail="never", iterations=20):
    """lda-gibbs that appends ``seed`` to the file named by $TEALEAVES_TEST_SWEEP_LOG on every call, and
    raises when told to: on every call (``always``) or on the first call for its seed (``once``)."""
    log = Path(os.environ[LOG])
    earlier = log.read_text().split().count(str(seed)) if log.exists() else 0
    with log.open("a") as handle:
        handle.write(f"{seed}\n")
    if fail == "always" or (fail == "once" and earlier == 0):
        raise RuntimeError(f"planted failure ({fail})")
    return lda_gibbs.fit(corpus, k, seed, iterations=iterations, optimize_burn_in=5)


def trainings(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Four planted topics on disjoint blocks of 15 words; the corpus is its own reference index."""
    rng = np.random.default_rng(7)
    k, block = 4, 15
    docs = []
    for _ in range(160):
        theta = rng.dirichlet(np.full(k, 0.2))
        topics = rng.choice(k, size=40, p=theta)
        docs.append(topics * block + rng.integers(block, size=40))
    corpus = Corpus.from_documents(docs, Vocabulary([f"w{i:02d}" for i in range(k * block)]))
    folder = tmp_path_factory.mktemp("sweep-inputs")
    corpus.save(folder / "corpus")
    RefIndex.build(corpus, out=folder / "index")
    return folder


def register_flaky(monkeypatch, log):
    """The flaky trainer, registered for one test (the sweep ships its entry to the Dask workers)."""
    monkeypatch.setitem(TRAINERS, "flaky", TrainerSpec("tests.sweep.test_sweep:flaky_fit", "lda-gibbs that fails"))
    monkeypatch.setenv(LOG, str(log))
    return log


@pytest.fixture
def flaky(monkeypatch, tmp_path):
    return register_flaky(monkeypatch, tmp_path / "trainings.log")


FLAKY_SPACE = {"fail": ["never", "once", "always"], "iterations": [10, 20, 30]}


def flaky_config(inputs, settings=4, seed=None):
    """A sweep of the flaky trainer; without a seed, the first seed whose first four settings hold
    a trial of each kind (never fails, fails once, always fails)."""
    data = {"corpus": "corpus", "reference": "index", "models": ["flaky"], "settings": settings, "k": 4}
    data["space"] = {"flaky": FLAKY_SPACE}
    if seed is None:
        space = SweepConfig.from_mapping(data, base=inputs).space("flaky")
        kinds = {"never", "once", "always"}
        draws = (draw_settings(space, 4, s, "flaky", replicates=3) for s in itertools.count())
        seed = next(s for s, drawn in enumerate(draws) if {d["fail"] for d, _ in drawn} == kinds)
    return SweepConfig.from_mapping({**data, "seed": seed}, base=inputs)


@pytest.fixture(scope="module")
def cluster_sweep(inputs, tmp_path_factory):
    """Four flaky settings on a two-worker Dask LocalCluster, run once for the module: one fails twice,
    one fails once and then succeeds. Tests copy the folder before changing it."""
    from dask.distributed import LocalCluster

    folder = tmp_path_factory.mktemp("cluster-sweep")
    with pytest.MonkeyPatch.context() as monkeypatch:
        log = register_flaky(monkeypatch, folder / "trainings.log")
        config = flaky_config(inputs)
        # a cluster of its own, reached by its tcp:// address as a remote one would be
        with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster:
            assert cluster.scheduler_address.startswith("tcp://")
            # the sweep says which trials failed and why, each error once (it said nothing, and exited 0)
            with pytest.warns(
                FailedTrialsWarning,
                match=r"^1 of 4 trials failed: RuntimeError: planted failure \(always\) \(1 trial\); each record in .*trials holds its traceback; retry_failed=True trains them again$",
            ):
                result = sweep(config, folder / "sweep", scheduler=cluster.scheduler_address)
    return config, result, log


def test_a_failing_trial_is_retried_once_recorded_and_not_fatal(cluster_sweep):
    _, result, log = cluster_sweep
    frame = pd.read_parquet(result.out / "results.parquet")
    assert len(frame) == 4 and result.trained == 4 and result.resumed == 0
    fail = {r["trial"]: r["params"]["fail"] for r in result.records}
    for row in frame.itertuples():
        kind = fail[row.trial]
        if kind == "always":
            assert (row.status, row.attempts) == ("failed", 2)
            assert row.error == "RuntimeError: planted failure (always); RuntimeError: planted failure (always)"
            assert np.isnan(row.npmi)
        elif kind == "once":
            assert (row.status, row.attempts, row.error) == ("ok", 2, "RuntimeError: planted failure (once)")
        else:
            assert (row.status, row.attempts) == ("ok", 1) and pd.isna(row.error)
        assert kind != "never" or np.isfinite(row.npmi)
    assert len(trainings(log)) == frame["attempts"].sum()
    failed = json.loads((result.out / "trials" / f"{frame.trial[frame.status == 'failed'].iloc[0]}.json").read_text())
    assert "planted failure (always)" in failed["traceback"] and failed["scores"] == {}
    manifest = json.loads((result.out / "manifest.json").read_text())
    assert manifest["kind"] == "sweep" and manifest["status"] == "complete"
    assert manifest["stats"]["failed"] == 1 and manifest["stats"]["ok"] == 3
    assert pd.read_csv(result.out / "results.csv")["trial"].tolist() == frame["trial"].tolist()


def test_a_restarted_sweep_trains_only_the_trials_without_a_record(cluster_sweep, flaky, tmp_path):
    config, first, log = cluster_sweep
    out = tmp_path / "sweep"
    shutil.copytree(first.out, out)
    shutil.copy(log, flaky)
    log = flaky
    before = trainings(log)
    with pytest.warns(FailedTrialsWarning, match="^1 of 4 trials failed"):  # a resumed failure is said again
        again = sweep(config, out, scheduler=None, workers=1)
    assert trainings(log) == before and (again.trained, again.resumed) == (0, 4)
    pd.testing.assert_frame_equal(again.to_frame(), first.to_frame())
    # more settings: the first four keep their settings and records, only the new two are trained
    with pytest.warns(
        FailedTrialsWarning, match=r"^2 of 6 trials failed: RuntimeError: planted failure \(always\) \(2 trials\)"
    ):
        more = sweep(flaky_config(config.corpus.parent, settings=6, seed=config.seed), out, scheduler=None, workers=1)
    assert (more.trained, more.resumed) == (2, 4)
    assert more.records[:4] == first.records
    assert sorted(trainings(log)[len(before) :]) == sorted(
        s for r in more.records[4:] for s in [r["seed"]] * r["attempts"]
    )
    # without replacement: no (setting, replicate) of the grid is run twice
    runs = [(tuple(sorted(r["drawn"].items())), r["replicate"]) for r in more.records]
    assert len(set(runs)) == len(runs)
    # retry_failed: the failed trials alone are trained again (twice each: they fail again), the others kept
    failed = [r for r in more.records if r["status"] == "failed"]
    done = len(trainings(log))
    with pytest.warns(FailedTrialsWarning, match="retry_failed=True trains them again"):
        retried = sweep(
            flaky_config(config.corpus.parent, settings=6, seed=config.seed),
            out,
            retry_failed=True,
            scheduler=None,
            workers=1,
        )
    assert (retried.trained, retried.resumed) == (len(failed), 6 - len(failed))
    assert sorted(trainings(log)[done:]) == sorted(r["seed"] for r in failed for _ in range(2))
    assert [r for r in retried.records if r["status"] == "ok"] == [r for r in more.records if r["status"] == "ok"]


def test_an_interrupted_sweep_resumes_where_it_stopped(inputs, flaky, tmp_path):
    space = {"flaky": {"fail": "never", "iterations": [10, 20]}}
    config = SweepConfig.from_mapping(
        {"corpus": "corpus", "reference": "index", "models": ["flaky"], "settings": 5, "k": 4, "space": space},
        base=inputs,
    )

    def stop_after_two(update):
        if update.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(config, tmp_path / "sweep", scheduler=None, workers=1, progress=stop_after_two)
    assert len(list((tmp_path / "sweep" / "trials").glob("*.json"))) == 2 and len(trainings(flaky)) == 2
    assert not (tmp_path / "sweep" / "results.parquet").exists()
    done = sweep(config, tmp_path / "sweep", scheduler=None, workers=1)
    assert (done.trained, done.resumed) == (3, 2) and len(trainings(flaky)) == 5
    assert sorted(trainings(flaky)) == sorted(r["seed"] for r in done.records)


def test_another_configuration_in_the_same_folder_is_refused_unless_forced(inputs, flaky, tmp_path):
    config = flaky_config(inputs, settings=1, seed=0)
    sweep(config, tmp_path / "sweep", scheduler=None, workers=1)
    other = dataclasses.replace(config, k=3)
    with pytest.raises(ArtifactError, match="another configuration"):
        sweep(other, tmp_path / "sweep", scheduler=None, workers=1)
    forced = sweep(other, tmp_path / "sweep", scheduler=None, workers=1, force=True)
    assert (forced.trained, forced.resumed) == (1, 0)
    # the inputs are read before --force deletes anything
    with pytest.raises(ArtifactError, match="nowhere"):
        sweep(dataclasses.replace(other, corpus=tmp_path / "nowhere"), tmp_path / "sweep", scheduler=None, force=True)
    assert read_manifest(tmp_path / "sweep", kind="sweep")["config"]["k"] == 3
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("mine")
    with pytest.raises(ArtifactError, match="not a sweep folder"):
        sweep(config, tmp_path / "plain", scheduler=None, workers=1)
    assert sorted(p.name for p in (tmp_path / "plain").iterdir()) == ["notes.txt"]  # no lock left there


def test_a_second_sweep_writing_the_same_folder_at_once_is_refused_even_with_force(inputs, flaky, tmp_path):
    """While a sweep holds the folder's lock, another one, even with force (which deleted the folder under the
    first), is refused naming the holder's process, and the folder is left as it was; once the holder's
    process is gone, the sweep runs."""
    import subprocess
    import sys

    config = flaky_config(inputs, settings=1, seed=0)
    out = tmp_path / "sweep"
    sweep(config, out, scheduler=None, workers=1)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    program = "import fcntl, sys, time\nf = open(sys.argv[1], 'a+')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)"
    holder = subprocess.Popen([sys.executable, "-c", program, str(out / ".lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for force in (False, True):
            with pytest.raises(ArtifactError, match=r"^another tealeaves sweep is writing .*sweep \(process \d+\)"):
                sweep(config, out, scheduler=None, workers=1, force=force)
        assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    finally:
        holder.kill()
        holder.wait()
    assert sweep(config, out, scheduler=None, workers=1, force=True).trained == 1


def planted_fit(corpus, k, seed=0, progress=None, *, iterations=20, duplicate=False, shared=0):
    """lda-gibbs, then made redundant on request: topic 1 a copy of topic 0 (``duplicate``), and the
    words w00.. as the top ``shared`` words of every topic."""
    model = lda_gibbs.fit(corpus, k, seed, iterations=iterations, optimize_burn_in=5)
    phi = model.phi.copy()
    if duplicate:
        phi[1] = phi[0]
    phi[:, :shared] += np.linspace(2.0, 1.0, shared) * phi.max()
    return TopicModel(model.vocab, phi / phi.sum(axis=1, keepdims=True), model.alpha, manifest=model.manifest)


def test_selection_after_the_filters_equals_a_direct_computation(inputs, tmp_path, monkeypatch):
    spec = TrainerSpec("tests.sweep.test_sweep:planted_fit", "lda-gibbs made redundant")
    monkeypatch.setitem(TRAINERS, "planted", spec)
    monkeypatch.setitem(TRAINERS, "planted-too", spec)
    space = {"iterations": [40, 1000], "duplicate": [False, True], "shared": [0, 3]}
    config = SweepConfig.from_mapping(
        {
            "corpus": "corpus",
            "reference": "index",
            "models": ["planted", "planted-too"],
            "settings": 10,
            "k": 6,
            "seed": 1,
            "max_steps": {"planted": 40, "planted-too": 40},
            "space": {"planted": space, "planted-too": space},
            "score": {"uniqueness_filter": ["planted"]},
        },
        base=inputs,
    )
    result = sweep(config, tmp_path / "sweep", scheduler=None, workers=1)
    frame = pd.read_parquet(tmp_path / "sweep" / "results.parquet")
    index = RefIndex.load(inputs / "index")
    # the filters, from each trial's recorded top words: (a) no two identical top-5 sets, (b) TU over
    # the top 5 above 0.7, applied to one of the two names only
    for record, row in zip(result.records, frame.itertuples()):
        top5 = [t[:5] for t in record["top_words"]]
        duplicates = [[a, b] for a, b in itertools.combinations(range(len(top5)), 2) if set(top5[a]) == set(top5[b])]
        counts = {w: sum(w in t for t in top5) for t in top5 for w in t}
        tu = np.mean([np.mean([1 / counts[w] for w in t]) for t in top5])
        applies = record["model"] == "planted"
        assert (row.filter_a, row.filter_b, row.uniqueness_filter) == (not duplicates, tu > 0.7, applies)
        assert row.passes == ((not duplicates) and (tu > 0.7 or not applies))
        assert record["duplicate_topics"] == duplicates and row.duplicate_topic_pairs == len(duplicates)
        assert row.filter_uniqueness == pytest.approx(tu)
    assert 0 < frame["passes"].sum() < len(frame)  # the filters remove some trials, not all
    expected = {}
    for model, rows in frame.groupby("model"):
        kept = rows[(rows.status == "ok") & rows.passes]
        expected[model] = None if kept.empty else kept.loc[kept["npmi"].idxmax(), "trial"]
    assert result.selected == expected == select_best(frame)
    unfiltered = {model: rows.loc[rows["npmi"].idxmax(), "trial"] for model, rows in frame.groupby("model")}
    assert unfiltered != expected  # the filters change the selection
    assert frame.loc[frame.selected, "trial"].tolist() == sorted(t for t in expected.values() if t)
    for model, trial in expected.items():
        if trial is None:
            assert not (tmp_path / "sweep" / "models" / model).exists()
            continue
        saved = TopicModel.load(tmp_path / "sweep" / "models" / model)
        assert saved.manifest["sweep"]["trial"] == trial
        # scored with gensim's counts by default, as Hoyle et al.
        rescored = score(saved, index, measure="npmi", window=10, topn=10, on_missing="zero", compat="gensim")
        assert rescored.model_mean == pytest.approx(frame.set_index("trial").loc[trial, "npmi"], abs=1e-12)
    trials = plan(config)
    assert {t.params["iterations"] for t in trials} == {40} and {t.drawn["iterations"] for t in trials} == {40, 1000}
    # the cap makes some drawn settings train alike: each is trained once, its twins share the record
    first: dict[str, dict] = {}
    for record in result.records:
        twin = first.setdefault(record["key"], record)
        assert record["twin_of"] == (None if twin is record else twin["trial"])
        assert record["scores"] == twin["scores"] and record["top_words"] == twin["top_words"]
    assert len(first) < len(result.records)
    manifest = read_manifest(tmp_path / "sweep", kind="sweep")
    assert [(t["drawn"], t["params"]) for t in manifest["trials"]] == [(t.drawn, t.params) for t in trials]
    assert manifest["stats"]["passing_filter_a"] == int(frame["filter_a"].sum())


def test_a_deleted_selected_model_is_trained_again(inputs, tmp_path):
    config = SweepConfig.from_mapping(
        {
            "corpus": "corpus",
            "reference": "index",
            "models": ["lda-gibbs"],
            "settings": 2,
            "k": 4,
            "seed": 3,
            "max_steps": {"lda-gibbs": 40},
            "space": {"lda-gibbs": {"optimize_burn_in": 10}},
        },
        base=inputs,
    )
    first = sweep(config, tmp_path / "sweep", scheduler=None, workers=1)
    assert [t for t in first.selected.values() if t]
    phi = TopicModel.load(tmp_path / "sweep" / "models" / "lda-gibbs").phi
    shutil.rmtree(tmp_path / "sweep" / "models" / "lda-gibbs")
    again = sweep(config, tmp_path / "sweep", scheduler=None, workers=1)
    assert again.selected == first.selected and again.trained == 0
    np.testing.assert_array_equal(TopicModel.load(tmp_path / "sweep" / "models" / "lda-gibbs").phi, phi)


def table_8_grid(model: str, replicates: int) -> list[tuple[dict, int]]:
    """Table 8's grid with the authors' constraints (runs/dvae-sweep.yml), enumerated here."""
    names = sorted(TABLE_8[model])
    grid = [dict(zip(names, values)) for values in itertools.product(*(sorted(TABLE_8[model][n]) for n in names))]
    if model == "dvae":
        grid = [g for g in grid if g["gamma_bn"] < g["epochs"] and g["gamma_kl"] < g["epochs"]]
    return [(g, r) for g in grid for r in range(replicates)]


def key(setting: tuple[dict, int]) -> tuple:
    return tuple(sorted(setting[0].items())), setting[1]


@pytest.mark.parametrize("model", sorted(TABLE_8))
def test_settings_are_drawn_from_table_8s_grid_without_replacement(model):
    assert set(SPACES) == set(TABLE_8) and set(SPACES[model]) == set(TABLE_8[model])
    grid = table_8_grid(model, replicates=3)
    assert len(grid) == {"lda-gibbs": 144 * 3, "dvae": 264 * 3, "etm": 48 * 3}[model]
    constraints = CONSTRAINTS.get(model, ())
    settings = draw_settings(SPACES[model], 10_000, seed=11, model=model, constraints=constraints, replicates=3)
    assert sorted(map(key, settings)) == sorted(map(key, grid))  # the whole grid, each setting once
    assert draw_settings(SPACES[model], 7, 11, model, constraints, 3) == settings[:7]
    assert draw_settings(SPACES[model], 7, 12, model, constraints, 3) != settings[:7]
    # the first draws are a uniform sample of the grid: each setting is among the first 5 of 400
    # seeds' orders about equally often (expected 400 * 5 / len(grid) times each)
    first = [key(s) for seed in range(400) for s in draw_settings(SPACES[model], 5, seed, model, constraints, 3)]
    counts = [first.count(k) for k in map(key, grid)]
    assert sum(counts) == 2000 and stats.chisquare(counts).pvalue > 1e-3
    if model not in TRAINERS:
        pytest.skip(f"the {model} trainer is not registered")
    assert set(SPACES[model]) <= set(trainer_params(model))


def test_d_vae_settings_meet_the_authors_constraints():
    drawn = [s for s, _ in draw_settings(SPACES["dvae"], 1000, 0, "dvae", CONSTRAINTS["dvae"])]
    assert len(drawn) == 264 and all(s["gamma_bn"] < s["epochs"] and s["gamma_kl"] < s["epochs"] for s in drawn)
    # Table 8 drawn parameter by parameter, as before: 5 of 16 (gamma_bn, gamma_kl, epochs) combinations
    # with epochs 200 break a constraint, about 31% of the draws
    assert {(s["gamma_bn"], s["gamma_kl"], s["epochs"]) for s in drawn} == {
        (bn, kl, e) for bn in (0, 1, 100, 200) for kl in (100, 200) for e in (200, 500) if bn < e and kl < e
    }
    with pytest.raises(InputError, match="no setting of dvae's ranges meets its constraints"):
        draw_settings({**SPACES["dvae"], "epochs": Choice((50,))}, 3, 0, "dvae", CONSTRAINTS["dvae"])
    with pytest.raises(InputError, match="broke its constraints"):
        draw_settings({**SPACES["dvae"], "epochs": LogUniform(1, 2)}, 3, 0, "dvae", CONSTRAINTS["dvae"])


@pytest.mark.parametrize(
    ("drawn", "cap", "expected"),
    [
        ({"epochs": 500, "gamma_bn": 200, "gamma_kl": 100}, 50, {"epochs": 50, "gamma_bn": 20, "gamma_kl": 10}),
        ({"epochs": 200, "gamma_bn": 0, "gamma_kl": 100}, 25, {"epochs": 25, "gamma_bn": 0, "gamma_kl": 12}),
        ({"epochs": 200, "gamma_bn": 1, "gamma_kl": 100}, 50, {"epochs": 50, "gamma_bn": 1, "gamma_kl": 25}),
        ({"epochs": 500, "gamma_bn": 200, "gamma_kl": 200}, 2, {"epochs": 2, "gamma_bn": 1, "gamma_kl": 1}),
        ({"epochs": 200, "gamma_bn": 100, "gamma_kl": 100}, 500, {"epochs": 200, "gamma_bn": 100, "gamma_kl": 100}),
        ({"epochs": 500}, 100, {"epochs": 100, "gamma_bn": 40, "gamma_kl": 40}),  # the defaults (200) scale too
    ],
)
def test_a_step_cap_scales_the_annealing_with_the_epochs(drawn, cap, expected):
    defaults = {"epochs": 500, "gamma_bn": 200, "gamma_kl": 200, "alpha": 0.01}
    assert cap_steps(drawn, "epochs", cap, defaults) == expected
    # lda-gibbs: MALLET's burn-in and optimisation interval are counted in sweeps and scale alike,
    # so that α and β are first re-estimated after the same share of the sweeps, as often
    gibbs = {"iterations": 1000, "optimize_burn_in": 200, "beta": 0.1}
    assert cap_steps({"iterations": 2000, "beta": 0.1, "optimize_interval": 500}, "iterations", 200, gibbs) == {
        "iterations": 200,
        "beta": 0.1,
        "optimize_interval": 50,
        "optimize_burn_in": 20,
    }
    assert cap_steps({"iterations": 1000, "optimize_interval": 0}, "iterations", 200, gibbs) == {
        "iterations": 200,
        "optimize_interval": 0,  # no optimisation stays none
        "optimize_burn_in": 40,
    }


def test_a_capped_g_lda_trial_reestimates_its_hyperparameters(inputs):
    """A capped sweep's G-LDA trials optimise α and β after the scaled burn-in, as often as drawn."""
    config = SweepConfig.from_mapping(
        {
            "corpus": "corpus",
            "reference": "index",
            "models": ["lda-gibbs"],
            "settings": 8,
            "max_steps": {"lda-gibbs": 100},
        },
        base=inputs,
    )
    trials = plan(config)
    for trial in trials:
        drawn, params = trial.drawn, trial.params
        factor = 100 / drawn["iterations"]
        assert params["iterations"] == 100 and params["optimize_burn_in"] == round(200 * factor)
        assert params["optimize_interval"] == max(1, round(drawn["optimize_interval"] * factor)) * (
            drawn["optimize_interval"] > 0
        )
    corpus = Corpus.load(inputs / "corpus")
    optimising = [t for t in trials if t.params["optimize_interval"] > 0]
    assert len({t.params["optimize_interval"] for t in optimising}) >= 2
    for trial in optimising:
        drawn, params = trial.drawn, trial.params
        model = lda_gibbs.fit(corpus, 4, 0, **{n: v for n, v in params.items() if n != "topics_from"})
        optimised = [sweep for sweep, _, _ in model.manifest["training"]["hyperparameters"]]
        burn_in, interval = params["optimize_burn_in"], params["optimize_interval"]
        assert optimised == [s for s in range(burn_in + 1, 101) if s % interval == 0] != []
        # as many re-estimations as the uncapped run would make, up to rounding
        uncapped = len([s for s in range(201, drawn["iterations"] + 1) if s % drawn["optimize_interval"] == 0])
        assert abs(len(optimised) - uncapped) <= max(2, 0.1 * uncapped), (drawn, params)


def test_g_lda_topics_come_from_the_last_sweep_unless_configured(inputs):
    data = {"corpus": "corpus", "reference": "index", "models": ["lda-gibbs"], "settings": 3}
    trials = plan(SweepConfig.from_mapping(data, base=inputs))
    assert {t.params["topics_from"] for t in trials} == {"last"}  # as the authors read MALLET's final state
    averaged = SweepConfig.from_mapping({**data, "space": {"lda-gibbs": {"topics_from": "average"}}}, base=inputs)
    assert {t.params["topics_from"] for t in plan(averaged)} == {"average"}
    # a fixed setting does not change the draws of Table 8's ranges
    assert [{n: t.drawn[n] for n in TABLE_8["lda-gibbs"]} for t in trials] == [
        {n: t.drawn[n] for n in TABLE_8["lda-gibbs"]} for t in plan(averaged)
    ]


def test_log_uniform_ranges_from_a_configuration(inputs):
    config = SweepConfig.from_mapping(
        {
            "corpus": "corpus",
            "reference": "index",
            "models": ["lda-vb"],
            "space": {
                "lda-vb": {"alpha": {"log_uniform": [0.001, 10.0]}, "eta": {"uniform": [0.01, 0.1]}, "method": "online"}
            },
        },
        base=inputs,
    )
    space = config.space("lda-vb")
    assert space["alpha"] == LogUniform(0.001, 10.0)
    settings = [setting for setting, _ in draw_settings(space, 500, seed=0, model="lda-vb")]
    logs = (np.log([s["alpha"] for s in settings]) - np.log(0.001)) / (np.log(10.0) - np.log(0.001))
    assert stats.kstest(logs, "uniform").pvalue > 1e-3
    assert stats.kstest([(s["eta"] - 0.01) / 0.09 for s in settings], "uniform").pvalue > 1e-3
    assert {s["method"] for s in settings} == {"online"}


def test_ranges_within_each_trainers_rules_read_up_to_their_open_ends(inputs):
    # [low, high) lies within 0.5 < kappa <= 1 and 0 <= dropout < 1; a choice at a closed end is taken
    space = {
        "lda-vb": {"kappa": {"uniform": [0.51, 1.0]}, "tau0": [0.0, 64.0], "eta": {"log_uniform": [1e-4, 1.0]}},
        "dvae": {"dropout": {"uniform": [0.0, 1.0]}, "gamma_bn": [0, 1]},
    }
    config = SweepConfig.from_mapping(
        {"corpus": "corpus", "reference": "index", "models": ["lda-vb", "dvae"], "space": space}, base=inputs
    )
    assert config.space("dvae")["gamma_bn"] == Choice((0, 1))
    drawn = [setting for setting, _ in draw_settings(config.space("lda-vb"), 200, seed=0, model="lda-vb")]
    lda_vb.fit(Corpus.from_documents([[0, 1], [1, 2]], Vocabulary(["a", "b", "c"])), 2, iterations=1, **drawn[0])
    assert all(0.51 <= s["kappa"] < 1.0 for s in drawn)


def test_every_trainer_parameter_of_a_number_or_a_name_has_a_rule():
    # the rules are what train, the CLI and a sweep's configuration check before any work; a parameter without
    # one would be checked only when its trial starts
    unruled = {
        model: sorted(
            name
            for name, default in trainer_params(model).items()
            if isinstance(default, (int, float, str)) and name not in trainer_rules(model)
        )
        for model in ("lda-gibbs", "lda-vb", "plsi", "ctm", "dvae", "etm")
    }
    assert unruled == {
        "lda-gibbs": [],
        "lda-vb": ["learn_alpha"],  # true or false: check_param_types
        "plsi": [],
        "ctm": [],
        "dvae": ["device"],  # auto, cpu, cuda or cuda:N: resolve_device
        "etm": ["device"],
    }


def test_the_example_configuration_reads():
    if not {"dvae", "etm"} <= set(TRAINERS):
        pytest.skip("the neural trainers are not registered")
    config = SweepConfig.from_toml(ROOT / "examples" / "sweep.toml")
    assert config.models == ("lda-gibbs", "dvae", "etm") and config.settings == 16
    # scored as the authors: gensim's counts, on a reference corpus other than the training one
    assert config.compat == "gensim" and config.uniqueness_filter == ("etm",)
    assert config.reference.name != config.corpus.name and config.corpus.name == "train"
    defaults = SweepConfig(config.corpus, config.reference)
    assert (defaults.compat, defaults.filter_topn, defaults.min_uniqueness) == ("gensim", 5, 0.7)
    assert (defaults.settings, defaults.replicates, defaults.uniqueness_filter) == (82, 3, ("etm",))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"models": ["lda-gibbs"], "setings": 3}, r"unknown key setings \(did you mean settings\?\)"),
        ({"models": ["nope"]}, "unknown model 'nope'"),
        ({"models": ["lda-vb"]}, r"no ranges for 'lda-vb': add a \[space.lda-vb\]"),
        ({"models": ["lda-gibbs"], "space": {"lda-gibbs": {"alpha": [1.0]}}}, "lda-gibbs has no parameter alpha"),
        (
            {"models": ["lda-gibbs"], "space": {"lda-gibbs": {"beta": {"log_uniform": [0, 1]}}}},
            "log_uniform needs 0 < low",
        ),
        (
            {"models": ["lda-gibbs"], "space": {"lda-gibbs": {"beta": {"normal": [0, 1]}}}},
            "unknown distribution 'normal'",
        ),
        ({"models": ["lda-gibbs"], "max_steps": {"lda-vb": 3}}, "which models does not list"),
        ({"models": ["lda-gibbs"], "settings": 0}, "settings must be a positive integer"),
        ({"models": ["lda-gibbs"], "score": {"on_missing": "drop"}}, "on_missing must be one of"),
        ({"models": ["lda-gibbs"], "score": {"overlap_topn": 5}}, r"\[score\] has unknown key overlap_topn"),
        ({"models": ["lda-gibbs"], "score": {"settings": 5}}, r"settings is a top-level setting: .* below \[score\]"),
        ({"models": ["lda-gibbs"], "score": {"uniqueness_filter": "etm"}}, "uniqueness_filter must be a list"),
        ({"models": ["lda-gibbs"], "constraints": {"lda-gibbs": [["beta", "<<", "alpha_sum"]]}}, "unknown operator"),
        ({"models": ["lda-gibbs"], "constraints": {"lda-gibbs": [["beta", "<"]]}}, r"must be \[parameter, op"),
        ({"models": ["lda-gibbs"], "replicates": 0}, "replicates must be a positive integer"),
        # found before any trial trains (each trial failed at its start, twice, with the retry)
        (
            {"models": ["lda-gibbs"], "space": {"lda-gibbs": {"alpha_sum": ["0.1"]}}},
            r"lda-gibbs's alpha_sum must be a finite number \(its default is 0.25\), got '0.1'",
        ),
        (
            {"models": ["lda-gibbs"], "space": {"lda-gibbs": {"iterations": 1000.5}}},
            r"lda-gibbs's iterations must be a whole number",
        ),
        # a range reaching values the trainer refuses: every trial that drew one failed at its start, twice
        (
            {"models": ["lda-gibbs"], "space": {"lda-gibbs": {"alpha_sum": {"uniform": [-1, 1]}}}},
            r"^space.lda-gibbs.alpha_sum: \{'uniform': \[-1.0, 1.0\]\} draws values lda-gibbs refuses; "
            r"it needs alpha_sum > 0$",
        ),
        (
            {"models": ["lda-gibbs"], "space": {"lda-gibbs": {"beta": [0.1, 0.0]}}},
            r"^space.lda-gibbs.beta: the choice 0.0 is a value lda-gibbs refuses; it needs beta > 0$",
        ),
        (
            {"models": ["lda-vb"], "space": {"lda-vb": {"kappa": {"uniform": [0.5, 1.0]}}}},
            r"kappa: .* lda-vb refuses; it needs 0.5 < kappa <= 1 \(Hoffman et al. 2010's condition",
        ),
        (
            {"models": ["lda-vb"], "space": {"lda-vb": {"kappa": {"uniform": [0.6, 1.5]}}}},
            r"draws values lda-vb refuses; it needs 0.5 < kappa <= 1",
        ),
        (
            {"models": ["lda-vb"], "space": {"lda-vb": {"method": ["batch", "stochastic"]}}},
            r"the choice 'stochastic' is a value lda-vb refuses; it needs method in \{batch, online\}$",
        ),
        (
            {"models": ["lda-gibbs"], "space": {"lda-gibbs": {"iterations": {"uniform": [100, 1000]}}}},
            r"^space.lda-gibbs.iterations: .* draws reals, and lda-gibbs's iterations is not one \(its default is "
            r"1000\); give a list of values$",
        ),
        (
            {"models": ["lda-gibbs"], "space": {"lda-gibbs": {"iterations": [500, 0]}}},
            r"the choice 0 is a value lda-gibbs refuses; it needs iterations >= 1 \(a whole number\)$",
        ),
        (
            {"models": ["lda-gibbs", "etm"], "k": 1, "space": {"etm": {"epochs": [10]}}},
            r"^etm needs k >= 2 \(a whole number; with one topic θ is always 1\), got 1$",
        ),
        # the filter's threshold was used as given: NaN dropped every model, "0.7" failed every trial's scoring
        ({"models": ["lda-gibbs"], "score": {"min_uniqueness": "0.7"}}, r"min_uniqueness must be .* got '0.7'$"),
        ({"models": ["lda-gibbs"], "score": {"min_uniqueness": float("nan")}}, r"min_uniqueness must be"),
        # a value where a table goes raised Python's "'int' object is not iterable" or "has no attribute 'items'"
        ({"models": ["lda-gibbs"], "score": 3}, r"^\[score\] must be a table of KEY = VALUE settings, got 3$"),
        ({"models": ["lda-gibbs"], "space": {"lda-gibbs": 0.1}}, r"^\[space.lda-gibbs\] must be a table"),
        ({"models": ["lda-gibbs"], "max_steps": 500}, r"^\[max_steps\] must be a table"),
        ({"models": ["lda-gibbs"], "constraints": {"lda-gibbs": 3}}, r"constraints.lda-gibbs must be a list of"),
        ({"models": ["lda-gibbs"], "corpus": 3}, r"^corpus must be a folder's path, got 3$"),
    ],
)
def test_bad_configurations_are_refused_with_the_reason(inputs, data, message):
    with pytest.raises(InputError, match=message):
        SweepConfig.from_mapping({"corpus": "corpus", "reference": "index", **data}, base=inputs)


def test_a_sweep_whose_every_trial_failed_is_an_error_that_says_why(inputs, flaky, tmp_path):
    # every trial failed at its start (a prior the trainer refuses) and the sweep exited 0, selecting nothing,
    # its table's "failed" column the only sign; scikit-learn's GridSearchCV raises when all its fits fail
    toml = tmp_path / "sweep.toml"
    toml.write_text(
        f'corpus = "{inputs / "corpus"}"\nreference = "{inputs / "index"}"\nmodels = ["flaky"]\nsettings = 2\n'
        'k = 4\n[space.flaky]\nfail = "always"\niterations = [10, 20]\n'
    )
    with pytest.raises(EmptyResultError, match=r"every trial of the sweep failed \(2\): RuntimeError: planted failure"):
        sweep(SweepConfig.from_toml(toml), tmp_path / "api", scheduler=None, workers=1)
    manifest = json.loads((tmp_path / "api" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["stats"]["failed"] == 2  # the folder is written all the same
    done = CliRunner().invoke(app, ["sweep", str(toml), "--out", str(tmp_path / "cli"), "--workers", "1"])
    assert done.exit_code == 2, done.output
    assert "every trial of the sweep failed (2): RuntimeError: planted failure (always) (2 trials)" in done.stderr
    assert "--retry-failed once the cause is gone" in done.stderr and "--force" in done.stderr


def test_cli_resumes_a_finished_sweep_and_reports_the_selection(cluster_sweep, flaky, tmp_path):
    config, result, _ = cluster_sweep
    toml = tmp_path / "sweep.toml"
    toml.write_text(
        f'corpus = "{config.corpus}"\nreference = "{config.reference}"\nmodels = ["flaky"]\nsettings = 4\nk = 4\n'
        f'seed = {config.seed}\n[space.flaky]\nfail = ["never", "once", "always"]\niterations = [10, 20, 30]\n'
    )
    runner = CliRunner()
    done = runner.invoke(app, ["sweep", str(toml), "--out", str(result.out), "--json"])
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert payload["selected"] == result.selected and payload["trained"] == 0 and len(payload["trials"]) == 4
    shown = runner.invoke(app, ["sweep", str(toml), "--out", str(result.out)])
    assert shown.exit_code == 0 and result.selected["flaky"] in shown.stdout and "resumed" in shown.stdout
    assert "warning: 1 of 4 trials failed: RuntimeError: planted failure (always) (1 trial)" in shown.stderr
    assert "--retry-failed trains them again" in shown.stderr
    bad = runner.invoke(app, ["sweep", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "not found" in bad.output


def test_the_neural_trainers_sweep_with_table_8_names(inputs, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("gensim")
    if not {"dvae", "etm"} <= set(TRAINERS):
        pytest.skip("the neural trainers are not registered")
    config = SweepConfig.from_mapping(
        {
            "corpus": "corpus",
            "reference": "index",
            "models": ["dvae", "etm"],
            "settings": 1,
            "k": 4,
            "max_steps": {"dvae": 2, "etm": 2},
            "space": {"dvae": {"batch_size": 40}, "etm": {"embedding_dim": 20, "encoder_dim": 50, "batch_size": 40}},
        },
        base=inputs,
    )
    result = sweep(config, tmp_path / "sweep", scheduler=None, workers=1)
    for record in result.records:
        assert record["status"] == "ok", record["errors"]
        assert record["params"]["epochs"] == 2 and record["drawn"]["epochs"] in TABLE_8[record["model"]]["epochs"]
        assert all(record["drawn"][name] in values for name, values in TABLE_8[record["model"]].items())
        assert np.isfinite(record["scores"]["npmi"]) and 0 < record["scores"]["topic_uniqueness"] <= 1
        assert record["scores"]["uniqueness_filter"] == (record["model"] == "etm")
        if record["model"] == "dvae":  # the annealing ends within the 2 epochs: gamma 0 stays 0, any other is 1
            assert record["params"]["gamma_kl"] == 1
            assert record["params"]["gamma_bn"] == min(record["drawn"]["gamma_bn"], 1)


@pytest.mark.parametrize(
    ("model", "space"),
    [
        ("etm", {"embedding_dim": 20, "encoder_dim": 50, "batch_size": 40, "device": "cpu"}),
        ("dvae", {"encoder_dim": 20, "batch_size": 40, "device": "cpu"}),
    ],
)
def test_neural_trials_packed_into_one_batch_record_what_they_record_alone(inputs, tmp_path, model, space):
    pytest.importorskip("torch")
    if model == "etm":
        pytest.importorskip("gensim")
    from tealeaves.model_selection.packing import pack_trials

    mapping = {
        "corpus": "corpus",
        "reference": "index",
        "models": [model],
        "settings": 3,
        "replicates": 1,
        "k": 4,
        "max_steps": {model: 2},  # every trial 2 epochs: one shape
        "space": {model: space},
    }
    alone = SweepConfig.from_mapping(mapping, base=inputs)
    packed = SweepConfig.from_mapping({**mapping, "batch_trials": 3}, base=inputs)
    assert [len(p) for p in pack_trials(plan(packed), 3, 8e9)] == [3]
    assert [len(p) for p in pack_trials(plan(packed), 3, 1e4)] == [1, 1, 1]  # no two trials fit in 10 kB
    one = sweep(alone, tmp_path / "alone", scheduler=None, workers=1)
    many = sweep(packed, tmp_path / "packed", scheduler=None, workers=1)
    assert len(one.records) == len(many.records) == 3
    for a, b in zip(one.records, many.records):
        assert b["status"] == "ok", b["errors"]
        assert b["params"] == a["params"]
        assert a["top_words"] == b["top_words"]
        assert a["scores"]["npmi"] == pytest.approx(b["scores"]["npmi"], abs=1e-9)
    assert one.selected == many.selected
