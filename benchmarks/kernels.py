"""Kernel-learning benchmark: TDDL with a cubic kernel against objective perturbation.

Methods, all with the logistic loss l(z) = log(1 + e^-z) and the ridge (lam/2)||w||^2:

* TDDL (Jain and Thakurta 2013, Algorithm 2; :class:`dpcvx.TDDL`) with the
  cubic kernel (<x, x'> + 1)^3 and the public input bound ||x|| <= 1, both as
  (eps, delta)-DP (Gaussian noise, delta = 1e-6) and as pure eps-DP (Laplace);
* objective perturbation (JMLR 2011, Algorithm 2; :class:`dpcvx.PrivateERM`)
  on random Fourier features of the rbf kernel (Algorithm 3), eps-DP;
* objective perturbation on the raw features, eps-DP;
* the three private methods with their parameters chosen privately by
  :func:`dpcvx.tune` (JMLR 2011, Algorithm 4: the training rows are split into
  m + 1 parts, candidate i is trained on part i, and one is released by the
  exponential mechanism on its mistakes on the last part; the whole procedure
  has the same (eps, delta) as one fit): TDDL over the lam grid, linear over the
  lam grid, RFF over lam x the RFF settings;
* the same three models without noise (cubic-kernel ERM solved exactly by
  :class:`dpcvx.solvers.kernel.KernelERM`, logistic regression on the same random
  features, linear logistic regression), and the majority label of the
  training set as a reference.

Tasks:

* ``adult``: UCI Adult, private preprocessing (public bounds, rows of norm
  <= 1, constant feature). Training rows come from adult.data, test rows from
  adult.test. Every method is trained on the same random subset of
  ``--adult-n`` training rows. TDDL's public sample Z is ``--adult-public`` rows
  of adult.test (features only, treated as public, as in the paper's setting);
  every method is scored on the remaining adult.test rows. Linear and RFF
  objective perturbation are also run on the full training file.
* ``synthetic``: rows of norm 1 in R^d whose label depends on one direction
  (see :func:`synthetic_task`), for each d in ``--dims``, with n fixed. It
  shows the dimension dependence of linear objective perturbation (noise norm
  about d / (n lam eps)) and the dimension independence of TDDL.

Every regularisation weight of a task's ``lam`` grid, every RFF setting of
``--rff`` and every epsilon is run for every repetition; all of them are
recorded and reported. The summary tables show, per method and epsilon, the
best lam of the grid on the test rows (optimistic, for every method alike)
next to the privately tuned variants (a release a curator could make). Each
repetition redraws the training subset, Z, the synthetic data, the random features and the noise from ``--seed``.

Outputs (``--out``, default ``benchmarks/results``): ``kernels_<tag>.json``
(every fit, the summaries, the command, machine, date, load averages and run
time), ``kernels_<tag>.md`` (tables) and ``kernels_<tag>_eps.png``,
``kernels_<tag>_dim.png`` (plots). ``--render FILE.json`` rewrites the
Markdown and plots of a recorded run without rerunning it.

Run from the repository root::

    OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/kernels.py --quick
    OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/kernels.py            # recorded run

The exact kernel solve is the same for every budget and noise draw of a
repetition, so it is done once per (repetition, lam) and shared by the fits
(:class:`SharedSolveTDDL`); the test checks that this releases exactly what a
plain ``TDDL.fit`` releases.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import multiprocessing
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(REPO_ROOT))

import dpcvx  # noqa: E402
from benchmarks.common import RunRecord, limit_threads, load_average  # noqa: E402
from dpcvx.data.kernels import RandomFourierFeatures  # noqa: E402
from dpcvx.models.tddl import TDDL  # noqa: E402
from dpcvx.solvers.kernel import KernelERM  # noqa: E402

KIND = "kernels"
LOSS = "logistic"
DELTA = 1e-6
INPUT_BOUND = 1.0  # public: every row has norm <= 1 (Adult private mode; the synthetic rows by construction)
DEGREE, OFFSET = 3, 1.0  # the cubic kernel (<x, x'> + 1)^3 of Jain and Thakurta's CoverType experiment
ADULT_TRAIN_RECORDS = 32_561  # records in adult.data; record_index >= this is adult.test

FULL = {
    "tasks": ["adult", "synthetic"],
    "epsilons": [0.01, 0.1, 1.0],
    "reps": 5,
    "adult_n": 5000,
    "adult_public": 1000,
    "adult_full": True,
    "adult_lams": [1e-3, 1e-2, 1e-1, 1.0],
    "dims": [10, 100, 1000, 5000],
    "synthetic_n": 3000,
    "synthetic_public": 500,
    "synthetic_test": 2000,
    "synthetic_lams": [1e-2, 1e-1, 1.0, 10.0],
    "rff": ["1:100", "1:500"],
}
QUICK = {
    **FULL,
    "reps": 2,
    "adult_n": 1000,
    "adult_public": 300,
    "adult_lams": [1e-2, 1e-1],
    "dims": [10, 100, 1000],
    "synthetic_n": 1000,
    "synthetic_public": 200,
    "synthetic_test": 1000,
    "synthetic_lams": [1e-1, 1.0],
    "rff": ["1:100"],
}

# --- data ---------------------------------------------------------------------------------------


def synthetic_task(n: int, d: int, rng: np.random.Generator, *, signal_dims: int = 3,
                   signal_norm: float = 0.8, flip: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """n rows of norm 1 in R^d whose label depends on one direction.

    x = (a v, b e) with v uniform on the unit sphere of R^k (k = ``signal_dims``),
    e uniform on the unit sphere of R^(d-k), a = ``signal_norm``, b = sqrt(1 - a^2);
    y = sign(v_1), flipped with probability ``flip`` (Bayes accuracy 1 - flip).
    The target is linear, so linear logistic regression is the right model class;
    the difficulty of the task without privacy does not depend on d.
    """
    if d <= signal_dims:
        raise ValueError(f"d must exceed signal_dims = {signal_dims}, got {d}")
    v = rng.standard_normal((n, signal_dims))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    e = rng.standard_normal((n, d - signal_dims))
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    X = np.hstack([signal_norm * v, math.sqrt(1 - signal_norm**2) * e])
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))  # norm 1 up to rounding
    y = np.where(v[:, 0] > 0, 1.0, -1.0)
    y = np.where(rng.random(n) < flip, -y, y)
    return X, y


def load_adult_split():
    """Adult in private mode: (X, y, train indices in adult.data, test indices in adult.test)."""
    data = dpcvx.load_adult(mode="private", constant_feature=True, encoding="unit")  # the recorded runs' code
    train = np.flatnonzero(data.record_index < ADULT_TRAIN_RECORDS)
    test = np.flatnonzero(data.record_index >= ADULT_TRAIN_RECORDS)
    return data.X, data.y, train, test


# --- seeds ------------------------------------------------------------------------------------

TASK_IDS = {"adult": 0, "synthetic": 1}


def seed_for(seed: int, *key: int) -> int:
    """A 32-bit seed for one purpose, from the run seed and an integer key (independent streams)."""
    return int(np.random.SeedSequence([seed, *key]).generate_state(1)[0])


# --- methods ----------------------------------------------------------------------------------


class SolveCache:
    """The exact kernel ERM of one training set, solved once per lam and shared by every fit.

    The solve is deterministic (w* depends on X, y, kernel, loss and lam only), so
    sharing it across privacy budgets and noise draws changes nothing that is
    released; it only avoids repeating an O(n^3) solve. The cached object is the
    curator's private model.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray):
        self.X, self.y = X, y
        self.models: dict = {}

    def model(self, learner: TDDL, checked: KernelERM | None = None) -> KernelERM:
        """The solved model of ``learner`` on the cached data (``checked``: the unsolved model its
        checks built, which fixes the subspace: the RKHS, or span phi(Z) for public landmarks Z)."""
        landmarks = None if checked is None or checked.nystrom is None else checked.nystrom.landmarks
        key = (learner.lam, str(learner.loss), learner.kernel, learner.degree, learner.offset,
               learner.input_bound, None if landmarks is None else landmarks.tobytes())
        if key not in self.models:
            self.models[key] = learner.fit_nonprivate(self.X, self.y) if checked is None else checked.solve()
        return self.models[key]


class SharedSolveTDDL(TDDL):
    """:class:`dpcvx.TDDL` whose exact solve comes from a :class:`SolveCache`.

    Only the curator's (non-private, deterministic) model is shared, through the
    public hook :meth:`~dpcvx.models.kernel_learner.PrivateKernelLearner.solve_curator_model`;
    the noise, its calibration and the post-processing are TDDL's own.
    """

    def __init__(self, *args, cache: SolveCache, **kwargs):
        super().__init__(*args, **kwargs)
        self.cache = cache

    def fit(self, X, y, *args, **kwargs):
        if X is not self.cache.X or y is not self.cache.y:
            raise ValueError("SharedSolveTDDL must be fitted on the cache's own training arrays")
        return super().fit(X, y, *args, **kwargs)

    def solve_curator_model(self, checked):
        return self.cache.model(self, checked)


def cubic_tddl(lam: float, cache: SolveCache | None = None):
    """TDDL with the cubic kernel and the public input bound (shared exact solve when cache is given);
    the budget and the seed go to its fit."""
    kwargs = dict(degree=DEGREE, offset=OFFSET, input_bound=INPUT_BOUND, lam=lam, loss=LOSS)
    return TDDL("poly", **kwargs) if cache is None else SharedSolveTDDL("poly", cache=cache, **kwargs)


def parse_rff(spec: str) -> tuple[float, int]:
    """'gamma:D' -> (gamma, D)."""
    try:
        gamma, components = spec.split(":")
        return float(gamma), int(components)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--rff takes gamma:D pairs such as 1:100, got {spec!r}") from None


def rff_key(gamma: float, components: int) -> str:
    return f"g{gamma:g}_D{components}"


def method_label(method: str) -> str:
    """Human-readable name of a method key."""
    fixed = {
        "tddl_gaussian": f"TDDL cubic, (eps, {DELTA:g})-DP",
        "tddl_laplace": "TDDL cubic, eps-DP",
        "linear_objective": "linear obj. pert., eps-DP",
        "kernel_nonprivate": "cubic-kernel ERM, non-private",
        "linear_nonprivate": "linear logistic, non-private",
        "majority": "majority label, non-private",
        "tddl_gaussian_tuned": f"TDDL cubic, (eps, {DELTA:g})-DP, λ tuned privately",
        "rff_objective_tuned": "RFF obj. pert., eps-DP, λ and (gamma, D) tuned privately",
        "linear_objective_tuned": "linear obj. pert., eps-DP, λ tuned privately",
    }
    if method in fixed:
        return fixed[method]
    kind, _, config = method.partition(":")
    gamma, components = config[1:].split("_D")
    if kind == "rff_objective":
        return f"RFF obj. pert. (gamma={gamma}, D={components}), eps-DP"
    return f"RFF logistic (gamma={gamma}, D={components}), non-private"


def is_private(method: str) -> bool:
    return method.startswith(("tddl_", "linear_objective", "rff_objective"))


class Recorder:
    """Collects one record per fit; a failing fit is recorded with its error, never hides the rest."""

    def __init__(self, setting: str, rep: int):
        self.setting, self.rep = setting, rep
        self.records: list[dict] = []
        self.solves: list[dict] = []

    def run(self, method: str, lam: float | None, epsilon: float | None, fit_and_score, **extra):
        start = time.perf_counter()
        record = {"setting": self.setting, "method": method, "lam": lam, "epsilon": epsilon,
                  "rep": self.rep}
        try:
            accuracy, details = fit_and_score()
            record.update(accuracy=float(accuracy), **details)
        except Exception as error:  # recorded and reported; a benchmark must not hide a failure
            record.update(accuracy=None, error=f"{type(error).__name__}: {error}")
        record["seconds"] = round(time.perf_counter() - start, 4)
        record.update(extra)
        self.records.append(record)


def run_linear_and_rff(rec: Recorder, X, y, X_eval, y_eval, lams, epsilons, rff_specs, seed: int,
                       key: tuple[int, ...]) -> None:
    """Linear and RFF logistic regression, non-private and by objective perturbation, on (X, y)."""
    for li, lam in enumerate(lams):
        linear = dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=lam, data_norm=INPUT_BOUND)
        rec.run("linear_nonprivate", lam, None,
                lambda linear=linear: (linear.fit_nonprivate(X, y).score(X_eval, y_eval), {}))
        for ei, eps in enumerate(epsilons):
            noise_seed = seed_for(seed, *key, 1, li, ei)
            rec.run("linear_objective", lam, eps,
                    lambda linear=linear, eps=eps, noise_seed=noise_seed: _private_erm(
                        linear, X, y, X_eval, y_eval, eps, noise_seed))
        for ri, (gamma, components) in enumerate(rff_specs):
            features = RandomFourierFeatures("rbf", gamma=gamma, n_components=components,
                                             random_state=seed_for(seed, *key, 2, ri))
            model = dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=lam, feature_map=features)
            name = rff_key(gamma, components)
            rec.run(f"rff_nonprivate:{name}", lam, None,
                    lambda model=model: (model.fit_nonprivate(X, y).score(X_eval, y_eval), {}))
            for ei, eps in enumerate(epsilons):
                noise_seed = seed_for(seed, *key, 3, ri, li, ei)
                rec.run(f"rff_objective:{name}", lam, eps,
                        lambda model=model, eps=eps, noise_seed=noise_seed: _private_erm(
                            model, X, y, X_eval, y_eval, eps, noise_seed))


def _private_erm(erm, X, y, X_eval, y_eval, epsilon, noise_seed):
    model = erm.fit(X, y, epsilon=epsilon, mechanism="objective", random_state=noise_seed)
    calibration = model.certificate.calibration.to_dict()
    d = model.certificate.constants["d"]
    n = model.certificate.constants["n"]
    # E||b|| = d / beta; the minimiser moves by about ||b|| / (n (lam + Delta)) (curvature aside)
    shift = d / calibration["beta"] / (n * (erm.lam + calibration["extra_reg"]))
    details = {"epsilon_prime": calibration["epsilon_prime"], "extra_reg": calibration["extra_reg"],
               "noise_norm": d / calibration["beta"], "weight_shift_scale": shift}
    return model.score(X_eval, y_eval), details


def run_kernel(rec: Recorder, X, y, Z, X_eval, y_eval, lams, epsilons, seed: int,
               key: tuple[int, ...]) -> None:
    """Cubic-kernel ERM (non-private) and TDDL at every (lam, epsilon, delta in {1e-6, 0})."""
    cache = SolveCache(X, y)
    for li, lam in enumerate(lams):
        def nonprivate(lam=lam):
            model = cache.model(cubic_tddl(lam))
            predictions = np.where(model.predict(X_eval) >= 0, 1.0, -1.0)
            report = model.report
            rec.solves.append({"setting": rec.setting, "rep": rec.rep, "lam": lam, "method": report.method,
                               "iterations": report.iterations, "seconds": round(report.seconds, 3),
                               "distance_bound": report.distance_bound, "tolerance": report.tolerance})
            return float(np.mean(predictions == y_eval)), {"solve_seconds": round(report.seconds, 3)}
        rec.run("kernel_nonprivate", lam, None, nonprivate)
        for ei, eps in enumerate(epsilons):
            for mi, (method, delta) in enumerate((("tddl_gaussian", DELTA), ("tddl_laplace", 0.0))):
                noise_seed = seed_for(seed, *key, 4, li, ei, mi)

                def private(lam=lam, eps=eps, delta=delta, noise_seed=noise_seed):
                    learner = cubic_tddl(lam, cache)
                    release = learner.fit(X, y, eps, delta, Z=Z, random_state=noise_seed)
                    calibration = learner.calibration_
                    return release.score(X_eval, y_eval), {
                        "noise_scale": calibration.scale, "noise": calibration.mechanism,
                        "l2_sensitivity": calibration.l2_sensitivity,
                        "constraint_radius": learner.constraint_radius_,
                        "least_squares_residual": learner.diagnostics_["least_squares_residual"]}
                rec.run(method, lam, eps, private)
    cache.models.clear()


def run_tuned(rec: Recorder, X, y, Z, X_eval, y_eval, lams, epsilons, rff_specs, seed: int,
              key: tuple[int, ...], kernel: bool = True) -> None:
    """The private methods with their parameters chosen by dpcvx.tune (Algorithm 4), per epsilon."""
    def selected(result) -> dict:
        params = dict(result.params)
        features = params.pop("feature_map", None)
        if features is not None:
            params.update(gamma=features.gamma, n_components=features.n_components)
        return {"selected": params, "part_size": result.certificate.part_size}

    for ei, eps in enumerate(epsilons):
        if kernel:
            tddl_seed = seed_for(seed, *key, 5, ei, 0)

            def tddl(eps=eps, tune_seed=tddl_seed):
                learner = TDDL("poly", degree=DEGREE, offset=OFFSET, input_bound=INPUT_BOUND, loss=LOSS,
                               lam=lams[0])
                result = dpcvx.tune(learner, X, y, {"lam": lams}, epsilon=eps, delta=DELTA,
                                    fit_params={"Z": Z}, random_state=tune_seed, verbose=False, procedure="split")
                return result.model.score(X_eval, y_eval), selected(result)
            rec.run("tddl_gaussian_tuned", None, eps, tddl)

        linear_seed = seed_for(seed, *key, 5, ei, 1)

        def linear(eps=eps, tune_seed=linear_seed):
            learner = dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), data_norm=INPUT_BOUND)
            result = dpcvx.tune(learner, X, y, {"lam": lams}, epsilon=eps, mechanism="objective",
                                random_state=tune_seed, verbose=False, procedure="split")
            return result.model.score(X_eval, y_eval), selected(result)
        rec.run("linear_objective_tuned", None, eps, linear)

        rff_seed = seed_for(seed, *key, 5, ei, 2)

        def rff(eps=eps, tune_seed=rff_seed):
            grid = [{"lam": lam, "feature_map": RandomFourierFeatures(
                        "rbf", gamma=gamma, n_components=components, random_state=seed_for(seed, *key, 2, ri))}
                    for ri, (gamma, components) in enumerate(rff_specs) for lam in lams]
            learner = dpcvx.PrivateERM(loss=dpcvx.losses.logistic())
            result = dpcvx.tune(learner, X, y, grid, epsilon=eps, mechanism="objective",
                                random_state=tune_seed, verbose=False, procedure="split")
            return result.model.score(X_eval, y_eval), selected(result)
        rec.run("rff_objective_tuned", None, eps, rff)


def majority(rec: Recorder, y, y_eval) -> None:
    label = 1.0 if np.mean(y > 0) > 0.5 else -1.0
    rec.run("majority", None, None, lambda: (float(np.mean(y_eval == label)), {}))


# --- work units -----------------------------------------------------------------------------------


def adult_unit(config: dict, rep: int) -> dict:
    """One repetition on Adult: subset of adult.data for every method; full adult.data for linear/RFF."""
    X, y, train, test = load_adult_split()
    seed, task = config["seed"], TASK_IDS["adult"]
    rng = np.random.default_rng(seed_for(seed, task, rep, 0))
    subset = np.sort(rng.choice(train, size=min(config["adult_n"], train.size), replace=False))
    shuffled = rng.permutation(test)
    public, evaluation = shuffled[:config["adult_public"]], shuffled[config["adult_public"]:]
    X_eval, y_eval = X[evaluation], y[evaluation]
    rff_specs = [parse_rff(s) for s in config["rff"]]
    out = []
    rec = Recorder("adult_subset", rep)
    X_sub, y_sub = X[subset], y[subset]
    majority(rec, y_sub, y_eval)
    run_kernel(rec, X_sub, y_sub, X[public], X_eval, y_eval, config["adult_lams"], config["epsilons"],
               seed, (task, rep, 1))
    run_linear_and_rff(rec, X_sub, y_sub, X_eval, y_eval, config["adult_lams"], config["epsilons"],
                       rff_specs, seed, (task, rep, 1))
    run_tuned(rec, X_sub, y_sub, X[public], X_eval, y_eval, config["adult_lams"], config["epsilons"],
              rff_specs, seed, (task, rep, 1))
    out.append(rec)
    if config["adult_full"]:
        full = Recorder("adult_full", rep)
        majority(full, y[train], y_eval)
        run_linear_and_rff(full, X[train], y[train], X_eval, y_eval, config["adult_lams"],
                           config["epsilons"], rff_specs, seed, (task, rep, 2))
        run_tuned(full, X[train], y[train], None, X_eval, y_eval, config["adult_lams"],
                  config["epsilons"], rff_specs, seed, (task, rep, 2), kernel=False)
        out.append(full)
    sizes = {"n_train_subset": int(subset.size), "n_train_full": int(train.size),
             "n_public": int(public.size), "n_eval": int(evaluation.size), "d": int(X.shape[1])}
    return {"records": [r for x in out for r in x.records], "solves": [s for x in out for s in x.solves],
            "sizes": {"adult": sizes}}


def synthetic_unit(config: dict, d: int, rep: int) -> dict:
    """One repetition of the synthetic task in dimension d."""
    seed, task = config["seed"], TASK_IDS["synthetic"]
    rng = np.random.default_rng(seed_for(seed, task, d, rep, 0))
    X, y = synthetic_task(config["synthetic_n"], d, rng)
    Z, _ = synthetic_task(config["synthetic_public"], d, rng)  # public sample: features only
    X_eval, y_eval = synthetic_task(config["synthetic_test"], d, rng)
    rec = Recorder(f"synthetic_d{d}", rep)
    majority(rec, y, y_eval)
    key = (task, d, rep, 1)
    run_kernel(rec, X, y, Z, X_eval, y_eval, config["synthetic_lams"], config["epsilons"], config["seed"], key)
    rff_specs = [parse_rff(s) for s in config["rff"]]
    run_linear_and_rff(rec, X, y, X_eval, y_eval, config["synthetic_lams"], config["epsilons"],
                       rff_specs, config["seed"], key)
    run_tuned(rec, X, y, Z, X_eval, y_eval, config["synthetic_lams"], config["epsilons"], rff_specs,
              config["seed"], key)
    return {"records": rec.records, "solves": rec.solves, "sizes": {}}


def _run_unit(unit: tuple) -> dict:
    kind, config, *args = unit
    start = time.perf_counter()
    result = adult_unit(config, *args) if kind == "adult" else synthetic_unit(config, *args)
    seconds = time.perf_counter() - start
    result["unit"] = {"kind": kind, "args": list(args), "seconds": round(seconds, 1),
                      "load_average_end": load_average()}
    print(f"[kernels] {kind} {args} done in {seconds:.1f} s (load {load_average()})",
          file=sys.stderr, flush=True)
    return result


def work_units(config: dict) -> list[tuple]:
    """Every (task, d, repetition), the most expensive first (balances two workers)."""
    units = []
    if "adult" in config["tasks"]:
        units += [("adult", config, rep) for rep in range(config["reps"])]
    if "synthetic" in config["tasks"]:
        units += [("synthetic", config, d, rep) for d in sorted(config["dims"], reverse=True)
                  for rep in range(config["reps"])]
    return units


# --- worker threads ----------------------------------------------------------------------------------


def _limit_worker_threads() -> None:
    """Pool initializer: one BLAS thread for the worker's whole life (on shared cores, spinning BLAS threads
    slow dense solves)."""
    limit_threads(1).__enter__()


# --- summaries ------------------------------------------------------------------------------------


def setting_key(setting: str) -> tuple:
    """Adult subset, Adult full, then the synthetic settings by increasing d."""
    if setting.startswith("synthetic_d"):
        return (2, int(setting[len("synthetic_d"):]))
    return (0 if setting == "adult_subset" else 1, 0)


def summarise(records: list[dict]) -> list[dict]:
    """Mean and sample std of the accuracy over repetitions, per (setting, method, lam, epsilon)."""
    groups: dict = defaultdict(list)
    for r in records:
        groups[(r["setting"], r["method"], r["lam"], r["epsilon"])].append(r)
    rows = []
    for (setting, method, lam, eps), group in groups.items():
        accuracies = [r["accuracy"] for r in group if r["accuracy"] is not None]
        row = {"setting": setting, "method": method, "lam": lam, "epsilon": eps,
               "runs": len(group), "failures": len(group) - len(accuracies),
               "mean": float(np.mean(accuracies)) if accuracies else None,
               "std": float(np.std(accuracies, ddof=1)) if len(accuracies) > 1 else 0.0 if accuracies else None,
               "seconds_mean": float(np.mean([r["seconds"] for r in group]))}
        for field in ("noise_scale", "noise_norm", "weight_shift_scale", "epsilon_prime", "extra_reg"):
            values = [r[field] for r in group if r.get(field) is not None]
            if values:
                row[field] = float(np.mean(values))
        rows.append(row)
    return sorted(rows, key=lambda r: (setting_key(r["setting"]), r["method"], r["lam"] or 0,
                                       r["epsilon"] or 0))


def best_over_lam(summary: list[dict]) -> list[dict]:
    """Per (setting, method, epsilon): the lam of the grid with the best mean accuracy."""
    best: dict = {}
    for row in summary:
        if row["mean"] is None:
            continue
        key = (row["setting"], row["method"], row["epsilon"])
        if key not in best or row["mean"] > best[key]["mean"]:
            best[key] = row
    return sorted(best.values(), key=lambda r: (setting_key(r["setting"]), r["method"], r["epsilon"] or 0))


# --- Markdown -----------------------------------------------------------------------------------------


def _cell(row: dict | None, with_lam: bool = True) -> str:
    if row is None or row["mean"] is None:
        return "failed" if row is not None else ""
    text = f"{row['mean']:.3f} ± {row['std']:.3f}"
    if with_lam and row["lam"] is not None:
        text += f" (λ={row['lam']:g})"
    if row["failures"]:
        text += f" [{row['failures']} of {row['runs']} fits failed]"
    return text


def method_order(methods) -> list[str]:
    def rank(m):
        order = ["tddl_gaussian", "tddl_laplace", "rff_objective", "linear_objective", "tddl_gaussian_tuned",
                 "rff_objective_tuned", "linear_objective_tuned", "kernel_nonprivate", "rff_nonprivate",
                 "linear_nonprivate", "majority"]
        return (order.index(m.partition(":")[0]), m)
    return sorted(set(methods), key=rank)


def _by_eps_table(best: list[dict], setting: str, epsilons: list[float]) -> list[str]:
    rows = [r for r in best if r["setting"] == setting]
    lines = ["| method | " + " | ".join(f"ε = {e:g}" for e in epsilons) + " | no privacy |",
             "|---|" + "---|" * (len(epsilons) + 1)]
    for method in method_order(r["method"] for r in rows):
        cells = []
        for eps in epsilons + [None]:
            match = [r for r in rows if r["method"] == method and r["epsilon"] == eps]
            cells.append(_cell(match[0] if match else None, with_lam=method != "majority"))
        lines.append(f"| {method_label(method)} | " + " | ".join(cells) + " |")
    return lines


def _by_dim_table(best: list[dict], dims: list[int], epsilon: float | None) -> list[str]:
    rows = [r for r in best if r["setting"].startswith("synthetic_d") and r["epsilon"] == epsilon]
    lines = ["| method | " + " | ".join(f"d = {d}" for d in dims) + " |", "|---|" + "---|" * len(dims)]
    for method in method_order(r["method"] for r in rows):
        cells = []
        for d in dims:
            match = [r for r in rows if r["method"] == method and r["setting"] == f"synthetic_d{d}"]
            cells.append(_cell(match[0] if match else None, with_lam=method != "majority"))
        lines.append(f"| {method_label(method)} | " + " | ".join(cells) + " |")
    return lines


def _grid_table(summary: list[dict], epsilons: list[float]) -> list[str]:
    lines = ["| setting | method | λ | " + " | ".join(f"ε = {e:g}" for e in epsilons) + " | no privacy |",
             "|---|---|---|" + "---|" * (len(epsilons) + 1)]
    order = method_order(r["method"] for r in summary)
    keys = sorted({(r["setting"], r["method"], r["lam"]) for r in summary if r["lam"] is not None},
                  key=lambda k: (setting_key(k[0]), order.index(k[1]), k[2]))
    for setting, method, lam in keys:
        cells = []
        for eps in epsilons + [None]:
            match = [r for r in summary if (r["setting"], r["method"], r["lam"], r["epsilon"]) ==
                     (setting, method, lam, eps)]
            cells.append(_cell(match[0] if match else None, with_lam=False))
        lines.append(f"| {setting} | {method_label(method)} | {lam:g} | " + " | ".join(cells) + " |")
    return lines


def _noise_table(summary: list[dict], epsilons: list[float]) -> list[str]:
    lines = ["| setting | λ | " + " | ".join(
        f"TDDL σ (Gauss) / b (Laplace), ε = {e:g}" for e in epsilons) + " | " + " | ".join(
        f"linear: E‖b‖/(n(λ+Δ)), ε = {e:g}" for e in epsilons) + " |",
        "|---|---|" + "---|" * (2 * len(epsilons))]
    keys = sorted({(r["setting"], r["lam"]) for r in summary if r["method"] == "tddl_gaussian"},
                  key=lambda k: (setting_key(k[0]), k[1]))
    for setting, lam in keys:
        def get(method, eps, field, setting=setting, lam=lam):
            match = [r for r in summary if (r["setting"], r["method"], r["lam"], r["epsilon"]) ==
                     (setting, method, lam, eps) and r.get(field) is not None]
            return match[0][field] if match else None
        cells = []
        for eps in epsilons:
            g, lp = get("tddl_gaussian", eps, "noise_scale"), get("tddl_laplace", eps, "noise_scale")
            cells.append(f"{g:.3g} / {lp:.3g}" if g is not None and lp is not None else "")
        for eps in epsilons:
            s = get("linear_objective", eps, "weight_shift_scale")
            cells.append(f"{s:.3g}" if s is not None else "")
        lines.append(f"| {setting} | {lam:g} | " + " | ".join(cells) + " |")
    return lines


def _tuned_table(records: list[dict]) -> list[str]:
    """What the private tuning released: the selected parameters, counted over repetitions."""
    groups: dict = defaultdict(list)
    for r in records:
        if r["method"].endswith("_tuned"):
            groups[(r["setting"], r["method"], r["epsilon"])].append(r)
    lines = ["| setting | method | ε | rows per part | selected (count over repetitions) |", "|---|---|---|---|---|"]
    for (setting, method, eps), group in sorted(groups.items(), key=lambda g: (setting_key(g[0][0]), g[0][1], g[0][2])):
        counts: dict = defaultdict(int)
        for r in group:
            choice = r.get("selected")
            counts["failed" if choice is None else ", ".join(f"{k}={v:g}" for k, v in choice.items())] += 1
        sizes = sorted({r["part_size"] for r in group if r.get("part_size")})
        lines.append(f"| {setting} | {method_label(method)} | {eps:g} | {', '.join(map(str, sizes))} | "
                     + "; ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + " |")
    return lines


def markdown(result: dict) -> str:
    config, run = result["config"], result["run"]
    eps = config["epsilons"]
    best = result["best_over_lam"]
    settings = {r["setting"] for r in best}
    sizes = result.get("sizes", {}).get("adult")
    out = [f"# Kernel-learning benchmark ({result['tag']})", "",
           f"Command: `{run['command']}`", "",
           f"Date (UTC): {run['date_utc']}; run time {run['run_seconds']:.0f} s with {config['jobs']} "
           f"worker process(es); load average (1, 5, 15 min) at start {run['load_average_start']}, "
           f"at end {run['load_average_end']}; {run['machine']['cores']} cores "
           f"({run['machine']['cpu_model']}); `{run['machine']['uname']}`; "
           f"software {json.dumps(run['versions'])}, commit {run['git_commit']}.", "",
           f"Loss: logistic for every model; TDDL kernel (<x, x'> + 1)^3 with the public bound ||x|| <= 1 "
           f"(R_phi = 2^1.5); TDDL delta = {DELTA:g} (Gaussian) or 0 (Laplace); objective perturbation is "
           f"pure eps-DP. {config['reps']} repetitions (training subset, public sample, random features, "
           "noise redrawn each time); cells are mean ± sample std of the test accuracy. "
           "In the summary tables each cell shows the best λ of the grid for that method and ε, "
           "**chosen on the test data**: optimistic, and equally so for every method. "
           "The rows *tuned privately* are end-to-end private releases: `dpcvx.tune` (JMLR 2011, "
           "Algorithm 4) splits the training rows into m + 1 parts, trains candidate i on part i with "
           "the full ε and releases one by the exponential mechanism on its mistakes on the last part "
           "(m = the grid size), so each candidate sees only n / (m + 1) rows. "
           "The full grid follows.", ""]
    if "adult_subset" in settings:
        out += ["## Adult (private preprocessing)", ""]
        if sizes:
            out += [f"Training subset n = {sizes['n_train_subset']} of adult.data (same rows for every "
                    f"method); TDDL's public sample Z: {sizes['n_public']} rows of adult.test (features "
                    f"only); evaluation: the other {sizes['n_eval']} adult.test rows; d = {sizes['d']} "
                    f"(constant feature included). λ grid {config['adult_lams']}.", ""]
        out += _by_eps_table(best, "adult_subset", eps) + [""]
    if "adult_full" in settings:
        out += ["### Adult, linear and RFF on the full adult.data"
                + (f" (n = {sizes['n_train_full']})" if sizes else ""), "",
                "Same evaluation rows as above.", ""]
        out += _by_eps_table(best, "adult_full", eps) + [""]
    dims = sorted(int(s[len("synthetic_d"):]) for s in settings if s.startswith("synthetic_d"))
    if dims:
        out += ["## Synthetic task: accuracy against the dimension d", "",
                f"n = {config['synthetic_n']} training rows, {config['synthetic_public']} public rows (Z), "
                f"{config['synthetic_test']} test rows, all of norm 1; label = sign of one coordinate of a "
                "3-dimensional signal block of norm 0.8 (the other d - 3 coordinates hold a random unit "
                "vector scaled to 0.6), 5% labels flipped (Bayes accuracy 0.95). "
                f"λ grid {config['synthetic_lams']}.", ""]
        for e in eps + [None]:
            out += [f"### {'no privacy' if e is None else f'ε = {e:g}'}", ""]
            out += _by_dim_table(best, dims, e) + [""]
    out += ["## Noise scales", "",
            "TDDL: standard deviation (Gaussian) or scale (Laplace) of the noise on each of the T "
            "predictions on Z. Linear objective perturbation: E‖b‖ / (n (λ + Δ)), the size of the "
            "perturbation of the weights it causes, up to the loss curvature (mean over repetitions).", ""]
    out += _noise_table(result["summary"], eps) + [""]
    if any(r["method"].endswith("_tuned") for r in result["records"]):
        out += ["## Private tuning: what was selected", ""] + _tuned_table(result["records"]) + [""]
    out += ["## Every λ", ""] + _grid_table(result["summary"], eps) + [""]
    solves = result["solves"]
    if solves:
        out += ["## Exact kernel solves (cubic kernel, logistic, Newton)", "",
                "| setting | λ | solves | Newton steps (mean) | seconds (mean) | max certified ‖w − w*‖ / tolerance |",
                "|---|---|---|---|---|---|"]
        groups: dict = defaultdict(list)
        for s in solves:
            groups[(s["setting"], s["lam"])].append(s)
        for (setting, lam), group in sorted(groups.items(), key=lambda g: (setting_key(g[0][0]), g[0][1])):
            ratio = max(s["distance_bound"] / s["tolerance"] for s in group)
            out.append(f"| {setting} | {lam:g} | {len(group)} | {np.mean([s['iterations'] for s in group]):.1f} "
                       f"| {np.mean([s['seconds'] for s in group]):.2f} | {ratio:.2g} |")
        out.append("")
    out += ["## Work units", "", "| unit | seconds | load average at end |", "|---|---|---|"]
    out += [f"| {u['kind']} {u['args']} | {u['seconds']} | {u['load_average_end']} |" for u in result["units"]]
    failures = [r for r in result["records"] if r["accuracy"] is None]
    out += ["", f"Failed fits: {len(failures)} of {len(result['records'])} (a cell's mean and std are over "
            "the fits that succeeded; cells with failures say so)."]
    for r in failures[:20]:
        out.append(f"- {r['setting']} {r['method']} λ={r['lam']} ε={r['epsilon']} rep {r['rep']}: {r['error']}")
    return "\n".join(out) + "\n"


# --- plots --------------------------------------------------------------------------------------------

STYLE = {"tddl_gaussian": ("C0", "o"), "tddl_laplace": ("C1", "s"), "linear_objective": ("C3", "^"),
         "rff_objective": ("C2", "D"), "kernel_nonprivate": ("C0", None), "linear_nonprivate": ("C3", None),
         "rff_nonprivate": ("C2", None), "tddl_gaussian_tuned": ("C0", "o"), "linear_objective_tuned": ("C3", "^"),
         "rff_objective_tuned": ("C2", "D")}


def _style(method: str, index: int):
    color, marker = STYLE.get(method.partition(":")[0], ("k", "x"))
    if method.startswith("rff") and ":" in method:
        color = ["C2", "C4", "C5", "C6"][index % 4]
    return color, marker


def _line(method: str) -> str:
    """Solid: best λ of the grid (chosen on the test rows); dash-dot: privately tuned; dashed: non-private."""
    return "-." if method.endswith("_tuned") else "-" if is_private(method) else "--"


def plots(result: dict, stem: Path) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    best, eps = result["best_over_lam"], result["config"]["epsilons"]
    settings = sorted({r["setting"] for r in best})
    dims = sorted(int(s[len("synthetic_d"):]) for s in settings if s.startswith("synthetic_d"))
    panels = [s for s in ("adult_subset", "adult_full") if s in settings]
    panels += [f"synthetic_d{d}" for d in (dims[:1] + dims[-1:] if len(dims) > 1 else dims)]
    written = []
    if panels:
        fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 5.0), squeeze=False)
        for ax, setting in zip(axes[0], panels, strict=True):
            rows = [r for r in best if r["setting"] == setting]
            rff_index = {m: i for i, m in enumerate(sorted({r["method"].partition(":")[2] for r in rows} - {""}))}
            for method in method_order(r["method"] for r in rows):
                color, marker = _style(method, rff_index.get(method.partition(":")[2], 0))
                points = sorted((r["epsilon"], r["mean"], r["std"]) for r in rows
                                if r["method"] == method and r["epsilon"] is not None)
                if points:
                    x, m, s = map(np.array, zip(*points, strict=True))
                    ax.errorbar(x, m, yerr=s, color=color, marker=marker, capsize=3, ls=_line(method),
                                mfc="none" if method.endswith("_tuned") else color, label=method_label(method))
                elif method == "majority":
                    ax.axhline(rows_value(rows, method), color="grey", ls=":", label=method_label(method))
                else:
                    ax.axhline(rows_value(rows, method), color=color, ls="--", lw=1, label=method_label(method))
            ax.set_xscale("log")
            ax.set_xticks(eps, [f"{e:g}" for e in eps])
            ax.set_xlabel("ε")
            ax.set_ylabel("test accuracy (mean ± std)")
            ax.set_title(setting.replace("_", " "))
            ax.grid(alpha=0.3)
        _figure_legend(fig, axes[0])
        path = stem.with_name(stem.name + "_eps.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    if dims:
        columns = eps + [None]
        fig, axes = plt.subplots(1, len(columns), figsize=(4.4 * len(columns), 5.0), squeeze=False, sharey=True)
        for ax, e in zip(axes[0], columns, strict=True):
            rows = [r for r in best if r["setting"].startswith("synthetic_d") and r["epsilon"] == e]
            rff_index = {m: i for i, m in enumerate(sorted({r["method"].partition(":")[2] for r in rows} - {""}))}
            for method in method_order(r["method"] for r in rows):
                points = sorted((int(r["setting"][len("synthetic_d"):]), r["mean"], r["std"]) for r in rows
                                if r["method"] == method)
                x, m, s = map(np.array, zip(*points, strict=True))
                color, marker = _style(method, rff_index.get(method.partition(":")[2], 0))
                if method == "majority":
                    color, marker = "grey", "x"
                ax.errorbar(x, m, yerr=s, color=color, marker=marker or "v", capsize=3, ls=_line(method),
                            mfc="none" if method.endswith("_tuned") else color, label=method_label(method))
            ax.set_xscale("log")
            ax.set_xlabel("input dimension d")
            ax.set_title("no privacy" if e is None else f"ε = {e:g}")
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("test accuracy (mean ± std)")
        _figure_legend(fig, axes[0])
        path = stem.with_name(stem.name + "_dim.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def _figure_legend(fig, axes) -> None:
    """One legend below the panels, with every method that appears in any of them."""
    entries: dict = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    fig.legend(list(entries.values()), list(entries.keys()), loc="lower center", ncol=4, fontsize=8,
               frameon=False)


def rows_value(rows: list[dict], method: str) -> float:
    return [r for r in rows if r["method"] == method][0]["mean"]


# --- command line -------------------------------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Defaults are the recorded run's; --quick lowers them (a few minutes).")
    parser.add_argument("--quick", action="store_true", help="small configuration that runs in a few minutes")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results",
                        help="output directory (default benchmarks/results)")
    parser.add_argument("--tag", help="file name tag (default 'quick' or 'full')")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes, 1 or 2 (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", nargs="+", choices=["adult", "synthetic"])
    parser.add_argument("--epsilons", nargs="+", type=float)
    parser.add_argument("--reps", type=int)
    parser.add_argument("--adult-n", type=int, help="training subset size for every method")
    parser.add_argument("--adult-public", type=int, help="size of TDDL's public sample Z (adult.test rows)")
    parser.add_argument("--no-adult-full", dest="adult_full", action="store_false", default=None,
                        help="skip linear/RFF on the full adult.data")
    parser.add_argument("--adult-lams", nargs="+", type=float)
    parser.add_argument("--dims", nargs="+", type=int)
    parser.add_argument("--synthetic-n", type=int)
    parser.add_argument("--synthetic-public", type=int)
    parser.add_argument("--synthetic-test", type=int)
    parser.add_argument("--synthetic-lams", nargs="+", type=float)
    parser.add_argument("--rff", nargs="+", help="random Fourier feature settings gamma:D (rbf kernel)")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--render", type=Path, metavar="JSON",
                        help="rewrite the Markdown and plots of a recorded JSON file, then exit")
    return parser.parse_args(argv)


def build_config(args: argparse.Namespace) -> dict:
    config = dict(QUICK if args.quick else FULL)
    for name in ("tasks", "epsilons", "reps", "adult_n", "adult_public", "adult_full", "adult_lams", "dims",
                 "synthetic_n", "synthetic_public", "synthetic_test", "synthetic_lams", "rff"):
        value = getattr(args, name)
        if value is not None:
            config[name] = value
    for spec in config["rff"]:
        parse_rff(spec)
    if args.jobs not in (1, 2):
        raise SystemExit("--jobs must be 1 or 2 (the machine is shared)")
    config.update(seed=args.seed, jobs=args.jobs, quick=bool(args.quick))
    return config


def write_outputs(result: dict, out: Path, plot: bool = True) -> list[Path]:
    stem = out / f"{KIND}_{result['tag']}"
    (stem.with_suffix(".md")).write_text(markdown(result))
    written = [stem.with_suffix(".json"), stem.with_suffix(".md")]
    if plot:
        written += plots(result, stem)
    return written


def main(argv=None) -> dict:
    args = parse_args(argv)
    if args.render is not None:
        result = json.loads(args.render.read_text())
        for path in write_outputs(result, args.render.parent, plot=not args.no_plots)[1:]:
            print(f"[kernels] wrote {path}", file=sys.stderr)
        return result
    config = build_config(args)
    tag = args.tag or ("quick" if args.quick else "full")
    record = RunRecord("benchmarks.kernels", argv)
    units = work_units(config)
    print(f"[kernels] {len(units)} work units on {config['jobs']} process(es); load {record.load_start}",
          file=sys.stderr, flush=True)
    if config["jobs"] == 1:
        with limit_threads(1):
            results = [_run_unit(u) for u in units]
    else:
        context = multiprocessing.get_context("spawn")
        with context.Pool(config["jobs"], initializer=_limit_worker_threads) as pool:
            results = list(pool.imap_unordered(_run_unit, units))
    records = [r for res in results for r in res["records"]]
    summary = summarise(records)
    result = {
        "kind": KIND,
        "tag": tag,
        "config": config,
        "run": {**record.finish(), "niceness": os.nice(0),
                "blas_threads_per_process": 1 if importlib.util.find_spec("threadpoolctl") else None},
        "sizes": {k: v for res in results for k, v in res["sizes"].items()},
        "units": sorted((res["unit"] for res in results), key=lambda u: (u["kind"], u["args"])),
        "summary": summary,
        "best_over_lam": best_over_lam(summary),
        "solves": [s for res in results for s in res["solves"]],
        "records": records,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{KIND}_{tag}.json").write_text(json.dumps(result, indent=1) + "\n")
    for path in write_outputs(result, args.out, plot=not args.no_plots):
        print(f"[kernels] wrote {path}", file=sys.stderr)
    print(f"[kernels] run time {result['run']['run_seconds']} s; load {result['run']['load_average_end']}",
          file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
