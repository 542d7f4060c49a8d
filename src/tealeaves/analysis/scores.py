"""Human scores of topic quality: model precision, topic log odds and mean ratings.

- Model precision (Chang et al. 2009, eq. 1): the share of subjects who pick the intruder word,
  :math:`MP^m_k = \\sum_s 1(i^m_{k,s} = \\omega^m_k) / S`.
- Topic log odds (Chang et al. 2009, eq. 2): for document :math:`d` with the model's point
  estimate :math:`\\hat\\theta^m_d`, :math:`TLO^m_d = \\sum_s (\\log \\hat\\theta^m_{d,j^m_{d,*}} -
  \\log \\hat\\theta^m_{d,j^m_{d,s}}) / S`, where :math:`j_{d,*}` is the true intruder topic and
  :math:`j_{d,s}` the one subject :math:`s` chose; its upper bound is 0.
- Mean rating (Newman et al. 2010; Hoyle et al. 2021 §5): the arithmetic mean of the ratings.

Scores are computed per item (topic or document: the task's
:attr:`~tealeaves.study.tasks.HumanTask.unit`) by the item's task
(:meth:`~tealeaves.study.tasks.HumanTask.item_score`, where :func:`model_precision` and
:func:`topic_log_odds` are defined) and aggregated per model as the mean over its items; both
tables are kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tealeaves.analysis.responses import responses_frame
from tealeaves.errors import EmptyResultError
from tealeaves.results import Result
from tealeaves.study.tasks.base import UNIT_COLUMNS
from tealeaves.study.tasks.registry import task_named
from tealeaves.study.tasks.topic_intrusion import topic_log_odds
from tealeaves.study.tasks.word_intrusion import model_precision

__all__ = ["HumanScores", "human_scores", "model_precision", "topic_log_odds"]


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
    responses = responses_frame(responses, "human_scores' responses")
    if responses.empty:
        raise EmptyResultError("no responses left to score (check the filters and the export)")
    rows = []
    for (task, model), part in responses.groupby(["task", "model"], sort=True):
        spec = task_named(task)
        for item, group in part.groupby(UNIT_COLUMNS[spec.unit], sort=True):
            score = spec.item_score(group)
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
        .assign(measure=lambda f: f["task"].map(lambda task: task_named(task).measure))
    )
    return HumanScores(per_item=per_item, per_model=per_model, filters=dict(responses.attrs.get("filters", {})))
