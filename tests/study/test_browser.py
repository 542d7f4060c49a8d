"""A real browser (Debian's Chromium driven by Playwright) completes each task by clicking and typing.

Screenshots of every page type are kept in ``build/study-screenshots/`` for a person to look at; the
status code of each page is checked before its screenshot is taken, and no page may break the
Content-Security-Policy. Chromium at ``$TEALEAVES_CHROMIUM`` (default Debian's ``/usr/bin/chromium``);
when it or Playwright is missing the tests skip, or fail with ``CI=true``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tealeaves.study import create_study, export_responses
from tealeaves.study.store import Store
from tealeaves.study.testing import LiveServer
from tealeaves.study.web.app import create_app
from tests.chromium import chromium

SHOTS = Path(__file__).resolve().parents[2] / "build" / "study-screenshots"
TOKEN = "browser-admin-token"


@pytest.fixture(scope="module")
def browser():
    with chromium(SHOTS, width=1000) as context:
        yield context


def watch(page):
    """Record the status of every page the tab navigates to, and every policy violation it reports."""
    page.statuses, page.violations = [], []
    page.on(
        "response",
        lambda r: (
            page.statuses.append((r.url, r.status))
            if r.request.is_navigation_request() and r.frame == page.main_frame
            else None
        ),
    )
    page.on("console", lambda m: page.violations.append(m.text) if "Content Security Policy" in m.text else None)
    return page


def shot(page, name, status=200):
    """Screenshot of the page on screen, after checking the status code it came with."""
    assert page.statuses and page.statuses[-1] == (page.url, status), (name, page.statuses[-3:])
    assert not page.violations, page.violations
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def run_session(page, url, task, phone=False):
    """Consent, instructions, every question (by mouse, the second by keyboard), completion; returns the code."""
    page.goto(f"{url}/?PROLIFIC_PID=browser{task.replace('-', '')}&STUDY_ID=s1&SESSION_ID=x1")
    shot(page, "consent")
    with page.expect_navigation():
        page.get_by_role("button", name="I agree, start the study").click()
    shot(page, f"{task}-instructions")
    with page.expect_navigation():
        page.get_by_role("link", name="Start").click()
    answered = 0
    while True:
        if page.locator("#completion-code").count():
            shot(page, f"{task}-done")
            return page.locator("#completion-code").inner_text(), answered
        if page.get_by_role("link", name="Continue").count():
            shot(page, f"{task}-model-answer")
            with page.expect_navigation():
                page.get_by_role("link", name="Continue").click()
            continue
        assert page.locator("form#item").count(), page.content()[:500]
        if answered == 0:
            shot(page, f"{task}-question" + ("-phone" if phone else ""))
        choices = page.locator('label.choice:has(input[name="answer"])')
        familiarity = page.locator('label.choice:has(input[name="familiarity"])')
        if answered == 1:  # keyboard only: a number picks the answer, a letter the familiarity, Enter submits
            page.keyboard.press("2")
            assert choices.nth(1).locator("input").is_checked()
            if familiarity.count():
                page.keyboard.press("a")
            with page.expect_navigation():
                page.keyboard.press("Enter")
        else:
            choices.nth(answered % choices.count()).click()
            if familiarity.count():
                familiarity.nth(1).click()
            with page.expect_navigation():
                page.get_by_role("button", name="Next").or_(page.get_by_role("button", name="Finish")).click()
        answered += 1


@pytest.mark.parametrize("task", ["word-intrusion", "topic-intrusion", "rating"])
def test_a_browser_completes_a_session(browser, models, corpus, tmp_path, task):
    kwargs = {
        "word-intrusion": {"show_answer": True},
        "topic-intrusion": {"corpus": corpus, "docs": 5},
        "rating": {"checks": 2, "checks_per_participant": 1},
    }[task]
    study = create_study(models, task, seed=2, annotators=2, items_per_participant=3, **kwargs)
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.ensure_study(study)
    page = watch(browser.new_page())
    if task == "rating":
        page.set_viewport_size({"width": 390, "height": 844})  # a phone
    with LiveServer(create_app(study, store, TOKEN)) as server:
        code, answered = run_session(page, server.url, task, phone=task == "rating")
        assert code == study.completion_code
        assert answered == (4 if task == "rating" else 3)
        frame = export_responses(study, store)
        assert len(frame) == answered and frame["rt_ms"].notna().all()
        assert frame["response"].iloc[1] == (3 - 1 if task == "rating" else 1)  # "2" picked the second answer
        if study.settings["familiarity"]:
            assert frame["familiarity"].iloc[1] == 1 and (frame["familiarity"].drop(index=1) == 2).all()
        if task == "word-intrusion":
            page.goto(f"{server.url}/admin")
            shot(page, "admin-signed-out", 401)
            page.goto(f"{server.url}/admin/login")
            shot(page, "admin-login")
            page.locator("#token").fill(TOKEN)
            with page.expect_navigation():
                page.get_by_role("button", name="Sign in").click()
            assert page.url == f"{server.url}/admin" and "model precision" in page.content()
            shot(page, "admin")
            other = watch(browser.new_page())
            other.goto(f"{server.url}/s/not-a-session/next")
            assert "Not your session" in other.content()
            shot(other, "refused", 403)
            other.close()
    page.close()
    store.close()
