"""The example configuration: it reads, it is the one the guide runs, and its defaults are the issue's."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np

from tealeaves.corpus import Vocabulary
from tealeaves.evaluation import METRICS, read_config
from tealeaves.likelihood.estimators import left_to_right
from tealeaves.models import TopicModel

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "evaluate.toml"


def test_example_reads_with_paths_beside_it():
    cfg = read_config(EXAMPLE)
    assert [m.name for m in cfg.models] == ["lda-gibbs", "plsi", "gensim-lda"]
    assert cfg.models[2].format == "gensim" and cfg.models[0].path == EXAMPLE.parent / "sotu-lda"
    assert cfg.corpora["reference"] == cfg.corpora["heldout"] == EXAMPLE.parent / "sotu" / "heldout"
    assert set(cfg.metrics) == {"npmi", "cv", "diversity", "wi-auto", "likelihood", "predictive"}
    assert cfg.metrics["npmi"]["window"] == 10 and cfg.metrics["cv"]["window"] == 110


def test_the_guide_runs_the_example():
    page = (ROOT / "docs" / "guide" / "evaluate.md").read_text(encoding="utf-8")
    written = re.search(r"cat > evaluate.toml <<'EOF'\n(.*?)^EOF$", page, re.S | re.M).group(1)
    assert written == EXAMPLE.read_text(encoding="utf-8")


def test_defaults_are_the_issues():
    """NPMI (s = 10) and C_V (s = 110) at top-10, WI-Auto, left-to-right sis where there is a prior."""
    assert METRICS["npmi"].defaults["window"] == 10 and METRICS["npmi"].defaults["topn"] == 10
    assert METRICS["cv"].defaults["window"] == 110 and METRICS["cv"].defaults["topn"] == 10
    assert METRICS["likelihood"].defaults == {"method": "left-to-right"}
    assert inspect.signature(left_to_right).parameters["variant"].default == "sis"
    # OCTIS's metrics and the embedding metrics (validate's defaults): turned on in [metrics]
    off = {"significance", "classification", "embedding", "embedding_centroid", "embedding_intrusion"}
    assert all(metric.default != (name in off) for name, metric in METRICS.items())


def test_every_unknown_key_is_named_with_the_closest_known_one():
    import pytest

    from tealeaves.errors import InputError

    config = {
        "sed": 1,
        "corpora": {"heldot": "h"},
        "models": [{"name": "lda", "path": "lda", "fromat": "gensim"}],
        "study": {"exprt": "e.csv"},
        "metrics": {"npmii": True, "wi-auto": {"draw": 3}, "likelihood": {"method": "left-to-right", "partcles": 5}},
    }
    with pytest.raises(InputError) as caught:
        read_config(config)
    message = str(caught.value)
    assert message.startswith("7 problems: the configuration has unknown key sed (did you mean seed?)")
    for part in (
        "[corpora] has unknown key heldot (did you mean heldout?)",
        "[[models]] #1 has unknown key fromat (did you mean format?)",
        "[study] has unknown key exprt (did you mean export?)",
        "[metrics] has unknown metric npmii (did you mean npmi?)",
        "[metrics] wi-auto has unknown option draw (did you mean draws?)",
        "[metrics] likelihood has unknown option partcles (did you mean particles?)",
    ):
        assert part in message
    with pytest.raises(
        InputError, match=r"unknown method 'left-to-rite'; did you mean 'left-to-right'\? choose one of"
    ):
        read_config({"models": [{"name": "a", "path": "a"}], "metrics": {"likelihood": {"method": "left-to-rite"}}})


def test_models_given_as_something_else_than_tables_say_what_they_must_be():
    """models as a string (a path for a list of tables): refused saying what models must be and what it got,
    where it said 'names no model'; a tuple of tables is a list of them; none at all still names no model."""
    import pytest

    from tealeaves.errors import InputError

    with pytest.raises(InputError, match=r"^models must be \[\[models\]\] tables .*, got a str: 'lda'$"):
        read_config({"models": "lda"})
    with pytest.raises(InputError, match="names no model"):
        read_config({"models": []})
    assert read_config({"models": ({"name": "a", "path": "a"},)}).models == read_config({"models": {"a": "a"}}).models
    model = TopicModel(Vocabulary(["tax", "war"]), np.full((2, 2), 0.5))  # a list of models, unnamed
    with pytest.raises(
        InputError, match=r"^\[\[models\]\] #1 must be a table .* name each model: \{\"models\": \{\"lda\": model\}\}"
    ):
        read_config({"models": [model]})


def test_a_top_level_setting_written_below_a_table_is_named_as_such(tmp_path):
    """TOML puts a key written below [corpora] (or below the last [[models]]) into that table: the refusal says
    which keys are top-level settings and where they go; a key that is nobody's gets no such note."""
    import pytest

    from tealeaves.errors import InputError

    (tmp_path / "evaluate.toml").write_text(
        '[corpora]\nheldout = "h"\nn_resamples = 500\nseed = 3\nheldot = "x"\n'
        '[[models]]\nname = "lda"\npath = "lda"\nprimary = ["npmi"]\n'
    )
    with pytest.raises(InputError) as caught:
        read_config(tmp_path / "evaluate.toml")
    message = str(caught.value)
    assert (
        "[corpora] has unknown keys heldot (did you mean heldout?), n_resamples, seed; its keys: heldout, reference, "
        "train (n_resamples and seed are top-level settings: TOML puts a key written below [corpora] into it; "
        "write them above the first [table])"
    ) in message
    assert "[[models]] #1 has unknown key primary; its keys: " in message
    assert (
        "(primary is a top-level setting: TOML puts a key written below [[models]] #1 into it; write it above"
        in message
    )


def test_several_runs_are_given_as_runs_a_list_of_paths_or_a_mapping(tmp_path):
    """runs = [...], path = [...] and a mapping of name to a list give the same runs; a mapping's topic
    list (lists of words) or single path stays one model; a TOML [models] table is such a mapping."""
    runs = [{"name": "lda", "runs": ["a", "b"]}, {"name": "vb", "runs": ["c", "d"]}]
    paths = [{"name": "lda", "path": ["a", "b"]}, {"name": "vb", "path": ["c", "d"]}]
    mapping = {"lda": ["a", "b"], "vb": ["c", "d"]}
    read = [read_config({"models": given}) for given in (runs, paths, mapping)]
    assert read[0].models == read[1].models == read[2].models and read[0].runs == {
        "lda": ["lda/1", "lda/2"],
        "vb": ["vb/1", "vb/2"],
    }
    topics = [["tax", "budget"], ["war", "peace"]]
    single = read_config({"models": {"lda": "a", "words": topics}})
    assert single.runs == {} and single.models[1].model == topics and single.models[0].path == Path.cwd() / "a"
    model = TopicModel(Vocabulary(["tax", "war"]), np.full((2, 2), 0.5))  # one model object, not a list of runs
    assert read_config({"models": {"lda": model}}).models[0].model is model
    (tmp_path / "e.toml").write_text('[models]\nlda = ["a", "b"]\nvb = ["c", "d"]\n')
    assert read_config(tmp_path / "e.toml").runs == read[0].runs


def test_a_scikit_learn_model_with_its_vectorizer_is_one_model_and_pairs_are_runs():
    """A (model, vectorizer) pair as a mapping's value is one model, in either order; a list of pairs or of
    Pipelines lists runs. The pair was read as two runs, each then refused for having no vectorizer."""
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    texts = ["tax budget tax", "war peace war", "tax war budget", "peace budget"]
    vectorizer = CountVectorizer()
    lda = LatentDirichletAllocation(2, max_iter=2, random_state=0).fit(vectorizer.fit_transform(texts))
    for pair in [(lda, vectorizer), [vectorizer, lda]]:
        config = read_config({"models": {"lda": pair}})
        assert config.runs == {} and config.models[0].model is pair
    other = LatentDirichletAllocation(2, max_iter=2, random_state=1).fit(vectorizer.transform(texts))
    config = read_config({"models": {"lda": [(lda, vectorizer), (other, vectorizer)]}})
    assert config.runs == {"lda": ["lda/1", "lda/2"]}
    pipelines = [
        make_pipeline(CountVectorizer(), LatentDirichletAllocation(2, max_iter=2, random_state=s)) for s in (0, 1)
    ]
    assert read_config({"models": {"lda": [p.fit(texts) for p in pipelines]}}).runs == {"lda": ["lda/1", "lda/2"]}
