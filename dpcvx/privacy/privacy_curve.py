"""Privacy curves: what a release costs, in a form other accountants can compose.

A single (epsilon, delta) pair is all a release *guarantees*, but it composes
loosely: k releases at (epsilon, delta) cost (k epsilon, k delta) by basic
composition. A Gaussian mechanism is described exactly by one number, its
noise multiplier z = sigma / Delta_2 (noise standard deviation over L2
sensitivity), and k Gaussian mechanisms compose like one with multiplier
z / sqrt(k) (Dong, Roth and Su 2022, Corollary 2). A :class:`PrivacyCurve` is
the composition of *parts*, each one of

* ``{"kind": "gaussian", "noise_multiplier": z}``: a Gaussian mechanism with
  sigma = z Delta_2, z in [1e-150, 1e150] (its privacy profile is the analytic Gaussian one, Balle
  and Wang 2018, and its Renyi curve is alpha / (2 z^2));
* ``{"kind": "epsilon-delta", "epsilon": e, "delta": d}``: a mechanism known
  only to be (e, d)-DP (pure epsilon when d = 0).

A release's curve (``model.privacy_curve``, what it spent; its certificate's, saved in model files, is the fit's and,
for a model :func:`dpcvx.tune` selected, one candidate's share: :attr:`PrivacyCurve.candidate_share`) is
derived from its calibration: output perturbation with the analytic Gaussian
is one Gaussian part; Gaussian objective perturbation is the objective share
(an epsilon-delta part: its privacy profile is not that of a Gaussian) plus
the Gaussian that covers the approximate minimiser; pure-epsilon mechanisms
are one epsilon-delta part with delta = 0. The documented form (``to_dict``)
is::

    {"format": "dpcvx-privacy-curve/1", "neighbours": "replace-one" | "add-remove",
     "parts": [{"kind": "gaussian", "noise_multiplier": z, "what": "..."},
               {"kind": "epsilon-delta", "epsilon": e, "delta": d, "what": "..."}]}

with ``"conditional": true`` for a curve that rests on an estimated constant and ``"candidate_share": true`` for one
candidate's share of a tuned release (refused wherever a curve is composed or charged: :func:`refuse_candidate`).

The neighbour relation (:class:`~dpcvx.privacy.neighbours.Neighbours`) is the one
every part's sensitivity was computed for; compose only curves of the same
relation. :meth:`PrivacyCurve.under` converts an add-remove curve to
replace-one by group privacy (each part as :mod:`dpcvx.privacy.neighbours`
says); the reverse is refused.

:func:`compose_epsilon` gives the epsilon of a composition at a target delta:
with the optional ``dp-accounting`` package (``pip install "dpcvx[accounting]"``)
by privacy loss distributions (pessimistic discretisation, an upper bound by
construction; Koskela et al. 2020, Doroshenko et al. 2022); without it by
Renyi DP: Gaussian parts add alpha / (2 z^2), pure parts add
min(e, alpha e^2 / 2) (Bun and Steinke 2016, Proposition 3.3), the sum is
converted by eps = rdp(alpha) + ln((alpha - 1) / alpha) - (ln delta + ln alpha) / (alpha - 1)
(Balle et al. 2020, Theorem 21), and approximate parts (d > 0) are added by
basic composition; Renyi DP too, with or without it, when the privacy loss spans more than ``PLD_EPSILON_MAX`` =
100 (the epsilon-delta parts' epsilons summed, and a Gaussian's loss to eight deviations above its mean: the
distributions' grid grows with that span). Both are never worse than
basic composition, which is returned when it is smaller. Gaussian parts are merged first, exactly, into one
Gaussian of multiplier (sum z_i^-2)^(-1/2) (:class:`Composition`); a composition of
Gaussian parts only has the exact epsilon of that one Gaussian
(:func:`~dpcvx.privacy.gaussian.gaussian_epsilon`), and only the other parts go
through privacy loss distributions or Renyi DP.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..exceptions import InputError
from ..rounding import round_down, round_up, same_recorded
from ..validation import (
    MODERATE_MAX,
    MODERATE_MIN,
    check_choice,
    check_delta,
    check_epsilon,
    non_negative,
    number_text,
    positive,
)
from .gaussian import analytic_gaussian_multiplier, gaussian_delta, gaussian_epsilon
from .neighbours import GROUP_PRIVACY, Neighbours, group_epsilon_delta, group_noise_multiplier

__all__ = ["CURVE_FORMAT", "CurvePart", "PrivacyCurve", "Composition", "compose_epsilon", "epsilon_delta_curve",
           "DrawnPart", "AFTER_DRAWS", "STATEMENT", "fit_after_draws_part", "draws_then_fit_curve", "drawn_curve_parts",
           "check_recorded_curve", "refuse_conditional", "refuse_candidate", "CandidateMark", "mark_candidate",
           "candidate_share_of",
           "RDP_ORDERS",
           "PLD_EPSILON_MAX", "have_dp_accounting", "rdp_conversion", "rdp_to_epsilon"]

CURVE_FORMAT = "dpcvx-privacy-curve/1"
GAUSSIAN, EPSILON_DELTA = "gaussian", "epsilon-delta"
# Renyi orders for the fallback: dense near 1 (large epsilon) and up to 1024 (small epsilon)
RDP_ORDERS = np.concatenate([1 + np.geomspace(1e-3, 1, 60)[:-1], np.geomspace(2, 1024, 120)])
_PLD_DISCRETISATION = 1e-4
#: The largest span of the privacy loss (:func:`_loss_span`: the epsilon-delta parts' epsilons summed, and a
#: Gaussian's loss to eight deviations above its mean) that :func:`compose_epsilon` composes by privacy loss
#: distributions. Their losses span [-E, E] for a sum E, a grid of 2 E / 1e-4 points: one pure part at E = 100
#: composed with a Gaussian took 0.95 s and 161 MB, at E = 700 4.7 s and 804 MB, and from E = 710 dp-accounting's
#: e^epsilon overflows (a bare OverflowError, and MemoryError for larger sums); a Gaussian of small multiplier z grows
#: the grid as 1 / z^2 (at z = 0.01 beside a pure part, a bare MemoryError). Above it ``"auto"`` composes by Renyi
#: DP (an upper bound as well; it gave 100.87 where the distributions gave 100.80) and ``"pld"`` is refused.
PLD_EPSILON_MAX = 100.0
#: the splits of epsilon between a curve's epsilon-delta parts and its Gaussian that :meth:`PrivacyCurve.profile`
#: tries (and the split at the epsilon-delta parts' whole epsilon)
PROFILE_SPLITS = 33
#: the accountings :func:`compose_epsilon` takes as ``method``
ACCOUNTING_METHODS = ("auto", "pld", "rdp", "basic")


@dataclass(frozen=True)
class CurvePart:
    """One mechanism of a composition: Gaussian (``noise_multiplier``) or (``epsilon``, ``delta``)-DP."""

    kind: str
    what: str
    noise_multiplier: float | None = None
    epsilon: float | None = None
    delta: float = 0.0

    def __post_init__(self) -> None:
        if self.kind == GAUSSIAN:  # z^-2, which the merged Gaussian sums, finite and normal (a bare OverflowError)
            positive("noise_multiplier", self.noise_multiplier, minimum=MODERATE_MIN, maximum=MODERATE_MAX)
        elif self.kind == EPSILON_DELTA:
            check_epsilon(self.epsilon)
            check_delta(self.delta)
        else:
            raise InputError(f"a privacy-curve part is {GAUSSIAN!r} or {EPSILON_DELTA!r}, got {self.kind!r}")

    @classmethod
    def gaussian(cls, sigma: float, sensitivity: float, what: str) -> CurvePart:
        """N(0, sigma^2 I) added to a query of L2 sensitivity ``sensitivity``."""
        return cls(GAUSSIAN, what, noise_multiplier=positive("sigma", sigma) / positive("sensitivity", sensitivity))

    def rdp(self, orders: np.ndarray) -> np.ndarray | None:
        """The Renyi-DP curve at ``orders`` (None for an approximate (epsilon, delta > 0) part)."""
        if self.kind == GAUSSIAN:
            assert self.noise_multiplier is not None
            return orders / (2 * self.noise_multiplier**2)
        if self.delta > 0:
            return None
        assert self.epsilon is not None
        return np.minimum(self.epsilon, orders * self.epsilon**2 / 2)

    def to_dict(self) -> dict[str, Any]:
        if self.kind == GAUSSIAN:
            return {"kind": GAUSSIAN, "noise_multiplier": self.noise_multiplier, "what": self.what}
        return {"kind": EPSILON_DELTA, "epsilon": self.epsilon, "delta": self.delta, "what": self.what}

    def grouped(self) -> CurvePart:
        """This add-remove part under replace-one (group privacy): z -> z / 2, (e, d) -> (2 e, (1 + e^e) d)."""
        what = f"{self.what}; add-remove converted to replace-one by group privacy"
        if self.kind == GAUSSIAN:
            assert self.noise_multiplier is not None
            return CurvePart(GAUSSIAN, what, noise_multiplier=group_noise_multiplier(self.noise_multiplier))
        assert self.epsilon is not None
        epsilon, delta = group_epsilon_delta(self.epsilon, self.delta)
        if delta >= 1:
            raise InputError(f"the add-remove part {self.what!r}, ({self.epsilon:g}, {self.delta:g})-DP, is "
                             f"({epsilon:g}, 1)-DP under replace-one by group privacy: delta >= 1 is no guarantee")
        return CurvePart(EPSILON_DELTA, what, epsilon=epsilon, delta=delta)

    @classmethod
    def from_dict(cls, data: Any) -> CurvePart:
        if not isinstance(data, dict) or data.get("kind") not in (GAUSSIAN, EPSILON_DELTA):
            raise InputError(f"a privacy-curve part must be an object with kind {GAUSSIAN!r} or "
                             f"{EPSILON_DELTA!r}, got {data!r}")
        keys = {"kind", "what", "noise_multiplier"} if data["kind"] == GAUSSIAN else {
            "kind", "what", "epsilon", "delta"}
        if set(data) != keys:
            raise InputError(f"a {data['kind']} privacy-curve part has the keys {sorted(keys)}, got {sorted(data)}")
        return cls(**data)


@dataclass(frozen=True)
class PrivacyCurve:
    """The composition of ``parts``, all for the neighbour relation ``neighbours``. ``conditional``: a part rests on
    an opted-in estimate of a constant (``allow_estimates=True``), so the curve holds only if the estimate is at least
    the true value; it is kept by every view of the curve (:meth:`under`, :meth:`to_dict`, a ledger line) and a
    bridge that cannot state it (:meth:`to_dp_events`, :func:`dpcvx.as_opendp_measurement`) asks for the opt-in
    again."""

    parts: tuple[CurvePart, ...]
    neighbours: Neighbours = Neighbours.REPLACE_ONE
    conditional: bool = False
    #: the curve of one candidate's fit of a release :func:`dpcvx.tune` selected (its certificate's curve,
    #: :meth:`CandidateMark.marked`), a share of what the release spent: every reader that composes or charges a curve
    #: refuses it (:func:`refuse_candidate`) and ``str`` says so, since composing it in place of the release's own
    #: curve (``model.privacy_curve``) understates the spend. State of the curve, so every copy keeps it
    #: (``dataclasses.replace``, :meth:`under`, ``copy``, pickling) and :meth:`to_dict` writes it
    #: (``"candidate_share": true``), which :meth:`from_dict` reads back; two curves of the same parts are equal.
    candidate_share: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "neighbours", Neighbours.parse(self.neighbours))

    @classmethod
    def gaussian(cls, sigma: float, sensitivity: float, what: str,
                 neighbours: Neighbours = Neighbours.REPLACE_ONE) -> PrivacyCurve:
        """One Gaussian mechanism: N(0, sigma^2 I) added to a query of L2 sensitivity ``sensitivity``
        (:meth:`CurvePart.gaussian`), proved for ``neighbours``."""
        return cls((CurvePart.gaussian(sigma, sensitivity, what),), neighbours)

    def under(self, target: Neighbours | str) -> PrivacyCurve:
        """This curve for the relation ``target`` (a :class:`Neighbours` or its public spelling): itself, or
        an add-remove curve converted to replace-one part by part (:meth:`CurvePart.grouped`).
        Replace-one -> add-remove is refused: a replace-one release may use n, which add-remove keeps private."""
        target = Neighbours.parse(target, "target")
        if self.neighbours is target:
            return self
        if not self.neighbours.converts_to(target):
            raise InputError(f"a curve proved for {self.neighbours} neighbours has no {target} guarantee "
                             f"(a {self.neighbours} release may use n, which {target} keeps private); only "
                             f"add-remove converts to replace-one, by {GROUP_PRIVACY}")
        return PrivacyCurve(tuple(part.grouped() for part in self.parts), target, self.conditional,
                            self.candidate_share)

    def rdp(self, orders: np.ndarray = RDP_ORDERS) -> np.ndarray | None:
        """The Renyi-DP curve of the composition at ``orders`` (the parts' curves add, Mironov 2017,
        Proposition 1), or None when a part has none (an approximate (epsilon, delta > 0) part)."""
        total = np.zeros_like(orders, dtype=float)
        for part in self.parts:
            curve = part.rdp(orders)
            if curve is None:
                return None
            total = total + curve
        return total

    def epsilon(self, delta: float) -> float:
        """The smallest epsilon this curve is known to satisfy at ``delta`` (:func:`compose_epsilon`)."""
        return compose_epsilon([self], delta)

    def profile(self, epsilons: ArrayLike) -> np.ndarray:
        """The delta this curve is known to satisfy at each of ``epsilons`` (its privacy profile), fast.

        The Gaussian parts compose into one Gaussian of multiplier
        z = (sum_i z_i^-2)^(-1/2) (Dong, Roth and Su 2022, Corollary 2), whose
        delta at e is exact (the analytic Gaussian, Balle and Wang 2018,
        Theorem 8: :func:`~dpcvx.privacy.gaussian.gaussian_delta`). The (e_j, d_j)
        parts compose by basic composition into one (E, D)-DP part,
        E = sum_j e_j and D = sum_j d_j, whose delta at a is at most

            delta_ED(a) = D + (1 - D) (e^E - e^a) / (1 + e^E) for a < E, D for a >= E

        (an (E, D)-DP pair of output distributions is dominated by a four-point
        pair with this profile: Kairouz, Oh and Viswanath 2015, Theorem 4; a
        pure part's profile is that of randomized response). The two compose by
        basic composition at every split of epsilon = a + b, 0 <= a <= min(epsilon, E):

            delta(epsilon) = min over a of delta_ED(a) + delta_z(epsilon - a)

        (delta_z = 0 without a Gaussian part), the minimum taken over a grid of
        ``PROFILE_SPLITS`` splits and a = min(epsilon, E): an upper bound at each
        split, so at every epsilon. The tightest the parts' guarantees give for
        one Gaussian part or one epsilon-delta part; an upper bound otherwise, at
        the certified epsilon of a dpcvx release never above its certified delta
        (its calibration splits its budget at a = E).

        Each epsilon is a real number >= 0 by the rule of every number of dpcvx
        (:func:`~dpcvx.validation.non_negative`): True, a Decimal or text is refused. One candidate's share of a
        tuned release (:attr:`candidate_share`) is refused, as by :meth:`Composition.of`.
        """
        entries = np.asarray(epsilons, dtype=object)  # the objects themselves: True or a Decimal is no epsilon
        if entries.ndim != 1:
            raise InputError("profile takes a one-dimensional array of finite epsilons >= 0")
        points = np.array([non_negative(f"epsilons[{index}]", value) for index, value in enumerate(entries)],
                          dtype=float)
        pure, spent = _basic([part for part in self.parts if part.kind == EPSILON_DELTA])
        merged = Composition.of([self]).gaussian_multiplier
        deltas = np.ones_like(points)
        for index, epsilon in enumerate(points):
            top = min(epsilon, pure)
            splits = [top] if merged is None else [*np.linspace(0.0, top, PROFILE_SPLITS).tolist(), top]
            deltas[index] = min(1.0, *(_pair_delta(pure, spent, a) + (
                0.0 if merged is None else max(gaussian_delta(merged, 1.0, epsilon - a), 0.0)) for a in splits))
        return deltas

    def to_dp_events(self, *, allow_estimates: bool = False) -> Any:
        """This curve as a dp-accounting ``ComposedDpEvent`` (the ``accounting`` extra), one event per part.

        A :attr:`conditional` curve (a constant estimated, not proved) is refused unless ``allow_estimates=True``:
        an event cannot say that its guarantee is conditional, so the caller states again that it knows.

        A curve does not know where its release's noise came from: the curve of a release drawn from a caller's seed
        (:class:`~dpcvx.privacy.rng.NoiseSource`, which the release's certificate records) converts as any other,
        since its guarantee holds while the seed stays secret and unused elsewhere; its certificate and report say so.

        * a Gaussian part of multiplier z -> ``GaussianDpEvent(z)``: N(0, z^2) against a shift of 1,
          the dominating pair of every Gaussian mechanism of sigma / Delta = z, whatever the relation
          Delta was computed for (this curve's ``neighbours``);
        * a pure epsilon part -> ``RandomizedResponseDpEvent(p, 2)``, p = 2 / (1 + e^epsilon) rounded
          down: binary randomized response, privacy loss +-epsilon, whose pair of output distributions
          dominates every epsilon-DP mechanism (Kairouz, Oh and Viswanath 2015, Theorem 4), so no
          dp-accounting event of a part known only to be epsilon-DP is tighter. (``LaplaceDpEvent(1 /
          epsilon)`` would understate it: a Laplace's loss is spread over [-epsilon, epsilon]. The former
          ``ZCDpEvent(epsilon^2 / 2)`` overstated it: one release at epsilon = 1 composed to 4.73 at delta
          = 1e-5, four to 10.7, above basic composition's 4.)
          A pure mechanism chosen where the user gave (epsilon, delta > 0) (the pure objective perturbation,
          :func:`~dpcvx.verification.verdict.pure_at_delta`) has such a part, (epsilon, 0)
          (:meth:`~dpcvx.privacy.calibration.LinearCalibration.privacy_curve`), and so this event;
        * an (epsilon, delta > 0) part has no dp-accounting event: refused with an InputError
          (compose it with :func:`compose_epsilon`, which takes it by its privacy parameters).

        The events carry no relation: compose them only with events of this curve's relation, in

        * ``RdpAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)``: every event above, at
          its exact Renyi curve (a Gaussian's does not depend on the flag; randomized response is
          read under it as the pair above). Its default ``ADD_OR_REMOVE_ONE`` refuses randomized
          response and its ``REPLACE_SPECIAL`` reads it as another, weaker pair: neither for a curve
          with a pure part. At delta = 1e-5, one pure release at epsilon = 1 gives 1.003 where dpcvx
          gives 1.000 (:func:`compose_epsilon`), 4 give 4.002 (4.000), 25 give 24.97 (24.97); a Renyi
          bound is up to about 10% above dpcvx's at many small parts (100 at 0.1: 4.62, dpcvx 4.31);
        * ``PLDAccountant()`` (its default ``ADD_OR_REMOVE_ONE``, Gaussian of sensitivity 1) for a curve
          of Gaussian parts only: the same epsilon as dpcvx's. Not for a curve with a pure part:
          ``ADD_OR_REMOVE_ONE`` refuses randomized response, and ``REPLACE_ONE`` doubles the Gaussians'
          sensitivity and (dp-accounting 0.6.0) composes a ``RandomizedResponseDpEvent`` once whatever
          the count given to ``compose``: an epsilon below the truth. :func:`compose_epsilon` composes
          such curves by privacy loss distributions, part by part.

        With no part, a ``NoOpDpEvent``. The curve of one candidate of a tuned release (:attr:`candidate_share`,
        its certificate's) is refused: the release spent the selection's total, ``model.privacy_curve``.
        """
        try:
            import dp_accounting
        except ImportError as error:
            raise ImportError('PrivacyCurve.to_dp_events needs dp-accounting: pip install "dpcvx[accounting]"') \
                from error
        refuse_candidate(self)
        refuse_conditional(self, "a dp-accounting event", allow_estimates)
        events = []
        for part in self.parts:
            if part.kind == GAUSSIAN:
                events.append(dp_accounting.GaussianDpEvent(part.noise_multiplier))
            elif part.delta == 0:
                assert part.epsilon is not None
                events.append(dp_accounting.RandomizedResponseDpEvent(_response_noise(part.epsilon), 2))
            else:
                raise InputError(f"the part {part.what!r} is only known to be ({part.epsilon:g}, {part.delta:g})-DP, "
                                 "which no dp-accounting event represents; compose this curve with "
                                 "dpcvx.privacy.privacy_curve.compose_epsilon instead")
        return dp_accounting.ComposedDpEvent(events) if events else dp_accounting.NoOpDpEvent()

    def to_dict(self) -> dict[str, Any]:
        """The curve as data; ``"conditional": true`` only for a conditional curve and ``"candidate_share": true``
        only for one candidate's share of a tuned release (:attr:`candidate_share`), so that :meth:`from_dict` of
        it is refused where the curve was (the dict of any other curve is unchanged). A model file's certificate
        records the mark too (format version 20): a tuned release's ``certificate.to_dict()``, its file's
        ``certificate.privacy_curve`` and its tuning record's curves all read back as shares."""
        return {"format": CURVE_FORMAT, "neighbours": self.neighbours.value,
                "parts": [part.to_dict() for part in self.parts], **({"conditional": True} if self.conditional else {}),
                **({CANDIDATE_KEY: True} if self.candidate_share else {})}

    @classmethod
    def from_dict(cls, data: Any) -> PrivacyCurve:
        if not isinstance(data, dict) or data.get("format") != CURVE_FORMAT:
            raise InputError(f"a privacy curve is an object with format {CURVE_FORMAT!r}")
        keys = {"format", "neighbours", "parts"}
        if not keys <= set(data) <= keys | {"conditional", CANDIDATE_KEY} or not isinstance(data["parts"], list) \
                or data.get("conditional", True) is not True or data.get(CANDIDATE_KEY, True) is not True:
            raise InputError(f"a privacy curve has the keys format, neighbours and parts (a list), conditional "
                             f"(true) when a constant of it is estimated and {CANDIDATE_KEY} (true) when it is one "
                             "candidate's share of a tuned release")
        return cls(tuple(CurvePart.from_dict(part) for part in data["parts"]),
                   Neighbours.parse(data["neighbours"], "privacy_curve.neighbours"), "conditional" in data,
                   CANDIDATE_KEY in data)

    def __str__(self) -> str:
        parts = "; ".join(part.what for part in self.parts) or "no part"
        return (f"privacy curve ({self.neighbours} neighbours): {parts}"
                + (" - CONDITIONAL on estimated constants" if self.conditional else "")
                + (f" - {CANDIDATE_SHARE}" if self.candidate_share else ""))


#: what the curve of one candidate of a tuned release is (:attr:`PrivacyCurve.candidate_share`)
CANDIDATE_SHARE = ("ONE CANDIDATE'S SHARE of a release dpcvx.tune selected, not what the release spent: its curve "
                   "is model.privacy_curve (its epsilon model.epsilon)")
CANDIDATE_REFUSAL = (f"this curve is {CANDIDATE_SHARE}; compose model.privacy_curve (the accountant's "
                     "spend_release(model) does) instead of model.certificate.privacy_curve")
#: the key of :attr:`PrivacyCurve.candidate_share` in :meth:`PrivacyCurve.to_dict`
CANDIDATE_KEY = "candidate_share"


def refuse_candidate(curve: PrivacyCurve) -> None:
    """Refuse (InputError) the curve of one candidate of a tuned release wherever a curve is composed or charged as
    a release's: :meth:`Composition.of` (so :func:`compose_epsilon`, :meth:`PrivacyCurve.epsilon` and
    :meth:`PrivacyCurve.profile`), :meth:`PrivacyCurve.to_dp_events` and the accountant's charge. Only
    ``to_dp_events`` refused it, so ``compose_epsilon([model.certificate.privacy_curve], ...)`` and
    ``accountant.spend(..., curve=...)`` took 0.667 of a release that spent 2 (an attacker probe, sixty-eighth
    session), and ``Composition.of`` still did (sixty-ninth)."""
    if curve.candidate_share:
        raise InputError(CANDIDATE_REFUSAL)


@dataclass(frozen=True)
class CandidateMark:
    """The state every release certificate has (linear, kernel, multiclass, sufficient statistics): whether it is
    the certificate of one candidate's fit of a release :func:`dpcvx.tune` selected (:func:`mark_candidate`), so
    that its curve says so (:meth:`marked`). A field, not an attribute set after construction: the former attribute
    was lost by ``dataclasses.replace`` (``sparsify`` then composed and charged 0.667 of a release that spent 2, an
    attacker probe, sixty-ninth session); a field is kept by every copy (``replace``, ``copy``, pickling).
    Keyword-only, so that it follows each certificate's own fields; not compared, so a marked certificate equals the
    same fit's unmarked one. Not a key of the certificate's record: its curve's record carries it
    (``"candidate_share": true``, :meth:`PrivacyCurve.to_dict`), in ``to_dict`` and in a model file (format version
    20; a file's reader sets it aside and marks the loaded certificate again by its tuning record,
    :meth:`dpcvx.release.tuning_record.TuningRecord.attach`).
    """

    candidate_of_tuning: bool = field(default=False, compare=False, repr=False, kw_only=True)

    def marked(self, curve: PrivacyCurve) -> PrivacyCurve:
        """``curve``, this certificate's own, marked :attr:`~PrivacyCurve.candidate_share` when this is one
        candidate's certificate of a tuned release (:func:`candidate_share_of`). Every view of the curve reads it
        through here: the attribute, the certificate's ``to_dict`` (and so its model-file record, format version 20)
        and a tuning certificate's record of it."""
        return candidate_share_of(curve) if self.candidate_of_tuning is True else curve

    def marked_record(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record``, a saved record of this certificate's curve (a loaded certificate's, kept as the file holds it),
        marked as :meth:`marked` marks the curve: its :meth:`PrivacyCurve.to_dict` with ``"candidate_share": true``
        last, when this is one candidate's certificate of a tuned release."""
        return {**record, CANDIDATE_KEY: True} if self.candidate_of_tuning is True else record

    def composed_certificates(self) -> tuple[Any, ...]:
        """The certificates whose curves this certificate's curve composes (a one-vs-rest release's classes'), each
        then one candidate's share too when this is, so that :func:`mark_candidate` marks them with it: none here.
        A class's curve of a full-data selection is a third of what three classes' selection spent, and composed
        as the release's, where it alone was read back (an attacker probe, seventieth session, P8 F1)."""
        return ()

    @classmethod
    def recorded_fields(cls) -> set[str]:
        """The names of this certificate type's fields that its model-file record holds: all but the mark (which
        the file states by its tuning record, and by ``"candidate_share": true`` in the certificate's curve)."""
        return {item.name for item in fields(cls)} - {item.name for item in fields(CandidateMark)}


def candidate_share_of(curve: PrivacyCurve) -> PrivacyCurve:
    """``curve`` marked as one candidate's share of a release :func:`dpcvx.tune` selected
    (:attr:`PrivacyCurve.candidate_share`): a selected release's certificate's curve (:meth:`CandidateMark.marked`)
    and each candidate's curve a full-data selection claimed before its runs
    (``SelectionCertificate.candidate_curves``). The one way a curve is marked."""
    return curve if curve.candidate_share else replace(curve, candidate_share=True)


def mark_candidate(certificate: Any) -> None:
    """Mark ``certificate`` (a :class:`CandidateMark`) as that of one candidate of a release :func:`dpcvx.tune`
    selected (the tuning record attached by the tuning result and by a file's reader), so that its curve says so
    (:meth:`CandidateMark.marked`). Its field is set in place, once, so that every holder of this certificate (the
    release and its tuning certificate's ``release``) reads it marked; every copy made after keeps the field. The
    certificate's equality is unchanged; its record's curve says it is a share (:meth:`CandidateMark.marked`).
    The certificates its curve composes (:meth:`CandidateMark.composed_certificates`: a one-vs-rest release's classes')
    are marked with it, here, the one place: each class's curve is a share of the same selection."""
    if not isinstance(certificate, CandidateMark):
        raise InputError(f"a tuned release's certificate records whether it is one candidate's "
                         f"(dpcvx.privacy.privacy_curve.CandidateMark); {type(certificate).__name__} does not")
    object.__setattr__(certificate, "candidate_of_tuning", True)  # frozen: the one write, by TuningRecord.attach
    for composed in certificate.composed_certificates():
        mark_candidate(composed)


def refuse_conditional(curve: PrivacyCurve, target: str, allow_estimates: bool) -> None:
    """Refuse to state a :attr:`~PrivacyCurve.conditional` curve as ``target`` (a bridge's object, which has no way
    to say so) unless the caller opts in again with ``allow_estimates=True``."""
    if curve.conditional and allow_estimates is not True:
        raise InputError(f"this privacy curve is CONDITIONAL: a constant of its proof was estimated, not proved "
                         f"(allow_estimates=True at the fit), and {target} cannot say so. Pass allow_estimates=True "
                         "to convert it anyway, and keep the condition with what you publish")


def _response_noise(epsilon: float) -> float:
    """The noise parameter p of binary randomized response at epsilon, p = 2 / (1 + e^epsilon), rounded down
    (a smaller p is a larger epsilon: the event never understates the part), in a form that cannot overflow;
    0 (no guarantee, which dp-accounting reads as such) where e^-epsilon underflows, epsilon > 745."""
    tail = math.exp(-epsilon)
    return round_down(2 * tail / (1 + tail))


def have_dp_accounting() -> bool:
    """Whether the optional ``dp-accounting`` package is importable."""
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        return False
    return True


def _pair_delta(epsilon: float, delta: float, at: float) -> float:
    """The delta of an (``epsilon``, ``delta``)-DP mechanism at ``at`` <= ``epsilon``: delta + (1 - delta)
    (e^epsilon - e^at) / (1 + e^epsilon), written (1 - e^(at - epsilon)) / (1 + e^-epsilon) so that no exponential
    overflows (:meth:`PrivacyCurve.profile`)."""
    if at >= epsilon:
        return delta
    return delta + (1 - delta) * -math.expm1(at - epsilon) / (1 + math.exp(-epsilon))


def _basic(parts: Sequence[CurvePart]) -> tuple[float, float]:
    """Basic composition: (sum of epsilons, sum of deltas); Gaussian parts have no single pair."""
    return (math.fsum(p.epsilon or 0.0 for p in parts), math.fsum(p.delta for p in parts))


def _basic_epsilon(others: Sequence[CurvePart], multiplier: float | None, delta: float) -> float:
    """Basic composition at ``delta`` (not rounded): the (epsilon, delta) parts' epsilons summed when their deltas fit
    in ``delta``; with merged Gaussian parts of multiplier z, plus the Gaussian's exact epsilon at the delta left,
    eps_G(z, round_down(delta - sum delta_i)) (Dwork and Roth 2014, Theorem 3.16; Balle and Wang 2018, Theorem 8).
    For a Gaussian objective-perturbation release this gives back its calibration's split: the objective's
    (eps_o, delta_o) and the cover's Gaussian, so a curve never states more than its certificate at the certificate's
    own delta by this bound (it was math.inf whenever a Gaussian part was present). math.inf when nothing is left."""
    epsilon, spent = _basic(others)
    if multiplier is None:
        return epsilon if spent <= delta else math.inf
    left = round_down(delta - spent) if delta > spent else 0.0
    return epsilon + gaussian_epsilon(multiplier, left) if left > 0 else math.inf


def _rdp_epsilon(parts: Sequence[CurvePart], delta: float) -> float:
    """Renyi-DP composition of the exact parts, plus basic composition of the approximate ones."""
    curves = [(part, part.rdp(RDP_ORDERS)) for part in parts]
    approximate = [part for part, rdp in curves if rdp is None]
    exact = [rdp for _, rdp in curves if rdp is not None]
    epsilon, spent_delta = _basic(approximate)
    left = delta - spent_delta
    if not exact:
        return epsilon if left >= 0 else math.inf
    if left <= 0:
        return math.inf
    return epsilon + rdp_to_epsilon(np.sum(exact, axis=0), left)


def rdp_conversion(rdp: np.ndarray, orders: np.ndarray, delta: float) -> np.ndarray:
    """The epsilon at ``delta`` that a Renyi-DP curve ``rdp`` gives at each of ``orders`` (all > 1):

        eps(alpha) = rdp(alpha) + ln((alpha - 1) / alpha) - (ln delta + ln alpha) / (alpha - 1)

    (Balle, Barthe, Gaboardi, Hsu and Sato 2020, Theorem 21); the guarantee is the minimum over the
    orders (:func:`rdp_to_epsilon`). In doubles, not rounded.
    """
    orders = np.asarray(orders, dtype=float)
    return rdp + np.log((orders - 1) / orders) - (math.log(delta) + np.log(orders)) / (orders - 1)


def rdp_to_epsilon(rdp: np.ndarray, delta: float, orders: np.ndarray = RDP_ORDERS) -> float:
    """The epsilon at ``delta`` of a mechanism that is (alpha, ``rdp[i]``)-RDP at each alpha = ``orders[i]`` > 1:
    the minimum over the orders of :func:`rdp_conversion`, and at least 0. In doubles, not rounded:
    the callers round the result up (:func:`compose_epsilon`, :func:`dpcvx.privacy.stopping.stopping_epsilon`).
    """
    orders = np.asarray(orders, dtype=float)
    rdp = np.asarray(rdp, dtype=float)
    if rdp.shape != orders.shape or not np.all(orders > 1):
        raise InputError("rdp_to_epsilon takes one Renyi value for each order, every order above 1")
    if not 0 < delta < 1:
        raise InputError(f"the conversion from Renyi DP needs 0 < delta < 1, got {delta}")
    return max(float(np.min(rdp_conversion(rdp, orders, delta))), 0.0)


def _pld(parts: Sequence[CurvePart]) -> Any:
    """The privacy loss distribution of ``parts`` composed, with dp-accounting (pessimistic: an upper bound);
    None for no parts."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    composed = None
    for part in parts:
        if part.kind == GAUSSIAN:
            one = pld.from_gaussian_mechanism(part.noise_multiplier, sensitivity=1.0, pessimistic_estimate=True,
                                              value_discretization_interval=_PLD_DISCRETISATION)
        else:
            one = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(part.epsilon, part.delta),
                                              value_discretization_interval=_PLD_DISCRETISATION)
        composed = one if composed is None else composed.compose(one)
    return composed


@dataclass(frozen=True)
class Composition:
    """The composition of privacy-curve parts for one neighbour relation, kept in its exact reduced form.

    Gaussian parts are merged in closed form into one multiplier, :attr:`gaussian_multiplier`;
    only the other parts (``others``) need privacy loss distributions or Renyi DP. A composition
    grows by :meth:`plus`, which reuses the privacy loss distribution already composed for its
    ``others`` (composed once, on the first :meth:`epsilon` that needs it), so an accountant
    that charges k releases one by one composes each part once, not k times.
    """

    neighbours: Neighbours
    inverse_squares: tuple[float, ...] = ()  # z_i^-2 of the Gaussian parts
    others: tuple[CurvePart, ...] = ()
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, curves: Iterable[PrivacyCurve], neighbours: Neighbours | None = None) -> Composition:
        """The composition of ``curves``, all for one relation (``neighbours`` when given). One candidate's share of
        a tuned release is refused (:func:`refuse_candidate`): composed as a release, it understates the spend."""
        curves = list(curves)
        for curve in curves:
            refuse_candidate(curve)
        relations = {curve.neighbours for curve in curves} | ({neighbours} if neighbours is not None else set())
        if len(relations) > 1:
            raise InputError("curves for different neighbour relations do not compose; state one relation")
        empty = cls(relations.pop() if relations else Neighbours.REPLACE_ONE)
        return empty.plus([part for curve in curves for part in curve.parts])

    def plus(self, parts: Iterable[CurvePart]) -> Composition:
        """This composition followed by ``parts`` (of the same relation)."""
        parts = list(parts)
        gaussian = tuple(part.noise_multiplier**-2 for part in parts
                         if part.kind == GAUSSIAN and part.noise_multiplier is not None)
        others = tuple(part for part in parts if part.kind != GAUSSIAN)
        grown = Composition(self.neighbours, self.inverse_squares + gaussian, self.others + others)
        grown._cache["parent"] = (self, others)  # for the privacy loss distribution of ``others``
        return grown

    @property
    def empty(self) -> bool:
        return not self.inverse_squares and not self.others

    @property
    def gaussian_multiplier(self) -> float | None:
        """The multiplier of the merged Gaussian parts (None without one): (sum z_i^-2)^(-1/2).

        Exact (Dong, Roth and Su 2022, Corollary 2: mu_i-GDP mechanisms compose to
        sqrt(sum mu_i^2)-GDP, and a Gaussian of multiplier z is (1 / z)-GDP), moved down by
        ``ROUNDING`` (a smaller multiplier is the safe side)."""
        if not self.inverse_squares:
            return None
        return round_down(math.fsum(self.inverse_squares) ** -0.5)

    def _others_pld(self) -> Any:
        """The composed privacy loss distribution of ``others`` (cached; from the parent's when it has one)."""
        if "pld" not in self._cache:
            parent = self._cache.pop("parent", None)
            if parent is not None and "pld" in parent[0]._cache:
                base, new = parent[0]._cache["pld"], _pld(parent[1])
                self._cache["pld"] = base if new is None else new if base is None else base.compose(new)
            else:
                self._cache["pld"] = _pld(self.others)
        return self._cache["pld"]

    def epsilon(self, delta: float, method: str = "auto", *, split: bool = False) -> float:
        """epsilon at ``delta``; cached per (delta, method, split).

        ``split`` True (:func:`compose_epsilon`, a release's ``privacy_curve.epsilon``) also knows basic composition
        of the (epsilon, delta) parts with the merged Gaussian at the delta they leave (:func:`_basic_epsilon`), and,
        for "auto", Renyi DP where the privacy loss distribution knows no epsilon. False (the accountant's tight
        composition, which takes the smaller of it and basic composition of the charged pairs itself) keeps the
        composition it always had: basic only without a Gaussian part, and the PLD's answer as it is.
        """
        method = check_choice("method", method, ACCOUNTING_METHODS)
        delta = check_delta(delta)
        key = f"epsilon {delta!r} {method} {split}"
        if key not in self._cache:
            self._cache[key] = self._epsilon(delta, method, split)
        return float(self._cache[key])

    def _epsilon(self, delta: float, method: str, split: bool) -> float:
        if self.empty:
            return 0.0
        multiplier = self.gaussian_multiplier
        basic_epsilon, basic_delta = _basic(self.others)
        if split:
            basic = _basic_epsilon(self.others, multiplier, delta)
        else:
            basic = basic_epsilon if multiplier is None and basic_delta <= delta else math.inf
        if method == "basic" or delta == 0:
            return round_up(basic) if basic < math.inf else basic
        merged = () if multiplier is None else (CurvePart(GAUSSIAN, "merged Gaussian parts",
                                                          noise_multiplier=multiplier),)
        if method == "auto" and not self.others:  # Gaussian parts only: the closed form, exact
            assert multiplier is not None
            return gaussian_epsilon(multiplier, delta)
        span = _loss_span(basic_epsilon, multiplier)
        if method == "pld" and span > PLD_EPSILON_MAX:
            raise InputError(f"privacy loss distributions compose parts whose privacy losses span at most "
                             f"{PLD_EPSILON_MAX:g} (their grid grows with it, and dp-accounting overflows from "
                             f"710); these span {number_text(span)}. Compose them with method='rdp' or 'auto'")
        if method == "pld" or (method == "auto" and have_dp_accounting() and span <= PLD_EPSILON_MAX):
            others = self._others_pld()
            composed = _pld(merged) if others is None else others if not merged else others.compose(_pld(merged))
            tight = float(composed.get_epsilon_for_delta(delta))
            if split and method == "auto" and tight == math.inf:  # the PLD's grid knows none; Renyi DP may
                tight = _rdp_epsilon(merged + self.others, delta)
        else:
            tight = _rdp_epsilon(merged + self.others, delta)
        best = min(basic, tight)
        return round_up(best) if best < math.inf else best


def _loss_span(epsilons: float, multiplier: float | None) -> float:
    """How far the privacy loss of a composition reaches, which the grid of its privacy loss distributions spans: the
    epsilon-delta parts' epsilons summed, and a Gaussian of multiplier z's loss, N(mu, 2 mu) with mu = 1 / (2 z^2),
    to mu + 8 sqrt(2 mu) = 1 / (2 z^2) + 8 / z (a Gaussian at z = 0.1, 130, took 5.7 s and 688 MB beside a pure
    part of epsilon 1, at z = 0.01 a bare MemoryError; at z = 0.15, 75, 2.3 s and 401 MB)."""
    return epsilons + (0.0 if multiplier is None else 1 / (2 * multiplier ** 2) + 8 / multiplier)


def compose_epsilon(curves: Iterable[PrivacyCurve], delta: float, *, method: str = "auto") -> float:
    """epsilon of the composition of ``curves`` at ``delta``: the smallest of basic and tight accounting.

    Gaussian parts are first merged into one, exactly (:attr:`Composition.gaussian_multiplier`). Basic composition
    sums the (epsilon, delta) parts' epsilons and adds the merged Gaussian's exact epsilon at the delta they leave
    (for a Gaussian objective-perturbation release, its calibration's own split, so a release's curve never states
    more than its certificate at the certificate's delta). ``method``: "auto"
    (a composition of Gaussian parts only: the exact epsilon of the merged Gaussian,
    :func:`~dpcvx.privacy.gaussian.gaussian_epsilon`; with other parts privacy loss distributions
    with dp-accounting when it is installed and the privacy loss spans at most ``PLD_EPSILON_MAX``, else Renyi DP,
    and Renyi DP too where the privacy loss distribution knows no epsilon),
    "pld" (InputError above ``PLD_EPSILON_MAX``), "rdp" or "basic". math.inf when
    no epsilon is known at this delta. Rounded up.
    """
    expected = "curves must be an iterable of PrivacyCurve (a release's privacy_curve; one curve as [curve]), got"
    if isinstance(curves, (str, PrivacyCurve)) or not isinstance(curves, Iterable):
        raise InputError(f"{expected} {type(curves).__name__}")
    listed = list(curves)
    stranger = next((curve for curve in listed if not isinstance(curve, PrivacyCurve)), None)
    if stranger is not None:
        raise InputError(f"{expected} an iterable holding {type(stranger).__name__}")
    return Composition.of(listed).epsilon(delta, method, split=True)  # refuses a candidate's share


#: the ``what`` of a release's one (epsilon, delta) part (:func:`epsilon_delta_curve`)
STATEMENT = "the release's guarantee"


def epsilon_delta_curve(epsilon: float, delta: float, neighbours: Neighbours) -> PrivacyCurve:
    """The curve of a mechanism known only to be (epsilon, delta)-DP under ``neighbours``: one part (a pure
    calibration, the float-safe releases, the kernel learners). A Gaussian calibration knows a tighter curve
    (:meth:`dpcvx.privacy.calibration.Calibration.privacy_curve`)."""
    return PrivacyCurve((CurvePart(EPSILON_DELTA, STATEMENT, epsilon=epsilon, delta=delta),),
                        neighbours)


class DrawnPart(str, Enum):
    """The private draws dpcvx makes before a fit, each as the part of the release's curve it is (the value: the
    part's ``what``), named here once for the charge of each procedure, the certificate that derives its curve from
    its records, the report and the bridges. Each mechanism's theorem is stated where it is defined."""

    #: a bound R on the row norms or B on |y| (:mod:`dpcvx.privacy.quantile`): eps_q-DP
    QUANTILE = "private bound (exponential-mechanism quantile)"
    #: a class count (:mod:`dpcvx.models.class_count`): discrete Laplace, eps_c-DP
    COUNT = "private class count (discrete Laplace)"
    #: column_statistics=True's per-column sums and sums of squares (:mod:`dpcvx.models.column_statistics`):
    #: discrete Laplace on the lattice sums, eps_s-DP
    SUMS = "private column sums and sums of squares (discrete Laplace)"
    #: column_statistics 'ranges' (:mod:`dpcvx.privacy.column_histogram`): discrete Laplace per-column histograms,
    #: eps_s-DP
    RANGES = "private column ranges (discrete Laplace histograms)"
    #: DPHuberRegressor's label range (:mod:`dpcvx.privacy.column_histogram`): a discrete Laplace histogram, eps_l-DP
    LABEL_RANGE = "private label range (discrete Laplace histogram)"


#: What the fit's part of a curve after private draws is named (:func:`fit_after_draws_part`)
AFTER_DRAWS = "the fit at the drawn bounds"


def fit_after_draws_part(eps_fit: float, delta: float, gaussian: bool) -> CurvePart:
    """The part of a fit that follows private draws, one that holds for every value they may take (its Lam,
    tolerance, map and so its sensitivity may depend on them): the (eps_fit, delta) pair; or, for the analytic
    Gaussian output perturbation (``gaussian``), whose noise multiplier sigma / Delta is at least
    z(eps_fit, delta) = :func:`~dpcvx.privacy.gaussian.analytic_gaussian_multiplier` whatever Delta the drawn values
    give (sigma = z Delta rounded up), the Gaussian of multiplier z: a curve fixed before the draws, so the draws'
    parts and it compose adaptively, and a ledger merges it with its other Gaussians (docs/theory.md, 'Private norm
    bounds')."""
    if gaussian:
        return CurvePart(GAUSSIAN, f"{AFTER_DRAWS} (analytic Gaussian)",
                         noise_multiplier=analytic_gaussian_multiplier(eps_fit, delta))
    return CurvePart(EPSILON_DELTA, AFTER_DRAWS, epsilon=eps_fit, delta=delta)


def draws_then_fit_curve(draws: Sequence[tuple[DrawnPart, float]], fit: CurvePart) -> PrivacyCurve:
    """The privacy curve of private draws, then a fit at the drawn values: each draw's pure eps part, named by what
    it drew (``draws``: (:class:`DrawnPart`, eps) in order), and ``fit``, the fit's part for every drawn value
    (:func:`fit_after_draws_part`: a plan's charge before the draws, or a calibration's ``after_draws_part``, the
    certificate's: the same curve)."""
    return PrivacyCurve((*drawn_curve_parts(draws), fit), Neighbours.REPLACE_ONE)


def drawn_curve_parts(draws: Sequence[tuple[DrawnPart, float]]) -> tuple[CurvePart, ...]:
    """The curve's parts of private draws before a fit (``draws``: (:class:`DrawnPart`, eps) in order): each a pure
    eps part named by what it drew."""
    return tuple(CurvePart(EPSILON_DELTA, part.value, epsilon=eps, delta=0.0) for part, eps in draws)


def check_recorded_curve(recorded: Any, expected: PrivacyCurve, holder: str = "certificate") -> None:
    """Refuse a saved privacy curve that is not the one its calibration gives: the same parts and relation, each
    number within :data:`~dpcvx.rounding.RECORD_TOLERANCE` of the recomputed one (the loaded certificate holds the
    recomputed curve). A missing curve (None: the key removed, or null) is refused too: every model file dpcvx reads
    (format version 4 on) was written with its certificate's curve, and a reader gives no field a default.
    A version 17 file's former curve of a pure calibration at a stated delta is read through its upgrade step
    (:mod:`dpcvx.release.records.upgrade`)."""
    if recorded is None:
        raise InputError(f"{holder}.privacy_curve is missing (every dpcvx model file of format version 4 on records "
                         "its certificate's privacy curve); the file has been edited")
    read = PrivacyCurve.from_dict(recorded)
    if read.candidate_share:  # a file's mark is set aside by its reader (tuning_record.set_aside_candidate_mark)
        raise InputError(f"{holder}.privacy_curve records {CANDIDATE_KEY}, which a model file records only in the "
                         "certificate of a release dpcvx.tune selected (with its tuning record); the file has been "
                         "edited")
    if not _same_curve(read, expected):
        raise InputError(f"{holder}.privacy_curve is not the curve of the recorded calibration "
                         f"({expected.to_dict()}); the file has been edited")


def _same_curve(recorded: PrivacyCurve, expected: PrivacyCurve) -> bool:
    """Whether two curves have the same relation and parts, their numbers equal within ``RECORD_TOLERANCE``."""
    # a file written before curves said so records a conditional release's curve without the flag
    return (recorded.neighbours is expected.neighbours and recorded.conditional <= expected.conditional
            and len(recorded.parts) == len(expected.parts)
            and all(a.kind == b.kind and a.what == b.what and same_recorded(a.noise_multiplier, b.noise_multiplier)
                    and same_recorded(a.epsilon, b.epsilon) and same_recorded(a.delta, b.delta)
                    for a, b in zip(recorded.parts, expected.parts, strict=True)))
