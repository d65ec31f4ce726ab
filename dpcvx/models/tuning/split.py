"""``procedure="split"``: Algorithm 4 of Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011).

For m candidate parameter settings and an epsilon-DP learner A:

1. split the n rows at random into m + 1 disjoint parts D_1..D_{m+1} of
   k = floor(n / (m + 1)) rows each; the n mod (m + 1) leftover rows are not
   used at all (the parts stay equal, as in the paper);
2. fit f_i = A(D_i, params_i, epsilon) for i = 1..m, each with the full epsilon;
3. count z_i, the mistakes of f_i on D_{m+1};
4. release f_i with probability proportional to exp(-epsilon z_i / 2)
   (the exponential mechanism of McSherry and Talwar 2007 with score -z_i).

Guarantee: the whole procedure is epsilon-DP for all n rows (the paper's
privacy theorem for Algorithm 4; the short argument follows). Neighbouring
datasets differ in one record. The random split does not look at the data,
so the record lies in one part (or in the unused rows, which change nothing):

* in D_j, j <= m: only f_j depends on it, and A is epsilon-DP; the selection
  given (f_1..f_m) reads D_{m+1} only, so the joint law of the models and the
  selected index moves by at most a factor e^epsilon;
* in D_{m+1}: the models do not depend on it and each z_i moves by at most 1
  (sensitivity 1), so each selection probability moves by at most
  e^{epsilon/2} in its numerator and e^{epsilon/2} in the normalising sum.

This is parallel composition over disjoint parts; with an (epsilon, delta)
learner the first case, hence the whole, is (epsilon, delta)-DP. Releasing
f_i is post-processing.

Neighbours: replace-one with n public (the data sets have the same size n
and differ in one record); the split depends on n and the generator only.

Only the selected model and its parameters are released; the selected index
(the exponential mechanism's output) and everything that depends on it sit
under "privatised" keys. The mistake counts z_i are never returned, stored or
logged: they are exact functions of D_{m+1} that no noise has touched, so
publishing them is not covered by the guarantee (two of them, or one count
before and after a record changes, show whether a given held-out record was
misclassified). Solver statistics of the selected model (a learner's
``diagnostics_``) are moved to ``TuningResult.diagnostics_``, marked NOT
PRIVATE, and kept out of the release.

Learners: the sensitivity-1 argument needs each candidate's prediction of a
held-out row to be a function of that row and of the released model only. A
learner declares this as ``predicts_per_row = True``
(:mod:`dpcvx.models.contract`); any other learner (the interactive
:class:`dpcvx.PINP`, which would take the held-out rows as queries and publish
those that trigger updates as its centres, or a learner that does not declare
it) is refused before anything is charged. So is a candidate fitted under
add-remove neighbours: the argument above is for replace-one, and tuning's
parts use n.

Order: every input (grid, budget, data, labels against the learner's public
classes, each candidate's capability, relation, parameters and fit arguments
on its own part) is checked first, and every candidate is rehearsed on synthetic
public rows under the failure rule (:mod:`dpcvx.models.failure`: only fits with a
proved solve are admitted, so none can fail after the charge); then the accountant
is charged once, as a replace-one charge, then the candidates are fitted and the
noise drawn. A refused call spends nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...data.notes import notes_dropped
from ...exceptions import InputError
from ...privacy.accountant import PrivacyAccountant
from ...privacy.exact_sampling import IntegerSource
from ...privacy.exponential import exponential_probabilities, sample_exponential
from ...privacy.neighbours import Neighbours
from ...privacy.partition import disjoint_parts
from ...progress import progress
from ...release.usefulness import emit
from ..failure import charged, composite, fixed_numerics
from ..fit_plan import plan_conditional
from ..kernel_learner import Diagnostics
from .checks import (
    Setup,
    check_and_rehearse,
    check_release_cost,
    fit_candidate,
    plan_candidate,
    release_certificate,
    shaped_then_read,
)
from .scores import total_units
from .tuning_certificate import TuningCertificate, TuningResult

__all__ = ["selection_probabilities", "select_exponential", "run"]

logger = logging.getLogger(__name__)

PROCEDURE_NAME = "dpcvx.tune (Algorithm 4)"
MISTAKE_SENSITIVITY = 1  # one held-out record changes each mistake count z_i by at most 1


def selection_probabilities(mistakes: Sequence[float], epsilon: float,
                            sensitivity: int = MISTAKE_SENSITIVITY) -> np.ndarray:
    """p_i = exp(-epsilon z_i / (2 K)) / sum_j exp(-epsilon z_j / (2 K)) (JMLR 2011, Algorithm 4).

    The exponential mechanism (:mod:`dpcvx.privacy.exponential`) with score
    -z_i, whose sensitivity is K: 1 for a count of mistakes (one record of the
    held-out part changes each count by at most 1), the score's K for a total
    in units of a public grid (:mod:`.scores`).
    """
    counts = np.asarray(mistakes, dtype=float)
    if counts.ndim != 1 or counts.size == 0 or not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise InputError("mistakes must be a non-empty list of finite counts >= 0")
    return exponential_probabilities(-counts, epsilon, sensitivity)


def select_exponential(mistakes: Sequence[float], epsilon: float,
                       rng: np.random.Generator | IntegerSource, sensitivity: int = MISTAKE_SENSITIVITY) -> int:
    """Index i drawn with probability :func:`selection_probabilities` (mistakes, epsilon, sensitivity)[i]."""
    selection_probabilities(mistakes, epsilon, sensitivity)  # the checks on the counts
    return sample_exponential(-np.asarray(mistakes, dtype=float), epsilon, sensitivity, rng)


def _named_on_every_row(setup: Setup, X: Any, y: np.ndarray, epsilon: float, shaped: Sequence[Any]) -> None:
    """After a refusal of the checks on the parts, which name a row by its place in its shuffled part: the same
    checks of every candidate on all the rows, so that a refusal of a row (a label outside the classes) names the
    caller's row; a refusal of a part alone (too few rows of a class in it) passes here, and the part's stands."""
    with composite(PROCEDURE_NAME), notes_dropped():
        for candidate, early in zip(setup.learners, shaped, strict=True):
            plan_candidate(candidate, X, y, setup.keywords, epsilon, early)


def run(setup: Setup, X: Any, y: Any, accountant: PrivacyAccountant | None,
        verbose: bool) -> tuple[TuningResult, Any, np.ndarray]:
    """Algorithm 4 on checked inputs (:func:`dpcvx.tune` has checked the grid, budget and learners): the result, and
    (X, y) as the checks before the charge read them (:func:`~.checks.shaped_then_read`), which is all tune reads of
    the data after the charge."""
    epsilon, delta, keywords, learners, candidates = (setup.epsilon, setup.delta, setup.keywords,
                                                      setup.learners, setup.candidates)
    shaped, X, y = shaped_then_read(setup, X, y, epsilon, PROCEDURE_NAME)  # the verdicts before the data is read
    m, n, rng = len(candidates), X.shape[0], setup.rng

    def charge(accountant: PrivacyAccountant, conditional: bool = False) -> None:
        accountant.spend_parallel([(epsilon, delta)] * (m + 1), neighbours=Neighbours.REPLACE_ONE,
                                  description=f"dpcvx.tune (Algorithm 4, m={m} candidates, n={n})",
                                  conditional=conditional)

    if accountant is not None and not accountant.can_spend(epsilon, delta, neighbours=Neighbours.REPLACE_ONE):
        charge(accountant)  # refused before the parts are drawn: the caller's generator is left where it was
    drawn_from = rng.bit_generator.state  # a refusal below leaves the caller's generator here, as full-data's does
    parts = disjoint_parts(n, m + 1, rng)  # reads n only; refuses too few rows
    try:
        plans, _ = check_and_rehearse(setup, X, y, parts[:-1], epsilon, PROCEDURE_NAME,  # the failure rule; planned
                                      shaped)                                             # once
    except BaseException as refusal:
        rng.bit_generator.state = drawn_from
        if isinstance(refusal, InputError):
            _named_on_every_row(setup, X, y, epsilon, shaped)
        raise
    conditional = any(plan_conditional(plan) for plan in plans)  # every candidate's guarantee enters the selection's
    if accountant is not None:
        charge(accountant, conditional)
    held_out = parts[-1]
    X_held_out, y_held_out = X[held_out], y[held_out]
    logger.debug("Algorithm 4: n=%d rows, m=%d candidates, %d parts of %d rows, %d rows unused",
                 n, m, m + 1, held_out.size, n - held_out.size * (m + 1))

    models, owners, mistakes, helds = [], [], [], []  # owners: each fit's diagnostics (NOT PRIVATE)
    with progress(m, PROCEDURE_NAME, unit="candidate", verbose=verbose) as bar, \
            composite(PROCEDURE_NAME), fixed_numerics():
        for index, (candidate, plan, rows) in enumerate(zip(learners, plans, parts[:-1], strict=True)):
            logger.debug("Algorithm 4: fitting candidate %d of %d on its part", index + 1, m)
            # cannot fail under the rule; a failure is a bug (dpcvx.models.failure). Its clipping notes are those its
            # part's checks showed
            with charged(PROCEDURE_NAME), notes_dropped():
                model, diagnostics, held = fit_candidate(setup, candidate, plan, X[rows], y[rows], epsilon)
            check_release_cost(model, epsilon, delta)
            mistakes.append(total_units(setup.score, model, X_held_out, y_held_out))
            models.append(model)
            owners.append(diagnostics)
            helds.append(held)
            bar.update()
    selected = select_exponential(mistakes, epsilon, setup.source, setup.score.sensitivity)
    del mistakes  # never stored, returned or logged
    logger.debug("Algorithm 4: released candidate %d of %d", selected + 1, m)

    model = models[selected]
    emit(helds[selected], tuned=True)  # the released candidate's public warnings, once
    selected_diagnostics = owners[selected]  # the data owner's, never part of the release
    certificate = TuningCertificate(
        epsilon=epsilon,
        delta=delta,
        candidates=candidates,
        selected_index=selected,
        n=n,
        part_size=int(held_out.size),
        fit_params=keywords,
        release=release_certificate(model),
        score=setup.score.to_dict(),
        conditional=conditional,
    )
    diagnostics = Diagnostics() if selected_diagnostics is None else Diagnostics(
        selected_model=selected_diagnostics)
    return TuningResult(model=model, params=dict(candidates[selected]), certificate=certificate,
                        diagnostics_=diagnostics), X, y
