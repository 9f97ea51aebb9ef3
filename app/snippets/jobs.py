"""A snippet's code as a sandbox job: its setup, the code (reference or a learner's), its check."""

from app.snippets.model import Snippet


def job_for(snippet: Snippet, code: str):
    from app.sandbox import Job  # the sandbox client is imported only where jobs are run

    return Job(parts=(("setup", snippet.setup), ("code", code), ("check", snippet.check)))
