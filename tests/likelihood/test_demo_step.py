"""The demo's likelihood step: LR per token for models with a prior, Chang's metrics for every model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tealeaves.console import console
from tealeaves.corpus import Vocabulary
from tealeaves.demo import STEPS, DemoRun, step_likelihood
from tealeaves.likelihood import estimate, exact, predictive, synthetic_corpus
from tealeaves.models import TopicModel
from tealeaves.models.inference import INFERENCE

from .tiny import peaked_model


def test_step_reports_both_metrics_for_every_model(tmp_path, monkeypatch):
    monkeypatch.setitem(INFERENCE, "toy-no-prior", "tests.likelihood.test_predictive:toy_fold_in")
    phi, alpha = peaked_model(4, 30, seed=9)
    vocab = Vocabulary([f"w{i}" for i in range(30)])
    lda = TopicModel(vocab, phi, alpha=alpha, kind="lda-gibbs")
    no_prior = TopicModel(vocab, phi, kind="toy-no-prior")
    heldout = synthetic_corpus(lda, None, 60, 30, seed=4)
    run = DemoRun(out=tmp_path, heldout=heldout, models={"lda-gibbs": lda, "toy": no_prior}, seed=2)
    with console.capture() as captured:
        step_likelihood(run)
    text = captured.get()
    # The step's LR total must be the exact total log P(w) (enumeration, 4 topics x 30 tokens) within
    # 4 standard deviations of one LR run, estimated from 5 further independent runs per document.
    frame = pd.read_csv(tmp_path / "likelihood" / "lda-gibbs-left-to-right.csv")
    truth = sum(exact(phi, alpha, heldout.doc(d)) for d in range(len(heldout)))
    spread = estimate(lda, None, heldout, method="left-to-right", seed=3, runs=5).run_log_prob.var(axis=0, ddof=1)
    assert abs(frame.log_prob.sum() - truth) < 4 * np.sqrt(spread.sum()), (frame.log_prob.sum(), truth)
    assert f"{frame.log_prob.sum() / heldout.n_tokens:.4g}" in text and "LR-sis R=1000" in text
    assert "no Dirichlet prior" in text
    assert not (tmp_path / "likelihood" / "toy-left-to-right.csv").exists()
    for name, model in run.models.items():
        chang = predictive(model, heldout, seed=2)
        frame = pd.read_csv(tmp_path / "likelihood" / f"{name}-predictive.csv")
        assert np.allclose(frame["rank"], chang.rank)
        assert f"{chang.mean_rank:.4g}" in text


def test_step_runs_after_every_training_step():
    names = [step.__name__ for step in STEPS]
    assert names.index("step_likelihood") > max(i for i, n in enumerate(names) if n in ("step_train", "step_models"))


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch):
    monkeypatch.setattr(console, "width", 200)
