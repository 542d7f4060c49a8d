"""``train``'s memory check: each trainer's ``cell_bytes`` is a lower bound of its measured peak, close to it,
and a model whose matrices alone exceed the available memory is refused before anything is allocated."""

from __future__ import annotations

import os
import re
import tracemalloc

import numpy as np
import pytest

from tealeaves.errors import InputError
from tealeaves.models import TRAINERS, train, trainer_params, trainer_rules, training
from tealeaves.models.training import available_memory, memory_needed
from tests.models.planted import lda_corpus

QUICK = {
    "lda-gibbs": {"iterations": 2, "average_last": 1, "optimize_burn_in": 0, "optimize_interval": 1},
    "lda-vb": {"iterations": 1, "e_step_iterations": 2},
    "plsi": {"iterations": 1},
    "ctm": {"iterations": 1, "e_step_iterations": 2, "init_iterations": 1},
}


def peak(corpus, model: str, k: int) -> int:
    """The most bytes ``train`` held at once (``tracemalloc``: numpy's arrays included)."""
    tracemalloc.start()
    try:
        train(corpus, model, k=k, **QUICK[model])
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("model", sorted(QUICK))
def test_cell_bytes_are_a_lower_bound_of_the_peak(model):
    # a vocabulary-heavy and a document-heavy corpus of short documents (the peak least above the matrices)
    wide, _, _ = lda_corpus(k=5, v=3000, n_docs=200, length=40, seed=1)
    tall, _, _ = lda_corpus(k=5, v=200, n_docs=3000, length=40, seed=1)
    train(tall, model, k=2, **QUICK[model])  # compiled and warm: the peaks below are the trainer's alone
    for corpus in (wide, tall):
        assert memory_needed(model, 80, len(corpus.vocab), len(corpus)) <= peak(
            corpus, model, 80
        )  # never refuses what fits
    # and not vacuous: at least half of the peak where the topic-word matrices dominate
    assert peak(wide, model, 80) <= 2 * memory_needed(model, 80, len(wide.vocab), len(wide))


def test_a_model_too_large_for_the_memory_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    corpus, _, _ = lda_corpus(k=3, v=200, n_docs=100, length=30, seed=2)
    needed = memory_needed("lda-gibbs", 50, 200, 100)
    assert needed == 50 * (20 * 200 + 20 * 100)
    monkeypatch.setattr(training, "available_memory", lambda: needed - 1)
    with pytest.raises(
        InputError, match=r"lda-gibbs with k = 50 topics over 200 words and 100 documents needs.*\(k=<fewer>\)"
    ):
        train(corpus, "lda-gibbs", k=50, out=tmp_path / "m", iterations=5)
    assert not (tmp_path / "m").exists()
    monkeypatch.setattr(training, "available_memory", lambda: needed)
    assert train(corpus, "lda-gibbs", k=50, out=tmp_path / "m", iterations=5).k == 50
    monkeypatch.setattr(training, "available_memory", lambda: None)  # unknown: no check
    assert train(corpus, "plsi", k=50, iterations=2).k == 50


@pytest.mark.skipif(not os.path.exists("/proc/meminfo"), reason="reads Linux's /proc/meminfo")
def test_available_memory_is_what_the_system_reports():
    available = available_memory()
    assert available is not None and available > 0
    with open("/proc/meminfo", encoding="ascii") as lines:
        fields = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in lines}
    assert abs(available - fields["MemAvailable"] - fields["SwapFree"]) < 0.05 * fields["MemTotal"]


def test_a_hyperparameter_of_the_wrong_type_is_refused_before_training(tmp_path):
    """Every trainer's every parameter with an int, float, bool or str default: a value of another type (the
    command line's ``-p beta=abc`` is the string 'abc', ``-p beta=NaN`` a NaN) is refused naming the parameter,
    what it must be and its default, and nothing is written; NumPy numbers and an int for a float pass. Before,
    'abc' raised TypeError from inside the trainer, and a NaN prior trained for its whole run."""
    corpus, _, _ = lda_corpus(k=2, v=20, n_docs=10, length=10, seed=0)
    wrong = {bool: "yes", int: 2.5, float: float("nan"), str: 3}
    wanted = {bool: "true or false", int: "a whole number", float: "a finite number", str: "a string"}
    for model in training.TRAINERS:
        for name, default in training.trainer_params(model).items():
            kind = type(default)
            if kind not in wrong:
                continue
            with pytest.raises(InputError, match=f"^{model}'s {name} must be {wanted[kind]} .*, got "):
                train(corpus, model, k=2, out=tmp_path / "m", **{name: wrong[kind]})
            assert not (tmp_path / "m").exists()
    model = train(corpus, "lda-gibbs", k=np.int64(2), beta=np.float32(0.5), alpha_sum=1, iterations=np.int64(3))
    assert model.params["beta"] == 0.5 and model.params["alpha_sum"] == 1


def test_texts_as_gensim_keeps_them_train_as_their_corpus(tmp_path):
    """Token lists and a gensim Dictionary with its bags of words train exactly as the Corpus as_corpus makes of
    them; raw strings and a document-term matrix are refused in one line and nothing is written. Before, each
    raised "TypeError: expected str, bytes or os.PathLike object" from Corpus.load."""
    from tealeaves.corpus import as_corpus

    corpus, _, _ = lda_corpus(k=2, v=20, n_docs=30, length=12, seed=0)
    texts = corpus.texts()
    quick = QUICK["lda-gibbs"]
    expected = train(as_corpus(texts), "lda-gibbs", k=2, seed=3, **quick)
    from_texts = train(texts, "lda-gibbs", k=2, seed=3, **quick)
    np.testing.assert_array_equal(from_texts.phi, expected.phi)
    assert from_texts.vocab == expected.vocab
    gensim = pytest.importorskip("gensim")
    dictionary = gensim.corpora.Dictionary(texts)
    bags = [dictionary.doc2bow(text) for text in texts]
    pair = (dictionary, bags)
    np.testing.assert_array_equal(
        train(pair, "lda-vb", k=2, seed=0, iterations=2).phi,
        train(as_corpus(pair), "lda-vb", k=2, seed=0, iterations=2).phi,
    )
    for given, message in [
        ([" ".join(text) for text in texts], "texts must be token lists .* not strings: split each text"),
        (corpus.doc_term_matrix(), r"a scipy csr_matrix of shape \(30, 20\) is a document-term matrix"),
        (corpus.doc_term_matrix().toarray(), r"a numpy ndarray of shape \(30, 20\) is a document-term matrix"),
    ]:
        with pytest.raises(InputError, match=message) as refused:
            train(given, "lda-gibbs", k=2, out=tmp_path / "m", **quick)
        assert "\n" not in str(refused.value)
        assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("model", "param", "value", "rule"),
    [
        ("lda-gibbs", "beta", -1.0, "beta > 0"),
        ("lda-gibbs", "workers", 0, r"workers >= 1 \(a whole number\)"),
        ("lda-gibbs", "optimize_interval", -5, r"optimize_interval >= 0 \(a whole number\)"),
        ("lda-vb", "eta", 0.0, "eta > 0"),
        ("lda-vb", "e_step_tol", -1e-3, "e_step_tol > 0"),
        ("plsi", "smoothing", 0.0, r"smoothing > 0 \(Chang et al. use 1\)"),
        ("ctm", "init_iterations", 0, r"init_iterations >= 1 \(a whole number\)"),
    ],
)
def test_a_hyperparameter_out_of_range_is_named_with_its_rule(model, param, value, rule):
    """One rule and the value given, where one message listed every condition of the trainer."""
    corpus, _, _ = lda_corpus(k=2, v=20, n_docs=10, length=10, seed=0)
    with pytest.raises(InputError, match=rf"^{model} needs {rule}, got {value!r}$"):
        train(corpus, model, k=2, **{param: value})


@pytest.mark.parametrize(
    ("model", "given", "named"),
    [
        ("lda-vb", "decay", "decay (gensim's name for kappa)"),
        ("lda-vb", "learning_offset", "learning_offset (scikit-learn's name for tau0)"),
        ("lda-vb", "passes", "passes (gensim's name for iterations)"),
        ("lda-vb", "n_components", "n_components (scikit-learn's name for k)"),
        ("lda-gibbs", "alpha", "alpha (MALLET's name for alpha_sum)"),
        ("lda-gibbs", "num_threads", "num_threads (MALLET's name for workers)"),
        ("etm", "rho_size", "rho_size (Dieng et al.'s name for embedding_dim)"),
        ("plsi", "random_state", "random_state (scikit-learn's and gensim's name for seed)"),
        ("lda-vb", "kapa", "kapa (did you mean kappa?)"),
    ],
)
def test_another_tools_name_for_a_hyperparameter_is_refused_with_ours(model, given, named):
    # a gensim, scikit-learn or MALLET user writes the names they know; each names what it means here
    corpus, _, _ = lda_corpus(k=2, v=20, n_docs=10, length=10, seed=0)
    with pytest.raises(InputError, match=rf"^{model} has no parameter {re.escape(named)}; its parameters are "):
        train(corpus, model, k=2, **{given: 1})


def test_every_other_name_is_unused_here_and_means_one_of_ours():
    from tealeaves.models.hyperparameters import named_elsewhere

    for model in TRAINERS:
        accepted, elsewhere = trainer_params(model), named_elsewhere(trainer_rules(model))
        assert not set(elsewhere) & set(accepted), model  # an alias never shadows a parameter of ours
        assert {ours for ours, _ in elsewhere.values()} <= set(accepted) | {"k", "seed"}, model
