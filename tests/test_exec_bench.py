"""exec_bench's memory figure: web server and fork server, without a background FSRS fit."""

import os
import subprocess
import sys

from bench.exec_bench import tree_memory_mib


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
