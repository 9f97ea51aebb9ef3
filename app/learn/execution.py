"""Running completed code in the sandbox, and what its verdict means to a learner."""

from app.errors import Busy
from app.i18n import _
from app.snippets.jobs import job_for
from app.snippets.model import Snippet


async def execute(
    sandbox,
    snippet: Snippet,
    code: str,
    owner: str | None = None,
    address: str | None = None,
    new_owner: bool = False,
    settled: bool = False,
):
    """The sandbox verdict, None when execution is off, or a 503 the learner can retry.
    owner: the learner (jobs are queued fairly between addresses, then learners); address: the
    client's; new_owner: the learner has no attempt yet; settled: their first was not this minute."""
    if sandbox is None:
        return None
    from app.sandbox import SandboxBusy, SandboxUnavailable

    try:
        return await sandbox.run(
            job_for(snippet, code), owner=owner, address=address, new_owner=new_owner, settled=settled
        )
    except SandboxBusy as busy:
        seconds = max(1, round(busy.retry_after))
        raise Busy(_("服务器正忙，请 %(n)s 秒后重试。", n=seconds), retry_after=seconds) from None
    except SandboxUnavailable:
        raise Busy(_("代码运行环境暂时不可用，请稍后重试。")) from None
