"""Catalogue of margin losses l(z), z = y w^T x, written in CVXPY.

Each function returns a :class:`MarginLoss`, a picklable callable usable as
``loss=`` anywhere in dpcvx. Its ``spec`` string ("logistic",
"huber_hinge:h=0.5") names it in saved models and on the command line;
:func:`from_spec` turns a spec back into the loss. Each entry is made for one task
(:attr:`MarginLoss.task`): a classification loss of the margin z = y w^T x, or a
regression loss of the residual r = w^T x - y; :func:`check_task` refuses one given
for the other task (a user's own loss is not a catalogue entry and may serve either).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .advice import python_only
from .exceptions import InputError, LossDeclarationError, a_value_of
from .validation import positive

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where an expression is built (a catalogue fit needs none)
    import cvxpy as cp

__all__ = ["MarginLoss", "logistic", "huber_hinge", "huber_regression", "squared_error", "from_spec", "loss_label",
           "check_task", "catalogue_entry", "CATALOGUE", "HUBER_THRESHOLDS"]


@dataclass(frozen=True)
class MarginLoss:
    """A named margin loss from the catalogue."""

    name: str
    params: tuple[tuple[str, float], ...] = field(default=())

    def __post_init__(self) -> None:
        """A catalogue name with exactly its parameters, each in its range (:data:`_PARAMETERS`), however the loss is
        built: one built by hand as ``MarginLoss("huber_regression", (("m", -2.0),))`` was certified L = -2, a loss
        CVXPY cannot even build."""
        if not isinstance(self.name, str) or self.name not in _ENTRIES:
            raise InputError(f"unknown loss {self.name!r}; the known losses are: {', '.join(sorted(_ENTRIES))}")
        checks = _PARAMETERS[self.name]
        given = dict(self.params) if isinstance(self.params, tuple) and all(
            isinstance(item, tuple) and len(item) == 2 for item in self.params) else None
        if given is None or len(given) != len(self.params) or set(given) != set(checks):
            raise InputError(f"loss {self.name!r} takes the parameters {sorted(checks)} as ((name, value), ...) pairs, "
                             f"got {self.params!r}")
        object.__setattr__(self, "params", tuple((key, checks[key](key, value)) for key, value in self.params))

    def __call__(self, z: cp.Expression) -> cp.Expression:
        return _ENTRIES[self.name][0](z, **dict(self.params))

    @property
    def task(self) -> str:
        """The task the loss is made for: "classification" (a loss of the margin y w^T x) or "regression" (of the
        residual w^T x - y)."""
        return _ENTRIES[self.name][1]

    @property
    def spec(self) -> str:
        """The loss's name with its parameters, exactly (:func:`_parameter_text`): :func:`from_spec` reads it back to
        the same loss, and the verifier finds the loss's proof by it, so two losses never share one."""
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{key}={_parameter_text(value)}" for key, value in self.params)

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={_parameter_text(value)}" for key, value in self.params)
        return f"dpcvx.losses.{self.name}({args})"


def _parameter_text(value: float) -> str:
    """A parameter's shortest text that reads back to it exactly: the %g form where it does ("0.5", "1", "1e-10"),
    else Python's repr, the shortest exact form ("12.50000000025"). The %g form alone (six digits) named
    huber_regression:m=12.50000000025 "m=12.5", so a fit at that m was served the proof of m = 12.5 (L = 12.5, below
    its own L) when one at 12.5 had run in the same process."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def _logistic(z: cp.Expression) -> cp.Expression:
    import cvxpy as cp

    return cp.logistic(-z)


#: The verifier's text of the logistic loss (``str`` of :func:`logistic`'s expression of the margin z), as a
#: release certificate records it: a release of this loss has the logistic link sigmoid(w^T x + b).
LOGISTIC_TEXT = "logistic(-z)"


def has_probabilities(loss: object) -> bool:
    """Whether a classifier released with the loss ``loss`` (its certificate's ``verification.loss``) has a
    probability model: the logistic loss's link, sigmoid(w^T x + b); no other loss is a log-likelihood. The one
    rule of the release's ``predict_proba``, ``dpcvx predict``'s probability columns and the model file's record of
    it (``certificate.probabilities``, checked against the loss on load)."""
    return loss == LOGISTIC_TEXT


def _huber_hinge(z: cp.Expression, h: float) -> cp.Expression:
    # cp.huber(x, M) is x^2 for |x| <= M and 2M|x| - M^2 beyond; with x = pos(1 + h - z)
    # and M = 2h, dividing by 4h gives the Huber hinge of JMLR 2011, eq. (23).
    import cvxpy as cp

    return cp.huber(cp.pos(1 + h - z), 2 * h) / (4 * h)  # type: ignore[arg-type]  # cvxpy types M as int; any M > 0 works


def _huber_regression(r: cp.Expression, m: float) -> cp.Expression:
    # cp.huber(r, m) / 2 is r^2 / 2 for |r| <= m and m |r| - m^2 / 2 beyond
    import cvxpy as cp

    return cp.huber(r, m) / 2  # type: ignore[arg-type]  # cvxpy types M as int; any M > 0 works


def _squared_error(r: cp.Expression) -> cp.Expression:
    import cvxpy as cp

    return cp.square(r) / 2


#: Each catalogue loss's expression builder and the task it is made for (:attr:`MarginLoss.task`).
_ENTRIES: dict[str, tuple[Callable[..., cp.Expression], str]] = {
    "logistic": (_logistic, "classification"), "huber_hinge": (_huber_hinge, "classification"),
    "huber_regression": (_huber_regression, "regression"), "squared_error": (_squared_error, "regression"),
}


#: The thresholds m that :func:`huber_regression` takes, (low, high).
HUBER_THRESHOLDS = (1e-8, 1e8)

#: Each catalogue loss's parameters and their checks: beyond [1e-8, 1e8] the Huber hinge's curvature c = 1/(2h) or
#: its flat region overflow in floating point; the Huber threshold m of the residual lies in HUBER_THRESHOLDS.
_PARAMETERS: dict[str, dict[str, Callable[[str, Any], float]]] = {
    "logistic": {}, "squared_error": {},
    "huber_hinge": {"h": lambda name, value: positive(name, value, minimum=1e-8, maximum=1e8)},
    "huber_regression": {"m": lambda name, value: positive(name, value, minimum=HUBER_THRESHOLDS[0],
                                                          maximum=HUBER_THRESHOLDS[1])},
}


def logistic() -> MarginLoss:
    """l(z) = log(1 + e^{-z}); L = 1, c = 1/4."""
    return MarginLoss("logistic")


def huber_hinge(h: float = 0.5) -> MarginLoss:
    """Huber hinge of Chapelle (2007), JMLR 2011 eq. (23); L = 1, c = 1/(2h).

    l(z) = 0 for z > 1 + h; (1 + h - z)^2 / (4h) for |1 - z| <= h; 1 - z for
    z < 1 - h. It is C^1 but only piecewise C^2 (l'' jumps at 1 - h and 1 + h).
    """
    return MarginLoss("huber_hinge", (("h", h),))


def huber_regression(m: float = 1.0) -> MarginLoss:
    """Huber loss of the residual r = w^T x - y (task="regression"); L = m, c = 1.

    l(r) = r^2 / 2 for |r| <= m and m |r| - m^2 / 2 beyond. C^1 and piecewise C^2.
    """
    return MarginLoss("huber_regression", (("m", m),))


def squared_error() -> MarginLoss:
    """l(r) = r^2 / 2 of the residual r = w^T x - y (task="regression"); c = 1.

    Not Lipschitz on R: it is released only over a declared constraint set
    ||w|| <= W, where L = W R + B (least squares on a ball, docs/theory.md section 16).
    """
    return MarginLoss("squared_error")


CATALOGUE: dict[str, Callable[..., MarginLoss]] = {
    "logistic": logistic, "huber_hinge": huber_hinge, "huber": huber_hinge, "huber_regression": huber_regression,
    "squared_error": squared_error,
}


def from_spec(spec: str) -> MarginLoss:
    """Parse "logistic", "huber_hinge:h=0.5" or "huber:h=0.5" into a catalogue loss."""
    if not isinstance(spec, str):
        raise InputError(f"a loss name must be a string, got {type(spec).__name__}")
    name, _, arguments = spec.strip().partition(":")
    if name not in CATALOGUE:
        close = difflib.get_close_matches(name, CATALOGUE, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise InputError(f"unknown loss {name!r}; the known losses are: {', '.join(sorted(CATALOGUE))}."
                         f"{hint} Or pass {python_only('a callable z -> CVXPY expression')}")
    params: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in arguments.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError(f"malformed loss parameter {item!r} in {spec!r}; write key=value")
        try:
            params[key.strip()] = float(value)
        except ValueError:
            raise InputError(f"loss parameter {key.strip()} must be a number, got {value!r}") from None
    try:
        return CATALOGUE[name](**params)
    except TypeError as error:
        raise InputError(f"bad parameters for loss {name!r}: {error}") from None


def catalogue_entry(loss: Any) -> MarginLoss | None:
    """The catalogue's own loss that ``loss`` is, rebuilt from its name and parameters, when ``loss`` is exactly a
    :class:`MarginLoss`; None for anything else, a subclass of :class:`MarginLoss` included. The one rule by which a
    loss is known by its name (:attr:`MarginLoss.spec`): the verifier's shipped proof of it
    (:func:`dpcvx.verification.verifier.catalogue_loss`), its l(0), the task check (:func:`check_task`) and the
    ledger's label (:func:`loss_label`). A subclass may build another expression than its name's: a ``Steep
    ("logistic")`` whose ``__call__`` returns logistic(-10 z) was certified with the logistic loss's L = 1 and
    c = 1/4 (its own are 10 and 25) while a user solver was handed logistic(-10 z); it is verified from its own
    expression, as any callable is."""
    if type(loss) is not MarginLoss:
        return None
    return MarginLoss(loss.name, loss.params)


def check_loss(loss: Any) -> Any:
    """``loss`` when it is a callable (a catalogue loss or a user's z -> CVXPY expression); an InputError naming the
    catalogue otherwise (a number, None; a name is read by :func:`from_spec` first), where the verifier's failed
    declaration gave a failing certificate. A callable that builds no CVXPY expression is the verifier's to fail."""
    if not callable(loss):
        names = ", ".join(repr(name) for name in sorted(CATALOGUE))
        raise LossDeclarationError(f"loss must be a catalogue loss (a name: {names}, or dpcvx.losses.logistic() ...) "
                                   f"or a callable z -> CVXPY expression, got {a_value_of(loss)}. Nothing was charged")
    return loss


def check_task(loss: Any, task: str) -> None:
    """Refuse a catalogue loss made for the other task: a margin loss (logistic, the Huber hinge) of a regression
    would be fitted on the residual, where it is no regression loss, and a residual loss of a classification on the
    margin. The message names the catalogue's losses for ``task``. A user's own loss (a callable, a subclass of
    :class:`MarginLoss` included: :func:`catalogue_entry`) is not checked: the verifier proves what it needs, and
    the same expression may serve either task. A loss that is no callable at all (a number, None) is refused as the
    malformed setting it is (:func:`check_loss`)."""
    check_loss(loss)
    loss = catalogue_entry(loss)
    if loss is not None and loss.task != task:
        fitting = sorted(name for name, make in CATALOGUE.items() if make().task == task)
        what = "the margin y w^T x" if loss.task == "classification" else "the residual w^T x - y"
        raise InputError(f"loss {loss.spec!r} is a {loss.task} loss (of {what}); task={task!r} takes a {task} loss: "
                         f"the catalogue's {' or '.join(repr(name) for name in fitting)}, or your own. Nothing was "
                         "charged")


def loss_label(loss: Any) -> str:
    """How a ledger line or message names ``loss``: "loss huber_hinge:h=0.5" for a catalogue loss (its
    spec), "user loss NAME" for a function (its ``__name__``), "user loss" for another callable."""
    entry = catalogue_entry(loss)
    if entry is not None:
        return f"loss {entry.spec}"
    name = getattr(loss, "__name__", "")
    return f"user loss {name}" if name and name != "<lambda>" else "user loss"
