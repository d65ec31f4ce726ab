"""The non-smooth part of a regularizer N as KST12's proximal solver takes it: a ||w||_1 and disjoint group norms.

The ``regularizer_prox`` condition (:mod:`.kst12`) states it as its value: ``NonsmoothForm(a, k)`` prints as
``"a ||w||_1 + k group norm(s) b_g ||w_g||_2 over disjoint groups + quadratic"`` (a term with weight or count 0
left out), the text a certificate shows and a model file holds; :meth:`NonsmoothForm.parse` reads that text
back, so a loaded certificate holds the same typed value. Whether a release can have exact zeros (an L1 or
group term: :mod:`dpcvx.release.sparsify`) is :attr:`NonsmoothForm.sparse`, read from this value and never from
the text.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NonsmoothForm"]

_L1 = " ||w||_1"
_GROUPS = " group norm(s) b_g ||w_g||_2 over disjoint groups"
_QUADRATIC = "quadratic"
_PLUS = " + "


@dataclass(frozen=True)
class NonsmoothForm:
    """N = ``l1_weight`` ||w||_1 + ``groups`` group norms b_g ||w_g||_2 over disjoint groups + a quadratic."""

    l1_weight: float
    groups: int

    @property
    def sparse(self) -> bool:
        """Whether N has an L1 or group term, whose exact zeros the noise removes."""
        return self.l1_weight > 0 or self.groups > 0

    def __str__(self) -> str:
        parts = [f"{self.l1_weight:.17g}{_L1}"] if self.l1_weight > 0 else []
        if self.groups:
            parts.append(f"{self.groups}{_GROUPS}")
        return _PLUS.join([*parts, _QUADRATIC])

    @classmethod
    def parse(cls, text: str) -> NonsmoothForm | None:
        """The form ``text`` states (the inverse of ``str``), or None when it is not such a text."""
        parts = text.split(_PLUS)
        if parts[-1] != _QUADRATIC or len(parts) > 3:
            return None
        l1_weight, groups = 0.0, 0
        for part in parts[:-1]:
            try:
                if part.endswith(_L1) and not groups and not l1_weight:
                    l1_weight = float(part[: -len(_L1)])
                elif part.endswith(_GROUPS) and not groups:
                    groups = int(part[: -len(_GROUPS)])
                else:
                    return None
            except ValueError:
                return None
        form = cls(l1_weight, groups)
        return form if form.sparse and str(form) == text else None
