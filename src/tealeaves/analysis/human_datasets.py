"""The public data sets of human judgments of topics: where each comes from, its shape, and its reader.

:data:`HUMAN_DATASETS` lists every public set of human judgments of topics that the project
knows of, with its paper, source (repository and commit, or the page it is published on),
licence, shape (answers or means, scale, annotators), the reference corpus its authors scored
coherence against and what stands in for it here, and whether it can be fetched at all.
:func:`dataset_judgments` reads every one present under a data folder (``tealeaves validate
--datasets all``), each through its reader: Hoyle et al.'s release
(:func:`~tealeaves.analysis.hoyle2021_judgments`), the pilot study released beside it
(:func:`hoyle_pilot_judgments`), the evaluation sets of Röder et al.'s Palmetto
(:func:`palmetto_judgments`: a topics file and a gold file of mean ratings per set), or a
generic CSV (:func:`~tealeaves.analysis.csv_judgments`). A set that is not present is
reported, never guessed at.

Lau and Baldwin's (2016) ratings (``jhlau/topic-coherence-sensitivity``) are deliberately not
listed: they are kept aside for an independent check of what this leaderboard selects.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tealeaves.analysis.correlation import RaggedScores
from tealeaves.analysis.judgments import HumanJudgments, hoyle2021_judgments
from tealeaves.errors import InputError


@dataclass(frozen=True)
class HumanDataset:
    """One public data set of human judgments of topics.

    Attributes
    ----------
    name : str
        Its name for ``--datasets`` and its folder under the data folder.
    paper : str
        The paper that released it.
    source : str
        Where it comes from: a repository and commit with the path, or the page it is on.
    licence : str
        Its licence, as stated where it is published ("unstated" when nothing is).
    shape : str
        Answers or means, the scale and the annotators.
    reference : str
        The reference corpus its authors scored coherence against.
    stand_in : str
        What stands in for that corpus here.
    reader : str
        ``hoyle2021``, ``hoyle-pilot``, ``palmetto``, ``csv`` or ``""`` when no reader applies (not public).
    status : str
        ``shared data`` (in the project's shared data folder), ``download`` (public, fetched and
        unpacked by hand into the folder, then read as it is), ``public, not read`` (released, but
        in a form no reader here takes, or not reachable from here; the entry says why) or ``not
        public`` (no released judgments were found; the entry says what was looked at).

    Examples
    --------
    >>> from tealeaves.analysis import HUMAN_DATASETS
    >>> [(d.name, d.status) for d in HUMAN_DATASETS][:4]
    [('hoyle2021', 'shared data'), ('hoyle2021pilot', 'download'), ('palmetto', 'download'), ('newman2010', 'not public')]
    >>> HUMAN_DATASETS[0].licence
    'MIT (the repository licence)'
    """

    name: str
    paper: str
    source: str
    licence: str
    shape: str
    reference: str
    stand_in: str
    reader: str
    status: str


STAND_INS = "20 Newsgroups and AP (../shared/data) as reference indexes; the packaged all-MiniLM-L6-v2 encoder"

HUMAN_DATASETS: tuple[HumanDataset, ...] = (
    HumanDataset(
        "hoyle2021",
        "Hoyle et al. 2021, Is automated topic model evaluation broken? (NeurIPS)",
        "github ahoho/topics, data/human/all_data/ (all_data.json, {nytimes,wikitext}_{ratings,intrusion}.csv)",
        "MIT (the repository licence)",
        "answers: 300 topics (3 models x 50, NYT and WikiText-103), ratings 1-3 (15 per topic) and word "
        "intrusion 0/1 (26 per topic), crowd workers (Prolific), familiarity per answer; the intruder words "
        "shown are not in the release: the raw Qualtrics exports (data/human/all_data/{nyt,wikitext}_intrusion_"
        "[1-4].csv) name only the intruder's topic (column nytimes_mallet_20_42: topic 20, intruder from topic "
        "42), the word was drawn at random among that topic's top 5 (survey_tools/generate_intrusion_survey.py) "
        "and not recorded, so WI-Auto draws its own sets here",
        "the full NYT (1.8M documents) and Wikipedia (4.6M documents), gensim's NPMI and C_v (given columns)",
        STAND_INS + "; the authors' own NPMI and C_v come with the data",
        "hoyle2021",
        "shared data",
    ),
    HumanDataset(
        "hoyle2021pilot",
        "Hoyle et al. 2021's pilot study (the human evaluations before the main study, released beside it)",
        "github ahoho/topics commit 6c9c92c, previous-human-evals/pilot_study/{news,covid,leg}.json "
        "(likerts.csv there holds the same ratings; fetch: git clone, copy the three JSON files into DIR/hoyle2021pilot)",
        "MIT (the repository licence)",
        "answers: 100 topics of one model per corpus (20 news, 40 CORD-19 'covid', 40 US legislation 'leg'; "
        "10 words each), per topic 15 crowdworker ratings 1-3 and 15 word-intrusion answers 0/1, 16-17 MTurk "
        "ratings and 16-19 MTurk intrusion answers (with the word picked, so the intruder is known), and for "
        "covid and leg 4-7 expert ratings and intrusion answers",
        "'internal' (the training corpus) and 'external' NPMI and w2v similarity, given per topic (the external "
        "corpus is not named in the release)",
        STAND_INS + "; the authors' internal/external NPMI and w2v come with the data",
        "hoyle-pilot",
        "download",
    ),
    HumanDataset(
        "palmetto",
        "Röder et al. 2015, Exploring the space of topic coherence measures (WSDM): the evaluation sets of "
        "Aletras & Stevenson 2013 (20NG, Genomics, NYT), Chang et al. 2009 / Lau et al. 2014 (RTL-NYT, "
        "RTL-Wiki) and Rosner et al. 2014 (Movie)",
        "the Palmetto project page (dice-research.org/Palmetto, the data sets' archive); not in the "
        "repository dice-group/Palmetto (commit 6185dfd has the gold-standard reader, no data); searched again "
        "for the files' names (topics20NG, gold20NG, topicsNYT, topicsGenomics, goldMovie, RTL-NYT): only "
        "manucouto1/A-Study-of-Word-Embedding-Models-for-Measuring-Topic-Coherence names them "
        "(src/experiments/configs.py: data/topics20NG.txt ...) without holding them",
        "unstated for the data (Palmetto's code is AGPL-3.0); not bundled",
        "means: per set a topics file (one topic a line, 10 words) and a gold file (the mean rating of each "
        "topic, scale 1-3), 100 to 1,095 topics per set; the answers and annotators are not released",
        "Wikipedia (Palmetto's index); the sets' own corpora for the authors' in-domain scores",
        STAND_INS + "; Wikipedia, NYT, PubMed and movie reviews are not available here",
        "palmetto",
        "download",
    ),
    HumanDataset(
        "newman2010",
        "Newman et al. 2010, Automatic evaluation of topic coherence (NAACL)",
        "no public release found (searched GitHub snapshots for the ratings of their NYT and books topics)",
        "-",
        "means of 9 ratings per topic on 1-3 (paper)",
        "Wikipedia, Google n-grams",
        "-",
        "",
        "not public",
    ),
    HumanDataset(
        "mimno2011",
        "Mimno et al. 2011, Optimizing semantic coherence in topic models (EMNLP)",
        "no public release found (expert ratings of NIH-grant topics)",
        "-",
        "expert ratings good / intermediate / bad of 148 topics (paper)",
        "the training corpus (UMass coherence)",
        "-",
        "",
        "not public",
    ),
    HumanDataset(
        "lau2014",
        "Lau et al. 2014, Machine reading tea leaves (EACL)",
        "github jhlau/topic_interpretability commit f46a38b, data/: the topics and their intruder words only, "
        "no human answers; its ratings (RTL-NYT, RTL-Wiki) are those of the palmetto entry",
        "unstated",
        "topics and intruders; the word-intrusion answers are not in the repository",
        "Wikipedia",
        "-",
        "",
        "not public",
    ),
    HumanDataset(
        "stammbach2023",
        "Stammbach et al. 2023, Revisiting automated topic model evaluation with large language models (EMNLP)",
        "github dominiksinsaarland/evaluating-topic-model-output: reuses Hoyle et al.'s human data; its own "
        "files (LLM-scores/) are language-model answers, not human judgments",
        "-",
        "no new human judgments",
        "-",
        "-",
        "",
        "not public",
    ),
    HumanDataset(
        "rahimi2024",
        "Rahimi et al. 2024, Contextualized topic coherence metrics (EACL Findings)",
        "github hamedR96/CTC commit 26c9685: metric and chatbot outputs (Expriment/*.txt); no human ratings",
        "MIT (code)",
        "no human judgments in the repository",
        "-",
        "-",
        "",
        "not public",
    ),
    HumanDataset(
        "korencic2018",
        "Korenčić et al. 2018, Document-based topic coherence measures for news media text (Expert Systems "
        "with Applications)",
        "github dkorenci/doc-topic-coherence-data commit 5e269a0: uspol/ and croelect/ alltopics_labeled.pickle "
        "(topics labelled by annotators as semantic topics or not), *_semantic_topics.xlsx, the topic models",
        "CC BY-SA 4.0",
        "labels per topic (US and Croatian news topics), as pickled Python objects of the authors' code; the "
        "topics' words are inside pickled gensim models: no reader here (unpickling needs their code and "
        "would run it)",
        "Palmetto's Wikipedia index; the news corpora (not released)",
        "-",
        "",
        "public, not read",
    ),
    HumanDataset(
        "khodorchenko2022",
        "Khodorchenko et al. 2022, Towards better evaluation of topic model quality (FRUCT)",
        "kaggle marykh/marked-up-topic-quality (named by github repositories of the authors' group); Kaggle is "
        "not reachable from here",
        "unknown (Kaggle page not read)",
        "topics marked up by people for quality (paper)",
        "-",
        "-",
        "",
        "public, not read",
    ),
    HumanDataset(
        "james2024",
        "Karakkaparambil James et al. 2024, Evaluating dynamic topic models (ACL)",
        "no release of their human evaluation found (GitHub snapshots, pages); Yang et al. 2024 (LLM readers) "
        "and other LLM-era studies found reuse Hoyle et al.'s judgments or release LLM answers only",
        "-",
        "human ratings of topic evolution (paper)",
        "-",
        "-",
        "",
        "not public",
    ),
    HumanDataset(
        "doogan2021",
        "Doogan & Buntine 2021, Topic model or topic twaddle? (NAACL)",
        "no repository with their human ratings found",
        "-",
        "ratings and word intrusion of topics from news and tweets (paper)",
        "-",
        "-",
        "",
        "not public",
    ),
)
"""Every public data set of human judgments of topics the project knows of (Lau & Baldwin 2016 kept aside)."""


def dataset_names() -> list[str]:
    """The names ``--datasets`` accepts: every entry of :data:`HUMAN_DATASETS` with a reader."""
    return [d.name for d in HUMAN_DATASETS if d.reader]


def dataset_judgments(
    names: list[str] | tuple[str, ...], root: str | os.PathLike[str], familiar_only: bool = False
) -> tuple[list[HumanJudgments], list[str]]:
    """The human judgments of every named data set present under ``root``, and the names that are absent.

    Each data set is read from ``root / NAME`` by its reader (:data:`HUMAN_DATASETS`); a folder
    of ``*.csv`` files of :func:`~tealeaves.analysis.csv_judgments`' shape under ``root / NAME``
    is read too, for a set converted by hand.

    Parameters
    ----------
    names : list of str
        Names of :data:`HUMAN_DATASETS`, or ``["all"]`` for every one with a reader.
    root : str or path-like
        The folder holding one folder per data set (e.g. ``../shared/data/human``).
    familiar_only : bool, optional
        Keep only the answers of annotators familiar with the terms (Hoyle et al.'s sets).

    Returns
    -------
    tuple of (list of HumanJudgments, list of str)
        The judgments read, and the names whose folder is absent.

    Raises
    ------
    InputError
        For an unknown name, or one with no public data to read.

    Examples
    --------
    A Palmetto-style set unpacked under a data folder; Hoyle et al.'s is absent there:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.analysis.human_datasets import dataset_judgments
    >>> root = tempfile.TemporaryDirectory()
    >>> folder = Path(root.name) / "palmetto"
    >>> folder.mkdir()
    >>> _ = (folder / "topicsDemo.txt").write_text("tax budget law\\nwar peace army\\ncourt judge trial\\n")
    >>> _ = (folder / "goldDemo.txt").write_text("2.5\\n2.9\\n1.4\\n")
    >>> judgments, absent = dataset_judgments(["all"], root.name)
    >>> [j.name for j in judgments], absent
    (['Demo rating'], ['hoyle2021', 'hoyle2021pilot'])
    >>> root.cleanup()
    """
    known = {d.name: d for d in HUMAN_DATASETS}
    wanted = dataset_names() if list(names) == ["all"] else list(names)
    for name in wanted:
        if name not in known:
            raise InputError(f"unknown human data set {name!r}; choose among {', '.join(dataset_names())} or all")
        if not known[name].reader:
            raise InputError(f"{name}: {known[name].source}; there is nothing to read (see HUMAN_DATASETS)")
    out: list[HumanJudgments] = []
    absent = []
    for name in wanted:
        folder = Path(root) / name
        if not folder.is_dir():
            absent.append(name)
            continue
        out += _read(known[name].reader, folder, familiar_only)
    return out, absent


def _read(reader: str, folder: Path, familiar_only: bool) -> list[HumanJudgments]:
    from tealeaves.analysis.judgments import csv_judgments

    if reader == "hoyle2021":
        return hoyle2021_judgments(folder, familiar_only)
    if reader == "hoyle-pilot":
        return hoyle_pilot_judgments(folder)
    out = palmetto_judgments(folder) if reader == "palmetto" else []
    for path in sorted(folder.glob("*.csv")):
        out += csv_judgments(path)
    return out


def palmetto_judgments(folder: str | os.PathLike[str]) -> list[HumanJudgments]:
    """The evaluation sets of Röder et al.'s Palmetto: one means-only data set per ``topicsNAME.txt`` + ``goldNAME.txt``.

    A topics file holds one topic a line (its words separated by spaces, in rank order); the
    gold file beside it holds, line for line, the topic's mean human rating (Palmetto's
    ``GoldStandardReader``: one number a line). The answers and annotators were not released,
    so each set is means-only: its intervals come from the topic bootstrap. A set is named by
    the part of the file names after ``topics`` / ``gold`` (``topicsMovie.txt`` and
    ``goldMovie.txt``: ``Movie rating``).

    Parameters
    ----------
    folder : str or path-like
        The folder the Palmetto archive was unpacked into (searched recursively).

    Returns
    -------
    list of HumanJudgments
        One per pair of files, in the order of their names.

    Raises
    ------
    InputError
        When a topics file has no gold file, their line counts differ or a gold line is not a
        number.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.analysis.human_datasets import palmetto_judgments
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "topicsNews.txt").write_text("tax budget law\\nwar peace army\\ncourt judge trial\\n")
    ...     _ = (Path(folder) / "goldNews.txt").write_text("2.5\\n2.9\\n1.4\\n")
    ...     [news] = palmetto_judgments(folder)
    >>> news.name, news.means_only, news.answers.means().tolist(), news.words()[1]
    ('News rating', True, [2.5, 2.9, 1.4], ['war', 'peace', 'army'])
    """
    from tealeaves.textfiles import read_text

    out = []
    for topics_path in sorted(Path(folder).rglob("topics*.txt")):
        name = topics_path.stem[len("topics") :] or topics_path.parent.name
        gold_path = topics_path.with_name(f"gold{topics_path.stem[len('topics') :]}.txt")
        if not gold_path.is_file():
            raise InputError(f"{topics_path} has no gold file {gold_path.name} beside it (one mean rating a line)")
        topics = [line.split() for line in read_text(topics_path).splitlines() if line.strip()]
        gold_lines = [line.strip() for line in read_text(gold_path).splitlines() if line.strip()]
        if len(topics) != len(gold_lines):
            raise InputError(
                f"{topics_path.name} has {len(topics)} topics but {gold_path.name} {len(gold_lines)} ratings"
            )
        try:
            gold = [float(line) for line in gold_lines]
        except ValueError as error:
            raise InputError(f"{gold_path}: every line must be one number (a mean rating): {error}") from None
        frame = pd.DataFrame(
            {"dataset": name, "model": "palmetto", "topic": range(len(topics)), "words": [" ".join(t) for t in topics]}
        )
        answers = RaggedScores([np.array([g]) for g in gold])
        out.append(HumanJudgments(f"{name} rating", "rating", frame, answers, means_only=True))
    return out


PILOT_CORPORA = ("news", "covid", "leg")
"""The corpora of Hoyle et al.'s pilot study, one ``NAME.json`` each."""
PILOT_GIVEN = {"internal_npmi": "NPMI/internal", "external_npmi": "NPMI/external", "internal_w2v": "w2v/internal"}
PILOT_GIVEN |= {"external_w2v": "w2v/external"}


def hoyle_pilot_judgments(folder: str | os.PathLike[str]) -> list[HumanJudgments]:
    """Hoyle et al.'s pilot study (``ahoho/topics``, ``previous-human-evals/pilot_study``): up to six data sets per corpus.

    Each ``NAME.json`` (``news``, ``covid``, ``leg``) is a list of topics, each with its 10
    ``terms`` and its answers: ``crowdwork_ratings`` (1-3) and ``intrusion_ratings`` (0/1) of
    crowdworkers, ``mturk_ratings_data`` and ``mturk_intrusion_data`` of MTurk workers, and, where
    present, ``expert_ratings`` and ``expert_intrusion``. Data sets: ``NAME rating``, ``NAME
    intrusion`` (crowdworkers), ``NAME rating (MTurk)``, ``NAME intrusion (MTurk)``, ``NAME rating
    (experts)``, ``NAME intrusion (experts)``; the topics' ``dataset`` is ``pilot-NAME`` (one topic
    source each) and the given metrics ``NPMI/internal``, ``NPMI/external``, ``w2v/internal`` and
    ``w2v/external``. The MTurk intrusion answers name the word picked, so the set each topic
    showed is known: its top 5 terms and the word whose pick counts as correct (every answer of
    the release lies among these six); a topic whose intruder nobody found has no known set.

    Parameters
    ----------
    folder : str or path-like
        The folder holding the JSON files (any of the three may be absent).

    Returns
    -------
    list of HumanJudgments

    Raises
    ------
    InputError
        When a file is not a list of topics with ``topic_id``, ``terms`` and ``crowdwork_ratings``.

    Examples
    --------
    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.analysis.human_datasets import hoyle_pilot_judgments
    >>> topic = {"topic_id": "7", "terms": ["tax", "budget", "deficit", "spending", "revenue", "bill"],
    ...          "crowdwork_ratings": [3, 2, 3], "intrusion_ratings": [1, 1, 0], "internal_npmi": 0.2,
    ...          "mturk_ratings_data": {"answers": [3, 3]},
    ...          "mturk_intrusion_data": {"answers": ["war", "tax", "war"], "bin_answers": [1, 0, 1]}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "leg.json").write_text(json.dumps([topic, {**topic, "topic_id": "9"}]))
    ...     judgments = hoyle_pilot_judgments(folder)
    >>> [j.name for j in judgments]
    ['leg rating', 'leg intrusion', 'leg rating (MTurk)', 'leg intrusion (MTurk)']
    >>> sets, ids = judgments[3].sets["leg"]
    >>> sets.sets[0].words, sets.sets[0].intruder, ids.tolist()
    (('tax', 'budget', 'deficit', 'spending', 'revenue', 'war'), 'war', [7, 9])
    """
    from tealeaves.intrusion import IntruderSet, IntruderSets
    from tealeaves.textfiles import read_text

    out = []
    for corpus in PILOT_CORPORA:
        path = Path(folder) / f"{corpus}.json"
        if not path.is_file():
            continue
        try:
            records = json.loads(read_text(path))
        except json.JSONDecodeError as error:
            raise InputError(f"cannot read {path} as JSON: {error}") from None
        if not isinstance(records, list) or not all(
            isinstance(r, dict) and {"topic_id", "terms", "crowdwork_ratings"} <= set(r) for r in records
        ):
            raise InputError(
                f"{path}: expected a list of topics with topic_id, terms and crowdwork_ratings (Hoyle et al.'s pilot study)"
            )
        ids = np.array([int(r["topic_id"]) for r in records])
        topics = pd.DataFrame(
            {
                "dataset": f"pilot-{corpus}",
                "model": corpus,
                "topic": ids,
                "words": [" ".join(r["terms"]) for r in records],
            }
        )
        given = pd.DataFrame(
            {label: [r.get(key, np.nan) for r in records] for key, label in PILOT_GIVEN.items()}, dtype=float
        )
        items: list[IntruderSet] = []
        known: list[int] = []
        for r in records:  # the MTurk set: the top 5 terms and the one word whose pick counts as correct
            intrusion = r.get("mturk_intrusion_data") or {}
            found = {a for a, hit in zip(intrusion.get("answers", []), intrusion.get("bin_answers", [])) if hit == 1}
            if len(found) == 1:
                items.append(IntruderSet(len(items), 0, (*r["terms"][:5], *found), 5, -1, 0))
                known.append(int(r["topic_id"]))
        columns = {
            "rating": lambda r: r["crowdwork_ratings"],
            "intrusion": lambda r: r.get("intrusion_ratings"),
            "rating (MTurk)": lambda r: (r.get("mturk_ratings_data") or {}).get("answers"),
            "intrusion (MTurk)": lambda r: (r.get("mturk_intrusion_data") or {}).get("bin_answers"),
            "rating (experts)": lambda r: r.get("expert_ratings"),
            "intrusion (experts)": lambda r: r.get("expert_intrusion"),
        }
        for label, answers_of in columns.items():
            answers = [answers_of(r) for r in records]
            if any(not a for a in answers):
                continue
            task = "rating" if label.startswith("rating") else "word-intrusion"
            shown = (IntruderSets(tuple(items), "study", 0, 0, -1), np.array(known))
            sets = {corpus: shown} if label == "intrusion (MTurk)" and items else {}
            scores = RaggedScores([np.asarray(a, dtype=np.float64) for a in answers])
            out.append(HumanJudgments(f"{corpus} {label}", task, topics, scores, given, sets))
    return out
