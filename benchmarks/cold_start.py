"""Cold start: the first fit in a new process, before (a checkout of main) and after (this tree), side by side.

Issue 32, item 3: "the first fit of a built-in loss in a new process takes at most 0.5 s
beyond import". Every case runs in a fresh interpreter, the two trees interleaved
(before, after, before, after, ...), ``--repeats`` times; medians are reported.

In each child the clock reads, in order: ``import dpcvx``; the libraries the user's call itself
needs (``import cvxpy`` for a loss written in CVXPY or taken from ``dpcvx.losses``; the estimator
class, which imports scikit-learn, for the estimators); the rest of the case's imports (the dpcvx
modules the fit uses and what they import); the first fit (verification, calibration, solve); a
second fit of the same model (everything warm). Three columns of the first fit:

* beyond ``import dpcvx``: all the imports + the first fit;
* beyond ``import dpcvx`` and the user's own libraries: the rest of the imports + the first fit.
  The issue's 0.5 s target is judged here: ``import dpcvx`` must not import CVXPY (issue 21:
  ``import dpcvx`` at most 3x ``import numpy``, benchmarks/import_time.py), and a user who writes
  a CVXPY loss, or fits a scikit-learn estimator, has imported that library in their own script;
* beyond all imports: the first fit alone.

The data are 1000 x 10 rows in the unit ball.
The CLI case is the wall time of ``python -m dpcvx verify --loss logistic``
minus that of ``python -c "import dpcvx"`` (both whole processes).

The built-in cases run with ``DPCVX_CACHE_DIR=off``: no on-disk cache, so "after" is a
first fit on a fresh installation (the package's shipped catalogue proofs only). The custom
loss ``logistic(8 (1 - z)) / 8`` (bounded by the validated route) runs with an empty cache
directory (the first process ever: "cold") and then again with the directory that process
filled ("warm").

    python -m benchmarks.cold_start --before /tmp/dpcvx-main [--repeats 5] [--out benchmarks/results]

``--before`` is a checkout of main (``git worktree add /tmp/dpcvx-main main``, or
``git archive main | tar -x -C /tmp/dpcvx-main``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import REPO_ROOT as ROOT
from benchmarks.common import RunRecord, write_json, write_markdown

TARGET = 0.5  # seconds: issue 32, item 3, judged beyond `import dpcvx` and the user's own imports

DATA = """
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=(1000, 10))
X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
y = np.where(X @ np.ones(10) + 0.3 * rng.normal(size=1000) > 0, 1, -1)
"""

# case -> (the user's own imports, the rest of the imports the fit needs, the fit)
CASES = {
    "PrivateERM(dpcvx.losses.logistic())": (
        "import cvxpy",
        "import dpcvx.models.erm, dpcvx.losses",
        "dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=1e-3, data_norm=1.0).fit(X, y, epsilon=1.0, "
        "random_state=0)",
    ),
    "PrivateERM(lambda z: cp.logistic(-z))": (
        "import cvxpy as cp",
        "import dpcvx.models.erm",
        "dpcvx.PrivateERM(loss=lambda z: cp.logistic(-z), lam=1e-3, data_norm=1.0).fit(X, y, epsilon=1.0, "
        "random_state=0)",
    ),
    "DPLogisticRegression": (
        "from dpcvx import DPLogisticRegression",
        "import cvxpy, dpcvx.models.erm",
        "DPLogisticRegression(random_state=0).fit(X, (y > 0).astype(int))",
    ),
    "DPHuberRegressor": (
        "from dpcvx import DPHuberRegressor",
        "import cvxpy, dpcvx.models.erm",
        "DPHuberRegressor(label_bound=3.0, random_state=0).fit(X, X @ np.ones(10))",
    ),
    "custom logistic(8(1 - z))/8": (
        "import cvxpy as cp",
        "import dpcvx.models.erm",
        "dpcvx.PrivateERM(loss=lambda z: cp.logistic(8 * (1 - z)) / 8, lam=1e-3, data_norm=1.0)"
        ".fit(X, y, epsilon=1.0, random_state=0)",
    ),
    "TDDL (hinge, RBF kernel)": (
        "from dpcvx import TDDL",
        "import cvxpy, dpcvx.models.erm",
        "TDDL(lam=0.1, gamma=0.2).fit(X, y, Z=X[:50], epsilon=1.0, random_state=0)",
    ),
}
CUSTOM = "custom logistic(8(1 - z))/8"

CHILD = """
import json, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import dpcvx
t1 = time.perf_counter()
{user_imports}
t2 = time.perf_counter()
{imports}
{data}
t3 = time.perf_counter()
{fit}
t4 = time.perf_counter()
{fit}
t5 = time.perf_counter()
print(json.dumps({{"import_dpcvx": t1 - t0, "user_imports": t2 - t1, "imports": t3 - t2, "first_fit": t4 - t3,
                  "second_fit": t5 - t4}}))
"""


def _environment(root: Path, cache: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               DPCVX_CACHE_DIR=cache)
    return env


def fit_times(root: Path, case: str, cache: str = "off") -> dict[str, float]:
    """One fresh interpreter with ``root``'s dpcvx: seconds of each phase (see the module docstring)."""
    user_imports, imports, fit = CASES[case]
    code = CHILD.format(user_imports=user_imports, imports=imports, data=DATA, fit=fit)
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=_environment(root, cache),
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def wall(root: Path, command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *command], cwd=root, env=_environment(root, "off"), capture_output=True,
                   check=True)
    return time.perf_counter() - start


def cli_times(root: Path) -> dict[str, float]:
    """Wall seconds of ``dpcvx verify --loss logistic`` beyond a process that only imports dpcvx."""
    verify = wall(root, ["-m", "dpcvx", "verify", "--loss", "logistic"])
    bare = wall(root, ["-c", "import dpcvx"])
    return {"cli_verify": verify, "import_only": bare, "beyond_import": verify - bare}


def measure(trees: dict[str, Path], repeats: int, custom_repeats: int) -> dict[str, dict[str, list[dict[str, float]]]]:
    runs: dict[str, dict[str, list[dict[str, float]]]] = {label: {} for label in trees}
    for repeat in range(repeats):
        for case in CASES:
            if case == CUSTOM:
                continue
            for label, root in trees.items():  # interleaved: machine noise hits both trees alike
                runs[label].setdefault(case, []).append(fit_times(root, case))
        for label, root in trees.items():
            runs[label].setdefault("CLI verify --loss logistic", []).append(cli_times(root))
        if repeat < custom_repeats:
            for label, root in trees.items():
                with tempfile.TemporaryDirectory(prefix="dpcvx-cache-") as cache:
                    runs[label].setdefault(CUSTOM + " (cold cache)", []).append(fit_times(root, CUSTOM, cache))
                    runs[label].setdefault(CUSTOM + " (warm cache)", []).append(fit_times(root, CUSTOM, cache))
        print(f"repeat {repeat + 1}/{repeats} done", file=sys.stderr, flush=True)
    return runs


def _median(samples: list[dict[str, float]], *fields: str) -> float:
    return statistics.median(sum(sample[field] for field in fields) for sample in samples)


def summary(runs: dict[str, dict[str, list[dict[str, float]]]]) -> list[dict[str, object]]:
    rows = []
    for case in runs["after"]:
        row: dict[str, object] = {"case": case, "repeats": len(runs["after"][case])}
        for label in ("before", "after"):
            samples = runs[label][case]
            if case.startswith("CLI"):
                row[f"{label}_beyond_import"] = _median(samples, "beyond_import")
                row[f"{label}_beyond_user_imports"] = None
                row[f"{label}_beyond_all_imports"] = None
                row[f"{label}_second_fit"] = None
            else:
                row[f"{label}_beyond_import"] = _median(samples, "user_imports", "imports", "first_fit")
                row[f"{label}_beyond_user_imports"] = _median(samples, "imports", "first_fit")
                row[f"{label}_beyond_all_imports"] = _median(samples, "first_fit")
                row[f"{label}_imports"] = _median(samples, "imports")
                row[f"{label}_second_fit"] = _median(samples, "second_fit")
        row["ratio_after_to_before"] = float(row["after_beyond_import"]) / float(row["before_beyond_import"])  # type: ignore[arg-type]
        if row["after_beyond_user_imports"] is not None:
            row["target_0_5_s_met"] = float(row["after_beyond_user_imports"]) <= TARGET  # type: ignore[arg-type]
        rows.append(row)
    return rows


def _seconds(value: object) -> str:
    return "-" if value is None else f"{float(value):.2f}"  # type: ignore[arg-type]


def markdown(rows: list[dict[str, object]], meta: dict[str, object]) -> str:
    """The before/after table; the run (command, machine, load, threads) is appended by the harness."""
    lines = [
        "# Cold start: the first fit in a new process (issue 32, item 3)",
        "",
        f"One BLAS thread. Median of {meta['repeats']} fresh processes per cell ({meta['custom_repeats']} for "
        "the custom loss), before (main) and after (this branch) interleaved. Seconds.",
        "",
        "| case | first fit beyond `import dpcvx`: before | after | after / before | beyond `import dpcvx` and "
        "the user's imports: before | **after (target <= 0.5)** | beyond all imports: before | after "
        "| after: second fit |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['case']} | {_seconds(row['before_beyond_import'])} | {_seconds(row['after_beyond_import'])} | "
            f"{float(row['ratio_after_to_before']):.2f} | {_seconds(row['before_beyond_user_imports'])} | "  # type: ignore[arg-type]
            f"**{_seconds(row['after_beyond_user_imports'])}** | {_seconds(row['before_beyond_all_imports'])} | "
            f"{_seconds(row['after_beyond_all_imports'])} | {_seconds(row['after_second_fit'])} |"
        )
    lines += [
        "",
        "Columns: the first fit beyond `import dpcvx` (every import the fit needs, which `import dpcvx` "
        "defers, plus the fit); beyond `import dpcvx` and the libraries the user's call itself needs "
        "(`import cvxpy` for a loss written in CVXPY or taken from `dpcvx.losses`; the estimator class, which "
        "imports scikit-learn, for the estimators); beyond all imports (the first fit alone). **The 0.5 s "
        "target of issue 32 (item 3) is judged on the second column, in bold**: issue 21 requires `import dpcvx` "
        "to take at most 3x `import numpy` (benchmarks/import_time.py), so `import dpcvx` cannot import CVXPY "
        "(about 1 s), and a user fitting a CVXPY loss or a scikit-learn estimator has imported that library in "
        "their own script. The first column is shown for completeness; it includes CVXPY's import.",
        "",
        "The built-in cases run with the on-disk cache off (a fresh installation: the shipped catalogue "
        "only, whose verified-loss records serve the fit without importing sympy). The CLI row is the wall "
        "time of `python -m dpcvx verify --loss logistic` minus that of `python -c \"import dpcvx\"`. The "
        "custom loss row \"cold cache\" is the first process ever to verify it (it proves and stores), "
        "\"warm cache\" the next process (served from the on-disk record).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of main (the 'before' code)")
    parser.add_argument("--after", type=Path, default=ROOT, help="the tree measured as 'after' (default: this one)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--custom-repeats", type=int, default=2, help="repeats of the ~25 s custom loss case")
    parser.add_argument("--out", type=Path, default=None, help="directory for cold_start.json and cold_start.md")
    args = parser.parse_args(argv)
    record = RunRecord("benchmarks.cold_start", argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    runs = measure(trees, args.repeats, min(args.custom_repeats, args.repeats))
    meta: dict[str, object] = {"repeats": args.repeats, "custom_repeats": min(args.custom_repeats, args.repeats)}
    rows = summary(runs)
    text = markdown(rows, meta)
    result: dict[str, object] = {"meta": meta, "summary": rows, "runs": runs}
    if args.out is None:
        print(text)
        return result
    print(write_markdown(args.out / "cold_start.md", text, record))
    result["run"] = record.finish()
    write_json(args.out / "cold_start.json", result)
    return result


if __name__ == "__main__":
    main()
