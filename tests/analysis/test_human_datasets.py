"""The public human data sets: the catalogue, their readers on small slices, mixtures, weights, leave-one-out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from tealeaves.analysis import csv_judgments, validate
from tealeaves.analysis.combinations import mixture_label, rank_mixtures
from tealeaves.analysis.human_datasets import HUMAN_DATASETS, dataset_judgments, dataset_names, palmetto_judgments
from tealeaves.cli import app
from tealeaves.errors import InputError
from tealeaves.stats.multiplicity import holm

# A slice of the shape of Palmetto's evaluation sets: 10-word topics, one mean rating (1-3) a line.
TOPICS = [
    "game team season player play league coach win baseball hockey",
    "god jesus christian bible church faith christ belief religion truth",
    "drive disk hard card controller scsi floppy ide bus system",
    "israel arab jews israeli jewish peace war land state palestinian",
    "space nasa launch orbit shuttle mission satellite moon earth lunar",
    "window file program application server display widget motif font entry",
]
GOLD = [2.9, 2.8, 2.6, 2.7, 3.0, 2.2]


def palmetto_folder(root, name="20NG"):
    folder = root / "palmetto" / "sets"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"topics{name}.txt").write_text("\n".join(TOPICS) + "\n")
    (folder / f"gold{name}.txt").write_text("\n".join(map(str, GOLD)) + "\n")
    return folder


def test_the_catalogue_says_where_each_set_comes_from_and_keeps_lau_baldwin_2016_aside():
    names = [d.name for d in HUMAN_DATASETS]
    assert len(set(names)) == len(names) and "hoyle2021" in names and "palmetto" in names
    assert not any("sensitivity" in d.source or "2016" in d.paper for d in HUMAN_DATASETS)
    for d in HUMAN_DATASETS:
        statuses = ("shared data", "download", "public, not read", "not public")
        assert d.paper and d.source and d.licence and d.shape and d.status in statuses
        assert bool(d.reader) == (d.status in ("shared data", "download")), d.name
    assert dataset_names() == ["hoyle2021", "hoyle2021pilot", "palmetto"]


def test_palmetto_reader_keeps_the_topics_words_and_mean_ratings_in_order(tmp_path):
    palmetto_folder(tmp_path)
    [judgment] = palmetto_judgments(tmp_path / "palmetto")
    assert judgment.name == "20NG rating" and judgment.task == "rating" and judgment.means_only
    assert judgment.answers.means().tolist() == GOLD and judgment.answers.sizes.tolist() == [1] * 6
    assert [len(w) for w in judgment.words()] == [10] * 6 and judgment.words()[4][:2] == ["space", "nasa"]
    assert all(1 <= g <= 3 for g in judgment.answers.means())  # Palmetto's scale
    assert judgment.topics["topic"].tolist() == list(range(6))


@pytest.mark.parametrize(
    ("gold", "message"),
    [(None, "has no gold file"), ("2.9\n2.8\n", "6 topics but"), ("2.9\nhigh\n2\n2\n2\n2\n", "must be one number")],
)
def test_palmetto_reader_refuses_a_gold_file_that_does_not_match(tmp_path, gold, message):
    folder = palmetto_folder(tmp_path)
    if gold is None:
        (folder / "gold20NG.txt").unlink()
    else:
        (folder / "gold20NG.txt").write_text(gold)
    with pytest.raises(InputError, match=message):
        palmetto_judgments(folder)


def test_dataset_judgments_reads_what_is_present_and_names_what_is_not(tmp_path):
    palmetto_folder(tmp_path)
    pd.DataFrame({"topic": [0, 1, 2], "words": ["a b", "c d", "e f"], "mean": [1.0, 2.0, 3.0]}).to_csv(
        tmp_path / "palmetto" / "converted.csv", index=False
    )
    judgments, absent = dataset_judgments(["all"], tmp_path)
    assert [j.name for j in judgments] == ["20NG rating", "converted score"] and absent == [
        "hoyle2021",
        "hoyle2021pilot",
    ]
    with pytest.raises(InputError, match="unknown human data set 'nope'"):
        dataset_judgments(["nope"], tmp_path)
    with pytest.raises(InputError, match="nothing to read"):
        dataset_judgments(["newman2010"], tmp_path)


def test_dataset_judgments_reads_hoyle2021_from_the_shared_data(shared_data):
    root = shared_data / "human"
    if not (root / "hoyle2021").is_dir():
        pytest.skip("../shared/data/human/hoyle2021 is absent")
    judgments, absent = dataset_judgments(["hoyle2021"], root)
    assert [j.name for j in judgments] == [
        "NYT rating",
        "NYT intrusion",
        "WIKI rating",
        "WIKI intrusion",
    ] and not absent
    rating, intrusion = judgments[0], judgments[1]
    assert len(rating.topics) == len(intrusion.topics) == 150
    assert set(np.unique(rating.answers.values)) <= {1.0, 2.0, 3.0} and set(np.unique(intrusion.answers.values)) <= {
        0.0,
        1.0,
    }


def test_rank_mixtures_are_weighted_fractional_ranks_within_each_topic_source():
    rng = np.random.default_rng(3)
    values = pd.DataFrame(
        {
            "dataset": np.repeat(["A", "B"], 5),
            "model": "m",
            "topic": np.arange(10),
            "a": rng.normal(size=10),
            "b": rng.normal(size=10),
        }
    )
    values.loc[2, "b"] = np.nan  # not scored by b: no mixture
    long = values.melt(id_vars=["dataset", "model", "topic"], var_name="metric", value_name="value")
    mixed = rank_mixtures(long, "a", "b", weights=(0.0, 0.25, 1.0))
    assert len(mixed) == 9 and 2 not in mixed["topic"].tolist()
    for dataset, part in values.dropna().groupby("dataset"):
        expected = 0.25 * stats.rankdata(part["a"]) / len(part) + 0.75 * stats.rankdata(part["b"]) / len(part)
        got = mixed[mixed["dataset"] == dataset][mixture_label(0.25, "a", "b")]
        np.testing.assert_allclose(got, expected)
        np.testing.assert_allclose(
            mixed[mixed["dataset"] == dataset]["mix1:a+b"], stats.rankdata(part["a"]) / len(part)
        )
    with pytest.raises(InputError, match=r"in \[0, 1\]"):
        rank_mixtures(long, "a", "b", weights=(1.5,))
    with pytest.raises(InputError, match="no values of"):
        rank_mixtures(long, "a", "c")


@pytest.fixture(scope="module")
def two_sources(tmp_path_factory):
    """Two topic sources with two tasks each; 'close' tracks people on both, 'NPMI' on neither, 'odd' on B only."""
    tmp = tmp_path_factory.mktemp("sources")
    rng = np.random.default_rng(11)
    quality = rng.normal(size=80)
    keys = pd.DataFrame({"dataset": np.repeat(["A", "B"], 40), "model": np.tile(np.repeat(["m1", "m2"], 20), 2)})
    keys["topic"] = np.arange(80)
    rows = [
        keys.assign(words=[f"w{k} v{k}" for k in range(80)], task=task, mean=quality + rng.normal(0, 0.6, 80))
        for task in ("rating", "intrusion")
    ]
    human = tmp / "human.csv"
    pd.concat(rows).to_csv(human, index=False)
    odd = np.where(keys["dataset"] == "B", quality, -quality) + rng.normal(0, 0.3, 80)
    scores = keys.assign(close=quality + rng.normal(0, 0.8, 80), odd=odd, NPMI=rng.normal(size=80))
    scores.to_csv(tmp / "scores.csv", index=False)
    return human, tmp / "scores.csv", validate(csv_judgments(human), [f"csv:{tmp / 'scores.csv'}"], n_resamples=60)


def test_weighted_summary_is_the_weighted_mean_of_observed_spearman(two_sources):
    _, _, result = two_sources
    weights = {"A rating": 0.5, "A intrusion": 0.5, "B rating": 1.0, "B intrusion": 0.0}
    summary = result.weighted_summary(weights).set_index("metric")
    spearman = result.correlations[result.correlations["method"] == "spearman"].set_index(["metric", "human"])
    for metric in ("close", "odd", "NPMI"):
        expected = sum(w * spearman.loc[(metric, h), "observed"] for h, w in weights.items()) / 2.0
        assert summary.loc[metric, "weighted_spearman"] == pytest.approx(expected)
    assert summary.attrs["weights"] == weights
    with pytest.raises(InputError, match="unknown"):
        result.weighted_summary({"C rating": 1.0})


def test_leave_one_out_chooses_on_the_other_source_only_and_holm_runs_over_the_rows(two_sources):
    _, _, result = two_sources
    assert result.topic_sources()["A rating"] == frozenset({"A"})
    table = result.leave_one_out(["close", "odd"], reference="close").set_index("human")
    spearman = result.correlations[result.correlations["method"] == "spearman"].set_index(["metric", "human"])
    # odd tracks people on B and against them on A: chosen on B for A's sets, and fails there
    assert table.loc["A rating", "chosen"] == "odd" and table.loc["A rating", "selected_on"] == "B rating, B intrusion"
    b_mean = np.mean([spearman.loc[("odd", h), "observed"] for h in ("B rating", "B intrusion")])
    assert table.loc["A rating", "selection_spearman"] == pytest.approx(b_mean)
    held_out = spearman.loc[("odd", "A rating"), "observed"]
    assert table.loc["A rating", "spearman"] == pytest.approx(held_out) and held_out < 0
    assert table.loc["B rating", "chosen"] == "close" and table.loc["B rating", "reference_difference"] == 0.0
    np.testing.assert_allclose(table["p_holm"], holm(table["p_value"].to_numpy()))
    assert (table["baseline"] == "NPMI").all()


def test_cli_runs_every_public_data_set_present_and_leaves_one_out(tmp_path):
    for name in ("20NG", "Movie"):
        palmetto_folder(tmp_path, name)
    close = np.array(GOLD) + np.array([0.1, -0.1, 0.05, 0.0, 0.02, -0.05])
    keys = pd.DataFrame(
        {"model": "palmetto", "dataset": np.repeat(["20NG", "Movie"], 6), "topic": np.tile(range(6), 2)}
    )
    keys.assign(close=np.tile(close, 2), NPMI=np.tile(GOLD[::-1], 2)).to_csv(tmp_path / "scores.csv", index=False)
    args = ["validate", "--datasets", "all", "--datasets-dir", str(tmp_path), "-m", f"csv:{tmp_path / 'scores.csv'}"]
    result = CliRunner().invoke(app, [*args, "--n-resamples", "30", "--leave-one-out", "--out", str(tmp_path / "v")])
    assert result.exit_code == 0, result.output
    assert "20NG rating" in result.output and "Movie rating" in result.output
    assert "not present: hoyle2021" in result.output and "leave one data set out" in result.output
    bad = CliRunner().invoke(app, ["validate", "--datasets", "newman", "--out", str(tmp_path / "v2")])
    assert bad.exit_code == 2 and "unknown human data set 'newman'" in bad.output


# A slice of Hoyle et al.'s pilot study (github ahoho/topics 6c9c92c, previous-human-evals/pilot_study/leg.json,
# MIT licence, Copyright (c) 2021 Alexander Hoyle): three topics as released (the metrics but internal_npmi left
# out); nobody among the MTurk workers found topic 24's intruder.
# fmt: off
PILOT_ROWS = [  # topic_id, terms, crowdworker ratings and intrusion, experts', internal NPMI, MTurk ratings, MTurk picks, hits
    ('36', 'corporation foreign section income subsection purposes paragraph business year group', [1, 2, 2, 3, 1, 3, 1, 1, 3, 2, 2, 2, 2, 3, 1], [1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1], [2, 1, 1, 2], [0, 0, 1, 1], 0.1589, [2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 2, 3], 'foreign students foreign students subsection students students corporation corporation students students income corporation income corporation income', [0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0]),
    ('35', 'environmental federal permit act application applicable secretary section review proposed', [1, 2, 2, 3, 2, 2, 2, 2, 3, 3, 2, 2, 1, 2, 1], [0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0], [2, 2, 1, 1], [1, 1, 1, 1], 0.184, [2, 2, 2, 2, 2, 3, 2, 3, 1, 3, 3, 1, 1, 3, 3, 2], 'inserting application environmental act act environmental environmental inserting environmental inserting inserting inserting act inserting inserting environmental environmental act inserting', [1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1]),
    ('24', 'account section retirement employee employer savings contributions contribution code distribution', [2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 3], [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [3, 2, 2, 3], [0, 0, 0, 1], 0.2408, [3, 1, 2, 3, 2, 3, 2, 2, 2, 2, 3, 3, 3, 2, 2, 3, 2], 'section account section section section section account employee section account retirement account retirement retirement account section', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
]
# fmt: on


def pilot_record(topic_id, terms, crowd, intrusion, expert, expert_intrusion, npmi, mturk, picks, hits):
    """One topic of the release, as its JSON has it."""
    record = {"topic_id": topic_id, "terms": terms.split(), "crowdwork_ratings": crowd, "intrusion_ratings": intrusion}
    record |= {"expert_ratings": expert, "expert_intrusion": expert_intrusion, "internal_npmi": npmi}
    record |= {"mturk_ratings_data": {"answers": mturk}}
    return record | {"mturk_intrusion_data": {"answers": picks.split(), "bin_answers": hits}}


PILOT_SLICE = [pilot_record(*row) for row in PILOT_ROWS]


def test_hoyle_pilot_reader_on_a_slice_of_the_release(tmp_path):
    import json

    folder = tmp_path / "hoyle2021pilot"
    folder.mkdir()
    (folder / "leg.json").write_text(json.dumps(PILOT_SLICE))
    judgments, absent = dataset_judgments(["hoyle2021pilot", "hoyle2021"], tmp_path)
    assert absent == ["hoyle2021"]
    by_name = {j.name: j for j in judgments}
    assert list(by_name) == [
        "leg rating",
        "leg intrusion",
        "leg rating (MTurk)",
        "leg intrusion (MTurk)",
        "leg rating (experts)",
        "leg intrusion (experts)",
    ]
    keys = {
        "leg rating": lambda r: r["crowdwork_ratings"],
        "leg intrusion": lambda r: r["intrusion_ratings"],
        "leg rating (MTurk)": lambda r: r["mturk_ratings_data"]["answers"],
        "leg intrusion (MTurk)": lambda r: r["mturk_intrusion_data"]["bin_answers"],
        "leg rating (experts)": lambda r: r["expert_ratings"],
        "leg intrusion (experts)": lambda r: r["expert_intrusion"],
    }
    for name, judgment in by_name.items():
        assert judgment.topics["topic"].tolist() == [36, 35, 24] and set(judgment.topics["dataset"]) == {"pilot-leg"}
        expected = [np.mean(keys[name](r)) for r in PILOT_SLICE]
        assert judgment.answers.means().tolist() == pytest.approx(expected)
        assert judgment.answers.sizes.tolist() == [len(keys[name](r)) for r in PILOT_SLICE]
        scale = {1.0, 2.0, 3.0} if "rating" in name else {0.0, 1.0}
        assert set(judgment.answers.values) <= scale and judgment.task == (
            "rating" if "rating" in name else "word-intrusion"
        )
        assert judgment.given["NPMI/internal"].tolist() == [0.1589, 0.184, 0.2408]
        assert judgment.given["NPMI/external"].isna().all()  # absent from the slice: missing, never made up
    assert by_name["leg rating"].words()[2][:3] == ["account", "section", "retirement"]
    sets, ids = by_name["leg intrusion (MTurk)"].sets["leg"]
    assert ids.tolist() == [36, 35]  # topic 24's intruder was never picked: its set is unknown
    assert [(s.topic, s.words, s.intruder) for s in sets] == [
        (0, ("corporation", "foreign", "section", "income", "subsection", "students"), "students"),
        (1, ("environmental", "federal", "permit", "act", "application", "inserting"), "inserting"),
    ]
    assert all(not j.sets for name, j in by_name.items() if name != "leg intrusion (MTurk)")
    (folder / "leg.json").write_text(json.dumps({"topics": []}))
    with pytest.raises(InputError, match="pilot study"):
        dataset_judgments(["hoyle2021pilot"], tmp_path)
