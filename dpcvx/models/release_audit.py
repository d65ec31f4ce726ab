"""The release-file audit: which saved fields of a release depend on one record.

:func:`release_diff` lists the paths at which two saved releases differ; :func:`audit_release_file`
fits a learner on D and on a neighbour D' (one record replaced) with the same seed, saves both
releases with :func:`dpcvx.save` and diffs the files. Which paths hold privatised values, and which are
public functions of them, is declared once, in the file codec
(:data:`dpcvx.release.records.privatised.PRIVATE_RELEASES`): the mechanism's output and every earlier
private release of a composite procedure (a class count, column statistics, a norm or label bound, a tuning
selection). A differing field is expected when it is such a value, or a declared function of values that
differ too; every other differing field is a leak of the record replaced.
The statistical audit of the privatised values themselves is :mod:`dpcvx.models.audit`.
"""

from __future__ import annotations

import copy
import json
import numbers
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..data.files import read_json
from ..exceptions import InputError
from ..release import serialization
from ..release.records.privatised import PRIVATE_RELEASES, leaves
from .audit import NeighbouringPair
from .contract import refuse_held_accountant

__all__ = ["ReleaseFileAudit", "audit_release_file", "release_diff"]


def _release_json(release: Any) -> Any:
    """A release as parsed JSON: a model (saved through dpcvx.save), a dict, or a model file path."""
    if isinstance(release, dict):
        return json.loads(json.dumps(release))
    if isinstance(release, (str, os.PathLike)):
        return read_json(Path(release), "release file")
    if hasattr(release, "certificate"):
        with tempfile.TemporaryDirectory() as directory:
            path = serialization.save(release, os.path.join(directory, "release.json"))
            return read_json(path, "release file")
    raise InputError(f"a release must be a saved-model dict, a model file path or a PrivateModel, got "
                     f"{type(release).__name__}")


_MISSING = object()


def _is_privatised(path: str) -> bool:
    """Whether ``path`` holds a value a declared private release produced."""
    return any(release.holds(path) for release in PRIVATE_RELEASES)


def _explained(path: str, privatised: list[str]) -> bool:
    """Whether ``path`` is declared a function of private releases of which a value is among ``privatised``."""
    return any(release.derives(path) and any(release.holds(value) for value in privatised)
               for release in PRIVATE_RELEASES)


def _differing(leaves_a: dict[str, Any], leaves_b: dict[str, Any]) -> list[str]:
    return sorted(path for path in set(leaves_a) | set(leaves_b)
                  if leaves_a.get(path, _MISSING) != leaves_b.get(path, _MISSING))


def _diff(release_a: Any, release_b: Any) -> tuple[list[str], list[str], list[str]]:
    """(leaks, derived, privatised): the differing paths, sorted, split by the declaration."""
    leaves_a, leaves_b = leaves(_release_json(release_a)), leaves(_release_json(release_b))
    differing = _differing(leaves_a, leaves_b)
    privatised = [path for path in differing if _is_privatised(path)]
    derived = [path for path in differing if not _is_privatised(path) and _explained(path, privatised)]
    expected = set(privatised) | set(derived)
    return [path for path in differing if path not in expected], derived, privatised


def release_diff(release_a: Any, release_b: Any, *, include_privatised: bool = False) -> list[str]:
    """The paths (``"certificate.calibration.beta"``, ``"coef[3]"``) at which two saved releases differ.

    Each release is a model (saved the way :func:`dpcvx.save` saves it), a
    :func:`~dpcvx.release.serialization.model_to_dict` dict, or the path of a model
    file. Left out unless ``include_privatised``: the values of the declared private releases
    (:data:`~dpcvx.release.records.privatised.PRIVATE_RELEASES`: the mechanism's output under
    ``"privatised"``, a released class count, column statistics, norm bound...) and the fields declared
    public functions of them when those values differ too. A field present in only one release counts as
    differing. Sorted.
    """
    leaks, derived, privatised = _diff(release_a, release_b)
    return sorted(leaks + derived + privatised) if include_privatised else leaks


@dataclass(frozen=True)
class ReleaseFileAudit:
    """Result of :func:`audit_release_file`: which saved fields differ between neighbouring releases."""

    differing: tuple[str, ...]  # fields neither privatised nor derived from privatised values that differ: leaks
    privatised: tuple[str, ...]  # declared privatised values that differ (expected: the weights, a count...)
    replaced_index: int
    mechanism: str
    derived: tuple[str, ...] = ()  # declared functions of privatised values that differ with them (expected)

    @property
    def clean(self) -> bool:
        """True when nothing but the privatised values and the declared functions of them differs."""
        return not self.differing

    def __str__(self) -> str:
        if self.clean:
            return (f"release-file audit ({self.mechanism}, record {self.replaced_index} replaced): only "
                    f"the privatised values ({len(self.privatised)} fields) and functions of them "
                    f"({len(self.derived)} fields) differ")
        return (f"release-file audit ({self.mechanism}, record {self.replaced_index} replaced): "
                f"{len(self.differing)} saved field(s) outside the privatised values and the declared functions "
                f"of them depend on the data: {', '.join(self.differing)}")


def _neighbour(X: np.ndarray, y: np.ndarray, index: int) -> tuple[np.ndarray, np.ndarray]:
    """(X', y'): record ``index`` replaced by its negation, same label (same norm, same n).

    (-x, y) contributes l(-y w^T x), a different term; (-x, -y) would not: it has the same margin.
    A zero record is replaced by a constant vector of norm 1/2.
    """
    X_prime, y_prime = X.copy(), y.copy()
    X_prime[index] = -X[index] if np.any(X[index]) else np.full(X.shape[1], 0.5 / np.sqrt(X.shape[1]))
    return X_prime, y_prime


def _fit(learner: Any, X: np.ndarray, y: np.ndarray, epsilon: float, mechanism: str | None, seed: int,
         fit_params: dict[str, Any]) -> Any:
    """One release: ``learner.fit(X, y, epsilon=, random_state=, mechanism=)``, or, for a scikit-learn estimator
    (whose budget, seed and mechanism are parameters), a copy with those set, fitted on (X, y)."""
    params = learner.get_params() if hasattr(learner, "get_params") else {}
    chosen = {} if mechanism is None else {"mechanism": mechanism}
    if "epsilon" in params and "random_state" in params:
        estimator = copy.deepcopy(learner).set_params(epsilon=epsilon, random_state=seed,
                                                      **(chosen if "mechanism" in params else {}))
        return estimator.fit(X, y, **fit_params)
    return learner.fit(X, y, epsilon=epsilon, random_state=seed, **chosen, **fit_params)


def audit_release_file(learner: Any, X: Any, y: Any, *, epsilon: float = 1.0, mechanism: str = "objective",
                       index: int = 0, seed: int = 0, neighbour: tuple[Any, Any] | None = None,
                       schema: Any = None, **fit_params: Any) -> ReleaseFileAudit:
    """Fit on D = (X, y) and on a neighbour D' (one record replaced), same seed; diff the saved files.

    ``learner`` is a learner whose ``fit(X, y, epsilon=, random_state=, mechanism=)`` returns a release
    (PrivateERM, the kernel learners; ``mechanism=None`` passes none), or a dpcvx scikit-learn estimator,
    fitted as a copy with ``epsilon``, ``random_state=seed`` (and ``mechanism``) set.
    ``neighbour`` is (X', y'); by default record ``index`` is replaced by its
    negation (same label). Both releases are saved with
    :func:`dpcvx.save` (``schema`` passed through) to a temporary directory and
    read back as JSON; the result lists every field that differs other than the declared privatised values
    (:data:`dpcvx.release.records.privatised.PRIVATE_RELEASES`) and the declared functions of values that
    differ too. With the same seed, the noise is the same on both
    sides, so a clean result means the file's public part does not depend on
    the record replaced except through the privatised values.
    """
    refuse_held_accountant(learner, "the audit fits two copies of it, on the table and on its neighbour, and each "
                           "would charge a copy of that accountant, never yours", "An audit is an experiment, not a "
                           "release: pass the estimator with accountant=None (set_params(accountant=None))")
    X = np.array(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],) or X.shape[0] < 1:
        raise InputError(f"X must be 2-D with one label per row, got X {X.shape} and y {y.shape}")
    if isinstance(index, bool) or not isinstance(index, numbers.Integral) or not 0 <= index < X.shape[0]:
        raise InputError(f"index must be a row of X (0 to {X.shape[0] - 1}), got {index!r}")
    if neighbour is None:
        X_prime, y_prime = _neighbour(X, y, int(index))
    else:
        X_prime, y_prime = np.array(neighbour[0], dtype=float), np.asarray(neighbour[1])
    pair = NeighbouringPair(X, y, X_prime, y_prime, direction=np.ones(X.shape[1]),
                            description="release-file audit")
    files = []
    with tempfile.TemporaryDirectory() as directory:
        for side, (features, labels) in enumerate(((pair.X, pair.y), (pair.X_prime, pair.y_prime))):
            model = _fit(learner, np.array(features), np.array(labels), epsilon, mechanism, seed, fit_params)
            path = serialization.save(model, os.path.join(directory, f"release_{side}.json"), schema=schema)
            files.append(_release_json(path))
    leaks, derived, privatised = _diff(files[0], files[1])
    return ReleaseFileAudit(differing=tuple(leaks), privatised=tuple(privatised), replaced_index=pair.replaced_index,
                            mechanism=mechanism, derived=tuple(derived))
