"""The upload page in headless Chromium, on a desktop and a 390 px phone: several files at once, each
job's progress bar updated by htmx polling without a reload, the outcome shown, and polling stopped
once every job ended.

The live server shares the test's database; jobs are moved on by the test thread through the functions
a Celery worker runs (job_claim, JobProgress, ingest_job_run), so each state can be looked at on the
page. The same page with real worker processes: tests/ingest/test_jobs_worker.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from rag_app.models import Document, IngestJob
from rag_app.services.ingest_jobs import JobProgress, ingest_job_run, job_claim
from tests import factories
from tests.browser.conftest import login
from tests.browser.test_ui import save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=list(VIEWPORTS))
def tab(request: pytest.FixtureRequest, browser: Browser, live_server) -> Iterator[Page]:
    phone = request.param == "phone"
    context = browser.new_context(
        base_url=live_server.url, viewport=VIEWPORTS[request.param], has_touch=phone, is_mobile=phone
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.viewport_name = request.param  # type: ignore[attr-defined]
    yield page
    context.close()


def _no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


def test_several_files_each_show_live_progress_and_their_outcome(tab: Page, tmp_path: Path) -> None:
    factories.make_levels()
    factories.make_user("boss", groups=("staff", "admin"))
    files = []
    for name, text in (
        ("leave-policy-for-all-staff-members.md", "# Leave\n\nStaff get 25 days of annual leave.\n"),
        ("tool.exe", "MZ binary"),
        ("canteen.txt", "The canteen opens at eight."),
    ):
        (tmp_path / name).write_text(text)
        files.append(str(tmp_path / name))
    login(tab, "boss")
    tab.goto(reverse("document_upload"))
    tab.set_input_files("#id_file", files)
    tab.click("form.stacked-form button[type=submit]")
    tab.wait_for_url("**" + reverse("document_upload"))
    said = tab.locator(".messages, .message").first
    expect(said).to_contain_text("2 files are queued")
    expect(said).to_contain_text("1 file was refused")  # the .exe, refused before queueing

    jobs = {job.file_name: job for job in IngestJob.objects.all()}
    leave, exe, canteen = (
        jobs["leave-policy-for-all-staff-members.md"],
        jobs["tool.exe"],
        jobs["canteen.txt"],
    )
    expect(tab.locator(f"#job-{exe.pk}")).to_have_attribute("data-state", "failed")
    expect(tab.locator(f"#job-{exe.pk} .job-error")).to_contain_text("This type of file cannot be read.")
    expect(tab.locator(f"#job-{leave.pk}")).to_contain_text("waiting for a worker")
    expect(tab.locator("#ingest-jobs")).to_have_attribute("hx-trigger", "every 1s")

    # A worker takes the first file and reports progress: the bar moves without a reload.
    job_claim(leave)
    JobProgress(leave.pk)(3, 10)
    bar = tab.locator(f"#job-{leave.pk} progress")
    expect(bar).to_have_attribute("value", "3")
    expect(bar).to_have_attribute("max", "10")
    expect(tab.locator(f"#job-{leave.pk}")).to_contain_text("3 of 10 chunks")
    expect(tab.locator(f"#job-{leave.pk} .job-state")).to_have_text("running")
    assert _no_sideways_scroll(tab)
    save_screenshot(tab, tmp_path, f"upload-jobs-running-{tab.viewport_name}.png")  # type: ignore[attr-defined]

    ingest_job_run(job_id=leave.pk)
    ingest_job_run(job_id=canteen.pk)
    expect(tab.locator(f"#job-{canteen.pk}")).to_have_attribute("data-state", "done")
    expect(tab.locator(f"#job-{leave.pk}")).to_contain_text("leave-policy-for-all-staff-members.md v1 1 chunks new")
    expect(tab.locator(f"#job-{canteen.pk}")).to_contain_text("canteen.txt v1 1 chunks new")
    expect(tab.locator("#ingest-jobs")).not_to_have_attribute("hx-trigger", "every 1s")  # polling stopped
    assert _no_sideways_scroll(tab)

    tab.locator(f"#job-{canteen.pk} a", has_text="open").click()
    tab.wait_for_url("**/documents/canteen.txt/v1/")
    assert sorted(Document.objects.values_list("source_id", flat=True)) == [
        "canteen.txt",
        "leave-policy-for-all-staff-members.md",
    ]
