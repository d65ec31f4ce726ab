"""What TDDL, PINP and TDIL share: kernel and loss arguments, input checks, the curator's model,
the release record, the curator's diagnostics, scoring.

Every ``fit`` runs in one order: check ALL inputs (data, public sample,
parameters, kernel, loss, random_state) and derive every public constant,
then charge the accountant once, then solve and draw noise. A call refused
for bad input spends nothing.

What a learner releases (:meth:`PrivateKernelLearner.to_dict`, ``to_json``,
``repr``, ``str`` and its public fitted attributes) holds only public inputs,
constants derived from them, and privatised values (named under a
"privatised" key). Facts measured on the private data (the solver's
iterations, time, residuals) are in ``diagnostics_``, for the curator only,
whose repr starts with "NOT PRIVATE: do not publish".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from ..exceptions import InputError
from ..privacy.composition import check_delta
from ..privacy.kernel_calibrate import NEIGHBOUR_RELATION, solve_tolerance_record
from ..privacy.rng import RandomState
from ..release.kernel_model import KernelPredictor
from ..solvers.kernel import KernelERM, as_labels
from ..validation import positive
from ..verification.kernel_loss import resolve_loss
from .kernels import Kernel, as_rows, make_kernel

__all__ = ["PrivateKernelLearner", "Diagnostics", "NOT_PRIVATE", "NEIGHBOUR_RELATION"]

NOT_PRIVATE = "NOT PRIVATE: do not publish"


class Diagnostics(Mapping):
    """Facts measured on the private data, for the curator's eyes only (NOT PRIVATE).

    A read-only mapping; deliberately not a dict, so ``json.dumps`` refuses it
    and it cannot slip into a release by accident.
    """

    def __init__(self, **facts):
        self._facts = dict(facts)

    def __getitem__(self, key):
        return self._facts[key]

    def __iter__(self):
        return iter(self._facts)

    def __len__(self) -> int:
        return len(self._facts)

    def __repr__(self) -> str:
        return (f"{NOT_PRIVATE} (measured on the private training data, no noise added): "
                + ", ".join(f"{key}={value!r}" for key, value in self._facts.items()))

    __str__ = __repr__


WITHHELD_SEED = "withheld (a seed or generator reproduces the noise; it is never released)"


def _public_param(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def _noise_source(random_state: Any) -> str:
    return "OS entropy (fresh per release)" if random_state is None else WITHHELD_SEED


class PrivateKernelLearner:
    """Base of the private kernel learners (Jain and Thakurta, ICML 2013).

    Parameters shared by all of them:

    kernel : "rbf", "laplacian", "linear", "poly", a :class:`dpcvx.models.kernels.Kernel`
        or a callable ``(X, Y) -> Gram`` (then ``feature_bound`` is required).
    lam : ridge of the kernel ERM (1/n) sum l(y_i <w, phi(x_i)>) + (lam/2)||w||^2.
    epsilon, delta : the privacy budget of the whole procedure (delta = 0: pure epsilon-DP).
    loss : "hinge" (default), a catalogue spec ("logistic", "huber_hinge:h=0.5")
        or a callable z -> CVXPY expression; L comes from :func:`dpcvx.verify`.
    gamma, degree, offset : kernel parameters (public; gamma has no default).
    input_bound : public bound B on ||x|| (linear and poly kernels; TDIL's ball radius).
    feature_bound : public R_phi for a callable kernel.
    random_state : None (OS entropy, for releases), an int or a Generator (experiments).

    Privacy is proved for replace-one neighbours with n public
    (:data:`NEIGHBOUR_RELATION`); each release states it and the theorem.
    """

    algorithm = "kernel"
    theorem: ClassVar[str] = ""
    classes: ClassVar[tuple] = (-1.0, 1.0)  # the public label pair (labels are never mapped)
    # fitted attributes that are functions of the privatised output (listed in to_dict()["privatised"])
    privatised_attributes: ClassVar[tuple[str, ...]] = ()
    _param_names: ClassVar[tuple[str, ...]] = (
        "kernel", "lam", "epsilon", "delta", "loss", "gamma", "degree", "offset", "input_bound",
        "feature_bound", "random_state")

    def __init__(self, kernel="rbf", *, lam: float, epsilon: float, delta: float = 0.0,
                 loss="hinge", gamma: float | None = None, degree: int = 3, offset: float = 1.0,
                 input_bound: float | None = None, feature_bound: float | None = None,
                 random_state: RandomState = None):
        self.kernel = kernel
        self.lam = positive("lam", lam)
        self.epsilon = positive("epsilon", epsilon)
        self.delta = check_delta(delta)
        self.loss = loss
        self.gamma, self.degree, self.offset = gamma, degree, offset
        self.input_bound, self.feature_bound = input_bound, feature_bound
        self.random_state = random_state
        self.predictor_: KernelPredictor | None = None

    # -- the order of a fit: check, charge, solve ------------------------------------------

    def _make_kernel(self) -> Kernel:
        return make_kernel(self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset,
                           input_bound=self.input_bound, feature_bound=self.feature_bound)

    def _check_training(self, X, y) -> KernelERM:
        """Check X, y, kernel and loss and build the Gram matrix; nothing is solved or charged."""
        kernel, loss = self._make_kernel(), resolve_loss(self.loss)
        X = as_rows(X)
        y = as_labels(y, X.shape[0])
        return KernelERM(X, y, kernel=kernel, loss=loss, lam=self.lam, solve=False)

    def _charge(self, accountant) -> None:
        """Charge (epsilon, delta) to ``accountant`` once, after every check (it refuses when over budget)."""
        if accountant is not None:
            accountant.spend(self.epsilon, self.delta, description=f"{type(self).__name__}.fit")

    def _curator_model(self, X, y) -> KernelERM:
        """The non-private minimiser to the public tolerance (private; kept only as long as needed).

        Inside ``fit`` this solves the model that the checks built (see
        :meth:`_solve_checked`); called on its own it checks, then solves.
        Subclasses may override it (for example to share one solve between fits).
        """
        pending, self._pending = getattr(self, "_pending", None), None
        if pending is not None and pending[0] is X and pending[1] is y:
            return pending[2].solve()
        return self._check_training(X, y).solve()

    def _solve_checked(self, X, y, checked: KernelERM) -> KernelERM:
        """Solve after the charge: ``_curator_model`` on the caller's X, y, reusing ``checked``."""
        self._pending = (X, y, checked)
        try:
            return self._curator_model(X, y)
        finally:
            self._pending = None

    # -- the release ---------------------------------------------------------------------------

    def _privacy_record(self, model: KernelERM, **details) -> dict:
        """Public constants of the release: budget, neighbour relation, theorem, solve tolerance."""
        L, R = model.loss.lipschitz, model.kernel.feature_bound
        return {"algorithm": self.algorithm, "epsilon": self.epsilon, "delta": self.delta,
                "neighbour_relation": NEIGHBOUR_RELATION, "theorem": self.theorem,
                "lam": self.lam, "n": model.n, "L": L, "R_phi": R, "loss": model.loss.text, **details,
                "solve_tolerance": solve_tolerance_record(model.n, self.lam, L, R)}

    def get_params(self) -> dict:
        """The constructor's parameters."""
        return {name: getattr(self, name) for name in self._param_names}

    def _release_params(self) -> dict:
        """The constructor's parameters as released: random_state is replaced by where the noise
        came from (a seed would let anyone regenerate and subtract the noise)."""
        params = {key: _public_param(value) for key, value in self.get_params().items()
                  if key != "random_state"}
        params["noise"] = _noise_source(self.random_state)
        return params

    def _release(self) -> dict:
        """The learner-specific part of :meth:`to_dict` (subclasses)."""
        return {"predictor": self._fitted().to_dict()}

    def _privatised(self) -> dict:
        return {name.rstrip("_"): getattr(self, name) for name in self.privatised_attributes}

    def to_dict(self) -> dict:
        """The release, JSON-ready: public parameters and constants, privatised values under
        "privatised" keys; no fact measured on the private data."""
        release = self._release()
        record = release.pop("privacy")
        result = {"type": type(self).__name__, "params": self._release_params(), "privacy": record,
                  **release}
        privatised = self._privatised()
        if privatised:
            result["privatised"] = privatised
        return result

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def __repr__(self) -> str:
        """The parameters, with random_state withheld (it would reproduce the noise)."""
        params = ", ".join(f"{key}={value!r}" for key, value in self.get_params().items()
                           if key != "random_state")
        return f"{type(self).__name__}({params})"

    def __str__(self) -> str:
        if self.predictor_ is None and getattr(self, "parameters_", None) is None:
            return f"{self!r} (not fitted)"
        record = self.to_dict()["privacy"]
        return "\n".join([
            f"{self.algorithm}: ({self.epsilon:g}, {self.delta:g})-differential privacy for the "
            f"{record['n']} training rows",
            f"neighbouring data sets: {record['neighbour_relation']}",
            f"theorem: {record['theorem']}",
            f"solve tolerance gamma = {record['solve_tolerance']['gamma']:.6g} on ||w~ - w*||_H; "
            f"sensitivity used ||w~_D - w~_D'||_H <= {record['solve_tolerance']['sensitivity_used']:.6g}",
        ])

    # -- prediction ------------------------------------------------------------------------------

    def _fitted(self) -> KernelPredictor:
        if self.predictor_ is None:
            raise InputError(f"{type(self).__name__} is not fitted yet: call fit first")
        return self.predictor_

    def decision_function(self, X):
        """Real-valued predictions of the released predictor."""
        return self._fitted().decision_function(X)

    def predict(self, X):
        """Labels in {-1, +1}."""
        return self._fitted().predict(X)

    def score(self, X, y) -> float:
        """Accuracy on labels in {-1, +1}."""
        return self._fitted().score(X, y)
