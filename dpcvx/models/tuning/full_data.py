"""``procedure="full-data"``: private selection by random stopping (Papernot and Steinke, ICLR 2022, Theorem 2).

**One run Q** (on the whole data set D of n rows, replace-one neighbours, n public):

1. each row is held out by its own coin of public bias ``held_out`` (:func:`dpcvx.privacy.partition.coin_parts`),
   independently of the data: a training part T and a held-out part H; all the coins are drawn again while T has
   fewer rows than every candidate fits on (:func:`~dpcvx.models.failure.least_rows`, found on synthetic rows before
   the charge: the rehearsal's 64 rows when n >= 64 and T has that many with chance 1/2 or more; else 1, or 2 for
   a private class count), a public law;
2. a candidate i is drawn uniformly from the m candidates of the grid;
3. f = A_i(T, e_Q): the learner fitted with the pure budget e_Q = epsilon / (2 + eta);
4. the score s = -(z + Z) / max(|H|, 1), z = the score's integer total of f on H (:mod:`.scores`: the
   mistakes, or a public per-row loss in units of a public grid, each row in {0, ..., K}; 0 when H is
   empty), Z ~ discrete Laplace of scale K / e_Q, drawn exactly (:func:`dpcvx.privacy.stopping.noisy_count`).

Q outputs (i, f, s). **Q is e_Q-DP.** Condition on the coins (the same for D and D'; they never look at
the data, and |H| is a function of them). The replaced record lies in T or in H. In T, only f moves and
A_i is e_Q-DP; s is then a function of f and of H, which is unchanged. In H, f does not move and z moves by
at most K (a per-row prediction, :mod:`dpcvx.models.contract`, and a per-row loss in {0, ..., K}), so
z + Z is e_Q-DP. This is parallel
composition; i is independent of the data. No fit raises after the charge (the failure rule,
:mod:`dpcvx.models.failure`, docs/theory.md section 7.1): every candidate is checked and rehearsed on
synthetic public rows before the charge, and only learners whose solve has a proved iteration budget
are admitted, so the event "a fit raised" has probability 0 on every data set and Claim 1 needs no
case for it.

**Random stopping.** K ~ D_{eta, gamma} (:mod:`dpcvx.privacy.stopping`), drawn from the public
parameters only; Q runs K times with fresh coins, candidate and noise each time, and the run of highest
score is released (ties: the earliest run, which has the law of a uniform tie-break since the runs are
i.i.d.). By Theorem 2 of Papernot and Steinke with pure e_Q the release is (2 + eta) e_Q = epsilon-DP.
It is not composition: the accountant is charged epsilon once, whatever K turns out to be.

**What is released**: the selected model, its parameters (privatised) and its noisy score's candidate;
the public rule (eta, gamma, E[K]) and the expected number of fits. The realised K and
every score stay in ``TuningResult.diagnostics_`` (NOT PRIVATE): the theorem covers the best run
only, not the count of runs or the other runs' outputs.

**delta > 0** (:mod:`.renyi`): the fits get (e_run, delta) and the score e_s, both found before any fit
from Q's Renyi curve (the pointwise maximum of the candidates' curves and the score's), so that Theorem 2
in its Renyi form, converted at delta, gives at most (epsilon, delta). Only releases whose Renyi curve is
known before the fit take part (PrivateERM's Gaussian output perturbation, after its private draws if it makes
any: their pure parts are part of the claimed curve); the others are refused before anything is charged.
The accountant is charged the proved total once, as a plain (epsilon, delta) entry (the selection's curve is not a
composition of Gaussian and (epsilon, delta) parts).
"""

from __future__ import annotations

import copy
import logging
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ...data.notes import notes_dropped
from ...exceptions import InputError, LossDeclarationError
from ...privacy.accountant import PrivacyAccountant
from ...privacy.neighbours import Neighbours
from ...privacy.partition import coin_parts, training_chance
from ...privacy.privacy_curve import PrivacyCurve, candidate_share_of
from ...privacy.stopping import StoppingRule, draw_runs, miss_probability, noisy_count, run_budget, uniform_index
from ...progress import progress
from ...release.usefulness import Held, emit
from ...validation import EPSILON_MIN, fraction, integer, positive
from ..failure import charged, composite, fixed_numerics
from ..fit_plan import plan_conditional
from ..kernel_learner import Diagnostics
from .checks import (
    Setup,
    check_and_rehearse,
    check_release_cost,
    fit_candidate,
    release_certificate,
    shaped_then_read,
)
from .renyi import calibrate_runs, check_run_curve
from .scores import MISTAKES_RECORD, describe, total_units
from .tuning_certificate import NEIGHBOUR_RELATION, Grid, TuningResult, format_params, public_params

__all__ = ["SelectionCertificate", "run", "options_given", "RUNS_PER_CANDIDATE", "HELD_OUT"]

logger = logging.getLogger(__name__)

PROCEDURE = ("full-data private selection with random stopping (Papernot and Steinke, ICLR 2022, Theorem 2; "
             "Liu and Talwar, STOC 2019)")
THEOREM = ("Theorem 2 of Papernot and Steinke (ICLR 2022) for a pure e_Q-DP run Q, orders to infinity: "
           "(2 + eta) e_Q-DP; Q is e_Q-DP by parallel composition over a coin partition (the fit on the "
           "training part, a discrete Laplace count of scale K / e_Q of the score's units, sensitivity K, on the "
           "held-out part: docs/theory.md, section 24.4)")
THEOREM_RENYI = ("Theorem 2 of Papernot and Steinke (ICLR 2022) in its Renyi form on a grid of orders, with Q's "
                 "Renyi curve the pointwise maximum of the candidates' curves (claimed before the fits from public "
                 "inputs, checked after each fit) and the discrete Laplace score's (coin partition, joint "
                 "quasi-convexity of the Renyi divergence), converted to (epsilon, delta) by Balle et al. 2020, "
                 "Theorem 21 (docs/theory.md, section 27)")
NOT_COVERED = (
    "the realised number of runs K and the other runs' scores (NOT PRIVATE diagnostics, never "
    "released)",
    "the duration: the wall time of the selection, and the elapsed time on its progress bar, grow with the "
    "realised K (and with each fit's own solve time), so they reveal K. An observer who learns K loses the "
    "guarantee of the released model itself: the best of k runs is covered only by composing the runs, up to "
    "k e_Q, not by the (2 + eta) e_Q of random stopping. Keep the duration as private as K (docs/theory.md, "
    "section 24.2)",
)
# E[K] = 4 m by default: with geometric K a given candidate is never tried with probability
# (m - 1) / (5 m - 1) < 1/5 (:func:`dpcvx.privacy.stopping.miss_probability`), at 4 m expected fits.
PROCEDURE_NAME = "dpcvx.tune (full-data selection)"
RUNS_PER_CANDIDATE = 4
HELD_OUT = 0.2
#: a run's coins are drawn again until they leave enough training rows; below this chance per draw the procedure is
#: refused before the charge (a million draws a run on average)
MIN_TRAINING_CHANCE = 1e-6
# Public limits of the stopping rule's arguments, refused before the charge. Every run is a fit on the data: E[K] =
# 10^6 fits already takes days for the fastest learner. The rule's gamma is a rational with denominator <= 10^6;
# for eta up to 1000 and E[K] >= 1.01 it lies in (0, 1) (closer to 1 it rounded to 1, an internal error).
MAX_ETA = 1000
MIN_MEAN_RUNS = 1.01
MAX_MEAN_RUNS = 10**6


@dataclass(frozen=True)
class SelectionCertificate(Grid):
    """The record of one full-data selection: its public rule and why it is epsilon-DP.

    ``run_epsilon`` is e_Q, the budget of each fit and of each noisy count (a double at most
    epsilon / (2 + eta)); ``eta``, ``gamma`` and ``mean_runs`` = E[K] the law of the number of runs;
    ``selected_index`` the released candidate (no run can fail: :mod:`dpcvx.models.failure`).
    With delta > 0 (:mod:`.renyi`) each fit gets (``run_epsilon``, ``run_delta``), each count
    ``score_epsilon``, ``candidate_curves`` are the curves claimed before the fits (each marked as one candidate's
    share), and (``epsilon``, ``delta``) is the proved total. ``not_covered`` (:data:`NOT_COVERED`) names what the
    theorem does not cover, the duration of the selection among it.
    """

    epsilon: float
    run_epsilon: float
    eta: int
    gamma: Fraction
    candidates: tuple[dict, ...]
    selected_index: int
    n: int
    held_out: float
    fit_params: dict
    release: Any = None
    delta: float = 0.0
    run_delta: float = 0.0
    score_epsilon: float | None = None
    candidate_curves: tuple[PrivacyCurve, ...] = ()
    score: dict = field(default_factory=lambda: dict(MISTAKES_RECORD))
    conditional: bool = False

    procedure = PROCEDURE
    neighbour_relation = NEIGHBOUR_RELATION
    not_covered = NOT_COVERED

    def __post_init__(self) -> None:
        """The selected release and each candidate's claimed curve are one candidate's share of the selection, so
        each is marked (:meth:`Grid.mark_release`, :func:`~dpcvx.privacy.privacy_curve.candidate_share_of`): composing
        or charging a candidate's curve in place of the selection's total understates what it spent."""
        self.mark_release()
        marked = tuple(candidate_share_of(curve) for curve in self.candidate_curves)
        object.__setattr__(self, "candidate_curves", marked)  # frozen: set once, at construction

    @property
    def theorem(self) -> str:
        return THEOREM_RENYI if self.delta > 0 else THEOREM

    @property
    def count_epsilon(self) -> float:
        """The pure epsilon of each noisy count (e_Q when delta = 0)."""
        return self.run_epsilon if self.score_epsilon is None else self.score_epsilon

    @property
    def mean_runs(self) -> float:
        """E[K], the expected number of runs (and of fits): a function of (eta, gamma) only."""
        return StoppingRule(self.eta, self.gamma).mean_runs

    @property
    def selected_params(self) -> dict:
        return dict(self.candidates[self.selected_index])

    @property
    def guarantee(self) -> str:
        if self.delta > 0:
            return (f"({self.epsilon:g}, {self.delta:g})-differential privacy for all {self.n} rows: each run fits a "
                    f"uniformly drawn candidate with (epsilon={self.run_epsilon:g}, delta={self.run_delta:g}) on a "
                    "coin-chosen training part, a release whose Renyi curve is known before the fit, and scores it "
                    f"by {describe(self.score)} on the held-out part plus exact discrete Laplace noise of scale "
                    f"{self.score['sensitivity']}/{self.count_epsilon:g}; the number of runs is drawn from the "
                    "truncated negative binomial "
                    f"(eta={self.eta}, gamma={self.gamma}), E[K] = {self.mean_runs:.4g}, and the best run is "
                    "released: Theorem 2 of Papernot and Steinke 2022 on the run's Renyi curve, converted at "
                    f"delta={self.delta:g}, gives epsilon <= {self.epsilon:g}; not a composition of the runs"
                    + self.conditional_note())
        return (f"({self.epsilon:g}, 0)-differential privacy for all {self.n} rows: each run fits a uniformly "
                f"drawn candidate with epsilon = {self.run_epsilon:g} on a coin-chosen training part and scores it by "
                f"{describe(self.score)} on the held-out part plus exact discrete Laplace noise of scale "
                f"{self.score['sensitivity']}/{self.run_epsilon:g} "
                f"(a {self.run_epsilon:g}-DP run by parallel composition); the number of runs is drawn from the "
                f"truncated negative binomial (eta={self.eta}, gamma={self.gamma}), E[K] = {self.mean_runs:.4g}, "
                f"and the best run is released: (2 + eta) x {self.run_epsilon:g} <= {self.epsilon:g} "
                "(Papernot and Steinke 2022, Theorem 2), not a composition of the runs" + self.conditional_note())

    def to_dict(self) -> dict:
        release = self.release.to_dict() if hasattr(self.release, "to_dict") else None
        miss = miss_probability(self.m, self.mean_runs) if self.eta == 1 else None
        selected = self.selected_params
        return {
            "procedure": self.procedure, "guarantee": self.guarantee, "neighbour_relation": self.neighbour_relation,
            "theorem": self.theorem, "epsilon": self.epsilon, "delta": self.delta, "n": self.n, "m": self.m,
            "run_epsilon": self.run_epsilon, "run_delta": self.run_delta, "score_epsilon": self.count_epsilon,
            "score": self.score,
            "candidate_curves": [curve.to_dict() for curve in self.candidate_curves],
            "eta": self.eta, "gamma": str(self.gamma),
            "mean_runs": self.mean_runs, "mean_fits": self.mean_runs, "held_out_probability": self.held_out,
            "candidate_never_tried_probability": miss,
            "candidates": [public_params(point) for point in self.candidates],
            "fit_params": public_params(self.fit_params),
            "privatised": {"selected_index": self.selected_index,
                           "selected_params": public_params(selected)},
            "release": release, "not_covered": list(self.not_covered), **self.float_record(),
            **self.conditional_record(),
        }

    def __str__(self) -> str:
        index = self.selected_index
        selected = f"candidate {index + 1} of {self.m}, " + format_params(self.candidates[index])
        lines = [f"dpcvx tuning: {self.procedure}", f"guarantee: {self.guarantee}",
                 f"neighbouring data sets: {self.neighbour_relation}",
                 f"runs: E[K] = {self.mean_runs:.4g} fits on average (eta = {self.eta}); each row held out with "
                 f"probability {self.held_out:g}",
                 "candidates: " + ", ".join("{" + format_params(point) + "}" for point in self.candidates),
                 f"selected (privatised, the best noisy score): {selected}", *self.float_lines(),
                 *(f"not covered: {item}" for item in self.not_covered)]
        if self.release is not None:
            lines += ["selected model's release (trained on its run's training part):", str(self.release)]
        return "\n".join(lines)


def _plan(setup: Setup, rule: StoppingRule) -> tuple[float, Fraction, tuple[PrivacyCurve, ...], float]:
    """(each fit's epsilon, each count's epsilon as a rational, the claimed curves, the proved total epsilon):
    the pure plan e_Q = epsilon / (2 + eta) for delta = 0, the Renyi plan (:mod:`.renyi`) otherwise."""
    if setup.delta == 0:
        budget = run_budget(setup.epsilon, rule.eta)
        return budget, Fraction(budget), (), setup.epsilon
    plan = calibrate_runs(setup.learners, setup.keywords, rule, setup.epsilon, setup.delta)
    return plan.run_epsilon, Fraction(plan.score_epsilon), plan.curves, plan.epsilon


def checked_options(eta: Any, mean_runs: Any, held_out: Any) -> tuple[int, Any, float]:
    """``eta``, ``mean_runs`` (None: RUNS_PER_CANDIDATE per candidate) and ``held_out`` checked within the public
    limits above (``held_out`` a probability in (0, 1)); ``mean_runs`` is returned as given, for the rule takes it
    exact (rational)."""
    held_out = fraction("held_out", held_out)
    eta = integer("eta", eta, minimum=1, maximum=MAX_ETA)
    if mean_runs is not None:
        positive("mean_runs", mean_runs, minimum=MIN_MEAN_RUNS, maximum=MAX_MEAN_RUNS)
    return eta, mean_runs, held_out


def options_given(eta: Any, mean_runs: Any, held_out: Any) -> bool:
    """Whether ``eta``, ``mean_runs`` or ``held_out``, checked, differs from its default."""
    eta, mean_runs, held_out = checked_options(eta, mean_runs, held_out)
    return eta != 1 or mean_runs is not None or held_out != HELD_OUT


def _checked_rule(m: int, eta: Any, mean_runs: Any, held_out: Any) -> tuple[StoppingRule, float]:
    """The stopping rule of the checked ``eta`` and ``mean_runs`` for ``m`` candidates, and ``held_out``."""
    eta, mean, held_out = checked_options(eta, mean_runs, held_out)
    if mean is None:  # the default, m candidates' worth, within the same limits as a given one (taken exact)
        mean = RUNS_PER_CANDIDATE * m
        positive("mean_runs", mean, minimum=MIN_MEAN_RUNS, maximum=MAX_MEAN_RUNS)
    return StoppingRule.with_mean(mean, eta), held_out


def _least_epsilon(eta: int) -> float:
    """The least double epsilon whose run budget (:func:`~dpcvx.privacy.stopping.run_budget`, rounded down) is at
    least ``EPSILON_MIN``: EPSILON_MIN (2 + eta) is not, for about half of the etas up to 1000."""
    epsilon = EPSILON_MIN * (2 + eta)
    while run_budget(epsilon, eta) < EPSILON_MIN:
        epsilon = math.nextafter(epsilon, math.inf)
    return epsilon


def run(setup: Setup, X: Any, y: Any, accountant: PrivacyAccountant | None, verbose: bool, *, eta: int,
        mean_runs: float | None, held_out: float) -> tuple[TuningResult, Any, np.ndarray]:
    """Full-data selection on checked inputs (module docstring): the result, and (X, y) as the checks before the
    charge read them (:func:`~.checks.shaped_then_read`), which is all tune reads of the data after the charge."""
    m = len(setup.candidates)
    rule, held_out = _checked_rule(m, eta, mean_runs, held_out)
    budget, count_epsilon, curves, total = _plan(setup, rule)  # refuses a candidate without a pre-fit curve
    if setup.delta == 0 and budget < EPSILON_MIN:  # each run's fit and count take e_Q, a share of the user's epsilon
        raise InputError(f"dpcvx.tune: each run fits with e_Q = epsilon / (2 + eta) = {budget:.6g} (epsilon = "
                         f"{setup.epsilon:g}, eta = {rule.eta}), below the least epsilon a fit takes "
                         f"({EPSILON_MIN:g}); use epsilon >= {_least_epsilon(rule.eta)!r}. Nothing was charged")
    # every candidate's verdict before the data is read, then each on all rows, then rehearsed: the failure rule
    # (dpcvx.models.failure)
    try:
        shaped, X, y = shaped_then_read(setup, X, y, budget, PROCEDURE_NAME)
        n = X.shape[0]
        plans, least = check_and_rehearse(setup, X, y, [slice(None)] * m, budget, PROCEDURE_NAME, shaped,
                                          likely=lambda rows: training_chance(n, held_out, rows) >= 0.5,
                                          curves=curves)
    except InputError as error:
        if (setup.delta == 0 and "epsilon" in str(error) and not isinstance(error, LossDeclarationError)
                and error.args and isinstance(error.args[0], str)):
            # the candidate's message names the run's budget e_Q (a loss's declaration reads no budget, though its
            # text may say "epsilon"); said in place, so the error's class stays what it was
            error.args = (f"{error.args[0]} (in dpcvx.tune each run fits with e_Q = epsilon / (2 + eta) = "
                          f"{budget:.6g}, a share of epsilon = {setup.epsilon:g})", *error.args[1:])
        raise
    chance = training_chance(n, held_out, least)
    if chance < MIN_TRAINING_CHANCE:  # the coins drawn a million times a run on average
        raise InputError(f"dpcvx.tune: with held_out={held_out:g} and n={n} rows, a run's coins leave the "
                         f"{least} training row{'s' * (least > 1)} every candidate needs with chance "
                         f"{chance:.3g}; use a smaller held_out. Nothing was charged")
    conditional = any(plan_conditional(plan) for plan in plans)  # every run's guarantee enters the selection's
    if accountant is not None:
        accountant.spend(total, setup.delta, description=(f"dpcvx.tune (full-data selection, random stopping, "
                                                          f"eta={rule.eta}, m={m} candidates, n={n})"),
                         neighbours=Neighbours.REPLACE_ONE, conditional=conditional)
    source = setup.source
    runs = draw_runs(rule, source)
    best: tuple[float, int, Any, Any, Held] | None = None  # score, candidate, model, its diagnostics and warnings
    scores = []
    # no total: the count of fits is the realised K, for the data owner's terminal only (NOT PRIVATE)
    with progress(None, PROCEDURE_NAME, unit="fit", verbose=verbose) as bar, \
            composite(PROCEDURE_NAME), fixed_numerics():
        for _ in range(runs):
            train, hold = coin_parts(n, held_out, setup.rng, least)  # enough training rows for every candidate
            index = uniform_index(m, source)
            plan = plans[index]  # every run of a candidate that plans fits from its one plan
            learner = None if plan is not None else copy.deepcopy(setup.learners[index])
            # cannot fail under the rule; a failure is a bug, never a score. A run's clipping notes repeat on its part
            # what the checks on every row said once: shown per run, their count told the realised K
            with charged(PROCEDURE_NAME), notes_dropped():
                model, diagnostics, held = fit_candidate(setup, learner, plan, X[train], y[train], budget)
            check_release_cost(model, budget, setup.delta)
            if curves:
                check_run_curve(model, curves[index])
            units = total_units(setup.score, model, X[hold], y[hold]) if hold.size else 0
            score = -noisy_count(units, count_epsilon / setup.score.sensitivity, source) / max(hold.size, 1)
            scores.append(score)
            if best is None or score > best[0]:
                best = (score, index, model, diagnostics, held)
            bar.update()
    assert best is not None  # K >= 1 runs, none fails
    selected, model, owner, held = best[1:]  # owner: the data owner's diagnostics, never part of the release
    emit(held, tuned=True)  # the released run's public warnings, once
    certificate = SelectionCertificate(
        epsilon=total, run_epsilon=budget, eta=rule.eta, gamma=rule.gamma, candidates=setup.candidates,
        selected_index=selected, n=n, held_out=held_out, fit_params=setup.keywords,
        release=release_certificate(model), delta=setup.delta, run_delta=setup.delta,
        score_epsilon=float(count_epsilon) if curves else None, candidate_curves=curves,
        score=setup.score.to_dict(), conditional=conditional)
    facts: dict[str, Any] = {"runs": runs, "noisy_scores": tuple(scores)}
    if owner is not None:
        facts["selected_model"] = owner
    return TuningResult(model=model, params=dict(setup.candidates[selected]),
                        certificate=certificate, diagnostics_=Diagnostics(**facts)), X, y
