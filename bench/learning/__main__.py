"""Run the learning benchmark and print its tables (Markdown) for bench/RESULTS.md.

python -m bench.learning [--pairs 30] [--jobs 2] [--models fsrs,hlr,actr] [--regimes heavy,light,irregular]
python -m bench.learning --http      # the end-to-end run through a served app under libfaketime
python -m bench.learning --fit       # what per-learner FSRS parameters buy (slow: the Optimizer)
python -m bench.learning --calibration [--pairs 10] [--regimes light]   # the app's predictions against each learner
"""

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from .report import check, table  # noqa: E402
from .runs import POLICIES, run_cell  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.learning")
    parser.add_argument("--pairs", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--models", default="fsrs,hlr,actr")
    parser.add_argument("--regimes", default="heavy,light,irregular")
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--calibration", action="store_true")
    args = parser.parse_args(argv)
    if args.http:
        from .http_run import main as http_main

        return http_main()
    if args.calibration:
        from .calibration_run import main as calibration_main

        return calibration_main(args.pairs, args.regimes.split(","))
    if args.fit:
        from .fit_run import main as fit_main

        return fit_main(args.pairs)
    started = time.monotonic()
    cells = [
        (m, r, args.pairs, tuple(args.policies.split(",")))
        for m in args.models.split(",")
        for r in args.regimes.split(",")
    ]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(run_cell, *zip(*cells)))
    print(table(results))
    chosen = next((n for n in args.policies.split(",") if n.endswith("(chosen)")), None)
    if chosen:
        failures = check(results, chosen)
        print("\nRequired numbers: " + ("both hold" if not failures else "; ".join(failures)))
    print(f"\n{len(cells)} cells × {args.pairs} pairs in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
