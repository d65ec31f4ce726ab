"""Shared pieces of the dpcvx benchmarks.

* the paper's grids (Lam, epsilon) and the two losses of JMLR 2011, Section 7;
* data: :func:`load_data` wraps :mod:`dpcvx.data.datasets` (Adult, KDD Cup 99 10%,
  modes ``paper`` and ``private``) and adds a tiny ``synthetic`` set for tests;
* cross-validation folds and per-cell random seeds that do not depend on the
  order in which parallel workers run;
* peers: scikit-learn's and diffprivlib's ``LogisticRegression`` on the same
  rows and the same objective, with the regularization converted;
* :func:`relative_residual`: every method's relative optimality residual of
  its own objective, computed by :mod:`dpcvx.solvers.objective` (the function dpcvx's
  solvers use) on the problem :func:`dpcvx.verify_problem` verified, so all methods
  are measured the same way;
* :class:`RunRecord`: command, machine, date, load averages, thread settings,
  versions and run time, stored with every result file.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import importlib
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from dpcvx import losses
from dpcvx.solvers.objective import PerturbedObjective

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = REPO_ROOT / "benchmarks" / "results"

# JMLR 2011, Section 7: Lam grid, epsilon grid, Huber hinge with h = 0.5.
LAMS = tuple(10.0 ** e for e in (-4.0, -3.5, -3.0, -2.5, -2.0, -1.5))
LAM_LABELS = ("1e-4", "10^-3.5", "1e-3", "10^-2.5", "1e-2", "10^-1.5")
EPSILONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
LOSSES = {"logistic": losses.logistic(), "huber": losses.huber_hinge(0.5)}
DATA_NORM = 1.0  # rows of both loaders have norm <= 1 (public bound R = 1)

DATASETS = ("adult", "kdd", "synthetic")
MODES = ("paper", "private")
#: The schema code of :func:`load_data`'s private mode: "unit" ([0, 1] columns), the code every result recorded
#: through it (reproduce_jmlr, honest, ...) was produced with before issue 42 made "centred" the schema's default;
#: benchmarks/encodings.py and real_tables.py measure the new default.
RECORDED_ENCODING = "unit"

# Paper's numbers (REFERENCE.md, "Published numbers to reproduce"): test error at eps = 0.1.
PAPER_ADULT_EPS01 = {
    ("logistic", "nonprivate"): (.1654, .1694, .1758, .1895, .2322, .2478),
    ("logistic", "output"): (.5175, .4928, .4310, .3163, .2395, .2456),
    ("logistic", "objective"): (.8248, .2694, .2369, .2161, .2305, .2475),
    ("huber", "nonprivate"): (.1632, .1669, .1719, .1793, .2454, .2478),
    ("huber", "output"): (.5211, .5011, .4464, .3352, .2376, .2476),
    ("huber", "objective"): (.2585, .2582, .2559, .2046, .2319, .2478),
}
# KDD: best over Lam at eps = 0.1 (the Lam is given only for LR objective: 10^-2.5).
PAPER_KDD_BEST_EPS01 = {
    ("logistic", "objective"): .0113,
    ("logistic", "output"): .0304,
    ("huber", "objective"): .0064,
    ("huber", "output"): .0092,
    ("logistic", "nonprivate"): .0016,
}
# The eps = 0.1 targets of the issue: (dataset, loss) -> (paper error, Lam index or None for best).
TARGETS = {
    ("adult", "logistic"): (.2161, 3),
    ("adult", "huber"): (.2046, 3),
    ("kdd", "logistic"): (.0113, None),
    ("kdd", "huber"): (.0064, None),
}


# -- data ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Data:
    """Rows (norm <= 1, constant feature last), labels in {-1, +1}, and where they came from."""

    name: str
    mode: str
    X: np.ndarray
    y: np.ndarray
    description: str

    @property
    def key(self) -> str:
        return f"{self.name}/{self.mode}"


#: The (n, d) :func:`load_data` gives today at its defaults (KDD: 70,000 rows, seed 0), per "data/mode". A recorded
#: run whose data were loaded at another shape was made by an earlier loader (for example adult/private before issue
#: 15's fix kept every record: 45,222 x 106 then); docs/results.md labels its rows (benchmarks/report.py,
#: :func:`stale_loads`). tests/project/test_benchmarks_records.py checks these against the loaders when the data
#: are present.
LOADED_SHAPES = {"adult/paper": (45_222, 105), "adult/private": (48_842, 114),
                 "kdd/paper": (70_000, 119), "kdd/private": (70_000, 126)}


def stale_loads(run_data: dict) -> dict[str, tuple[int, int]]:
    """The "data/mode" keys of a recorded run's ``data`` (each with ``n`` and ``d``) whose shape is not what
    :func:`load_data` gives today (:data:`LOADED_SHAPES`), with the recorded shape; keys of data sets it does not
    know (synthetic, a subsample) are left out."""
    return {key: (int(entry["n"]), int(entry["d"])) for key, entry in run_data.items()
            if key in LOADED_SHAPES and (int(entry["n"]), int(entry["d"])) != LOADED_SHAPES[key]}


def load_data(name: str, mode: str, *, kdd_rows: int | None = 70_000, seed: int = 0,
              max_rows: int | None = None) -> Data:
    """Adult or KDD through :mod:`dpcvx.data.datasets`, or the tiny ``synthetic`` set (tests).

    ``max_rows`` keeps a seeded random subset (for tests and speed runs).
    KDD's ``kdd_rows`` subset is drawn by the loader with ``random_state=seed``
    (the paper used a random 70,000 rows). ``synthetic`` is
    :func:`dpcvx.demo.synthetic_classification` with a constant feature
    appended and rows rescaled to norm <= 1; its ``mode`` only labels it. Private mode encodes with
    :data:`RECORDED_ENCODING` (paper mode always uses the paper's unit code).
    """
    if name == "adult":
        dataset = dpcvx.load_adult(mode=mode, encoding=RECORDED_ENCODING)
        X, y, text = dataset.X, dataset.y, f"UCI Adult, mode={mode}"
    elif name == "kdd":
        dataset = dpcvx.load_kdd(mode=mode, n_rows=kdd_rows, random_state=seed, encoding=RECORDED_ENCODING)
        rows = "all 494,021" if kdd_rows is None else f"random {kdd_rows:,} (seed {seed})"
        X, y, text = dataset.X, dataset.y, f"KDD Cup 99 10%, DoS vs rest, {rows} rows, mode={mode}"
    elif name == "synthetic":
        from dpcvx.demo import synthetic_classification

        n = 2000 if max_rows is None else max_rows
        Z, y = synthetic_classification(n=n, d=6, random_state=seed)
        X = np.hstack([Z, np.ones((n, 1))])
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * (1 + 1e-15)
        y = y.astype(float)
        text = f"synthetic (dpcvx.demo), n={n}, d=7 with constant feature"
    else:
        raise ValueError(f"unknown data set {name!r}; choose from {DATASETS}")
    if max_rows is not None and max_rows < X.shape[0]:
        keep = np.sort(np.random.default_rng(seed).permutation(X.shape[0])[:max_rows])
        X, y = X[keep], y[keep]
        text += f"; seeded random subset of {max_rows} rows"
    return Data(name, mode, np.ascontiguousarray(X), np.asarray(y, dtype=float), text)


def kfold(n: int, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """k (train, test) index pairs of a seeded random partition into k near-equal folds."""
    order = np.random.default_rng(seed).permutation(n)
    parts = np.array_split(order, k)
    return [(np.sort(np.concatenate(parts[:i] + parts[i + 1:])), np.sort(parts[i])) for i in range(k)]


def seed_sequence(seed: int, *key: int) -> np.random.SeedSequence:
    """A seed for one cell (data set, fold, loss, Lam, eps, draw, stream), order-independent."""
    return np.random.SeedSequence(seed, spawn_key=tuple(int(k) for k in key))


def generator(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(seed_sequence(seed, *key))


def int_seed(seed: int, *key: int) -> int:
    """A 31-bit int seed for libraries that take an int (diffprivlib's random_state)."""
    return int(seed_sequence(seed, *key).generate_state(1)[0] >> 1)


# -- residuals --------------------------------------------------------------------------------


def relative_residual(loss, X, y, lam: float, w, noise=None, extra_reg: float = 0.0) -> float:
    """Relative optimality residual of w for J_b(w) = (1/n) sum l + Lam/2 ||w||^2 + b^T w / n + Delta/2 ||w||^2.

    Computed by :class:`dpcvx.solvers.objective.PerturbedObjective` (the residual
    dpcvx's own solvers report), with the loss derivatives the verifier
    established (:func:`dpcvx.verify_problem`). ``noise`` b and ``extra_reg`` Delta describe a perturbed
    objective (objective perturbation); both default to the plain J.
    """
    X = np.asarray(X, dtype=float)
    problem = dpcvx.verify_problem(loss, dim=X.shape[1])
    b = np.zeros(X.shape[1]) if noise is None else np.asarray(noise, dtype=float)
    objective = PerturbedObjective(X, np.asarray(y, dtype=float), problem.derivatives, problem.quadratic,
                                   float(lam), b, float(extra_reg))
    return objective.residual(np.asarray(w, dtype=float).ravel()).relative


# -- peers ------------------------------------------------------------------------------------------


def peer_status() -> dict:
    """Which peers can run here: {"sklearn": (bool, reason), "diffprivlib": (bool, reason)}."""
    status = {}
    for name, module in (("sklearn", "sklearn"), ("diffprivlib", "diffprivlib")):
        try:
            mod = importlib.import_module(module)
            status[name] = (True, f"{module} {mod.__version__}")
        except Exception as error:  # diffprivlib 0.6.6 fails to import or fit with scikit-learn >= 1.8
            status[name] = (False, f"{module} not usable here ({type(error).__name__}: {error}); "
                                   "install the 'bench' extra in a separate venv")
    if status["diffprivlib"][0]:
        try:  # 0.6.6 imports with scikit-learn 1.8+ but cannot construct its model
            from diffprivlib.models import LogisticRegression

            LogisticRegression(epsilon=1.0, data_norm=1.0)
        except Exception as error:
            status["diffprivlib"] = (False, f"diffprivlib cannot build its LogisticRegression here "
                                            f"({type(error).__name__}: {error}); it needs scikit-learn < 1.8")
    return status


def usable_peers(requested, script: str) -> tuple[list[str], dict]:
    """(the requested peers that can run here, {skipped peer: reason}), reporting each skip."""
    status = peer_status()
    skipped = {peer: status[peer][1] for peer in requested if not status[peer][0]}
    for peer, reason in skipped.items():
        print(f"[{script}] skipping peer {peer}: {reason}", file=sys.stderr)
    return [peer for peer in requested if status[peer][0]], skipped


def sklearn_C(n: int, lam: float) -> float:
    """C of scikit-learn (and diffprivlib) for dpcvx's Lam.

    scikit-learn minimises C sum_i l_i + 0.5 ||w||^2 = C n (J(w)) with
    J = (1/n) sum l_i + (1/(2 C n)) ||w||^2, so Lam = 1 / (C n): C = 1 / (n Lam).
    diffprivlib 0.6.6 minimises (1/n) sum l_i + (1/(2 C n)) ||w||^2 (+ noise):
    the same C.
    """
    return 1.0 / (n * lam)


def fit_sklearn(X, y, lam: float):
    """Non-private scikit-learn LogisticRegression (lbfgs, its defaults tol=1e-4, max_iter=100).

    No separate intercept (``fit_intercept=False``): the rows carry the
    constant feature, regularized like every weight, exactly as in dpcvx, so
    both minimise the same J. Returns (model, seconds, converged).
    """
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=sklearn_C(X.shape[0], lam), fit_intercept=False, solver="lbfgs")
    return timed_fit(model, X, y)


def timed_fit(model, X, y):
    """(fitted model, seconds, converged): converged is False if it warned ConvergenceWarning."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return model, seconds, converged


def timed_fits(fit: Callable[[], Any], fits: int, clock: Callable[[], float] = time.perf_counter,
               ) -> tuple[list[float], Any]:
    """(the seconds of each of ``fits`` calls of ``fit`` after one call to warm up, the last call's result): the
    timing loop of the A/B scripts' child processes (:func:`tree_child`)."""
    fit()
    seconds, result = [], None
    for _ in range(fits):
        start = clock()
        result = fit()
        seconds.append(clock() - start)
    return seconds, result


def tree_child(tree: Path, body: str) -> Any:
    """The JSON a new process prints last, running ``body`` with dpcvx imported from ``tree`` only (asserted) and
    this repository's ``benchmarks`` (the same data and helpers for both trees): how the A/B scripts time one tree
    against another (speed_ab, line_search_values, estimator_scale), each tree in its own processes."""
    prelude = (f"import sys\nsys.path.insert(0, {str(tree)!r})\nimport dpcvx\n"
               f"assert dpcvx.__file__.startswith({str(tree)!r}), dpcvx.__file__\n"
               f"sys.path.insert(0, {str(REPO_ROOT)!r})\nimport benchmarks\n"
               f"assert benchmarks.__file__.startswith({str(REPO_ROOT)!r}), benchmarks.__file__\n")
    done = subprocess.run([sys.executable, "-c", prelude + body], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def fit_diffprivlib(X, y, lam: float, epsilon: float, seed: int):
    """diffprivlib 0.6.6 LogisticRegression (objective perturbation, lbfgs with its defaults).

    ``data_norm=1`` (the public R), ``C = 1/(n Lam)``, ``fit_intercept=False``
    on rows that carry the constant feature: its intercept is then inside the
    norm bound and the regularizer. In this setting its calibration equals
    JMLR 2011's (paper split): with R = 1 its c*R in place of c*R^2 is
    harmless, and no unregularised intercept is perturbed. Its default
    (``fit_intercept=True``) would hit both halves of the pitfall in
    REFERENCE.md. Returns (model, seconds, converged).
    """
    from diffprivlib.models import LogisticRegression

    model = LogisticRegression(epsilon=epsilon, data_norm=DATA_NORM, C=sklearn_C(X.shape[0], lam),
                               fit_intercept=False, random_state=seed)
    return timed_fit(model, X, y)


def diffprivlib_perturbation(n: int, d: int, lam: float, epsilon: float, seed: int):
    """The noise b and extra regularization Delta of one diffprivlib fit, in dpcvx's convention.

    diffprivlib draws them inside its ``Vector`` mechanism from
    ``RandomState(seed)`` and never exposes them. This builds the same
    mechanism with the same arguments and seed (as ``fit_diffprivlib`` makes
    it, binary problem, no intercept) and reads b and Delta off the gradient
    of the perturbation it adds: grad at 0 is b / n, and grad at w minus b / n
    is Delta w. The result feeds :func:`relative_residual`.
    """
    from diffprivlib.mechanisms import Vector

    mechanism = Vector(epsilon=epsilon, dimension=d, alpha=1.0 / sklearn_C(n, lam), function_sensitivity=0.25,
                       data_sensitivity=DATA_NORM, n=n, random_state=np.random.RandomState(seed))
    added = mechanism.randomise(lambda w, *args: (0.0, np.zeros(d)))
    b = n * np.asarray(added(np.zeros(d))[1])
    ones = np.ones(d)
    delta = float(np.mean(np.asarray(added(ones)[1]) - b / n))
    return b, delta


# -- threads, machine, run records --------------------------------------------------------------


@contextlib.contextmanager
def limit_threads(threads: int | None):
    """Limit BLAS/OpenMP threads (threadpoolctl when available); None leaves them alone."""
    if threads is None:
        yield
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=int(threads)):
        yield


def thread_settings() -> dict:
    env = {name: os.environ.get(name) for name in
           ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    pools = []
    try:
        from threadpoolctl import threadpool_info

        pools = [{key: pool.get(key) for key in ("user_api", "internal_api", "num_threads", "version")}
                 for pool in threadpool_info()]
    except ImportError:
        pass
    return {"environment": env, "threadpools": pools}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True,
                             timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                               capture_output=True, text=True, timeout=10)
        return out.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "") if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def versions() -> dict:
    found = {"python": platform.python_version()}
    for module in ("dpcvx", "numpy", "scipy", "cvxpy", "sklearn", "diffprivlib", "matplotlib"):
        try:
            found[module] = importlib.import_module(module).__version__
        except Exception:
            found[module] = None
    return found


def machine() -> dict:
    uname = platform.uname()
    return {"uname": " ".join([uname.system, uname.node, uname.release, uname.version, uname.machine]),
            "cpu_model": _cpu_model(), "cores": os.cpu_count()}


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class RunRecord:
    """Start/end record of one benchmark run: command, machine, date, load, threads, run time."""

    def __init__(self, module: str, argv: list[str] | None = None):
        self.command = f"python -m {module} " + " ".join(sys.argv[1:] if argv is None else argv)
        self.invoked_as = f"python -m {_module_name()} " + " ".join(sys.argv[1:])
        self.started = _dt.datetime.now(_dt.UTC)
        self.load_start = load_average()
        self._t0 = time.perf_counter()

    def finish(self) -> dict:
        return {
            "command": self.command.strip(),
            "invoked_as": self.invoked_as.strip(),
            "date_utc": self.started.isoformat(timespec="seconds"),
            "machine": machine(),
            "load_average_start": self.load_start,
            "load_average_end": load_average(),
            "load_average_note": "1, 5 and 15 minute load averages (os.getloadavg); the machine has "
                                 f"{os.cpu_count()} cores, so timings taken above a load of "
                                 f"{os.cpu_count()} include waiting for a core",
            "run_seconds": round(time.perf_counter() - self._t0, 1),
            "threads": thread_settings(),
            "versions": versions(),
            "git_commit": _git_commit(),
        }


def run_lines(run: dict) -> list[str]:
    """A finished run record as the Markdown lines a result file ends with."""
    threads = run["threads"]["environment"]
    return ["", "## Run", "",
            f"Command: `{run['command']}`; {run['date_utc']} (UTC), {run['run_seconds']:g} s; "
            f"{run['machine']['cores']} cores ({run['machine']['cpu_model']}); load average (1, 5, 15 min) "
            f"{run['load_average_start']} at the start, {run['load_average_end']} at the end; BLAS threads "
            f"{threads}; dpcvx {run['versions']['dpcvx']} at commit {run['git_commit']}."]


def write_markdown(path: Path, text: str, record: RunRecord) -> str:
    """Write ``text`` with the run record appended (:func:`run_lines`) to ``path``; returns what was written."""
    written = text.rstrip("\n") + "\n" + "\n".join(run_lines(record.finish())) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(written)
    return written


def _module_name() -> str:
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:
        return spec.name
    return Path(sys.argv[0]).stem if sys.argv and sys.argv[0] else "?"


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=_json_default, allow_nan=False) + "\n")


def tables_and_runs(records: dict[str, dict]) -> list[str]:
    """The Markdown sections that end a staged benchmark's record: each table (n, d and its text) and each run."""
    return (["", "## Tables", ""] + [f"- {name} (n = {record['n']:,}, d = {record['d']}): {record['text']}"
                                     for name, record in records.items()]
            + ["", "## Runs", ""] + [f"- {name}: " + " ".join(run_lines(record["run"])[3:])
                                     for name, record in records.items()])


def staged_main(argv: list[str] | None, doc: str, module: str, stem: str, stages: dict[str, Sequence[str]],
                splits: int, out: Path, measure: Callable[[str, int], dict],
                render: Callable[[str, dict], str]) -> dict[str, dict]:
    """The command line of a benchmark run by stage (``--stage dev|held-out --tables NAME ... [--splits K]``, or
    ``--render``): each table measured over the splits and merged into ``out/STEM_STAGE.json`` with its run record
    and seconds, one after another, the stage's Markdown rewritten from every table recorded there after each
    (``python -m MODULE --stage STAGE --tables NAME --splits K``, the command recorded)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--stage", choices=tuple(stages), required=True)
    parser.add_argument("--tables", nargs="+", default=[], help="tables to run, each merged into the stage's JSON")
    parser.add_argument("--render", action="store_true", help="rewrite the stage's Markdown from its JSON only")
    parser.add_argument("--splits", type=int, default=splits)
    parser.add_argument("--out", type=Path, default=out)
    arguments = parser.parse_args(argv)
    allowed = stages[arguments.stage]
    unknown = [name for name in arguments.tables if name not in allowed]
    if unknown or not (arguments.tables or arguments.render):
        parser.error(f"name {arguments.stage} tables to run ({unknown} are not: choose from {allowed}) or pass "
                     "--render")
    path = arguments.out / f"{stem}_{arguments.stage.replace('-', '_')}.json"
    records: dict[str, dict] = json.loads(path.read_text()) if path.exists() else {}
    for name in arguments.tables:
        harness = RunRecord(module, ["--stage", arguments.stage, "--tables", name, "--splits", str(arguments.splits)])
        start = time.perf_counter()
        record = measure(name, arguments.splits)
        record["seconds"] = round(time.perf_counter() - start, 1)
        record["run"] = harness.finish()
        records[name] = record
        path.write_text(json.dumps(records, indent=1) + "\n")
    path.with_suffix(".md").write_text(render(arguments.stage, records))
    return records


def add_result_arguments(parser: argparse.ArgumentParser, tag: str | None, tag_help: str = "file name tag") -> None:
    """A script's ``--out`` (the results directory by default) and ``--tag`` (the file name, ``tag`` by default),
    the two :func:`write_results` takes."""
    parser.add_argument("--out", default=str(RESULTS_DIR), help="output directory")
    parser.add_argument("--tag", default=tag, help=tag_help)


def alternating(before: Path, processes: int, body: str) -> dict[str, list[Any]]:
    """The outputs of ``body`` in ``processes`` processes per tree, "before" (the tree at ``before``) and "after"
    (this repository) alternating, so that a change of the machine's load hits both alike (:func:`tree_child`)."""
    trees = {"before": before.resolve(), "after": REPO_ROOT}
    outputs: dict[str, list[Any]] = {name: [] for name in trees}
    for _ in range(processes):
        for name, tree in trees.items():
            outputs[name].append(tree_child(tree, body))
    return outputs


def before_after_parser(prog: str, doc: str, tag: str, processes: int, shapes: list[str]) -> argparse.ArgumentParser:
    """The parser of a script that times one body in the alternating processes of two trees (:func:`alternating`):
    its ``--before`` (the tree to compare against), ``--processes`` (per tree and case), ``--shapes`` (the n x d
    cases, ``shapes`` by default) and ``--tag`` (the results file, ``tag`` by default); the description is ``doc``'s
    first paragraph."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    _add_trees(parser, processes)
    parser.add_argument("--shapes", nargs="+", default=shapes)
    parser.add_argument("--tag", default=tag)
    return parser


def _add_trees(parser: argparse.ArgumentParser, processes: int) -> None:
    """A before/after script's ``--before`` (the tree to compare against) and ``--processes`` (per tree and case)."""
    parser.add_argument("--before", type=Path, required=True, help="a dpcvx tree to compare against (its root)")
    parser.add_argument("--processes", type=int, default=processes, help="processes per tree and case")


def per_process(cells: dict[str, list[Any]], column: int | None = None, digits: int = 2) -> list[str]:
    """The "before" and "after" cells of an :func:`alternating` run, each its processes' values (the ``column``-th of
    each output when given) joined by " / ", in the order run."""
    return [" / ".join(f"{output if column is None else output[column]:.{digits}f}" for output in cells[name])
            for name in ("before", "after")]


def write_table(tag: str, record: RunRecord, title: str, caption: str, header: Sequence[str],
                rows: Sequence[str]) -> str:
    """``RESULTS_DIR/<tag>.md``: the ``title``, its ``caption`` and a markdown table of ``rows`` under ``header``,
    then the run record (:func:`write_markdown`); returns what was written."""
    text = "\n".join([f"# {title}", "", caption, "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header),
                      *rows])
    return write_markdown(RESULTS_DIR / f"{tag}.md", text, record)


def add_tree_arguments(parser: argparse.ArgumentParser, sizes: list[str], fits: int, seed: int) -> None:
    """An A/B script's ``--before`` (the tree to compare against), ``--sizes`` (n x d), ``--fits`` (timed fits per
    process), ``--processes`` (per tree and case) and ``--seed`` (:func:`tree_child`)."""
    _add_trees(parser, 2)
    parser.add_argument("--sizes", nargs="+", default=sizes)
    parser.add_argument("--fits", type=int, default=fits, help="timed fits per process")
    parser.add_argument("--seed", type=int, default=seed)


def run_and_write(parser: argparse.ArgumentParser, argv: list[str] | None, run: Callable[[argparse.Namespace], dict],
                  markdown: Callable[[dict], str]) -> dict:
    """A script's main: its arguments parsed from ``argv``, ``run`` on them, and the output written
    (:func:`write_results`, as the ``--out`` and ``--tag`` of :func:`add_result_arguments`)."""
    args = parser.parse_args(argv)
    output = run(args)
    write_results(output, markdown(output), Path(args.out), args.tag)
    return output


def run_recorded(module: str, parser: argparse.ArgumentParser, argv: list[str] | None,
                 run: Callable[[argparse.Namespace], dict],
                 markdown: Callable[[dict, argparse.Namespace], str]) -> dict:
    """A script's main with its run record (:class:`RunRecord`): the arguments parsed from ``argv`` (its ``--out``
    and ``--tag``), ``run`` on one BLAS thread, then ``--out``/``--tag``.md (the markdown and the record) and .json
    (the result, its settings and the record)."""
    args = parser.parse_args(argv)
    record = RunRecord(module, argv)
    with limit_threads(1):
        result = run(args)
    stem = Path(args.out) / args.tag
    print(write_markdown(stem.with_suffix(".md"), markdown(result, args), record))
    result["settings"] = {key: value for key, value in vars(args).items() if key != "out"}
    result["run"] = record.finish()
    write_json(stem.with_suffix(".json"), result)
    return result


def write_results(output: dict, text: str, out: Path, tag: str) -> None:
    """A run's JSON (:func:`write_json`) and its markdown text, as ``out``/``tag``.json and .md."""
    write_json(out / f"{tag}.json", output)
    (out / f"{tag}.md").write_text(text)


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def finite_or_none(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def gap_grid(title: str, splits: int, tables: Sequence[str], measured: dict[str, dict[str, float]],
             labels: Sequence[str]) -> list[str]:
    """The Markdown of a grid of settings (rows, ``labels``) over tables (columns): the gap recovered at epsilon 1,
    ``measured[table][label]``, means over ``splits`` seeded splits."""
    return ([f"# {title}", "", f"Gap recovered at epsilon 1, means over {splits} seeded 75/25 splits (module "
             "docstring).", "", "| setting | " + " | ".join(tables) + " |", "|---|" + "---|" * len(tables)]
            + [f"| {label} | " + " | ".join(f"{measured[name][label]:.2f}" for name in tables) + " |"
               for label in labels])


def tables_main(script: str, description: str, tables: Sequence[str], splits: int, results: Path,
                run: Callable[[tuple[str, ...], int], str]) -> None:
    """The command line of a measurement over named tables and seeded splits: ``--tables`` (of ``tables``, all by
    default) and ``--splits``; ``run(tables, splits)``'s Markdown is written to ``results`` with the run record of
    ``script`` (the module, e.g. "benchmarks.adassp_gap")."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--tables", nargs="+", choices=tables, default=list(tables))
    parser.add_argument("--splits", type=int, default=splits)
    arguments = parser.parse_args()
    record = RunRecord(script)
    print(write_markdown(results, run(tuple(arguments.tables), arguments.splits), record))
