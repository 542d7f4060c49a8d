"""Human study commands: ``study create``, ``serve``, ``export`` and ``import-qualtrics``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tealeaves.cli.common import JsonOption, app, parse_number, reports_errors, show
from tealeaves.console import console, mapping_table
from tealeaves.errors import InputError
from tealeaves.extras import require

study_app = typer.Typer(
    help="Human evaluation studies: create the items, serve them to annotators, export the responses.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)
app.add_typer(study_app, name="study")


def report_responses(frame: Any, out: Path, as_json: bool) -> None:
    """How many responses from how many annotators were written to ``out``."""
    counts = {"out": out, "responses": len(frame), "annotators": int(frame["annotator"].nunique())}
    show(as_json, lambda: counts, f"{counts['responses']} responses from {counts['annotators']} annotators -> {out}")


def _share_or_count(text: str | None, name: str) -> float | int | None:
    """``0.25`` (a share, has a dot) or ``12`` (a count)."""
    return None if text is None else parse_number(text, name)


@study_app.command("create")
@reports_errors
def study_create(
    models: Annotated[
        list[Path], typer.Argument(help="Model folders (or topic-list files for word intrusion, rating).")
    ],
    task: Annotated[str, typer.Option(help="word-intrusion, topic-intrusion or rating.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output study folder.")],
    label: Annotated[
        list[str] | None, typer.Option(help="Label of each model, in order (default: folder names); never shown.")
    ] = None,
    corpus: Annotated[Path | None, typer.Option(help="Corpus whose documents topic intrusion shows.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed: the same seed gives the same study.")] = 0,
    protocol: Annotated[str, typer.Option(help="Word intrusion: hoyle (5 of top 10) or chang (top 5).")] = "hoyle",
    scale: Annotated[int, typer.Option(help="Rating scale: 3 or 5 points.")] = 3,
    familiarity: Annotated[
        bool | None,
        typer.Option("--familiarity/--no-familiarity", help="Ask the familiarity question [intrusion, rating: yes]."),
    ] = None,
    topics_per_model: Annotated[int | None, typer.Option(help="Sample this many topics per model [all].")] = None,
    docs: Annotated[int, typer.Option(help="Topic intrusion: documents to show.")] = 40,
    annotators: Annotated[
        int | None,
        typer.Option(help="Answers wanted per item [a power analysis of the topic-level test for this design]."),
    ] = None,
    power: Annotated[float, typer.Option(help="Power analysis: the power wanted.")] = 0.9,
    alpha: Annotated[float, typer.Option(help="Power analysis: the two-sided test's level.")] = 0.05,
    effect: Annotated[
        str,
        typer.Option(
            help="Power analysis: more incoherent items to detect, a share (0.08: Hoyle's 4 of 50) or a count."
        ),
    ] = "0.08",
    items_per_participant: Annotated[
        str | None, typer.Option(help="Questions per participant: a share (0.25) or a count [0.25].")
    ] = None,
    checks: Annotated[int | None, typer.Option(help="Ratings: synthetic attention-check topics [8].")] = None,
    checks_per_participant: Annotated[int | None, typer.Option(help="Attention checks per participant [2].")] = None,
    show_answer: Annotated[bool, typer.Option(help="Show the model's answer after each intrusion answer.")] = False,
    title: Annotated[str, typer.Option(help="Title shown to participants.")] = "Reading lists of words",
    consent: Annotated[Path | None, typer.Option(help="Text file with the consent text.")] = None,
    instructions: Annotated[Path | None, typer.Option(help="Text file with the instructions.")] = None,
    corpus_description: Annotated[
        str | None, typer.Option(help="What the texts are (shown with instructions).")
    ] = None,
    completion_code: Annotated[
        str | None, typer.Option(help="Completion code [drawn at random, kept in STUDY/secrets.json].")
    ] = None,
    per_participant_codes: Annotated[
        bool | None,
        typer.Option(
            "--per-participant-codes/--shared-code",
            help="Each participant gets their own code (HMAC of their id), listed in the export, or all the same "
            "one [own codes with --redirect-url, else shared].",
        ),
    ] = None,
    redirect_url: Annotated[
        str | None, typer.Option(help="Send finishers to URL?cc=CODE (Prolific: its completion URL).")
    ] = None,
    timeout_minutes: Annotated[
        float, typer.Option(help="Lease on the question on screen, renewed by each page the participant opens.")
    ] = 10.0,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Create a human evaluation study (word intrusion, topic intrusion or ratings) from models.

    Without --annotators, the answers wanted per item come from a power analysis by simulation
    of the test the study analysis runs (Welch's two-sided t over items, answers clustered by
    item and annotator, the spread of item scores measured on Hoyle et al. 2021's judgments):
    the fewest answers per item with which it finds, with the given power at level alpha, a
    model with `effect` more incoherent items among as many items per model as this study has.
    Where no number of answers reaches that power (Hoyle et al.'s 4 of 50 topics: at most
    0.13 for intrusion, 0.16 for ratings), it asks for the answers within 0.01 of the most
    reachable and says so: only more items per model help.
    """
    require("study", what="tealeaves study")
    from tealeaves.study import create_study
    from tealeaves.study.design import items_per_model

    if annotators is None:
        from tealeaves.analysis import annotators_for_study

        per_model = items_per_model([str(m) for m in models], task, docs=docs, topics_per_model=topics_per_model)
        size = annotators_for_study(
            task, per_model, power=power, alpha=alpha, effect=parse_number(effect, "--effect"), models=len(models)
        )
        annotators = size.annotators
        console.print(
            f"{annotators} answers per item: power {size.power:.2f} for Welch's t over items (the analysis' test) "
            f"to find a model with {size.fewer} more of its {per_model} items incoherent, alpha {alpha}"
            + (
                ""
                if size.reachable
                else f"; power {power} is out of reach: at most {size.ceiling:.2f} with any "
                "number of answers, only more items per model raise it"
            )
        )

    def read(path: Path | None) -> str | None:
        if path is None:
            return None
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read {path}: {exc}") from exc

    study = create_study(
        [str(m) for m in models],
        task,
        out,
        labels=label or None,
        corpus=corpus,
        seed=seed,
        protocol=protocol,
        scale=scale,
        familiarity=familiarity,
        topics_per_model=topics_per_model,
        docs=docs,
        annotators=annotators,
        items_per_participant=_share_or_count(items_per_participant, "--items-per-participant"),
        checks=checks,
        checks_per_participant=checks_per_participant,
        show_answer=show_answer,
        title=title,
        consent=read(consent),
        instructions=read(instructions),
        corpus_description=corpus_description,
        completion_code=completion_code,
        per_participant_codes=per_participant_codes,
        redirect_url=redirect_url,
        timeout_minutes=timeout_minutes,
        force=force,
    )
    stats = {**study.manifest["stats"], "task": study.task}
    show(
        as_json,
        lambda: {"study_id": study.study_id, "out": out, **stats},
        mapping_table(f"study {study.study_id} -> {out}", stats),
        f"serve it with: tealeaves study serve {out} --host 127.0.0.1 --port 8000",
    )


@study_app.command("serve")
@reports_errors
def study_serve(
    study: Annotated[Path, typer.Argument(help="A study folder.")],
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[
        str | None, typer.Option(help="Response store: sqlite:///FILE or postgresql://... [STUDY/responses.sqlite].")
    ] = None,
    admin_token: Annotated[
        str | None,
        typer.Option(
            envvar="TEALEAVES_ADMIN_TOKEN",
            help="Token for /admin/login [made and printed when not given]; prefer the environment variable or "
            "--admin-token-file: the command line is visible to every user in ps.",
        ),
    ] = None,
    admin_token_file: Annotated[
        Path | None, typer.Option(help="Read the admin token from this file (its first line).")
    ] = None,
    workers: Annotated[int, typer.Option(help="Server processes.")] = 1,
    require_pid: Annotated[
        bool, typer.Option(help="Only participants with a PROLIFIC_PID [on when the study has a --redirect-url].")
    ] = False,
    starts_per_address: Annotated[
        int, typer.Option(help="New participants one client address (IPv6: /64) may start per hour (0: no bound).")
    ] = 20,
    live_per_address: Annotated[
        int, typer.Option(help="Participants one client address may have live at once (0: no bound).")
    ] = 5,
    answer_minutes: Annotated[
        float, typer.Option(help="Page views renew a question's lease for at most this long without an answer.")
    ] = 20.0,
    idle_minutes: Annotated[
        float,
        typer.Option(help="A participant without an answer (or a wait) for this long expires, freeing their question."),
    ] = 60.0,
    after_idle: Annotated[
        str,
        typer.Option(
            help="A participant with answers back after --idle-minutes: resume (answers the rest) or partial (gets "
            "the code for partial completion)."
        ),
    ] = "resume",
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            envvar="TEALEAVES_FORWARDED_ALLOW_IPS",
            help="Proxies (addresses or networks, comma-separated) whose X-Forwarded-For/-Proto are believed.",
        ),
    ] = None,
    lab_networks: Annotated[
        str | None,
        typer.Option(
            help="Client addresses or networks (a lab, a university NAT) exempt from the per-address limits.",
        ),
    ] = None,
    root_path: Annotated[str, typer.Option(help="Path prefix the proxy serves the study under, e.g. /study.")] = "",
    pid_pattern: Annotated[
        str | None,
        typer.Option(help="Regular expression a PROLIFIC_PID must match ('[0-9a-f]{24}' for Prolific's ids)."),
    ] = None,
    live_per_pid_pattern: Annotated[
        int,
        typer.Option(
            help="Participants whose PROLIFIC_PIDs match once each run of digits is one # (user1, user2, ...) that "
            "may be live at once (0: no bound; give 0 for a platform with numeric ids)."
        ),
    ] = 3,
    sqlite_synchronous: Annotated[
        str, typer.Option(help="SQLite synchronous: full (survives power cuts) or normal (faster).")
    ] = "full",
    max_connections: Annotated[
        int | None,
        typer.Option(
            help="PostgreSQL connections this server may open, all workers together [8 per worker + 1]; refused at "
            "start unless the database's max_connections holds them beside the other servers' and 5 spare."
        ),
    ] = None,
) -> None:
    """Serve a study to annotators (consent, instructions, one question per page) and its admin pages."""
    require("study", what="tealeaves study")
    from tealeaves.study.web.serving import serve

    if admin_token_file is not None:
        try:
            admin_token = (admin_token_file.read_text(encoding="utf-8").splitlines() or [""])[0].strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the admin token from {admin_token_file}: {exc}") from exc
    serve(
        study,
        host=host,
        port=port,
        db=db,
        admin_token=admin_token,
        workers=workers,
        announce=console.print,
        require_pid=require_pid,
        starts_per_client=starts_per_address,
        synchronous=sqlite_synchronous,
        live_per_client=live_per_address,
        answer_minutes=answer_minutes,
        idle_minutes=idle_minutes,
        after_idle=after_idle,
        forwarded_allow_ips=forwarded_allow_ips,
        lab_networks=lab_networks,
        root_path=root_path,
        pid_pattern=pid_pattern,
        live_per_pid_pattern=live_per_pid_pattern,
        max_connections=max_connections,
    )


@study_app.command("export")
@reports_errors
def study_export(
    study: Annotated[Path, typer.Argument(help="A study folder.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="responses.csv, responses.parquet or survey.qsf.")],
    db: Annotated[str | None, typer.Option(help="Response store URL [STUDY/responses.sqlite].")] = None,
    as_json: JsonOption = False,
) -> None:
    """Export the responses (long-format CSV or Parquet) or the study as a Qualtrics survey (.qsf)."""
    require("study", what="tealeaves study")
    if out.suffix.lower() == ".parquet":
        require("parquet", "pyarrow", what="a Parquet export")
    from tealeaves.study import Store, Study, export_responses, write_qualtrics_survey, write_responses
    from tealeaves.study.web.serving import default_db

    loaded = Study.load(study)
    if out.suffix.lower() == ".qsf":
        write_qualtrics_survey(loaded, out)
        show(
            as_json,
            lambda: {"out": out, "questions": len(loaded.items)},
            f"Qualtrics survey with {len(loaded.items)} questions -> {out}",
        )
        return
    store = Store(db or default_db(study))
    try:
        frame = export_responses(loaded, store)
    finally:
        store.close()
    write_responses(frame, out)
    report_responses(frame, out, as_json)


@study_app.command("import-qualtrics")
@reports_errors
def study_import_qualtrics(
    study: Annotated[Path, typer.Argument(help="The study folder the survey was exported from.")],
    csv_file: Annotated[Path, typer.Argument(help="Qualtrics CSV export (numeric values or choice text).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="responses.csv or responses.parquet.")],
    timezone: Annotated[str, typer.Option(help="Time zone of the export's times.")] = "UTC",
    as_json: JsonOption = False,
) -> None:
    """Read a Qualtrics CSV export back into the long format of `study export`."""
    require("study", what="tealeaves study")
    if out.suffix.lower() == ".parquet":
        require("parquet", "pyarrow", what="a Parquet export")
    from tealeaves.study import Study, import_qualtrics, write_responses

    frame = import_qualtrics(Study.load(study), csv_file, timezone=timezone)
    write_responses(frame, out)
    report_responses(frame, out, as_json)
