"""The kernels' random streams: reproducible, and with the right distributions."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numba import njit
from scipy.special import digamma, polygamma

from tealeaves import rng, streams
from tealeaves.analysis import (
    RaggedScores,
    bootstrap_correlations,
    equivalence_margin,
    false_discovery_rates,
    simulate_power,
    split_half,
    topic_level_power,
)
from tealeaves.coherence import RefIndex
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.corpus.corpus import split_indices
from tealeaves.errors import InputError
from tealeaves.intrusion import compare_word_intrusion, intruder_sets
from tealeaves.likelihood import COMPLETION_METHODS, METHODS
from tealeaves.models import TopicModel, train
from tealeaves.study import create_study


@njit
def uniforms(seed, index, n):
    state = streams.stream(seed, index)
    out = np.empty(n)
    for i in range(n):
        out[i] = streams.uniform(state)
    return out


@njit
def gammas(seed, shape, n):
    state = streams.stream(seed, 0)
    out = np.empty(n)
    for i in range(n):
        out[i] = streams.log_gamma(shape, state)
    return out


@njit
def categorical_counts(seed, weights, n):
    state = streams.stream(seed, 0)
    out = np.zeros(weights.shape[0])
    for _ in range(n):
        out[streams.categorical(weights, state)] += 1
    return out


@njit
def dirichlet_mean(seed, alpha, n):
    state = streams.stream(seed, 0)
    out = np.zeros(alpha.shape[0])
    tmp = np.empty(alpha.shape[0])
    for _ in range(n):
        streams.dirichlet(alpha, state, tmp)
        out += tmp
    return out / n


def test_streams_are_reproducible_and_distinct():
    assert np.array_equal(uniforms(1, 2, 100), uniforms(1, 2, 100))
    assert not np.array_equal(uniforms(1, 2, 100), uniforms(1, 3, 100))
    assert not np.array_equal(uniforms(1, 2, 100), uniforms(2, 2, 100))
    u = uniforms(7, 0, 200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.003 and abs(u.var() - 1 / 12) < 0.002
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.01


@pytest.mark.parametrize("shape", [0.01, 0.3, 1.0, 4.5])
def test_gamma_moments(shape):
    logs = gammas(3, shape, 200_000)
    draws = np.exp(logs)
    assert abs(draws.mean() - shape) < 5 * np.sqrt(shape / 200_000)
    # E[log G] = digamma(shape), Var[log G] = trigamma(shape)
    assert abs(logs.mean() - digamma(shape)) < 5 * np.sqrt(polygamma(1, shape) / 200_000)
    assert logs.var() == pytest.approx(polygamma(1, shape), rel=0.05)


def test_tiny_gamma_shapes_never_underflow():
    logs = gammas(0, 0.001, 10_000)
    assert np.all(np.isfinite(logs))


def test_categorical_frequencies():
    weights = np.array([0.1, 0.0, 0.6, 0.3])
    freq = categorical_counts(0, weights, 200_000) / 200_000
    assert freq[1] == 0 and np.allclose(freq, weights, atol=0.005)


def test_dirichlet_mean_even_for_small_alpha():
    alpha = np.array([0.01, 0.02, 0.05])
    assert np.allclose(dirichlet_mean(0, alpha, 100_000), alpha / alpha.sum(), atol=0.01)


def test_as_seed():
    assert rng.as_seed(5) == 5
    generator = np.random.default_rng(0)
    assert 0 <= rng.as_seed(generator) < 2**63
    with pytest.raises(InputError):
        rng.as_seed(-1)


# Every stream family the package draws from, with the public function that owns it (one purpose
# per function, several for create_study). A function that hands its seed to one of these draws
# what that one draws: prepare(heldout=...) through Corpus.split, likelihood.complete and
# predictive (their random splits) through Corpus.halves, auto_word_intrusion and study items
# through intruder_sets, ctm.fit's start through plsi.fit, annotators_needed and power_curve
# through simulate_power (common random numbers, on purpose).
FAMILIES = [
    ("synthetic corpus", "tealeaves.likelihood.synthetic_corpus"),
    ("perturb topics", "tealeaves.likelihood.perturb_topics"),
    ("perturb base measure", "tealeaves.likelihood.perturb_base_measure"),
    ("bootstrap runs", "tealeaves.likelihood.bootstrap_sd"),
    ("gibbs inference", "tealeaves.models.TopicModel.infer"),
    *((f"estimate {name}", "tealeaves.likelihood.estimation") for name in METHODS),
    *((f"complete {name}", "tealeaves.likelihood.complete") for name in COMPLETION_METHODS),
    ("corpus split", "tealeaves.corpus.Corpus.split"),
    ("corpus halves", "tealeaves.corpus.Corpus.halves"),
    ("intruder sets", "tealeaves.intrusion.intruder_sets"),
    ("intrusion folds", "tealeaves.intrusion.compare_word_intrusion"),
    ("train lda-gibbs", "tealeaves.models.lda_gibbs.fit"),
    ("train lda-vb", "tealeaves.models.lda_vb.fit"),
    ("train plsi", "tealeaves.models.plsi.fit"),
    ("classification folds", "tealeaves.models.classification.classify"),
    ("split-half agreement", "tealeaves.analysis.split_half"),
    ("false discovery rates", "tealeaves.analysis.false_discovery_rates"),
    ("bootstrap correlations", "tealeaves.analysis.bootstrap_correlations"),
    ("simulate power", "tealeaves.analysis.simulate_power"),
    ("topic-level power", "tealeaves.analysis.topic_level_power"),
    ("equivalence margin", "tealeaves.analysis.equivalence_margin"),
    ("study topic selection", "tealeaves.study.create_study"),
    ("study item draws", "tealeaves.study.create_study"),
    ("study attention checks", "tealeaves.study.create_study"),
    ("study item order", "tealeaves.study.create_study"),
    ("paired bootstrap", "tealeaves.analysis.paired_bootstrap"),
    ("cluster bootstrap", "tealeaves.analysis.cluster_bootstrap_comparison"),
    ("topic bootstrap", "tealeaves.analysis.topic_bootstrap_correlations"),
    ("bootstrap-t interval", "tealeaves.stats.bootstrap_t_interval"),  # one fixed stream (seed 0)
    ("evaluate bootstrap lda-gibbs npmi", "tealeaves.evaluation.evaluate"),
    ("evaluate permutation wi-auto lda-gibbs lda-vb", "tealeaves.evaluation.evaluate"),
    ("evaluate randomisation topic_uniqueness lda-gibbs lda-vb", "tealeaves.evaluation.evaluate"),
    ("evaluate delete-d topic_uniqueness lda-gibbs", "tealeaves.evaluation.evaluate"),
    ("evaluate report family", "tealeaves.evaluation.evaluate"),
    ("evaluate runs swaps heldout_log_likelihood lda-gibbs lda-vb", "tealeaves.evaluation.evaluate"),
    ("evaluate runs resamples heldout_log_likelihood lda-gibbs", "tealeaves.evaluation.evaluate"),
    ("calibration independent 20 0.0", "tealeaves.evaluation.calibration.rejection"),
    ("calibration coverage paired 20", "tealeaves.evaluation.calibration.coverage"),
    ("calibration shapes bootstrap-t 20 opposite skews", "tealeaves.evaluation.calibration.shape_rejection"),
    ("calibration heavy documents paired t 20", "tealeaves.evaluation.calibration.document_rejection"),
    ("calibration bounded ceiling 10", "tealeaves.evaluation.calibration.bounded_intervals"),
    ("calibration report 4 20 0.5", "tealeaves.evaluation.calibration.report_rejection"),
    ("calibration evaluate 4 10", "tealeaves.evaluation.calibration.evaluation_rejection"),
    ("runs null independent 20 3", "tealeaves.evaluation.calibration_runs.runs_rejection"),
    ("runs coverage paired 200 3", "tealeaves.evaluation.calibration_runs.runs_coverage"),
    ("runs simultaneous coverage 20 3 4", "tealeaves.evaluation.calibration_runs.runs_simultaneous_coverage"),
    ("runs bounded coverage near 1 3", "tealeaves.evaluation.calibration_runs.runs_bounded_coverage"),
    ("train dvae", "tealeaves.models.neural.dvae.fit"),
    ("train dvae minibatches", "tealeaves.models.neural.dvae.fit"),
    ("dvae network", "tealeaves.models.neural.dvae.infer"),
    ("train etm", "tealeaves.models.neural.etm.fit"),
    ("train etm minibatches", "tealeaves.models.neural.etm.fit"),
    ("train etm validation", "tealeaves.models.neural.etm.fit"),
    ("etm network", "tealeaves.models.neural.etm.infer"),
    ("etm skip-gram", "tealeaves.models.neural.etm.skip_gram_embeddings"),
    ("etm unseen words", "tealeaves.models.neural.etm.skip_gram_embeddings"),
    ("sweep/dvae/grid", "tealeaves.model_selection.draw_settings"),
    ("sweep/dvae/0", "tealeaves.model_selection.draw_settings"),
    ("sweep/dvae/replicate/0", "tealeaves.model_selection.plan"),
]
PURPOSES = [purpose for purpose, _ in FAMILIES]
SOURCE = Path(rng.__file__).parent


def test_every_purpose_has_its_own_stream_family():
    assert len(set(PURPOSES)) == len(PURPOSES), "two functions registered with the same purpose"
    # no two purposes share a seed (a 63-bit hash each) or a first draw, for any of 50 seeds
    seeds = {(seed, p): rng.family_seed(seed, p) for seed in range(50) for p in PURPOSES}
    assert len(set(seeds.values())) == len(seeds) and all(0 <= s < 2**63 for s in seeds.values())
    first = {(seed, p): tuple(rng.family_generator(seed, p).random(2)) for seed in range(50) for p in PURPOSES}
    assert len(set(first.values())) == len(first)
    assert rng.family_seed(3, "synthetic corpus") == rng.family_seed(3, "synthetic corpus")
    assert rng.family_seed(np.random.default_rng(5), "x") == rng.family_seed(np.random.default_rng(5), "x")
    assert not np.array_equal(uniforms(rng.family_seed(0, "synthetic corpus"), 0, 10), uniforms(0, 0, 10))
    same = rng.family_generator(7, "perturb topics").random(3)
    assert np.array_equal(same, rng.family_generator(7, "perturb topics").random(3))
    assert not np.array_equal(same, rng.family_generator(7, "perturb base measure").random(3))
    with pytest.raises(InputError):
        rng.family_seed(-1, "synthetic corpus")


def _purpose_pattern(node: ast.expr) -> str | None:
    """A purpose as a regex: a string, or an f-string with its fields as ``.+``; None for a variable."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.escape(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in node.values)
    return None


def _called(node: ast.Call) -> str:
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")


def _argument(node: ast.Call, position: int, name: str) -> ast.expr | None:
    if len(node.args) > position:
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg == name), None)


def _purpose_sites(trees: dict[str, ast.Module]) -> dict[str, list[str]]:
    """Where each purpose is named: in a family_seed / family_generator call, or, when such a call
    takes its purpose from a parameter of the enclosing function (likelihood's ``run``), in the
    calls of that function."""
    takers = {"family_seed": (1, "purpose"), "family_generator": (1, "purpose")}
    for tree in trees.values():
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            params = [a.arg for a in function.args.args]
            for call in (n for n in ast.walk(function) if isinstance(n, ast.Call) and _called(n) in takers):
                purpose = _argument(call, *takers[_called(call)])
                if isinstance(purpose, ast.Name) and purpose.id in params and function.name not in takers:
                    takers[function.name] = (params.index(purpose.id), purpose.id)
    sites: dict[str, list[str]] = {}
    for where, tree in trees.items():
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and _called(n) in takers):
            purpose = _argument(call, *takers[_called(call)])
            pattern = None if purpose is None else _purpose_pattern(purpose)
            if pattern is not None and where != "tealeaves/rng.py":
                sites.setdefault(pattern, []).append(f"{where}:{call.lineno}")
    return sites


def test_the_source_draws_only_from_registered_families():
    """Every purpose the package names is registered, named at one call site, and no registered
    purpose is unused; and no module outside tealeaves.rng seeds numpy itself (a bare
    ``default_rng(seed)`` is the stream every other function called with the same seed would share)."""
    trees = {
        path.relative_to(SOURCE.parent).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(SOURCE.rglob("*.py"))
    }
    # tealeaves.rng makes the families; run_seed derives run r's seed from a family seed (spawn key (r,))
    allowed = {("tealeaves/rng.py", "default_rng"), ("tealeaves/rng.py", "SeedSequence")}
    allowed.add(("tealeaves/likelihood/uncertainty.py", "SeedSequence"))
    # a torch.Generator that takes over a trial's torch_session stream (its state copied, never seeded)
    allowed.add(("tealeaves/models/neural/batched.py", "Generator"))
    numpy_seeding = {"default_rng", "RandomState", "SeedSequence", "Generator", "PCG64", "MT19937"}
    bare = [
        f"{where}:{node.lineno} {_called(node)}"
        for where, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called(node) in numpy_seeding and (where, _called(node)) not in allowed
    ]
    assert bare == [], "seed numpy through tealeaves.rng.family_generator instead"
    sites = _purpose_sites(trees)
    assert {p: s for p, s in sites.items() if len(s) > 1} == {}, "a purpose named at two call sites"
    for pattern, where in sites.items():
        assert any(re.fullmatch(pattern, p) for p in PURPOSES), f"purpose {pattern} at {where} is not in FAMILIES"
    for purpose in PURPOSES:
        assert any(re.fullmatch(pattern, purpose) for pattern in sites), f"no function draws from {purpose!r}"


@pytest.fixture
def seeded_streams(monkeypatch):
    """``seeded_streams(call)`` runs ``call`` and returns the starting states of the numpy
    generators it seeded (spying on ``numpy.random.default_rng``; a Generator passed in is not
    a new stream). Two calls that return a common state draw the same numbers."""
    real = np.random.default_rng
    made: list[int] = []

    def spy(seed=None):
        generator = real(seed)
        if not isinstance(seed, np.random.Generator):
            made.append(generator.bit_generator.state["state"]["state"])
        return generator

    monkeypatch.setattr(np.random, "default_rng", spy)

    def states(call) -> set[int]:
        made.clear()
        call()
        return set(made)

    return states


VOCAB = Vocabulary([f"w{i:02d}" for i in range(40)])
TOPICS = [[f"w{10 * k + j:02d}" for j in range(10)] for k in range(4)]  # topic k: words 10k..10k+9


def small_corpus() -> Corpus:
    # document d: 4 to 9 words of topic d % 4's block, starting at a rotating word (every word occurs)
    docs = [np.roll(np.arange(10 * (d % 4), 10 * (d % 4) + 10), d)[: 4 + d % 6] for d in range(40)]
    return Corpus.from_documents(docs, VOCAB)


def test_corpus_split_and_intruder_sets_draw_from_different_streams(seeded_streams):
    # issue 12: both drew from numpy.random.default_rng(seed), so Corpus.split(seed=0)'s permutation
    # and intruder_sets(seed=0)'s first draws came from one generator state
    corpus = small_corpus()
    split = seeded_streams(lambda: corpus.split(0.25, seed=0))
    sets = seeded_streams(lambda: intruder_sets(TOPICS, draws=2, seed=0))
    assert split and sets and not split & sets
    order = rng.family_generator(0, "corpus split").permutation(len(corpus))
    train, held = split_indices(len(corpus), 0.25, seed=0)
    assert np.array_equal(held, np.sort(order[:10])) and np.array_equal(train, np.sort(order[10:]))
    generator = np.random.default_rng(3)  # a Generator is still accepted, and gives a split of its own draw
    assert np.array_equal(split_indices(40, 0.25, generator)[1], split_indices(40, 0.25, np.random.default_rng(3))[1])


def test_no_two_public_functions_seed_the_same_stream(seeded_streams):
    """Each public function that seeds numpy itself, called with seed=0: no two start a generator
    in the same state (on the code before families, every one of them started default_rng(0))."""
    corpus = small_corpus()
    index = RefIndex.build(corpus)
    ready = {"a": intruder_sets(TOPICS, seed=1), "b": intruder_sets(TOPICS[::-1], seed=2)}  # no draws at seed 0
    human = RaggedScores([np.array([1.0, 2.0, 3.0, 2.0]) + t % 3 for t in range(6)])
    metrics = pd.DataFrame({"m": np.arange(6.0)})
    items, scores = np.repeat(np.arange(5), 4), np.tile([1.0, 2.0, 2.0, 3.0], 5) + np.repeat(np.arange(5), 4)
    # 12 topics, topic k on words 10k..10k+9: enough topics for synthetic attention checks of 10 words
    phi = np.kron(np.eye(12), np.linspace(1.0, 0.5, 10)) + 0.001
    model = TopicModel(Vocabulary([f"v{i:03d}" for i in range(120)]), phi / phi.sum(axis=1, keepdims=True))
    calls = {
        "Corpus.split": lambda: corpus.split(0.25, seed=0),
        "Corpus.halves": lambda: corpus.halves("random", seed=0),
        "intruder_sets": lambda: intruder_sets(TOPICS, seed=0),
        "compare_word_intrusion (folds)": lambda: compare_word_intrusion(ready, index, seed=0, folds=2),
        "lda-vb": lambda: train(corpus, "lda-vb", k=2, seed=0, iterations=1),
        "plsi": lambda: train(corpus, "plsi", k=2, seed=0, iterations=1),
        "split_half": lambda: split_half(items, scores, n_splits=2, seed=0),
        "false_discovery_rates": lambda: false_discovery_rates("rating", human, metrics, {"m": 0.1}, k=3, n_iter=5),
        "bootstrap_correlations": lambda: bootstrap_correlations(human, metrics, n_resamples=5, seed=0),
        "simulate_power": lambda: simulate_power("rating", 15, n_sim=50, seed=0),
        "topic_level_power": lambda: topic_level_power("rating", 15, n_sim=50, seed=0),
        "equivalence_margin": lambda: equivalence_margin("rating", 15, n_sim=50, seed=0),
        "create_study": lambda: create_study([model], "rating", seed=0, checks=2),
    }
    seeded = {name: seeded_streams(call) for name, call in calls.items()}
    assert all(seeded.values()), [name for name, states in seeded.items() if not states]
    shared = [(a, b) for (a, sa), (b, sb) in itertools.combinations(seeded.items(), 2) if sa & sb]
    assert shared == [], "these functions draw from the same stream"
    assert len(seeded["create_study"]) == 4  # topics, item draws, checks and order: a family each
