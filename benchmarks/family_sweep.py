"""Family sweep (issue 44): dpcvx's private logistic fit against scikit-learn's lbfgs over a family of
public, seeded data generators, so that no single generator decides the speed figures.

The base generator (``isotropic``) is the issue's hidden sweep: standard normal rows scaled into the unit
ball (x / max(1, ||x||)), labels drawn from a logistic model P(y = 1 | x) = 1 / (1 + exp(-3 u^T x)) with u
standard normal (weights of scale 3). Every other generator changes one property of it:

* conditioning: ``correlated`` (AR(1) columns, x_j = 0.9 x_{j-1} + sqrt(1 - 0.81) e_j) and ``dominant``
  (three directions of scale 10 over an isotropic rest);
* class balance: ``balance 10%`` and ``balance 2%`` (the logistic model's offset b in
  P(y = 1) = sigmoid(3 u^T x + b) set by bisection on the generator's own rows; the fits have no intercept);
* separability: ``noisy`` (weights of scale 0.5) and ``separable`` (y = sign(u^T x), 0.5% flipped);
* scaling: ``inside`` (the base rows times 0.1: every row well inside the bound R = 1; the base rows,
  d >= 20, all lie on the bound);
* held out (``--held-out``; never tuned on, reported as their own distribution, kind ``held-out``): ``one-hot``
  (coded columns: d / 8 groups of 8 categories, one 1 per group, rows of norm 1), ``heavy tails`` (Student t
  entries with 2 degrees of freedom, scaled by 0.5 / sqrt(d)), ``random labels`` (labels independent of the rows),
  ``duplicates`` (``DISTINCT_ROWS`` distinct rows, each repeated), ``low rank`` (rank-5 rows plus noise of scale
  1e-3), ``strong signal`` (weights of scale 30), ``positive`` (entries uniform in [0, 1] / sqrt(d); labels from the
  centred rows, weights of scale 6) and ``binary`` (entries 1 with probability 0.3, scaled by 1 / sqrt(0.3 d);
  labels as for ``positive``), every row then scaled into the unit ball as the base rows are;
* probe (``--probe``; written in the seventeenth session to look for defects on tables neither set holds, reported
  as kind ``probe``): ``column scales`` (column j scaled by 10^(-3 + 3 j / (d - 1)): three decades), ``mostly zeros``
  (each entry kept with probability 0.05), ``two clusters`` (0.6 s c + 0.3 e / sqrt(d), s = +-1, c a unit vector),
  ``integer codes`` (entries uniform in {0, ..., 4}), ``zero rows`` (three tenths of the rows zero), ``collinear``
  (the second half of the columns a copy of the first), ``constant column`` (entries e / sqrt(d), the first column
  0.5), ``tiny rows`` (rows times 1e-3), ``imbalance 0.5%`` (an offset for 0.5 % positives) and ``outliers`` (the
  rows times 0.2, a hundredth of them pushed onto the bound with their labels flipped), every row scaled into the
  unit ball, labels of a logistic model on margins centred and scaled to standard deviation 3;
* unseen (``--unseen``; written in the twentieth session after every solver change it reports on, reported as kind
  ``unseen``): ``uniform cube`` (entries uniform on [-1, 1]), ``laplace`` (Laplace entries), ``clusters 50`` (each
  row one of 50 standard normal centres plus normal jitter of scale 1e-4, before the rows' scaling into the ball: near
  duplicates), ``clusters 1000`` (1,000 centres, jitter 1e-2), ``mixed norms`` (half the rows of norm about 1, half
  about 0.01), ``shifted`` (entries of mean 2), ``two informative`` (labels from the first two columns alone),
  ``imbalance 0.1%``, ``sorted labels`` (the negative records first) and ``sorted norms`` (row norms uniform on [0,
  1], the rows in their order), every row scaled into the unit ball, labels as for the probe generators;
* real tables: ``adult`` and ``kdd`` (dpcvx.load_adult / load_kdd, mode "private": rows of norm <= 1 by
  public bounds) at their own sizes;
* ``sparse``: the speed sweep's wide CSR (about 20 entries a row, rows of norm 1);
* ``memmap``: the base generator's rows as ``np.load(mmap_mode="r")`` (warm page cache); with
  ``--memmap-generators`` the other generators' rows too (a memmap's distribution: the issue asks the worst
  generator in memory and on memmaps).

With ``--intercept`` the dense and sparse cases fit an intercept on both sides (dpcvx's intercept column of 1,
within the public row bound sqrt(2); scikit-learn's unregularised ``fit_intercept``), the setting of a user's table.

Each case times dpcvx (``PrivateERM(logistic(), lam=1e-4, data_norm=1).fit(X, y, epsilon=1)``, its default
public gradient bound) and scikit-learn's ``LogisticRegression(lbfgs, no intercept, C = 1/(lam n))`` at its
default tol (1e-4) and at tol 1e-6, in rounds of three fits whose order rotates, with one BLAS thread (a fit
shorter than 0.05 s timed in each round as the median of enough back-to-back runs to last that long, at most 20,
the same rule for every fit: :func:`rounds`); the figure of a case is the median over rounds of the per-round
ratio dpcvx / lbfgs (speed_sweep.median_interval gives its distribution-free interval), and the report gives, for
each size, the median and the worst generator. Seeds are fresh: generator k of a run with ``--seed s`` draws from
seed s + k, never the seeds the project's speed sweep (seed 0) was tuned on.

scikit-learn's lbfgs stops where its tol says, far above the gradient bound dpcvx certifies (1e-10 n L R). With
``--to-bound`` a third peer, ``lbfgs to the bound`` (:func:`fit_to_bound`), runs the same L-BFGS-B to dpcvx's
bound: the comparison at equal accuracy, beside the issue's.

Passes over X: ``passes`` is a fit's time over the time of one pass (X v then X^T u); where Newton reads X
by row blocks (a memmap, or a row-major X of at most ``DENSE_NEWTON_MAX_DIM`` columns) the fit counts its
passes exactly: ``reads`` is that count (``solver_passes``) plus the input checks' one read of X.

    python -m benchmarks.family_sweep --quick     # a smoke run: two small sizes, 2 rounds
    python -m benchmarks.family_sweep             # the issue's sizes, 5 rounds (about an hour, one core)
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from benchmarks import common, speed_sweep
from dpcvx.privacy.calibrate import DEFAULT_TOL

SKLEARN_TOLS = (1e-4, 1e-6)  # scikit-learn's default tol, and the speed sweep's
GENERATORS = ("isotropic", "correlated", "dominant", "balance 10%", "balance 2%", "noisy", "separable", "inside")
HELD_OUT = ("one-hot", "heavy tails", "random labels", "duplicates", "low rank", "strong signal", "positive", "binary")
PROBE = ("column scales", "mostly zeros", "two clusters", "integer codes", "zero rows", "collinear", "constant column",
         "tiny rows", "imbalance 0.5%", "outliers")
UNSEEN = ("uniform cube", "laplace", "clusters 50", "clusters 1000", "mixed norms", "shifted", "two informative",
          "imbalance 0.1%", "sorted labels", "sorted norms")
DISTINCT_ROWS = 100  # the duplicates generator's distinct rows
SIZES = ["1e4x20", "1e5x20", "1e5x200", "1e6x20", "3e5x500", "2e4x1e3"]
FULL = {"rounds": 5, "sizes": SIZES, "memmap": "1e6x20", "sparse": "2e5x1e5", "tables": ["adult", "kdd"]}
QUICK = {"rounds": 2, "sizes": ["2000x20", "5000x50"], "memmap": "5000x50", "sparse": "2000x1000",
         "tables": []}
SEED = 44_000  # fresh: the speed sweep's generators use seed 0
ROW_BLOCK = 50_000  # rows generated at a time
TO_BOUND = "lbfgs to the bound"  # the peer of --to-bound (:func:`fit_to_bound`)
LBFGS_MEMORY = 10  # L-BFGS-B's stored pairs: scipy's default, which scikit-learn's lbfgs keeps
LBFGS_LINE_STEPS = 50  # the line search's evaluations at most: scikit-learn's lbfgs's maxls
MIN_TIMED_SECONDS = 0.05  # a round times a shorter fit as the median of repeated runs (:func:`rounds`)
MAX_REPEATS = 20


def _offset(margins: np.ndarray, share: float) -> float:
    """The offset b with mean(sigmoid(margins + b)) = share (bisection: the mean increases with b)."""
    low, high = -50.0, 50.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if np.mean(expit(margins + middle)) < share else (low, middle)
    return (low + high) / 2


def generate(kind: str, n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of norm <= 1 and labels in {-1, +1} of generator ``kind`` (module docstring), seeded."""
    rng = np.random.default_rng(seed)
    for names, build in _SETS.values():
        if kind in names:
            return build(kind, n, d, rng)
    u = rng.normal(size=d)
    scale = {"noisy": 0.5}.get(kind, 3.0)
    top = rng.normal(size=(3, d)) / np.sqrt(d) if kind == "dominant" else None
    X = np.empty((n, d))
    for start in range(0, n, ROW_BLOCK):
        block = rng.normal(size=(min(ROW_BLOCK, n - start), d))
        if kind == "correlated":
            for j in range(1, d):
                block[:, j] = 0.9 * block[:, j - 1] + np.sqrt(1 - 0.81) * block[:, j]
        elif top is not None:
            block += 10 * rng.normal(size=(block.shape[0], 3)) @ top
        block /= np.maximum(1.0, np.linalg.norm(block, axis=1))[:, None] * (1 + 1e-12)
        if kind == "inside":
            block *= 0.1
        X[start:start + block.shape[0]] = block
    margins = X @ u
    if kind == "separable":
        y = np.where((margins > 0) != (rng.random(n) < 0.005), 1.0, -1.0)
        return X, y
    margins *= scale
    if kind.startswith("balance"):
        margins += _offset(margins, float(kind.split()[1].rstrip("%")) / 100)
    return X, np.where(rng.random(n) < expit(margins), 1.0, -1.0)


def _held_out(kind: str, n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Rows and labels of a held-out generator (module docstring), the rows built whole."""
    scale, centred = 3.0, False
    if kind == "one-hot":
        groups = max(1, d // 8)
        X = np.zeros((n, d))
        for group in range(groups):
            X[np.arange(n), 8 * group + rng.integers(0, 8, n)] = 1 / np.sqrt(groups)
    elif kind == "heavy tails":
        X = rng.standard_t(2, size=(n, d)) * (0.5 / np.sqrt(d))
    elif kind == "duplicates":
        X = rng.normal(size=(DISTINCT_ROWS, d))[rng.integers(0, DISTINCT_ROWS, n)]
    elif kind == "low rank":
        X = rng.normal(size=(n, 5)) @ rng.normal(size=(5, d)) * (2 / np.sqrt(5 * d))
        X += 1e-3 * rng.normal(size=(n, d))
    elif kind == "positive":
        X, scale, centred = rng.random(size=(n, d)) / np.sqrt(d), 6.0, True
    elif kind == "binary":
        X, scale, centred = (rng.random(size=(n, d)) < 0.3) / np.sqrt(0.3 * d), 6.0, True
    else:  # random labels, strong signal: the base rows
        X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * (1 + 1e-12)
    if kind == "random labels":
        return X, np.where(rng.random(n) < 0.5, 1.0, -1.0)
    u = rng.normal(size=d) * (30.0 if kind == "strong signal" else scale)
    margins = (X - X.mean(axis=0)) @ u if centred else X @ u
    return X, np.where(rng.random(n) < expit(margins), 1.0, -1.0)


def _probe(kind: str, n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Rows and labels of a probe generator (module docstring): standard normal rows changed by ``kind``, scaled into
    the unit ball, labels of a logistic model on the margins u^T x centred and scaled to standard deviation 3 (u
    standard normal)."""
    X = rng.normal(size=(n, d))
    if kind == "column scales":
        X *= np.logspace(-3, 0, d)
    elif kind == "mostly zeros":
        X *= rng.random((n, d)) < 0.05
    elif kind == "two clusters":
        centre = rng.normal(size=d)
        X = 0.3 * X / np.sqrt(d) + 0.6 * rng.choice([-1.0, 1.0], n)[:, None] * (centre / np.linalg.norm(centre))
    elif kind == "integer codes":
        X = rng.integers(0, 5, size=(n, d)).astype(float)
    elif kind == "zero rows":
        X[rng.random(n) < 0.3] = 0.0
    elif kind == "collinear":
        X[:, d // 2:] = X[:, :d - d // 2]
    elif kind == "constant column":
        X /= np.sqrt(d)
        X[:, 0] = 0.5
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * (1 + 1e-12)
    if kind == "tiny rows":
        X *= 1e-3
    elif kind == "outliers":
        X *= 0.2
    y = _centred_labels(X @ rng.normal(size=d), 0.005 if kind == "imbalance 0.5%" else None, rng)
    if kind == "outliers":  # a hundredth of the rows pushed onto the bound, their labels flipped
        far = np.flatnonzero(rng.random(n) < 0.01)
        X[far] /= np.linalg.norm(X[far], axis=1)[:, None] * (1 + 1e-12)
        y[far] = -y[far]
    return X, y


def _centred_labels(margins: np.ndarray, share: float | None, rng: np.random.Generator) -> np.ndarray:
    """Labels of a logistic model on ``margins`` centred and scaled to standard deviation 3, with the offset that gives
    a ``share`` of positives when one is asked (the probe and unseen generators' labels)."""
    margins = margins - margins.mean()
    margins *= 3.0 / max(float(np.std(margins)), 1e-300)
    if share is not None:
        margins += _offset(margins, share)
    return np.where(rng.random(margins.size) < expit(margins), 1.0, -1.0)


def _unseen(kind: str, n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Rows and labels of an unseen generator (module docstring): standard normal rows changed by ``kind``, scaled into
    the unit ball, labels as the probe generators' (:func:`_centred_labels`)."""
    if kind == "uniform cube":
        X = rng.uniform(-1.0, 1.0, size=(n, d))
    elif kind == "laplace":
        X = rng.laplace(size=(n, d))
    elif kind.startswith("clusters"):
        centres, jitter = (50, 1e-4) if kind == "clusters 50" else (1000, 1e-2)
        X = rng.normal(size=(centres, d))[rng.integers(0, centres, n)]
        X += jitter * rng.normal(size=(n, d))
    else:
        X = rng.normal(size=(n, d))
    if kind == "mixed norms":
        X *= np.where(rng.random(n) < 0.5, 1.0, 0.01)[:, None] / np.sqrt(d)
    elif kind == "shifted":
        X += 2.0
    elif kind == "sorted norms":
        X /= np.linalg.norm(X, axis=1)[:, None] * (1 + 1e-12)
        X *= np.sort(rng.random(n))[:, None]
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * (1 + 1e-12)
    u = rng.normal(size=d)
    if kind == "two informative":
        u[2:] = 0.0
    y = _centred_labels(X @ u, 0.001 if kind == "imbalance 0.1%" else None, rng)
    if kind == "sorted labels":
        order = np.argsort(y, kind="stable")
        X, y = X[order], y[order]
    return X, y


#: The generator sets beside the family's, each run in its place by its option and reported as its own kind: the
#: set's name -> (its generators, the function that makes their rows).
_Rows = Callable[[str, int, int, np.random.Generator], tuple[np.ndarray, np.ndarray]]
_SETS: dict[str, tuple[tuple[str, ...], _Rows]] = {"held-out": (HELD_OUT, _held_out), "probe": (PROBE, _probe),
                                                   "unseen": (UNSEEN, _unseen)}


def _kind(generator: str) -> str:
    """The set a dense generator belongs to (``_SETS``' name), else "dense" (the family's)."""
    return next((name for name, (names, _) in _SETS.items() if generator in names), "dense")


class _Reached(Exception):
    """Raised by :func:`fit_to_bound`'s objective at the first point within the bound."""

    def __init__(self, w: np.ndarray) -> None:
        super().__init__()
        self.w = w


def fit_to_bound(X: Any, y: np.ndarray, seed: int) -> tuple[float, float, dict]:
    """(wall s, CPU s, record) of L-BFGS-B run to dpcvx's certified gradient bound on the non-private F.

    scipy's L-BFGS-B, the routine scikit-learn's lbfgs calls, with its memory (``LBFGS_MEMORY``) and line search
    (``LBFGS_LINE_STEPS``) on F and grad F computed as :func:`speed_sweep.value_and_gradient` (X w, then X^T u), from
    w = 0, with scipy's own stopping tests off (gtol = ftol = 0). It stops at the first evaluation with
    ||grad F|| <= gamma / 2, gamma = ``DEFAULT_TOL`` n L R (L = R = 1 here): the bound dpcvx's Newton stops at
    (docs/theory.md, section 7). Where L-BFGS-B ends first (its line search finds no decrease F can show in
    floating point), the record says ``reached`` False: that peer stopped short of the bound."""
    bound = 0.5 * DEFAULT_TOL * X.shape[0]
    evaluations = 0

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        nonlocal evaluations
        evaluations += 1
        value, gradient = speed_sweep.value_and_gradient(X, y, w)
        if float(np.linalg.norm(gradient)) <= bound:
            raise _Reached(w.copy())
        return value, gradient

    wall, cpu = time.perf_counter(), time.process_time()
    try:
        w = minimize(objective, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                     options={"maxcor": LBFGS_MEMORY, "maxls": LBFGS_LINE_STEPS, "gtol": 0.0, "ftol": 0.0,
                              "maxiter": 100_000, "maxfun": 100_000}).x
        reached = False
    except _Reached as stop:
        w, reached = stop.w, True
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, {"grad": speed_sweep.gradient_norm(X, y, w), "iterations": evaluations, "reached": reached}


def repeats_for(seconds: float) -> int:
    """How many times a round repeats a fit that took ``seconds`` in the warm-up round: enough for
    ``MIN_TIMED_SECONDS`` (at most ``MAX_REPEATS``), one for a fit that takes that long."""
    return int(min(MAX_REPEATS, max(1, np.ceil(MIN_TIMED_SECONDS / max(seconds, 1e-9)))))


def _timed(fit: speed_sweep.Fit, X: Any, y: np.ndarray, seed: int, repeats: int) -> tuple[float, float, dict]:
    """The fit ``repeats`` times back to back on the same seed: the median wall and CPU time, the first record."""
    results = [fit(X, y, seed) for _ in range(repeats)]
    return (float(np.median([r[0] for r in results])), float(np.median([r[1] for r in results])), results[0][2])


def rounds(X: Any, y: np.ndarray, count: int, fits: dict[str, speed_sweep.Fit]) -> dict:
    """``count`` rounds of every fit on (X, y), the order rotating from round to round (round 0 warms up and is
    not recorded); per-round ratios of the first fit over each other. A fit shorter than ``MIN_TIMED_SECONDS``
    in the warm-up is timed in each round as the median of :func:`repeats_for` back-to-back runs (both sides
    alike: a single run of a few milliseconds is at the mercy of the scheduler)."""
    names = list(fits)
    runs: dict[str, list] = {name: [] for name in names}
    repeats = dict.fromkeys(names, 1)
    for index in range(count + 1):
        order = names[index % len(names):] + names[:index % len(names)]
        results = {name: _timed(fits[name], X, y, index, repeats[name]) for name in order}
        if index:
            for name in names:
                runs[name].append(results[name])
        else:
            # a second run of each decides: the warm-up's first fit may pay the process's first-use costs
            repeats = {name: repeats_for(min(results[name][0], fits[name](X, y, index)[0])) for name in names}
    first = names[0]
    ratios = {}
    for name in names[1:]:
        wall = [a[0] / b[0] for a, b in zip(runs[first], runs[name], strict=True)]
        median, low, high = speed_sweep.median_interval(wall)
        ratios[name] = {"median": median, "low": low, "high": high, "values": wall}
    summary = {name: {"wall_median": float(np.median([r[0] for r in record])),
                      "grad_max": float(max(r[2]["grad"] for r in record)),
                      "iterations": int(np.median([r[2]["iterations"] for r in record])),
                      **({"solver": record[0][2]["solver"], "solver_passes": record[0][2]["solver_passes"]}
                         if "solver" in record[0][2] else {}),
                      **({"reached": all(r[2]["reached"] for r in record)} if "reached" in record[0][2] else {})}
               for name, record in runs.items()}
    for name in names:
        summary[name]["repeats"] = repeats[name]
    return {"ratios": ratios, "fits": summary}


def _fits(intercept: bool = False, to_bound: bool = False) -> dict[str, speed_sweep.Fit]:
    fits: dict[str, speed_sweep.Fit] = {"dpcvx": functools.partial(speed_sweep.fit_dpcvx, fit_intercept=intercept)}
    for tol in SKLEARN_TOLS:
        fits[f"lbfgs tol {tol:g}"] = functools.partial(speed_sweep.fit_sklearn, tol=tol, fit_intercept=intercept)
    if to_bound:
        fits[TO_BOUND] = fit_to_bound
    return fits


def _case(kind: str, generator: str, X: Any, y: np.ndarray, count: int, seed: int | None,
          intercept: bool = False, to_bound: bool = False) -> dict:
    case = rounds(X, y, count, _fits(intercept, to_bound))
    case.update(kind=kind, generator=generator, n=int(X.shape[0]), d=int(X.shape[1]), seed=seed,
                one_pass=speed_sweep.one_pass(X), positive_share=float(np.mean(y > 0)))
    passes = case["fits"]["dpcvx"].get("solver_passes")
    if passes is not None:
        case["reads"] = passes + 1  # Newton's passes over the row blocks and the input checks' read
    print(_line(case), flush=True)
    return case


def run(args: argparse.Namespace) -> dict:
    preset = QUICK if args.quick else FULL
    count = args.rounds or preset["rounds"]
    chosen = next((names for name, (names, _) in _SETS.items() if getattr(args, name.replace("-", "_"))), GENERATORS)
    generators = args.generators or list(chosen)
    record = common.RunRecord("benchmarks.family_sweep")
    cases: list[dict] = []
    seeds = iter(range(args.seed, args.seed + 10_000))
    with common.limit_threads(1):
        for size in args.sizes or preset["sizes"]:
            n, d = speed_sweep.parse_shape(size)
            for generator in generators:
                seed = next(seeds)
                X, y = generate(generator, n, d, seed)
                cases.append(_case(_kind(generator), generator, X, y, count, seed, args.intercept, args.to_bound))
                del X, y
        for table in preset["tables"] if args.tables is None else args.tables:
            data = common.load_data(table, "private", kdd_rows=None)
            cases.append(_case("dense", table, data.X, data.y, count, None, to_bound=args.to_bound))
        if args.memmap != "none":
            for generator in args.memmap_generators:
                cases.append(memmap_case(args.memmap or preset["memmap"], args.tmp, count, next(seeds), generator,
                                         args.to_bound))
        if args.sparse != "none":
            n, d = speed_sweep.parse_shape(args.sparse or preset["sparse"])
            seed = next(seeds)
            S, y = speed_sweep.sparse_data(n, d, seed)
            cases.append(_case("sparse", "sparse", S, y, count, seed, args.intercept, args.to_bound))
    return {"run": record.finish(), "quick": bool(args.quick), "intercept": bool(args.intercept),
            "to_bound": bool(args.to_bound), "rounds": count, "repeated": True,
            "lam": speed_sweep.LAM,
            "epsilon": speed_sweep.EPSILON, "sklearn_tols": list(SKLEARN_TOLS), "cases": cases,
            "summary": summary(cases)}


def memmap_case(size: str, tmp: str | None, count: int, seed: int, generator: str = "isotropic",
                to_bound: bool = False) -> dict:
    """A generator's rows as a memmap (warm page cache), dpcvx against lbfgs on the in-memory rows."""
    n, d = speed_sweep.parse_shape(size)
    X, y = generate(generator, n, d, seed)
    with tempfile.TemporaryDirectory(dir=tmp) as directory:
        path = Path(directory) / "X.npy"
        np.save(path, X)
        mapped = np.load(path, mmap_mode="r")
        float(np.sum(mapped))  # warm page cache
        fits = {name: (fit if name == "dpcvx" else _on(X, fit)) for name, fit in _fits(to_bound=to_bound).items()}
        case = rounds(mapped, y, count, fits)
        case.update(kind="memmap", generator=generator, n=n, d=d, seed=seed, one_pass=speed_sweep.one_pass(X),
                    positive_share=float(np.mean(y > 0)))
        case["reads"] = case["fits"]["dpcvx"]["solver_passes"] + 1
        print(_line(case), flush=True)
        del mapped
    return case


def _on(X: np.ndarray, fit: speed_sweep.Fit) -> Callable[[Any, np.ndarray, int], tuple[float, float, dict]]:
    """``fit`` on the in-memory rows X whatever it is handed."""
    return lambda _, labels, index: fit(X, labels, index)


def summary(cases: list[dict]) -> list[dict]:
    """Per size (n x d and kind) and scikit-learn tol: the generators' median ratio, and the worst one."""
    groups: dict[tuple[str, int, int], list[dict]] = {}
    for case in cases:
        key = ("table" if case["generator"] in ("adult", "kdd") else case["kind"], case["n"], case["d"])
        groups.setdefault(key, []).append(case)
    rows = []
    for (kind, n, d), members in groups.items():
        for name in members[0]["ratios"]:
            values = [case["ratios"][name]["median"] for case in members]
            worst = max(members, key=lambda case, name=name: case["ratios"][name]["median"])
            rows.append({"kind": kind, "n": n, "d": d, "peer": name, "generators": len(members),
                         "median": float(np.median(values)), "worst": max(values), "worst_generator":
                         worst["generator"], "best": min(values)})
    return rows


def _line(case: dict) -> str:
    ratios = " ".join(f"{name.removeprefix('lbfgs ')} {r['median']:.2f} [{r['low']:.2f}, {r['high']:.2f}]"
                      for name, r in case["ratios"].items())
    return f"{case['kind']} {case['generator']} {case['n']}x{case['d']}: dpcvx/lbfgs {ratios}"


def markdown(output: dict) -> str:
    from benchmarks import report

    tols = " and ".join(f"{tol:g}" for tol in output["sklearn_tols"])
    lines = [report.run_header(output, f"Family sweep: {output['rounds']} rotating rounds per case, lam = "
                                       f"{output['lam']:g}, epsilon = {output['epsilon']:g}, 1 BLAS thread, "
                                       f"scikit-learn at tol {tols}"
                                       + (", with an intercept" if output.get("intercept") else "")),
             "", "Ratios are dpcvx / lbfgs wall time (above 1: dpcvx slower), each the median over rounds of the "
             "per-round ratio" + (f" (a fit shorter than {MIN_TIMED_SECONDS:g} s is timed in each round as the median "
                                  "of back-to-back runs lasting that long, at most "
                                  f"{MAX_REPEATS})" if output.get("repeated") else "")
             + ". Distribution over generators:", "",
             "| kind | n x d | peer | generators | median | worst (generator) | best |",
             "|---|---|---|---|---|---|---|"]
    for row in output["summary"]:
        lines.append(f"| {row['kind']} | {row['n']:,} x {row['d']:,} | {row['peer']} | {row['generators']} | "
                     f"{row['median']:.2f} | {row['worst']:.2f} ({row['worst_generator']}) | {row['best']:.2f} |")
    to_bound = output.get("to_bound", False)
    bound_note = (f"; {TO_BOUND}: L-BFGS-B stopped at dpcvx's bound, its evaluations, and whether it reached it"
                  if to_bound else "")
    lines += ["", "Every case (95% interval of the median ratio; passes = fit time / one pass; reads = the passes "
              "over X Newton counted where it reads X by row blocks, plus the input checks' one read"
              f"{bound_note}):", "",
              "| case | n x d | seed | positive share | ratio tol 1e-4 | ratio tol 1e-6 | "
              + (f"ratio {TO_BOUND} | " if to_bound else "") + "dpcvx: s, grad, iterations, solver | lbfgs 1e-6: s, "
              "grad, iterations | " + (f"{TO_BOUND}: s, grad, evaluations, reached | " if to_bound else "")
              + "passes dpcvx | reads |", "|---" * (10 + 2 * to_bound) + "|"]
    peers = [f"lbfgs tol {tol:g}" for tol in output["sklearn_tols"]] + ([TO_BOUND] if to_bound else [])
    for case in output["cases"]:
        ours, peer = case["fits"]["dpcvx"], case["fits"]["lbfgs tol 1e-06"]
        bounded = case["fits"].get(TO_BOUND)
        lines.append(
            f"| {case['kind']} {case['generator']} | {case['n']:,} x {case['d']:,} | {case['seed']} | "
            f"{case['positive_share']:.3f} | "
            + " | ".join(f"{r['median']:.2f} [{r['low']:.2f}, {r['high']:.2f}]"
                         for r in (case["ratios"][name] for name in peers))
            + f" | {ours['wall_median']:.3g}, {ours['grad_max']:.1e}, {ours['iterations']}, {ours['solver']} | "
              f"{peer['wall_median']:.3g}, {peer['grad_max']:.1e}, {peer['iterations']} | "
            + (f"{bounded['wall_median']:.3g}, {bounded['grad_max']:.1e}, {bounded['iterations']}, "
               f"{'yes' if bounded['reached'] else 'no'} | " if bounded is not None else "")
            + f"{ours['wall_median'] / case['one_pass']:.0f} | {case.get('reads', '-')} |")
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.family_sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two small sizes, 2 rounds (a smoke run)")
    parser.add_argument("--rounds", type=int, default=None, help="rotating rounds per case (full: 5)")
    parser.add_argument("--sizes", nargs="*", default=None, help="dense n x d sizes, e.g. 1e5x20")
    parser.add_argument("--generators", nargs="+", default=None, choices=GENERATORS + HELD_OUT + PROBE + UNSEEN,
                        help="default: all of the family's (with --held-out, --probe or --unseen: all of that set)")
    chosen = parser.add_mutually_exclusive_group()
    for name in _SETS:
        chosen.add_argument(f"--{name}", action="store_true", help=f"the {name} generators in place of the family's")
    parser.add_argument("--tables", nargs="*", default=None, choices=("adult", "kdd"),
                        help="real tables (full: adult kdd; quick: none)")
    parser.add_argument("--memmap", default=None, help="n x d of the memmap case, or none")
    parser.add_argument("--memmap-generators", nargs="+", default=["isotropic"], choices=GENERATORS,
                        help="the generators of the memmap case (default: isotropic)")
    parser.add_argument("--sparse", default=None, help="n x d of the sparse case, or none")
    parser.add_argument("--intercept", action="store_true",
                        help="fit an intercept on both sides (dpcvx's column of 1, scikit-learn's fit_intercept)")
    parser.add_argument("--to-bound", action="store_true",
                        help=f"a third peer, {TO_BOUND!r}: L-BFGS-B run to dpcvx's certified gradient bound")
    parser.add_argument("--seed", type=int, default=SEED, help="first generator seed (each case takes the next)")
    parser.add_argument("--tmp", default=None, help="directory for the memmap file (default: the system's)")
    common.add_result_arguments(parser, None, "file name tag (default: family_sweep, or _quick)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    if args.to_bound and args.intercept:
        raise SystemExit("--to-bound compares on the rows as given: not with --intercept")
    output = run(args)
    common.write_results(output, markdown(output), Path(args.out), args.tag or (
        "family_sweep_quick" if args.quick else "family_sweep"))
    return output


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"{time.perf_counter() - start:.0f} s")
