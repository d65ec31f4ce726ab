"""What dpcvx knows about each CVXPY atom: one table, keyed by atom class.

Every module that reads a CVXPY tree asks this table and matches atoms by
class (never by type-name string):

* :mod:`.translate` registers one sympy translation per class listed here;
* :mod:`.per_record` instantiates the loss record by record: elementwise
  atoms apply entry by entry, the atoms with ``reduction`` set combine the
  entries of one record (:func:`norm_order` tells which norm);
* :mod:`.regularizer` reads ``smoothness`` (C^2, C^1 only, or not
  differentiable) and the groups below (squares, norms, quadratic forms).

An atom missing from the table has no known facts: it is "not established",
never assumed smooth or separable. Classes that a CVXPY version lacks (or
that are plain functions there, such as ``power`` in CVXPY >= 1.4) are left
out, so the table holds only classes of the installed CVXPY.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import cvxpy as cp

from .exact import exact_constant

__all__ = [
    "Node",
    "Atom",
    "ATOMS",
    "facts",
    "atom_classes",
    "norm_order",
    "power_exponent",
    "spelling",
    "AFFINE",
    "ADD",
    "NEGATE",
    "MULTIPLY",
    "MATMUL",
    "DIVIDE",
    "SUM",
    "INDEX",
    "RESHAPE",
    "HSTACK",
    "VSTACK",
    "PROMOTE",
    "TRANSPOSE",
    "POWER",
    "NORMS",
    "PNORMS",
    "NORM1",
    "NORM_INF",
    "QUAD_OVER_LIN",
    "QUAD_FORMS",
    "MAX",
    "MIN",
    "LOG_SUM_EXP",
    "HUBER",
    "ELEMENTWISE",
    "EXP",
    "LOG",
    "LOGISTIC",
    "ENTR",
    "ABS",
    "MAXIMUM",
    "MINIMUM",
]

Node = Any  # a node of a CVXPY expression tree: an atom (with .args), a variable or a constant

Smoothness = Literal["C2", "C1", "nonsmooth", "power"]


def atom_classes(*paths: tuple[str, str]) -> tuple[type[Any], ...]:
    """The classes named by (module path under ``cvxpy``, name) that this CVXPY has as classes."""
    found: list[type[Any]] = []
    for module_path, name in paths:
        try:
            module = importlib.import_module(f"cvxpy.{module_path}")
        except ImportError:
            continue
        value = getattr(module, name, None)
        if isinstance(value, type):
            found.append(value)
    return tuple(found)


_AFF = "atoms.affine"
_ELEM = "atoms.elementwise"

ADD = atom_classes((f"{_AFF}.add_expr", "AddExpression"))
NEGATE = atom_classes((f"{_AFF}.unary_operators", "NegExpression"))
MULTIPLY = atom_classes((f"{_AFF}.binary_operators", "multiply"))
MATMUL = atom_classes((f"{_AFF}.binary_operators", "MulExpression"))
DIVIDE = atom_classes((f"{_AFF}.binary_operators", "DivExpression"))
SUM = atom_classes((f"{_AFF}.sum", "Sum"))
RESHAPE = atom_classes((f"{_AFF}.reshape", "reshape"))
HSTACK = atom_classes((f"{_AFF}.hstack", "Hstack"))
VSTACK = atom_classes((f"{_AFF}.vstack", "Vstack"))
INDEX = atom_classes((f"{_AFF}.index", "index"))
PROMOTE = atom_classes((f"{_AFF}.promote", "Promote"))
TRANSPOSE = atom_classes((f"{_AFF}.transpose", "transpose"))
AFFINE = (ADD + NEGATE + MULTIPLY + MATMUL + DIVIDE + SUM + RESHAPE + HSTACK + VSTACK + INDEX
          + PROMOTE + TRANSPOSE
          + atom_classes((f"{_AFF}.trace", "trace"), (f"{_AFF}.diag", "diag_vec"),
                         (f"{_AFF}.diag", "diag_mat")))

POWER = atom_classes((f"{_ELEM}.power", "power"), (f"{_ELEM}.power", "Power"),
                     (f"{_ELEM}.power", "PowerApprox"))
PNORMS = atom_classes(("atoms.pnorm", "Pnorm"), ("atoms.pnorm", "PnormApprox"), ("atoms.pnorm", "pnorm"))
NORM1 = atom_classes(("atoms.norm1", "norm1"))
NORM_INF = atom_classes(("atoms.norm_inf", "norm_inf"))
NORMS = PNORMS + NORM1 + NORM_INF
QUAD_OVER_LIN = atom_classes(("atoms.quad_over_lin", "quad_over_lin"))
QUAD_FORMS = atom_classes(("atoms.quad_form", "QuadForm"), ("atoms.quad_form", "SymbolicQuadForm"))
MAX = atom_classes(("atoms.max", "max"))
MIN = atom_classes(("atoms.min", "min"))
LOG_SUM_EXP = atom_classes(("atoms.log_sum_exp", "log_sum_exp"))
HUBER = atom_classes((f"{_ELEM}.huber", "huber"))
ELEMENTWISE = atom_classes((f"{_ELEM}.elementwise", "Elementwise"))  # the base class: entry by entry

EXP = atom_classes((f"{_ELEM}.exp", "exp"))
LOG = atom_classes((f"{_ELEM}.log", "log"))
LOGISTIC = atom_classes((f"{_ELEM}.logistic", "logistic"))
ENTR = atom_classes((f"{_ELEM}.entr", "entr"))
ABS = atom_classes((f"{_ELEM}.abs", "abs"))
MAXIMUM = atom_classes((f"{_ELEM}.maximum", "maximum"))
MINIMUM = atom_classes((f"{_ELEM}.minimum", "minimum"))

_SMOOTH_ELEMENTWISE = EXP + LOG + LOGISTIC + ENTR + atom_classes(
    (f"{_ELEM}.kl_div", "kl_div"), (f"{_ELEM}.rel_entr", "rel_entr"), (f"{_ELEM}.xexp", "xexp"),
)
_NONSMOOTH_ELEMENTWISE = ABS + MAXIMUM + MINIMUM
_NONSMOOTH_OTHER = atom_classes(
    ("atoms.sum_largest", "sum_largest"), ("atoms.sum_smallest", "sum_smallest"),
    ("atoms.lambda_max", "lambda_max"), ("atoms.norm_nuc", "normNuc"), ("atoms.sigma_max", "sigma_max"),
    ("atoms.total_variation", "tv"), ("atoms.cummax", "cummax"), ("atoms.dotsort", "dotsort"),
)


@dataclass(frozen=True)
class Atom:
    """The facts about one CVXPY atom class.

    ``smoothness``: "C2" (twice continuously differentiable everywhere), "C1"
    (once, not twice: huber), "nonsmooth" (not differentiable somewhere), or
    "power" (C^2 exactly when the exponent is an integer >= 2, see
    :func:`power_exponent`). ``reduction``: combines the entries of its
    argument into one value (per record: the entries of one record).
    ``is_norm``: a vector norm (its order: :func:`norm_order`).
    """

    smoothness: Smoothness
    reduction: bool = False
    is_norm: bool = False


def _table() -> dict[type, Atom]:
    table: dict[type, Atom] = {}

    def put(classes: tuple[type, ...], atom: Atom) -> None:
        for cls in classes:
            table[cls] = atom

    put(AFFINE, Atom("C2"))
    put(SUM, Atom("C2", reduction=True))
    put(_SMOOTH_ELEMENTWISE, Atom("C2"))
    put(LOG_SUM_EXP, Atom("C2", reduction=True))
    put(QUAD_OVER_LIN, Atom("C2", reduction=True))
    put(QUAD_FORMS, Atom("C2"))
    put(HUBER, Atom("C1"))
    put(POWER, Atom("power"))
    put(_NONSMOOTH_ELEMENTWISE + _NONSMOOTH_OTHER, Atom("nonsmooth"))
    put(MAX + MIN, Atom("nonsmooth", reduction=True))
    put(NORMS, Atom("nonsmooth", reduction=True, is_norm=True))
    return table


ATOMS: dict[type, Atom] = _table()


def facts(node: object) -> Atom | None:
    """The table's entry for the class of ``node``, or None when dpcvx knows nothing about it."""
    return ATOMS.get(type(node))


def _solved(value: Any) -> Fraction:
    """An exponent as the solver uses it: CVXPY's rational (an int or a Fraction, what its cone form is built
    from) as it is, a double exactly (:func:`.exact.exact_constant`)."""
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    return exact_constant(float(value))


def norm_order(node: Any) -> Fraction | float:
    """The order p of a norm atom: 1 for norm1, inf for norm_inf, ``node.p`` (CVXPY's rational) for a p-norm."""
    if isinstance(node, NORM1):
        return Fraction(1)
    if isinstance(node, NORM_INF):
        return math.inf
    if isinstance(node, PNORMS):
        return _solved(node.p)
    raise TypeError(f"{type(node).__name__} is not a norm atom")


def power_exponent(node: Any) -> Fraction:
    """The exponent p of a power atom, as CVXPY solves with it: its rational approximation ``p_used`` (what
    ``cp.power`` builds its cones from), else the double exactly."""
    if not isinstance(node, POWER):
        raise TypeError(f"{type(node).__name__} is not a power atom")
    used: Any = getattr(node, "p_used", None)
    if used is not None:
        return _solved(used)
    p: Any = node.p
    return _solved(p.value if isinstance(p, cp.Expression) else p)


#: The CVXPY function a user writes for the atom classes CVXPY names otherwise (``cp.norm(w)`` builds a
#: ``PnormApprox``, ``cp.sqrt`` and ``cp.inv_pos`` build powers); every other class is the function of its name.
_SPELLINGS: dict[type, str] = {
    **{cls: "cp.norm" for cls in PNORMS}, **{cls: "cp.power" for cls in POWER},
    **{cls: "cp.quad_form" for cls in QUAD_FORMS},
    **{cls: "cp.geo_mean" for cls in atom_classes(("atoms.geo_mean", "GeoMean"), ("atoms.geo_mean", "GeoMeanApprox"))},
}


def spelling(node: Any) -> str:
    """An atom as a message names it to a user: the CVXPY function that builds it (``cp.norm``, not CVXPY's class
    ``PnormApprox``), a power with its exponent (``cp.power(., 3/2)``: :func:`power_exponent`)."""
    name = _SPELLINGS.get(type(node), f"cp.{type(node).__name__}")
    if isinstance(node, POWER):
        return f"{name}(., {power_exponent(node)})"
    return name
