"""The accountant's composition and the command line's start, measured side by side (issue 43).

* ``dpcvx --help``: wall time of ``python -m dpcvx.cli --help`` in a new process, interleaved with
  ``python -c "import numpy"`` and ``python -c pass`` (the interpreter's own start), ``--repeats`` times
  each; medians and the ratio to numpy's import. Target: at most 0.5 s.
* ``spent`` after 100 Gaussian charges (noise multipliers 4.0, 4.1, ..., 13.9, delta 1e-7 each): the
  time of the 100 charges, of a first read of ``spent`` by an accountant given the same ledger (the
  whole composition from nothing) and of a second read (the kept composition), medians over
  ``--repeats``; and the relative difference of ``spent.epsilon`` to the closed form, the root of the
  mu-GDP profile delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), mu = sqrt(sum z_i^-2)
  (Dong, Roth and Su 2022), found here by scipy's brentq, independently of dpcvx. Targets: at most
  50 ms, within 1e-9 relative.

Run (about a minute; pin BLAS threads on a shared machine):

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.accounting_cli [--repeats 7] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import RunRecord, write_json, write_markdown

ROOT = Path(__file__).resolve().parents[1]
CHARGES, DELTA_EACH = 100, 1e-7
HELP_TARGET_S, SPENT_TARGET_S, RELATIVE_TARGET = 0.5, 0.05, 1e-9
COMMANDS = {"dpcvx --help": ["-m", "dpcvx.cli", "--help"], "import numpy": ["-c", "import numpy"],
            "python -c pass": ["-c", "pass"]}


def process_seconds(arguments: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``python ARGUMENTS`` in a new process, this checkout first on the path. The CPU
    time (user + system of the child) does not grow with the machine's load as the wall time does."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, *arguments], check=True, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def multipliers() -> list[float]:
    return [4.0 + 0.1 * i for i in range(CHARGES)]


def closed_form(delta: float) -> float:
    """The mu-GDP epsilon of the composed Gaussians at ``delta``, by root finding (not dpcvx's code)."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    mu = math.sqrt(sum(z**-2 for z in multipliers()))
    return float(brentq(lambda e: norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - delta,
                        0.0, 200.0, xtol=1e-15, rtol=4 * sys.float_info.epsilon))


def accountant_times() -> dict[str, float]:
    """Seconds of the 100 charges, of the first and second ``spent`` of a fresh accountant, and epsilon."""
    from dpcvx.privacy.accountant import PrivacyAccountant
    from dpcvx.privacy.privacy_curve import CurvePart, PrivacyCurve

    accountant = PrivacyAccountant(epsilon=1e6, delta=0.5)
    start = time.perf_counter()
    for z in multipliers():
        accountant.spend(1.0, DELTA_EACH, description="Gaussian release",
                         curve=PrivacyCurve((CurvePart("gaussian", "release", noise_multiplier=z),)))
    charges = time.perf_counter() - start
    fresh = PrivacyAccountant(epsilon=1e6, delta=0.5, ledger=list(accountant.ledger))
    start = time.perf_counter()
    spent = fresh.spent
    first = time.perf_counter() - start
    start = time.perf_counter()
    again = fresh.spent
    second = time.perf_counter() - start
    assert again == spent
    return {"charges": charges, "first_spent": first, "second_spent": second, "epsilon": spent.epsilon,
            "delta": spent.delta}


def measure(repeats: int) -> dict:
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    for _ in range(repeats):
        for name, arguments in COMMANDS.items():  # interleaved, so machine noise hits all alike
            times[name].append(process_seconds(arguments))
    help_medians = {name: statistics.median(wall for wall, _ in values) for name, values in times.items()}
    help_cpu = {name: statistics.median(cpu for _, cpu in values) for name, values in times.items()}
    runs = [accountant_times() for _ in range(repeats)]
    exact = closed_form(runs[0]["delta"])
    spent = {key: statistics.median(run[key] for run in runs) for key in ("charges", "first_spent", "second_spent")}
    relative = runs[0]["epsilon"] / exact - 1
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": sys.version.split()[0],
        "load_average": os.getloadavg(),
        "repeats": repeats,
        "help_median_seconds": help_medians,
        "help_cpu_seconds": help_cpu,
        "help_to_numpy_ratio": help_medians["dpcvx --help"] / help_medians["import numpy"],
        "help_to_numpy_cpu_ratio": help_cpu["dpcvx --help"] / help_cpu["import numpy"],
        "help_target_met": help_medians["dpcvx --help"] <= HELP_TARGET_S,
        "help_cpu_target_met": help_cpu["dpcvx --help"] <= HELP_TARGET_S,
        "accountant_median_seconds": spent,
        "spent_epsilon": runs[0]["epsilon"],
        "closed_form_epsilon": exact,
        "relative_difference": relative,
        "spent_target_met": spent["first_spent"] <= SPENT_TARGET_S and 0 <= relative <= RELATIVE_TARGET,
    }


def markdown(result: dict) -> str:
    helps, cpu, spent = result["help_median_seconds"], result["help_cpu_seconds"], result["accountant_median_seconds"]
    return "\n".join([
        "# The command line's start and the accountant's composition",
        "",
        f"`benchmarks/accounting_cli.py`, {result['date_utc']}, Python {result['python']}, load average "
        f"{', '.join(f'{x:.1f}' for x in result['load_average'])}, medians of {result['repeats']} interleaved runs.",
        "",
        "| command (new process) | wall seconds | CPU seconds |",
        "|---|---|---|",
        *(f"| `{name}` | {value:.3f} | {cpu[name]:.3f} |" for name, value in helps.items()),
        "",
        f"`dpcvx --help` / `import numpy`: **{result['help_to_numpy_ratio']:.2f}** in wall time, "
        f"**{result['help_to_numpy_cpu_ratio']:.2f}** in CPU time; target at most {HELP_TARGET_S} s: "
        f"{'met' if result['help_target_met'] else 'NOT met'} in wall time, "
        f"{'met' if result['help_cpu_target_met'] else 'NOT met'} in CPU time (the wall time of every "
        "process here grows with the machine's load: compare the rows).",
        "",
        f"| {CHARGES} Gaussian charges | seconds |",
        "|---|---|",
        f"| the {CHARGES} charges (each checked against the budget) | {spent['charges']:.4f} |",
        f"| first `spent` of an accountant given the ledger (composed from nothing) | {spent['first_spent']:.4f} |",
        f"| second `spent` (the kept composition) | {spent['second_spent']:.6f} |",
        "",
        f"`spent.epsilon` = {result['spent_epsilon']!r} at delta = {CHARGES} x {DELTA_EACH:g}; the closed form "
        f"(mu-GDP, brentq) = {result['closed_form_epsilon']!r}; relative difference "
        f"{result['relative_difference']:.2e} (dpcvx rounds up). Target at most {SPENT_TARGET_S * 1000:g} ms "
        f"within {RELATIVE_TARGET:g}: {'met' if result['spent_target_met'] else 'NOT met'}.",
        "",
    ])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", type=Path, default=None, help="directory for accounting_cli.json and .md")
    args = parser.parse_args(argv)
    record = RunRecord("benchmarks.accounting_cli", argv)
    result = measure(args.repeats)
    print(markdown(result))
    if args.out is not None:
        write_markdown(args.out / "accounting_cli.md", markdown(result), record)
        write_json(args.out / "accounting_cli.json", {**result, "run": record.finish()})
    return result


if __name__ == "__main__":
    main()
