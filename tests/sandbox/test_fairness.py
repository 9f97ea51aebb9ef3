"""One learner cannot take the queue: round-robin between owners, each owner's line bounded."""

import asyncio
import time

import pytest

from app.sandbox import SandboxBusy
from app.sandbox.fairness import FairQueue, IdMinting
from tests.sandbox.support import job

pytestmark = pytest.mark.server

SLOW = "import time\ntime.sleep(1.2)"


async def _flood_then_submit(sandbox, flood: int, owner: str = "flooder", address: str = "10.0.0.1"):
    """`flood` slow jobs from one learner, then one job of another learner at the same address."""
    flooding = [asyncio.ensure_future(sandbox.run(job(SLOW), owner=owner, address=address)) for _ in range(flood)]
    await asyncio.sleep(0.3)  # every flood job is admitted, running or refused by now
    started = time.perf_counter()
    verdict = await sandbox.run(job("x = 1", check="assert x == 1"), owner="honest-learner", address=address)
    seconds = time.perf_counter() - started
    outcomes = await asyncio.gather(*flooding, return_exceptions=True)
    return verdict, seconds, outcomes


def test_a_flooding_learner_does_not_delay_another(runner):
    verdict, seconds, outcomes = runner(_flood_then_submit(runner.sandbox, 40))
    assert verdict.status == "passed"
    assert seconds < 2.0, seconds
    busy = [o for o in outcomes if isinstance(o, SandboxBusy)]
    done = [o for o in outcomes if not isinstance(o, BaseException)]
    # The flooder got one worker and a short line (1 + 4 jobs); the rest were told "busy, retry".
    assert len(done) == 5 and all(v.status == "passed" for v in done)
    assert len(busy) == 35


def test_many_learners_at_one_address_all_get_verdicts(runner):
    """A classroom behind one NAT address: no address-wide bound by default."""

    async def classroom():
        return await asyncio.gather(
            *(
                runner.sandbox.run(job("x = 1", check="assert x == 1"), owner=f"learner-{i}", address="10.0.0.2")
                for i in range(8)
            )
        )

    assert [v.status for v in runner(classroom())] == ["passed"] * 8


async def _order(queue: FairQueue, jobs: list[str]) -> list[str]:
    """The order in which queued jobs of these owners get the one worker."""
    order, blocker = [], asyncio.Event()

    async def one(owner: str, hold: bool = False):
        async with queue.slot(owner):
            order.append(owner)
            if hold:
                await blocker.wait()
            await asyncio.sleep(0)

    first = asyncio.ensure_future(one("holder", hold=True))
    await asyncio.sleep(0)
    rest = [asyncio.ensure_future(one(owner)) for owner in jobs]
    await asyncio.sleep(0)
    blocker.set()
    await asyncio.gather(first, *rest, return_exceptions=True)
    return order[1:]


def test_waiting_jobs_are_served_round_robin_by_owner():
    queue = FairQueue(workers=1, queue=32, per_owner_waiting=8, per_owner_running=1)
    order = asyncio.run(_order(queue, ["a", "a", "a", "b", "b", "c"]))
    assert order == ["a", "b", "c", "a", "b", "a"]
    assert queue.free == 1 and not queue.lines and not queue.running


def _one_worker_queue():
    """A queue with one worker, and `hold(owner)`: a job of that owner running until released."""
    queue = FairQueue(workers=1, queue=32, per_owner_waiting=2, per_owner_running=1)
    release = asyncio.Event()

    async def hold(owner):
        async with queue.slot(owner):
            await release.wait()

    return queue, hold, release


def test_an_owner_beyond_its_line_is_busy_while_others_are_admitted():
    async def scenario():
        queue, one, hold = _one_worker_queue()
        tasks = [asyncio.ensure_future(one("a")) for _ in range(3)]
        await asyncio.sleep(0)
        with pytest.raises(SandboxBusy):
            await queue.slot("a").__aenter__()
        other = asyncio.ensure_future(one("b"))
        await asyncio.sleep(0)
        assert queue.waiting("b") == 1
        hold.set()
        await asyncio.gather(*tasks, other)
        return queue

    queue = asyncio.run(scenario())
    assert queue.free == 1 and not queue.running


def test_a_cancelled_waiting_job_gives_its_place_back():
    async def scenario():
        queue, one, hold = _one_worker_queue()
        running = asyncio.ensure_future(one("a"))
        waiting = asyncio.ensure_future(one("b"))
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.sleep(0)
        assert queue.waiting() == 0
        hold.set()
        await running
        return queue

    queue = asyncio.run(scenario())
    assert queue.free == 1 and not queue.lines and not queue.running


def test_new_ids_from_one_address_beyond_the_bound_share_one_owner():
    minting = IdMinting(per_minute=3)
    owners = [minting.owner(f"id-{i}", "10.0.0.9") for i in range(5)]
    assert owners[:3] == ["id-0", "id-1", "id-2"]
    assert owners[3:] == ["address:10.0.0.9"] * 2
    assert minting.owner("id-1", "10.0.0.9") == "id-1"  # a known id keeps its own place
    assert minting.owner("id-7", "10.0.0.10") == "id-7"  # another address has its own bound


def test_address_wide_job_limit_is_a_setting(runner):
    sandbox = runner.sandbox
    sandbox.address_jobs = 1
    try:

        async def two_at_once():
            return await asyncio.gather(
                *(sandbox.run(job(SLOW), owner=f"l{i}", address="10.0.0.3") for i in range(2)), return_exceptions=True
            )

        outcomes = runner(two_at_once())
    finally:
        sandbox.address_jobs = 0
    assert sum(isinstance(o, SandboxBusy) for o in outcomes) == 1


async def _order_by_address(queue: FairQueue, jobs: list[tuple[str, str]]) -> list[str]:
    """The order in which queued (owner, address) jobs get the one slot."""
    order, blocker = [], asyncio.Event()

    async def one(owner: str, address: str, hold: bool = False):
        async with queue.slot(owner, address):
            order.append(owner)
            if hold:
                await blocker.wait()
            await asyncio.sleep(0)

    first = asyncio.ensure_future(one("holder", "elsewhere", hold=True))
    await asyncio.sleep(0)
    rest = [asyncio.ensure_future(one(owner, address)) for owner, address in jobs]
    await asyncio.sleep(0)
    blocker.set()
    await asyncio.gather(first, *rest, return_exceptions=True)
    return order[1:]


def test_turns_go_round_the_addresses_first_then_their_learners():
    """Ten learners at one address get as many turns together as one learner at another."""
    queue = FairQueue(workers=1, queue=32, per_owner_waiting=8, per_owner_running=1)
    crowd = [(f"a{i}", "10.0.0.1") for i in range(4)]
    order = asyncio.run(_order_by_address(queue, crowd + [("b", "10.0.0.2")] * 3))
    assert order == ["a0", "b", "a1", "b", "a2", "b", "a3"]
    assert queue.free == 1 and not queue.lines and not queue.running and not queue.address_running


def test_one_address_never_holds_every_slot():
    async def scenario():
        queue = FairQueue(workers=4, queue=32, per_owner_waiting=8, per_owner_running=1, per_address_running=3)
        release = asyncio.Event()

        async def hold(owner, address):
            async with queue.slot(owner, address):
                await release.wait()

        crowd = [asyncio.ensure_future(hold(f"a{i}", "10.0.0.1")) for i in range(5)]
        await asyncio.sleep(0)
        assert queue.busy() == 3 and queue.waiting() == 2  # the fourth slot stays for another address
        other = asyncio.ensure_future(hold("b", "10.0.0.2"))
        await asyncio.sleep(0)
        assert queue.busy() == 4 and queue.running["b"] == 1
        release.set()
        await asyncio.gather(*crowd, other)
        return queue

    queue = asyncio.run(scenario())
    assert queue.free == 4 and not queue.lines


def test_new_ids_share_their_address_s_line_with_its_own_bounds():
    async def scenario():
        queue = FairQueue(
            workers=4, queue=32, per_owner_waiting=1, per_owner_running=1, shared_waiting=2, shared_running=2
        )
        release = asyncio.Event()

        async def hold():
            async with queue.slot("new:10.0.0.1", "10.0.0.1", shared=True):
                await release.wait()

        jobs = [asyncio.ensure_future(hold()) for _ in range(5)]
        await asyncio.sleep(0)
        outcomes = [j for j in jobs if j.done()]
        assert queue.running["new:10.0.0.1"] == 2 and queue.waiting("new:10.0.0.1") == 2
        assert len(outcomes) == 1 and isinstance(outcomes[0].exception(), SandboxBusy)
        release.set()
        await asyncio.gather(*jobs, return_exceptions=True)
        return queue

    queue = asyncio.run(scenario())
    assert queue.free == 4 and not queue.shared


def test_sleeping_jobs_do_not_keep_an_honest_job_from_starting(runner):
    """As many sleeping jobs as workers, from two colluding owners at other addresses: slots are a
    budget beyond the workers, so an honest job starts at once."""
    sandbox = runner.sandbox
    assert sandbox.jobs > sandbox.workers

    async def scenario():
        sleepers = [
            asyncio.ensure_future(sandbox.run(job(SLOW), owner=f"colluder-{i}", address=f"10.0.1.{i}"))
            for i in range(sandbox.workers)
        ]
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        verdict = await sandbox.run(job("x = 1", check="assert x == 1"), owner="honest", address="10.0.0.1")
        seconds = time.perf_counter() - started
        await asyncio.gather(*sleepers)
        return verdict, seconds

    verdict, seconds = runner(scenario())
    assert verdict.status == "passed" and seconds < 1.0, seconds


def test_a_job_waits_while_its_wait_would_be_short_and_is_told_when_to_retry_beyond():
    """Admission by the wait, not a fixed length: a lecture hall's jobs queue as long as each would
    start within `max_wait`, judged by how long that address's jobs lately ran."""

    async def scenario():
        queue = FairQueue(workers=1, queue=1000, per_owner_waiting=100, per_owner_running=1, max_wait=3.2)
        async with queue.slot("first", "hall"):
            await asyncio.sleep(0.5)  # the hall's jobs take half a second
        release = asyncio.Event()

        async def job(owner, address="hall"):
            async with queue.slot(owner, address):
                await release.wait()

        running = asyncio.ensure_future(job("running"))
        await asyncio.sleep(0)
        waiting = [asyncio.ensure_future(job(f"learner-{n}")) for n in range(6)]  # 6 × 0.5 s ≤ 3.2 s: all wait
        await asyncio.sleep(0)
        assert queue.waiting() == 6
        with pytest.raises(SandboxBusy) as refused:  # the 7th would wait 3.5 s
            await queue.slot("learner-7", "hall").__aenter__()
        elsewhere = asyncio.ensure_future(job("someone", "elsewhere"))  # another address's line is short
        await asyncio.sleep(0)
        assert queue.waiting() == 7
        release.set()
        await asyncio.gather(running, *waiting, elsewhere)
        return refused.value.retry_after, queue

    retry_after, queue = asyncio.run(scenario())
    assert 1.0 <= retry_after <= 2.0  # by then the line is short enough
    assert queue.free == 1 and not queue.lines and 0.0 < queue.job_seconds["hall"] < 0.5
