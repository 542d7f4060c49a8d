"""`tealeaves study create | serve | export | import-qualtrics` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import httpx
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.study import AUDIT_COLUMNS, EXPORT_COLUMNS, Study
from tealeaves.study.testing import free_port

runner = CliRunner()


@pytest.fixture(scope="module")
def model_dirs(models, tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    paths = []
    for label, model in models.items():
        model.save(root / label.lower())
        paths.append(str(root / label.lower()))
    return paths


def test_create_export_and_import(model_dirs, tmp_path):
    out = tmp_path / "study"
    result = runner.invoke(
        app,
        ["study", "create", *model_dirs, "--task", "word-intrusion", "--out", str(out), "--seed", "3",
         "--protocol", "chang", "--annotators", "8", "--items-per-participant", "0.5", "--show-answer",
         "--per-participant-codes"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "tealeaves study serve" in result.output
    study = Study.load(out)
    assert study.settings["per_participant_codes"] and study.settings["timeout_minutes"] == 10
    assert study.completion_code not in result.output and (out / "secrets.json").stat().st_mode & 0o777 == 0o600
    assert study.labels == ["model_alpha", "model_beta"]
    assert study.settings["annotators"] == 8 and study.settings["items_per_participant"] == 10
    assert study.settings["protocol"] == "chang" and study.settings["show_answer"]

    result = runner.invoke(app, ["study", "export", str(out), "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 0, result.output
    assert list(pd.read_csv(tmp_path / "r.csv").columns) == [*EXPORT_COLUMNS, *AUDIT_COLUMNS]
    result = runner.invoke(app, ["study", "export", str(out), "--out", str(tmp_path / "s.qsf")])
    assert result.exit_code == 0 and json.loads((tmp_path / "s.qsf").read_text())["SurveyElements"]

    item = study.items[0]
    (tmp_path / "q.csv").write_text(
        f'ResponseId,PROLIFIC_PID,{item.item_id}\nR_1,abc,"{item.intruder_position + 1},7"\n'
    )
    result = runner.invoke(
        app, ["study", "import-qualtrics", str(out), str(tmp_path / "q.csv"), "--out", str(tmp_path / "q.parquet")]
    )
    assert result.exit_code == 0, result.output
    (row,) = pd.read_parquet(tmp_path / "q.parquet").itertuples()
    assert row.correct and row.familiarity == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["--task", "guessing"], "task must be one of"),
        (["--task", "topic-intrusion"], "pass the corpus"),
        (["--task", "rating", "--items-per-participant", "many"], "must be a number"),
    ],
)
def test_bad_input_exits_2_with_one_line(model_dirs, tmp_path, args, message):
    result = runner.invoke(app, ["study", "create", *model_dirs, "--out", str(tmp_path / "s"), *args])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "s").exists()


def test_serve_runs_the_app(model_dirs, tmp_path):
    out = tmp_path / "study"
    assert runner.invoke(app, ["study", "create", *model_dirs, "--task", "rating", "--out", str(out)]).exit_code == 0
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tealeaves.cli", "study", "serve", str(out), "--port", str(port),
         "--admin-token", "cli-admin-token", "--require-pid", "--starts-per-address", "5",
         "--sqlite-synchronous", "normal"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{base}/healthz")
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        assert health.json()["study_id"] == Study.load(out).study_id
        assert httpx.get(f"{base}/admin").status_code == 401
        login = httpx.post(f"{base}/admin/login", data={"token": "cli-admin-token"})
        assert login.status_code == 303 and "cli-admin-token" not in login.headers["set-cookie"]
        assert httpx.get(f"{base}/admin", cookies=login.cookies).status_code == 200
        assert httpx.get(f"{base}/").status_code == 400  # --require-pid
        assert "I agree" in httpx.get(f"{base}/", params={"PROLIFIC_PID": "abc"}).text
        assert (out / "responses.sqlite").exists()
    finally:
        process.terminate()
        output = process.communicate(timeout=30)[0]
    assert f"{base}/admin/login" in output and "cli-admin-token" not in output  # a token it did not make
    result = runner.invoke(app, ["study", "serve", str(out), "--sqlite-synchronous", "off"])
    assert result.exit_code == 2 and "synchronous must be one of full, normal" in result.output
    result = runner.invoke(app, ["study", "serve", str(out)], env={"TEALEAVES_FORWARDED_ALLOW_IPS": "*"})
    assert result.exit_code == 2 and "trusting every peer lets anyone choose their address" in result.output
    result = runner.invoke(app, ["study", "serve", str(out), "--root-path", "study/"])
    assert result.exit_code == 2 and "--root-path must start with /" in result.output


def test_an_address_the_server_cannot_listen_on_exits_2_before_the_banner(model_dirs, tmp_path):
    """A port outside 0-65535, a host that names nothing or is not this machine's, and a port another server
    holds: one line, exit 2, no admin token printed. uvicorn raised OverflowError, or printed the banner and
    the token and then an ERROR line, exit 1 or 3."""
    import socket

    out = tmp_path / "study"
    assert runner.invoke(app, ["study", "create", *model_dirs, "--task", "rating", "--out", str(out)]).exit_code == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        cases = [
            (["--port", "99999"], "port must be a whole number from 0 to 65535, got 99999"),
            (["--port", "-1"], "got -1"),
            (["--host", "999.1.1.1"], "cannot serve on host '999.1.1.1': "),
            (["--host", "192.0.2.1"], "cannot serve on 192.0.2.1:8000: "),  # TEST-NET-1: no machine's address
            (["--port", str(busy)], f"cannot serve on 127.0.0.1:{busy}: Address already in use; another server"),
        ]
        for args, message in cases:
            result = runner.invoke(app, ["study", "serve", str(out), *args])
            assert result.exit_code == 2 and message in result.stderr, (args, result.output)
            assert "admin token" not in result.output and result.stderr.strip().count("\n") == 0


def test_default_annotators_come_from_the_power_analysis(tmp_path):
    from tealeaves.analysis import annotators_for_study
    from tealeaves.corpus import Vocabulary
    from tealeaves.models import TopicModel

    rng = np.random.default_rng(0)
    vocab = Vocabulary([f"word{i}" for i in range(300)])
    TopicModel(vocab, rng.dirichlet(np.full(300, 0.1), size=50) * (1 - 1e-6) + 1e-6 / 300).save(tmp_path / "m50")
    for task in ("rating", "word-intrusion"):
        out = tmp_path / task
        result = runner.invoke(app, ["study", "create", str(tmp_path / "m50"), "--task", task, "--out", str(out)])
        assert result.exit_code == 0, result.output
        # Hoyle et al.'s design, 4 more incoherent topics of 50, power 0.9, alpha 0.05, sized for the
        # topic-level test the analysis runs: out of reach (tests/analysis/test_power_topic.py), so the
        # answers within 0.01 of the most any number gives, and the command says so
        size = annotators_for_study(task, 50, effect=4, models=1)
        assert Study.load(out).settings["annotators"] == size.annotators and not size.reachable
        printed = " ".join(result.output.split())  # the console wraps long lines
        assert "out of reach" in printed and "only more items per model raise it" in printed
    result = runner.invoke(
        app,
        [
            "study",
            "create",
            str(tmp_path / "m50"),
            "--task",
            "rating",
            "--out",
            str(tmp_path / "x"),
            "--effect",
            "many",
        ],
    )
    assert result.exit_code == 2 and "--effect must be a number" in result.stderr
    create = ["study", "create", str(tmp_path / "m50"), "--task", "rating", "--out", str(tmp_path / "x")]
    result = runner.invoke(app, [*create, "--effect", "0"])  # no item: a study sized for nothing
    assert result.exit_code == 2 and "effect must be a share of the 50 items per model in (0, 1]" in result.stderr
    assert not (tmp_path / "x").exists()
