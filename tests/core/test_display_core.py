"""The notebook displays need no extra: a core result, model, corpus and index show themselves without
pandas or the evaluation's statistics (the interval of a mean over topics is tealeaves.stats') (run in ``.venv-core`` by ``make test-core``; also passes in full)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tealeaves.coherence import RefIndex, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.models import TopicModel

pytestmark = pytest.mark.core


def test_displays_in_the_core():
    vocab = Vocabulary(["tax", "budget", "war", "peace"])
    index = RefIndex.build(Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab))
    result = score([["tax", "budget"], ["war", "peace"]], index, measure="npmi", window="document")
    model = TopicModel(vocab, np.full((2, 4), 0.25), kind="flat")
    pages = [obj._repr_html_() for obj in (result, model, index, model.topics(2))]
    # NPMI 1 and log(3/2) / log 3; their mean ± t(0.975, 1) × s / √2 with t = 12.706 is [-3.324, 4.693],
    # shown clipped to NPMI's range and named
    assert "0.6845 [-1, 1]" in pages[0] and "model mean (95% CI, t over 2 topics)" in pages[0]
    assert "tax budget" in pages[0]
    assert "flat" in pages[1] and "budget" in pages[2] and "words per topic" in pages[3]
    if "pandas" not in sys.modules:  # the core: nothing of the frames or report extras was needed
        assert "tealeaves.evaluation.stats" not in sys.modules
