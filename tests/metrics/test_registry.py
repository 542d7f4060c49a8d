"""tealeaves.metrics: one registry of how each metric is computed, which evaluate, validate and sweep share.

Each metric's numbers are its package's function's; a metric looked up by validate's spec or run by
evaluate is the same computation.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import tealeaves
from tealeaves.analysis import HumanJudgments, RaggedScores, parse_metric
from tealeaves.analysis.topic_metrics import metric_values
from tealeaves.coherence import RefIndex, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.metrics import METRICS, Inputs, Measured, get_metric
from tealeaves.metrics.registry import _coherence

TOPICS = [["tax", "budget", "deficit"], ["war", "peace", "army"], ["tax", "war", "school"]]
DOCS = [["tax", "budget", "deficit"], ["budget", "deficit"], ["war", "peace"], ["peace", "army", "war"], ["school"]]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    vocab = Vocabulary(sorted({w for doc in DOCS for w in doc}))
    path = tmp_path_factory.mktemp("metrics") / "index"
    RefIndex.build(Corpus.from_documents([vocab.ids(doc) for doc in DOCS], vocab), out=path)
    return path


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    """A word2vec text file of the topics' words: a static encoder needs no model download."""
    path = tmp_path_factory.mktemp("vectors") / "vectors.txt"
    rng = np.random.default_rng(0)
    words = sorted({w for topic in TOPICS for w in topic})
    rows = [f"{w} " + " ".join(f"{v:.6f}" for v in rng.normal(size=4)) for w in words]
    path.write_text(f"{len(words)} 4\n" + "\n".join(rows) + "\n")
    return f"static:{path}"


def test_a_name_is_a_registered_metric_or_any_coherence_measure():
    assert get_metric("npmi") is METRICS["npmi"] and get_metric("c_npmi") is METRICS["npmi"]
    umass = get_metric("u_mass")
    assert umass.name == "umass" and umass.needs == ("index",) and "umass" not in METRICS
    assert get_metric("embedding").needs == ()  # word vectors, no reference corpus
    with pytest.raises(InputError, match="unknown metric 'nope'; choose one of npmi, cv, diversity"):
        get_metric("nope")


def test_a_coherence_metric_is_score_with_its_options(index):
    measured = get_metric("umass").compute(TOPICS, Inputs(index=index), 0, window="document", on_missing="skip")
    result = score(TOPICS, index, measure="umass", window="document", on_missing="skip")
    np.testing.assert_array_equal(measured.topic_values("umass", 3), result.per_topic)
    assert measured.result.model_mean == result.model_mean
    assert measured.coverage == 1.0 and measured.flags == {}  # every topic word occurs in the reference


def test_the_coverage_counts_the_words_the_reference_lacks(index):
    topics = [["tax", "budget", "apple"], ["war", "peace", "army"]]
    measured = METRICS["npmi"].compute(topics, Inputs(index=index), 0, window="document", on_missing="skip", topn=3)
    assert measured.coverage == 1.0 - 1 / 6
    assert measured.flags == {0: ["rare word 'apple': not in the index vocabulary"]}


def test_topic_values_are_the_inverse_of_per_topic():
    measured = Measured()
    measured.per_topic("x", [0.5, np.nan, 0.25])
    np.testing.assert_array_equal(measured.topic_values("x", 3), [0.5, np.nan, 0.25])


def test_validate_computes_a_spec_by_its_metric(index):
    topics = pd.DataFrame({"dataset": "d", "model": "m", "topic": [0, 1, 2], "words": [" ".join(t) for t in TOPICS]})
    judgments = HumanJudgments("d rating", "rating", topics, RaggedScores([[3], [2], [1]]))
    [spec] = parse_metric(f"c_npmi@{index},window=document,topn=3")
    values, coverage = metric_values(spec, judgments)
    measured = METRICS["npmi"].compute(TOPICS, Inputs(index=index), 0, window="document", topn=3, on_missing="skip")
    np.testing.assert_array_equal(values, measured.topic_values("npmi", 3))
    assert coverage == measured.coverage


def test_evaluate_runs_the_embedding_metrics_validate_uses(index, vectors, tmp_path):
    (tmp_path / "topics.txt").write_text("\n".join(" ".join(t) for t in TOPICS) + "\n")
    (tmp_path / "other.txt").write_text("tax peace school\nbudget war deficit\narmy tax peace\n")
    config = {
        "corpora": {},  # the embedding metrics need no reference corpus
        "models": [
            {"name": "a", "path": str(tmp_path / "topics.txt")},
            {"name": "b", "path": str(tmp_path / "other.txt")},
        ],
        "metrics": {
            **dict.fromkeys(("npmi", "cv", "diversity", "wi-auto", "likelihood", "predictive"), False),
            "embedding": {"encoder": vectors, "topn": 3},
        },
    }
    run = tealeaves.evaluate(config, tmp_path / "run")
    per_topic = run.per_topic[run.per_topic["model"] == "a"]["value"].to_numpy()
    np.testing.assert_array_equal(per_topic, score(TOPICS, measure="embedding", encoder=vectors, topn=3).per_topic)


def test_options_are_checked_against_the_library_function():
    METRICS["likelihood"].check({"n_resamples": 100, "runs": 2, "particles": 10}, "[metrics] likelihood")
    with pytest.raises(InputError, match=r"unknown option particle \(did you mean particles\?\)"):
        METRICS["likelihood"].check({"particle": 10}, "[metrics] likelihood")
    with pytest.raises(InputError, match="unknown option windw"):
        _coherence("umass", "umass").check({"windw": 3}, "umass")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (
            "perplexity",
            "'likelihood' is the held-out log likelihood per token (Wallach et al. 2009's left-to-right "
            "estimate), of which the perplexity is exp(-x); choose one of npmi",
        ),
        ("Perplexity", "'likelihood' is the held-out log likelihood per token"),
        (
            "log_perplexity",
            "'likelihood' is the held-out log likelihood per token (Wallach et al. 2009's "
            "left-to-right estimate); gensim's log_perplexity is a variational lower bound on it",
        ),
        ("coherence", "'npmi' and 'cv' are Hoyle et al.'s coherences"),
        ("td", "'diversity' gives topic diversity (td)"),
        ("npmii", "did you mean 'npmi'?"),
    ],
)
def test_a_metric_known_by_another_name_is_refused_with_ours(given, said):
    # perplexity is what gensim (log_perplexity), scikit-learn (perplexity) and MALLET report; here it has no metric
    with pytest.raises(InputError, match=re.escape(f"unknown metric {given!r}; {said}")):
        get_metric(given)


def test_document_metrics_weigh_each_document_by_the_tokens_it_scored():
    """With on_missing="skip", the held-out likelihood and the predictive log likelihood per token divide by the
    tokens scored, not the document's length: the dropped words were counted in the likelihood's
    denominator, which raised its per-token value by their share."""
    from tealeaves.likelihood import synthetic_corpus
    from tealeaves.models import TopicModel

    rng = np.random.default_rng(0)
    vocab = Vocabulary([f"w{i}" for i in range(12)])
    phi = rng.dirichlet(np.ones(12), size=3)
    model = TopicModel(vocab, phi, alpha=np.full(3, 0.5), kind="lda-gibbs")
    texts = [[*text, "unknown"] for text in synthetic_corpus(model, None, 20, 10, seed=1).texts()]
    heldout = Corpus.from_tokenized(texts)
    for name, output in (("likelihood", "heldout_log_likelihood"), ("predictive", "predictive_log_likelihood")):
        measured = METRICS[name].compute(model, Inputs(heldout=heldout), 0, on_missing="skip")
        items = measured.items[output]
        np.testing.assert_array_equal(items.weights, np.full(20, 10.0))  # 11 tokens each, 1 dropped
        np.testing.assert_allclose(
            items.values.sum() / items.weights.sum(),
            measured.result.log_likelihood_per_word if name == "predictive" else measured.result.total / 200,
        )
