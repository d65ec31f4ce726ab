"""What TDDL, PINP and TDIL share: kernel and loss arguments, the curator's exact model, scoring."""

from __future__ import annotations

from .validation import positive
from .composition import check_delta
from .exceptions import InputError
from .kernel_erm import KernelERM
from .kernel_loss import resolve_loss
from .kernel_model import KernelPredictor
from .kernels import Kernel, make_kernel
from .rng import RandomState

__all__ = ["PrivateKernelLearner"]


class PrivateKernelLearner:
    """Base of the private kernel learners (Jain and Thakurta, ICML 2013).

    Parameters shared by all of them:

    kernel : "rbf", "laplacian", "linear", "poly", a :class:`dpcvx.kernels.Kernel`
        or a callable ``(X, Y) -> Gram`` (then ``feature_bound`` is required).
    lam : ridge of the kernel ERM (1/n) sum l(y_i <w, phi(x_i)>) + (lam/2)||w||^2.
    epsilon, delta : the privacy budget of the whole procedure (delta = 0: pure epsilon-DP).
    loss : "hinge" (default), a catalogue spec ("logistic", "huber_hinge:h=0.5")
        or a callable z -> CVXPY expression; L comes from :func:`dpcvx.verify`.
    gamma, degree, offset : kernel parameters (public; gamma has no default).
    input_bound : public bound B on ||x|| (linear and poly kernels; TDIL's ball radius).
    feature_bound : public R_phi for a callable kernel.
    random_state : None (OS entropy, for releases), an int or a Generator (experiments).
    """

    algorithm = "kernel"

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

    def _make_kernel(self) -> Kernel:
        return make_kernel(self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset,
                           input_bound=self.input_bound, feature_bound=self.feature_bound)

    def _charge(self, accountant) -> None:
        """Charge (epsilon, delta) to ``accountant`` before any work (it refuses when over budget)."""
        if accountant is not None:
            accountant.spend(self.epsilon, self.delta, description=f"{type(self).__name__}.fit")

    def _curator_model(self, X, y) -> KernelERM:
        """The exact non-private minimiser (private; kept only as long as the algorithm needs it)."""
        return KernelERM(X, y, kernel=self._make_kernel(), loss=resolve_loss(self.loss), lam=self.lam)

    def _privacy_record(self, model: KernelERM, **details) -> dict:
        return {"algorithm": self.algorithm, "epsilon": self.epsilon, "delta": self.delta,
                "lam": self.lam, "n": model.n, "L": model.loss.lipschitz,
                "R_phi": model.kernel.feature_bound, "loss": model.loss.text, **details}

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
