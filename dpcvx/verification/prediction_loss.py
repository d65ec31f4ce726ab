"""A regression loss l(p, y) of the prediction and the label, proved to be a loss of the residual.

dpcvx's regression theorems (docs/theory.md, section 16) are stated for losses of
the residual, l(w^T x - y). A user may write the loss of the prediction
p = w^T x and the label y, ``lambda p, y: cp.huber(p - y, 1)``. The two forms are
the same function when l(p, y) = l(p - y, 0) for all real p and y: the
expression is translated to sympy in two symbols, p is replaced by r + y, and
y must vanish from the result (after expansion). The residual form
r -> l(r, 0) is then the one loss that is verified, solved and certified.
A loss that depends on p and y otherwise (a Poisson deviance) is refused.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..exceptions import AssumptionError

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where an expression is built (a catalogue fit needs none)
    import cvxpy as cp

__all__ = ["takes_prediction_and_label", "residual_loss"]


def takes_prediction_and_label(loss: Any) -> bool:
    """Whether ``loss`` is a callable of two required positional arguments (p, y)."""
    if not callable(loss):
        return False
    try:
        parameters = inspect.signature(loss).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [item for item in parameters if item.kind in (item.POSITIONAL_ONLY, item.POSITIONAL_OR_KEYWORD)
                  and item.default is item.empty]
    return len(positional) == 2


def residual_loss(loss: Callable[..., Any]) -> Callable[[cp.Expression], cp.Expression]:
    """r -> l(r, 0) once l(p, y) = l(p - y, 0) is proved symbolically; AssumptionError otherwise."""
    import cvxpy as cp
    import sympy as sp  # the proof that l(p, y) is a loss of p - y

    from .loss_declaration import check_constants
    from .translate import UnsupportedAtom, to_sympy

    p_symbol, y_symbol, r_symbol = sp.symbols("p y r", real=True)
    prediction, label = cp.Variable(name="p"), cp.Variable(name="y")
    try:
        expression = loss(prediction, label)
        if not isinstance(expression, cp.Expression):
            raise TypeError(f"it returned {type(expression).__name__}")
        check_constants(expression, "l(p, y)")
    except Exception as error:
        raise AssumptionError(f"the loss l(p, y) is not a scalar CVXPY expression of two scalars with fixed "
                              f"constants: {type(error).__name__}: {error}") from None
    try:
        form = to_sympy(expression, prediction, p_symbol, {label.id: y_symbol})
    except UnsupportedAtom as error:
        raise AssumptionError(f"the loss l(p, y) could not be translated to prove that it is a loss of the residual "
                              f"p - y ({error}); write it as a function of the residual, lambda r: ...") from None
    except Exception as error:
        raise AssumptionError(f"the loss l(p, y) is not a scalar CVXPY expression of two scalars: "
                              f"{type(error).__name__}: {error}") from None
    try:
        of_residual_alone = _of_residual(form, p_symbol, y_symbol, r_symbol)
        near = False
        if not of_residual_alone:
            shortest = {q: sp.nsimplify(float(q), rational=True) for q in form.atoms(sp.Rational)
                        if not q.is_Integer}
            near = _of_residual(form.xreplace(shortest), p_symbol, y_symbol, r_symbol)  # each double as written
    except Exception as error:  # noqa: BLE001 - sympy failed in this process (loss_analysis.sympy_failure)
        raise AssumptionError(f"the loss l(p, y) could not be proved a loss of the residual p - y: sympy failed on "
                              f"its form ({type(error).__name__}: {str(error)[:200]}); write it as a function of "
                              "the residual, lambda r: ...") from None
    if not of_residual_alone:
        why = ("its constants are doubles that differ where the loss means one number (0.1 * p - y / 10: the double "
               "0.1 is not 1/10), so as written it is not; write the one constant once, such as "
               "lambda p, y: cp.huber(0.1 * (p - y), 1)" if near else
               "write a loss of p - y such as lambda p, y: cp.huber(p - y, 1)")
        raise AssumptionError(
            f"the loss l(p, y) = {form} is not a function of the residual p - y alone, so the regression theorems "
            f"(gradient l'(r) x, Hessian l''(r) x x^T) do not apply; {why}")

    def of_residual(residual: cp.Expression) -> cp.Expression:
        return loss(residual, 0.0)

    return of_residual


def _of_residual(form: Any, p_symbol: Any, y_symbol: Any, r_symbol: Any) -> bool:
    """Whether the sympy ``form`` of l(p, y) is a function of r = p - y alone (y gone from l(r + y, y))."""
    import sympy as sp

    shifted = form.subs(p_symbol, r_symbol + y_symbol)
    if y_symbol in shifted.free_symbols:
        shifted = sp.expand(sp.piecewise_fold(shifted))
    return y_symbol not in shifted.free_symbols
