"""The constants a linear release states: exact L, c and m, the public R and Lam, the counts n and d.

A fitted release and a loaded one hold the same types (docs/model-files.md): L, c and m are
:class:`fractions.Fraction` when the verifier proved a rational, :class:`Irrational` (its exact text
and its double, no sympy object) for the rare irrational constant, and a float for an estimate or an
unbounded constant (``math.inf``); R and Lam are floats, n and d ints. The file codec writes each as
``{"exact": text or null, "float": number}`` (:meth:`Constants.to_dict`) and reads it back with
:meth:`Constants.from_saved`. :class:`Constants` is also a read-only mapping (``constants["c"]``), in
the order the certificate prints them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..verification.exact import Exact, exact_of_saved, exact_text, exact_value

__all__ = ["Constants", "written", "EXACT_SHOWN"]

EXACT_SHOWN = 12  # an exact number's text up to this length stands alone; a longer one follows its six digits


def written(value: Any) -> str:
    """A constant as every text shows it (the certificate's constants line, the release report): an exact number's
    exact text ("1/4", "sqrt(2)", "oo"), a double to six significant digits (the file keeps every digit), an int as
    it is. Fitted and loaded values have the same types. An exact text longer than ``EXACT_SHOWN`` (a double's exact
    fraction, 2953620670910835/281474976710656) follows its value to six digits: "10.4934 (exactly
    2953620670910835/281474976710656)". One format: the certificate printed R = 1.1696387785961122 among the
    constants and effective R = 1.16964 on the next line."""
    text = exact_text(value)
    if text is None:
        return f"{value:.6g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)
    if len(text) <= EXACT_SHOWN:
        return text
    try:
        return f"{float(value):.6g} (exactly {text})"
    except (TypeError, ValueError, OverflowError):
        return text


@dataclass(frozen=True)
class Constants(Mapping[str, Any]):
    """L, c (objective perturbation only), m, R, Lam, n and d of a linear release (module docstring)."""

    L: Exact
    m: Exact
    R: float
    lam: float
    n: int
    d: int
    c: Exact | None = None

    @classmethod
    def of(cls, verified: Mapping[str, Any], *, R: float, lam: float, n: int, d: int) -> Constants:
        """The constants of a fit: the verified ``{"L", "c", "m"}`` (c absent for output perturbation) and the
        public R, Lam and counts."""
        c = verified.get("c")
        return cls(L=exact_value(verified["L"]), m=exact_value(verified["m"]), R=float(R), lam=float(lam), n=int(n),
                   d=int(d), c=None if c is None else exact_value(c))

    @classmethod
    def from_saved(cls, saved: Mapping[str, tuple[str | None, float]]) -> Constants:
        """The constants of a file, given as {name: (exact text or None, float)} (checked by the reader)."""
        exact = {key: exact_of_saved(*saved[key]) for key in ("L", "c", "m") if key in saved}
        return cls(L=exact["L"], m=exact["m"], R=saved["R"][1], lam=saved["lam"][1], n=int(saved["n"][1]),
                   d=int(saved["d"][1]), c=exact.get("c"))

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """The file form: ``{name: {"exact": text or None, "float": number}}``."""
        return {key: {"exact": exact_text(value),
                      "float": float(value)} for key, value in self.items()}

    def _names(self) -> tuple[str, ...]:
        return tuple(name for name in ("L", "c", "m", "R", "lam", "n", "d") if getattr(self, name) is not None)

    def __getitem__(self, key: str) -> Any:
        if key not in self._names():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())
