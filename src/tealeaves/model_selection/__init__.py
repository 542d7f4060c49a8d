"""Hoyle et al.'s (2021, §4.2, Appendix A.3) model selection: train, score, filter and select.

- :func:`sweep`: draw settings of each model type from Table 8's grid (:data:`SPACES`, the
  authors' :data:`CONSTRAINTS` and :data:`FIXED` settings), train and score each on Dask, and keep the model with the best
  NPMI among those that pass the redundancy filters;
- :class:`SweepConfig`: what a sweep trains and how it scores (its TOML file);
- :class:`SweepResult` and :func:`select_best`: the trials, and the selection from the results table.

It sits above ``models`` (it trains) and ``coherence`` (it scores and filters).
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.model_selection.config import SweepConfig
    from tealeaves.model_selection.run import (
        FailedTrialsWarning,
        SweepResult,
        plan,
        results_frame,
        run_trial,
        select_best,
        sweep,
    )
    from tealeaves.model_selection.space import CONSTRAINTS, FIXED, SPACES, cap_steps, draw_settings

__getattr__, __dir__ = attach(__name__, __file__, extra="sweep")

__all__ = [
    "CONSTRAINTS",
    "FIXED",
    "SPACES",
    "FailedTrialsWarning",
    "SweepConfig",
    "SweepResult",
    "cap_steps",
    "draw_settings",
    "plan",
    "results_frame",
    "run_trial",
    "select_best",
    "sweep",
]
