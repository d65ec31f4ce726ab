"""What TDDL, PINP and TDIL share: kernel and loss arguments, the checks of a fit, the curator's
model, the release and its certificate, the curator's diagnostics.

The constructor takes only model parameters (kernel, lam, loss, gamma, ...);
the budget comes with the data, as for :meth:`dpcvx.PrivateERM.fit`:
``fit(X, y, epsilon, delta=0.0, *, random_state=None, accountant=None)``.
Every ``fit`` runs in one order: check ALL inputs (data, public sample,
parameters, budget, kernel, loss, random_state, accountant) and derive every
public constant, then charge the accountant once, then solve and draw noise.
A call refused for bad input spends nothing.

The loss is verified once per fit (:func:`dpcvx.verification.kernel_loss.resolve_loss`);
the one :class:`~dpcvx.verification.kernel_loss.KernelLoss` it returns flows to
the calibration (L, l(0), inf l), the solver (its derivatives or two pieces)
and the certificate; nothing downstream calls the user's loss again.

What a fit releases is a :class:`~dpcvx.release.kernel_model.PrivateKernelModel`
(predictor and :class:`~dpcvx.release.kernel_model.KernelReleaseCertificate`):
public inputs, constants derived from them and privatised values only. Facts
measured on the private data (the solver's iterations, time, residuals) are in
``diagnostics_``, for the curator only, whose repr starts with
"NOT PRIVATE: do not publish".
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ..data.kernels import Kernel, KernelSpec, as_rows, make_kernel, quiet_after_charge
from ..exceptions import InputError, NoiseDominatesWarning, SolverError, not_fitted_error
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.composition import check_delta
from ..privacy.kernel_calibrate import NEIGHBOUR_RELATION, KernelCalibration, KernelConstants
from ..privacy.neighbours import Neighbours
from ..privacy.rng import NoiseSource, RandomState, resolve_rng
from ..progress import progress
from ..release.kernel_model import KernelPredictor, KernelReleaseCertificate, PrivateKernelModel
from ..release.usefulness import speaker, warn_release
from ..solvers.kernel import KernelERM, as_labels
from ..tables import check_names, feature_names
from ..validation import (
    Check,
    check_delta_for_n,
    check_epsilon,
    check_flag,
    check_lam,
    check_parameters,
    refuse_unknown_parameters,
    refuse_weights,
)
from ..verification.kernel_loss import KernelLoss, LossSpec, resolve_loss
from ..version import __version__
from . import training_rows
from .contract import without_diagnostics
from .erm_inputs import SETTINGS

__all__ = ["PrivateKernelLearner", "Diagnostics", "NOT_PRIVATE", "NEIGHBOUR_RELATION", "Budget"]

NOT_PRIVATE = "NOT PRIVATE: do not publish"


class Diagnostics(Mapping):
    """Facts measured on the private data, for the curator's eyes only (NOT PRIVATE).

    A read-only mapping; deliberately not a dict, so ``json.dumps`` refuses it
    and it cannot slip into a release by accident.
    """

    def __init__(self, **facts: Any) -> None:
        self._facts = dict(facts)

    def __getitem__(self, key: str) -> Any:
        return self._facts[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._facts)

    def __len__(self) -> int:
        return len(self._facts)

    def __repr__(self) -> str:
        return (f"{NOT_PRIVATE} (measured on the private training data, outside the release's proof; a noisy "
                "count here, such as tune's noisy_scores, is still not released): "
                + ", ".join(f"{key}={value!r}" for key, value in self._facts.items()))

    __str__ = __repr__


@dataclass(frozen=True)
class Budget:
    """The checked budget of one fit: (epsilon, delta), the noise's generator, the accountant, and where the noise
    comes from (``noise_source``, the certificate's :class:`~dpcvx.privacy.rng.NoiseSource` of the fit's
    ``random_state``)."""

    epsilon: float
    delta: float
    rng: np.random.Generator
    accountant: PrivacyAccountant | None
    noise_source: NoiseSource


def check_budget(epsilon: Any, delta: Any, random_state: RandomState, accountant: Any, owner: str = "fit",
                 sample_weight: None = None) -> Budget:
    """Check the budget arguments of ``owner``'s fit (nothing is charged or drawn); ``sample_weight``
    other than None is refused (:func:`dpcvx.validation.refuse_weights`)."""
    refuse_weights(owner, sample_weight=sample_weight)
    try:
        checked = check_epsilon(epsilon)
    except InputError as error:  # the one refusal of every entry, with where the budget goes (an array there: Z?)
        if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
            public_sample = "; TDDL takes its public sample as the keyword Z=" if owner == "TDDL" else ""
            raise InputError(f"{error}. The budget is fit's third argument (fit(X, y, epsilon, ...)){public_sample}"
                             ) from None
        raise
    return Budget(checked, check_delta(delta), resolve_rng(random_state), check_accountant(accountant),
                  NoiseSource.of(random_state))


def check_coefficient_bound(model: KernelERM, bound: float, nothing: str) -> None:
    """The hypothesis of a proved evaluation error: sum_i |beta_i| <= A for the solver's representer
    coefficients (the KKT conditions give L / lam at the exact minimiser; A = 2 L / lam is twice that).
    Checked before any noise is drawn; ``bound`` 0 means no proved error rests on it. ``nothing`` says
    what was not released ("no query was answered")."""
    weights = model._weights
    assert weights is not None, "the kernel ERM must be solved first"
    if bound > 0 and not float(np.sum(np.abs(weights))) <= bound * (1 - 1e-9):
        raise SolverError("the solver's representer coefficients exceed the public bound 2 L / lam on which the "
                          f"floating-point error bound of the released values rests; {nothing}")


class PrivateKernelLearner:
    """Base of the private kernel learners (Jain and Thakurta, ICML 2013).

    Parameters shared by all of them:

    kernel : "rbf", "laplacian", "linear", "poly", a :class:`dpcvx.data.kernels.Kernel`
        or a callable ``(X, Y) -> Gram`` (then ``feature_bound`` is required).
    lam : ridge of the kernel ERM (1/n) sum l(y_i <w, phi(x_i)>) + (lam/2)||w||^2.
    loss : "hinge" (default), a catalogue spec ("logistic", "huber_hinge:h=0.5")
        or a callable z -> CVXPY expression; L comes from :func:`dpcvx.verify`.
    gamma, degree, offset : kernel parameters (public; gamma has no default).
    input_bound : public bound B on ||x|| (linear and poly kernels; TDIL's ball radius).
    feature_bound : public R_phi for a callable kernel.
    time_limit : seconds for the verification of the loss (default None: 20), one deadline for its proving calls
        and the kernel facts (l(0), inf l, the two pieces; :func:`~dpcvx.verification.kernel_loss.resolve_loss`):
        what it cuts short is not proved. Checked as :class:`~dpcvx.PrivateERM`'s, before any data is read or
        anything charged; a catalogue loss needs no time.
    verbose : show the progress of the public steps (:mod:`dpcvx.progress`).
    allow_large_delta : delta must be below 1/n (n the training rows, public) unless this is True
        (:func:`dpcvx.validation.check_delta_for_n`, PrivateERM's check); refused before any charge.

    An unknown keyword is refused (InputError naming the learner and its parameters), as by ``set_params``.

    ``fit(X, y, epsilon, delta=0.0, *, random_state=None, accountant=None)``:
    (epsilon, delta) is the budget of the whole procedure (delta = 0: pure
    epsilon-DP); ``random_state`` None draws from OS entropy (for releases), an
    int or a Generator reproduces the noise (experiments only).

    Privacy is proved for replace-one neighbours with n public
    (:data:`NEIGHBOUR_RELATION`); each release's certificate states it and the theorem.
    """

    algorithm: ClassVar[str] = "kernel"
    predicts_per_row: ClassVar[bool] = True  # TDDL and TDIL release a predictor (models.contract)
    theorem: ClassVar[str] = ""
    classes: ClassVar[tuple] = (-1.0, 1.0)  # the public label pair (labels are never mapped)
    _param_names: ClassVar[tuple[str, ...]] = (
        "kernel", "lam", "loss", "gamma", "degree", "offset", "input_bound", "feature_bound", "time_limit", "verbose",
        "allow_large_delta")
    #: the checks of the parameters the kernel does not check, run by the constructor, set_params and again by
    #: fit (an attribute may have been replaced since), before anything is charged
    _parameter_checks: ClassVar[dict[str, Check]] = {"lam": check_lam, "time_limit": SETTINGS["time_limit"],
                                                     "verbose": check_flag, "allow_large_delta": check_flag}

    def __getstate__(self) -> dict[str, Any]:
        """A copy or a pickle holds the settings and what the fit kept, never
        :func:`~dpcvx.models.contract.without_diagnostics`'s."""
        return without_diagnostics(self)

    def __init__(self, kernel: KernelSpec = "rbf", *, lam: float, loss: LossSpec = "hinge", gamma: float | None = None,
                 degree: int = 3, offset: float = 1.0, input_bound: float | None = None,
                 feature_bound: float | None = None, time_limit: float | None = None, verbose: bool = False,
                 allow_large_delta: bool = False, **unknown: Any) -> None:
        self._refuse_unknown(unknown, constructor=True)  # a subclass passes on the keywords it does not name
        self.kernel = kernel
        self.lam = check_lam("lam", lam)
        self.loss = loss
        self.gamma, self.degree, self.offset = gamma, degree, offset
        self.input_bound, self.feature_bound = input_bound, feature_bound
        self.time_limit = SETTINGS["time_limit"]("time_limit", time_limit)
        self.verbose = check_flag("verbose", verbose)
        self.allow_large_delta = check_flag("allow_large_delta", allow_large_delta)
        self.predictor_: KernelPredictor | None = None
        self.model_: PrivateKernelModel | None = None
        self._verified: tuple[Any, float | None, KernelLoss] | None = None

    # -- the order of a fit: check, charge, solve ------------------------------------------

    def _make_kernel(self) -> Kernel:
        return make_kernel(self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset,
                           input_bound=self.input_bound, feature_bound=self.feature_bound)

    def _verified_loss(self, time_limit: float | None) -> KernelLoss:
        """The loss verified once for this learner's ``loss`` within the checked ``time_limit`` (again only if
        either is replaced)."""
        if self._verified is None or self._verified[0] is not self.loss or self._verified[1] != time_limit:
            self._verified = (self.loss, time_limit, resolve_loss(self.loss, time_limit=time_limit))
        return self._verified[2]

    def _settings(self) -> tuple[dict[str, Any], Kernel, KernelLoss]:
        """(the checked parameters the kernel does not check, the kernel, the verified loss): the settings every
        kernel learner's fit checks, reading no data (:meth:`_check_training`, :meth:`check_options`)."""
        checked = check_parameters(self, self._parameter_checks)
        return checked, self._make_kernel(), self._verified_loss(checked["time_limit"])

    def _check_settings(self) -> None:
        """Raise the error :meth:`fit` raises for this learner's settings before it reads any data, in fit's
        order: :meth:`_settings`; a subclass adds the settings its own fit checks without data."""
        self._settings()

    def check_options(self, epsilon: float, delta: float = 0.0, *, random_state: RandomState = None,
                      sample_weight: None = None) -> None:
        """Raise the error :meth:`fit` would raise for these options before it reads any data, charging and drawing
        nothing: the budget and weights (:func:`check_budget`), ``random_state`` and the learner's settings
        (:meth:`_check_settings`). For a caller that holds the options before the data
        (:func:`dpcvx.as_opendp_measurement`); ``check_fit_inputs`` checks the data too (delta below 1/n among
        them: n is the data's)."""
        check_budget(epsilon, delta, random_state, None, type(self).__name__, sample_weight)
        self._check_settings()

    def _check_training(self, X: ArrayLike, y: ArrayLike, landmarks: np.ndarray | None = None, *,
                        delta: float | None = None) -> KernelERM:
        """Check X, y, kernel and loss and build the Gram matrix (over span phi(landmarks) when
        PUBLIC landmarks are given); nothing is solved or charged. A fit's ``delta`` must be below 1/n (n public:
        replace-one) unless ``allow_large_delta`` (:func:`~dpcvx.validation.check_delta_for_n`)."""
        checked, kernel, loss = self._settings()
        names = feature_names(X)  # the table's column names (public), kept once the fit has released (_after_release)
        X = as_rows(X)
        y = as_labels(y, X.shape[0])
        self._names_read = (names, X.shape[1])
        if delta is not None:
            check_delta_for_n(delta, X.shape[0], checked["allow_large_delta"])
        return KernelERM(X, y, kernel=kernel, loss=loss, lam=checked["lam"], solve=False, landmarks=landmarks)

    def _charge(self, budget: Budget) -> None:
        """Charge (epsilon, delta) to the accountant once, after every check (it refuses when over budget).

        The kernel learners are proved for replace-one neighbours with n public (their noise scales
        use n): an add-remove accountant refuses the charge, and nothing is solved or drawn."""
        if budget.accountant is not None:
            budget.accountant.spend(budget.epsilon, budget.delta, description=f"{type(self).__name__}.fit",
                                    neighbours=Neighbours.REPLACE_ONE)

    def solve_curator_model(self, checked: KernelERM) -> KernelERM:
        """Extension hook: the non-private minimiser of the model the checks built (private; kept
        only as long as needed).

        Called by ``fit`` after the charge. A subclass may override it to share one
        deterministic solve between fits (benchmarks/kernels.py); it must return the
        minimiser of ``checked``'s problem to the public tolerance, which is what the
        guarantee covers.

        The solve is the long part of a fit (over the whole RKHS an O(n^3) factorisation per step): with
        ``verbose`` its steps are counted on a bar (:mod:`dpcvx.progress`, open-ended: how many the solver
        takes follows the data, so the bar is the curator's view on their terminal, never released).
        """
        with progress(None, f"{type(self).__name__} kernel solve (n = {checked.n:,})", unit="step",
                      verbose=self.verbose) as bar:
            return checked.solve(bar)

    def fit_nonprivate(self, X: Any, y: Any) -> KernelERM:
        """The kernel ERM minimiser over the whole RKHS, to the public tolerance: NOT private, a baseline.

        The curator's model (:class:`dpcvx.solvers.kernel.KernelERM`), checked like a fit's
        and never released: compare a release's accuracy with its ``predict``.
        """
        return self._check_training(X, y).solve()

    # -- the release ---------------------------------------------------------------------------

    def _certificate(self, model: KernelERM, budget: Budget, calibration: KernelCalibration
                     ) -> KernelReleaseCertificate:
        """Theorem, neighbours, every constant with how it was established, budget and calibration."""
        loss, kernel = model.loss, model.kernel
        constants = KernelConstants(n=model.n, lam=self.lam, L=loss.lipschitz, R_phi=kernel.feature_bound,
                                    loss_at_zero=loss.value_at_zero, loss_infimum=loss.infimum, loss=loss.text)
        return KernelReleaseCertificate(
            algorithm=type(self).__name__, theorem=self.theorem, epsilon=budget.epsilon, delta=budget.delta,
            constants=constants, calibration=calibration, kernel=_kernel_record(kernel), library_version=__version__,
            noise_source=budget.noise_source)

    def get_params(self, deep: bool = True) -> dict:
        """The constructor's parameters."""
        return {name: getattr(self, name) for name in self._param_names}

    def set_params(self, **params: Any) -> PrivateKernelLearner:
        """Set constructor parameters (as :func:`dpcvx.tune` does for each grid point); checked like
        the constructor. The budget is not a parameter: it is passed to ``fit``."""
        self._refuse_unknown(params)
        for name, value in params.items():
            check = self._parameter_checks.get(name)
            setattr(self, name, value if check is None else check(name, value))
        return self

    def _refuse_unknown(self, params: Mapping[str, Any], constructor: bool = False) -> None:
        """Refuse the keywords in ``params`` that are not this learner's parameters (the constructor's, a TypeError
        too, and set_params'), naming the learner and its parameters."""
        refuse_unknown_parameters(type(self).__name__, params, self._param_names,
                                  "epsilon, delta and random_state go to fit", constructor=constructor)

    def __repr__(self) -> str:
        params = ", ".join(f"{key}={value!r}" for key, value in self.get_params().items())
        return f"{type(self).__name__}({params})"

    def __str__(self) -> str:
        if self.model_ is None:
            return f"{self!r} (no release yet)"
        return str(self.model_.certificate)

    # -- prediction ------------------------------------------------------------------------------

    def _fitted(self, X: ArrayLike) -> KernelPredictor:
        """The released predictor, X checked against the training table (:meth:`_check_rows`)."""
        if self.predictor_ is None:
            raise not_fitted_error(f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                                   "appropriate arguments before using this estimator.")
        self._check_rows(X)
        return self.predictor_

    def _check_rows(self, X: ArrayLike) -> None:
        """Refuse a table whose column names differ, in names or order, from the training table's
        (:func:`dpcvx.tables.check_names`): the predictor reads a row's entries by position (TDDL fitted on
        ("age", "income") scored 0.395 against 0.875 on the same frame with its columns swapped, without a word)."""
        check_names(type(self).__name__, vars(self).get("feature_names_in_"), X)

    def _after_release(self, finding: str | None, rows: np.ndarray, y: ArrayLike) -> None:
        """After a release: the training table's width and column names (read before the charge) become
        ``n_features_in_`` and ``feature_names_in_`` (names only for a table whose names are text,
        :func:`dpcvx.tables.feature_names`), which predictions check (:meth:`_check_rows`); a refused fit leaves the
        last release's. Then a ``finding`` of its public parameters (the release is expected to be no better than 0
        or mostly noise) is warned as :class:`~dpcvx.exceptions.NoiseDominatesWarning` (public, shown and never
        raised: :func:`~dpcvx.release.usefulness.warn_release`); without one, the NOT PRIVATE check of its training
        rows runs (:meth:`_check_training_rows`) on ``rows``, the training rows as fitted
        (:attr:`~dpcvx.solvers.kernel.KernelERM.fitted_rows`: a row beyond floating point is the zero row)."""
        names, self.n_features_in_ = self._names_read
        if names is None:
            vars(self).pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names
        if finding is not None:
            warn_release(f"{speaker(type(self).__name__)}: {finding}", NoiseDominatesWarning)
        else:
            self._check_training_rows(rows, y)

    def _check_training_rows(self, X: ArrayLike, y: ArrayLike) -> None:
        """NOT PRIVATE, after a release: whether the released predictor is useless on its training rows ``X`` as
        fitted (fixed text, never inside tune, never in the release; :mod:`dpcvx.models.training_rows`). It runs
        after the charge, so it never raises: a user's kernel callable that fails on a row (an entry beyond floating
        point, an exception) leaves the note unsaid, where TDDL's fit raised after charging (a huge finite row, 10
        of 10 seeds against 0 of 10, an attacker probe, sixty-fourth session)."""
        if not training_rows.runs_here():
            return
        predictor = self.predictor_
        assert predictor is not None, "called after a release"
        try:
            with quiet_after_charge():  # the callable's own warnings on the rows: not shown after the charge
                predicted = predictor.predict(X)
        except InputError:  # the kernel callable on a row: a note is not worth a raise after the charge
            return
        training_rows.warn_on_training_rows(type(self).__name__, predicted, np.ravel(y),
                                            unweighted=training_rows.KERNEL, for_accuracy=True)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Real-valued predictions of the released predictor."""
        return self._fitted(X).decision_function(X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Labels in {-1, +1}."""
        return self._fitted(X).predict(X)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: Any = None) -> float:
        """Accuracy on labels in {-1, +1}, weighted by ``sample_weight`` when given."""
        return self._fitted(X).score(X, y, sample_weight)


def _kernel_record(kernel: Kernel) -> dict:
    """The kernel's public parameters; a callable kernel (not storable as data) by its repr."""
    try:
        return dict(kernel.to_dict())
    except InputError:
        return {"kernel": "callable", "repr": repr(kernel), "feature_bound": kernel.feature_bound}


class TrainingSetLearner(PrivateKernelLearner):
    """A kernel learner fitted on (X, y) alone, with no public sample (PINP, TDIL): the one input
    check of their ``fit``, run without charging or solving."""

    def _check(self, X: ArrayLike, y: ArrayLike, budget: Budget) -> Any:
        """Every input and public constant of a fit (the learner's own); raises before anything is spent."""
        raise NotImplementedError

    def check_fit_inputs(self, X: ArrayLike, y: ArrayLike, epsilon: float = 1.0, delta: float = 0.0, *,
                         random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
                         sample_weight: None = None) -> None:
        """Raise the error :meth:`fit` would raise for bad input, without charging or solving."""
        budget = check_budget(epsilon, delta, random_state, accountant, type(self).__name__, sample_weight)
        self._check(X, y, budget)
