"""(epsilon, delta) mechanisms of dpcvx beside pure-epsilon objective perturbation, KST12, AMP, DP-GD, DP-SGD.

For each data set (Adult; KDD Cup 99 10%, a seeded random 70,000 rows;
``private`` preprocessing: public bounds only) and loss, k-fold
cross-validation (default 10 folds) times K noise draws, epsilon in
{0.05, 0.1, 0.5, 1}, delta = 1/n^2 with n the training-fold size, one Lam
(default 10^-2.5), one neighbour relation for every method (default
replace-one, n public):

* ``nonprivate``: dpcvx's exact minimiser of the same objective (reference);
* ``objective-pure``: dpcvx objective perturbation, delta = 0 (JMLR 2011, l2-Laplace noise);
* ``objective-gauss``: dpcvx (epsilon, delta) Gaussian objective perturbation
  (the calibration dpcvx picks: re-derived RKW profile or KST12, Delta chosen jointly);
* ``objective-kst12``: the same mechanism forced to the KST12 constants for
  replace-one (:class:`KST12ERM`);
* ``output-gauss``: dpcvx (epsilon, delta) output perturbation (analytic Gaussian);
* ``dpgd``: full-batch DP gradient descent with RDP accounting
  (:mod:`benchmarks.dpgd`), T steps, last iterate released; its step size is
  chosen per (data set, loss, epsilon) on fold 0 by TEST error from a grid:
  that tuning is NOT private (stated in the results);
* ``objective-amp``: approximate minima perturbation with Iyengar et al.'s
  constants (:class:`AMPERM`);
* ``dpsgd``: DP-SGD with Opacus (add/remove only), run by
  benchmarks/dpsgd_opacus.py under the Python of its own virtual environment
  (``--opacus-python``); its learning rate is tuned like DP-GD's step size
  (NOT private). When Opacus cannot be imported the results say so.

``--neighbours add-remove`` calibrates every private method for one record
added or removed (n_public = training-fold size); the pure-epsilon method is
replace-one only and is then refused (recorded as refused).

BLAS threads are pinned (threadpoolctl, default 1) for every contender.

Outputs (``--out``, default benchmarks/results): ``delta_mechanisms_<tag>.json``
(every fit's error and time, calibrations, hyperparameters, the run record),
``delta_mechanisms_<tag>.md`` and ``delta_mechanisms_<tag>_<data>.png``
(test error against epsilon, mean ± sd over folds x draws).

    python -m benchmarks.delta_mechanisms --quick
    python -m benchmarks.delta_mechanisms --datasets adult --tag adult_k10
    python -m benchmarks.delta_mechanisms --docs-table benchmarks/results/delta_mechanisms_*.json
    python -m benchmarks.delta_mechanisms --docs-plot docs/img/mechanisms RESULT.json ...
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks import common, dpgd
from dpcvx.privacy.calibrate_gaussian import GaussianObjectivePerturbation
from dpcvx.privacy.objective_gaussian import kst12_calibration

METHODS = ("nonprivate", "objective-pure", "objective-gauss", "objective-kst12", "output-gauss", "dpgd",
           "objective-amp", "dpsgd")
LABELS = {
    "nonprivate": "dpcvx non-private (same Lam)",
    "objective-pure": "dpcvx objective, pure eps (delta=0)",
    "objective-gauss": "dpcvx objective, Gaussian (eps, delta)",
    "objective-kst12": "objective, KST12 constants (same relation)",
    "output-gauss": "dpcvx output, analytic Gaussian",
    "dpgd": "DP-GD (RDP, T steps, last iterate)",
    "objective-amp": "AMP (Iyengar et al. 2019 constants)",
    "dpsgd": "DP-SGD (Opacus, Poisson sampling, PRV)",
}
STREAM = {name: index for index, name in enumerate(METHODS)}
EPSILONS = (0.05, 0.1, 0.5, 1.0)
STEP_SIZES = (0.5, 1.0, 2.0, 4.0, 8.0)
SGD_LEARNING_RATES = (1.0, 4.0, 16.0, 64.0)
OPACUS_PYTHON = Path(os.environ.get("DPCVX_OPACUS_PYTHON", "/work/venv-opacus/bin/python"))
OPACUS_SCRIPT = Path(__file__).with_name("dpsgd_opacus.py")
DATASET_INDEX = {"adult": 0, "kdd": 1, "synthetic": 2}
LOSS_INDEX = {"logistic": 0, "huber": 1}

QUICK = {"folds_run": 1, "draws": 1, "kdd_rows": 20_000, "epsilons": (0.1, 1.0), "steps": 100}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.delta_mechanisms",
                                     description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1 fold, 1 draw, eps in {0.1, 1}, KDD 20,000 rows, DP-GD 100 steps")
    parser.add_argument("--out", type=Path, default=common.RESULTS_DIR, help="output directory")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (threadpoolctl)")
    parser.add_argument("--datasets", nargs="+", default=["adult", "kdd"], choices=common.DATASETS)
    parser.add_argument("--mode", default="private", choices=common.MODES, help="preprocessing mode")
    parser.add_argument("--losses", nargs="+", default=["logistic"], choices=list(common.LOSSES))
    parser.add_argument("--folds", type=int, default=10, help="cross-validation folds")
    parser.add_argument("--folds-run", type=int, default=None, help="how many of the folds to run (default all)")
    parser.add_argument("--draws", type=int, default=None, help="noise draws per fold and method (default 2)")
    parser.add_argument("--lam", type=float, default=10 ** -2.5, help="regularization Lam (default 10^-2.5)")
    parser.add_argument("--epsilons", type=float, nargs="+", default=None)
    parser.add_argument("--steps", type=int, default=None, help="DP-GD steps T (default 300)")
    parser.add_argument("--step-sizes", type=float, nargs="+", default=list(STEP_SIZES),
                        help="DP-GD step-size grid, tuned on fold 0 by test error (NOT private)")
    parser.add_argument("--seed", type=int, default=0, help="seed of folds, KDD subset and noise")
    parser.add_argument("--kdd-rows", type=int, default=None, help="KDD subset size (default 70,000)")
    parser.add_argument("--max-rows", type=int, default=None, help="subsample every data set (tests)")
    parser.add_argument("--tag", default=None, help="file name tag (default: quick or full)")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--opacus-python", type=Path, default=OPACUS_PYTHON,
                        help="Python of the virtual environment with torch and opacus (DP-SGD contender; "
                             "env DPCVX_OPACUS_PYTHON); a missing or broken one is reported, not dropped")
    parser.add_argument("--sgd-epochs", type=int, default=5, help="DP-SGD epochs (fixed, not tuned)")
    parser.add_argument("--sgd-batch", type=int, default=1024, help="DP-SGD expected batch size (fixed)")
    parser.add_argument("--sgd-learning-rates", type=float, nargs="+", default=list(SGD_LEARNING_RATES),
                        help="DP-SGD learning-rate grid, tuned on fold 0 by test error (NOT private)")
    parser.add_argument("--sgd-max-rows", type=int, default=None,
                        help="DP-SGD trains on a seeded random subset of this many training rows (speed)")
    parser.add_argument("--neighbours", default="replace-one", choices=("replace-one", "add-remove"),
                        help="neighbour relation of every private method; add-remove takes the training-fold "
                             "size as the public n_public (the pure-epsilon method is replace-one only)")
    args = parser.parse_args(argv)
    args.folds_run = (QUICK["folds_run"] if args.quick else args.folds) if args.folds_run is None else args.folds_run
    args.draws = (QUICK["draws"] if args.quick else 2) if args.draws is None else args.draws
    args.kdd_rows = (QUICK["kdd_rows"] if args.quick else 70_000) if args.kdd_rows is None else args.kdd_rows
    args.epsilons = list((QUICK["epsilons"] if args.quick else EPSILONS) if args.epsilons is None else args.epsilons)
    args.steps = (QUICK["steps"] if args.quick else 300) if args.steps is None else args.steps
    args.tag = args.tag or ("quick" if args.quick else "full")
    if not 1 <= args.folds_run <= args.folds:
        parser.error("--folds-run must be between 1 and --folds")
    return args


# -- the KST12 contender ------------------------------------------------------------------------


class KST12ERM(dpcvx.PrivateERM):
    """PrivateERM whose Gaussian objective perturbation uses the KST12 constants (replace-one).

    PrivateERM builds its (epsilon, delta) objective calibration (budget split with
    the approximate-minimiser cover included); the public hook
    :meth:`~dpcvx.PrivateERM.release_calibration` then replaces the objective part
    by :func:`kst12_calibration` at the same (epsilon, delta) share and the same
    constants (n, L, c, R, Lam m as that part records them): sigma = 2 L R
    sqrt(8 ln(2/delta) + 4 eps) / eps and the smallest KST12 ridge. Pure-epsilon and
    output calibrations are untouched.
    """

    def release_calibration(self, calibration):
        if not isinstance(calibration, GaussianObjectivePerturbation):
            return calibration
        chosen = calibration.objective
        kst = kst12_calibration(chosen.epsilon, chosen.delta, n=chosen.n, lipschitz=chosen.lipschitz,
                                smoothness=chosen.smoothness, norm_bound=chosen.norm_bound,
                                lam_m=chosen.lam_m, neighbours=chosen.neighbours)
        return replace(calibration, objective=kst)


class AMPERM(dpcvx.PrivateERM):
    """Approximate minima perturbation with the constants of Iyengar et al. (2019, Algorithm 1), as a contender.

    REFERENCE.md, "Approximate minima perturbation": eps1 = 0.99 eps, delta1 = 0.99 delta for the
    objective, the rest for the output noise (their public code's defaults); eps3 = eps1 / 2;
    Lambda = r beta / (eps1 - eps3) with r = 2 and beta = c R^2 (in the averaged objective,
    Lambda / n is the added ridge); b1 ~ N(0, s1^2 I) on the averaged objective with
    s1 = (2 L R / n)(1 + sqrt(2 ln(1/delta1))) / eps3; gradient threshold gamma = 1/n^2 on the
    averaged objective. The output noise covers two approximate minimisers (the corrected
    sensitivity 2 n gamma / Lambda, in dpcvx's units) with the analytic Gaussian, slightly tighter
    than the paper's (1 + sqrt(2 ln(1/delta2))) / eps2 factor.
    """

    def release_calibration(self, calibration):
        if not isinstance(calibration, GaussianObjectivePerturbation):
            return calibration
        n, epsilon, delta, L, c, R = (calibration.n, calibration.epsilon, calibration.delta, calibration.L,
                                      calibration.c, calibration.R)
        eps1, delta1 = 0.99 * epsilon, 0.99 * delta
        eps3 = eps1 / 2
        big_lambda = 2 * c * R * R / (eps1 - eps3)
        s1 = (2 * L * R / n) * (1 + math.sqrt(2 * math.log(1 / delta1))) / eps3
        objective = replace(calibration.objective, sigma=n * s1, ridge=big_lambda / n, epsilon=eps1,
                            delta=delta1, analysis="amp (Iyengar et al. 2019)")
        return replace(calibration, objective=objective, amp_epsilon=epsilon - eps1,
                       amp_delta=delta - delta1, tol=1.0 / (n * n * L * R))


# -- one (data set, loss) -----------------------------------------------------------------------


def _error(w, X, y) -> float:
    return float(np.mean(np.where(X @ w >= 0, 1.0, -1.0) != y))


def _calibration_summary(model) -> dict:
    calibration = model.certificate.calibration.to_dict()
    keep = ("analysis", "sigma", "extra_reg", "amp_sigma", "beta", "epsilon_prime", "objective_epsilon",
            "objective_delta", "sensitivity", "neighbours", "jacobian_epsilon")
    return {key: calibration[key] for key in keep if key in calibration}


def _dpcvx_fit(learner, X, y, epsilon, mechanism, delta, seed, neighbours="replace-one"):
    start = time.perf_counter()
    relation = {} if neighbours == "replace-one" else {"neighbours": neighbours, "n_public": X.shape[0]}
    try:
        model = learner.fit(X, y, epsilon, mechanism=mechanism, delta=delta, random_state=seed, **relation)
    except (dpcvx.SolverError, dpcvx.InputError, dpcvx.AssumptionError) as error:  # e.g. Huber: not C^2
        failures = getattr(error, "failures", ())  # an AssumptionError names the conditions that failed
        why = "; ".join(f"{condition.name}: {condition.detail}" for condition in failures) or str(error)
        return None, time.perf_counter() - start, f"{type(error).__name__}: {why[:200]}"
    return model, time.perf_counter() - start, None


def tune_step_size(X_train, y_train, X_test, y_test, lam, loss, epsilons, delta, steps, grid, seed, key,
                   neighbours="replace-one"):
    """Per epsilon, the step size of the grid with the lowest fold-0 TEST error (one draw): NOT private."""
    table, chosen = {}, {}
    for e_index, epsilon in enumerate(epsilons):
        errors = {}
        for s_index, eta in enumerate(grid):
            rng = common.generator(seed, *key, e_index, 999, s_index)
            w, _ = dpgd.dpgd(X_train, y_train, lam, epsilon=epsilon, delta=delta, steps=steps, step_size=eta,
                             rng=rng, loss=loss, neighbours=neighbours)
            errors[str(eta)] = _error(w, X_test, y_test)
        table[str(epsilon)] = errors
        chosen[str(epsilon)] = float(min(grid, key=lambda eta, errs=errors: (errs[str(eta)], eta)))
    return chosen, table


# -- the DP-SGD contender (Opacus, in its own virtual environment) -------------------------------


def opacus_status(python: Path) -> dict:
    """Whether ``python`` imports torch and opacus: {"usable": True, versions} or {"usable": False, "reason"}."""
    if not python.exists():
        return {"usable": False, "reason": f"not run: Opacus not installed (no Python at {python}; create the "
                                           "virtual environment as benchmarks/dpsgd_opacus.py says)"}
    try:
        done = subprocess.run([str(python), "-c", "import torch, opacus; print(torch.__version__, opacus.__version__)"],
                              capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return {"usable": False, "reason": f"not run: Opacus not usable ({error})"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1][:200]
        return {"usable": False, "reason": f"not run: Opacus not installed ({last})"}
    torch_version, opacus_version = done.stdout.split()
    return {"usable": True, "python": str(python), "torch": torch_version, "opacus": opacus_version}


def run_dpsgd(args, loss_name: str, X_train, y_train, X_test, y_test, runs: list[dict], subsample_seed: int):
    """Run DP-SGD for each of ``runs`` ({"epsilon", "delta", "learning_rate", "seed", ...}) in one subprocess."""
    job = {"lam": args.lam, "epochs": args.sgd_epochs, "batch_size": args.sgd_batch, "max_grad_norm": 1.0,
           "accountant": "prv", "loss": loss_name, "max_train_rows": args.sgd_max_rows,
           "subsample_seed": subsample_seed, "runs": runs}
    with tempfile.TemporaryDirectory() as directory:
        arrays, config = Path(directory) / "job.npz", Path(directory) / "job.json"
        np.savez(arrays, X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)
        config.write_text(json.dumps(job))
        done = subprocess.run([str(args.opacus_python), str(OPACUS_SCRIPT), str(arrays), str(config)],
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the DP-SGD subprocess failed: {done.stderr.strip()[-800:]}")
    output = json.loads(done.stdout)
    return output["results"], output["train_rows"]


def _dpsgd_reason(args) -> str | None:
    """None when DP-SGD runs; else why not (stated in the results, never silently dropped)."""
    if args.neighbours != "add-remove":
        return "not run: Opacus accounts for add/remove neighbours only"
    status = args.opacus_status
    return None if status["usable"] else status["reason"]


def tune_learning_rate(args, loss_name, X_train, y_train, X_test, y_test, delta, key) -> dict:
    """Per epsilon, the DP-SGD learning rate of the grid with the lowest fold-0 TEST error: NOT private."""
    runs = [{"epsilon": eps, "delta": delta, "learning_rate": lr, "seed": common.int_seed(args.seed, *key, e, 998, j)}
            for e, eps in enumerate(args.epsilons) for j, lr in enumerate(args.sgd_learning_rates)]
    start = time.perf_counter()
    results, _ = run_dpsgd(args, loss_name, X_train, y_train, X_test, y_test, runs, args.seed)
    table: dict = {}
    for run, result in zip(runs, results, strict=True):
        table.setdefault(str(run["epsilon"]), {})[str(run["learning_rate"])] = result["error"]
    chosen = {eps: float(min(errors, key=lambda lr, errs=errors: (errs[lr], float(lr))))
              for eps, errors in table.items()}
    return {"chosen": chosen, "test_errors": table, "seconds": time.perf_counter() - start}


def dpsgd_fold(args, loss_name, fold, X_train, y_train, X_test, y_test, delta, key, tuning, fits, calibrations):
    """All epsilons and draws of DP-SGD on one fold (one subprocess), recorded like the other methods."""
    runs = [{"epsilon": eps, "delta": delta, "learning_rate": tuning["chosen"][str(eps)], "draw": draw,
             "seed": common.int_seed(args.seed, *key, fold, e, draw, STREAM["dpsgd"])}
            for e, eps in enumerate(args.epsilons) for draw in range(args.draws)]
    results, train_rows = run_dpsgd(args, loss_name, X_train, y_train, X_test, y_test, runs,
                                    common.int_seed(args.seed, *key, fold, 997))
    for run, result in zip(runs, results, strict=True):
        fits["dpsgd"][str(run["epsilon"])].append({"fold": fold, "draw": run["draw"], "error": result["error"],
                                                   "seconds": result["seconds"]})
        if fold == 0 and run["draw"] == 0:
            calibrations.setdefault("dpsgd", {})[str(run["epsilon"])] = {
                "n": X_train.shape[0], "train_rows": train_rows, "delta": delta,
                **{k: result[k] for k in ("noise_multiplier", "steps", "sample_rate", "spent_epsilon",
                                          "learning_rate")}}


def run_dataset_loss(data: common.Data, loss_name: str, args, folds, on_fold=None) -> dict:
    """Every method, epsilon and draw on the first ``args.folds_run`` folds; ``on_fold(result)`` after each fold."""
    loss = common.LOSSES[loss_name]
    lam = args.lam
    fits: dict = {method: {str(eps): [] for eps in args.epsilons} for method in METHODS if method != "nonprivate"}
    fits["nonprivate"] = {"-": []}
    calibrations: dict = {}
    tuning = sgd_tuning = None
    sgd_reason = _dpsgd_reason(args)
    base_key = (DATASET_INDEX[data.name], LOSS_INDEX[loss_name])
    erm = dpcvx.PrivateERM(loss=loss, lam=lam, data_norm=common.DATA_NORM)
    kst = KST12ERM(loss=loss, lam=lam, data_norm=common.DATA_NORM)
    amp = AMPERM(loss=loss, lam=lam, data_norm=common.DATA_NORM)
    # one-off warm-up (loss verification, solver set-up) outside every timed fit
    warm = folds[0][0][:500]
    erm.fit_nonprivate(data.X[warm], data.y[warm])
    for learner in (erm, kst, amp):
        try:
            learner.fit(data.X[warm], data.y[warm], 1.0, delta=1e-6, random_state=0)
        except dpcvx.AssumptionError:  # a piecewise-C^2 loss (Huber): Gaussian objective perturbation refused
            learner.fit(data.X[warm], data.y[warm], 1.0, random_state=0)
    for fold in range(args.folds_run):
        t_fold = time.perf_counter()
        train, test = folds[fold]
        X_train, y_train = np.ascontiguousarray(data.X[train]), data.y[train]
        X_test, y_test = data.X[test], data.y[test]
        n = X_train.shape[0]
        delta = 1.0 / n**2
        start = time.perf_counter()
        nonprivate = erm.fit_nonprivate(X_train, y_train)
        fits["nonprivate"]["-"].append({"fold": fold, "error": 1 - float(nonprivate.score(X_test, y_test)),
                                        "seconds": time.perf_counter() - start})
        if fold == 0:
            tuning_start = time.perf_counter()
            chosen, table = tune_step_size(X_train, y_train, X_test, y_test, lam, loss_name, args.epsilons, delta,
                                           args.steps, args.step_sizes, args.seed, base_key + (fold,),
                                           args.neighbours)
            tuning = {"chosen": chosen, "test_errors": table, "seconds": time.perf_counter() - tuning_start}
            if sgd_reason is None:
                sgd_tuning = tune_learning_rate(args, loss_name, X_train, y_train, X_test, y_test, delta,
                                                base_key + (fold,))
        for e_index, epsilon in enumerate(args.epsilons):
            for draw in range(args.draws):
                for method in METHODS[1:-1]:  # DP-SGD below, one subprocess per fold
                    key = base_key + (fold, e_index, draw, STREAM[method])
                    seed = common.int_seed(args.seed, *key)
                    record = {"fold": fold, "draw": draw}
                    if method == "dpgd":
                        start = time.perf_counter()
                        eta = tuning["chosen"][str(epsilon)]
                        w, info = dpgd.dpgd(X_train, y_train, lam, epsilon=epsilon, delta=delta, steps=args.steps,
                                            step_size=eta, rng=np.random.default_rng(seed), loss=loss_name,
                                            neighbours=args.neighbours)
                        record.update(error=_error(w, X_test, y_test), seconds=time.perf_counter() - start)
                        summary = {key_: info[key_] for key_ in ("noise_multiplier", "noise_std", "sensitivity",
                                                                 "steps", "step_size", "rdp_epsilon")}
                    else:
                        learner = {"objective-kst12": kst, "objective-amp": amp}.get(method, erm)
                        mechanism = "output" if method.startswith("output") else "objective"
                        method_delta = 0.0 if method == "objective-pure" else delta
                        model, seconds, refused = _dpcvx_fit(learner, X_train, y_train, epsilon, mechanism,
                                                             method_delta, seed, args.neighbours)
                        record["seconds"] = seconds
                        if refused:
                            record.update(error=None, refused=refused)
                            summary = {"refused": refused}
                        else:
                            record["error"] = 1 - float(model.score(X_test, y_test))
                            summary = _calibration_summary(model)
                    fits[method][str(epsilon)].append(record)
                    if fold == 0 and draw == 0:
                        used_delta = 0.0 if method == "objective-pure" else delta
                        calibrations.setdefault(method, {})[str(epsilon)] = {"n": n, "delta": used_delta, **summary}
        if sgd_reason is None:
            dpsgd_fold(args, loss_name, fold, X_train, y_train, X_test, y_test, delta, base_key, sgd_tuning, fits,
                       calibrations)
        else:
            for epsilon in args.epsilons:
                fits["dpsgd"][str(epsilon)].append({"fold": fold, "draw": 0, "error": None, "refused": sgd_reason,
                                                    "seconds": 0.0})
                calibrations.setdefault("dpsgd", {})[str(epsilon)] = {"refused": sgd_reason}
        print(f"[delta_mechanisms] {data.key} {loss_name} fold {fold + 1}/{args.folds_run} "
              f"{time.perf_counter() - t_fold:.1f}s load {common.load_average()}", file=sys.stderr, flush=True)
        result = {"folds_done": fold + 1, "fits": fits, "calibrations": calibrations, "dpgd_tuning": tuning,
                  "dpsgd_tuning": sgd_tuning, "dpsgd_status": sgd_reason or "run", "summary": summarise(fits)}
        if on_fold is not None:
            on_fold(result)
    return result


def summarise(fits: dict) -> dict:
    out: dict = {}
    for method, cells in fits.items():
        out[method] = {}
        for eps, records in cells.items():
            errors = np.array([r["error"] for r in records if r.get("error") is not None], dtype=float)
            seconds = np.array([r["seconds"] for r in records], dtype=float)
            out[method][eps] = {
                "count": int(errors.size), "refused": sum(1 for r in records if r.get("error") is None),
                "not_run": bool(records) and all(str(r.get("refused", "")).startswith("not run") for r in records),
                "mean": common.finite_or_none(errors.mean()) if errors.size else None,
                "std": common.finite_or_none(errors.std(ddof=1)) if errors.size > 1 else None,
                "seconds_mean": common.finite_or_none(seconds.mean()) if seconds.size else None,
            }
    return out


# -- report ---------------------------------------------------------------------------------------


def _cell(cell: dict | None) -> str:
    if not cell or cell["mean"] is None:
        if cell and cell.get("not_run"):
            return "not run"
        return "refused" if cell and cell["refused"] else "-"
    text = f"{cell['mean']:.4f}"
    if cell["std"] is not None:
        text += f" ± {cell['std']:.4f}"
    if cell["refused"]:
        text += f" [{cell['refused']} refused]"
    return text


def markdown(output: dict) -> str:
    config = output["config"]
    lines = [f"# (epsilon, delta) mechanisms: test error ({output['tag']})", ""]
    if output.get("quick"):
        lines += ["**QUICK MODE (smoke run): not a measurement.**", ""]
    lines += [
        f"Command: `{output['run']['command']}`  ",
        f"Date (UTC): {output['run']['date_utc']}; run time {output['run']['run_seconds']} s; machine "
        f"{output['run']['machine']['cpu_model']} ({output['run']['machine']['cores']} cores); load average "
        f"{output['run']['load_average_start']} -> {output['run']['load_average_end']}; BLAS threads pinned to "
        f"{config['threads']} (threadpoolctl).", "",
        f"Folds requested: {config['folds_run']} of {config['folds']}; noise draws per fold and method: "
        f"{config['draws']}; "
        f"Lam = {config['lam']:.6g}; delta = 1/n^2 (n = training-fold size); neighbours: {config['neighbours']} "
        f"for every method; preprocessing mode {config['mode']}; no intercept (constant feature in the rows).",
        "",
        "Cells: mean ± sd of the test error over folds x draws (non-private: over folds).", "",
    ]
    for data_key, per_loss in output["results"].items():
        info = output["data"][data_key]
        for loss_name, result in per_loss.items():
            summary = result["summary"]
            lines += [f"## {data_key}, {loss_name}", "",
                      f"Folds completed: {result['folds_done']} of {config['folds']}"
                      + ("" if output.get("complete") else " (run not finished when this file was written)")
                      + f". {info['description']}; n = {info['n']}, d = {info['d']}; training-fold n = "
                      f"{result['calibrations']['objective-gauss'][str(config['epsilons'][0])]['n']}.", ""]
            header = ["method"] + [f"eps = {eps:g}" for eps in config["epsilons"]]
            lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            for method in METHODS:
                if method == "nonprivate":
                    row = [_cell(summary[method]["-"])] * len(config["epsilons"])
                else:
                    row = [_cell(summary[method][str(eps)]) for eps in config["epsilons"]]
                lines.append("| " + " | ".join([LABELS[method]] + row) + " |")
            lines += ["", "Calibrations (fold 0; sigma of the objective is that of b in the SUM form; "
                          "DP-GD noise_std is per coordinate of the averaged gradient):", ""]
            lines += ["| method | eps | calibration |", "|---|---|---|"]
            for method in METHODS[1:]:
                for eps in config["epsilons"]:
                    cal = result["calibrations"].get(method, {}).get(str(eps), {})
                    text = ", ".join(f"{k}={_fmt(v)}" for k, v in cal.items())
                    lines.append(f"| {LABELS[method]} | {eps:g} | {text} |")
            tuning = result["dpgd_tuning"]
            lines += ["", f"DP-GD step size (tuned NON-privately on fold 0 by test error, grid "
                          f"{config['step_sizes']}): " + ", ".join(f"eps {e}: {s:g}" for e, s in
                                                                  tuning["chosen"].items())
                      + f" (tuning took {tuning['seconds']:.1f} s).", ""]
            lines += [_dpsgd_line(output, result), ""]
            lines += ["Mean seconds per fit: " + ", ".join(
                f"{method} {summary[method][next(iter(summary[method]))]['seconds_mean']:.2f}"
                for method in METHODS), ""]
    lines += ["## Notes", ""] + [f"- {note}" for note in output["notes"]] + [""]
    return "\n".join(lines)


def _dpsgd_line(output: dict, result: dict) -> str:
    config = output["config"]
    if result.get("dpsgd_status", "run") != "run":
        return f"DP-SGD: {result['dpsgd_status']}."
    status, tuning = output["opacus"], result["dpsgd_tuning"]
    rows = next(iter(result["calibrations"]["dpsgd"].values()))["train_rows"]
    return (f"DP-SGD (Opacus {status['opacus']}, torch {status['torch']}, own virtual environment): "
            f"{config['sgd_epochs']} epochs, Poisson sampling with expected batch {config['sgd_batch']}, "
            f"clip norm 1, PRV accountant, weight decay Lam, trained on {rows} rows; learning rate tuned "
            f"NON-privately on fold 0 by test error, grid {config['sgd_learning_rates']}: "
            + ", ".join(f"eps {e}: {v:g}" for e, v in tuning["chosen"].items()) + ".")


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


STYLES = {"nonprivate": ("k", "--"), "objective-pure": ("tab:blue", "-"), "objective-gauss": ("tab:green", "-"),
          "objective-kst12": ("tab:purple", ":"), "output-gauss": ("tab:orange", "-"), "dpgd": ("tab:red", "-."),
          "objective-amp": ("tab:brown", "--"), "dpsgd": ("tab:cyan", "-.")}


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _panel(ax, output: dict, data_key: str, loss_name: str, result: dict) -> None:
    """Test error against epsilon of every method that ran (mean ± sd over folds x draws)."""
    config = output["config"]
    summary, epsilons = result["summary"], config["epsilons"]
    for method in METHODS:
        if method not in summary:
            continue
        cells = ([summary[method]["-"]] * len(epsilons) if method == "nonprivate"
                 else [summary[method][str(e)] for e in epsilons])
        if all(c["mean"] is None for c in cells):
            continue  # refused or not run: named in the results table, not drawn
        means = np.array([c["mean"] if c["mean"] is not None else np.nan for c in cells])
        sds = np.array([c["std"] or 0.0 for c in cells])
        color, line = STYLES[method]
        ax.errorbar(epsilons, means, yerr=sds, fmt=line, color=color, marker="o", ms=3, capsize=2,
                    label=LABELS[method])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon (delta = 1/n^2 for every (eps, delta) method)")
    ax.set_ylabel("test error (mean ± sd)")
    relation = config["neighbours"].split(" ")[0]
    ax.set_title(f"{data_key.split('/')[0]}, {loss_name}, {relation}, Lam = {config['lam']:.3g}\n"
                 f"{result['folds_done']}/{config['folds']} folds x {config['draws']} draws", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)


def plot(output: dict, directory: Path, stem: str) -> list[str]:
    plt = _pyplot()
    if plt is None:
        return []
    files = []
    for data_key, per_loss in output["results"].items():
        fig, axes = plt.subplots(1, len(per_loss), figsize=(6.2 * len(per_loss), 4.6), squeeze=False)
        for ax, (loss_name, result) in zip(axes[0], per_loss.items(), strict=True):
            _panel(ax, output, data_key, loss_name, result)
        quick = "QUICK MODE: " if output.get("quick") else ""
        fig.suptitle(f"{quick}step sizes of DP-GD and DP-SGD tuned non-privately", fontsize=9)
        fig.tight_layout()
        path = directory / f"{stem}_{data_key.split('/')[0]}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(path.name)
    return files


def docs_plot(stem: str, paths: list[Path]) -> list[str]:
    """One figure per data set from recorded JSON files, a panel per (file, loss): ``stem_<data>.png``."""
    plt = _pyplot()
    if plt is None:
        raise SystemExit("matplotlib is needed for --docs-plot")
    panels: dict = {}
    for path in paths:
        output = json.loads(Path(path).read_text())
        for data_key, per_loss in output["results"].items():
            for loss_name, result in per_loss.items():
                panels.setdefault(data_key.split("/")[0], []).append((output, data_key, loss_name, result))
    files = []
    for data_name, items in panels.items():
        fig, axes = plt.subplots(1, len(items), figsize=(6.2 * len(items), 4.8), squeeze=False)
        for ax, item in zip(axes[0], items, strict=True):
            _panel(ax, *item)
        fig.suptitle("python -m benchmarks.delta_mechanisms; step sizes of DP-GD and DP-SGD tuned non-privately",
                     fontsize=9)
        fig.tight_layout()
        target = Path(f"{stem}_{data_name}.png")
        target.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(target, dpi=100)
        plt.close(fig)
        files.append(str(target))
    return files


NOTES = [
    "Neighbour relation: as stated in the configuration (--neighbours). Under replace-one (n public) the "
    "issue's add/remove anchors (Adult .185 / aim .180 at eps 0.1, DP-GD .184) are not comparable: "
    "replace-one needs about twice the noise. Under add-remove every private method is calibrated for one "
    "record added or removed, with the training-fold size as the public n_public (DP-GD: averaged-gradient "
    "sensitivity L R / n); the pure-epsilon method is replace-one only and is refused there.",
    "DP-GD: F(w) = mean logistic (or Huber) loss + Lam/2 ||w||^2 from w = 0, T full-batch steps, averaged-gradient "
    "sensitivity 2 L R / n (L = R = 1), Gaussian noise per step, RDP composition and the improved conversion "
    "(benchmarks/dpgd.py); the LAST iterate is released. Its step size was chosen per (data set, loss, epsilon) "
    "on fold 0 by test error: NOT private (the dpcvx mechanisms have no tuned hyperparameter here). The "
    "noise multiplier is the smallest that meets (epsilon, delta) for T steps.",
    "Lam is fixed for every method, including the non-private reference; it is not tuned privately (the "
    "value of each run was chosen by the authors, for KDD from benchmarks/kdd_pipeline.py's table: NOT private).",
    "Huber hinge (h = 0.5): Gaussian objective perturbation (and KST12, AMP) is refused by dpcvx because the loss "
    "is only piecewise C^2 (the Jacobian argument of the (eps, delta) analyses needs l'' to exist everywhere); "
    "pure-eps objective perturbation covers it by the JMLR 2011 argument (replace-one), and output perturbation "
    "(analytic Gaussian) needs only the Lipschitz constant.",
    "objective-amp: Iyengar et al. (2019) constants (eps1 = 0.99 eps, eps3 = eps1/2, Lambda = 2 c R^2/(eps1 - eps3), "
    "s1 = (2 L R/n)(1 + sqrt(2 ln(1/delta1)))/eps3, gradient threshold 1/n^2), the output noise for the corrected "
    "sensitivity 2 n gamma / Lambda by the analytic Gaussian; no hyperparameter tuned.",
    "dpsgd: Opacus DP-SGD (benchmarks/dpsgd_opacus.py) in its own virtual environment (torch is no dependency of "
    "dpcvx): linear model without bias, zero start, Poisson sampling, per-example clipping at 1 (never binding: "
    "rows have norm <= 1 and |l'| <= 1), PRV accountant for (eps, delta) over the fixed epochs, weight decay = Lam, "
    "last iterate released; learning rate tuned NON-privately on fold 0 by test error. Opacus accounts for "
    "add/remove neighbours only, so it is not run under replace-one (stated in the table).",
    "objective-kst12: PrivateERM with its Gaussian objective calibration replaced by the KST12 constants "
    "for replace-one (sigma = 2 L R sqrt(8 ln(2/delta) + 4 eps)/eps, smallest KST12 ridge) at the same budget "
    "share; the approximate-minimiser cover is dpcvx's.",
    "dpcvx fits are exact to dpcvx's tolerance; fit times include calibration and noise (a one-off warm-up fit "
    "per learner, outside the timings, pays the loss verification). "
    "DP-GD time is T gradient steps plus the noise-multiplier search.",
]


def docs_table(paths: list[Path], compact: bool = False) -> str:
    """The tables of docs/mechanisms.md (mean ± sd per method and epsilon) from recorded JSON files.

    ``compact``: the error table and the tuned step sizes only (no timings, no noise-norm table).
    """
    lines = []
    for path in paths:
        output = json.loads(Path(path).read_text())
        config = output["config"]
        epsilons = config["epsilons"]
        for data_key, per_loss in output["results"].items():
            for loss_name, result in per_loss.items():
                summary = result["summary"]
                lines += [f"{data_key}, {loss_name} ({Path(path).name}: {result['folds_done']}/{config['folds']} "
                          f"folds x {config['draws']} draws, Lam = {config['lam']:.4g}, delta = 1/n^2):", ""]
                header = ["method"] + [f"eps = {eps:g}" for eps in epsilons]
                lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                for method in (m for m in METHODS if m in summary):
                    cells = ([summary[method]["-"]] * len(epsilons) if method == "nonprivate"
                             else [summary[method][str(eps)] for eps in epsilons])
                    lines.append("| " + " | ".join([LABELS[method]] + [_cell(c) for c in cells]) + " |")
                chosen = result["dpgd_tuning"]["chosen"]
                lines += ["", "DP-GD step sizes (tuned non-privately): "
                          + ", ".join(f"eps {e}: {v:g}" for e, v in chosen.items()) + ".", ""]
                if "dpsgd" in summary:
                    lines += [_dpsgd_line(output, result), ""]
                if compact:
                    continue
                seconds = {method: np.mean([c["seconds_mean"] for c in summary[method].values()])
                           for method in METHODS if method in summary}
                lines += ["Mean wall seconds per fit (BLAS threads pinned to 1; run time of the whole file "
                          f"{output['run']['run_seconds']:.0f} s): "
                          + ", ".join(f"{method} {value:.2f}" for method, value in seconds.items()) + ".", ""]
                d = output["data"][data_key]["d"]
                lines += [f"Objective noise b at d = {d} (fold 0 calibrations): pure eps E||b|| = d / beta, "
                          "Gaussian E||b|| ~ sigma sqrt(d); the pure-eps noise is the smaller one for "
                          "d < (sigma beta)^2:", "",
                          "| eps | beta (pure) | d / beta | sigma (Gaussian) | sigma sqrt(d) | (sigma beta)^2 |",
                          "|---|---|---|---|---|---|"]
                for eps in epsilons:
                    pure = result["calibrations"]["objective-pure"][str(eps)]
                    gauss = result["calibrations"]["objective-gauss"][str(eps)]
                    if "beta" not in pure or "sigma" not in gauss:
                        continue
                    beta, sigma = pure["beta"], gauss["sigma"]
                    lines.append(f"| {eps:g} | {beta:.4g} | {d / beta:.0f} | {sigma:.4g} | {sigma * d ** 0.5:.0f} | "
                                 f"{(sigma * beta) ** 2:.0f} |")
                lines.append("")
    return "\n".join(lines)


def main(argv=None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["--docs-table"], ["--docs-compact"]):
        print(docs_table([Path(p) for p in argv[1:]], compact=argv[0] == "--docs-compact"))
        return {}
    if argv[:1] == ["--docs-plot"]:
        print("\n".join(docs_plot(argv[1], [Path(p) for p in argv[2:]])))
        return {}
    args = parse_args(argv)
    record = common.RunRecord("benchmarks.delta_mechanisms", argv)
    output: dict = {"tag": args.tag, "quick": args.quick, "config": {
        "folds": args.folds, "folds_run": args.folds_run, "draws": args.draws, "lam": args.lam,
        "epsilons": args.epsilons, "delta": "1/n^2 (n = training-fold size)", "mode": args.mode,
        "losses": args.losses, "kdd_rows": args.kdd_rows, "seed": args.seed, "threads": args.threads,
        "dpgd_steps": args.steps, "step_sizes": args.step_sizes, "dpgd_release": "last iterate",
        "dpgd_init": "w = 0",
        "neighbours": "replace-one (n public)" if args.neighbours == "replace-one"
        else "add-remove (n_public = training-fold size)",
        "tuned_non_privately": ["DP-GD step size (fold 0, test error)",
                                "DP-SGD learning rate (fold 0, test error)"],
        "fixed": ["Lam", "DP-GD T", "dpcvx tol and split='max' (defaults)", "DP-SGD epochs, batch, clip norm"],
        "sgd_epochs": args.sgd_epochs, "sgd_batch": args.sgd_batch, "sgd_learning_rates": args.sgd_learning_rates,
        "sgd_max_rows": args.sgd_max_rows,
    }, "data": {}, "results": {}, "notes": NOTES, "complete": False}
    args.opacus_status = opacus_status(args.opacus_python)
    output["opacus"] = args.opacus_status
    with common.limit_threads(args.threads):
        output["run_threads"] = common.thread_settings()
        for name in args.datasets:
            data = common.load_data(name, args.mode, kdd_rows=args.kdd_rows, seed=args.seed, max_rows=args.max_rows)
            folds = common.kfold(data.X.shape[0], args.folds, args.seed)
            output["data"][data.key] = {"description": data.description, "n": int(data.X.shape[0]),
                                        "d": int(data.X.shape[1]),
                                        "positive_fraction": float(np.mean(data.y > 0))}
            output["results"][data.key] = {}
            for loss_name in args.losses:
                def save(result, key=data.key, loss_name=loss_name):
                    output["results"][key][loss_name] = result
                    _write(output, record, args)

                run_dataset_loss(data, loss_name, args, folds, on_fold=save)
    output["complete"] = True
    _write(output, record, args)
    return output


def _write(output: dict, record: common.RunRecord, args) -> None:
    """Write JSON, Markdown and plots of what has run so far (after every fold: a stopped run keeps its folds)."""
    output["run"] = record.finish()
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"delta_mechanisms_{args.tag}"
    output["plots"] = [] if args.no_plots else plot(output, args.out, stem)
    common.write_json(args.out / f"{stem}.json", output)
    (args.out / f"{stem}.md").write_text(markdown(output) + "".join(
        f"\n![error vs epsilon]({name})\n" for name in output["plots"]))
    print(f"[delta_mechanisms] wrote {args.out / stem}.json/.md ({output['run']['run_seconds']} s so far)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
