"""Numpy code of a loss and its derivatives: the text sympy's printer writes, and its sympy-free loader.

When the verifier proves a loss it also writes l, l' and l'' as numpy expressions in ``z``
(:func:`dpcvx.verification.translate.numpy_code`, sympy's ``NumPyPrinter``: the same printing
``sympy.lambdify`` does). That text is part of the proof's result: the proof cache keeps it
(:mod:`dpcvx.verification.loss_record`), and the solver's functions are compiled from it here,
whether the proof is fresh or served from the cache, so there is one source of each formula and a
cached fit never imports sympy.

:func:`compile_code` evaluates only text that is trusted (written by this process's printer, the
shipped catalogue, or an on-disk entry whose HMAC verified), and, as a second line of defence, only
after checking its syntax tree: one expression built from numbers, ``z``, arithmetic, comparisons,
calls of ``numpy`` functions (attributes without underscores), ``softplus`` and ``sigmoid``; no
strings, no other names. It runs with no builtins.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Callable
from types import CodeType
from typing import Any

import numpy as np

__all__ = ["UnsafeCode", "compile_code", "sigmoid", "softplus", "STABLE_FUNCTIONS", "VARIABLE"]

VARIABLE = "z"
_CHUNK = 32_768  # elements per chunk of a long vector


class UnsafeCode(ValueError):
    """Text that is not a numpy expression of the allowed form (it is never evaluated)."""


def softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, within a few ulp, and about four times
    faster than numpy's logaddexp(0, x) (whose exp and log are not vectorised)."""
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x), within 2 ulp of scipy's expit wherever that is above 1e-300 (below, both are within
    1e-300 of 0; tests/verification/test_numpy_code.py): e^-x overflows to inf for x < -709.78 and gives 0,
    the correctly rounded value's neighbour. About four times faster than expit on long vectors, since
    numpy's exp is vectorised and expit's is not (60 us against 270 us for 32,768 values here; the logistic
    loss's l' and l'' are most of a Newton step's per-row work at d = 20). It is :func:`_sigmoid_of_minus` at
    -x."""
    return _sigmoid_of_minus(-x)


def _sigmoid_of_minus(t: np.ndarray) -> np.ndarray:
    """sigmoid(-t) = 1 / (1 + e^t), the arithmetic of :func:`sigmoid` after its negation. The printer writes the
    logistic loss's l' = -sigmoid(-z) and l'' with sigmoid(-z); compiled code evaluates sigmoid(-u) as this at u
    (:class:`_MinusInSigmoid`), bitwise the same values, since -(-u) is u exactly (a sign flipped twice), without
    the two negations: 29 -> 21 us for l' and 32 -> 27 us for l'' on 10,000 values (timeit)."""
    with np.errstate(over="ignore"):
        e = np.exp(t)
    if not isinstance(e, np.ndarray):  # a scalar (numpy returns one for a scalar or a 0-d array): no buffer
        return 1.0 / (1.0 + e)
    e += 1.0
    return np.reciprocal(e, out=e)


# the printer's names for the stable functions of :mod:`.translate` (Softplus, Sigmoid), and their numpy forms
STABLE_FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"softplus": softplus, "sigmoid": sigmoid}

_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.Tuple, ast.List,
          ast.Load, ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.keyword, ast.IfExp)
_KEYWORDS = {"default", "axis"}


def _check(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in {VARIABLE, "numpy", *STABLE_FUNCTIONS}:
                raise UnsafeCode(f"the name {node.id!r}")
        elif isinstance(node, ast.Attribute):
            root: ast.expr = node
            while isinstance(root, ast.Attribute):
                if root.attr.startswith("_"):
                    raise UnsafeCode(f"the attribute {root.attr!r}")
                root = root.value
            if not (isinstance(root, ast.Name) and root.id == "numpy"):
                raise UnsafeCode("an attribute of something other than numpy")
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, bool)):
                raise UnsafeCode(f"a {type(node.value).__name__} constant")
        elif isinstance(node, ast.keyword):
            if node.arg not in _KEYWORDS:
                raise UnsafeCode(f"the keyword {node.arg!r}")
        elif not isinstance(node, _NODES):
            raise UnsafeCode(f"a {type(node).__name__} node")


#: The name compiled code calls :func:`_sigmoid_of_minus` by (no checked text can name it: :func:`_check`).
_SIGMOID_OF_MINUS = "_sigmoid_of_minus"

#: The functions only compiled code calls (:class:`_MinusInSigmoid` writes them), bound beside
#: :data:`STABLE_FUNCTIONS` at each :func:`compile_code`.
_COMPILED_ONLY: dict[str, Callable[[np.ndarray], np.ndarray]] = {_SIGMOID_OF_MINUS: _sigmoid_of_minus}


class _MinusInSigmoid(ast.NodeTransformer):
    """Each sigmoid(-u) becomes _sigmoid_of_minus(u) (:func:`_sigmoid_of_minus`: the same values, two passes fewer),
    inner calls first."""

    def visit_Call(self, node: ast.Call) -> ast.expr:
        node = self.generic_visit(node)  # type: ignore[assignment]
        argument = node.args[0] if len(node.args) == 1 and not node.keywords else None
        if isinstance(node.func, ast.Name) and node.func.id == "sigmoid" and isinstance(argument, ast.UnaryOp) \
                and isinstance(argument.op, ast.USub):
            return ast.copy_location(ast.Call(func=ast.Name(id=_SIGMOID_OF_MINUS, ctx=ast.Load()),
                                              args=[argument.operand], keywords=[]), node)
        return node


class _SelectAsWhere(ast.NodeTransformer):
    """Each numpy.select([c_1, ..., c_k], [v_1, ..., v_k], default=d) of a piecewise loss becomes
    numpy.where(c_1, v_1, numpy.where(c_2, v_2, ... numpy.where(c_k, v_k, d))): at each element, the value of the
    first condition that holds, as select gives it, from the same computed pieces, in select's type (the innermost
    where promotes a piece of integers to the default's float64 exactly, as select does, so that no later power or
    division sees integers). select's checks and broadcasting cost more than the where chain on a row block, and
    a Huber loss's derivatives are nested selects, evaluated on every block of every pass (whole fits:
    benchmarks/results/speed_ab_piecewise_losses.md)."""

    def visit_Call(self, node: ast.Call) -> ast.expr:
        node = self.generic_visit(node)  # type: ignore[assignment]
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "select" and isinstance(func.value, ast.Name)
                and func.value.id == "numpy" and len(node.args) == 2
                and all(isinstance(arg, ast.List) for arg in node.args)
                and [keyword.arg for keyword in node.keywords] == ["default"]):
            return node
        conditions, pieces = (arg.elts for arg in node.args)  # type: ignore[attr-defined]
        if len(conditions) != len(pieces) or not conditions:
            return node
        chain = node.keywords[0].value
        for condition, piece in zip(reversed(conditions), reversed(pieces), strict=True):
            where = ast.Attribute(value=ast.Name(id="numpy", ctx=ast.Load()), attr="where", ctx=ast.Load())
            chain = ast.Call(func=where, args=[condition, piece, chain], keywords=[])
        return ast.copy_location(chain, node)


class _CommonCalls(ast.NodeTransformer):
    """Each call that occurs more than once in the expression, evaluated once: its occurrences become a name
    (``_0``, ``_1``, ...; inner calls first), and :attr:`shared` lists (name, call) in evaluation order. The
    printer writes l'' = -(sigmoid(-z) - 1)*sigmoid(-z) with its one sigmoid twice; the values are bitwise
    those of the expression as written (the same operations on the same operands)."""

    def __init__(self, tree: ast.Expression) -> None:
        counts = Counter(ast.dump(node) for node in ast.walk(tree) if isinstance(node, ast.Call))
        # nothing is hoisted out of a conditional (x if c else y, and/or): it would be evaluated where it was not
        lazy = any(isinstance(node, (ast.IfExp, ast.BoolOp)) for node in ast.walk(tree))
        self.repeated = set() if lazy else {text for text, count in counts.items() if count > 1}
        self.names: dict[str, str] = {}
        self.shared: list[tuple[str, ast.expr]] = []

    def visit_Call(self, node: ast.Call) -> ast.expr:
        text = ast.dump(node)
        node = self.generic_visit(node)  # type: ignore[assignment]
        if text not in self.repeated:
            return node
        if text not in self.names:
            self.names[text] = f"_{len(self.names)}"
            self.shared.append((self.names[text], node))
        return ast.copy_location(ast.Name(id=self.names[text], ctx=ast.Load()), node)


def compile_code(text: str) -> Callable[[np.ndarray], np.ndarray]:
    """A vectorised numpy function of the expression ``text`` in ``z`` (trusted text only: see the module), a
    :class:`CompiledCode`.

    The text is parsed, checked and compiled once per process (:func:`_code_of`, a pure function of the text; a
    refused text raises every time): a catalogue loss's derivatives, looked up by every fit and by the
    estimators' noise warning (l(0)), are compiled once. The functions it names are bound here, at each call."""
    if not isinstance(text, str):
        raise UnsafeCode("not a string")
    return CompiledCode(text)


class CompiledCode:
    """The function :func:`compile_code` makes of a checked expression ``text``: called on values, it evaluates the
    expression on them (a 1-D array by chunks). Pickled as its text and compiled again (checked again) when it is
    read, so that what holds one (a verified loss's derivatives, a fit's plan) can be pickled: a closure could
    not be ('Can't pickle local object compile_code.<locals>.evaluate')."""

    __slots__ = ("text", "_shared", "_code", "_namespace")

    def __init__(self, text: str) -> None:
        self.text = text
        self._shared, self._code = _code_of(text)
        self._namespace: dict[str, Any] = {"__builtins__": {}, "numpy": np, **STABLE_FUNCTIONS, **_COMPILED_ONLY}

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return compile_code, (self.text,)

    def __repr__(self) -> str:
        return f"compile_code({self.text!r})"

    def _function(self, values: np.ndarray) -> Any:
        local = {VARIABLE: values}
        for name, part in self._shared:
            local[name] = eval(part, self._namespace, local)  # noqa: S307 - checked above, trusted text only
        return eval(self._code, self._namespace, local)  # noqa: S307 - checked above, trusted text only

    def __call__(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        if values.ndim != 1 or values.size <= _CHUNK:
            result = self._function(values)
            if type(result) is np.ndarray and result.base is None and result is not values \
                    and result.dtype == np.float64 and result.shape == values.shape:
                return result  # a fresh array of the right shape (a ufunc's output): no broadcast and copy,
                # which cost 6 us a call, a tenth of a blockwise pass's loss evaluations at 3e5 x 500
            return np.broadcast_to(np.asarray(result, dtype=float), values.shape).copy()
        out = np.empty_like(values)  # by chunks: the expression's temporaries stay in cache (2-3x faster)
        for start in range(0, values.size, _CHUNK):
            out[start:start + _CHUNK] = self._function(values[start:start + _CHUNK])
        return out


@functools.lru_cache(maxsize=256)
def _code_of(text: str) -> tuple[tuple[tuple[str, CodeType], ...], CodeType]:
    """(the repeated calls' names and code, the expression's code) of a checked text (:class:`_CommonCalls`)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise UnsafeCode(f"not an expression: {error}") from None
    _check(tree)
    tree = ast.fix_missing_locations(_SelectAsWhere().visit(_MinusInSigmoid().visit(tree)))
    common = _CommonCalls(tree)
    tree = ast.fix_missing_locations(common.visit(tree))
    shared = tuple((name, compile(ast.Expression(body=call), "<dpcvx loss derivative>", "eval"))
                   for name, call in common.shared)
    return shared, compile(tree, "<dpcvx loss derivative>", "eval")
