"""Human scores of topic quality: model precision, topic log odds and mean ratings.

- Model precision (Chang et al. 2009, eq. 1): the share of subjects who pick the intruder word,
  :math:`MP^m_k = \\sum_s 1(i^m_{k,s} = \\omega^m_k) / S`.
- Topic log odds (Chang et al. 2009, eq. 2): for document :math:`d` with the model's point
  estimate :math:`\\hat\\theta^m_d`, :math:`TLO^m_d = \\sum_s (\\log \\hat\\theta^m_{d,j^m_{d,*}} -
  \\log \\hat\\theta^m_{d,j^m_{d,s}}) / S`, where :math:`j_{d,*}` is the true intruder topic and
  :math:`j_{d,s}` the one subject :math:`s` chose; its upper bound is 0.
- Mean rating (Newman et al. 2010; Hoyle et al. 2021 §5): the arithmetic mean of the ratings.

Scores are computed per item (topic or document) and aggregated per model as the mean over its
items; both tables are kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tealeaves.errors import EmptyResultError, InputError
from tealeaves.results import Result


def model_precision(chosen, intruder) -> float:
    """Model precision of one topic (Chang et al. 2009, eq. 1).

    Parameters
    ----------
    chosen : array-like
        The word (or position) each subject selected, one per subject.
    intruder : str, int or array-like
        The true intruder word (or position) :math:`\\omega_k`, or one per subject when
        subjects saw differently shuffled sets.

    Returns
    -------
    float
        :math:`\\sum_s 1(i_{k,s} = \\omega_k) / S`.

    Raises
    ------
    EmptyResultError
        Without any answer.

    Examples
    --------
    Three of four subjects picked the intruder "apple":

    >>> from tealeaves.analysis import model_precision
    >>> model_precision(["apple", "apple", "tax", "apple"], "apple")
    0.75
    """
    chosen = np.asarray(chosen)
    if chosen.size == 0:
        raise EmptyResultError("model precision needs at least one subject's answer")
    return float(np.mean(chosen == np.asarray(intruder)))


def topic_log_odds(theta, chosen, intruder) -> float:
    """Topic log odds of one document (Chang et al. 2009, eq. 2).

    Parameters
    ----------
    theta : array-like or dict
        The model's :math:`\\hat\\theta_d`, indexed by the topic ids used in ``chosen``
        (a full K-vector, or a mapping ``{topic: proportion}`` for the options shown).
    chosen : int or array-like of int
        The topic each subject picked as the intruder (:math:`j_{d,s}`).
    intruder : int
        The true intruder topic :math:`j_{d,*}`.

    Returns
    -------
    float
        :math:`\\sum_s (\\log\\hat\\theta_{d,j_*} - \\log\\hat\\theta_{d,j_s}) / S` (natural logs, at
        most 0 when the true intruder has the smallest proportion among the options).

    Raises
    ------
    EmptyResultError
        Without any answer.
    InputError
        When a chosen topic has no :math:`\\hat\\theta` value, or a value is not positive.

    Examples
    --------
    The document is 50% topic 0, 30% topic 1 and 5% topic 3, the intruder. One subject
    found it (log odds 0), the other picked topic 1: :math:`(0 + \\log(0.05 / 0.3)) / 2`.

    >>> from tealeaves.analysis import topic_log_odds
    >>> round(topic_log_odds({0: 0.5, 1: 0.3, 3: 0.05}, [3, 1], 3), 4)
    -0.8959
    """
    chosen = list(np.atleast_1d(chosen))
    if not chosen:
        raise EmptyResultError("topic log odds needs at least one subject's answer")
    lookup = theta if isinstance(theta, dict) else dict(enumerate(np.asarray(theta, dtype=np.float64)))
    try:
        values = np.array([lookup[j] for j in chosen], dtype=np.float64)
        true = float(lookup[intruder])
    except KeyError as exc:
        raise InputError(f"topic {exc.args[0]} has no θ̂ value; pass θ̂ for every option shown") from None
    if true <= 0 or np.any(values <= 0):
        raise InputError("θ̂ must be strictly positive for topic log odds (log of zero); smooth θ̂ first")
    return float(np.mean(np.log(true) - np.log(values)))


@dataclass(frozen=True)
class HumanScores(Result):
    """Per-item human scores and their per-model means.

    ``per_item`` has one row per (task, model, item): ``task``, ``model``, ``item`` (topic index,
    or document id for topic intrusion), ``score`` (MP, TLO or mean rating), ``n`` (responses)
    and ``familiar_share`` (share of responses with familiarity 1, NaN when not asked).
    ``per_model`` has the mean, standard deviation and number of items per (task, model).

    Attributes
    ----------
    per_item : pandas.DataFrame
        One row per (task, model, item), as above.
    per_model : pandas.DataFrame
        Per (task, model): ``mean``, ``std``, ``items`` and ``measure`` (model precision,
        topic log odds or mean rating).
    filters : dict
        The filters :func:`~tealeaves.analysis.select` applied and what they removed.

    Examples
    --------
    >>> import pandas as pd
    >>> from tealeaves.analysis import check_export
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> rows = [  # annotator, model, topic, whether they found the intruder
    ...     ("a1", "lda", 0, True), ("a1", "lda", 1, True), ("a1", "nmf", 0, False), ("a1", "nmf", 1, True),
    ...     ("a2", "lda", 0, True), ("a2", "lda", 1, False), ("a2", "nmf", 0, False), ("a2", "nmf", 1, False),
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> export = check_export(frame.reindex(columns=list(EXPORT_COLUMNS)))
    >>> from tealeaves.analysis import human_scores
    >>> scores = human_scores(export)
    >>> scores
    HumanScores(per_item=4 rows × 6 columns, per_model=2 rows × 6 columns)
    >>> scores.per_item[["model", "item", "score", "n"]]
      model  item  score  n
    0   lda   0.0    1.0  2
    1   lda   1.0    0.5  2
    2   nmf   0.0    0.0  2
    3   nmf   1.0    0.5  2
    """

    per_item: pd.DataFrame
    per_model: pd.DataFrame
    filters: dict

    def to_frame(self) -> pd.DataFrame:
        return self.per_item.copy()

    def to_dict(self) -> dict:
        return {
            "filters": self.filters,
            "per_model": self.per_model.to_dict(orient="records"),
            "per_item": self.per_item.to_dict(orient="records"),
        }


SCORE_NAMES = {"word-intrusion": "model precision", "topic-intrusion": "topic log odds", "rating": "mean rating"}


def _tlo_row(group: pd.DataFrame) -> float:
    """TLO of one document from its responses; each row carries its own display order of options."""
    lookup: dict[int, float] = {}
    chosen = []
    for row in group.itertuples():
        topics = [int(t) for t in str(row.option_topics).split()]
        thetas = [float(t) for t in str(row.option_theta).split()]
        if len(topics) != len(thetas) or not 0 <= int(row.response) < len(topics):
            raise InputError(f"item {row.item_id}: option_topics, option_theta and the chosen position do not match")
        lookup.update(zip(topics, thetas))
        chosen.append(topics[int(row.response)])
    return topic_log_odds(lookup, chosen, int(float(group["intruder"].iloc[0])))


def human_scores(responses: pd.DataFrame) -> HumanScores:
    """Per-topic (per-document) and per-model human scores from long-format responses.

    ``responses`` holds the study export columns (:data:`tealeaves.study.schema.EXPORT_COLUMNS`)
    after :func:`tealeaves.analysis.responses.select` (attention checks out, optional familiarity
    filtering). Word intrusion gives model precision per topic (eq. 1), topic intrusion topic log
    odds per document (eq. 2), ratings the mean rating per topic.

    Parameters
    ----------
    responses : pandas.DataFrame
        The responses to score, one row per response.

    Returns
    -------
    HumanScores

    Raises
    ------
    EmptyResultError
        When there is no response.

    Examples
    --------
    Two annotators, two topics of each of two models: LDA's intruders were found 3 times in
    4, NMF's once.

    >>> import pandas as pd
    >>> from tealeaves.analysis import check_export
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> rows = [  # annotator, model, topic, whether they found the intruder
    ...     ("a1", "lda", 0, True), ("a1", "lda", 1, True), ("a1", "nmf", 0, False), ("a1", "nmf", 1, True),
    ...     ("a2", "lda", 0, True), ("a2", "lda", 1, False), ("a2", "nmf", 0, False), ("a2", "nmf", 1, False),
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> export = check_export(frame.reindex(columns=list(EXPORT_COLUMNS)))
    >>> from tealeaves.analysis import human_scores
    >>> human_scores(export).per_model[["model", "mean", "items", "measure"]]
      model  mean  items          measure
    0   lda  0.75      2  model precision
    1   nmf  0.25      2  model precision
    """
    if responses.empty:
        raise EmptyResultError("no responses left to score (check the filters and the export)")
    rows = []
    for (task, model), part in responses.groupby(["task", "model"], sort=True):
        key = "doc_id" if task == "topic-intrusion" else "topic"
        for item, group in part.groupby(key, sort=True):
            if task == "word-intrusion":
                score = model_precision(group["correct"].astype(bool), True)
            elif task == "topic-intrusion":
                score = _tlo_row(group)
            elif task == "rating":
                score = float(group["response"].astype(float).mean())
            else:
                raise InputError(f"unknown task {task!r}; expected one of {sorted(SCORE_NAMES)}")
            familiar = group["familiarity"].astype(float)
            rows.append(
                {
                    "task": task,
                    "model": model,
                    "item": item,
                    "score": score,
                    "n": len(group),
                    "familiar_share": float((familiar == 1).mean()) if familiar.notna().any() else np.nan,
                }
            )
    per_item = pd.DataFrame(rows)
    per_model = (
        per_item.groupby(["task", "model"], sort=True)["score"]
        .agg(mean="mean", std="std", items="count")
        .reset_index()
        .assign(measure=lambda f: f["task"].map(SCORE_NAMES))
    )
    return HumanScores(per_item=per_item, per_model=per_model, filters=dict(responses.attrs.get("filters", {})))
