"""The release-file audit: which saved fields of a release depend on one record.

:func:`release_diff` lists the paths at which two saved releases differ; :func:`audit_release_file`
fits a learner on D and on a neighbour D' (one record replaced) with the same seed, saves both
releases with :func:`dpcvx.save` and diffs the files. Outside the ``"privatised"`` values (the
mechanism's output) nothing may differ: every field that does is a leak of the record replaced.
The statistical audit of the privatised values themselves is :mod:`dpcvx.models.audit`.
"""

from __future__ import annotations

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
from .audit import NeighbouringPair

__all__ = ["PRIVATISED", "ReleaseFileAudit", "audit_release_file", "release_diff"]

# The key of a saved model under which the mechanism's output (the only private-data part) sits.
PRIVATISED = "privatised"


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


def _leaves(data: Any, path: str, out: dict[str, Any]) -> None:
    if isinstance(data, dict):
        if not data:
            out[path] = {}
        for key, value in data.items():
            _leaves(value, f"{path}.{key}" if path else str(key), out)
    elif isinstance(data, list):
        if not data:
            out[path] = []
        for index, value in enumerate(data):
            _leaves(value, f"{path}[{index}]", out)
    else:
        out[path] = data


def _is_privatised(path: str) -> bool:
    """Under a "privatised" key, at the top or nested (a multiclass file's per-class releases)."""
    parts = path.replace("[", ".[").split(".")
    return PRIVATISED in parts


def release_diff(release_a: Any, release_b: Any, *, include_privatised: bool = False) -> list[str]:
    """The paths (``"certificate.calibration.beta"``, ``"coef[3]"``) at which two saved releases differ.

    Each release is a model (saved the way :func:`dpcvx.save` saves it), a
    :func:`~dpcvx.release.serialization.model_to_dict` dict, or the path of a model
    file. Fields under the ``"privatised"`` key (the mechanism's output) are
    left out unless ``include_privatised``; a field present in only one
    release counts as differing. Sorted.
    """
    leaves_a: dict[str, Any] = {}
    leaves_b: dict[str, Any] = {}
    _leaves(_release_json(release_a), "", leaves_a)
    _leaves(_release_json(release_b), "", leaves_b)
    differing = [path for path in set(leaves_a) | set(leaves_b)
                 if leaves_a.get(path, _MISSING) != leaves_b.get(path, _MISSING)]
    return sorted(path for path in differing if include_privatised or not _is_privatised(path))


_MISSING = object()


@dataclass(frozen=True)
class ReleaseFileAudit:
    """Result of :func:`audit_release_file`: which saved fields differ between neighbouring releases."""

    differing: tuple[str, ...]  # fields outside "privatised" that differ: each one is a leak
    privatised: tuple[str, ...]  # fields under "privatised" that differ (expected: the weights)
    replaced_index: int
    mechanism: str

    @property
    def clean(self) -> bool:
        """True when nothing but the privatised values differs."""
        return not self.differing

    def __str__(self) -> str:
        if self.clean:
            return (f"release-file audit ({self.mechanism}, record {self.replaced_index} replaced): only "
                    f"the privatised values differ ({len(self.privatised)} fields)")
        return (f"release-file audit ({self.mechanism}, record {self.replaced_index} replaced): "
                f"{len(self.differing)} saved field(s) outside the privatised values depend on the "
                f"data: {', '.join(self.differing)}")


def _neighbour(X: np.ndarray, y: np.ndarray, index: int) -> tuple[np.ndarray, np.ndarray]:
    """(X', y'): record ``index`` replaced by its negation, same label (same norm, same n).

    (-x, y) contributes l(-y w^T x), a different term; (-x, -y) would not: it has the same margin.
    A zero record is replaced by a constant vector of norm 1/2.
    """
    X_prime, y_prime = X.copy(), y.copy()
    X_prime[index] = -X[index] if np.any(X[index]) else np.full(X.shape[1], 0.5 / np.sqrt(X.shape[1]))
    return X_prime, y_prime


def audit_release_file(learner: Any, X: Any, y: Any, *, epsilon: float = 1.0, mechanism: str = "objective",
                       index: int = 0, seed: int = 0, neighbour: tuple[Any, Any] | None = None,
                       schema: Any = None, **fit_params: Any) -> ReleaseFileAudit:
    """Fit on D = (X, y) and on a neighbour D' (one record replaced), same seed; diff the saved files.

    ``neighbour`` is (X', y'); by default record ``index`` is replaced by its
    negation (same label). Both releases are saved with
    :func:`dpcvx.save` (``schema`` passed through) to a temporary directory and
    read back as JSON; the result lists every field that differs outside the
    ``"privatised"`` values. With the same seed, the noise is the same on both
    sides, so a clean result means the file's public part does not depend on
    the record replaced.
    """
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
            model = learner.fit(np.array(features), np.array(labels), epsilon=epsilon, random_state=seed,
                                **({} if mechanism is None else {"mechanism": mechanism}), **fit_params)
            path = serialization.save(model, os.path.join(directory, f"release_{side}.json"), schema=schema)
            files.append(_release_json(path))
    differing = release_diff(files[0], files[1])
    everything = release_diff(files[0], files[1], include_privatised=True)
    return ReleaseFileAudit(
        differing=tuple(differing),
        privatised=tuple(path for path in everything if _is_privatised(path)),
        replaced_index=pair.replaced_index,
        mechanism=mechanism,
    )
