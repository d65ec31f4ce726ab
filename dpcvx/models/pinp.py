"""PINP: Private Interactive Non-linear Prediction (Jain and Thakurta, ICML 2013, Algorithm 1).

A trusted curator holds the exact minimiser w* and answers test queries z_1, z_2, ...
one at a time. It keeps a public iterate w_t = sum_tau a_tau phi(z_tau)
(starting at 0) and, per query, runs the sparse-vector test of whether w_t
is off at z (Dwork and Roth, Algorithm 1 "AboveThreshold", with a fresh
threshold perturbation each round):

    |<w* - w_t, phi(z)>| + Lap(4 Delta / eps_svt)  >=  tau + rho,   rho ~ Lap(2 Delta / eps_svt)

* below: answer <w_t, phi(z)> (public, free);
* above: answer yhat = <w*, phi(z)> + Lap(Delta / eps_ans), update
  w_{t+1} = w_t + eta sign(yhat - <w_t, phi(z)>) phi(z), start a new round.

Floating point: every noisy quantity is computed on the public lattice of spacing
gamma_L (a power of two) with EXACT discrete Laplace noise (:mod:`dpcvx.privacy.exact_sampling`,
randomness from the OS CSPRNG unless a seed is given): the secret is clamped to the
public bound (C + gamma) R and rounded to the lattice, the noise is an exact integer,
and the sensitivity in lattice steps K charges Delta, the rounding and twice the
proved floating-point error of evaluating <w~, phi(z)> (:mod:`dpcvx.privacy.lattice`).
The outputs under neighbouring data sets then have the same support and the ratio
of their probabilities is bounded as in exact arithmetic: no support attack in the
manner of Mironov (2012) applies. The certificate's calibration names the guarantee
(``float_guarantee``: "exact" for the rbf and laplacian kernels, whose evaluation
error is proved; "mitigation-only" otherwise). Proof: docs/theory.md, "Floating
point: PINP's answers".

Each round is eps_r = eps_svt + eps_ans pure DP; at most B rounds are
composed (:mod:`dpcvx.privacy.composition`). After B updates the budget is spent: the
curator refuses further queries with :class:`BudgetExceededError`, and the
public iterate (:meth:`PINP.public_predictor`) answers them for free. The
paper's single-noise test is replaced by AboveThreshold, whose privacy proof
covers adaptively chosen queries; parameters: :func:`dpcvx.privacy.kernel_calibrate.pinp_parameters`.

w* is the minimiser certified to the public tolerance gamma; every noise
scale uses the enlarged query sensitivity (2 L R / (lam n) + 2 gamma) R.
Privacy: Jain and Thakurta 2013, Theorem 2, for replace-one neighbours with n
public, re-derived in docs/theory.md (section 11, K5).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..data.kernels import KernelSpec, as_rows, kernel_expansion, quiet_after_charge
from ..data.notes import checks_then_notes
from ..exceptions import BudgetExceededError, InputError, float_errors_ignored, not_fitted_error
from ..privacy import process_token
from ..privacy.accountant import PrivacyAccountant
from ..privacy.exact_sampling import IntegerSource, discrete_laplace, integer_source
from ..privacy.kernel_calibrate import (
    PINPParameters,
    check_failure_probability,
    check_max_queries,
    check_max_updates,
    loss_radius,
    pinp_parameters,
)
from ..privacy.lattice import clamp_secret, float_kernel_name, from_lattice, to_lattice
from ..privacy.rng import RandomState
from ..release.kernel_model import KernelPredictor, PrivateKernelModel, kernel_labels
from ..release.model import named, scoring_weights, weighted_share
from ..solvers.kernel import KernelERM, as_labels
from . import training_rows
from .kernel_learner import Budget, Diagnostics, TrainingSetLearner, check_budget, check_coefficient_bound

__all__ = ["PINP"]

NORM_SLACK = 1e-12


class PINP(TrainingSetLearner):
    """Interactive private predictions (Jain and Thakurta, ICML 2013, Algorithm 1).

    Parameters as :class:`~dpcvx.models.kernel_learner.PrivateKernelLearner`, plus
    ``max_queries`` T (the accuracy guarantee covers the first T answers),
    ``failure_probability`` beta and ``max_updates`` B (None: the B that
    minimises sigma). After ``fit(X, y, epsilon, delta)`` call :meth:`query` per test point, or
    :meth:`decision_function` / :meth:`predict` for a batch answered in order.
    The whole transcript is (epsilon, delta)-DP with respect to (X, y).

    The object is the trusted curator: it keeps w* and the current round's
    threshold perturbation in memory; only answers and :meth:`public_predictor`
    leave it, so :meth:`fit` returns the curator itself. :meth:`release`
    gives the transcript as a :class:`~dpcvx.release.kernel_model.PrivateKernelModel`
    (the public iterate, the answers and the update count, privatised, with the
    certificate); ``diagnostics_`` (NOT PRIVATE) holds the solve report.
    """

    algorithm = "PINP (Jain and Thakurta 2013, Algorithm 1)"
    predicts_per_row = False  # interactive: answers depend on the queries asked (models.contract)
    theorem = ("Jain and Thakurta (ICML 2013), Theorem 2 (privacy of PINP, Algorithm 1), as re-derived "
               "in docs/theory.md (section 11, K5): AboveThreshold rounds plus Laplace answers, composed "
               "over at most B updates, with the query sensitivity enlarged by 2 gamma R for the "
               "certified approximate minimiser; every noisy value on a public lattice with exact "
               "discrete Laplace noise (Canonne, Kamath and Steinke 2020), the rounding and the "
               "floating-point evaluation error charged to the sensitivity (docs/theory.md, "
               "\"Floating point: PINP's answers\")")
    _param_names = TrainingSetLearner._param_names + (
        "max_queries", "failure_probability", "max_updates")
    # T in [1, 2^53], beta in (0, 1), B None or in [1, 10^7] (:func:`~dpcvx.privacy.kernel_calibrate.pinp_options`):
    # checked by the constructor, set_params and fit before any data is read
    max_queries: int
    failure_probability: float
    max_updates: int | None
    _parameter_checks = {**TrainingSetLearner._parameter_checks, "max_queries": check_max_queries,
                         "failure_probability": check_failure_probability, "max_updates": check_max_updates}

    def __init__(self, kernel: KernelSpec = "rbf", *, lam: float, max_queries: int, failure_probability: float = 0.05,
                 max_updates: int | None = None, **options: Any) -> None:
        super().__init__(kernel, lam=lam, **options)
        self.set_params(max_queries=max_queries, failure_probability=failure_probability, max_updates=max_updates)
        self.parameters_: PINPParameters | None = None

    def _check(self, X: ArrayLike, y: ArrayLike, budget: Budget) -> tuple[KernelERM, PINPParameters]:
        """Every input and public constant of a fit; raises before anything is charged or solved."""
        with checks_then_notes():  # the clipping count shown once every check below has passed
            model = self._check_training(X, y, delta=budget.delta)
            model.check_query_shapes()  # a query's kernel call (a point against the rows), on public points
            kernel, loss = model.kernel, model.loss
            radius = loss_radius(self.lam, loss, kernel.feature_bound)
            parameters = pinp_parameters(
                model.n, self.lam, loss.lipschitz_bound, kernel.feature_bound, radius, budget.epsilon,
                budget.delta, self.max_queries, self.failure_probability, self.max_updates,
                kernel_name=float_kernel_name(kernel), n_features=model.n_features)
            return model, parameters

    @float_errors_ignored
    def fit(self, X: ArrayLike, y: ArrayLike, epsilon: float, delta: float = 0.0, *, random_state: RandomState = None,
            accountant: PrivacyAccountant | None = None,
            sample_weight: None = None) -> PINP:
        """Prepare to answer queries. Every input is checked first, then ``accountant``
        (optional) is charged the whole (epsilon, delta) once, then the model is solved.

        No noise is drawn here: each query's answer draws its own, when it is asked. A ``numpy.random.Generator``
        given as ``random_state`` is therefore kept and drawn from by the queries (after fit, in their order), not
        by this call; an integer seed fixes every answer's noise; None draws each from OS entropy.

        Paper: Jain and Thakurta (ICML 2013), Algorithm 1 and Theorem 2 (privacy of PINP); proof: docs/theory.md,
        section 11, K5."""
        budget = check_budget(epsilon, delta, random_state, accountant, type(self).__name__, sample_weight)
        model, parameters = self._check(X, y, budget)
        self._charge(budget)
        model = self.solve_curator_model(model)
        check_coefficient_bound(model, parameters.coefficient_bound, "no query was answered")
        # the curator's state, set once nothing after the charge can raise (a refused solve leaves the last fit's)
        self._model = model
        self._budget = budget
        self.parameters_ = parameters
        self.diagnostics_ = Diagnostics(solve_report=model.report)
        self._source: IntegerSource = integer_source(None if random_state is None else budget.rng)
        self._centers: list[np.ndarray] = []
        self._coef: list[float] = []
        self._answers: list[float] = []
        self._round_shift: int | None = None
        self.updates_used_ = 0
        self.queries_answered_ = 0
        self._process = process_token.current()  # its budget is answered from this process only (query)
        self._query_lock = threading.Lock()  # one query at a time: B is checked and spent in one step
        self._after_release(parameters.vacuous_finding(), model.fitted_rows, y)
        return self

    def _check_training_rows(self, X: ArrayLike, y: ArrayLike) -> None:
        """NOT PRIVATE, after the fit: the answers PINP's training rows are expected to get as queries, judged on
        them (:mod:`dpcvx.models.training_rows`). With the public iterate w_0 = 0, a query whose |<w*, phi(z)>| lies
        below the threshold tau crosses it only by noise and is answered 0 (the class -1); one above it may be
        answered near <w*, phi(z)>. No query is answered and nothing is charged: the curator's w* is read here,
        for its owner's eyes only (no answer ever comes from it without noise). Not run where the check is off
        (:func:`~dpcvx.models.training_rows.runs_here`), as the other learners' is not. ``X`` is the rows as
        fitted (a row beyond floating point the zero row), and where a callable kernel fails on them the note is
        left unsaid: it runs after the charge and must not raise (a callable's entry on a huge row against the rows
        as given overflowed and raised, after the charge, leaving the curator fitted with a live budget). Not
        :meth:`~dpcvx.solvers.kernel.KernelERM.answer`'s rule, whose pair-by-pair fallback is n^2 calls here."""
        if not training_rows.runs_here():
            return
        try:
            with quiet_after_charge():  # the callable's own warnings on the rows: not shown after the charge
                scores = self._model.predict(as_rows(X))
        except InputError:  # the kernel callable on a row: a note is not worth a raise after the charge
            return
        threshold = self._session().threshold
        expected = kernel_labels(np.where(np.abs(scores) >= threshold, scores, 0.0))  # one below tau: answer 0
        training_rows.warn_on_training_rows(type(self).__name__, expected, np.ravel(y), unweighted=training_rows.KERNEL)

    def _session(self) -> PINPParameters:
        if self.parameters_ is None:
            raise not_fitted_error("This PINP instance is not fitted yet. Call 'fit' with appropriate arguments "
                                   "(fit(X, y, epsilon)) before using this curator.")
        return self.parameters_

    def public_predictor(self) -> KernelPredictor:
        """The public iterate w_t (its centres are the queries that caused updates)."""
        self._session()
        centers = np.array(self._centers).reshape(-1, self._model.n_features)
        return KernelPredictor(self._model.kernel, centers, np.array(self._coef), privatised=("centers", "coef"))

    def release(self) -> PrivateKernelModel:
        """The transcript so far: the public iterate, the answers and the count of answered updates (privatised,
        one per released centre), with the certificate of the whole (epsilon, delta). An update whose answer's draw
        was interrupted counts against B (:attr:`updates_used_`) but released no centre, so it is not in the
        transcript's count, which a model file's loader checks against the centres."""
        parameters = self._session()
        self.predictor_ = self.public_predictor()
        certificate = self._certificate(self._model, self._budget, parameters)
        self.model_ = named(PrivateKernelModel(self.predictor_, certificate, {
            "answers": list(self._answers), "updates_used": len(self._centers)}),
            vars(self).get("feature_names_in_"))  # the fitted table's column names, which its predictions check
        return self.model_

    def _public_value(self, point: np.ndarray) -> float:
        if not self._coef:
            return 0.0
        centers = np.array(self._centers)
        return float(kernel_expansion(self._model.kernel, point, centers, np.array(self._coef))[0])

    def _check_queries(self, Z: ArrayLike, name: str, one_point: bool = False) -> np.ndarray:
        """Queries as rows (``one_point``: a 1-D z is one point, as :meth:`query` takes it), each with
        ||phi(z)|| <= R_phi and a table's columns those of the training table (:meth:`_check_rows`): public checks,
        before any noise."""
        self._check_rows(Z)
        points = as_rows(Z, name, self._model.n_features, one_point=one_point, owner="PINP")
        kernel = self._model.kernel
        with np.errstate(invalid="ignore"):  # k(z, z) NaN: refused below, from the query alone
            norms = np.sqrt(np.maximum(kernel.diagonal(points), 0.0))
        beyond = np.flatnonzero(~(norms <= kernel.feature_bound * (1 + NORM_SLACK)))  # NaN too
        if beyond.size:
            raise InputError(
                f"query row {int(beyond[0])} has ||phi(z)|| = sqrt(k(z, z)) not finite or above the public "
                f"bound R_phi = {kernel.feature_bound:g}; scale it into the input domain "
                "(||z|| <= input_bound); no query of this call was answered"
            )
        self._check_query_count(points.shape[0], self._session())
        return points

    def _check_query_count(self, asked: int, parameters: PINPParameters) -> None:
        """Refuse a call that would take the answers past T = ``max_queries`` (public: the count of the analyst's own
        queries), before any is answered: sigma is calibrated with ln(3 T / beta), so the accuracy guarantee covers T
        answers; the curator answered past T and its transcript recorded 60 answers under a certificate for 5 (an
        attacker probe, sixty-second session). The privacy proof (B rounds of the sparse vector) does not read T."""
        if self.queries_answered_ + asked > parameters.max_queries:
            raise BudgetExceededError(
                f"PINP has answered {self.queries_answered_} of its T = {parameters.max_queries} queries "
                f"(max_queries), and this call asks {asked} more: its accuracy guarantee (sigma, w.p. >= 1 - beta) "
                "covers T answers, so none of this call was answered; public_predictor() answers further queries "
                "at no privacy cost, and a new curator with a larger max_queries plans for more")

    def __getstate__(self) -> dict[str, Any]:
        """An unfitted learner copies as its parameters; a fitted curator cannot be copied or pickled: it holds the
        private rows' exact minimiser w*, and a copy would answer with the whole budget of B updates again (workers
        of joblib made 581 updates against B = 364, and the original counted none)."""
        if getattr(self, "parameters_", None) is not None:
            raise InputError("a fitted PINP curator cannot be copied or pickled: it holds the exact minimiser of the "
                             "private rows, and a copy would answer queries with the whole privacy budget again. "
                             "Query it in its own process, one query at a time; release() gives the transcript and "
                             "public_predictor() the public iterate, both free to copy")
        return super().__getstate__()

    @float_errors_ignored
    def query(self, z: ArrayLike) -> float:
        """A private prediction of ``<w*, phi(z)>`` for one point z; queries from several threads are answered one at a
        time, and a curator inherited by another process (a fork) answers none."""
        parameters = self._session()
        if self._process != process_token.current():
            raise InputError("this PINP curator was made in another process and inherited by this one (a fork): "
                             "its answers would spend a budget its owner never counts; query it in its own process")
        point = self._check_queries(z, "z", one_point=True)
        if point.shape[0] != 1:
            raise InputError(f"query takes one point, got {point.shape[0]}; use decision_function")
        with self._query_lock:
            return self._answer(point, parameters)

    def _answer(self, point: np.ndarray, parameters: PINPParameters) -> float:
        """:meth:`query`'s answer to one checked point, under the curator's lock."""
        self._check_query_count(1, parameters)  # again under the lock: another thread may have answered meanwhile
        if self.updates_used_ >= parameters.max_updates:
            raise BudgetExceededError(
                f"PINP has made its B = {parameters.max_updates} updates and its privacy budget is "
                "spent; public_predictor() answers further queries at no privacy cost"
            )
        public = self._public_value(point)
        threshold_scale, query_scale, answer_scale = parameters.lattice_scales()
        spacing = parameters.lattice
        if self._round_shift is None:
            self._round_shift = discrete_laplace(threshold_scale, self._source)
        secret = to_lattice(self._secret(point, parameters.magnitude_bound), spacing, parameters.magnitude_bound)
        gap = abs(secret - to_lattice(public, spacing))
        noisy_gap = gap + discrete_laplace(query_scale, self._source)
        self.queries_answered_ += 1
        if noisy_gap < parameters.threshold_steps + self._round_shift:
            self._answers.append(public)
            return public
        # the test said "above": it counts against B and closes the round before anything else is drawn, so an
        # interrupt during the answer's draw (the longer branch) cannot read the test's outcome for free
        self.updates_used_ += 1
        self._round_shift = None
        answer = from_lattice(secret + discrete_laplace(answer_scale, self._source), spacing)
        self._centers.append(point[0].copy())  # the query's own copy: a view moved with the caller's later changes
        self._coef.append(parameters.step if answer >= public else -parameters.step)
        self._answers.append(answer)
        return answer

    def _secret(self, point: np.ndarray, bound: float) -> float:
        """<w*, phi(z)> for the checked ``point``, evaluated on the private rows after the charge by a public rule that
        never raises: a callable kernel's entry that is not finite or raises is 0
        (:meth:`~dpcvx.solvers.kernel.KernelERM.answer`), and a sum beyond floating point is clamped as the lattice
        clamps every value (+-inf to +-``bound``, the NaN of inf - inf to 0). For a positive semidefinite kernel
        neither rule fires (docs/theory.md, section 11, K5, "A callable kernel's answers are total"); before, a
        query whose kernel call failed on one neighbour's rows raised, answered nothing and spent nothing: a free,
        repeatable membership test (10 of 10 seeds against 0 of 10, an attacker probe, sixty-fourth session)."""
        return float(clamp_secret(self._model.answer(point), bound)[0])

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Answers to the rows of X, queried in order."""
        self._session()
        return self._answer_rows(self._check_queries(X, "X"))  # every row checked before the first is answered

    def _answer_rows(self, rows: np.ndarray) -> np.ndarray:
        """The answers to ``rows``, checked by :meth:`_check_queries`, queried in order."""
        return np.array([self.query(row) for row in rows])

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Labels in {-1, +1} of the rows of X, queried in order: +1 where the answer is > 0, else -1 (a row answered
        without an update is answered exactly 0: -1), as every kernel release and linear model labels a score."""
        self._session()
        return self._labels(self._check_queries(X, "X"))

    def _labels(self, rows: np.ndarray) -> np.ndarray:
        """+1 where the answer to a checked row is > 0, else -1 (an answer of exactly 0 is -1): the kernel
        learners' one rule, :func:`~dpcvx.release.kernel_model.kernel_labels`."""
        return kernel_labels(self._answer_rows(rows))

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: Any = None) -> float:
        """Accuracy of the answers to the rows of X (queried in order), weighted by ``sample_weight`` when given
        (:func:`~dpcvx.release.model.weighted_share`). X, y and the weights are checked before the first row is
        answered: every answer spends the curator's budget and enters its transcript, so a refusal answers none."""
        self._session()
        rows = self._check_queries(X, "X")
        labels = as_labels(y, rows.shape[0])
        weights = scoring_weights(sample_weight, rows.shape[0])
        return weighted_share(self._labels(rows) == labels, weights)
