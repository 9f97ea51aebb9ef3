"""Verdicts, output, randomness and the protections the sandbox claims, against one fork server."""

import sys
from pathlib import Path

import pytest

from tests.sandbox.support import TEST_LIMITS

pytestmark = pytest.mark.server


def test_passed_and_stdout_captured(runner):
    verdict = runner.run("x = 41 + 1\nprint('answer', x)", setup="import math", check="assert x == 42")
    assert (verdict.status, verdict.stdout, verdict.part, verdict.line) == ("passed", "answer 42\n", None, None)
    assert 0 < verdict.seconds < 1


def test_parts_run_in_order_in_one_namespace(runner):
    verdict = runner.run("y = base * 2", setup="base = 21", check="assert y == 42, y")
    assert verdict.status == "passed"


def test_failed_check_carries_the_assertion_message_and_line(runner):
    verdict = runner.run("y = 41", check="z = 1\nassert y == 42, f'expected 42, got {y}'")
    assert (verdict.status, verdict.message, verdict.part, verdict.line) == (
        "failed",
        "expected 42, got 41",
        "check",
        2,
    )


def test_failed_check_without_message(runner):
    verdict = runner.run("y = 41", check="assert y == 42")
    assert (verdict.status, verdict.message) == ("failed", "AssertionError")


def test_error_points_at_the_line_of_the_code(runner):
    verdict = runner.run("a = 1\nb = 0\nc = a / b\n", check="assert True")
    assert (verdict.status, verdict.message, verdict.part, verdict.line) == (
        "error",
        "ZeroDivisionError: division by zero",
        "code",
        3,
    )
    assert 'File "<code>", line 3' in verdict.stderr and "c = a / b" in verdict.stderr


def test_error_in_a_learner_function_called_by_the_check(runner):
    code = "import torch\ndef f(x):\n    return torch.softmax(x, dim=5)\n"
    verdict = runner.run(code, check="f(torch.ones(3))")
    assert (verdict.status, verdict.part, verdict.line) == ("error", "code", 3)
    assert verdict.message.startswith("IndexError")


def test_assertion_in_the_code_is_an_error_not_a_failed_check(runner):
    verdict = runner.run("assert 1 == 2, 'mine'", check="assert True")
    assert (verdict.status, verdict.part, verdict.line) == ("error", "code", 1)


def test_syntax_error_has_part_and_line(runner):
    verdict = runner.run("x = 1\ny = (2,\n", check="assert True")
    assert (verdict.status, verdict.part) == ("error", "code")
    assert verdict.line in (2, 3) and verdict.message.startswith("SyntaxError")


def test_exit_before_the_check_is_an_error(runner):
    verdict = runner.run("import sys\nsys.exit(0)", check="assert False")
    assert (verdict.status, verdict.part, verdict.line) == ("error", "code", 2)


def test_stdout_is_capped_and_marked(runner):
    verdict = runner.run("print('y' * 100_000)\nimport sys; print('err', file=sys.stderr)")
    assert verdict.status == "passed"
    assert verdict.stdout.startswith("y" * TEST_LIMITS.output_bytes)
    assert len(verdict.stdout) < TEST_LIMITS.output_bytes + 200 and "output truncated" in verdict.stdout
    assert verdict.stderr == "err\n"


def test_rng_differs_between_jobs(runner):
    code = "import random, torch\nprint(random.random(), torch.rand(1).item(), torch.randn(2).tolist())"
    outputs = {runner.run(code).stdout for _ in range(3)}
    assert len(outputs) == 3


def test_limits_are_reported_with_the_line(runner):
    cpu = runner.run("x = 0\nwhile True:\n    x += 1")
    assert (cpu.status, cpu.message, cpu.part) == ("timeout", "CPU time limit (1 s) reached", "code")
    memory = runner.run("import torch\nx = torch.empty(10**10)")
    assert (memory.status, memory.part, memory.line) == ("memory", "code", 2)
    assert memory.message.startswith("memory limit (256 MiB) reached")


def test_catching_the_time_limit_does_not_escape_it(runner):
    code = "while True:\n    try:\n        while True: pass\n    except BaseException: pass"
    verdict = runner.run(code)
    assert verdict.status == "timeout"
    assert verdict.seconds < TEST_LIMITS.wall_seconds + 1.5


def test_torch_is_preloaded_and_threads_do_not_deadlock(runner):
    code = "import torch\na = torch.randn(512, 512)\nb = (a @ a).sum()\nprint(torch.get_num_threads())"
    verdict = runner.run(code, setup="import torch, math, numpy")
    assert (verdict.status, verdict.stdout) == ("passed", "1\n")
    assert verdict.seconds < 1


def test_environment_and_descriptors_are_clean(runner):
    code = "import os\nprint(sorted(os.environ))\nprint(sorted(os.listdir('/proc/self/fd')))\nprint(os.getcwd())"
    lines = runner.run(code).stdout.splitlines()
    assert set(eval(lines[0])) <= {"PATH", "LANG", "OMP_NUM_THREADS", "HOME", "TMPDIR"}
    assert len(eval(lines[1])) <= 6  # stdio, the job and result pipes, listdir's own


def runtime_under_tmp() -> list[str]:
    """What a job's private /tmp holds: the runtime bound back in, when it is installed under /tmp."""
    return sorted(
        {Path(p).relative_to("/tmp").parts[0] for p in (sys.prefix, sys.base_prefix) if Path("/tmp") in Path(p).parents}
    )


def test_claimed_protections_hold(runner, data_dir):
    claims = runner.sandbox.protections()
    assert claims and all(isinstance(v, bool) for v in claims.values())
    probes = {
        "pid_namespace": "import os; assert os.getpid() == 1 and os.listdir('/proc').count('1') == 1",
        "net_namespace": "assert open('/proc/net/dev').read().count(':') == 1  # only lo",
        "readonly_fs": "import os\ntry:\n    open('/ro-test', 'w')\nexcept OSError as e:\n"
        "    assert e.errno == 30, e\nelse:\n    raise AssertionError('wrote')",
        "private_tmp": f"import os; assert os.getcwd() == '/tmp' and sorted(os.listdir('/tmp')) == {runtime_under_tmp()!r}",
        "hidden_data_dirs": f"import os; assert not os.path.exists({str(data_dir / 'secret.txt')!r})",
        "minimal_root": "import os; assert os.listdir('/etc') == ['ld.so.cache'] and not os.path.exists('/home')",
        "unprivileged_uid": "import os; assert os.getuid() >= 1000 and os.geteuid() >= 1000",
        "seccomp": "import socket\ntry:\n    socket.socket()\nexcept PermissionError:\n    pass\n"
        "else:\n    raise AssertionError('socket')",
        "rlimits": "import resource; assert resource.getrlimit(resource.RLIMIT_NPROC)[0] == 16",
    }
    for name, check in probes.items():
        if claims.get(name):
            verdict = runner.run("", check=check)
            assert verdict.status == "passed", (name, verdict)


@pytest.mark.skipif(__import__("os").geteuid() != 0, reason="the full set needs root")
def test_all_protections_active_as_root(runner):
    assert {k for k, v in runner.sandbox.protections().items() if not v} == set()
