"""A privacy budget for one dataset, with basic composition of (epsilon, delta) costs.

* Sequential composition (default): computations on the same data add up,
  (eps_1, delta_1) then (eps_2, delta_2) costs (eps_1 + eps_2, delta_1 + delta_2)
  (Dwork and Roth 2014, Theorem 3.16; it holds when each computation may
  depend on the earlier outputs).
* Parallel composition: computations on disjoint parts of the data cost the
  coordinate-wise maximum of their costs (McSherry 2009, Theorem 4). A change
  of one record touches one part only, so only one computation sees it.
  :func:`dpcvx.tune` charges Algorithm 4 of JMLR 2011 this way.

* Tight composition of privacy curves: a charge may carry the release's
  :class:`~dpcvx.privacy.privacy_curve.PrivacyCurve` (``spend(..., curve=)``,
  or ``spend_release(model)``). When some charged curve has a Gaussian part,
  ``spent`` is (epsilon, delta) with delta the sum of the charges' deltas
  and epsilon the smaller of the sum of their epsilons (basic composition)
  and the tight composition of their curves at that same delta (privacy loss
  distributions with the optional ``dp-accounting`` package, else Renyi DP;
  :func:`~dpcvx.privacy.privacy_curve.compose_epsilon`). The budget is
  enforced on ``spent``. Charges without a curve count by their (epsilon, delta).
  Both numbers are one point of the composed curve, read at the summed delta: a charge whose delta is large
  moves that point along the curve, so ``spent``'s epsilon can be lower after it than before (four Gaussian
  releases at (0.5, 1e-6) spent (0.974, 4e-6); a fifth Gaussian release at (0.1, 1e-2) left (0.399, 0.010004),
  all five read at the summed delta), while its delta grows; every point is a valid guarantee, and the pair is what
  the budget is checked against.
  The composition is exact and incremental: Gaussian parts merge in closed
  form into one multiplier (sum z_i^-2)^(-1/2), so a ledger of Gaussian
  releases only has the exact epsilon of that one Gaussian; the ledger's
  composition is kept (:class:`~dpcvx.privacy.privacy_curve.Composition`) and
  grows by each accepted charge, so only a new charge's other parts are
  composed by privacy loss distributions (docs/accounting.md).

Ledger lines say what paid: the learner, its loss and mechanism (the
learner's ``description``), after the descriptions of the enclosing
:meth:`PrivacyAccountant.described` blocks (an estimator's name, the user's
own words), joined by ": "::

    with accountant.described("model A, fold 3"):
        DPLogisticRegression(accountant=accountant).fit(X, y)
    # model A, fold 3: DPLogisticRegression.fit: PrivateERM.fit (loss logistic, objective perturbation, n=...)

Neighbour relations (:mod:`dpcvx.privacy.neighbours`): a ledger composes
guarantees for ONE relation, the accountant's ``neighbours`` (default
replace-one, the relation of the papers and of every dpcvx default). Every
charge carries the relation its cost is proved for, as a typed
:class:`~dpcvx.privacy.neighbours.Neighbours` (``spend(..., neighbours=)``; a
charged curve states its own; a plain charge without one is replace-one):

* the same relation: charged as it is;
* an add-remove charge on a replace-one ledger: converted by group privacy,
  and its ledger entry says so: (epsilon, delta) -> (2 epsilon,
  (1 + e^epsilon) delta), each Gaussian part of its curve z -> z / 2
  (rho-zCDP -> 4 rho, Bun and Steinke 2016), each (e, d) part as the pair;
* a replace-one charge on an add-remove ledger: refused (``InputError``,
  nothing recorded). A replace-one release may use n (TDDL, PINP, TDIL, tuning,
  replace-one ERM and multiclass), and n is private under add-remove.

The accountant refuses a charge that would exceed its budget with
:class:`~dpcvx.exceptions.BudgetExceededError`, and records nothing. A learner
makes it work for its ``fit(..., accountant=)`` with one call, placed before
it draws any noise or solves anything::

    if accountant is not None:
        accountant.spend(epsilon, delta, description="MyLearner.fit (...)", neighbours="replace-one")

A refused charge raises, so no private computation runs. A charge is never
refunded, even if the computation then fails: part of it may have run.

Every charge is atomic: the check against the budget and the append to the
ledger happen under one lock, so learners fitting in several threads against
one accountant can never overspend it together; ``spent``, ``remaining`` and
``can_spend`` read the ledger under the same lock. The lock is not a dataclass
field (equality, ``repr`` and ``dataclasses.asdict`` ignore it) and a copy or
an unpickled accountant gets a fresh one.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple, Self

from ..exceptions import BudgetExceededError, InputError
from ..validation import check_delta, check_epsilon, fraction, non_negative, number_text
from . import process_token
from .neighbours import Neighbours, group_epsilon_delta
from .privacy_curve import Composition, CurvePart, PrivacyCurve, refuse_candidate

__all__ = ["PrivacyAccountant", "PrivacyCost", "LedgerEntry", "ledger_relation", "check_cost", "check_accountant",
           "release_cost"]

#: Relative slack of the budget's check, so that ten charges of the double 0.1 (exactly 1 + 5.6e-17 together) fit a
#: budget of 1.0: what an accountant of budget (B, D) enforces is (B (1 + 1e-12), D (1 + 1e-12)), since a charge
#: need not keep a proved margin that pays for it (docs/theory.md, section 13, "The budget's floating-point slack")
_SLACK = 1e-12


class _CostFields(NamedTuple):
    epsilon: float
    delta: float = 0.0


class PrivacyCost(_CostFields):
    """An (epsilon, delta) pair: what an accountant reports (``spent``, ``remaining``, a charge's cost) and what a
    user may build to compare with one. A tuple: ``eps, delta = accountant.spent`` and ``PrivacyCost(*pair)`` work.

    Checked at construction: epsilon a finite real number >= 0 (:func:`~dpcvx.validation.non_negative`; a spent
    budget can be 0) and delta a number in [0, 1] (:func:`~dpcvx.validation.fraction`), else an InputError naming
    the field.
    """

    __slots__ = ()

    def __new__(cls, epsilon: float, delta: float = 0.0) -> Self:
        return super().__new__(cls, non_negative("epsilon", epsilon),
                               fraction("delta", delta, allow_zero=True, allow_one=True))

    def _replace(self, **fields: Any) -> Self:
        """The pair with the given fields replaced, checked as the constructor checks it."""
        return type(self)(**{**self._asdict(), **fields})


@dataclass(frozen=True)
class LedgerEntry:
    """One accepted charge: its cost and curve under the ledger's relation, what it paid for, how it
    was composed, the relation it was proved for and, when that differs, how it was converted; ``conditional``: its
    guarantee rests on an opted-in estimate of a constant (its curve's :attr:`~PrivacyCurve.conditional`, or the
    charge's own word where it has no curve)."""

    cost: PrivacyCost
    description: str
    composition: str
    curve: PrivacyCurve | None = None
    neighbours: Neighbours = Neighbours.REPLACE_ONE
    conversion: str = ""
    conditional: bool = False


def ledger_relation(entry: LedgerEntry) -> Neighbours:
    """The relation an entry's cost is stated under: the ledger's it was charged to. That is the relation it was
    proved for, unless it was converted (an add-remove charge on a replace-one ledger, the only conversion:
    :meth:`PrivacyAccountant._entry`), whose cost is then replace-one's."""
    return Neighbours.REPLACE_ONE if entry.conversion else entry.neighbours


def check_cost(epsilon: float, delta: float = 0.0) -> PrivacyCost:
    """(epsilon, delta) as a PrivacyCost: dpcvx.validation's check_epsilon and check_delta."""
    return PrivacyCost(check_epsilon(epsilon), check_delta(delta))


def check_accountant(accountant: Any) -> PrivacyAccountant | None:
    """``accountant`` when it is None or a :class:`PrivacyAccountant`; InputError otherwise (before any charge)."""
    if accountant is not None and not isinstance(accountant, PrivacyAccountant):
        raise InputError(f"accountant must be a dpcvx.PrivacyAccountant, got {type(accountant).__name__}")
    return accountant


def _description(description: Any) -> str:
    """A charge's description for its ledger line: a str (empty for none)."""
    if not isinstance(description, str):
        raise InputError(f"description must be a str (the ledger line's text), got {type(description).__name__}")
    return description


def _pair(cost: Any) -> tuple[Any, Any]:
    """One part's (epsilon, delta) of :meth:`PrivacyAccountant.spend_parallel` (checked by check_cost)."""
    if isinstance(cost, (str, bytes)) or not isinstance(cost, Sequence) or len(cost) != 2:
        raise InputError(f"spend_parallel takes one (epsilon, delta) pair per disjoint part, got {cost!r}")
    return cost[0], cost[1]


def _release_of(model: Any) -> Any:
    """The release :meth:`PrivacyAccountant.spend_release` charges for what holds one: a fitted estimator's or kernel
    learner's ``model_``, a ``TuningResult``'s selected ``model`` (itself a release or a fitted estimator), followed
    until an object with a certificate and its curve (duck-typed: the release layer sits above this module); anything
    else as it is. A pipeline is refused: its other steps may have read the rows too (a fitted StandardScaler, a
    SelectFromModel of a private fit), which its last step's certificate does not state (an attacker probe,
    sixty-second session)."""
    if isinstance(getattr(model, "steps", None), list):
        raise InputError(f"spend_release takes one release, not a {type(model).__name__}: its steps before the last "
                         "may have read the rows as well, which the last step's certificate does not state. Charge "
                         "the final estimator, accountant.spend_release(pipeline[-1]), when every other step is a "
                         "public map (a PublicSchema, RandomFourierFeatures), and charge any other step's cost "
                         "yourself; nothing was charged")
    for _ in range(2):  # an estimator or a tuning result, then the release it holds
        if hasattr(getattr(model, "certificate", None), "privacy_curve"):
            return model
        held = [getattr(model, name) for name in ("model_", "model") if getattr(model, name, None) is not None]
        if not held:
            return model
        model = held[0]
    return model


def _stated(model: Any) -> Any:
    """What states a release's total: a dpcvx release itself (its ``privacy_curve`` a :class:`PrivacyCurve`: a tuned
    model's is its selection's, not its certificate's candidate share), else its ``certificate``."""
    return model if isinstance(getattr(model, "privacy_curve", None), PrivacyCurve) else model.certificate


def release_cost(model: Any) -> PrivacyCost:
    """What a release (``model``, with a ``certificate``; :func:`_release_of` finds it in what holds one) cost in
    total: its ``cost`` (a dpcvx release's and every dpcvx certificate's: the fit with what it drew first, and a
    tuned model's whole selection), the one total that :meth:`PrivacyAccountant.spend_release` charges and the
    OpenDP bridge checks. An object of another library with a certificate states no ``cost``: its certificate's
    ``total_epsilon`` where it states one (the field dpcvx's files and former certificates name the total by; a
    certificate stating it was charged only its ``epsilon`` for a while: an attacker probe, sixty-eighth session),
    else its ``epsilon``, and its ``delta`` (this layer sits below the release's; duck-typed)."""
    stated = getattr(_stated(model), "cost", None)
    if isinstance(stated, PrivacyCost):
        return stated
    certificate = model.certificate
    return PrivacyCost(getattr(certificate, "total_epsilon", certificate.epsilon), certificate.delta)


@dataclass
class PrivacyAccountant:
    """Tracks and enforces a total (epsilon, delta) budget for one dataset.

    ``spend`` charges a computation on the whole dataset (sequential
    composition); ``spend_parallel`` charges computations on disjoint parts
    (parallel composition). ``spent`` is the sum of the accepted charges and
    ``remaining`` the budget minus ``spent``. ``neighbours`` ("replace-one",
    the default, or "add-remove") is the one relation the budget and every
    entry of the ledger are for (module docstring).

    Sequential composition: (eps_1 + eps_2, delta_1 + delta_2) (Dwork and Roth 2014, Theorem 3.16); parallel
    composition on disjoint parts: the maximum (McSherry 2009, Theorem 4); curves composed tightly (docs/theory.md,
    section 13); neighbour relations and group privacy: docs/theory.md, section 17. A charge is accepted while the
    composed total is at most the budget times 1 + 1e-12 (ten charges of the double 0.1 fit a budget of 1.0), so the
    budget enforced is (epsilon (1 + 1e-12), delta (1 + 1e-12)) (docs/theory.md, section 13).
    """

    epsilon: float
    delta: float = 0.0
    ledger: list[LedgerEntry] = field(default_factory=list, repr=False)  # str() lists it, line by line
    neighbours: Neighbours = Neighbours.REPLACE_ONE

    if TYPE_CHECKING:  # what the constructor takes ("replace-one" or "add-remove" too), parsed by __post_init__
        def __init__(self, epsilon: float, delta: float = 0.0, ledger: Iterable[LedgerEntry] = (),
                     neighbours: Neighbours | str = Neighbours.REPLACE_ONE) -> None: ...

    def __post_init__(self) -> None:
        budget = check_cost(self.epsilon, self.delta)
        self.epsilon, self.delta = budget.epsilon, budget.delta
        self.neighbours = Neighbours.parse(self.neighbours)
        # An own copy: two accountants (say, one from dataclasses.replace) never share a
        # ledger list, which their two locks could not protect.
        ledger = self.ledger
        if isinstance(ledger, (str, bytes, Mapping)) or not isinstance(ledger, Iterable):
            raise InputError(f"ledger must be a list of LedgerEntry (an accountant's ledger), got "
                             f"{type(ledger).__name__}")
        self.ledger = list(ledger)
        strangers = [type(entry).__name__ for entry in self.ledger if not isinstance(entry, LedgerEntry)]
        if strangers:
            raise InputError(f"ledger must hold LedgerEntry items only (an accountant's ledger), got {strangers[0]}")
        others = [index for index, entry in enumerate(self.ledger) if ledger_relation(entry) is not self.neighbours]
        if others:
            relation = ledger_relation(self.ledger[others[0]])
            raise InputError(f"the ledger's entry {others[0]} ({self.ledger[others[0]].description or 'a charge'}) "
                             f"costs what it costs under {relation} neighbours, and this accountant composes for "
                             f"{self.neighbours}: its cost would be read under the wrong relation (an add-remove "
                             f"charge costs twice its epsilon under replace-one). Continue the ledger with the "
                             f"relation it was kept for: PrivacyAccountant(..., ledger=saved.ledger, "
                             f"neighbours=saved.neighbours)")
        self._process = process_token.current()  # the process whose charges this ledger holds (:meth:`_charge`)
        self._copied_with: str | None = None  # the estimator whose unpickling copied it (:meth:`copied_with`)
        self._fresh_state()
        if self.ledger:
            spent = self.spent
            if spent.epsilon > self.epsilon * (1 + _SLACK) or spent.delta > self.delta * (1 + _SLACK):
                raise BudgetExceededError(
                    f"the ledger has already spent (epsilon={number_text(spent.epsilon)}, "
                    f"delta={number_text(spent.delta)}), beyond this budget (epsilon={number_text(self.epsilon)}, "
                    f"delta={number_text(self.delta)}): a continued ledger keeps its spending. "
                    "Give the whole budget of the data set, the ledger's spending included")

    def _fresh_state(self) -> None:
        """The state that is not a dataclass field (equality, repr, asdict and replace never see it):
        the lock (re-entrant: _charge holds it while calling can_spend, spent and remaining), the
        descriptions of the open :meth:`described` blocks of each thread and task, and the composition of
        the ledger as last read (the entries it covers and their :class:`Composition`)."""
        self._lock = threading.RLock()
        # each thread's and each asyncio task's own (a threading.local mixed two tasks' labels on one thread)
        self._descriptions: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
            "dpcvx accountant descriptions", default=())
        self._composition: tuple[tuple[LedgerEntry, ...], Composition] = ((), Composition(self.neighbours))

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for name in ("_lock", "_descriptions", "_composition"):  # each copy gets its own
            state.pop(name, None)
        with self._lock:
            state["ledger"] = list(self.ledger)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A copy keeps the process of the accountant it copies (``_process``): a copy in another process, which a
        worker of ``n_jobs`` or multiprocessing unpickles, refuses charges (:meth:`_charge`)."""
        self.__dict__.update({"_process": process_token.current(), **state})
        self._fresh_state()

    def copied_with(self, owner: str) -> None:
        """Mark this accountant, a copy that loading a pickled ``owner`` (an estimator holding the accountant) made:
        it refuses every charge (:meth:`_charge`). Charging it would spend the whole budget again (an estimator and
        its pickled copy each fitted at epsilon 0.8 against a budget of 1, and the accountant read 0.8). A deep copy,
        a clone or a shallow copy of the estimator keeps the accountant it holds (one budget for one data set), and
        never marks it."""
        self._copied_with = owner

    def __sklearn_clone__(self) -> PrivacyAccountant:
        """``sklearn.base.clone`` of an estimator holding this accountant keeps THIS accountant (one budget
        for one data set): a deep copy would give every clone of a grid search its own full budget."""
        return self

    @contextlib.contextmanager
    def described(self, description: str) -> Iterator[PrivacyAccountant]:
        """Every charge made inside the block, in this thread or asyncio task, carries ``description`` in its ledger
        line, before the learner's own (blocks nest, outermost first, joined by ": ")."""
        if not isinstance(description, str) or not description.strip():
            raise InputError(f"described() takes a non-empty description string, got {description!r}")
        token = self._descriptions.set((*self._descriptions.get(), description.strip()))
        try:
            yield self
        finally:
            self._descriptions.reset(token)

    def _open_descriptions(self) -> tuple[str, ...]:
        return self._descriptions.get()

    @property
    def spent(self) -> PrivacyCost:
        """What the charges cost together: the sum of their deltas, and the smaller epsilon of basic
        composition and the tight composition of their curves at that delta (module docstring)."""
        with self._lock:
            entries = tuple(self.ledger)
            return self._composed(entries, self._ledger_composition(entries))

    def _ledger_composition(self, entries: tuple[LedgerEntry, ...]) -> Composition:
        """The composition of ``entries`` (the ledger), grown from the last one read when the ledger grew
        from it; recomposed when it changed otherwise (a ledger edited by hand)."""
        known, composition = self._composition
        if len(known) > len(entries) or any(a is not b for a, b in zip(known, entries[:len(known)], strict=True)):
            known, composition = (), Composition(self.neighbours)
        for entry in entries[len(known):]:
            composition = composition.plus(self._parts(entry))
        self._composition = (entries, composition)
        return composition

    def _parts(self, entry: LedgerEntry) -> tuple[CurvePart, ...]:
        """The curve parts of an entry: its curve's, or one (epsilon, delta) part."""
        if entry.curve is not None:
            return entry.curve.parts
        return (CurvePart("epsilon-delta", entry.description, epsilon=entry.cost.epsilon, delta=entry.cost.delta),)

    @staticmethod
    def _composed(entries: Sequence[LedgerEntry], composition: Composition) -> PrivacyCost:
        basic = PrivacyCost(
            math.fsum(entry.cost.epsilon for entry in entries),
            math.fsum(entry.cost.delta for entry in entries),
        )
        if basic.delta == 0 or composition.gaussian_multiplier is None:
            return basic
        # the tight composition at the same delta as basic composition: never more epsilon, never more delta
        return PrivacyCost(min(basic.epsilon, composition.epsilon(basic.delta)), basic.delta)

    @property
    def remaining(self) -> PrivacyCost:
        spent = self.spent
        return PrivacyCost(max(self.epsilon - spent.epsilon, 0.0), max(self.delta - spent.delta, 0.0))

    def can_spend(self, epsilon: float, delta: float = 0.0, curve: PrivacyCurve | None = None, *,
                  neighbours: Neighbours | str | None = None) -> bool:
        """Whether a charge of (epsilon, delta) (with its ``curve``), proved for ``neighbours``, would fit
        the remaining budget now (converted as :meth:`spend` would; InputError when it would be refused)."""
        entry = self._entry(check_cost(epsilon, delta), "", "sequential", curve, neighbours)
        return self._fits(entry)[0]

    def _fits(self, entry: LedgerEntry) -> tuple[bool, Composition]:
        """Whether the ledger with ``entry`` fits the budget, and the composition of that ledger."""
        with self._lock:
            entries = tuple(self.ledger)
            grown = self._ledger_composition(entries).plus(self._parts(entry))
            total = self._composed((*entries, entry), grown)
        return total.epsilon <= self.epsilon * (1 + _SLACK) and total.delta <= self.delta * (1 + _SLACK), grown

    def _entry(self, cost: PrivacyCost, description: str, composition: str, curve: Any,
               neighbours: Neighbours | str | None, conditional: bool = False) -> LedgerEntry:
        """The ledger entry of a charge, under the ledger's relation; refuses a mismatch it cannot convert."""
        if curve is not None and not isinstance(curve, PrivacyCurve):
            raise InputError(f"curve must be a dpcvx PrivacyCurve, got {type(curve).__name__}")
        if curve is not None:
            refuse_candidate(curve)  # a tuned release's candidate share is not what it spent
        if not isinstance(conditional, bool):
            raise InputError(f"conditional must be True or False, got {conditional!r}")
        conditional = conditional or (curve is not None and curve.conditional)
        if conditional and curve is not None and not curve.conditional:  # the ledger's curve says what the entry does:
            curve = replace(curve, conditional=True)  # its to_dp_events asks for allow_estimates as the model's does
        description = ": ".join([*self._open_descriptions(), *([description] if description else [])])
        relation = self._charge_relation(curve, neighbours)
        if relation is self.neighbours:
            return LedgerEntry(cost, description, composition, curve, relation, conditional=conditional)
        if not relation.converts_to(self.neighbours):
            raise InputError(
                f"{description or 'this charge'} is proved for {relation} neighbours and this accountant's "
                f"ledger for {self.neighbours}: a {relation} release may use n, which {self.neighbours} keeps "
                f"private, so it has no {self.neighbours} guarantee; nothing was charged. Charge it to an "
                f"accountant with neighbours='{relation}' (add-remove releases are then converted by group "
                f"privacy), or fit under neighbours='{self.neighbours}' where the learner offers it")
        epsilon, delta = group_epsilon_delta(*cost)
        conversion = (f"proved for {relation} at (epsilon={cost.epsilon:g}, delta={cost.delta:g}); converted to "
                      f"{self.neighbours} by group privacy: (2 eps, (1 + e^eps) delta) = (epsilon={epsilon:g}, "
                      f"delta={delta:g}), Gaussian parts z -> z / 2")
        if delta >= 1:
            raise BudgetExceededError(f"{description or 'this charge'} is {conversion}: delta >= 1 is no "
                                      "guarantee; nothing was computed or charged")
        converted = None if curve is None else curve.under(self.neighbours)
        return LedgerEntry(PrivacyCost(epsilon, delta), description, composition, converted, relation, conversion,
                           conditional)

    @staticmethod
    def _charge_relation(curve: PrivacyCurve | None, neighbours: Neighbours | str | None) -> Neighbours:
        """The relation a charge is proved for: ``neighbours``, its curve's, or replace-one; they must agree."""
        relation = None if neighbours is None else Neighbours.parse(neighbours)
        if curve is None:
            return Neighbours.REPLACE_ONE if relation is None else relation
        if relation is not None and relation is not curve.neighbours:
            raise InputError(f"the charge states neighbours={relation} but its curve is for {curve.neighbours}")
        return curve.neighbours

    def spend(self, epsilon: float, delta: float = 0.0, description: str = "",
              curve: PrivacyCurve | None = None, *, neighbours: Neighbours | str | None = None,
              conditional: bool = False) -> PrivacyCost:
        """Charge a computation on the whole dataset (sequential composition).

        ``curve`` is the computation's privacy curve, when known: it lets
        repeated Gaussian releases compose tightly (module docstring). It must
        satisfy (epsilon, delta) itself; the learners pass their calibration's.
        ``neighbours`` is the relation (epsilon, delta) is proved for (default:
        the curve's, else replace-one); a charge for another relation than the
        ledger's is converted or refused (module docstring). ``conditional``: the computation's guarantee rests on an
        opted-in estimate (a conditional ``curve`` says so itself); its ledger line says CONDITIONAL. Returns the
        cost charged to the ledger (the converted one after a conversion).
        """
        return self._charge(self._entry(check_cost(epsilon, delta), _description(description), "sequential", curve,
                                        neighbours, conditional))

    def spend_release(self, model: Any, description: str = "") -> PrivacyCost:
        """Charge an existing release (a model from ``fit`` or :func:`dpcvx.load`) by its certificate's curve.

        For a release made on this data set outside this accountant: a dpcvx release is charged what it cost in
        total, its ``epsilon``, ``delta`` and ``privacy_curve`` (with privately drawn bounds, their budget too; a
        model :func:`dpcvx.tune` selected, the whole selection's, not its candidate's share); what holds one release,
        that release (:func:`_release_of`: a fitted estimator or kernel learner, a ``TuningResult``; a pipeline is
        refused, since its other steps may have read the rows);
        another object with a certificate, what ``model.certificate`` states.

        A release whose noise came from a caller's seed (its ``noise_source``,
        :class:`~dpcvx.privacy.rng.NoiseSource`) is charged as any other, not refused: its cost holds while the seed
        stays secret and is never used again, which the accountant cannot know (a seed kept by the caller is theirs
        to keep); the release's certificate and report state the seed's use, and say that a release is refitted with
        ``random_state=None``.
        """
        model = _release_of(model)
        certificate = getattr(model, "certificate", None)
        if certificate is None or not hasattr(certificate, "privacy_curve"):
            raise InputError(f"spend_release takes a dpcvx release with a certificate, got {type(model).__name__}")
        (epsilon, delta), curve = release_cost(model), _stated(model).privacy_curve
        return self.spend(epsilon, delta, description or f"release {getattr(certificate, 'mechanism', '')}".strip(),
                          curve=curve)

    def spend_parallel(self, costs: Sequence[tuple[float, float]], description: str = "", *,
                       neighbours: Neighbours | str | None = None, conditional: bool = False) -> PrivacyCost:
        """Charge computations on disjoint parts of the data: the maximum of each coordinate, proved for
        ``neighbours`` (default replace-one; converted or refused as in :meth:`spend`; ``conditional`` as there).

        The maximum holds only when a neighbouring data set changes one part (McSherry 2009, Theorem 4). Under
        replace-one the parts must be fixed by row position (a public split of the row indices, as
        ``tune(procedure="split")`` makes): a record's new value then stays in its old part. Parts formed from the
        records' values (by label, by a column) are not disjoint in that sense under replace-one: one replaced
        record leaves one part and joins another, so both change (two counts by label, each at epsilon 1, cost 2,
        not 1). Charge such parts with :meth:`spend` once per part, or prove each for add/remove (a record added or
        removed falls in one part whatever its values) and pass ``neighbours="add-remove"``."""
        if isinstance(costs, (str, bytes, Mapping)) or not isinstance(costs, Iterable):
            raise InputError(f"spend_parallel takes a list of (epsilon, delta) pairs, got {type(costs).__name__}")
        checked = [check_cost(*_pair(cost)) for cost in costs]
        description = _description(description)
        if not checked:
            raise InputError("spend_parallel needs at least one (epsilon, delta) pair")
        cost = PrivacyCost(max(c.epsilon for c in checked), max(c.delta for c in checked))
        return self._charge(self._entry(cost, description, f"parallel over {len(checked)} disjoint parts", None,
                                        neighbours, conditional))

    def _charge(self, entry: LedgerEntry) -> PrivacyCost:
        # Check and append under one lock: two threads can never both pass the
        # check against the same ledger and then both append.
        cost, description = entry.cost, entry.description
        if self._process != process_token.current():
            # a worker's copy (n_jobs, multiprocessing, a fork): its charges would never reach the accountant the
            # user reads, and every worker would hold the whole budget again (cross_val_score(..., n_jobs=2) spent
            # 3 epsilon and the accountant said 0)
            raise InputError(
                f"{description or 'this computation'}: this accountant was made in another process and copied into "
                "this one, as a worker of n_jobs > 1 or of multiprocessing receives it: its charges would never "
                "reach the accountant you read, so nothing "
                "is charged or computed. Fit in the accountant's own process (n_jobs=1); to continue a ledger "
                "saved from another session on purpose, make a new accountant of it here: "
                "PrivacyAccountant(epsilon=..., delta=..., ledger=saved.ledger, neighbours=saved.neighbours)")
        if self.__dict__.get("_copied_with") is not None:
            raise InputError(
                f"{description or 'this computation'}: this accountant is a copy made by pickling the "
                f"{self._copied_with} that holds it: it would hold the whole budget again, and its charges would never "
                "reach the accountant you read, so nothing is charged or computed. Give the copy the accountant to "
                "charge: estimator.set_params(accountant=accountant) (copy.deepcopy and sklearn's clone keep it)")
        with self._lock:
            fits, grown = self._fits(entry)
            if fits:
                self.ledger.append(entry)
                self._composition = (tuple(self.ledger), grown)
                return cost
            spent, remaining = self.spent, self.remaining
        raise BudgetExceededError(
            f"{description or 'this computation'} needs (epsilon={cost.epsilon:g}, "
            f"delta={cost.delta:g}) but only (epsilon={remaining.epsilon:g}, "
            f"delta={remaining.delta:g}) of the budget (epsilon={self.epsilon:g}, "
            f"delta={self.delta:g}) remains (spent: epsilon={spent.epsilon:g}, "
            f"delta={spent.delta:g}); nothing was computed. Use a smaller epsilon or a "
            "new dataset."
        )

    def __str__(self) -> str:
        with self._lock:
            entries = list(self.ledger)
            spent, remaining = self.spent, self.remaining
        # each number as number_text writes it (:g where that reads back as the same double, else the fewest more
        # digits that do): a line's charge is the sum of the shares its description states (composite_ledger_line)
        lines = [
            f"privacy budget (epsilon={number_text(self.epsilon)}, delta={number_text(self.delta)}, "
            f"{self.neighbours} neighbours): spent (epsilon={number_text(spent.epsilon)}, "
            f"delta={number_text(spent.delta)}), "
            f"remaining (epsilon={number_text(remaining.epsilon)}, delta={number_text(remaining.delta)})"
        ]
        lines += [
            f"  epsilon={number_text(entry.cost.epsilon)}, delta={number_text(entry.cost.delta)} "
            f"({entry.composition}{', with its privacy curve' if entry.curve is not None else ''}): "
            f"{entry.description}{'; ' + entry.conversion if entry.conversion else ''}"
            f"{'; CONDITIONAL on estimated constants' if entry.conditional else ''}"
            for entry in entries
        ]
        return "\n".join(lines)
