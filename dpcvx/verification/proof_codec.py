"""A text form of the prover's inputs and results, for the proof cache (:mod:`dpcvx.verification.proof_cache`).

The verifier's two worker calls (:func:`dpcvx.verification.symbolic.loss_facts` and
:func:`dpcvx.verification.validated.validated_facts`) take sympy expressions and return
plain values: sympy numbers and expressions, floats, tuples, and the small result
dataclasses ``Failed``, ``SupBound``, ``InfBound``, ``Smoothness``. :func:`encode` writes
such a value as JSON data:

* ``None``, ``bool``, ``int``, ``str`` as themselves;
* a float as ``{"float": repr(x)}`` (``repr`` round-trips every double, ``inf`` and ``nan``);
* a tuple or list as ``{"tuple": [...]}`` / ``{"list": [...]}``;
* a sympy object as ``{"sympy": srepr(x)}`` (sympy's exact constructor form: ``Rational(1, 4)``
  stays 1/4, a Float keeps its precision);
* one of the result dataclasses as ``{"class": name, "fields": {...}}``.

Anything else raises :class:`Unencodable`, and the value is simply not cached. :func:`decode`
is the inverse. It evaluates sympy's constructor text, so it must only be given text that is
trusted: the shipped catalogue (part of the package) or a cache entry whose HMAC was checked.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import sympy as sp
from sympy.functions.elementary.piecewise import ExprCondPair

from .proof_cache import Unencodable
from .symbolic import Failed
from .translate import Sigmoid, Softplus
from .validated import InfBound, Smoothness, SupBound

__all__ = ["Unencodable", "encode", "decode", "same"]

_CLASSES: dict[str, type] = {cls.__name__: cls for cls in (Failed, SupBound, InfBound, Smoothness)}
_NAMESPACE: dict[str, Any] = {}


def encode(value: Any) -> Any:
    """JSON data for ``value`` (see the module docstring); :class:`Unencodable` if it has none."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and type(value) is int:
        return value
    if isinstance(value, float):
        return {"float": repr(float(value))}
    if isinstance(value, tuple):
        return {"tuple": [encode(item) for item in value]}
    if isinstance(value, list):
        return {"list": [encode(item) for item in value]}
    if isinstance(value, sp.Basic):
        return {"sympy": sp.srepr(value)}
    if dataclasses.is_dataclass(value) and _CLASSES.get(type(value).__name__) is type(value):
        fields = {field.name: encode(getattr(value, field.name)) for field in dataclasses.fields(value)}
        return {"class": type(value).__name__, "fields": fields}
    raise Unencodable(f"no exact text form for a {type(value).__name__}")


def _sympy(text: str) -> sp.Basic:
    if not _NAMESPACE:
        _NAMESPACE.update(vars(sp))
        _NAMESPACE.update(Softplus=Softplus, Sigmoid=Sigmoid, ExprCondPair=ExprCondPair, __builtins__={})
    try:
        value = eval(text, _NAMESPACE)  # noqa: S307 - trusted text only (shipped, or HMAC-checked)
    except Exception as error:  # noqa: BLE001 - a name sympy's printer used that is not in the namespace
        raise Unencodable(f"cannot rebuild {text[:60]!r}: {error}") from None
    if not isinstance(value, sp.Basic):
        raise Unencodable(f"not a sympy object: {text[:60]!r}")
    return value


def decode(data: Any) -> Any:
    """The value :func:`encode` wrote as ``data`` (trusted data only: see the module docstring)."""
    if data is None or isinstance(data, (bool, int, str)):
        return data
    if isinstance(data, dict) and len(data) == 1:
        (kind, payload), = data.items()
        if kind == "float":
            return float(payload)
        if kind == "tuple":
            return tuple(decode(item) for item in payload)
        if kind == "list":
            return [decode(item) for item in payload]
        if kind == "sympy":
            return _sympy(payload)
    if isinstance(data, dict) and set(data) == {"class", "fields"} and data["class"] in _CLASSES:
        return _CLASSES[data["class"]](**{name: decode(item) for name, item in data["fields"].items()})
    raise Unencodable(f"not an encoded value: {str(data)[:60]!r}")


def same(a: Any, b: Any) -> bool:
    """Whether two decoded values are equal, counting NaN equal to NaN (floats in bounds may be NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if dataclasses.is_dataclass(a) and not isinstance(a, type) and type(a) is type(b):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return type(a) is type(b) and bool(a == b)
