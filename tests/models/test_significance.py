"""Topic significance: the three KL divergences against a brute-force sum and hand-computed values."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.models import SignificanceResult, TopicModel, topic_significance
from tealeaves.results import write_result

runner = CliRunner()
WORDS = ["tax", "budget", "war", "peace", "farm"]


def brute_force(phi: np.ndarray, theta: np.ndarray, epsilon: float) -> dict[str, list[float]]:
    """The formulas of the docstring, one term at a time: KL_ε(p || q) = Σ_i (p_i + ε) ln((p_i + ε) / (q_i + ε))."""

    def kl(p: list[float], q: list[float]) -> float:
        return sum(
            0.0 if a + epsilon == 0 else (a + epsilon) * math.log((a + epsilon) / (b + epsilon)) for a, b in zip(p, q)
        )

    k, v = phi.shape
    d = len(theta)
    weight = [sum(theta[i][j] for i in range(d)) / d for j in range(k)]
    vacuous = [sum(weight[j] * phi[j][w] for j in range(k)) for w in range(v)]
    out: dict[str, list[float]] = {"kl_uniform": [], "kl_vacuous": [], "kl_background": []}
    for j in range(k):
        out["kl_uniform"].append(kl(list(phi[j]), [1 / v] * v))
        out["kl_vacuous"].append(kl(list(phi[j]), vacuous))
        total = sum(theta[i][j] for i in range(d))
        spread = [theta[i][j] / total for i in range(d)] if total > 0 else [1 / d] * d
        out["kl_background"].append(kl(spread, [1 / d] * d))
    return out


@pytest.fixture
def model() -> TopicModel:
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(5, 0.5), size=3)
    theta = rng.dirichlet(np.full(3, 0.4), size=7)
    return TopicModel(Vocabulary(WORDS), phi, theta=theta, kind="test")


@pytest.mark.parametrize("epsilon", [1e-5, 0.0, 0.01])
def test_every_divergence_equals_the_brute_force_sum(model, epsilon):
    result = topic_significance(model, epsilon=epsilon)
    expected = brute_force(model.phi, model.theta, epsilon)
    for name, values in expected.items():
        np.testing.assert_allclose(getattr(result, name), values, rtol=1e-12, atol=1e-15)
        assert result.model_mean[name] == pytest.approx(np.mean(values), rel=1e-12)
    assert (result.n_documents, result.n_words, result.epsilon) == (7, 5, epsilon)


def test_hand_computed_values():
    # φ_0 = (3/4, 1/4) over two words: 3/4 ln(3/2) + 1/4 ln(1/2) = 0.1308 nats from uniform, as φ_1 = (1/4, 3/4).
    # p(j) = (1/3, 2/3), so v = (5/12, 7/12). Topic 0 lives in document 0 only (ψ_0 = (1, 0)): ln 2 from the
    # uniform over two documents; ψ_1 = (1/4, 3/4).
    phi = np.array([[0.75, 0.25], [0.25, 0.75]])
    theta = np.array([[1.0, 0.5], [0.0, 1.0]])
    theta = theta / theta.sum(axis=1, keepdims=True)  # document 0: (2/3, 1/3), document 1: (0, 1)
    result = topic_significance(TopicModel(Vocabulary(["a", "b"]), phi, theta=theta), epsilon=0)
    uniform = 0.75 * math.log(1.5) + 0.25 * math.log(0.5)
    assert result.kl_uniform == pytest.approx([uniform, uniform], abs=1e-15)
    assert result.kl_vacuous[0] == pytest.approx(0.75 * math.log(0.75 / (5 / 12)) + 0.25 * math.log(0.25 / (7 / 12)))
    assert result.kl_background[0] == pytest.approx(math.log(2))
    spread = (1 / 3) / (1 / 3 + 1), 1 / (1 / 3 + 1)  # topic 1: (1/4, 3/4)
    assert result.kl_background[1] == pytest.approx(sum(s * math.log(s / 0.5) for s in spread))


def test_a_uniform_topic_and_an_evenly_spread_one_are_junk_with_or_without_epsilon():
    phi = np.array([[0.2] * 5, [0.6, 0.1, 0.1, 0.1, 0.1]])
    theta = np.tile([0.5, 0.5], (4, 1))
    for epsilon in (0.0, 1e-5):
        result = topic_significance(TopicModel(Vocabulary(WORDS), phi, theta=theta), epsilon=epsilon)
        assert result.kl_uniform[0] == 0.0 and result.kl_uniform[1] > 0
        np.testing.assert_array_equal(result.kl_background, [0.0, 0.0])


def test_a_topic_no_document_uses_weighs_nothing_in_the_vacuous_distribution():
    phi = np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7]])
    theta = np.array([[1.0, 0.0], [1.0, 0.0]])
    result = topic_significance(TopicModel(Vocabulary(["a", "b", "c"]), phi, theta=theta), epsilon=0)
    assert result.kl_vacuous[0] == 0.0  # v = φ_0 (OCTIS would weigh topic 1 by 1/D)
    assert result.kl_background[1] == 0.0  # no document distribution: the uniform one
    np.testing.assert_allclose(result.kl_vacuous, brute_force(phi, theta, 0.0)["kl_vacuous"])


def test_theta_of_other_documents_replaces_the_training_one(model):
    other = np.random.default_rng(1).dirichlet(np.ones(3), size=4)
    result = topic_significance(model, other, epsilon=0)
    np.testing.assert_allclose(result.kl_background, brute_force(model.phi, other, 0.0)["kl_background"])
    assert result.n_documents == 4
    np.testing.assert_array_equal(result.kl_uniform, topic_significance(model, epsilon=0).kl_uniform)


@pytest.mark.parametrize(
    ("theta", "options", "message"),
    [
        (np.ones((4, 2)) / 2, {}, "D x 3 matrix"),
        (np.full((4, 3), 0.5), {}, "sum to 1"),
        (np.array([[1.5, -0.5, 0.0]]), {}, "non-negative"),
        (None, {"epsilon": -1.0}, "epsilon must be"),
    ],
)
def test_bad_input_is_refused(model, theta, options, message):
    with pytest.raises(InputError, match=message):
        topic_significance(model, theta, **options)


def test_a_model_without_theta_names_the_fix(model):
    bare = TopicModel(model.vocab, model.phi, kind="imported")
    with pytest.raises(InputError, match=r"no θ of its training documents.*--corpus"):
        topic_significance(bare)


def test_result_table_display_and_files(model, tmp_path):
    result = topic_significance(model)
    columns = result.columns()
    assert list(columns) == ["topic", "kl_uniform", "kl_vacuous", "kl_background", "words"]
    assert columns["words"][0] == " ".join(model.top_words(10)[0])
    assert repr(result).startswith("SignificanceResult(kl_uniform mean (95% CI, ")
    assert "kl_background mean" in result._repr_html_()
    write_result(result, tmp_path / "s.csv")
    assert (tmp_path / "s.csv").read_text().splitlines()[0] == "topic,kl_uniform,kl_vacuous,kl_background,words"
    data = json.loads(write_result(result, tmp_path / "s.json").read_text())
    assert data["kl_vacuous"] == pytest.approx(result.kl_vacuous.tolist())
    assert data["model_mean"]["kl_uniform"] == pytest.approx(result.model_mean["kl_uniform"])
    assert isinstance(result, SignificanceResult)


def test_cli_prints_writes_and_refuses(model, tmp_path):
    model.save(tmp_path / "model")
    result = runner.invoke(app, ["significance", str(tmp_path / "model"), "--out", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    assert "W-Vacuous" in result.stdout and "mean" in result.stdout
    written = json.loads((tmp_path / "s.json").read_text())
    assert written["kl_uniform"] == pytest.approx(topic_significance(model).kl_uniform.tolist())
    result = runner.invoke(app, ["significance", str(tmp_path / "model"), "--epsilon", "0", "--json"])
    assert json.loads(result.stdout)["kl_background"] == pytest.approx(
        topic_significance(model, epsilon=0).kl_background.tolist()
    )
    TopicModel(model.vocab, model.phi, alpha=np.ones(3)).save(tmp_path / "bare")
    result = runner.invoke(app, ["significance", str(tmp_path / "bare")])
    assert result.exit_code == 2 and "--corpus" in result.stderr
    Corpus.from_documents([[0, 1, 2], [3, 4, 4], [0, 0]], model.vocab).save(tmp_path / "docs")
    result = runner.invoke(app, ["significance", str(tmp_path / "bare"), "--corpus", str(tmp_path / "docs"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["n_documents"] == 3
    result = runner.invoke(app, ["significance", str(tmp_path / "model"), "--out", str(tmp_path / "s.txt")])
    assert result.exit_code == 2 and ".json or .csv" in result.stderr
