"""tealeaves.stats works in the core install: NumPy and SciPy, no pandas, no statsmodels (``make test-core``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.core

PROGRAM = """
import json, sys
import numpy as np
from tealeaves import stats
rng = np.random.default_rng(0)
a, b = rng.normal(size=12), rng.normal(2, size=12)
values = {
    "welch": stats.welch_test(a, b).pvalue,
    "paired": stats.paired_t_test(a, b).pvalue,
    "permutation": stats.permutation_test(a, b, rng, 99).pvalue,
    "holm": stats.holm([0.01, 0.04]).tolist(),
    "bh": stats.benjamini_hochberg([0.01, 0.04]).tolist(),
    "interval": stats.bootstrap_t_interval(a),
    "mdd": stats.minimal_detectable_difference(0.1, 20),
    "tost": stats.tost_pvalue(0.01, 0.02, 20, 0.05),
    "boot": stats.paired_ratio_bootstrap({0: (a, np.ones(12))}, 5, rng)[0].tolist(),
}
print(json.dumps({"values": values, "loaded": [m for m in ("pandas", "statsmodels") if m in sys.modules]}))
"""


def test_stats_run_without_pandas_or_statsmodels():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["loaded"] == []
    assert 0 < out["values"]["welch"] < 0.05 and out["values"]["holm"] == [0.02, 0.04]
