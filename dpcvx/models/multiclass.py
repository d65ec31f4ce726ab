"""Multiclass private ERM: one-vs-rest over k PUBLIC classes, one total privacy budget.

Each class c gets the binary problem "c against the rest" (labels +1 for c,
-1 otherwise) solved by :class:`~dpcvx.models.erm.PrivateERM`. Every record
takes part in all k problems, so replacing one record can change all k
releases: the k releases compose (docs/theory.md, section 15).

* Pure epsilon (delta = 0): each class gets epsilon / k (basic composition,
  which is tight for pure epsilon in the worst case).
* Output perturbation with delta > 0: each release is a Gaussian mechanism
  (the analytic Gaussian at the minimiser's sensitivity). k Gaussian
  mechanisms with noise multiplier z compose exactly into one with multiplier
  z / sqrt(k) (Dong, Roth and Su 2022, Corollary 2). So each class is
  calibrated to the Gaussian whose k-fold composition is (epsilon, delta)-DP:
  noise about sqrt(k) times one release's, not k times.
* Objective perturbation with delta > 0: (epsilon / k, delta / k) per class
  (basic composition); its objective share is not a Gaussian mechanism.

The class set is public and never read off the data. A class missing from
the training data still gets its column (an all-negative problem). The
certificate states the one total (epsilon, delta) and how it is split, and
the accountant is charged that total once, before any noise is drawn.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from ..exceptions import ClippingWarning, ConstantPredictionWarning, InputError
from ..losses import loss_label
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.composition import one_vs_rest_budget
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import PrivacyCurve
from ..privacy.rng import RandomState, child_seeds
from ..release.multiclass_model import MulticlassCertificate, PrivateMulticlassModel
from ..release.usefulness import one_class_findings, warn_if_constant
from ..validation import check_delta, check_delta_for_n, check_epsilon, check_public_classes, outside_labels
from ..verification.verdict import Mechanism
from .erm import PrivateERM
from .failure import composite, failed_after_charge, fixed_numerics
from .fit_plan import FitPlan
from .private_norm import draws_bounds

__all__ = ["PrivateMulticlassERM"]

BINARY = (-1, 1)
PROCEDURE_NAME = "PrivateMulticlassERM.fit (one-vs-rest)"


class PrivateMulticlassERM:
    """One-vs-rest :class:`~dpcvx.models.erm.PrivateERM` over k public ``classes`` (module docstring).

    ``binary`` is the learner of each class's problem; its ``classes`` must be
    (-1, 1), the labels the one-vs-rest problems use.
    """

    predicts_per_row: ClassVar[bool] = True  # a released model predicts each row alone (models.contract)

    def __init__(self, binary: PrivateERM, classes: tuple[Any, ...]) -> None:
        if not isinstance(binary, PrivateERM):  # its mechanisms and budget split are what one-vs-rest composes
            raise InputError(f"the binary learner of a multiclass model must be a PrivateERM (one-vs-rest composes "
                             f"its linear releases), got {type(binary).__name__}; nothing was fitted or charged")
        self.binary = binary
        self.classes = check_public_classes(classes)
        if len(self.classes) < 3:
            raise InputError(f"a one-vs-rest multiclass model takes three or more public classes, got "
                             f"{len(self.classes)}; two classes are a binary model: PrivateERM(classes=(a, b)) "
                             "(the CLI: --positive/--negative or --classes with its two labels)")
        if tuple(binary.classes) != BINARY:
            raise InputError("the binary learner of a multiclass model must have classes=(-1, 1)")
        if draws_bounds(binary):  # each of the k fits would draw its own R: k models over different row maps
            raise InputError("data_norm='private' is offered for binary models (one R per release); one-vs-rest "
                             "fits k models over one row map: declare a public data_norm. Nothing was charged")

    def _labels(self, y: Any, n: int) -> np.ndarray:
        labels = np.asarray(y)
        if labels.ndim == 2 and 1 in labels.shape:
            labels = labels.ravel()
        if labels.ndim != 1 or labels.shape[0] != n:
            raise InputError(f"y must be 1-D with one label per row ({n}), got shape {labels.shape}")
        inside = np.zeros(labels.shape, dtype=bool)
        for value in self.classes:
            inside |= np.asarray(labels == value, dtype=bool)
        if not np.all(inside):
            raise InputError(f"y has {outside_labels(~inside)} outside the public classes {self.classes!r}. The "
                             "classes are a public declaration, never read off the data: add them to classes= or "
                             "map y")
        return labels

    def fit(self, X: Any, y: Any, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
            random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
            **fit_params: Any) -> PrivateMulticlassModel:
        """Release k one-vs-rest models with one total (epsilon, delta).

        ``random_state`` None: every class's fit draws its own OS entropy, and its exact samplers the OS
        CSPRNG (:func:`~dpcvx.privacy.rng.child_seeds`). An int or a generator draws one seed per class from
        it, so the whole release is reproducible: for experiments only, never for a release whose seed could
        be known."""
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        n = np.shape(X)[0] if np.ndim(X) == 2 else -1
        labels = self._labels(y, n)
        check_delta_for_n(delta, fit_params.get("n_public") or n, getattr(self.binary, "allow_large_delta", False))
        k = len(self.classes)
        eps_c, delta_c, composition = one_vs_rest_budget(k, epsilon, delta, mechanism,
                                                            bool(getattr(self.binary, "float_safe", False)))
        targets = [np.where(labels == value, 1, -1) for value in self.classes]
        plan: FitPlan | None = None  # the k fits differ in their labels only: one plan serves them all
        with composite(PROCEDURE_NAME):  # every refusal before anything is charged or drawn; the failure rule
            for index, target in enumerate(targets):
                with warnings.catch_warnings():  # the rows clipped are the same for every class: the first check
                    if index:                    # says so (each warning once per fit)
                        warnings.simplefilter("ignore", ClippingWarning)
                    if plan is not None:
                        plan.bind(*plan.mapped(X, target), fit_params.get("sample_weight"))
                    elif self.binary.plans_first:
                        plan = self.binary.plan(X, target, epsilon=eps_c, delta=delta_c, mechanism=mechanism,
                                                **fit_params)
                    else:
                        self.binary.check_fit_inputs(X, target, epsilon=eps_c, delta=delta_c, mechanism=mechanism,
                                                     **fit_params)
        check_accountant(accountant)
        seeds = child_seeds(random_state, k)  # None each without a seed (OS CSPRNG); else one seed per class
        if accountant is not None:  # every class's release is proved for the relation fit_params state
            basic = Mechanism.of(mechanism) is Mechanism.OBJECTIVE or delta == 0
            what = f"{k} classes, {loss_label(self.binary.loss)}, {mechanism} perturbation, one-vs-rest"
            accountant.spend(epsilon, delta, description=f"PrivateMulticlassERM.fit ({what})", curve=None if basic
                             else self._composed_curve(k, eps_c, delta_c, mechanism, X, targets[0], fit_params,
                                                       plan),
                             neighbours=Neighbours.parse(fit_params.get("neighbours", Neighbours.REPLACE_ONE)))
        with composite(PROCEDURE_NAME), fixed_numerics(), warnings.catch_warnings():
            warnings.simplefilter("ignore", ClippingWarning)  # each warning once per fit: the checks reported it
            # one class's score alone may be constant: the argmax is what is released (its finding is warned below)
            warnings.simplefilter("ignore", ConstantPredictionWarning)
            try:  # cannot fail under the rule (dpcvx.models.failure); a failure is a bug
                models = [self.binary.fit(X, target, eps_c, mechanism, delta=delta_c, random_state=seed, **fit_params)
                          if plan is None else plan.fit(X, target, random_state=seed,
                                                        sample_weight=fit_params.get("sample_weight"))
                          for target, seed in zip(targets, seeds, strict=True)]
            except Exception as error:
                raise failed_after_charge(PROCEDURE_NAME, error) from None
        coef, intercept = np.vstack([model.coef_ for model in models]), np.array([model.intercept_ for model in models])
        certificate = MulticlassCertificate(
            epsilon=epsilon, delta=delta, classes=self.classes, composition=composition,
            class_epsilon=eps_c, class_delta=delta_c, per_class=tuple(model.certificate for model in models),
            findings=one_class_findings(coef, intercept, self.classes, models[0].rows.norm_bound))
        warn_if_constant(type(self).__name__, certificate.findings)
        return PrivateMulticlassModel(coef, intercept, self.classes, models[0].rows, certificate)

    def _composed_curve(self, k: int, eps_c: float, delta_c: float, mechanism: str, X: Any, target: np.ndarray,
                        fit_params: dict[str, Any], plan: FitPlan | None) -> PrivacyCurve:
        """The k releases' curves composed (the same calibration for every class: public inputs only), from the
        fits' plan (or one made for the curve)."""
        if plan is None:
            plan = self.binary.plan(X, target, epsilon=eps_c, delta=delta_c, mechanism=mechanism,
                                    split=fit_params.get("split", "max"),
                                    neighbours=fit_params.get("neighbours", "replace-one"),
                                    n_public=fit_params.get("n_public"))
        one = plan.calibrate(plan.size(np.shape(X)[0])).calibration.privacy_curve(eps_c, delta_c)
        return PrivacyCurve(one.parts * k, one.neighbours)
