"""The kernel learners' loss facts (l(0), inf l, the two-piece form) are kept by the loss's CVXPY structure.

A shipped fact is what sympy proves today; a kernel learner's own loss is resolved in a new process
without the verifier's worker and without importing sympy; a custom loss is proved once, then served
from the disk cache; an edited disk entry or malformed data is refused and proved again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import cvxpy as cp
import pytest
from test_proof_cache import require_shipped_catalogue  # this folder is on sys.path

from dpcvx.losses import from_spec
from dpcvx.verification import deadline, kernel_record, proof_cache, verifier
from dpcvx.verification.kernel_loss import KERNEL_CATALOGUE, TwoPieceLinear, hinge, kernel_facts, resolve_loss
from dpcvx.verification.kernel_record import KernelFacts
from dpcvx.verification.loss_analysis import SYMBOL
from dpcvx.verification.proof_cache import Unencodable
from dpcvx.verification.translate import elementary, to_sympy


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(proof_cache.ENVIRONMENT, str(tmp_path / "cache"))
    monkeypatch.setattr(verifier, "_LOSS_CACHE", {})
    return tmp_path / "cache"


def counted_worker(monkeypatch):
    calls = []
    original = deadline.run
    monkeypatch.setattr(deadline, "run", lambda function, *a, **k: calls.append(function.__name__)
                        or original(function, *a, **k))
    return calls


@pytest.mark.parametrize("spec", KERNEL_CATALOGUE)
def test_every_shipped_fact_is_what_sympy_proves_today(spec):
    require_shipped_catalogue()
    verified = resolve_loss(spec)
    loss = verifier.verify_loss(hinge if spec == "hinge" else from_spec(spec))
    key = kernel_record.facts_key(verifier._structural_key(loss.expression))
    shipped = {item["key"]: item["facts"] for item in proof_cache.shipped_data()["kernel"]}
    fresh = KernelFacts(*kernel_facts(elementary(to_sympy(loss.expression, loss.variable, SYMBOL))))
    assert KernelFacts.from_data(shipped[key]) == fresh
    assert (verified.value_at_zero, verified.infimum) == (fresh.value_at_zero, fresh.infimum)


@pytest.mark.slow  # about 2 s (the default run's 5-minute limit)
def test_a_kernel_learners_own_loss_needs_neither_the_worker_nor_sympy():
    """In a fresh process with no disk cache: the hinge's dual route and bounds, sympy never imported."""
    require_shipped_catalogue()
    code = ("import sys\nfrom dpcvx.verification import deadline\n"
            "deadline.run = lambda *a, **k: sys.exit('the worker was started')\n"
            "from dpcvx.verification.kernel_loss import resolve_loss\n"
            "for spec in ('hinge', 'logistic', 'huber_hinge'):\n    loss = resolve_loss(spec)\n"
            "assert loss.value_at_zero == 1.0 and loss.infimum == 0.0\n"
            "assert 'sympy' not in sys.modules and 'mpmath' not in sys.modules, 'sympy imported'\n"
            "print(resolve_loss('hinge').pieces)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, proof_cache.ENVIRONMENT: "off"}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == repr(TwoPieceLinear(-1.0, 1.0, 0.0, 0.0))


@pytest.mark.slow  # 3 to 8 s (default run kept within 5 minutes); CI's slow tier runs it
def test_a_custom_loss_is_proved_once_then_served_from_disk(cache, monkeypatch):
    calls = counted_worker(monkeypatch)
    first = resolve_loss(lambda z: cp.pos(2 - 2 * z))
    assert "kernel_facts" in calls
    calls.clear()
    monkeypatch.setattr(verifier, "_LOSS_CACHE", {})
    again = resolve_loss(lambda z: cp.pos(2 - 2 * z))
    assert "kernel_facts" not in calls
    assert again.pieces == first.pieces == TwoPieceLinear(-2.0, 2.0, 0.0, 0.0)
    assert (again.value_at_zero, again.infimum) == (first.value_at_zero, first.infimum) == (2.0, 0.0)


@pytest.mark.slow  # 3 to 7 s: the default run is kept within 5 minutes; CI's slow tier runs it
def test_an_edited_disk_entry_is_refused_and_proved_again(cache, monkeypatch):
    resolve_loss(lambda z: cp.pos(2 - 2 * z))
    (path,) = (cache / kernel_record.FOLDER).glob("*.json")
    stored = json.loads(path.read_text())
    stored["entry"]["value_at_zero"] = repr(0.5)  # a smaller l(0): a smaller constraint radius, were it served
    path.write_text(json.dumps(stored))
    calls = counted_worker(monkeypatch)
    monkeypatch.setattr(verifier, "_LOSS_CACHE", {})
    assert resolve_loss(lambda z: cp.pos(2 - 2 * z)).value_at_zero == 2.0
    assert "kernel_facts" in calls


@pytest.mark.parametrize("data", [
    {"value_at_zero": "1.0", "infimum": None, "pieces": ["0.0", "1.0", "-1.0", "0.0"]},  # a1 >= a2
    {"value_at_zero": "inf", "infimum": None, "pieces": None},
    {"value_at_zero": 1.0, "infimum": None, "pieces": None},  # not a number's text
    {"value_at_zero": "1.0", "infimum": "0.0", "pieces": ["-1.0", "1.0", "0.0"]},
    {"value_at_zero": "1.0", "pieces": None},
])
def test_malformed_facts_are_refused(data):
    with pytest.raises(Unencodable):
        KernelFacts.from_data(data)
    assert KernelFacts.from_data({"value_at_zero": "1.0", "infimum": "0.0",
                                  "pieces": ["-1.0", "1.0", "0.0", "0.0"]}).pieces == (-1.0, 1.0, 0.0, 0.0)
