"""The main job on a built-in default: synthetic data, verify, fit both mechanisms, report.

Nothing is downloaded. The data are a seeded two-class problem in d = 10
dimensions with rows of norm at most 1, so R = 1 is a true public bound.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import losses
from .data.files import atomic_write, check_writable
from .exceptions import ConstantPredictionWarning, InputError, NoiseDominatesWarning, TrainingRowsWarning
from .limits import DEMO_MAX_DRAWS, DEMO_MAX_N, DEMO_MAX_SEED, DEMO_MIN_N, SEED_MAX
from .models.erm import PrivateERM
from .privacy.rng import check_seed, seed_rule
from .validation import fraction, instance_of, integer
from .verification.verdict import Mechanism

__all__ = ["synthetic_classification", "DemoResult", "run_demo", "plot_demo", "demo_wrote", "DEMO_EPSILONS",
           "DEMO_PLOT", "DEMO_MIN_N", "DEMO_MAX_N", "DEMO_MAX_DRAWS", "DEMO_MAX_SEED"]

DEMO_EPSILONS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
DEMO_PLOT = "dpcvx-demo.png"  # the plot's default file, in the current directory
#: the PNG's Software text: a default plot path is replaced only when a demo wrote the file there (:func:`demo_wrote`)
PLOT_SOFTWARE = "dpcvx demo"
#: The findings a fit at the demo's smallest epsilons makes by design (the curve starts where the noise dominates):
#: gathered into one sentence of the demo's output (:attr:`DemoResult.findings`), not a warning per fit whose advice
#: (settings, dpcvx.tune) is for a data owner's table, not the demo's synthetic one
DEMO_FINDINGS = (TrainingRowsWarning, ConstantPredictionWarning, NoiseDominatesWarning)


def synthetic_classification(n: int = 20000, d: int = 10, *, label_noise: float = 0.1,
                             random_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A linearly separable direction plus label flips; rows scaled to norm <= 1.

    x ~ N(0, I_d) scaled by 1 / max(1, ||x||), y = sign(w^T x) with w ~ N(0, I_d),
    then each label flipped with probability ``label_noise``. Labels are -1/+1. ``n`` and ``d`` are counts (>= 1)
    and ``label_noise`` a probability in [0, 1], each refused with :class:`~dpcvx.exceptions.InputError` otherwise.
    """
    n, d = integer("n", n), integer("d", d)
    label_noise = fraction("label_noise", label_noise, allow_zero=True, allow_one=True)
    rng = np.random.default_rng(check_seed("random_state", random_state))
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    flips = rng.random(n) < label_noise
    return X, np.where(flips, -y, y)


@dataclass(frozen=True)
class DemoResult:
    epsilons: tuple[float, ...]
    accuracy: dict  # (loss name, mechanism) -> (mean, std) per epsilon
    nonprivate: dict  # loss name -> accuracy
    certificate: str  # the verifier's certificates of both losses, logistic then Huber hinge
    release: str
    n_train: int
    draws: int
    #: the cells whose fits found their release no better than a constant or noise-dominated (:data:`DEMO_FINDINGS`),
    #: in one sentence each; empty when none did
    findings: tuple[str, ...] = ()

    def table(self) -> str:
        header = ["loss", "mechanism"] + [f"eps={eps:g}" for eps in self.epsilons]
        rows = [header]
        for (loss, mechanism), values in self.accuracy.items():
            rows.append([loss, mechanism] + [f"{mean:.3f}±{std:.3f}" for mean, std in values])
        for loss, value in self.nonprivate.items():
            rows.append([loss, "non-private"] + [f"{value:.3f}"] * len(self.epsilons))
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)


def run_demo(*, n: int = 20000, draws: int = 5, lam: float = 1e-3,
             epsilons: tuple[float, ...] = DEMO_EPSILONS, random_state: int = 0) -> DemoResult:
    """Fit logistic regression and the Huber SVM with both mechanisms at each epsilon.

    Test accuracy is averaged over ``draws`` noise draws (seeded) on a held-out
    quarter of the data.
    """
    n = integer("n", n, minimum=DEMO_MIN_N, maximum=DEMO_MAX_N)
    draws = integer("draws", draws, minimum=1, maximum=DEMO_MAX_DRAWS)
    if random_state is None:  # the demo is a reproducible experiment: a seed, not OS entropy
        raise InputError(f"{seed_rule('random_state', none=False, generator=False)}; got None (the demo is a "
                         "reproducible experiment)")
    random_state = int(check_seed("random_state", random_state, generator=False))  # type: ignore[arg-type]
    X, y = synthetic_classification(n + n // 3, random_state=random_state)
    X_train, y_train, X_test, y_test = X[:n], y[:n], X[n:], y[n:]
    problems = {"logistic": losses.logistic(), "huber_hinge": losses.huber_hinge(0.5)}
    accuracy, nonprivate = {}, {}
    weak: dict[tuple[str, str], set[float]] = {}
    release = ""
    for name, loss in problems.items():
        erm = PrivateERM(loss=loss, lam=lam, data_norm=1.0)
        nonprivate[name] = erm.fit_nonprivate(X_train, y_train).score(X_test, y_test)
        for mechanism in (Mechanism.OBJECTIVE.value, Mechanism.OUTPUT.value):
            values = []
            for eps in epsilons:
                scores = []
                for draw in range(draws):
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        model = erm.fit(X_train, y_train, epsilon=eps, mechanism=mechanism,
                                        # within the seeds' range (SEED_MAX) for the largest demo seeds too
                                        random_state=(random_state * 1000 + draw) % (SEED_MAX + 1))
                    for item in caught:  # the demo's own findings gathered; any other warning shown as it came
                        if issubclass(item.category, DEMO_FINDINGS):
                            weak.setdefault((name, mechanism), set()).add(eps)
                        else:
                            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
                    scores.append(model.score(X_test, y_test))
                    if not release and name == "logistic" and eps == 0.1:
                        release = str(model.certificate).split("\ndpcvx certificate")[0]
                values.append((float(np.mean(scores)), float(np.std(scores))))
            accuracy[name, mechanism] = values
    # Both verified losses: the README says the demo verifies the logistic and the Huber loss.
    certificate = "\n\n".join(str(PrivateERM(loss=loss, lam=lam, data_norm=1.0).verify(X.shape[1]))
                                for loss in problems.values())
    return DemoResult(tuple(epsilons), accuracy, nonprivate, certificate, release, n, draws, _findings(weak))


def _findings(weak: dict[tuple[str, str], set[float]]) -> tuple[str, ...]:
    """One sentence for the cells (loss, mechanism: epsilons) whose fits found a release no better than a constant or
    dominated by its noise; none when no fit did."""
    if not weak:
        return ()
    cells = "; ".join(f"{loss}, {mechanism}: epsilon {', '.join(f'{eps:g}' for eps in sorted(values))}"
                      for (loss, mechanism), values in weak.items())
    return (f"At the smallest epsilons the noise dominates, as the curve is meant to show: in at least one draw the "
            f"release did no measurably better than a constant prediction, or its noise outweighed the weights "
            f"({cells}). The table's accuracy near 0.5 there is that finding; a larger epsilon or n is what helps.",)


def plot_demo(result: DemoResult, path: str | Path, *, overwrite: bool = False) -> Path:
    """Accuracy against epsilon (log scale), one line per loss and mechanism, with ±1 std bands.

    Writes the PNG to ``path`` (relative to the current directory) and returns its absolute path. An existing file
    is kept and refused with an :class:`~dpcvx.exceptions.OverwriteError` before anything is drawn, unless
    ``overwrite=True``, which replaces it.
    """
    try:
        from matplotlib.figure import Figure  # noqa: F401  (the ImportError before any check)
    except ImportError as error:
        raise ImportError('dpcvx.demo.plot_demo needs matplotlib: pip install "dpcvx[plot]"') from error
    instance_of(DemoResult)("result", result)  # what run_demo returns (InputTypeError otherwise), before any file
    return write_plot(result, check_writable(path, "plot", overwrite=overwrite), overwrite=overwrite)


def write_plot(result: DemoResult, path: Path, *, overwrite: bool = False, option: str = "overwrite=True") -> Path:
    """:func:`plot_demo` to a ``path`` its caller checked (:func:`~dpcvx.data.files.check_writable`, once, at its
    entry: ``dpcvx demo`` before the runs); without ``overwrite`` a file that appeared since is not replaced (the
    error names ``option``, the caller's way to allow it)."""
    try:
        from matplotlib.figure import Figure  # a figure of its own: no pyplot, no backend chosen for the process
    except ImportError as error:
        raise ImportError('dpcvx.demo.plot_demo needs matplotlib: pip install "dpcvx[plot]"') from error

    figure = Figure(figsize=(7, 4.5))
    axis = figure.add_subplot()
    epsilons = np.array(result.epsilons)
    for (loss, mechanism), values in result.accuracy.items():
        mean = np.array([v[0] for v in values])
        std = np.array([v[1] for v in values])
        style = "-" if Mechanism(mechanism) is Mechanism.OBJECTIVE else "--"
        line, = axis.plot(epsilons, mean, style, marker="o", label=f"{loss}, {mechanism}")
        axis.fill_between(epsilons, mean - std, mean + std, color=line.get_color(), alpha=0.15)
    for value in result.nonprivate.values():
        axis.axhline(value, color="gray", linestyle=":", linewidth=1)
    axis.set_xscale("log")
    axis.set_xlabel("epsilon")
    axis.set_ylabel("test accuracy")
    axis.set_title(f"dpcvx demo: n = {result.n_train}, {result.draws} noise draws per point "
                   "(dotted: non-private)")
    axis.legend(fontsize=8)
    figure.tight_layout()
    return atomic_write(path, lambda handle: figure.savefig(handle, format="png", dpi=120,
                                                            metadata={"Software": PLOT_SOFTWARE}),
                        binary=True, what="plot", overwrite=overwrite, option=option).resolve()


def demo_wrote(path: str | Path) -> bool:
    """Whether the file at ``path`` is a PNG an earlier demo wrote: its text chunk Software is ``PLOT_SOFTWARE``
    (matplotlib writes the metadata's text chunks before the image data, in the first few hundred bytes)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return False
    return head.startswith(b"\x89PNG") and b"tEXtSoftware\x00" + PLOT_SOFTWARE.encode() in head
