"""Markdown tables and plots from the recorded benchmark JSON files.

Every number printed here is read from a result file written by
:mod:`benchmarks.reproduce_jmlr` or :mod:`benchmarks.speed`; nothing is typed
in by hand except the paper's published numbers (:mod:`benchmarks.common`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

from benchmarks import common
from benchmarks.tuning_kdd import error_table

REPRODUCTION_NOTES = [
    "Lam is chosen per epsilon (and per method) by the mean test error over folds and draws, as in the "
    "paper's figures: that selection looks at the test data and is NOT private. Private tuning "
    "(JMLR 2011, Algorithm 4) is a separate benchmark.",
    "mode=paper scales every column by its maximum over the data and one-hot encodes the categories "
    "present (the paper's preprocessing): it reads the data, so its guarantee does not cover the "
    "preprocessing. mode=private uses public bounds only (docs/datasets.md).",
    "Rows carry a constant feature (inside the norm bound R = 1 and the regularizer); no method fits a "
    "separate intercept.",
    "sklearn: LogisticRegression(C = 1/(n Lam), fit_intercept=False, solver='lbfgs'), defaults "
    "tol=1e-4, max_iter=100: non-private, the same objective J as dpcvx's non-private fit; its "
    "residual shows how far from the exact minimiser its stopping rule leaves it.",
    "diffprivlib 0.6.6: LogisticRegression(epsilon, data_norm=1, C = 1/(n Lam), fit_intercept=False). "
    "Known pitfall (REFERENCE.md): it uses c*q where the Jacobian bound needs c*q^2 for rows of norm q, "
    "and with its default fit_intercept=True it perturbs an unregularized intercept; both break the "
    "proof. Here q = 1 and the intercept is off, so neither bites and its calibration equals the "
    "paper's split; but its lbfgs (pgtol 1e-4, at most 100 iterations) releases an approximate "
    "minimiser, which the proof does not cover (residuals recorded, noise reconstructed from its own "
    "Vector mechanism and seed).",
    "Output perturbation: one exact solve per (fold, Lam, loss), then each draw only adds noise "
    "(the released point is exactly what PrivateERM.fit releases). Its fit time is the time of one "
    "such draw.",
    "Objective perturbation: one Newton solve per draw, started at the fold's non-private minimiser "
    "(PrivateERM.fit(..., warm_start=)): the perturbed problem has a unique minimiser and every "
    "release meets the residual tolerance, so the start changes only the solver's path. Where the "
    "paper split and split='max' give identical eps', Delta and beta, they are the same mechanism: "
    "the draws are computed once and shared (count in 'shared'); elsewhere both use the same seed.",
    "diffprivlib is run for fewer noise draws per fold than dpcvx (config 'peer_draws'; 10 in the "
    "full run, against K = 50) to keep the full run within a few hours; its cells average over "
    "folds x peer_draws fits.",
    "Spread: sd is the standard deviation of the test error over all folds x draws of a cell; "
    "sem = sd / sqrt(count) (optimistic: draws of one fold share its data).",
    "Huber hinge: neither scikit-learn nor diffprivlib has it; only dpcvx rows.",
    "'[k refused]': dpcvx raised SolverError (relative residual above tol = 1e-9) and released nothing "
    "for k of the fits of that cell; the mean and sd are over the fits that were released. With the "
    "Huber hinge at small Lam the Newton solver's stall test can stop it far from the optimum (see the "
    "benchmark report); a refused exact solve also refuses every output-perturbation draw built on it.",
]

METHOD_LABELS = {
    "nonprivate": "dpcvx non-private",
    "output": "dpcvx output pert.",
    "objective-paper": "dpcvx objective pert. (paper split)",
    "objective-max": "dpcvx objective pert. (split=max)",
    "sklearn": "scikit-learn LR (non-private)",
    "diffprivlib": "diffprivlib LR (objective pert.)",
}
LOSS_LABELS = {"logistic": "LR", "huber": "Huber"}
PAPER_METHOD = {"nonprivate": "nonprivate", "output": "output", "objective-paper": "objective",
                "objective-max": "objective", "sklearn": "nonprivate", "diffprivlib": "objective"}


class Cells:
    """Index of a reproduction run's cells by (data, loss, method, Lam index, epsilon)."""

    def __init__(self, output: dict):
        self.output = output
        self.index = {(c["data"], c["loss"], c["method"], c["lam_index"], c["epsilon"]): c
                      for c in output["cells"]}
        self.lam_indices = output["config"]["lam_indices"]
        self.epsilons = output["config"]["epsilons"]

    def get(self, data, loss, method, lam_index, epsilon):
        eps = None if method in ("nonprivate", "sklearn") else epsilon
        return self.index.get((data, loss, method, lam_index, eps))

    def methods(self, data, loss) -> list[str]:
        present = {key[2] for key in self.index if key[0] == data and key[1] == loss}
        return [m for m in METHOD_LABELS if m in present]

    def best(self, data, loss, method, epsilon):
        """The cell with the lowest mean error over the Lam grid at this epsilon."""
        candidates = [self.get(data, loss, method, i, epsilon) for i in self.lam_indices]
        candidates = [c for c in candidates if c and c["error"].get("count")]
        return min(candidates, key=lambda c: c["error"]["mean"]) if candidates else None


def _mean_sd(cell) -> str:
    """mean ± sd of the test error; fits dpcvx refused (SolverError) are named, never hidden."""
    refused = f" [{cell['failures']} refused]" if cell and cell.get("failures") else ""
    if not cell or not cell["error"].get("count"):
        return "n/a" + refused
    e = cell["error"]
    return f"{e['mean']:.4f} ± {e['std']:.4f}{refused}"


def _lam_label(index: int) -> str:
    return common.LAM_LABELS[index]


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _closeness(ours: dict, paper: float) -> str:
    """How far the paper's number is from our mean, in units of our spread."""
    if not ours or not ours.get("count"):
        return "n/a"
    diff = ours["mean"] - paper
    sd = ours["std"]
    where = "within 1 sd" if abs(diff) <= sd else ("within 2 sd" if abs(diff) <= 2 * sd else "outside 2 sd")
    return f"{diff:+.4f} ({where})"


def run_header(output: dict, title: str) -> str:
    run = output["run"]
    mode = ("QUICK MODE (not the recorded full run): " if output.get("quick") else "")
    threads = run["threads"]["environment"]
    pools = ", ".join(f"{p['internal_api']}={p['num_threads']}" for p in run["threads"]["threadpools"])
    lines = [
        f"**{mode}{title}**",
        "",
        f"- command: `{run['command']}`",
        f"- date (UTC): {run['date_utc']}; run time {run['run_seconds']:.0f} s",
        f"- machine: {run['machine']['cpu_model']}, {run['machine']['cores']} cores; `{run['machine']['uname']}`",
        f"- load average (1/5/15 min) at start {run['load_average_start']}, at end {run['load_average_end']} "
        "(other jobs shared the machine when above the core count: timings are inflated)",
        f"- threads: OPENBLAS_NUM_THREADS={threads.get('OPENBLAS_NUM_THREADS')}; thread pools in use: {pools or 'n/a'}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in run["versions"].items() if v),
        f"- git commit: {run.get('git_commit')}",
    ]
    return "\n".join(lines)


# -- reproduction ------------------------------------------------------------------------------------


def targets_table(output: dict, marked: Iterable[str] = ()) -> str:
    """Objective perturbation at eps = 0.1 against the issue's targets, every data set and mode; the "data/mode"
    keys in ``marked`` get a dagger (rows of an earlier loader, :func:`benchmarks.common.stale_loads`)."""
    marked = set(marked)
    cells = Cells(output)
    rows = []
    for data_key in output["data"]:
        name = data_key.split("/")[0]
        for loss in ("logistic", "huber"):
            if (name, loss) not in common.TARGETS or 0.1 not in cells.epsilons:
                continue
            paper, lam_index = common.TARGETS[(name, loss)]
            for method in ("objective-paper", "objective-max", "diffprivlib"):
                if method not in cells.methods(data_key, loss):
                    continue
                if lam_index is None:
                    cell = cells.best(data_key, loss, method, 0.1)
                    where = f"best Lam ({_lam_label(cell['lam_index'])})" if cell else "best Lam"
                else:
                    if lam_index not in cells.lam_indices:
                        continue
                    cell = cells.get(data_key, loss, method, lam_index, 0.1)
                    where = f"Lam {_lam_label(lam_index)} (paper's)"
                e = cell["error"] if cell else {}
                label = data_key + (" †" if data_key in marked else "")
                rows.append([label, LOSS_LABELS[loss], METHOD_LABELS[method], where, f"{paper:.4f}",
                             _mean_sd(cell), str(e.get("count", 0)), _closeness(e, paper)])
    if not rows:
        return ""
    return _table(["data/mode", "loss", "method", "Lam", "paper", "ours mean ± sd", "n", "ours - paper"], rows)


def adult_table(output: dict, data_key: str) -> str:
    """Adult at eps = 0.1 for every Lam: ours (mean ± sd) and the paper's number."""
    cells = Cells(output)
    if 0.1 not in cells.epsilons:
        return ""
    header = ["loss", "method"] + [f"Lam {_lam_label(i)}" for i in cells.lam_indices]
    rows = []
    for loss in ("logistic", "huber"):
        for method in cells.methods(data_key, loss):
            row = [LOSS_LABELS[loss], METHOD_LABELS[method]]
            for i in cells.lam_indices:
                cell = cells.get(data_key, loss, method, i, 0.1)
                paper = common.PAPER_ADULT_EPS01.get((loss, PAPER_METHOD[method]))
                text = _mean_sd(cell)
                if paper is not None:
                    text += f" ({paper[i]:.4f})"
                row.append(text)
            rows.append(row)
    return _table(header, rows)


def kdd_table(output: dict, data_key: str) -> str:
    """KDD at eps = 0.1: best Lam per method, beside the paper's best numbers."""
    cells = Cells(output)
    if 0.1 not in cells.epsilons:
        return ""
    rows = []
    for loss in ("logistic", "huber"):
        for method in cells.methods(data_key, loss):
            cell = cells.best(data_key, loss, method, 0.1)
            paper = common.PAPER_KDD_BEST_EPS01.get((loss, PAPER_METHOD[method]))
            rows.append([LOSS_LABELS[loss], METHOD_LABELS[method],
                         _lam_label(cell["lam_index"]) if cell else "n/a", _mean_sd(cell),
                         "—" if paper is None else f"{paper:.4f}",
                         "—" if paper is None or not cell else _closeness(cell["error"], paper)])
    return _table(["loss", "method", "best Lam", "ours mean ± sd", "paper", "ours - paper"], rows)


def best_lam_table(output: dict, data_key: str) -> str:
    """Error against epsilon at the best Lam per epsilon (chosen by test error: not private)."""
    cells = Cells(output)
    header = ["loss", "method"] + [f"eps {e:g}" for e in cells.epsilons]
    rows = []
    for loss in ("logistic", "huber"):
        for method in cells.methods(data_key, loss):
            row = [LOSS_LABELS[loss], METHOD_LABELS[method]]
            for eps in cells.epsilons:
                cell = cells.best(data_key, loss, method, eps)
                row.append(f"{_mean_sd(cell)} @{_lam_label(cell['lam_index'])}" if cell else "n/a")
            rows.append(row)
    return _table(header, rows)


def cost_table(output: dict) -> str:
    """Median fit time and largest residual per method, data set and loss."""
    groups: dict = {}
    for c in output["cells"]:
        key = (c["data"], c["loss"], c["method"])
        g = groups.setdefault(key, {"seconds": [], "residual": 0.0, "failures": 0, "shared": 0, "count": 0,
                                    "not_converged": 0})
        if c["fit_seconds_median"] is not None:
            g["seconds"].append(c["fit_seconds_median"])
        if c["residual_max"] is not None:
            g["residual"] = max(g["residual"], c["residual_max"])
        g["failures"] += c["failures"]
        g["shared"] += c["shared_with_max_split"]
        g["count"] += c["error"].get("count", 0)
        g["not_converged"] += c["not_converged"]
    rows = []
    for (data, loss, method), g in groups.items():
        seconds = sorted(g["seconds"])
        median = seconds[len(seconds) // 2] if seconds else math.nan
        rows.append([data, LOSS_LABELS[loss], METHOD_LABELS[method], f"{median:.3f}", f"{g['residual']:.1e}",
                     str(g["count"]), str(g["shared"]), str(g["failures"]), str(g["not_converged"])])
    return _table(["data/mode", "loss", "method", "median fit s (median over cells)", "largest residual",
                   "fits", "shared (paper = max)", "refused (SolverError)", "solver warnings"], rows)


def reproduction_markdown(output: dict) -> str:
    config = output["config"]
    parts = [
        "# Reproduction of JMLR 2011, Section 7" + (" (quick mode)" if output.get("quick") else ""),
        "",
        run_header(output, f"{config['folds_run']} of {config['folds']} folds x K = {config['draws']} "
                           f"noise draws (diffprivlib: {config.get('peer_draws', config['draws'])}), "
                           f"{config['jobs']} processes"),
        "",
        "Data: " + "; ".join(f"{k}: n = {v['n']}, d = {v['d']} ({v['description']})"
                             for k, v in output["data"].items()),
        "",
        "Peers run: " + (", ".join(output["peers"]["run"]) or "none")
        + "".join(f"; skipped {k}: {v}" for k, v in output["peers"]["skipped"].items()),
        "",
    ]
    targets = targets_table(output)
    if targets:
        parts += ["## Objective perturbation at eps = 0.1 against the paper", "",
                  "Adult at the paper's Lam = 10^-2.5; KDD at the best Lam of the grid (the paper reports its best).",
                  "", targets, ""]
    for data_key in output["data"]:
        name = data_key.split("/")[0]
        if name == "adult":
            parts += [f"## {data_key}: test error at eps = 0.1, every Lam (paper's number in brackets)", "",
                      adult_table(output, data_key), ""]
        elif name == "kdd":
            parts += [f"## {data_key}: best test error over Lam at eps = 0.1", "", kdd_table(output, data_key), ""]
        parts += [f"## {data_key}: test error against epsilon, best Lam per epsilon (not a private choice)", "",
                  best_lam_table(output, data_key), ""]
        for plot in output.get("plots", {}).get(data_key, []):
            parts += [f"![{data_key}]({Path(plot).name})", ""]
    parts += ["## Cost and exactness", "", cost_table(output), ""]
    estimate = output.get("full_run_estimate")
    if estimate:
        parts += [f"Estimated full run (10 folds x K = 50 x 7 epsilons, 2 processes): about "
                  f"{estimate['cpu_hours_with_2_jobs']} h on a quiet machine (from CPU time), "
                  f"{estimate['wall_hours_with_2_jobs']} h at this run's load (from wall time); "
                  f"{estimate['method']}.", ""]
    parts += ["## Notes", ""] + [f"- {note}" for note in output["notes"]] + [""]
    return "\n".join(parts)


def plot_reproduction(output: dict, directory: Path, stem: str) -> dict:
    """One PNG per data set and mode: error against epsilon, best Lam per epsilon, mean ± sd band."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {}
    cells = Cells(output)
    config = output["config"]
    styles = {"nonprivate": ("k", "--"), "sklearn": ("0.5", ":"), "output": ("tab:orange", "-"),
              "objective-paper": ("tab:blue", "-"), "objective-max": ("tab:green", "-."),
              "diffprivlib": ("tab:red", "-")}
    files: dict = {}
    for data_key in output["data"]:
        losses = [loss for loss in ("logistic", "huber") if cells.methods(data_key, loss)]
        if not losses:
            continue
        fig, axes = plt.subplots(1, len(losses), figsize=(6.2 * len(losses), 4.6), squeeze=False)
        for ax, loss in zip(axes[0], losses, strict=True):
            for method in cells.methods(data_key, loss):
                means, lows, highs = [], [], []
                for eps in cells.epsilons:
                    cell = cells.best(data_key, loss, method, eps)
                    e = cell["error"] if cell else {}
                    mean = e.get("mean", math.nan)
                    sd = e.get("std", 0.0)
                    means.append(mean)
                    lows.append(max(mean - sd, 1e-4))
                    highs.append(mean + sd)
                color, line = styles[method]
                ax.plot(cells.epsilons, means, line, color=color, marker="o", ms=3, label=METHOD_LABELS[method])
                ax.fill_between(cells.epsilons, lows, highs, color=color, alpha=0.15, lw=0)
            name = data_key.split("/")[0]
            for paper_method, marker in (("objective", "*"), ("output", "s"), ("nonprivate", "D")):
                value = None
                if name == "adult" and (loss, paper_method) in common.PAPER_ADULT_EPS01:
                    value = min(common.PAPER_ADULT_EPS01[(loss, paper_method)])
                elif name == "kdd":
                    value = common.PAPER_KDD_BEST_EPS01.get((loss, paper_method))
                if value is not None:
                    ax.plot([0.1], [value], marker, color="purple", ms=9, mfc="none",
                            label=f"paper {paper_method}, eps 0.1 (best Lam)")
            positive = output["data"][data_key]["positive_fraction"]
            ax.axhline(min(positive, 1 - positive), color="0.6", lw=0.8,
                       label="majority class (predict one label)")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("epsilon")
            ax.set_ylabel("test error (mean ± sd over folds x draws)")
            ax.set_title(f"{data_key}, {LOSS_LABELS[loss]}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        quick = "QUICK MODE: " if output.get("quick") else ""
        fig.suptitle(f"{quick}{config['folds_run']}/{config['folds']} folds x K={config['draws']}; "
                     "Lam chosen per epsilon by test error (not private, as in the paper's figures)", fontsize=9)
        fig.tight_layout()
        path = directory / f"{stem}_{data_key.replace('/', '_')}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files[data_key] = [str(path.relative_to(directory.parent)) if directory.parent in path.parents
                           else path.name]
    return files


# -- speed -------------------------------------------------------------------------------------------------


def speed_markdown(output: dict) -> str:
    config = output["config"]
    parts = [
        "# Fit time and residual: dpcvx against scikit-learn and diffprivlib" +
        (" (quick mode)" if output.get("quick") else ""),
        "",
        run_header(output, f"{config['repeats']} interleaved repetitions per size in one process, "
                           f"Lam = {config['lam']:.4g}, eps = {config['epsilon']:g}, "
                           f"{config['threads']} BLAS thread(s)"),
        "",
        "Peers run: " + (", ".join(output["peers"]["run"]) or "none")
        + "".join(f"; skipped {k}: {v}" for k, v in output["peers"]["skipped"].items()),
        "",
        "## Time ratios (median over repetitions of the per-repetition ratio, [25th, 75th percentile])", "",
        "A ratio above 1 means the dpcvx fit takes longer than the peer's.", "",
        ratio_table(output), "",
        "## Median fit seconds and relative optimality residual of each method's own objective", "",
        times_table(output), "",
    ]
    estimate = output.get("full_run_estimate")
    if estimate and output.get("quick"):
        parts += [f"Estimated full speed run: about {estimate['wall_minutes']} min ({estimate['method']}).", ""]
    parts += [
        "## Notes", "",
    ] + [f"- {note}" for note in output["notes"]] + [""]
    return "\n".join(parts)


def _keys_in_order(entries: list[dict], field: str) -> list[str]:
    """The keys of ``entry[field]`` over all entries, each once, in order of first appearance."""
    return list(dict.fromkeys(key for entry in entries for key in entry[field]))


def ratio_table(output: dict) -> str:
    """One row per (data, n), one column per ratio: median [25th, 75th percentile]."""
    columns = _keys_in_order(output["sizes"], "ratios")
    rows = []
    for entry in output["sizes"]:
        row = [entry["data"], str(entry["n"]), str(entry["d"]), str(entry.get("repeats", ""))]
        for name in columns:
            stats = entry["ratios"].get(name)
            row.append(f"{stats['median']:.2f} [{stats['p25']:.2f}, {stats['p75']:.2f}]" if stats else "—")
        rows.append(row)
    short = [name.replace("dpcvx ", "").replace(" lbfgs", "") for name in columns]
    return _table(["data", "n", "d", "reps"] + short, rows)


def times_table(output: dict) -> str:
    rows = []
    for entry in output["sizes"]:
        for method, stats in entry["methods"].items():
            rows.append([entry["data"], str(entry["n"]), method, f"{stats['seconds_median']:.4f}",
                         f"[{stats['seconds_min']:.4f}, {stats['seconds_max']:.4f}]",
                         f"{stats['residual_median']:.1e}", str(stats.get("iterations_median", "")),
                         stats.get("what", "")])
    return _table(["data", "n", "method", "median s", "[min, max] s", "residual (median)", "iterations",
                   "what is timed"], rows)


# -- results page section --------------------------------------------------------------------------------------


def _link(path: str | Path) -> str:
    """A Markdown link to a file, its path (relative to the repository root) as the text."""
    text = Path(path).as_posix()
    return f"[`{text}`]({text})"


def tuning_section(tuning: dict, file: str) -> str:
    """Private tuning on KDD (benchmarks/tuning_kdd.py): test error against n, with its plot."""
    lines = [
        f"### End-to-end private tuning on KDD Cup 99 (`{file}`)",
        "",
        f"Algorithm 4 of JMLR 2011 over {len(tuning['lams'])} Lam values; learner "
        f"`{tuning['learner']}`; test error, mean (std) over "
        f"{tuning['repetitions']} repetitions; run time {tuning['run_time_seconds']:.0f} s; "
        f"command `{tuning['command']}`. Plot: {_link(Path(file).with_suffix('.png'))}.",
        "",
        error_table(tuning["results"]),
    ]
    return "\n".join(lines) + "\n"


KERNEL_ROWS = (("tddl_gaussian", "TDDL, cubic kernel, delta = 1e-6"), ("tddl_laplace", "TDDL, cubic kernel, pure eps"),
               ("rff_objective:g1_D100", "objective pert. on RFF (D = 100)"),
               ("linear_objective", "linear objective pert."), ("kernel_nonprivate", "cubic kernel, non-private"),
               ("linear_nonprivate", "linear, non-private"))


def kernels_section(kernels: dict, file: str, epsilon: float = 1.0) -> str:
    """Kernel learners (benchmarks/kernels.py): accuracy against the input dimension."""
    best = {(row["setting"], row["method"], row["epsilon"]): row for row in kernels["best_over_lam"]}
    dims = kernels["config"]["dims"]
    stem = Path(file).with_suffix("").as_posix()
    lines = [
        f"### Kernel learners (`{file}`)",
        "",
        f"Synthetic task (n = {kernels['config']['synthetic_n']}, rows of norm 1), test accuracy at "
        f"eps = {epsilon:g}, best Lam of the grid, mean ± sd over {kernels['config']['reps']} repetitions; "
        f"command `{kernels['run']['command']}`. Plots: {_link(f'{stem}_eps.png')}, {_link(f'{stem}_dim.png')}; "
        "Adult and more in [`docs/kernels.md`](docs/kernels.md).",
        "",
        "| method | " + " | ".join(f"d = {d}" for d in dims) + " |",
        "|---|" + "---|" * len(dims),
    ]
    for method, label in KERNEL_ROWS:
        cells = []
        for d in dims:
            row = best.get((f"synthetic_d{d}", method, None if "nonprivate" in method else epsilon))
            cells.append("—" if row is None else f"{row['mean']:.3f} ± {row['std']:.3f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def reproduction_readme_section(reproduction: dict, file: str, full_scope: bool = True) -> list[str]:
    """Results-page lines of one recorded reproduction: record, plots, targets, per-data-set tables."""
    config = reproduction["config"]
    run = reproduction["run"]
    quick = "quick mode, " if reproduction.get("quick") else ""
    scope = "" if full_scope else ", ".join(reproduction["data"]) + "; "
    parts = [
        f"### Accuracy ({quick}{scope}{config['folds_run']} of {config['folds']} folds x K = {config['draws']} "
        f"draws; `{file}`)",
        "",
        f"Recorded {run['date_utc']} on {run['machine']['cpu_model']} ({run['machine']['cores']} cores), "
        f"load average {run['load_average_start']}, run time {run['run_seconds']:.0f} s, "
        f"{config['jobs']} processes with {config['threads_per_process']} BLAS thread(s) each "
        f"(OPENBLAS_NUM_THREADS={run['threads']['environment'].get('OPENBLAS_NUM_THREADS')}), "
        f"command `{run['command']}`" + (f", at commit {run['git_commit'][:9]}." if run.get("git_commit") else "."),
        "",
    ]
    stale = common.stale_loads(reproduction["data"])
    if stale:
        parts += ["† Recorded with the data loaders of that commit, which differ from today's: "
                  + "; ".join(f"{key} had n = {n}, d = {d} (today {common.LOADED_SHAPES[key][0]} x "
                              f"{common.LOADED_SHAPES[key][1]})" for key, (n, d) in stale.items())
                  + ". These rows were not rerun with today's loaders; read them as that commit's numbers.", ""]
    plots = [plot for data_key in reproduction["data"] for plot in reproduction.get("plots", {}).get(data_key, [])]
    if plots:
        folder = Path(file).parent
        parts += ["Plots (error against epsilon, best Lam per epsilon): "
                  + ", ".join(_link(folder / Path(plot).name) for plot in plots) + ".", ""]
    targets = targets_table(reproduction, marked=stale)
    if targets:
        parts += ["Objective perturbation at eps = 0.1 against JMLR 2011 (test error, mean ± sd over "
                  "folds x draws):", "", targets, ""]
    for data_key in reproduction["data"]:
        if data_key.startswith("adult"):
            mark = " †" if data_key in stale else ""
            parts += [f"Adult ({data_key.split('/')[1]} mode){mark} at eps = 0.1, every Lam (paper in brackets):", "",
                      adult_table(reproduction, data_key), ""]
    for data_key in reproduction["data"]:
        if data_key.startswith("kdd"):
            mark = " †" if data_key in stale else ""
            parts += [f"KDD Cup 99 ({data_key.split('/')[1]} mode){mark} at eps = 0.1, best Lam:", "",
                      kdd_table(reproduction, data_key), ""]
    estimate = reproduction.get("full_run_estimate")
    if estimate and (config["folds_run"], config["draws"]) != (10, 50):
        parts += [f"Full run estimate (10 folds x K = 50 x 7 epsilons, 2 processes): about "
                  f"{estimate['cpu_hours_with_2_jobs']} h on a quiet machine (from CPU time), "
                  f"{estimate['wall_hours_with_2_jobs']} h at this run's load (from wall time); "
                  f"{estimate['method']}.", ""]
    return parts


def readme_section(reproductions: list[tuple[dict, str]], speed: dict | None, files: dict,
                   run_all: dict | None = None, tuning: dict | None = None,
                   kernels: dict | None = None) -> str:
    """The text between the results page's markers; ``reproductions``: (run, file), the main run first."""
    parts = [
        "Generated by `python -m benchmarks.render_results` from the files in `benchmarks/results/`; "
        "do not edit by hand. Environment, commands and method: `benchmarks/README.md`.",
        "",
        "Rerun the quick mode (every benchmark, then this section): "
        "`OPENBLAS_NUM_THREADS=1 python -m benchmarks.run_all --quick`.",
    ]
    if run_all:
        run = run_all["run"]
        parts[-1] += (f" Last run: {run['run_seconds']:.0f} s on {run['machine']['cpu_model']} "
                      f"({run['machine']['cores']} cores), load average "
                      f"{run['load_average_start']} at the start and {run['load_average_end']} at the end "
                      f"({run['date_utc']}).")
    parts += [
        "",
        "The full recorded runs (10 folds x K = 50 draws; speed up to all 494,021 KDD rows): "
        "`OPENBLAS_NUM_THREADS=1 python -m benchmarks.run_all`, on a quiet machine.",
        "",
    ]
    for index, (reproduction, file) in enumerate(reproductions):
        parts += reproduction_readme_section(reproduction, file, full_scope=index == 0)
    if speed:
        run = speed["run"]
        quick = "quick mode, " if speed.get("quick") else ""
        parts += [
            f"### Speed ({quick}`{files['speed']}`)",
            "",
            f"Recorded {run['date_utc']}, load average {run['load_average_start']} -> {run['load_average_end']} "
            f"on {run['machine']['cores']} cores (ratios from interleaved runs; absolute times are not "
            f"meaningful under load), one process with {speed['config']['threads']} BLAS thread(s) "
            f"(OPENBLAS_NUM_THREADS={run['threads']['environment'].get('OPENBLAS_NUM_THREADS')}), "
            f"Lam = {speed['config']['lam']:.4g}, eps = {speed['config']['epsilon']:g}, "
            f"command `{run['command']}`. Ratio = dpcvx fit time / peer fit time "
            "(median [25th, 75th percentile] over repetitions); above 1, dpcvx is slower.",
            "",
            ratio_table(speed),
            "",
            "Relative optimality residual of each method's own objective (median):",
            "",
            residual_summary(speed),
            "",
        ]
        estimate = speed.get("full_run_estimate")
        if estimate and speed.get("quick"):
            parts += [f"Full speed run estimate: about {estimate['wall_minutes']} min ({estimate['method']}).", ""]
    if tuning:
        parts += [tuning_section(tuning, files["tuning"])]
    if kernels:
        parts += [kernels_section(kernels, files["kernels"])]
    return "\n".join(parts).rstrip() + "\n"


def residual_summary(speed: dict) -> str:
    methods = _keys_in_order(speed["sizes"], "methods")
    rows = []
    for entry in speed["sizes"]:
        rows.append([entry["data"], str(entry["n"])] + [
            f"{entry['methods'][m]['residual_median']:.1e}" if m in entry["methods"] else "—" for m in methods])
    return _table(["data", "n"] + methods, rows)
