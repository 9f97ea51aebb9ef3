"""The sandbox's own messages (English, for logs and the JSON API) in the learner's language.

Python's exceptions (`NameError: …`) are the language of the code and stay as they are; what
the sandbox says about limits and exits is said again in the UI language.
"""

import re

from app.i18n import _

_MESSAGES = (
    (re.compile(r"wall-clock limit \((?P<n>[\d.]+) s\) reached"), lambda: _("超出运行时间上限（%(n)s 秒）")),
    (re.compile(r"CPU time limit \((?P<n>[\d.]+) s\) reached"), lambda: _("超出 CPU 时间上限（%(n)s 秒）")),
    (re.compile(r"memory limit \((?P<n>\d+) MiB\) reached"), lambda: _("超出内存上限（%(n)s MiB）")),
    (re.compile(r"process limit \((?P<n>\d+)\) reached"), lambda: _("超出进程数上限（%(n)s 个）")),
    (re.compile(r"output limit reached \((?P<n>\d+) bytes\)"), lambda: _("输出超过上限（%(n)s 字节）")),
    (re.compile(r"killed by (?P<n>\w+)"), lambda: _("进程被信号 %(n)s 终止")),
    (
        re.compile(r"exited with code (?P<n>-?\d+) before the check finished"),
        lambda: _("代码在验证完成前退出（退出码 %(n)s）"),
    ),
    (
        re.compile(r"SystemExit\((?P<n>.*)\): the code exited before the check finished"),
        lambda: _("代码调用了 SystemExit(%(n)s)，在验证完成前退出"),
    ),
)


def learner_message(run, check: str) -> str:
    """What the page says a verdict's message is: a failed bare assertion as its check line,
    the sandbox's limits in the UI language, anything else as Python said it."""
    if run.status == "failed" and run.part == "check" and run.line and run.message in ("", "AssertionError"):
        lines = check.splitlines()
        if 0 < run.line <= len(lines):
            return _("断言不成立：%(code)s", code=lines[run.line - 1].strip())
    for pattern, text in _MESSAGES:
        found = pattern.match(run.message)
        if found:
            return text() % {"n": found.group("n")}
    return run.message
