"""dpcvx: differentially private empirical risk minimisation declared in CVXPY.

Declare a margin loss l(z) and a regularizer N(w) as CVXPY expressions;
dpcvx verifies the conditions of the privacy theorems of Chaudhuri,
Monteleoni and Sarwate (JMLR 2011), calibrates the noise, solves the
perturbed problem exactly and releases the model with its certificate.

The package follows that flow (``docs/architecture.md``)::

    verification/  declare -> verify: the VerifiedProblem and its proved constants
    privacy/       calibrate, draw noise, account, audit
    solvers/       solve the perturbed problem exactly
    models/        the learners: PrivateERM, TDDL, PINP, TDIL, tuning
    release/       what leaves dpcvx: models, certificates, the file format
    data/          public schemas, loaders, the per-record row map, files

``estimators`` (scikit-learn) and ``cli`` are thin layers on top.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import TYPE_CHECKING, Any

from .exceptions import (
    AssumptionError,
    BudgetExceededError,
    ClippingWarning,
    DPCVXError,
    DPCVXWarning,
    ExponentialCostWarning,
    InputError,
    NonPublicSchemaError,
    PaperModeWarning,
    SolverError,
    UnsupportedWeightsError,
)
from .version import __version__

# Every other name is imported on first use (PEP 562): `import dpcvx` loads neither CVXPY nor
# sympy nor SciPy's heavy parts, so scripts and the CLI start fast.
_LOCATIONS = {
    "verify": "verification.verifier", "verify_problem": "verification.verifier",
    "VerifiedProblem": "verification.problem",
    "Certificate": "verification.certificate", "Condition": "verification.certificate",
    "PrivacyAccountant": "privacy.accountant", "PrivacyCost": "privacy.accountant",
    "Neighbours": "privacy.neighbours",
    "audit": "privacy.audit", "AuditReport": "privacy.audit", "NeighbouringPair": "privacy.audit",
    "canary_pair": "privacy.audit",
    "PrivateERM": "models.erm", "TDDL": "models.tddl", "ConstrainedLeastSquares": "models.tddl",
    "PINP": "models.pinp", "TDIL": "models.tdil", "RandomFourierFeatures": "data.kernels",
    "tune": "models.tuning", "TuningResult": "models.tuning", "TuningCertificate": "models.tuning",
    "BudgetInConstructor": "models.tuning", "fit_private_norm": "models.private_norm",
    "PrivateModel": "release.model", "LinearModel": "release.model", "ReleaseCertificate": "release.model",
    "KernelPredictor": "release.kernel_model", "save": "release.serialization", "load": "release.serialization",
    "Dataset": "data.datasets", "load_adult": "data.datasets", "load_kdd": "data.datasets",
    "PublicSchema": "data.preprocessing", "NumericColumn": "data.preprocessing",
    "CategoricalColumn": "data.preprocessing",
    "DPERMClassifier": "estimators", "DPLogisticRegression": "estimators", "DPHuberSVM": "estimators",
    "DPLinearRegression": "regressors", "DPHuberRegressor": "regressors",
    "PrivateLinearRegression": "models.linear_regression", "PrivateMulticlassERM": "models.multiclass",
}

# Modules that sat directly in dpcvx before the subpackages: `import dpcvx.calibrate` and
# `dpcvx.calibrate` keep working for users' scripts, as the module at its new place.
_MOVED = {
    "certificate": "verification.certificate", "deadline": "verification.deadline",
    "kernel_loss": "verification.kernel_loss", "numeric": "verification.numeric",
    "per_record": "verification.per_record", "problem": "verification.problem",
    "regularizer": "verification.regularizer", "symbolic": "verification.symbolic",
    "translate": "verification.translate", "validated": "verification.validated", "verify": "verification.verifier",
    "accountant": "privacy.accountant", "audit": "privacy.audit", "ball_sampler": "privacy.ball_sampler",
    "calibrate": "privacy.calibrate",
    "composition": "privacy.composition", "gaussian": "privacy.gaussian",
    "kernel_calibrate": "privacy.kernel_calibrate", "noise": "privacy.noise", "rng": "privacy.rng",
    "kernel_erm": "solvers.kernel", "objective": "solvers.objective",
    "erm": "models.erm", "kernel_learner": "models.kernel_learner", "kernels": "data.kernels",
    "pinp": "models.pinp", "tddl": "models.tddl", "tdil": "models.tdil", "tuning": "models.tuning",
    "kernel_model": "release.kernel_model", "model": "release.model", "serialization": "release.serialization",
    "datasets": "data.datasets", "files": "data.files", "preprocessing": "data.preprocessing",
    "rows": "data.rows", "uci_domains": "data.uci_domains",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from . import losses  # noqa: F401
    from .data.datasets import Dataset, load_adult, load_kdd  # noqa: F401
    from .data.kernels import RandomFourierFeatures  # noqa: F401
    from .data.preprocessing import CategoricalColumn, NumericColumn, PublicSchema  # noqa: F401
    from .estimators import DPERMClassifier, DPHuberSVM, DPLogisticRegression  # noqa: F401
    from .models.erm import PrivateERM  # noqa: F401
    from .models.linear_regression import PrivateLinearRegression  # noqa: F401
    from .models.multiclass import PrivateMulticlassERM  # noqa: F401
    from .models.pinp import PINP  # noqa: F401
    from .models.private_norm import fit_private_norm  # noqa: F401
    from .models.tddl import TDDL, ConstrainedLeastSquares  # noqa: F401
    from .models.tdil import TDIL  # noqa: F401
    from .models.tuning import BudgetInConstructor, TuningCertificate, TuningResult, tune  # noqa: F401
    from .privacy.accountant import PrivacyAccountant, PrivacyCost  # noqa: F401
    from .privacy.audit import AuditReport, NeighbouringPair, audit, canary_pair  # noqa: F401
    from .privacy.neighbours import Neighbours  # noqa: F401
    from .regressors import DPHuberRegressor, DPLinearRegression  # noqa: F401
    from .release.kernel_model import KernelPredictor  # noqa: F401
    from .release.model import LinearModel, PrivateModel, ReleaseCertificate  # noqa: F401
    from .release.serialization import load, save  # noqa: F401
    from .verification.certificate import Certificate, Condition  # noqa: F401
    from .verification.problem import VerifiedProblem  # noqa: F401
    from .verification.verifier import verify, verify_problem  # noqa: F401


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``dpcvx.<old name>`` to the module at its place in a subpackage (one module object)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name not in _MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(f"{__name__}.{_MOVED[spec.name.rpartition('.')[2]]}")
        spec.loader_state = module.__spec__  # the import system overwrites __spec__; exec_module restores it
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """The module at its new place is already executed; it keeps its own spec."""
        alias = module.__spec__  # the import system set the alias's spec; its loader_state is the module's own
        if alias is not None:
            module.__spec__ = alias.loader_state


if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModuleFinder())


def __getattr__(name: str) -> Any:
    if name in _LOCATIONS:
        value = getattr(importlib.import_module(f".{_LOCATIONS[name]}", __name__), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    if name in _MOVED:
        return importlib.import_module(f".{_MOVED[name]}", __name__)
    if not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}"):
        return importlib.import_module(f".{name}", __name__)  # a subpackage or module, e.g. dpcvx.privacy
    raise AttributeError(f"module 'dpcvx' has no attribute {name!r}")


class _Package(types.ModuleType):
    """dpcvx itself: a public function named like an old module path (``audit``) stays the function.

    Importing ``dpcvx.audit`` through the old module path sets the module as an
    attribute of the package, which would replace the function; that
    assignment is dropped (the module stays reachable in ``sys.modules``).
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LOCATIONS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LOCATIONS) | set(_MOVED))


# What a user reaches for (the rest is reachable through the subpackages, and lazily from here).
__all__ = [
    "__version__",
    # estimators (scikit-learn) and the mathematical layer
    "DPLogisticRegression",
    "DPHuberSVM",
    "DPERMClassifier",
    "DPLinearRegression",
    "DPHuberRegressor",
    "PrivateERM",
    "losses",
    # verification
    "verify",
    "VerifiedProblem",
    "Certificate",
    # kernels
    "TDDL",
    "PINP",
    "TDIL",
    "RandomFourierFeatures",
    # tuning, accounting, auditing
    "tune",
    "fit_private_norm",
    "PrivacyAccountant",
    "Neighbours",
    "audit",
    # release
    "PrivateModel",
    "save",
    "load",
    # data
    "load_adult",
    "load_kdd",
    "PublicSchema",
    "NumericColumn",
    "CategoricalColumn",
    # errors and warnings
    "DPCVXError",
    "InputError",
    "NonPublicSchemaError",
    "AssumptionError",
    "SolverError",
    "BudgetExceededError",
    "DPCVXWarning",
    "ClippingWarning",
    "ExponentialCostWarning",
    "PaperModeWarning",
    "UnsupportedWeightsError",
]
