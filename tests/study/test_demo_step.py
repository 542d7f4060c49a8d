"""The demo's study step creates a study from the demo's models and says how to serve it."""

from __future__ import annotations

from tealeaves.console import console
from tealeaves.demo import DemoRun, step_study
from tealeaves.study import Study


def test_demo_step_creates_a_servable_study(models, tmp_path):
    run = DemoRun(out=tmp_path, models=dict(models))
    with console.capture() as captured:
        step_study(run)
    study = Study.load(tmp_path / "study")
    assert study.task == "word-intrusion" and study.labels == list(models)
    assert (tmp_path / "study.qsf").is_file()
    assert f"tealeaves study serve {tmp_path / 'study'}" in captured.get()
