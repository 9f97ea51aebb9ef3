"""exec_bench's memory figure: web server and fork server, without a background FSRS fit."""

import os
import subprocess
import sys
import time

import pytest

from bench.exec_bench import tree_memory_mib

pytestmark = pytest.mark.server


def test_a_running_fit_is_reported_apart_from_the_servers():
    alone = tree_memory_mib(os.getpid())
    fit = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "app.memory.fitting"])
    try:
        for _ in range(100):  # until the child's interpreter is up
            beside = tree_memory_mib(os.getpid())
            if beside["fit"] > 1:
                break
        assert beside["fit"] > 1 and alone["fit"] == 0
        assert 0 < beside["web"] <= beside["pss"]
        assert abs(beside["pss"] - alone["pss"]) < beside["fit"]  # the fit is not in the servers' figure
    finally:
        fit.kill()
        fit.wait()


def test_pss_bench_names_each_process_by_its_place_in_the_tree():
    from bench.exec_bench import tree
    from bench.pss_bench import table

    child = subprocess.Popen([sys.executable, "-c", "import os, time; os.fork(); time.sleep(30)"])
    try:
        for _ in range(200):  # until the grandchild is forked
            if len(tree(os.getpid())) >= 3:
                break
            time.sleep(0.05)
        lines, total = table(os.getpid())
        names = [line.split(" | ")[0].strip("| ") for line in lines]
        assert names[0] == "web server" and "fork server" in names and "zygote" in names
        assert total > 0 and all(len(line.split("|")) == 8 for line in lines)
    finally:
        subprocess.run(["pkill", "-P", str(child.pid)], check=False)
        child.kill()
        child.wait()
