"""Study items follow Chang et al. 2009 §3 and Hoyle et al. 2021 §5 exactly; studies are reproducible."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from tealeaves.corpus import Corpus
from tealeaves.errors import ArtifactError, InputError
from tealeaves.models import Topics
from tealeaves.study import Study, create_study, synthetic_topics
from tealeaves.study.tasks.topic_intrusion import topic_intrusion_items

from .conftest import BLOCK_WORDS, BLOCKS


def ranks(model):
    order = np.argsort(-model.phi, axis=1, kind="stable")
    rank = np.empty_like(order)
    for k in range(model.k):
        rank[k, order[k]] = np.arange(model.phi.shape[1])
    return rank


@pytest.mark.parametrize("protocol, top", [("chang", 5), ("hoyle", 10)])
def test_word_intrusion_items_are_intruder_sets(models, protocol, top):
    study = create_study(models, "word-intrusion", protocol=protocol, draws=3, seed=4)
    assert len(study.items) == 2 * BLOCKS * 3
    for item in study.items:
        model = models[item.model]
        rank = ranks(model)
        ids = [model.vocab.id(w) for w in item.words]
        assert len(set(ids)) == 6 and item.words[item.intruder_position] == item.intruder
        own = [rank[item.topic, i] for n, i in enumerate(ids) if n != item.intruder_position]
        assert max(own) < top and len(own) == 5
        intruder = model.vocab.id(item.intruder)
        assert rank[item.topic, intruder] >= 50
        assert min(rank[k, intruder] for k in range(model.k) if k != item.topic) < 10
        assert item.familiarity and not item.is_check and item.scale is None
    alpha = [i for i in study.items if i.model == "MODEL_ALPHA"]
    assert Counter(i.topic for i in alpha) == dict.fromkeys(range(BLOCKS), 3)  # three draws per topic
    assert {dict(i.source)["draw"] for i in alpha} == {0, 1, 2}


def test_topic_intrusion_shows_the_three_most_probable_topics_and_a_low_one(models, corpus):
    study = create_study(models, "topic-intrusion", corpus=corpus, docs=30, seed=5)
    assert len(study.items) == 60 and not any(i.familiarity for i in study.items)
    top8 = {label: m.top_words(8) for label, m in models.items()}
    for item in study.items:
        mix = corpus.metadata[corpus.ids.index(item.doc_id)]["mix"]
        assert len(item.options) == 4 and len(set(item.option_topics)) == 4
        shown = [t for n, t in enumerate(item.option_topics) if n != item.intruder_position]
        assert sorted(shown) == sorted(mix)  # the document's true topics are its three most probable
        assert item.option_topics[item.intruder_position] == item.topic == int(item.intruder)
        assert item.topic not in mix
        theta = item.option_theta
        assert min(theta[n] for n in range(4) if n != item.intruder_position) > theta[item.intruder_position]
        for words, t in zip(item.options, item.option_topics):
            assert list(words) == top8[item.model][t]
        assert item.doc_title == f"Document number {item.doc_id}"
    # the same documents for every model
    docs = Counter(i.doc_id for i in study.items)
    assert set(docs.values()) == {2}


def test_topic_intruder_is_uniform_over_the_low_probability_half(models):
    model = models["MODEL_ALPHA"]
    rng = np.random.default_rng(0)
    theta = rng.dirichlet(np.ones(BLOCKS), size=4000)

    docs = Corpus.from_documents([[0]] * 4000, model.vocab)
    items = topic_intrusion_items("m", model, range(4000), theta, docs, 0.5, False, np.random.default_rng(1))
    low_rank = Counter()
    for row, item in zip(theta, items):
        order = list(np.argsort(-row, kind="stable"))
        low_rank[order.index(item.topic)] += 1
        assert sorted(order[:3]) == sorted(t for n, t in enumerate(item.option_topics) if n != item.intruder_position)
    assert set(low_rank) == {5, 6, 7, 8, 9}  # ceil(0.5 K) = 5 least probable of K = 10
    assert stats.chisquare(list(low_rank.values())).pvalue > 0.001
    positions = Counter(item.intruder_position for item in items)
    assert stats.chisquare([positions[p] for p in range(4)]).pvalue > 0.001


def test_rating_items_show_the_top_10_in_order_with_checks(models):
    study = create_study(models, "rating", seed=2, checks=3, scale=5)
    regular = [i for i in study.items if not i.is_check]
    assert len(regular) == 20 and sum(i.is_check for i in study.items) == 3
    for item in regular:
        assert list(item.words) == models[item.model].top_words(10)[item.topic]
        assert item.scale == 5 and item.answers() == [1, 2, 3, 4, 5] and item.is_correct(3) is None
    for item in study.items:
        if item.is_check:
            assert item.model == "check" and len(item.words) == 10
            assert item.fails_check(item.scale) and not item.fails_check(item.scale - 1)


def test_synthetic_topics_have_no_two_words_probable_in_one_studied_topic(models):
    topics = [words for m in models.values() for words in m.top_words(50)]
    checks = synthetic_topics(topics, 20, np.random.default_rng(3))
    top10 = {w for words in topics for w in words[:10]}
    for words, used in checks:
        assert len(set(words)) == 10 and set(words) <= top10
        assert used in (50, 25)  # in these block topics the top 50 run into the tied leak words
        for studied in topics:
            assert len(set(words) & set(studied[:used])) <= 1
    assert len({w for words, _ in checks for w in words}) > 50  # drawn at random, not always the same words


def test_synthetic_topics_relax_or_refuse_when_topics_are_too_few():
    few = [[f"t{k}w{j}" for j in range(60)] for k in range(4)]
    with pytest.raises(InputError, match="at least 10 source"):
        synthetic_topics(few, 1, np.random.default_rng(0))
    other_runs = [[f"x{k}w{j}" for j in range(10)] for k in range(12)]
    ((words, _),) = synthetic_topics(few, 1, np.random.default_rng(0), sources=other_runs)
    assert len({w[:3] for w in words}) == 10  # one word from each of ten different source topics


def test_items_are_interleaved_and_anonymised(models):
    study = create_study(models, "rating", seed=8, checks=2)
    sequence = [i.model for i in study.items]
    runs = sum(a != b for a, b in itertools.pairwise(sequence))
    assert runs >= 8  # shuffled, not model by model
    assert [i.item_id for i in study.items] == [f"q{n:04d}" for n in range(1, 23)]
    for item in study.items:
        public = json.dumps(item.public())
        assert "MODEL_" not in public and "is_check" not in public and "expected" not in public
        assert set(item.public()) == {"task", "familiarity", "words", "scale"}


def test_same_seed_same_study(models, corpus, tmp_path):
    a = create_study(models, "topic-intrusion", tmp_path / "a", corpus=corpus, docs=10, seed=11)
    b = create_study(models, "topic-intrusion", tmp_path / "b", corpus=corpus, docs=10, seed=11)
    c = create_study(models, "topic-intrusion", tmp_path / "c", corpus=corpus, docs=10, seed=12)
    assert a.study_id == b.study_id != c.study_id
    assert (tmp_path / "a" / "items.jsonl").read_bytes() == (tmp_path / "b" / "items.jsonl").read_bytes()
    loaded = Study.load(tmp_path / "a")
    assert loaded.items == a.items and loaded.settings == a.settings and loaded.study_id == a.study_id
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["models"][0]["label"] == "MODEL_ALPHA" and manifest["settings"]["annotators"] == 26


def test_a_changed_study_folder_is_refused(models, tmp_path):
    create_study(models, "rating", tmp_path / "s", seed=1)
    path = tmp_path / "s" / "items.jsonl"
    path.write_text(path.read_text().replace('"scale": 3', '"scale": 5', 1))
    with pytest.raises(ArtifactError, match="changed after the study was created"):
        Study.load(tmp_path / "s")


def test_defaults_follow_hoyle(models, corpus):
    rating = create_study(models, "rating", seed=0)
    assert rating.settings["annotators"] == 15 and rating.settings["checks"] == 8
    assert rating.settings["items_per_participant"] == 5  # 25% of 20 items
    assert rating.settings["checks_per_participant"] == 2 and rating.settings["familiarity"]
    wi = create_study(models, "word-intrusion", seed=0, items_per_participant=7)
    assert wi.settings["annotators"] == 26 and wi.settings["checks"] == 0 and wi.settings["protocol"] == "hoyle"
    assert wi.settings["items_per_participant"] == 7
    assert wi.manifest["stats"]["participants_needed"] == -(-20 * 26 // 7)


def test_topic_lists_work_for_word_intrusion_and_ratings(tmp_path, models):
    path = tmp_path / "topics.txt"
    Topics(tuple(tuple(t) for t in models["MODEL_ALPHA"].top_words(20))).save(path)
    study = create_study([path, models["MODEL_BETA"]], "rating", labels=["file", "model"], checks=0, seed=1)
    assert {i.model for i in study.items} == {"file", "model"}
    assert study.models[0]["kind"] == "topics"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"task": "ranking"}, "task must be one of"),
        ({"task": "topic-intrusion"}, "pass the corpus"),
        ({"task": "word-intrusion", "checks": 2}, "checks=0"),
        ({"task": "rating", "scale": 4}, "3 or 5 points"),
        ({"task": "rating", "topics_per_model": 11}, "between 1 and 10"),
        ({"task": "rating", "items_per_participant": 1.5}, "share in"),
        ({"task": "rating", "items_per_participant": 21}, "between 1 and the 20"),
        ({"task": "rating", "annotators": 0}, r"^a study needs annotators >= 1 \(a whole number\), got 0$"),
        # values of another type went into the settings (a list as the title, NaN as a share) or raised int()'s
        # ValueError ("abc" answers a topic)
        ({"task": "rating", "annotators": "abc"}, r"^a study needs annotators >= 1 \(a whole number\), got 'abc'$"),
        ({"task": "rating", "title": ["Reading"]}, r"^title must be a text \(a string\), got a list$"),
        ({"task": "rating", "consent": 3}, r"^consent must be a text \(a string\), got an int$"),
        ({"task": "rating", "show_answer": "yes"}, r"^show_answer must be True or False, got 'yes'$"),
        ({"task": "rating", "checks": float("nan")}, r"^a study needs checks >= 0 \(a whole number\), got nan$"),
        ({"task": "topic-intrusion", "low_share": float("nan")}, r"^a study needs 0 < low_share <= 1, got nan$"),
        ({"task": "rating", "items_per_participant": "0.25"}, r"needs items_per_participant > 0"),
        ({"task": "rating", "check_sources": "topics.txt"}, r"^check_sources must be a list of models"),
        ({"task": "rating", "redirect_url": "javascript:alert(1)"}, "http"),
        ({"task": "word-intrusion", "protocol": "lau"}, "protocol must be"),
    ],
)
def test_bad_settings_are_refused(models, kwargs, message):
    with pytest.raises(InputError, match=message):
        create_study(models, **kwargs)


def test_labels_must_be_distinct_and_not_check(models):
    with pytest.raises(InputError, match="distinct"):
        create_study(list(models.values()), "rating", labels=["same", "same"])
    with pytest.raises(InputError, match="attention checks"):
        create_study(list(models.values()), "rating", labels=["check", "other"])


def test_blocks_are_what_the_fixture_says(models):
    top = models["MODEL_ALPHA"].top_words(BLOCK_WORDS)
    assert all(w.startswith(chr(97 + k)) for k, words in enumerate(top) for w in words)


def test_items_per_model_of_a_design(tmp_path):
    from tealeaves.study.design import items_per_model

    small, large = Topics([["a", "b", "c"]] * 3), Topics([["a", "b", "c"]] * 7)
    assert items_per_model([small, large], "rating") == 3
    assert items_per_model([large], "word-intrusion", topics_per_model=5) == 5
    assert items_per_model([small], "rating", topics_per_model=5) == 3
    assert items_per_model([small], "topic-intrusion", docs=12) == 12
    with pytest.raises(InputError, match="task must be one of"):
        items_per_model([small], "ratings")


ITEMS_BEFORE_THE_REGISTRY = [  # one line of each task's items.jsonl, as tealeaves wrote them before tasks had modules
    '{"doc_id": "", "doc_snippet": "", "doc_title": "", "familiarity": true, "intruder": "g08", "intruder_position": 0, '
    '"is_check": false, "item_id": "q0001", "model": "MODEL_BETA", "option_theta": [], "option_topics": [], '
    '"options": [], "scale": null, "source": {"draw": 0, "high_rank_used": 10, "intruder_topic": 6, "protocol": '
    '"hoyle"}, "task": "word-intrusion", "topic": 8, "words": ["g08", "i04", "i15", "i19", "i03", "i24"]}',
    '{"doc_id": "56", "doc_snippet": "The opening of document 56.", "doc_title": "Document 56", "familiarity": false, '
    '"intruder": "1", "intruder_position": 0, "is_check": false, "item_id": "q0001", "model": "MODEL_ALPHA", '
    '"option_theta": [0.001639344262295084, 0.3001092896174859, 0.5412021857923497, 0.14699453551912575], '
    '"option_topics": [1, 2, 8, 3], "options": [["b09", "b00"], ["c07", "c06"], ["i21", "i18"], ["d19", "d10"]], '
    '"scale": null, "source": {"doc_index": 56, "intruder_pool": 5}, "task": "topic-intrusion", "topic": 1, '
    '"words": []}',
    '{"doc_id": "", "doc_snippet": "", "doc_title": "", "familiarity": true, "intruder": "", "intruder_position": '
    'null, "is_check": false, "item_id": "q0001", "model": "MODEL_BETA", "option_theta": [], "option_topics": [], '
    '"options": [], "scale": 3, "source": {}, "task": "rating", "topic": 9, "words": ["j26", "j01", "j03"]}',
]


def test_items_written_before_the_task_registry_read_back_and_behave_as_then():
    from tealeaves.study import Item
    from tealeaves.study.design import items_jsonl

    wi, ti, rating = (Item.from_dict(json.loads(line)) for line in ITEMS_BEFORE_THE_REGISTRY)
    assert items_jsonl([wi, ti, rating]).splitlines() == [
        json.dumps(json.loads(line), sort_keys=True, ensure_ascii=False) for line in ITEMS_BEFORE_THE_REGISTRY
    ]
    assert (wi.answers(), wi.is_correct(0), wi.is_correct(1)) == ([0, 1, 2, 3, 4, 5], True, False)
    assert wi.public() == {"task": "word-intrusion", "familiarity": True, "words": list(wi.words)}
    assert (ti.n_options, ti.answers(), ti.is_correct(0)) == (4, [0, 1, 2, 3], True)
    assert ti.public() == {
        "task": "topic-intrusion",
        "familiarity": False,
        "doc_title": "Document 56",
        "doc_snippet": "The opening of document 56.",
        "options": [list(o) for o in ti.options],
    }
    assert (rating.answers(), rating.is_correct(3), rating.fails_check(3)) == ([1, 2, 3], None, False)
    assert rating.public() == {"task": "rating", "familiarity": True, "words": ["j26", "j01", "j03"], "scale": 3}
