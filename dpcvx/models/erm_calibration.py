"""The calibration of a :class:`~dpcvx.models.erm.PrivateERM` fit and ``lam="auto"``'s plumbing.

Algorithm 1 or 2 (pure or Gaussian, :func:`dpcvx.privacy.linear_calibration.calibrate_linear`) at the fit's
numeric Lam: the user's ``lam``, or the public rule of :mod:`dpcvx.privacy.lam_rule` (docs/theory.md,
section 25) from n, d, epsilon, delta, the mechanism and the verified L, c, m, R; then the
:meth:`Calibrating.release_calibration` hook and ``float_safe``. Public inputs only: nothing here reads the data.
"""

from __future__ import annotations

from typing import Any

from ..data.rows import RowMap
from ..exceptions import InputError
from ..privacy import calibrate
from ..privacy.calibrate_gaussian import ReleaseCalibration
from ..privacy.composition import check_delta
from ..privacy.float_safe import LatticeCalibration, float_safe_calibration
from ..privacy.lam_rule import LamChoice, choose_lam, comparator_for
from ..privacy.linear_calibration import calibrate_linear, check_reachable
from ..privacy.neighbours import Neighbours
from ..privacy.registry import PerturbsObjective
from ..release.constants import Constants
from ..validation import check_choice, check_epsilon, sample_size
from ..verification.certificate import MECHANISMS
from ..verification.problem import VerifiedProblem
from ..verification.verifier import check_dim
from . import erm_inputs


class Calibrating:
    """PrivateERM's calibration steps; the learner supplies its settings, verification and row map."""

    lam: float | str
    comparator_norm: float | None
    float_safe: bool

    def _verified(self, dim: int, *, progress: bool = False) -> VerifiedProblem:
        raise NotImplementedError  # PrivateERM._verified

    def _tol(self, problem: VerifiedProblem) -> float:
        raise NotImplementedError  # PrivateERM._tol

    def row_map(self) -> RowMap:
        raise NotImplementedError  # PrivateERM.row_map

    def _check_settings(self) -> None:
        raise NotImplementedError  # PrivateERM._check_settings

    def _calibrate(self, mechanism: str, n: int, epsilon: float, problem: VerifiedProblem,
                   R: float, split: str, delta: float = 0.0, neighbours: Neighbours = Neighbours.REPLACE_ONE,
                   lam: float | None = None) -> tuple[ReleaseCalibration, dict[str, Any]]:
        """(calibration, constants) of Algorithm 1 or 2 for the verified L, c, m, bound R and tol.

        delta > 0 selects the Gaussian forms (docs/theory.md, section 12). ``lam`` as in :meth:`_solve`.
        """
        return self._calibrate_at(self._numeric_lam(lam), mechanism, n, epsilon, problem, R, split, delta, neighbours)

    def _calibrate_at(self, lam: float, mechanism: str, n: int, epsilon: float, problem: VerifiedProblem,
                      R: float, split: str, delta: float = 0.0,
                      neighbours: Neighbours = Neighbours.REPLACE_ONE) -> tuple[ReleaseCalibration, dict[str, Any]]:
        """:meth:`_calibrate` at a given Lam (also the candidates of ``lam="auto"``)."""
        return calibrate_linear(problem, mechanism, n=n, lam=lam, epsilon=epsilon, delta=delta, R=R, split=split,
                                tol=self._tol(problem), neighbours=neighbours)

    @property
    def _auto_lam(self) -> bool:
        return isinstance(self.lam, str) and self.lam == "auto"

    def _numeric_lam(self, chosen: float | None) -> float:
        """The numeric Lam of a fit: ``chosen`` (the rule's value), else the user's ``lam`` (never state on self)."""
        if chosen is not None:
            return float(chosen)
        if self._auto_lam:
            raise InputError("lam='auto' is chosen by fit from epsilon and n; fit_nonprivate has neither: pass a "
                             "number for lam (for a baseline at a private fit's value, its certificate.constants"
                             "['lam'])")
        return float(self.lam)

    def _lam_choice(self, mechanism: str, n: int, d: int, epsilon: float, problem: VerifiedProblem, rows: RowMap,
                    split: str, delta: float, neighbours: Neighbours) -> LamChoice:
        """The rule of :mod:`dpcvx.privacy.lam_rule` for this verified problem (public inputs only): the noise
        at the bound R of the rows the theorems see (an intercept column included), the bias at the comparator
        prior on the features' weights joined by the intercept's (:func:`comparator_for`)."""
        R = rows.effective_norm_bound
        comparator = comparator_for(self.comparator_norm, problem.constraint_set, rows.norm_bound,
                                    rows.intercept_scaling if rows.fit_intercept else None)

        def calibrate_at(lam: float) -> dict[str, Any]:
            calibration, _ = self._calibrate_at(lam, mechanism, n, epsilon, problem, R, split, delta, neighbours)
            if isinstance(calibration, PerturbsObjective):
                check_reachable(calibration, d)
            return calibration.to_dict()

        curvature = problem.curvature if problem.certificate.curvature is not None else None
        return choose_lam(calibrate_at, mechanism, n=n, d=d, L=problem.lipschitz, R=R,
                          m=problem.strong_convexity, c=curvature, comparator_norm=comparator)

    def choose_lam(self, n: int, d: int, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
                   neighbours: str = "replace-one", split: str = "max") -> LamChoice:
        """The Lam that ``lam="auto"`` would choose for n rows of d input columns: public, no data needed.

        ``d`` counts the input columns (after a feature map, before the intercept), as
        declared by the schema. docs/theory.md, section 25.
        """
        check_choice("mechanism", mechanism, MECHANISMS)
        check_choice("split", split, calibrate.SPLITS)
        rows = self.row_map()
        width = check_dim(d) + (1 if rows.fit_intercept else 0)
        problem = self._verified(width)
        delta = check_delta(delta)
        problem.require(mechanism, delta)
        return self._lam_choice(mechanism, sample_size(n, "n"), width, check_epsilon(epsilon), problem, rows,
                                split, delta, Neighbours.parse(neighbours))

    def release_calibration(self, calibration: ReleaseCalibration) -> ReleaseCalibration:
        """Extension hook: the calibration a fit draws its noise with, given the one dpcvx derived.

        Returns ``calibration`` unchanged. A subclass may return another calibration of the
        same type, for a contender with other published constants (benchmarks/delta_mechanisms.py:
        KST12's, Iyengar et al.'s) or a deliberately under-noised variant an audit must catch. It
        then owns the privacy proof: the release records what it returns, and the checks that
        follow (the reachable gradient bound) apply to it. Called by :meth:`fit`,
        :meth:`check_fit_inputs` and :meth:`calibration`, after verification, before any charge.
        """
        return calibration

    def calibration(self, n: int, d: int, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
                    neighbours: str = "replace-one", split: str = "max") -> ReleaseCalibration | LatticeCalibration:
        """The calibration :meth:`fit` would use for n rows of d columns: public inputs only, no data.

        ``d`` counts the columns the learner sees (after a feature map, before the intercept);
        under ``neighbours="add-remove"`` ``n`` is the public size ``n_public``. Nothing is solved,
        charged or drawn; an input :meth:`fit` would refuse is refused alike (typed errors). The
        result is the typed calibration (noise scales, Delta, the epsilon shares) at the Lam
        of the fit (the rule's under ``lam="auto"``), as :meth:`release_calibration` returns it
        and ``float_safe`` makes it: what a benchmark reports beside its fits.
        """
        check_choice("mechanism", mechanism, MECHANISMS)
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        add_remove = Neighbours.parse(neighbours) is Neighbours.ADD_REMOVE
        relation, _ = erm_inputs.neighbour_relation(neighbours, delta, n if add_remove else None)
        check_choice("split", split, calibrate.SPLITS)
        self._check_settings()
        rows = self.row_map()
        width = check_dim(d) + (1 if rows.fit_intercept else 0)
        problem = self._verified(width)
        problem.require(mechanism, delta)
        return self._calibration_for(mechanism, sample_size(n, "n"), width, epsilon, problem, rows, split, delta,
                                     relation)[1]

    def _calibration_for(self, mechanism: str, n: int, d: int, epsilon: float, problem: VerifiedProblem, rows: RowMap,
                         split: str, delta: float, relation: Neighbours
                         ) -> tuple[LamChoice | None, ReleaseCalibration | LatticeCalibration, Constants]:
        """(the Lam rule's choice, the calibration fit draws with, its constants): Lam, the calibration,
        the :meth:`release_calibration` hook, ``float_safe``; refuses a tol the noise makes unreachable."""
        R = rows.effective_norm_bound
        lam_rule = self._lam_choice(mechanism, n, d, epsilon, problem, rows, split, delta, relation) if self._auto_lam \
            else None
        chosen = () if lam_rule is None else (lam_rule.lam,)   # as for _solve in fit
        calibration, verified = self._calibrate(mechanism, n, epsilon, problem, R, split, delta, relation, *chosen)
        calibration = self.release_calibration(calibration)
        constants = Constants.of(verified, R=R, lam=self._numeric_lam(None if lam_rule is None else lam_rule.lam),
                                 n=n, d=d)
        release: ReleaseCalibration | LatticeCalibration = calibration
        if self.float_safe:
            release = float_safe_calibration(calibration, d)
        if isinstance(release, PerturbsObjective):
            check_reachable(release, d)
        return lam_rule, release, constants
