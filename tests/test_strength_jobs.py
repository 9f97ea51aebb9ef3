"""The analyses' line in one process, with the app's own sandbox: one runs at a time, a teacher's
before the learners', learners' answers queue at most LEARNER_QUEUED, asking again joins the
run there is, and a version no longer current stops (waiting or under way)."""

import asyncio

import pytest

from app.snippets.parse import parse_snippet
from app.teach.strength_jobs import LEARNER_QUEUED, STOPPED, StrengthJobs
from tests.test_background_http import BUSY

pytestmark = pytest.mark.server


def busy_snippets(count: int) -> tuple[list, dict]:
    """Snippets whose analyses take seconds each, and their current versions."""
    snippets = [parse_snippet(BUSY, f"busy-{n}") for n in range(count)]
    return snippets, {s.id: s.version for s in snippets}


def settle(client, seconds: float = 0.3) -> None:
    client.portal.call(asyncio.sleep, seconds)


def test_one_analysis_at_a_time_a_teachers_first_and_learners_bounded(running_client):
    app = running_client.app
    snippets, current = busy_snippets(LEARNER_QUEUED + 2)
    jobs = StrengthJobs(current=current.get)

    async def ask() -> tuple[list, str]:
        by_learners = [jobs.start(s, app.state.sandbox, by_learner=True) for s in snippets[: LEARNER_QUEUED + 1]]
        return by_learners, jobs.start(snippets[-1], app.state.sandbox)

    async def ask_again() -> tuple[str | None, str]:
        return jobs.start(snippets[0], app.state.sandbox, by_learner=True), jobs.start(snippets[3], app.state.sandbox)

    try:
        by_learners, teacher = running_client.portal.call(ask)
        assert all(by_learners[:LEARNER_QUEUED]) and by_learners[LEARNER_QUEUED] is None  # the bound
        settle(running_client)
        started = [i for i in (*by_learners[:LEARNER_QUEUED], teacher) if jobs.get(i).task is not None]
        assert started == [teacher]  # the teacher's ran first, alone, though asked for last
        assert jobs.line() == by_learners[:LEARNER_QUEUED]  # the learners' wait in order of arrival
        again, promoted = running_client.portal.call(ask_again)
        assert again == by_learners[0] and promoted == by_learners[3]  # asking again joins the run there is
        # a teacher asking for one a learner's answer queued puts it ahead of the learners'
        assert jobs.line() == [by_learners[3], *by_learners[:3], *by_learners[4:LEARNER_QUEUED]]
    finally:
        running_client.portal.call(jobs.close)


def test_a_version_no_longer_current_stops_waiting_or_under_way(running_client):
    app = running_client.app
    (first, second), current = busy_snippets(2)
    jobs = StrengthJobs(current=current.get)

    async def ask() -> tuple[str, str]:
        return jobs.start(first, app.state.sandbox), jobs.start(second, app.state.sandbox)

    async def stop() -> int:
        return jobs.stop_stale()

    try:
        under_way, waiting = running_client.portal.call(ask)
        settle(running_client, 1.0)
        assert jobs.get(under_way).task is not None and not jobs.get(under_way).finished
        assert jobs.get(waiting).queued
        current[first.id] = None  # deleted
        current[second.id] = "a newer one"  # replaced
        assert running_client.portal.call(stop) == 2
        settle(running_client, 1.0)
        assert jobs.get(under_way).error == STOPPED and jobs.get(waiting).error == STOPPED
        assert jobs.get(waiting).task is None  # it never ran
        assert not jobs.busy() and app.state.sandbox.background.held() == 0
    finally:
        running_client.portal.call(jobs.close)
