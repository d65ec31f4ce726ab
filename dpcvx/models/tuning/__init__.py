"""Private parameter selection: :func:`tune` with two procedures, each proved for replace-one neighbours.

* ``procedure="full-data"`` (:mod:`.full_data`): random stopping (Papernot and Steinke, ICLR 2022,
  Theorem 2; Liu and Talwar, STOC 2019). Each run fits one uniformly drawn candidate on most of the
  data with epsilon / (2 + eta) and scores it by an exact discrete-Laplace count of mistakes on a
  coin-chosen held-out part; the best of K runs is released, K drawn from a truncated negative
  binomial. Pure epsilon: epsilon / (2 + eta) per run; delta > 0 (:mod:`.renyi`): the theorem's Renyi
  form on each run's curve, known before the fits (PrivateERM's Gaussian output perturbation).
* ``procedure="split"`` (:mod:`.split`): Algorithm 4 of Chaudhuri, Monteleoni and Sarwate, JMLR 12
  (2011): m + 1 disjoint parts, every candidate fitted once with the full epsilon on its part, the
  exponential mechanism on the last part. (epsilon, delta) learners allowed.

Both check every input first (:mod:`.checks`), charge the accountant once with the proved total and
only then fit and draw noise: a refused call spends nothing. Learners must declare
``predicts_per_row = True`` (:mod:`dpcvx.models.contract`) and fit under replace-one neighbours.
The default procedure and its measurement: ``docs/tuning.md`` and ``benchmarks/results/selection.md``.

Every candidate is scored on held-out rows by a public per-row loss in whole units of a public grid
(:mod:`.scores`): the count of mistakes (the default for classifiers, binary or multiclass), a count with
public class weights, or a squared error clipped to a public bound (the default for regressors, at the
learner's public label range). Balanced accuracy over the held-out part's own class counts is not offered:
its sensitivity depends on the data.

* :mod:`.tuning_certificate`: what :func:`dpcvx.tune` releases: the certificates of its procedures and the result.
* :mod:`.scores`: the scores and their sensitivity K (docs/theory.md, section 24.4).
* :mod:`.pipeline`: a pipeline of a PublicSchema and a learner, tuned as its learner on the rows the schema encodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ...exceptions import InputError, float_errors_ignored
from ...privacy.accountant import PrivacyAccountant
from ...privacy.partition import disjoint_parts
from ...privacy.rng import RandomState
from ...release.usefulness import checks_off
from ...tables import feature_names
from ...validation import check_choice, check_flag
from ..training_rows import warn_on_tuned
from . import full_data, split
from .checks import (
    BudgetInConstructor,
    Setup,
    check_delta_at_n,
    count_mistakes,
    expand_grid,
    list_of_grids_note,
    prepare,
)
from .full_data import SelectionCertificate
from .pipeline import schema_pipeline
from .scores import ClippedSquaredError, Mistakes, declared_label_range
from .split import select_exponential, selection_probabilities
from .tuning_certificate import TuningCertificate, TuningResult

__all__ = [
    "tune",
    "TuningResult",
    "TuningCertificate",
    "SelectionCertificate",
    "BudgetInConstructor",
    "expand_grid",
    "disjoint_parts",
    "count_mistakes",
    "Mistakes",
    "ClippedSquaredError",
    "selection_probabilities",
    "select_exponential",
    "PROCEDURES",
    "DEFAULT_PROCEDURE",
]

PROCEDURES = ("full-data", "split")
DEFAULT_PROCEDURE = "full-data"


@float_errors_ignored
def tune(
    learner: Any,
    X: Any,
    y: ArrayLike,
    grid: Mapping[str, Sequence] | Sequence[Mapping[str, Any]],
    epsilon: float,
    *,
    procedure: str = DEFAULT_PROCEDURE,
    mechanism: str | None = None,
    delta: float = 0.0,
    fit_params: Mapping[str, Any] | None = None,
    accountant: PrivacyAccountant | None = None,
    random_state: RandomState = None,
    verbose: bool = False,
    eta: int = 1,
    mean_runs: float | None = None,
    held_out: float = full_data.HELD_OUT,
    score: Mistakes | ClippedSquaredError | str | None = None,
) -> TuningResult:
    """Choose parameters privately and release one model.

    Parameters
    ----------
    learner : estimator or factory
        An object with ``get_params``/``set_params`` and ``fit`` (copied, never
        modified), or a class or function called as ``learner(**params)``.
        Each fit is ``fit(X_part, y_part, epsilon=..., random_state=...,
        **fit_params)``, ``random_state`` None without a seed, else tune's seeded
        generator. It must declare ``predicts_per_row = True``
        (:mod:`dpcvx.models.contract`): its model's ``predict`` classifies each
        row on its own. An interactive learner (dpcvx.PINP) is refused before
        anything is charged, as is a candidate fitted under add-remove
        neighbours. Wrap learners that take epsilon in their constructor in
        :class:`BudgetInConstructor`.
    grid : dict of lists (Cartesian product) or list of dicts
        Constructor parameters to try; see :func:`expand_grid`. m = the number of candidates.
    epsilon : float
        The budget of the whole procedure. "split": every candidate is fitted with all of
        it on its part, and the selection uses it on the held-out part. "full-data": every
        run (fit and noisy score) gets epsilon / (2 + eta).
    procedure : "split" or "full-data"
        Algorithm 4 (JMLR 2011) or random stopping (Papernot and Steinke 2022); see the
        module notes and ``docs/tuning.md``.
    mechanism : str, optional
        Passed to every fit as ``mechanism=``; omitted when None.
    delta : float
        "split": for (epsilon, delta)-DP learners, passed to every fit and charged.
        "full-data": 0 (pure epsilon), or > 0 for candidates whose Renyi curve is known
        before the fit (PrivateERM with mechanism="output"; the others raise
        AssumptionError before any charge): every fit gets (e_run, delta), e_run
        found by bisection so that Theorem 2 in its Renyi form, converted at delta,
        is at most epsilon (docs/theory.md, section 27).
    fit_params : dict, optional
        Further keyword arguments for every fit; not ``sample_weight`` (UnsupportedWeightsError: the split and the
        rehearsal fit parts of the rows, which weights of the whole X do not follow; a learner's public
        ``class_weight`` is taken).
    accountant : PrivacyAccountant, optional
        Charged once with the proved total after the inputs are checked and before any
        fit ("split": (epsilon, delta) by parallel composition; "full-data": the
        random-stopping total, epsilon itself when delta = 0, the proved total at most
        epsilon when delta > 0); a refusal raises BudgetExceededError and nothing is fitted.
    random_state : None, int or numpy Generator
        None: every exact draw (the number of runs, each run's candidate, the count noise,
        the split's selection and every fit's lattice noise) comes from the OS CSPRNG, each
        fit gets ``random_state=None`` (its own OS entropy) and the parts come from OS
        entropy. An int or a Generator drives all of them, so the whole run is reproducible:
        for experiments only, never for a release whose seed could be known.
    verbose : bool
        A progress bar (tqdm, if installed) on a terminal: fits done and elapsed time only.
        For "full-data" both show the realised number of runs K: for the data owner's
        eyes only (below).
    eta, mean_runs, held_out :
        "full-data" only: the truncated negative binomial's eta (a positive integer; 1 is
        geometric), E[K] (default 4 m) and each row's probability of being held out.
    score : Mistakes, ClippedSquaredError, "mistakes", "squared_error" or None
        What each candidate is scored by on held-out rows (:mod:`dpcvx.models.tuning.scores`),
        public and fixed before any fit. None: the count of mistakes for a classifier (binary
        or multiclass), the squared error clipped to (hi - lo)^2 of the learner's public label
        range for a regressor. ``Mistakes(class_weight={class: weight})`` weighs each mistake
        by its class's public weight; ``ClippedSquaredError(bound=C)`` clips at a public C.
        Each row's loss is rounded to a public grid of K units, and the noise is calibrated to
        the sensitivity K (docs/theory.md, section 24.4). Balanced accuracy over the held-out
        rows' own class counts is refused: its sensitivity depends on the data.

    Returns
    -------
    TuningResult
        ``model``, ``params`` and ``certificate`` (:class:`TuningCertificate` or
        :class:`SelectionCertificate`). Mistake counts, scores and the realised number
        of runs are never released; the selected model's ``diagnostics_`` and the
        procedure's own facts are in ``TuningResult.diagnostics_`` (NOT PRIVATE). A dpcvx
        estimator selected on a table (pandas, polars, pyarrow) keeps its column names as
        ``feature_names_in_``, as its own fit would, and its predictions check them.

    Notes
    -----
    **Timing ("full-data").** The wall time of the call, and the elapsed time and count on
    the progress bar, grow with the realised number of runs K (each run is one fit), so
    they reveal K; the guarantee does not cover them. An observer who learns K loses the
    guarantee of the released model itself: the best of k runs is covered only by
    composing the runs, up to k e_Q, not by (2 + eta) e_Q. Keep the duration as private
    as K (the certificate's ``not_covered``; docs/theory.md, section 24.2). dpcvx does not
    pad to a public schedule: K has no public upper bound, and each fit's own duration
    depends on the data, so no count of padded runs makes the wall time public.
    """
    check_choice("procedure", procedure, tuple(PROCEDURES))
    pipeline = schema_pipeline(learner)
    if pipeline is not None:  # the learner tuned on the rows the public schema encodes (tuning.pipeline)
        result = tune(pipeline.estimator, pipeline.encode(X), y, pipeline.grid(grid), epsilon, procedure=procedure,
                      mechanism=mechanism, delta=delta, fit_params=fit_params, accountant=accountant,
                      random_state=random_state, verbose=verbose, eta=eta, mean_runs=mean_runs, held_out=held_out,
                      score=score)
        return replace(result, model=pipeline.released(result.model), params=pipeline.params(result.params))
    with checks_off():  # no candidate's usefulness is told, and the NOT PRIVATE check never runs, inside tune
        try:
            result, setup, rows, labels, names = _tune(learner, X, y, grid, epsilon, procedure, mechanism, delta,
                                                       fit_params, accountant, random_state, verbose, eta, mean_runs,
                                                       held_out, score)
        except InputError as refusal:  # a refusal, before anything is charged: said of a list of grids too
            note = list_of_grids_note(grid, str(refusal))
            if note and refusal.args and isinstance(refusal.args[0], str):
                refusal.args = (refusal.args[0].rstrip(".") + note, *refusal.args[1:])
            raise
    regression = isinstance(setup.score, ClippedSquaredError)  # the learners' task, as the score was resolved
    declared = setup.learners[result.certificate.selected_index]  # the selected candidate
    # the rows and labels the checks before the charge read, never X and y as given: the selected estimator's predict
    # on the caller's table re-read it by rules the checks had not run (a boolean regression y raised numpy's
    # TypeError here, after the charge)
    warn_on_tuned(result.model, rows, labels, regression, declared_label_range(declared) if regression else None)
    if names is not None and getattr(result.model, "keeps_feature_names", False) is True:  # an estimator's
        result.model.feature_names_in_ = names  # runs fit parts of X as arrays: the selected one keeps X's names
        # as its own fit on X would (after the note above, which predicts on those arrays)
    return result


def _tune(learner: Any, X: Any, y: ArrayLike, grid: Mapping[str, Sequence] | Sequence[Mapping[str, Any]],
          epsilon: float, procedure: str, mechanism: str | None, delta: float, fit_params: Mapping[str, Any] | None,
          accountant: PrivacyAccountant | None, random_state: RandomState, verbose: bool, eta: int,
          mean_runs: float | None, held_out: float,
          score: Any) -> tuple[TuningResult, Setup, Any, np.ndarray, np.ndarray | None]:
    """:func:`tune`'s procedure, inside :func:`~dpcvx.release.usefulness.checks_off`: the result, the checked setup it
    ran from, (X, y) as its checks read them before the charge (all that tune reads of the data after it) and X's
    column names (None for an array)."""
    setup = prepare(learner, grid, epsilon, delta, mechanism, fit_params, accountant, random_state, score)
    names = feature_names(X)  # a table's column names (public), read before anything is charged; a mix refused
    verbose = check_flag("verbose", verbose)  # read only by the progress bar, after the charge
    check_delta_at_n(setup, X)  # delta against 1/n first, as every entry refuses it, whichever the procedure
    if procedure == "split":
        if full_data.options_given(eta, mean_runs, held_out):
            raise InputError("eta, mean_runs and held_out belong to procedure='full-data'; Algorithm 4 "
                             "(procedure='split') takes none of them")
        result, rows, labels = split.run(setup, X, y, accountant, verbose)
    else:
        result, rows, labels = full_data.run(setup, X, y, accountant, verbose, eta=eta, mean_runs=mean_runs,
                                             held_out=held_out)
    return result, setup, rows, labels, names
