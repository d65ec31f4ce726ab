"""The utility cost of the floating-point-safe linear releases (``PrivateERM(..., float_safe=True)``).

UCI Adult (private mode: public bounds only, rows of norm <= 1), one seeded 80/20 train/test split,
logistic loss, Lam = 10^-2.5, epsilon = 0.1 pure and (0.1, 1/n^2) with n the training size. For
each release kind the float version of today (l2-Laplace or analytic Gaussian noise, rounded to
the grid 2^-30 of its scale: a mitigation) and the float-safe version (exact integer noise on a
public lattice) are fitted ``--draws`` times each with fresh seeded noise, through the public API
only. Reported per cell: test error and ||w_release - w~|| (w~ the non-private solve of the same
objective), mean with a 95 % interval (mean +- 1.96 sd / sqrt(draws)), and the difference
float-safe minus float with its 95 % interval (independent draws, normal approximation).

The (epsilon, delta) objective perturbation has no float-safe form (float_safe=True is refused there), so
it is not a cell.

    python -m benchmarks.float_safe_cost --draws 50
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks import common

LAM = 10**-2.5
EPSILON = 0.1
CELLS = (("output", "pure"), ("output", "delta"), ("objective", "pure"))


def interval(values: np.ndarray) -> tuple[float, float]:
    """(mean, half-width of the 95 % normal interval of the mean)."""
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(values.size))


def lattice_cost(c: dict) -> float:
    """How much the lattice terms enlarge the charged sensitivity, relative (from the recorded calibration).

    Output, pure: K_1 gamma_L / (sqrt(d) Delta_2) - 1. Output, Gaussian: sqrt(K_2) gamma_L / Delta_2 - 1.
    Objective: the larger of K_b gamma_b / (sqrt(d) 2 L R) - 1 (the dithered noise) and
    r / (gamma / (n (m Lam + Delta))) - 1 (the dither in the approximate-minimiser radius).
    """
    d = c["dim"]
    if c["mechanism"] == "output" and c["noise"] == "discrete-laplace":
        return c["lattice_l1_sensitivity"] * c["lattice"] / (math.sqrt(d) * c["sensitivity"]) - 1
    if c["mechanism"] == "output":
        return math.sqrt(c["lattice_l2_squared_sensitivity"]) * c["lattice"] / c["sensitivity"] - 1
    noise = c["noise_l1_sensitivity"] * c["noise_lattice"] / (math.sqrt(d) * 2 * c["L"] * c["R"]) - 1
    radius = c["gradient_tolerance"] / (c["n"] * (c["m"] * c["lam"] + c["extra_reg"]))
    return max(noise, c["dithered_radius"] / radius - 1)


def run(draws: int, seed: int, dataset: str = "adult") -> dict:
    data = common.load_data(dataset, "private")
    order = np.random.default_rng(seed).permutation(data.X.shape[0])
    cut = int(0.8 * order.size)
    train, test = np.sort(order[:cut]), np.sort(order[cut:])
    X, y, X_test, y_test = data.X[train], data.y[train], data.X[test], data.y[test]
    n = X.shape[0]
    reference = dpcvx.PrivateERM(lam=LAM, data_norm=1.0).fit_nonprivate(X, y).coef_
    rows = []
    for mechanism, privacy in CELLS:
        delta = 1.0 / n**2 if privacy == "delta" else 0.0
        for float_safe in (False, True):
            learner = dpcvx.PrivateERM(lam=LAM, data_norm=1.0, float_safe=float_safe)
            errors, distances = [], []
            for draw in range(draws):
                model = learner.fit(X, y, epsilon=EPSILON, mechanism=mechanism, delta=delta,
                                    random_state=common.int_seed(seed, CELLS.index((mechanism, privacy)),
                                                                 int(float_safe), draw))
                errors.append(float(np.mean(model.predict(X_test) != y_test)))
                distances.append(float(np.linalg.norm(model.coef_ - reference)))
            calibration = model.certificate.calibration.to_dict()
            rows.append({"mechanism": mechanism, "privacy": privacy, "delta": delta, "float_safe": float_safe,
                         "guarantee": calibration.get("float_guarantee"), "calibration": calibration,
                         "lattice_cost": lattice_cost(calibration) if float_safe else None,
                         "errors": errors, "distances": distances})
    nonprivate = float(np.mean(np.sign(X_test @ reference) != y_test))
    return {"data": data.description, "n_train": n, "n_test": int(X_test.shape[0]), "d": int(X.shape[1]), "lam": LAM,
            "epsilon": EPSILON, "draws": draws, "seed": seed, "nonprivate_error": nonprivate, "rows": rows}


def _cell(values: list[float], scale: float = 1.0, digits: int = 2) -> str:
    mean, half = interval(np.asarray(values) * scale)
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


def _difference(safe: list[float], plain: list[float], scale: float = 1.0, digits: int = 2) -> str:
    a, b = np.asarray(safe) * scale, np.asarray(plain) * scale
    half = 1.96 * math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return f"{a.mean() - b.mean():+.{digits}f} ± {half:.{digits}f}"


def markdown(result: dict) -> str:
    lines = [
        "# The utility cost of the floating-point-safe linear releases",
        "",
        f"{result['data']}; train n = {result['n_train']}, test {result['n_test']}, d = {result['d']}; logistic "
        f"loss, Lam = 10^-2.5, epsilon = {result['epsilon']}, delta = 1/n^2 for the (eps, delta) rows; "
        f"{result['draws']} noise draws per cell (seed {result['seed']}); non-private test error "
        f"{100 * result['nonprivate_error']:.2f} %. Intervals: 95 % (1.96 sd / sqrt(draws)); the difference is "
        "float-safe minus float, independent draws.",
        "",
        "| release | float guarantee (safe) | test error % float | test error % float-safe | difference (pp) "
        "| noise norm float | noise norm float-safe | norm ratio | lattice terms (relative) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    rows = result["rows"]
    for plain, safe in zip(rows[::2], rows[1::2], strict=True):
        name = f"{plain['mechanism']}, {'pure eps' if plain['privacy'] == 'pure' else '(eps, 1/n^2)'}"
        ratio = np.mean(safe["distances"]) / np.mean(plain["distances"])
        lines.append(
            f"| {name} | {safe['guarantee']} | {_cell(plain['errors'], 100)} | {_cell(safe['errors'], 100)} | "
            f"{_difference(safe['errors'], plain['errors'], 100)} | {_cell(plain['distances'], 1, 3)} | "
            f"{_cell(safe['distances'], 1, 3)} | {ratio:.3f} | {safe['lattice_cost']:.1e} |")
    lines += ["", "Noise norm: ||w_release - w~|| with w~ the non-private solve. Lattice terms: how much the "
              "rounding to the lattice (and, for objective perturbation, the dither) enlarges the charged "
              "sensitivity, relative; the rest of the cost is the mechanism (product discrete Laplace at the l1 "
              "bound sqrt(d) Delta_2; zCDP conversion in place of the analytic Gaussian).",
              "", "(eps, delta) objective perturbation has no float-safe form (float_safe=True is refused there).",
              "", f"Run: `{result['run']['command']}`, {result['run']['date_utc']}, "
              f"{result['run']['run_seconds']} s."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dataset", choices=("adult", "synthetic"), default="adult",
                        help="synthetic: the tiny data set of the benchmark tests")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    args = parser.parse_args(argv)
    record = common.RunRecord("benchmarks.float_safe_cost", argv)
    with common.limit_threads(1):
        result = run(args.draws, args.seed, args.dataset)
    result["run"] = record.finish()
    common.write_json(args.out / "float_safe_cost.json", result)
    (args.out / "float_safe_cost.md").write_text(markdown(result))
    print(markdown(result))
    return result


if __name__ == "__main__":
    main()
