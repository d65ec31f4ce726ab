"""The checks of a :class:`~dpcvx.models.erm.PrivateERM`: its declared settings, the public row map, the
rows and labels of a fit, the neighbour relation, a warm start and the solver's point.

Every check reads public settings or the shape of the input; a refusal names counts and public facts only
(a clipping count is shown to the data owner in a warning and never released).
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

import numpy as np

from .. import losses
from ..data.blocks import RowBlocks, is_out_of_core
from ..data.notes import warn_clipped, warn_clipped_rows
from ..data.rows import Matrix, RowMap
from ..exceptions import InputError, SolverError
from ..privacy import calibrate
from ..privacy.lam_rule import intercept_scaling
from ..privacy.neighbours import Neighbours, fit_relation
from ..privacy.quantile import power_of_two_grid
from ..release.model import LinearModel
from ..solvers.choice import SOLVERS
from ..solvers.linear import SolveInfo, check_cvxpy_options
from ..validation import (
    LAM_MAX,
    LAM_MIN,
    TASKS,
    Check,
    SignBits,
    check_bound,
    check_callable,
    check_choice,
    check_delta_for_n,
    check_flag,
    check_labels,
    check_lam,
    check_parameters,
    check_targets,
    fraction,
    integer,
    label_clipping_note,
    optional,
    or_literal,
    positive,
    sample_size,
)
from ..verification.constraints import CONSTRAINTS_SIGNATURE
from ..verification.loss_declaration import check_time_limit
from ..verification.verifier import REGULARIZER_SIGNATURE, check_estimate_options


class Settings(Protocol):
    """The declared settings of a :class:`~dpcvx.models.erm.PrivateERM` that these checks read."""

    loss: Any
    lam: float | str
    comparator_norm: float | None
    data_norm: float | str | None
    norm_range: tuple[float, float] | None
    norm_share: float
    label_bound: float | str | None
    label_range: tuple[float, float] | None
    task: str
    feature_map: Any
    fit_intercept: bool
    intercept_scaling: float | str
    clip: bool
    strict: bool
    allow_estimates: bool
    verbose: bool
    allow_large_delta: bool
    column_statistics: bool | str
    solver: Any
    tol: float | None
    max_iter: int | None
    cvxpy_solver: str
    cvxpy_options: dict[str, Any] | None


#: PrivateERM's default ``cvxpy_solver``: Clarabel, which CVXPY requires (installed wherever CVXPY is).
DEFAULT_CVXPY_SOLVER = "CLARABEL"


@functools.cache
def _installed_solvers() -> frozenset[str]:
    """CVXPY's installed solvers, looked up once per process (each lookup tries to import every
    solver: about 3 ms, a third of a 10,000 x 20 fit)."""
    import cvxpy as cp

    return frozenset(cp.installed_solvers())


def _solver_name(name: str, solver: Any) -> Any:
    """A user's solver (a callable) or the name of one of dpcvx's solver choices."""
    return solver if callable(solver) else check_choice(name, solver, SOLVERS)


def _lam(name: str, lam: Any) -> float | str:
    """Lam: "auto" (the public rule of docs/theory.md, section 25) or a number in [LAM_MIN, LAM_MAX]
    (:func:`~dpcvx.validation.check_lam`)."""
    if isinstance(lam, str):
        if lam == "auto":
            return lam
        raise InputError(f"{name} must be 'auto' (exactly, in lower case: the public rule of docs/theory.md, section "
                         f"25) or a number in [{LAM_MIN:g}, {LAM_MAX:g}], got {lam!r}")
    return check_lam(name, lam)


def _tol(name: str, tol: Any) -> float:
    return calibrate.check_tol(tol)


def check_column_statistics(name: str, option: Any) -> bool | str:
    """PrivateERM's ``column_statistics``: True, "ranges" or False (a numpy bool as the bool, as every flag)."""
    if isinstance(option, str) and option == "ranges":
        return option
    if isinstance(option, (bool, np.bool_)):
        return bool(option)
    raise InputError(f"{name} must be True (sums and sums of squares), 'ranges' (noisy histograms' ranges) or False, "
                     f"got {option!r}")


def column_statistics_option(name: str, value: Any) -> bool | str:
    """An estimator's ``column_statistics``: "auto" (resolved by its public rule before anything is charged) or
    :class:`~dpcvx.models.erm.PrivateERM`'s option (True, "ranges" or False; a numpy bool as the bool, as every
    flag), checked by its check (``SETTINGS``)."""
    return "auto" if isinstance(value, str) and value == "auto" else check_column_statistics(name, value)


def _bound(name: str, bound: Any) -> float | str:
    """A public bound (``data_norm``, ``label_bound``): a number in [BOUND_MIN, BOUND_MAX]
    (:func:`~dpcvx.validation.check_bound`; a label bound by :func:`symmetric_label_bound`) or "private" (drawn by
    fit); None is each path's to refuse."""
    if isinstance(bound, str):
        if is_private(bound):
            return bound
        raise InputError(f"{name} must be a public bound (a number) or 'private', got {bound!r}")
    return symmetric_label_bound(bound) if name == "label_bound" else check_bound(name, bound)


def _range(name: str, span: Any) -> tuple[float, float]:
    """The public range (low, high) of a private bound: a pair of bounds holding a power of two, checked as the
    draw's grid checks them (:func:`~dpcvx.privacy.quantile.power_of_two_grid`), so what the pre-data checks pass
    the fit takes."""
    if isinstance(span, (str, bytes)) or not hasattr(span, "__len__") or len(span) != 2:
        raise InputError(f"{name} must be a pair (low, high) of public bounds, got {span!r}")
    power_of_two_grid(span[0], span[1], name)
    return float(span[0]), float(span[1])


def _time_limit(name: str, seconds: Any) -> float:
    return check_time_limit(seconds)


def _installed_solver(name: str, solver: Any) -> str:
    # the default is a requirement of CVXPY itself: no lookup (no CVXPY import)
    if isinstance(solver, str) and solver == DEFAULT_CVXPY_SOLVER:
        return solver
    installed = _installed_solvers()
    if not isinstance(solver, str) or solver.upper() not in installed:
        raise InputError(f"{name} must be the name of an installed CVXPY solver ({', '.join(sorted(installed))}), "
                         f"got {solver!r}")
    return solver


def _solver_options(name: str, options: Any) -> dict[str, Any]:
    if not (isinstance(options, dict) and all(isinstance(key, str) for key in options)):
        raise InputError(f"{name} must be a dict of solver settings (str keys), got {options!r}")
    return options


def _feature_map(name: str, value: Any) -> Any:
    """A public per-record map as fit uses it: an instance with ``transform(X)`` and ``norm_bound`` (the bound on
    ||transform(x)|| the theorems see; :class:`~dpcvx.RandomFourierFeatures`). A file needs its ``to_dict()`` too,
    which ``dpcvx.save`` asks for."""
    missing = [part for part, present in (("transform", callable(getattr(value, "transform", None))),
                                          ("norm_bound", hasattr(value, "norm_bound"))) if not present]
    if isinstance(value, type) or missing:
        got = (f"the class {value.__name__}, not an instance" if isinstance(value, type)
               else f"{type(value).__name__}, which has no {' or '.join(missing)}")
        raise InputError(f"{name} must be a feature map with transform(X) and norm_bound (a bound on ||transform(x)||),"
                         f" for example dpcvx.RandomFourierFeatures(n_components=..., gamma=...); got {got}")
    return value


SETTINGS: dict[str, Check] = {
    "feature_map": optional(_feature_map),
    "lam": _lam,
    "comparator_norm": optional(check_bound),
    "data_norm": optional(_bound),
    "norm_range": optional(_range),
    "norm_share": fraction,  # a share of epsilon bought for a private statistic: in (0, 1)
    "task": lambda name, value: check_choice(name, value, TASKS),
    "label_bound": optional(_bound),
    "label_range": optional(_range),
    "fit_intercept": check_flag,
    "intercept_scaling": or_literal("auto", check_bound),
    "clip": check_flag,
    "regularizer": lambda name, value: check_callable(name, value, REGULARIZER_SIGNATURE),
    "constraints": optional(lambda name, value: check_callable(name, value, CONSTRAINTS_SIGNATURE)),
    "float_safe": check_flag,
    "strict": check_flag,
    "allow_estimates": check_flag,
    "verbose": check_flag,
    "allow_large_delta": check_flag,
    "sample_weight_bound": optional(check_bound),
    "class_count_share": fraction,
    "column_statistics": check_column_statistics,
    "column_statistics_share": fraction,
    "solver": _solver_name,
    "tol": optional(_tol),
    "max_iter": optional(integer),  # None: the proved budget
    "time_limit": optional(_time_limit),
    "cvxpy_solver": _installed_solver,
    "cvxpy_options": optional(_solver_options),
}
"""The declared constraints of a :class:`~dpcvx.models.erm.PrivateERM`'s settings (public: no data is read),
checked once per public entry by :func:`check_settings`, each whatever the other settings are; the rules between
them (a range without its private bound here; the row map, the record weights, the classes of a classification)
have their own checks (:func:`declared_row_map`, :func:`private_bounds`, :mod:`dpcvx.models.record_weights`)."""


def check_settings(learner: Settings) -> None:
    """Refuse a learner whose declared settings are out of range (:data:`SETTINGS`), whose ``strict`` would change
    nothing (:func:`~dpcvx.verification.verifier.check_estimate_options`), whose catalogue loss is made for the other
    task (:func:`dpcvx.losses.check_task`), whose ``cvxpy_options`` its CVXPY solver rejects
    (:func:`~dpcvx.solvers.linear.check_cvxpy_options`), or whose public ranges of a bound are given without asking
    for the bound to be drawn."""
    check_parameters(learner, SETTINGS)
    if learner.cvxpy_options:  # the solver's own refusal of a setting, tried on a public problem
        check_cvxpy_options(learner.cvxpy_solver, learner.cvxpy_options)
    check_estimate_options(learner.strict, learner.allow_estimates)
    losses.check_task(learner.loss, learner.task)
    for span, bound in (("norm_range", "data_norm"), ("label_range", "label_bound")):
        if getattr(learner, span) is not None and not is_private(getattr(learner, bound)):
            raise InputError(f"{span} is the public range of {bound}='private'; with a public {bound} drop it")


PRIVATE = "private"  # data_norm / label_bound = "private": bought with a share of epsilon (models.private_norm)


def is_private(bound: Any) -> bool:
    """Whether a bound (``data_norm`` or ``label_bound``) asks for a privately drawn value."""
    return isinstance(bound, str) and bound == PRIVATE


def _public_range(name: str, span: Any, parameter: str) -> tuple[float, float]:
    if span is None:
        raise InputError(f"{parameter}='private' needs {name}=(low, high): a PUBLIC range, chosen without looking "
                         "at the data, whose powers of two are the candidate bounds. Nothing was charged")
    return _range(name, span)


def private_bounds(learner: Settings) -> tuple[tuple[tuple[str, float, float], ...], float]:
    """The bounds ``fit`` is asked to draw, each (parameter, low, high) of its public range, and the share
    ``norm_share`` of epsilon they cost together; checked, public (no data is read); () when none."""
    wanted = []
    if is_private(learner.data_norm):
        if learner.feature_map is not None:
            raise InputError("data_norm='private' bounds raw rows; with a feature_map the rows the theorems see "
                             "are the map's outputs, bounded by feature_map.norm_bound. Nothing was charged")
        wanted.append(("data_norm", *_public_range("norm_range", learner.norm_range, "data_norm")))
    if is_private(learner.label_bound):
        if learner.task != "regression":
            raise InputError("label_bound='private' bounds regression targets (task='regression'). Nothing was "
                             "charged")
        wanted.append(("label_bound", *_public_range("label_range", learner.label_range, "label_bound")))
    if wanted and not learner.clip:
        raise InputError("a private bound clips the rows (labels) onto the drawn value; clip=False (refuse those "
                         "beyond it) would refuse after the charge, so it is refused now. Nothing was charged")
    return tuple(wanted), fraction("norm_share", learner.norm_share)


def declared_row_map(learner: Settings) -> RowMap:
    """The public per-record map (feature map, clipping to R, intercept feature) of a learner's settings."""
    if learner.feature_map is not None:
        if learner.data_norm is not None:
            raise InputError(
                "data_norm bounds raw rows, but with a feature_map the rows the theorems see "
                "are the map's outputs, bounded by feature_map.norm_bound; drop data_norm"
            )
        bound = positive("feature_map.norm_bound", learner.feature_map.norm_bound)
    elif learner.data_norm is None:
        raise InputError(
            "data_norm is required: a public bound R on ||x|| (for example 1.0 after "
            "scaling features by public bounds). It is never taken from the data"
        )
    elif is_private(learner.data_norm):
        raise InputError("data_norm='private' is drawn by fit (a share norm_share of epsilon buys R on the public "
                         "grid of norm_range); plan, row_map, calibration, choose_lam and fit_nonprivate need a "
                         "numeric public bound R. Nothing was charged")
    else:
        bound = float(_bound("data_norm", learner.data_norm))
    if isinstance(learner.intercept_scaling, str) and learner.intercept_scaling == "auto":
        comparator = None if learner.comparator_norm is None else check_bound("comparator_norm",
                                                                              learner.comparator_norm)
        scaling = intercept_scaling(bound, comparator)
    else:
        scaling = check_bound("intercept_scaling", learner.intercept_scaling)
    return RowMap(
        norm_bound=bound,
        feature_map=learner.feature_map,
        fit_intercept=check_flag("fit_intercept", learner.fit_intercept),
        intercept_scaling=scaling,
    )


def regression_label_bound(label_bound: float | str | None) -> float:
    """B, the public bound on a regression's |y| (checked; never read off the data)."""
    if is_private(label_bound):
        raise InputError("label_bound='private' is drawn by fit (a share of epsilon buys B on the public grid of "
                         "label_range); plan and fit_nonprivate need a numeric public bound B. Nothing was charged")
    if label_bound is None:
        raise InputError("task='regression' needs label_bound: a PUBLIC bound B on |y| (never read off the "
                         "data); labels beyond it are clipped onto [-B, B]")
    return symmetric_label_bound(label_bound)


def symmetric_label_bound(label_bound: Any) -> float:
    """A learner's ``label_bound`` (PrivateERM, PrivateLinearRegression): B, the public bound on |y|
    (:func:`~dpcvx.validation.check_bound`). A pair (lo, hi), which the estimators take, is refused with the public
    shift that makes one: the learners said only "must be a positive number, got (0, 600) (a tuple)"."""
    if isinstance(label_bound, (tuple, list)) and len(label_bound) == 2:
        raise InputError(
            "a learner's label_bound is B, a PUBLIC bound on |y| (labels clipped onto [-B, B]), not a range: got "
            f"{tuple(label_bound)!r}. For a public range (lo, hi), fit the labels y - c with c = (lo + hi) / 2 and "
            "label_bound=(hi - lo) / 2, then add c to the release's intercept (model.label_shifted(c): "
            "post-processing by a public constant, recorded in its certificate); DPLinearRegression and "
            "DPHuberRegressor take label_bound=(lo, hi) and do both")
    return check_bound("label_bound", label_bound)


def fit_labels(classes: tuple[Any, Any] | None, label_bound: float | None, y: Any, mapped: Matrix | RowBlocks,
               refuse_excess: bool) -> np.ndarray | SignBits:
    """-1/+1 labels of the public ``classes``, or (``classes`` None) regression targets clipped to [-B, B]
    (B = ``label_bound``, checked by :func:`regression_label_bound`), one per row of ``mapped``. For rows read by
    blocks (a memmap or Dask X) the -1/+1 are one bit each (:class:`~dpcvx.validation.SignBits`, whose parts are
    int8): a narrow memmap's solve holds no other n-vector (:class:`dpcvx.solvers.blockwise.RowMargins`), one byte
    a row was an eighth of a one-column file, and a label times a float64 is the same float64 either way."""
    n = mapped.shape[0]
    if classes is not None:
        return check_labels(y, n, classes, packed=isinstance(mapped, RowBlocks))
    assert label_bound is not None
    labels, clipped, codes = check_targets(y, n, label_bound, refuse_excess)
    if clipped:
        warn_clipped(label_clipping_note(clipped, n, label_bound, codes))
    return labels


def mapped_rows(rows: RowMap, X: Any, y: Any, refuse_excess: bool) -> tuple[Matrix | RowBlocks, Any]:
    """The rows under the public map (a memmap or Dask input checked in one pass and read by blocks when
    solving), and y (a Dask y computed); rows above R are clipped with a warning to the data owner."""
    mapped: Matrix | RowBlocks
    if is_out_of_core(X):
        mapped, clipped = RowBlocks(X, rows).checked_blocks(refuse_excess)
        y = y.compute() if is_out_of_core(y) and hasattr(y, "compute") else y
    else:
        mapped, clipped = rows.apply(X, refuse=refuse_excess)
    if clipped:
        warn_clipped_rows(clipped, mapped.shape[0], rows, mapped)
    return mapped, y


def mapped_data(rows: RowMap, X: Any, y: Any, classes: tuple[Any, Any] | None, label_bound: float | None,
                refuse_excess: bool) -> tuple[Matrix | RowBlocks, np.ndarray | SignBits]:
    """The rows under the public map (:func:`mapped_rows`) and their labels (:func:`fit_labels`)."""
    mapped, y = mapped_rows(rows, X, y, refuse_excess)
    return mapped, fit_labels(classes, label_bound, y, mapped, refuse_excess)


def neighbour_relation(neighbours: Any, delta: float, n_public: Any,
                       allow_large_delta: Any = False) -> tuple[Neighbours, int | None]:
    """The neighbour relation of a fit and its public size: add/remove needs delta > 0 and ``n_public``, with
    delta below 1/n_public unless ``allow_large_delta`` (:func:`~dpcvx.validation.check_delta_for_n`); replace-one
    takes none (n is the rows', public, and its delta rule is checked where the rows are counted). The one check of
    the relation at every learner that offers add/remove."""
    relation = fit_relation(neighbours, delta)
    if relation is Neighbours.ADD_REMOVE:
        if n_public is None:
            raise InputError("neighbours='add-remove' needs n_public: a public data-set size, chosen without "
                             "looking at the data, read where a fit would read n (delta must be below 1/n_public; "
                             "the number of records is private under add-remove)")
        n_public = sample_size(n_public, "n_public")
        check_delta_for_n(delta, n_public, allow_large_delta, "n_public")
    elif n_public is not None:
        raise InputError("n_public is for neighbours='add-remove'; under replace-one n is the number of "
                         "rows, which is public")
    return relation, n_public


def warm_start_weights(model: LinearModel | None, rows: RowMap, dim: int) -> np.ndarray | None:
    """The weight vector of a warm-start model, in the coordinates of the solver: ``dim`` weights (InputError naming
    both counts otherwise), finite and of a finite norm (InputError otherwise: a NaN weight was refused as if the
    counts differed, and weights of 1e300 overflowed the proved iteration budget, a bare OverflowError)."""
    if model is None:
        return None
    if not isinstance(model, LinearModel):
        raise InputError(f"warm_start must be a model returned by fit or fit_nonprivate, "
                         f"got {type(model).__name__}")
    w = np.asarray(model.coef_, dtype=float)
    if rows.fit_intercept:
        w = np.append(w, model.intercept_ / rows.intercept_scaling)
    if w.shape != (dim,):
        raise InputError(f"warm_start has {w.size} weights, this fit has {dim}: fit it "
                         "with the same columns and fit_intercept")
    with np.errstate(over="ignore"):
        finite = bool(np.all(np.isfinite(w))) and bool(np.isfinite(np.linalg.norm(w)))
    if not finite:
        raise InputError("warm_start's weights are not finite (a NaN or infinite weight, or a norm beyond the float "
                         "range); warm-start from a model whose weights are finite, or leave warm_start out")
    return w


#: check_solution's one text (its call runs after the charge): fixed, so that it says nothing of the private data
SOLVE_FAILED = (
    "the solve did not bring ||grad F|| within half the public bound gamma; nothing is released, and the budget "
    "charged for this call stays spent. Under dpcvx's failure rule every fit's path has a proved iteration budget "
    "(docs/theory.md, section 7.1), so this is a bug (floating point the proof does not cover): please report it. "
    "The event itself is not covered by the privacy proof: do not publish it. The solver's statistics are in the "
    "learner's diagnostics_ (NOT PRIVATE: computed on the private data)")


def check_solution(w: np.ndarray, info: SolveInfo) -> None:
    """Refuse a non-finite point or one the solver did not bring within half the public gradient bound, with the
    fixed text ``SOLVE_FAILED``: the check runs after the charge, and the solver's name, status, a count of
    distinct records or a measured gradient norm are functions of the private data (an attacker probe found all
    three in this message, which the command line prints on stderr); they stay in ``diagnostics_`` (``info``)."""
    if not (np.all(np.isfinite(w)) and info.converged):
        raise SolverError(SOLVE_FAILED)
