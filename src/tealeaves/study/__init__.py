"""Human evaluation studies (Chang et al. 2009 §3; Hoyle et al. 2021 §5).

- :func:`create_study` makes the items of a word-intrusion, topic-intrusion or ratings study (or
  of a registered task: :mod:`tealeaves.study.tasks`, each task in one module) from one or more
  models and writes the study folder (:class:`Study`);
- :func:`tealeaves.study.web.serve` (``tealeaves study serve``) runs the web app annotators use
  (:mod:`tealeaves.study.web`);
- :class:`Store` keeps the responses (SQLite or PostgreSQL);
- :func:`export_responses`, :func:`write_responses`, :func:`qualtrics_survey`,
  :func:`import_qualtrics` move responses and items in and out.
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.study.design import ANNOTATORS_PER_ITEM, Study, create_study, default_annotators
    from tealeaves.study.exchange import (
        export_responses,
        import_qualtrics,
        qualtrics_survey,
        write_qualtrics_survey,
        write_responses,
    )
    from tealeaves.study.items import synthetic_topics
    from tealeaves.study.schema import AUDIT_COLUMNS, EXPORT_COLUMNS, TASKS
    from tealeaves.study.store import SCHEMA_VERSION, Store
    from tealeaves.study.tasks.base import HumanTask, TopicTask
    from tealeaves.study.tasks.item import Item
    from tealeaves.study.tasks.registry import register_task, task_named, task_names

__getattr__, __dir__ = attach(__name__, __file__, extra="study")

__all__ = [
    "ANNOTATORS_PER_ITEM",
    "AUDIT_COLUMNS",
    "EXPORT_COLUMNS",
    "SCHEMA_VERSION",
    "TASKS",
    "HumanTask",
    "Item",
    "Store",
    "Study",
    "TopicTask",
    "create_study",
    "default_annotators",
    "export_responses",
    "import_qualtrics",
    "qualtrics_survey",
    "register_task",
    "synthetic_topics",
    "task_named",
    "task_names",
    "write_qualtrics_survey",
    "write_responses",
]
