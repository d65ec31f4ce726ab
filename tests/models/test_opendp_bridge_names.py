"""The OpenDP names dpcvx.opendp_bridge's docstring and docs/ give are the installed OpenDP's current API: each
exists in opendp.combinators and is not deprecated (``make_sequential_composition``, renamed
``make_adaptive_composition`` in OpenDP 0.14, was named there)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import dpcvx.opendp_bridge

combinators = pytest.importorskip("opendp.combinators")

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _named() -> set[str]:
    texts = [dpcvx.opendp_bridge.__doc__ or ""] + [page.read_text() for page in DOCS.glob("*.md")]
    return {name for text in texts for name in re.findall(r"\b(?:dp\.c\.)?((?:make|then)_\w*composition)\b", text)}


def test_named_compositors_are_current():
    named = _named()
    assert "make_adaptive_composition" in named
    for name in sorted(named):
        function = getattr(combinators, name, None)
        assert function is not None, f"{name} is not in opendp.combinators"
        assert "deprecated" not in (function.__doc__ or "").lower(), f"{name} is deprecated in OpenDP"
