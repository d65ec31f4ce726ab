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
  A binary learner that first draws a private class count is refused here: its
  release is that draw and a fit, not a Gaussian mechanism.
* One row map for the k classes: a binary learner that draws a private bound
  is refused (each class would draw its own R, while the model scores every
  class through one). One that draws private column statistics
  (``column_statistics=True`` or "ranges", :mod:`dpcvx.models.column_statistics`)
  draws them ONCE, at eps_s = ``column_statistics_share`` epsilon, before the k
  fits, which share the map they give and split eps_fit = epsilon - eps_s as
  above: the statistics, then the k releases, compose sequentially to
  (eps_s + eps_fit, delta) (docs/theory.md, section 15). The certificate records
  the draw once (``column_statistics``); each class's certificate records its
  fit at its share of eps_fit.
* Objective perturbation with delta > 0: (epsilon / k, delta / k) per class
  (basic composition); its objective share is not a Gaussian mechanism.

The class set is public and never read off the data. A class missing from
the training data still gets its column (an all-negative problem). The
certificate states the one total (epsilon, delta) and how it is split, and
the accountant is charged that total once, before any noise is drawn.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..data.blocks import RowBlocks, input_shape, is_out_of_core
from ..data.notes import checks_then_notes, notes_dropped
from ..exceptions import ClippingWarning, ConstantPredictionWarning, InputError, float_errors_ignored
from ..losses import loss_label
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.budget_part import budget_part
from ..privacy.composition import FIT_BUDGET, WHOLE_BUDGET, one_vs_rest_budget
from ..privacy.linear_calibration import gaussian_output
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import (
    DrawnPart,
    PrivacyCurve,
    drawn_curve_parts,
    draws_then_fit_curve,
    fit_after_draws_part,
)
from ..privacy.rng import RandomState, child_seeds, resolve_rng
from ..release.model import composed_epsilon, named
from ..release.multiclass_model import MulticlassCertificate, PrivateMulticlassModel, class_parts
from ..release.usefulness import one_class_findings, part_of_a_release, warn_if_constant
from ..tables import feature_names
from ..validation import (
    SignBits,
    check_delta,
    check_delta_for_n,
    check_epsilon,
    check_public_classes,
    label_vector,
    number_text,
    one_vs_rest_signs,
    outside_classes,
    outside_head,
    refuse_unknown_parameters,
)
from ..verification.verdict import Mechanism
from . import training_rows
from .class_count import COUNT_LINE, RatesPlan, draws_count
from .column_statistics import (
    StatisticsPlan,
    draw_map,
    draws_statistics,
    placeholder_learner,
    statistics_plan,
    statistics_record,
)
from .contract import as_planned, learner_copy, refuse_fit_arguments
from .erm import PrivateERM, verdict_in_plan
from .failure import after_charge, composite
from .fit_plan import FitPlan, plan_conditional
from .private_norm import draws_bounds, split_budget

__all__ = ["PrivateMulticlassERM", "MulticlassPlan", "check_one_row_map"]

BINARY = (-1, 1)
PROCEDURE_NAME = "PrivateMulticlassERM.fit (one-vs-rest)"
#: the options of the binary learner's fit that its check_options checks before any data is read
_OPTIONS = ("split", "neighbours", "n_public")


class PrivateMulticlassERM:
    """One-vs-rest :class:`~dpcvx.models.erm.PrivateERM` over k public ``classes`` (module docstring).

    ``binary`` is the learner of each class's problem; its ``classes`` must be
    (-1, 1), the labels the one-vs-rest problems use.

    The k one-vs-rest releases (each a mechanism of Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011)) all read
    every record, so they compose sequentially: pure epsilon is split as epsilon / k per class (basic composition,
    Dwork and Roth 2014, Theorem 3.16), Gaussian releases are composed as one Gaussian. Proof: docs/theory.md,
    section 15.
    """

    predicts_per_row: ClassVar[bool] = True  # a released model predicts each row alone (models.contract)

    def __init__(self, binary: PrivateERM, classes: Sequence[Any]) -> None:
        if not isinstance(binary, PrivateERM):  # its mechanisms and budget split are what one-vs-rest composes
            raise InputError(f"the binary learner of a multiclass model must be a PrivateERM (one-vs-rest composes "
                             f"its linear releases), got {type(binary).__name__}; nothing was fitted or charged")
        self.binary = binary
        checked = check_public_classes(classes)
        # a tuple of plain values is kept as given (scikit-learn's clone checks that the constructor sets it as is)
        self.classes = classes if type(classes) is tuple and classes == checked else checked
        if len(self.classes) < 3:
            raise InputError(f"a one-vs-rest multiclass model takes three or more public classes, got "
                             f"{len(self.classes)}; two classes are a binary model: PrivateERM(classes=(a, b)) "
                             "(the CLI: --positive/--negative or --classes with its two labels)")
        if tuple(binary.classes) != BINARY:
            raise InputError("the binary learner of a multiclass model must have classes=(-1, 1)")
        check_one_row_map(binary)

    def __repr__(self) -> str:
        """The binary learner (its own repr: the declaration and every setting not at its default) and the classes."""
        return f"{type(self).__name__}({self.binary!r}, classes={self.classes!r})"

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """scikit-learn's parameters: ``binary`` and ``classes``, and with ``deep`` the binary learner's own as
        ``binary__<name>`` (what :func:`dpcvx.tune`'s grid and ``clone`` read)."""
        params: dict[str, Any] = {"binary": self.binary, "classes": self.classes}
        if deep:
            params.update({f"binary__{name}": value for name, value in self.binary.get_params().items()})
        return params

    def set_params(self, **params: Any) -> PrivateMulticlassERM:
        """Set ``binary``, ``classes`` or the binary learner's ``binary__<name>`` in place (a grid point of
        :func:`dpcvx.tune`, scikit-learn's convention); an unknown name is refused, and the result is checked as the
        constructor checks it (three or more classes, the binary learner's classes (-1, 1), one row map)."""
        nested = {name.partition("__")[2]: value for name, value in params.items() if name.startswith("binary__")}
        own = {name: value for name, value in params.items() if not name.startswith("binary__")}
        refuse_unknown_parameters(type(self).__name__, own, ("binary", "classes"),
                                  "the binary learner's as binary__<name>; epsilon, delta and random_state go to fit")
        binary = own.get("binary", self.binary)
        if nested:
            binary = learner_copy(binary, "; nothing was set").set_params(**nested)  # the caller's learner unchanged
        checked = PrivateMulticlassERM(binary, own.get("classes", self.classes))  # refused: this one unchanged
        self.binary, self.classes = checked.binary, checked.classes
        return self

    def _labels(self, y: Any, n: int) -> np.ndarray:
        labels = label_vector(y, n, self.classes)  # read by value: "1.0" is the class 1
        assert isinstance(labels, np.ndarray)
        outside = outside_classes(labels, self.classes)  # compared a chunk at a time (no boolean n-vectors)
        if outside is not None:
            raise InputError(f"{outside_head(outside, labels, self.classes)}. The classes are a public declaration, "
                             "never read off the data: add them to classes= or map y")
        return labels

    @property
    def plans_first(self) -> bool:
        """Whether :meth:`fit` is one plan executed (:meth:`plan`), so that a caller may plan once (False for a
        subclass that replaces :meth:`fit`)."""
        return type(self).fit is PrivateMulticlassERM.fit

    @float_errors_ignored
    def plan(self, X: Any, y: Any, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
             **fit_params: Any) -> MulticlassPlan:
        """Every check of :meth:`fit` on (X, y), nothing charged or drawn: the budget split of the k releases and
        the one plan of the binary learner (its k problems differ in their labels only), every class's problem
        checked. ``plan.fit(X2, y2, random_state=..., accountant=...)`` executes it on rows of the same width. The
        plan holds a copy of this learner and its binary learner as planned (:func:`~dpcvx.models.contract.as_planned`):
        a ``set_params`` or a value changed in place after planning changes nothing of what it checked or releases.
        The binary learner's ``feature_map`` not drawn yet is drawn first, the caller's own, as :meth:`fit` draws it
        (:meth:`PrivateERM.draw_feature_map <dpcvx.models.erm.PrivateERM.draw_feature_map>`)."""
        if isinstance(self.binary, PrivateERM):
            self.binary.draw_feature_map(X)
        return as_planned(self)._planned(X, y, epsilon, mechanism, delta, fit_params)[0]

    def _planned(self, X: Any, y: Any, epsilon: float, mechanism: str, delta: float,
                 fit_params: dict[str, Any]) -> tuple[MulticlassPlan, list[SignBits]]:
        """The plan and the k one-vs-rest targets of (X, y), every check passed (:meth:`plan`). A binary learner that
        draws column statistics: their plan (the split of epsilon, X's public shape) and the one-vs-rest plan at
        eps_fit of the learner on a placeholder map (:func:`~dpcvx.models.column_statistics.placeholder_learner`),
        whose released map each class's fit binds after the charge (:meth:`MulticlassPlan.execute`). A refusal of
        one class's part of epsilon is said on the epsilon given (:meth:`_class_part`)."""
        with self._class_part(epsilon, mechanism, delta, fit_params.get("n_public")):
            return self._planned_parts(X, y, epsilon, mechanism, delta, fit_params)

    @contextmanager
    def _class_part(self, epsilon: float, mechanism: str, delta: float, n_public: int | None) -> Iterator[None]:
        """The checks of each class's part of ``epsilon`` (:meth:`_split`: column statistics' eps_s first when they
        are drawn, then one-vs-rest's share), a refusal of the part said on ``epsilon``
        (:func:`~dpcvx.privacy.budget_part.budget_part`): analyst probe P7 (session 68, finding 3) read
        "epsilon=749.99999999925 is above 700 ... choose epsilon <= 700" for epsilon=3000 over four classes."""
        with budget_part(epsilon, lambda total: self._split(total, mechanism, delta, n_public)[2], len(self.classes)):
            yield

    def _planned_parts(self, X: Any, y: Any, epsilon: float, mechanism: str, delta: float,
                       fit_params: dict[str, Any]) -> tuple[MulticlassPlan, list[SignBits]]:
        """:meth:`_planned` inside its :meth:`_class_part`."""
        if draws_statistics(self.binary):  # drawn once, for the k fits (module docstring)
            if not self.binary.plans_first:
                raise InputError("one-vs-rest draws column statistics once and binds the map they give to the k "
                                 "fits' one plan; this binary learner replaces PrivateERM.fit, so it does not plan "
                                 "first: leave column_statistics off. Nothing was charged")
            statistics = statistics_plan(self.binary, X, epsilon, {**fit_params, "delta": delta})
            inner = PrivateMulticlassERM(placeholder_learner(self.binary, statistics), self.classes)
            plan, targets = inner._planned(X, y, statistics.eps_fit, mechanism, delta, fit_params)
            # the same split, stated as this learner's: of eps_fit, what is left after eps_s (the inner learner
            # draws nothing, so its text would name the budget epsilon, read as the total)
            composition = self._split(epsilon, mechanism, delta, fit_params.get("n_public"))[4]
            return dataclasses.replace(plan, epsilon=statistics.total, statistics=statistics,
                                       composition=composition), targets
        sample_weight = fit_params.pop("sample_weight", None)
        plan = self._shaped_plan(X, epsilon, mechanism, delta, fit_params, sample_weight)
        targets = self._targets(X, y, plan.delta, fit_params)
        with checks_then_notes():  # the composite's plan and every class's checks read the same rows: each note once
            if plan.binary is None and self.binary.plans_first:  # a composite's plan for a binary learner that draws a
                # class count (each class's fit draws its own), planned on the first class's rows
                with composite(PROCEDURE_NAME):  # every refusal before anything is charged or drawn; the failure rule
                    planned = self.binary.plan(X, targets[0], epsilon=plan.class_epsilon, delta=plan.class_delta,
                                               mechanism=mechanism, sample_weight=sample_weight, **fit_params)
                assert isinstance(planned, (FitPlan, RatesPlan))  # one row map (checked above)
                plan = dataclasses.replace(plan, binary=planned)
                plan.check(X, targets, sample_weight, first=False)
            else:
                plan.check(X, targets, sample_weight)
        return plan, targets

    def _shaped_plan(self, X: Any, epsilon: float, mechanism: str, delta: float, fit_params: dict[str, Any],
                     sample_weight: Any) -> MulticlassPlan:
        """The checks before y (or a value of X) is read: the budget's split (:meth:`_split`), the binary learner's
        options at each class's share, and for a :class:`~dpcvx.models.erm.PrivateERM` that draws nothing first the
        one plan of the k problems (they differ in their labels only), made at X's public width: its verification
        and the mechanism's verdict (:meth:`PrivateERM._shaped_plan <dpcvx.models.erm.PrivateERM._shaped_plan>`).
        Another binary learner's plan is None here (:meth:`_planned` makes a composite's on the first class's
        rows). ``fit_params`` without ``sample_weight``."""
        # each class's fit is binary.fit(X, target, epsilon, mechanism, delta=, random_state=, **fit_params)
        refuse_fit_arguments("PrivateMulticlassERM", self.binary, X, None, epsilon, mechanism, delta=delta,
                             random_state=None, **fit_params)
        epsilon, delta, eps_c, delta_c, composition = self._split(epsilon, mechanism, delta,
                                                                  fit_params.get("n_public"))
        with verdict_in_plan():  # before y is read; the loss's verdict is the plan's (each class's fit's)
            self.binary.check_options(eps_c, mechanism, delta=delta_c, sample_weight=sample_weight,
                                      **{name: fit_params[name] for name in _OPTIONS if name in fit_params})
        binary = None
        if isinstance(self.binary, PrivateERM) and self.binary.plans_first and not self.binary.draws_first:
            with composite(PROCEDURE_NAME):  # every refusal before anything is charged or drawn; the failure rule
                binary = self.binary._shaped_plan(X, eps_c, mechanism, delta=delta_c, sample_weight=sample_weight,
                                                  **fit_params)
        return MulticlassPlan(self, epsilon, delta, mechanism, eps_c, delta_c, composition, fit_params, binary)

    def _split(self, epsilon: float, mechanism: str, delta: float,
               n_public: int | None) -> tuple[float, float, float, float, str]:
        """(epsilon, delta, each class's epsilon and delta, the composition): the total budget checked (delta
        against ``n_public`` when one is given; else :meth:`_targets` checks it against the data's n), split over
        the k releases, and the binary learner's private draws checked against that split. Reads no data: the
        checks of :meth:`fit` and :meth:`check_options`."""
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        if n_public:
            check_delta_for_n(delta, n_public, getattr(self.binary, "allow_large_delta", False), "n_public")
        check_one_row_map(self.binary)  # (set_params may have asked for a draw after construction)
        eps_fit, budget = epsilon, WHOLE_BUDGET  # the k fits' total: after the column statistics' eps_s when drawn
        if draws_statistics(self.binary):
            eps_fit = split_budget(epsilon, self.binary.column_statistics_share, "column_statistics_share")[1]
            budget = FIT_BUDGET
        eps_c, delta_c, composition = one_vs_rest_budget(len(self.classes), eps_fit, delta, mechanism,
                                                            bool(getattr(self.binary, "float_safe", False)), budget,
                                                            total_epsilon=epsilon)
        if draws_count(self.binary) and not _basic(mechanism, delta):
            raise InputError("one-vs-rest with output perturbation and delta > 0 composes k Gaussian releases "
                             "(docs/theory.md, section 15); a binary learner that first draws a private class "
                             "count adds a pure-epsilon release to each class, which that composition does not "
                             "cover: use objective perturbation or delta=0, or a binary learner with public rates "
                             "(class_prior). Nothing was charged")
        return epsilon, delta, eps_c, delta_c, composition

    def check_options(self, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
                      split: str | None = None, random_state: RandomState = None, neighbours: str = "replace-one",
                      n_public: int | None = None, sample_weight: Any = None) -> None:
        """Raise the error :meth:`fit` would raise for these options before it reads any data, charging and drawing
        nothing: the total budget and its split (:meth:`_split`), then the binary learner's own check at each
        class's share (:meth:`dpcvx.PrivateERM.check_options`: its settings, the mechanism, the split, the
        neighbour relation with ``n_public``, ``random_state``, ``sample_weight``'s bound). For a caller that holds
        the options before the data (:func:`dpcvx.as_opendp_measurement`)."""
        _, _, eps_c, delta_c, _ = self._split(epsilon, mechanism, delta, n_public)
        binary = self.binary
        if draws_statistics(binary):  # drawn once before the k fits, whose learner draws none of its own
            binary = learner_copy(binary, "; check_options changes nothing of it and charges nothing")
            binary.set_params(column_statistics=False)
        with self._class_part(epsilon, mechanism, delta, n_public):
            binary.check_options(eps_c, mechanism, delta=delta_c, split=split, random_state=random_state,
                                 neighbours=neighbours, n_public=n_public, sample_weight=sample_weight)

    def _targets(self, X: Any, y: Any, delta: float, fit_params: dict[str, Any]) -> list[SignBits]:
        """The k one-vs-rest label vectors (+1 for the class, -1 otherwise), one bit a label
        (:func:`~dpcvx.validation.one_vs_rest_signs`); delta checked against the data's n without ``n_public``
        (:meth:`_split` checks it against ``n_public``)."""
        shape = input_shape(X)  # a Dask DataFrame's n too (lazy in its own shape)
        n = shape[0] if len(shape) == 2 else -1
        labels = self._labels(y, n)
        if not fit_params.get("n_public"):
            check_delta_for_n(delta, n, getattr(self.binary, "allow_large_delta", False))
        return [one_vs_rest_signs(labels, n, value) for value in self.classes]

    @float_errors_ignored
    def fit(self, X: Any, y: Any, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
            random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
            **fit_params: Any) -> PrivateMulticlassModel:
        """Release k one-vs-rest models with one total (epsilon, delta).

        ``random_state`` None: every class's fit draws its own OS entropy, and its exact samplers the OS
        CSPRNG (:func:`~dpcvx.privacy.rng.child_seeds`). An int or a generator draws one seed per class from
        it, so the whole release is reproducible: for experiments only, never for a release whose seed could
        be known.

        The k releases compose sequentially into the one (epsilon, delta) (basic composition, Dwork and Roth 2014,
        Theorem 3.16; Gaussian ones as one Gaussian): docs/theory.md, section 15."""
        sample_weight = fit_params.get("sample_weight")
        resolve_rng(random_state)  # refused before any data is read, as every learner's fit refuses it
        names = feature_names(X)  # a table's column names, kept by the release (mixed types refused before the charge)
        plan, targets = self._planned(X, y, epsilon, mechanism, delta, dict(fit_params))
        return named(plan.execute(X, targets, random_state, accountant, sample_weight), names)


@dataclass(frozen=True)
class MulticlassPlan:
    """A one-vs-rest fit planned once (:meth:`PrivateMulticlassERM.plan`): public values only.

    ``epsilon``, ``delta`` the total; ``class_epsilon``, ``class_delta`` each class's share and ``composition``
    how they compose (:func:`~dpcvx.privacy.composition.one_vs_rest_budget`); ``binary`` the one plan of the k
    binary problems: a :class:`~dpcvx.models.fit_plan.FitPlan`, or the composite's plan of a binary learner that
    first draws a class count (:class:`~dpcvx.models.class_count.RatesPlan`: each class's fit draws its own from
    it); None: the binary learner
    does not plan first and each class is checked and fitted through its own ``check_fit_inputs`` and ``fit``.
    ``statistics``: the plan of column statistics drawn once before the k fits (``epsilon`` then their total with
    the fits' eps_fit, and ``binary`` made on a placeholder map that each fit replaces by the released one); None:
    none drawn.
    """

    learner: PrivateMulticlassERM
    epsilon: float
    delta: float
    mechanism: str
    class_epsilon: float
    class_delta: float
    composition: str
    fit_params: dict[str, Any]
    binary: FitPlan | RatesPlan | None
    statistics: StatisticsPlan | None = None

    @property
    def classes(self) -> tuple[Any, ...]:
        """The k public classes."""
        return self.learner.classes

    def check(self, X: Any, targets: list[SignBits], sample_weight: Any, *, first: bool = True) -> None:
        """Every class's problem on X checked, nothing charged or drawn (``first``: the first class's too; its
        plan checked it when the plan was made on these rows)."""
        with composite(PROCEDURE_NAME):  # every refusal before anything is charged or drawn; the failure rule
            for index, target in enumerate(targets):
                if index == 0 and not first:
                    continue
                with warnings.catch_warnings():  # the rows clipped are the same for every class: the first check
                    if index:                    # says so (each warning once per fit)
                        warnings.simplefilter("ignore", ClippingWarning)
                    if isinstance(self.binary, FitPlan):
                        self.binary.checked(X, target, sample_weight)
                    elif self.binary is not None:  # a composite's checks of the class's rows
                        self.binary.check(X, target, sample_weight)
                    else:
                        self.learner.binary.check_fit_inputs(X, target, epsilon=self.class_epsilon,
                                                             delta=self.class_delta, mechanism=self.mechanism,
                                                             sample_weight=sample_weight, **self.fit_params)

    @float_errors_ignored
    def fit(self, X: Any, y: Any, *, random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
            sample_weight: Any = None) -> PrivateMulticlassModel:
        """Execute the plan on (X, y): check every class's problem, then charge ``accountant`` once, draw, solve
        and release (:meth:`PrivateMulticlassERM.fit`). A refused call spends nothing."""
        return self.execute(X, self.checked(X, y, sample_weight), random_state, accountant, sample_weight)

    def checked(self, X: Any, y: Any, sample_weight: Any = None) -> list[SignBits]:
        """The k one-vs-rest targets of y, every class's problem on X checked (:meth:`check`), nothing charged."""
        targets = self.learner._targets(X, y, self.delta, self.fit_params)
        with checks_then_notes():  # every class's checks read the same rows: each clipping note once
            self.check(X, targets, sample_weight)
        return targets

    @float_errors_ignored
    def execute(self, X: Any, targets: list[SignBits], random_state: RandomState,
                accountant: PrivacyAccountant | None, sample_weight: Any) -> PrivateMulticlassModel:
        """Charge once, then the k fits and the release, on targets :meth:`check` has checked."""
        check_accountant(accountant)
        k, learner, eps_c, delta_c = len(self.classes), self.learner, self.class_epsilon, self.class_delta
        statistics = None if self.statistics is None else self.statistics.at(X)  # at X's public n
        if accountant is not None:  # every class's release is proved for the relation fit_params state
            what = f"{k} classes, {loss_label(learner.binary.loss)}, {self.mechanism} perturbation, one-vs-rest" + (
                "" if statistics is None else f", private column statistics drawn once (eps_s="
                f"{number_text(statistics.eps_statistics)}), the fits' eps_fit={number_text(statistics.eps_fit)}") + (
                "" if not isinstance(self.binary, RatesPlan) else f", each class's fit after a {COUNT_LINE} of its "
                f"class inside its share (eps_c={number_text(self.binary.count.at(input_shape(X)[0]).eps_count)} of "
                f"{number_text(eps_c)})")  # the count, as the binary composite's own line names it (RatesPlan.draws)
            accountant.spend(self.epsilon, self.delta, description=f"PrivateMulticlassERM.fit ({what})",
                             curve=self._composed_curve(X, targets[0]),
                             neighbours=Neighbours.parse(self.fit_params.get("neighbours", Neighbours.REPLACE_ONE)),
                             conditional=plan_conditional(self.binary))
        # after the charge: a refused call leaves the caller's generator where it was
        # None each without a seed (OS CSPRNG); else one seed per class (and one for the statistics, drawn last)
        seeds = child_seeds(random_state, k + (statistics is not None))
        binary, record, epsilon = self.binary, None, self.epsilon
        # one class's score alone may be constant: the argmax is what is released (its finding is warned below)
        # the fits' clipping notes dropped (notes_dropped), not only unshown: the checks counted the user's rows and
        # told them; the fits on a released map's rows count what its public rule clipped, which is no fault of the
        # rows, and must neither raise nor lower most_rows_clipped, which the training-rows check reads
        with after_charge(PROCEDURE_NAME), notes_dropped(), training_rows.left_to_caller(), \
                part_of_a_release(ConstantPredictionWarning):
            # cannot fail under the rule (dpcvx.models.failure); a failure is a bug
            if statistics is not None:  # drawn once; the map they give bound to the k fits' one plan
                assert binary is not None  # a binary learner that plans first (PrivateMulticlassERM._planned)
                mapped, values = draw_map(X, statistics, seeds[k])
                binary, record = binary.with_feature_map(mapped), statistics_record(statistics, values)
                epsilon = record["total_epsilon"] = composed_epsilon((record,), statistics.eps_fit)
            models = [self._fit_class(X, target, seed, sample_weight, binary, counted)
                      for counted, target, seed in zip(self.classes, targets, seeds[:k], strict=True)]
        coef, intercept = np.vstack([model.coef_ for model in models]), np.array([model.intercept_ for model in models])
        certificate = MulticlassCertificate(
            epsilon=epsilon, delta=self.delta, classes=self.classes, composition=self.composition,
            class_epsilon=eps_c, class_delta=delta_c, per_class=tuple(model.certificate for model in models),
            findings=one_class_findings(coef, intercept, self.classes, models[0].rows.norm_bound),
            column_statistics=record, fit_epsilon=None if statistics is None else statistics.eps_fit)
        warn_if_constant(type(learner).__name__, certificate.findings)
        released = PrivateMulticlassModel(coef, intercept, self.classes, models[0].rows, certificate)
        if training_rows.runs_here():  # NOT PRIVATE, on the argmax (models.training_rows)
            training_rows.warn_on_confusion(type(learner).__name__, _argmax_confusion(released, X, targets),
                                            released.classes_, located=record is not None,
                                            for_accuracy=sample_weight is None,  # records alike, the argmax
                                            weighed=training_rows.weighs_classes(self.learner.binary),
                                            scale=training_rows.one_vs_rest_scale(
                                                int(models[0].certificate.constants.n), float(epsilon), k))
        return released

    def _fit_class(self, X: Any, target: SignBits, seed: RandomState, sample_weight: Any,
                   binary: FitPlan | RatesPlan | None, counted: Any) -> Any:
        """Class ``counted``'s release at its share, after the charge, on rows :meth:`check` has checked: from the one
        plan ``binary`` (:attr:`binary`, its map the released statistics' when drawn; a composite's draws its own
        count of ``counted``, charging nothing more), or through the learner's ``fit``."""
        if isinstance(binary, FitPlan):
            return binary.fit(X, target, random_state=seed, sample_weight=sample_weight)
        if binary is not None:
            return binary.execute(X, target, seed, None, sample_weight, counted)
        weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
        return self.learner.binary.fit(X, target, self.class_epsilon, self.mechanism, delta=self.class_delta,
                                       random_state=seed, **weighted, **self.fit_params)

    def _composed_curve(self, X: Any, target: SignBits) -> PrivacyCurve:
        """The release's curve, charged before the draws: the column statistics' part (when drawn) and the k
        releases' curves, composed as the certificate composes them (:attr:`MulticlassCertificate.privacy_curve
        <dpcvx.release.multiclass_model.MulticlassCertificate.privacy_curve>`, which :meth:`PrivacyAccountant.
        spend_release <dpcvx.privacy.accountant.PrivacyAccountant.spend_release>` charges), from public inputs only:
        every class has the same calibration, from the fits' plan (or one made for the curve); a binary learner that
        draws a class count first has, per class, the count's pure part and the fit's part for every released count
        (:func:`~dpcvx.privacy.privacy_curve.draws_then_fit_curve`, as its certificate's ``release_curve``).
        Objective perturbation and pure releases were charged by basic composition alone (no curve), where the
        same release's spend_release composed its curve: two charges for one release under add-remove (an attacker
        probe, session 63)."""
        plan = self.binary
        n = input_shape(X)[0]
        if isinstance(plan, RatesPlan):  # the count's part, then the fit's at every released count (one per class)
            count = plan.count.at(n)
            one = draws_then_fit_curve([(DrawnPart.COUNT, count.eps_count)], fit_after_draws_part(
                count.eps_fit, self.class_delta, gaussian_output(plan.options, plan.learner.float_safe)))
            return self._with_draws(one)
        if not isinstance(plan, FitPlan):
            planned = self.learner.binary.plan(X, target, epsilon=self.class_epsilon, delta=self.class_delta,
                                               mechanism=self.mechanism, split=self.fit_params.get("split"),
                                               neighbours=self.fit_params.get("neighbours", "replace-one"),
                                               n_public=self.fit_params.get("n_public"))
            assert isinstance(planned, FitPlan)  # a binary learner that draws nothing (refused by the plan)
            plan = planned
        return self._with_draws(plan.calibrate(plan.size(n)).calibration.privacy_curve(self.class_epsilon,
                                                                                         self.class_delta))

    def _with_draws(self, one: PrivacyCurve) -> PrivacyCurve:
        """The column statistics' part (when drawn) and k copies of one class's curve ``one``, each named by its
        class (:func:`~dpcvx.release.multiclass_model.class_parts`)."""
        drawn = () if self.statistics is None else drawn_curve_parts(self.statistics.drawn)
        return PrivacyCurve(drawn + class_parts(self.classes, [one] * len(self.classes)), one.neighbours)


def _argmax_confusion(released: PrivateMulticlassModel, X: Any, targets: list[SignBits]) -> np.ndarray:
    """NOT PRIVATE: the k x k confusion counts (:func:`training_rows.confusion`) of the release's argmax on its
    training rows against their classes (the index of the one-vs-rest ``targets`` that is +1). Rows in memory are
    scored by the release; a memmap or Dask X is read by row blocks as the solver reads it
    (:class:`~dpcvx.data.blocks.RowBlocks`, mapped as in training: a memmap is never loaded whole, a Dask array's
    blocks are counted where they live), each block scored as the release scores its mapped rows and its counts
    added: k x k numbers, never the predictions, and the class indices a block's at a time."""
    classes = np.arange(len(released.classes_))
    if not is_out_of_core(X):
        return training_rows.confusion(np.argmax(released.decision_function(X), axis=1), _class_index(*targets),
                                       classes)
    features = slice(None, -1) if released.rows.fit_intercept else slice(None)  # a block's intercept column left out

    def counts(block: np.ndarray, *parts: np.ndarray) -> np.ndarray:
        scores = block[:, features] @ released.coef_.T + released.intercept_  # the release's linear scores
        return training_rows.confusion(np.argmax(scores, axis=1), _class_index(*parts), classes)

    return np.asarray(RowBlocks(X, released.rows).sum(counts, *targets))


def _class_index(*signs: np.ndarray | SignBits) -> np.ndarray:
    """Each row's class: the index of the one-vs-rest labels (-1/+1, one vector a class) that are +1 there."""
    return np.argmax(np.vstack([np.asarray(part) for part in signs]), axis=0)


def check_one_row_map(learner: Any) -> None:
    """Refuse, before anything is charged, a one-vs-rest learner (the binary learner of :class:`PrivateMulticlassERM`,
    or an estimator with more than two classes) whose fit would draw its norm bound (data_norm="private"). Each of the
    k fits would draw its own R, while the released model scores every class through one
    row map (the first class's: the other classes' scores would be computed on rows mapped otherwise than in their
    fits). Column statistics are drawn once for the k fits (:meth:`PrivateMulticlassERM._planned`)."""
    if draws_bounds(learner):
        raise InputError("data_norm='private' is offered for binary models (one R per release); one-vs-rest "
                         "fits k models over one row map: declare a public data_norm. Nothing was charged")


def _basic(mechanism: str, delta: float) -> bool:
    """Whether the k releases compose by basic composition (pure epsilon, or objective perturbation), not as k
    Gaussian mechanisms (:func:`~dpcvx.privacy.composition.one_vs_rest_budget`)."""
    return Mechanism.of(mechanism) is Mechanism.OBJECTIVE or delta == 0
