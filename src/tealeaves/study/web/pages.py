"""Pages: the Jinja2 templates (with each task's fragment), refusals shown as pages, redirects.

Pages are rendered on the server from ``tealeaves/study/templates``; an item's page includes its
task's :attr:`~tealeaves.study.tasks.HumanTask.template` as ``task/NAME.html``. Every template is
autoescaped. A refusal is raised as :class:`Refused` and shown as a page with a heading
(:mod:`tealeaves.study.web.handlers`).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from typing import Any

from jinja2 import ChoiceLoader, Environment, FunctionLoader, PackageLoader, select_autoescape
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from tealeaves.errors import InputError
from tealeaves.study.tasks.registry import task_named

TASK_TEMPLATE = "task/{name}.html"
"""The name under which an item's page includes its task's template fragment (``.html``: autoescaped)."""


def _task_source(name: str) -> str | None:
    """The template fragment of the task ``task/NAME.html`` names (None for any other name)."""
    folder, _, file = name.partition("/")
    if folder != "task" or not file.endswith(".html"):
        return None
    try:
        return task_named(file.removesuffix(".html")).template
    except InputError:
        return None


def _task_template(name: str) -> tuple[str, None, Callable[[], bool]] | None:
    """:func:`_task_source` for Jinja2, up to date while the task registered under its name keeps it."""
    source = _task_source(name)
    return None if source is None else (source, None, lambda: _task_source(name) == source)


templates = Environment(
    loader=ChoiceLoader([PackageLoader("tealeaves.study", "templates"), FunctionLoader(_task_template)]),
    autoescape=select_autoescape(),
)
ITEM_SCRIPT = files("tealeaves.study").joinpath("static/item.js").read_bytes()


class Refused(HTTPException):
    """A refusal rendered as a page with a heading."""

    def __init__(self, status: int, heading: str, detail: str, headers: dict[str, str] | None = None):
        super().__init__(status, detail, headers)
        self.heading = heading


def needs_pid() -> Refused:
    """The refusal of a start without the ``PROLIFIC_PID`` a study requires."""
    return Refused(
        400,
        "Please use the link from the recruitment site",
        "This study needs your participant id, which the link on the recruitment site (Prolific) carries. "
        "Open the study from that link.",
    )


def root(request: Request) -> str:
    """The path prefix the app is served under (``--root-path``), for links and redirects."""
    return str(request.scope.get("root_path", ""))


def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The template ``name`` rendered with ``context``, under the study's title unless it gives one."""
    context.setdefault("title", request.app.state.context.settings["title"])
    html = templates.get_template(name).render(root=root(request), **context)
    return HTMLResponse(html, status_code=status)


def message(request: Request, heading: str, text: str, status: int = 200, **link: str) -> HTMLResponse:
    """A page with a heading, a message and optionally a ``link`` with its ``link_text``."""
    return page(request, "message.html", status, heading=heading, message=text, **link)


def go(request: Request, path: str) -> RedirectResponse:
    """A redirect (303: see other) to ``path`` of the app."""
    return RedirectResponse(root(request) + path, status_code=303)
