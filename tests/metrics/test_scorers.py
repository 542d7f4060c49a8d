"""Any metric as a scikit-learn scorer: the value ``evaluate`` gives, computed again here through the public functions;
GridSearchCV choosing by it; and what a scorer refuses."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from tealeaves.coherence import RefIndex, score
from tealeaves.corpus import Corpus
from tealeaves.errors import InputError
from tealeaves.likelihood import estimate, predictive
from tealeaves.metrics import scorer
from tealeaves.models import as_model

LEXICON = [
    ["tax", "budget", "deficit", "spending", "revenue", "income", "debt", "treasury"],
    ["war", "army", "troops", "peace", "navy", "enemy", "soldiers", "battle"],
    ["school", "teacher", "student", "education", "college", "learning", "class", "pupil"],
]


@pytest.fixture(scope="module")
def texts():
    rng = np.random.default_rng(0)
    return [" ".join(rng.choice(LEXICON[d % 3] + LEXICON[(d + 1) % 3][:2], size=25)) for d in range(60)]


@pytest.fixture(scope="module")
def pipeline(texts):
    return make_pipeline(CountVectorizer(), LatentDirichletAllocation(3, random_state=0)).fit(texts[:40])


def _tokens(text, vocab):
    """CountVectorizer's default tokenization, written again: lowercased words of two or more characters."""
    return vocab.ids(re.findall(r"\b\w\w+\b", text.lower()), on_missing="skip")


def test_a_coherence_scorer_gives_the_mean_over_topics_of_the_measure(texts, pipeline):
    index = RefIndex.build([text.split() for text in texts])
    found = scorer("npmi", reference=index, topn=5)(pipeline, texts[40:])
    per_topic = score(as_model(pipeline), index, measure="npmi", topn=5, window=10, on_missing="skip").per_topic
    assert found == pytest.approx(float(np.nanmean(per_topic)), abs=1e-12)
    assert -1 <= found <= 1
    # texts as the reference are indexed once, when the scorer is made, not at every fold
    from_texts = scorer("npmi", reference=[text.split() for text in texts], topn=5)
    assert isinstance(from_texts.reference, RefIndex)
    assert from_texts(pipeline, texts[40:]) == pytest.approx(found, abs=1e-12)


def test_a_likelihood_scorer_estimates_the_held_out_folds_log_likelihood_per_token(texts, pipeline):
    held = [*texts[40:], "tax budget unseenword war", "UNSEEN words only"]
    model = as_model(pipeline)
    corpus = Corpus.from_documents([_tokens(text, model.vocab) for text in held], model.vocab)
    expected = estimate(model, None, corpus, method="left-to-right", variant="sis", particles=5, seed=3)
    found = scorer("likelihood", particles=5, seed=3)(pipeline, held)
    assert found == pytest.approx(expected.log_prob.sum() / expected.n_tokens.sum(), rel=1e-12)
    assert found < 0
    # another of Wallach et al.'s estimators (the left-to-right variant was merged into its options and refused)
    ais = estimate(model, None, corpus, method="ais", temperatures=10, seed=3)
    assert scorer("likelihood", method="ais", temperatures=10, seed=3)(pipeline, held) == pytest.approx(
        ais.log_prob.sum() / ais.n_tokens.sum(), rel=1e-12
    )


def test_a_bare_estimator_is_scored_on_a_document_term_matrix_of_its_words(texts, pipeline):
    vectorizer, lda = pipeline[0], pipeline[-1]
    counts = vectorizer.transform(texts[40:])
    words = list(vectorizer.get_feature_names_out())
    model = as_model(lda, vocabulary=words)
    bags = [[j for j in range(counts.shape[1]) for _ in range(int(counts[i, j]))] for i in range(counts.shape[0])]
    expected = estimate(model, None, Corpus.from_documents(bags, model.vocab), particles=5, seed=0)
    for matrix in (counts, counts.toarray()):
        found = scorer("likelihood", particles=5, vocabulary=words)(lda, matrix)
        assert found == pytest.approx(expected.log_prob.sum() / expected.n_tokens.sum(), rel=1e-12)
    with pytest.raises(InputError, match="4 columns; the model has"):
        scorer("likelihood", vocabulary=words)(lda, counts[:, :4])
    tfidf = TfidfVectorizer(vocabulary=vectorizer.vocabulary_).fit(texts).transform(texts[40:])
    with pytest.raises(InputError, match="must hold counts"):
        scorer("likelihood", vocabulary=words)(lda, tfidf)
    with pytest.raises(InputError, match="no vectorizer to say which word each column is"):
        scorer("likelihood")(lda, counts)


def test_a_gensim_shaped_fold_is_scored_as_estimate_scores_it(texts, pipeline):
    # token lists, as a gensim user holds a held-out fold, were refused as "not a document-term matrix"
    model = as_model(pipeline)
    tokens = [[*text.split(), "unseenword"] for text in texts[40:]]
    corpus = Corpus.from_documents([model.vocab.ids(t, on_missing="skip") for t in tokens], model.vocab)
    expected = estimate(model, None, corpus, particles=5, seed=0)
    found = scorer("likelihood", particles=5)(model, tokens)
    assert found == pytest.approx(expected.log_prob.sum() / expected.n_tokens.sum(), rel=1e-12)
    with pytest.raises(InputError, match="cannot read an int as texts"):
        scorer("likelihood")(model, 3)


def test_an_output_where_lower_is_better_is_negated(texts, pipeline):
    model = as_model(pipeline)
    corpus = Corpus.from_documents([_tokens(text, model.vocab) for text in texts[40:]], model.vocab)
    result = predictive(model, corpus, seed=0)
    rank = float(result.rank[result.n_terms > 0].mean())
    rank_scorer = scorer("predictive", "predictive_rank")
    assert rank_scorer(pipeline, texts[40:]) == pytest.approx(-rank, rel=1e-12)
    assert not rank_scorer.higher_is_better and scorer("predictive").higher_is_better


def test_grid_search_chooses_by_the_scorer_and_the_scorer_pickles(texts, tmp_path):
    index = RefIndex.build([text.split() for text in texts])
    path = index.save(tmp_path / "index")
    scoring = {"npmi": scorer("npmi", reference=path, topn=5), "heldout": scorer("likelihood", particles=3)}
    assert pickle.loads(pickle.dumps(scoring["npmi"])) == scoring["npmi"]
    pipe = make_pipeline(CountVectorizer(), LatentDirichletAllocation(random_state=0))
    grid = {"latentdirichletallocation__n_components": [2, 3, 6]}
    search = GridSearchCV(pipe, grid, scoring=scoring, refit="npmi", cv=3).fit(texts)
    npmi, heldout = search.cv_results_["mean_test_npmi"], search.cv_results_["mean_test_heldout"]
    assert np.all(np.isfinite(npmi)) and np.all(np.isfinite(heldout)) and np.all(heldout < 0)
    assert search.best_index_ == int(np.argmax(npmi))
    # three topics written into the texts: NPMI on them is highest where the model has three
    assert search.best_params_ == {"latentdirichletallocation__n_components": 3}


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: scorer("npmj", reference="index"), "did you mean 'npmi'"),
        (lambda: scorer("diversity", "uniqueness"), "unknown output of diversity 'uniqueness'"),
        (lambda: scorer("npmi"), r"reference=<a RefIndex or its folder>"),
        (lambda: scorer("npmi", reference="index", tpn=5), "tpn"),
        (lambda: scorer("likelihood", vocabulary="words.txt"), "a list of strings"),
        (lambda: scorer("npmi", reference=3), "cannot read an int as texts"),
    ],
)
def test_a_scorer_refuses_what_it_cannot_compute_when_it_is_made(make, message):
    with pytest.raises(InputError, match=message):
        make()


def test_a_scorer_refuses_a_fold_that_is_not_texts_and_a_model_without_topic_probabilities(pipeline):
    with pytest.raises(InputError, match="its texts, a list of strings"):
        scorer("likelihood")(pipeline, 3)
    with pytest.raises(InputError, match="a topic list has no"):
        scorer("likelihood")([["tax", "budget"], ["war", "army"]], ["tax war"])
