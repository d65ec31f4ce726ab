"""Verified-loss records: a cached verification needs no sympy, and an edited record is never used.

A record (dpcvx.verification.loss_record) holds the verifier's whole result for a loss, with
the numpy code of l, l', l'' that sympy's printer wrote when the loss was proved. These tests
pin that a record serves the same certificate and derivatives as a fresh proof, that an edited,
stale or unsafe record is refused before its code is compiled, that every shipped record is what
the verifier writes today, and that a fit served from a record leaves sympy unimported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
import sympy as sp
from test_proof_cache import (  # the in-process stand-in for deadline.run (this folder is on sys.path)
    Prover,
    require_shipped_catalogue,
)

from dpcvx.verification import (
    catalogue,
    deadline,
    loss_record,
    numpy_code,
    proof_cache,
    proof_replay,
    translate,
    verifier,
)
from dpcvx.verification.loss_analysis import SYMBOL

ROOT = Path(__file__).resolve().parents[2]
# a grid through every breakpoint of the catalogue's losses, and the doubles next to them
POINTS = np.concatenate([np.linspace(-6.0, 6.0, 12001), np.nextafter([-1.0, 1.0, 0.5, 1.5], np.inf),
                         np.nextafter([-1.0, 1.0, 0.5, 1.5], -np.inf), [-1e3, 1e3]])


def third(z):
    """logistic(-z/3): L = 1/3, c = 1/36."""
    return cp.logistic(-z / 3)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(proof_cache.ENVIRONMENT, str(tmp_path / "cache"))
    return tmp_path / "cache"


def verify(monkeypatch, loss, provers=True):
    """Verify ``loss`` afresh in this process: (verified loss, prover). ``provers=False``: no prover cache."""
    prover = Prover()
    monkeypatch.setattr(deadline, "run", prover)
    monkeypatch.setattr(verifier, "_LOSS_CACHE", {})
    if not provers:
        monkeypatch.setattr(proof_replay, "_shipped", lambda key: None)
        monkeypatch.setattr(proof_replay, "load", lambda key: None)
    return verifier.verify_loss(loss), prover


def record_files(directory):
    return sorted((directory / loss_record.FOLDER).glob("*.json"))


def compiled_texts(monkeypatch):
    """The code texts compiled from here on (loss_record's compile_code, wrapped)."""
    texts = []

    def compile_and_note(text):
        texts.append(text)
        return numpy_code.compile_code(text)

    monkeypatch.setattr(loss_record, "compile_code", compile_and_note)
    return texts


@pytest.mark.slow
def test_a_record_cut_short_serves_only_calls_with_a_limit_no_larger(cache, monkeypatch):
    fresh, _ = verify(monkeypatch, third)
    (path,) = record_files(cache)
    record = loss_record.LossRecord.from_data(json.loads(path.read_text())["entry"])
    key = loss_record.record_key(verifier._structural_key(verifier.declared_loss(third)[1]))
    loss_record.keep(key, loss_record.LossRecord(record.text, record.conditions, record.dcp_convex,
                                                 record.derivative_code, 5.0))
    assert loss_record.lookup(key, 5.0) is not None and loss_record.lookup(key, 4.0) is not None
    assert loss_record.lookup(key, 20.0) is None  # a larger limit verifies again


@pytest.mark.slow
def test_a_record_serves_the_same_loss_without_proving(cache, monkeypatch):
    fresh, prover = verify(monkeypatch, third)
    assert prover.calls == ["loss_facts"] and len(record_files(cache)) == 1
    served, prover = verify(monkeypatch, third, provers=False)
    assert prover.calls == [] and served.conditions == fresh.conditions and served.text == fresh.text
    assert served.derivatives is not fresh.derivatives
    for name in ("value", "first", "second"):
        np.testing.assert_array_equal(getattr(served.derivatives, name)(POINTS),
                                      getattr(fresh.derivatives, name)(POINTS))
    curvature = next(item for item in served.conditions if item.name == "curvature")
    assert curvature.value == Fraction(1, 36) and isinstance(curvature.value, Fraction)


def tamper(path, edit):
    stored = json.loads(path.read_text())
    stored["entry"] = edit(stored["entry"])
    path.write_text(json.dumps(stored))
    return stored


def halve_curvature_and_break_the_code(record):
    for item in record["conditions"]:
        if item["name"] == "curvature":
            assert item["value"] == {"fraction": [1, 36]}
            item["value"] = {"fraction": [1, 72]}
    record["derivatives"] = ["numpy.exp(z)", "numpy.exp(z)", "0 * z"]
    return record


@pytest.mark.slow
def test_an_edited_record_is_refused_and_its_code_never_compiled(cache, monkeypatch):
    fresh, _ = verify(monkeypatch, third)
    (path,) = record_files(cache)
    stored = tamper(path, halve_curvature_and_break_the_code)
    edited = loss_record.LossRecord.from_data(stored["entry"])  # well formed: without the HMAC it would serve
    assert next(item for item in edited.conditions if item.name == "curvature").value == Fraction(1, 72)
    texts = compiled_texts(monkeypatch)
    again, _ = verify(monkeypatch, third)
    assert "0 * z" not in texts and "numpy.exp(z)" not in texts
    assert again.conditions == fresh.conditions
    np.testing.assert_array_equal(again.derivatives.second(POINTS), fresh.derivatives.second(POINTS))


@pytest.mark.slow
def test_a_signed_record_with_unsafe_code_is_refused(cache, monkeypatch):
    fresh, _ = verify(monkeypatch, third)
    (path,) = record_files(cache)

    def unsafe(record):
        record["derivatives"][2] = "numpy.lib.npyio.__builtins__"  # re-signed below: only the check stops it
        return record

    stored = tamper(path, unsafe)
    secret = (cache / "hmac.key").read_bytes()
    stored["mac"] = proof_cache._mac(secret, stored["key"], stored["entry"])
    path.write_text(json.dumps(stored))
    key = loss_record.record_key(verifier._structural_key(verifier.declared_loss(third)[1]))
    assert proof_cache.load_data(key, loss_record.FOLDER) == stored["entry"]  # its HMAC verifies
    assert loss_record.lookup(key, 20.0) is None
    again, prover = verify(monkeypatch, third)
    assert again.conditions == fresh.conditions and prover.calls == []  # the prover cache still answers


@pytest.mark.parametrize("text", ["__import__('os')", "numpy.__dict__", "numpy.load('x')", "open", "z.__class__",
                                  "[z for z in z]", "lambda: 0", "numpy.exp(z); 1"])
def test_the_loader_refuses_code_outside_numpy_expressions(text):
    with pytest.raises(numpy_code.UnsafeCode):
        numpy_code.compile_code(text)


@pytest.mark.slow  # about 2.5 s: a fresh process
def test_a_record_of_other_code_is_not_found(cache, monkeypatch):
    verify(monkeypatch, third)
    current = proof_cache.fingerprint()
    monkeypatch.setattr(proof_cache, "fingerprint", lambda: {**current, "sources": "0" * 64})
    key = loss_record.record_key(verifier._structural_key(verifier.declared_loss(third)[1]))
    assert loss_record.lookup(key, 20.0) is None
    monkeypatch.setattr(proof_cache, "fingerprint", lambda: current)
    assert loss_record.lookup(key, 20.0) is not None


def shipped_records():
    return {item["key"]: loss_record.LossRecord.from_data(item["record"])
            for item in proof_cache.shipped_data()["losses"]}


@pytest.mark.slow  # about 3 s (re-proves every shipped record): the slow tier runs it
def test_every_shipped_record_is_what_the_verifier_writes_today(monkeypatch):
    """Re-prove every catalogue loss (no cache of any kind) and compare with its shipped record, code included."""
    require_shipped_catalogue()
    monkeypatch.setenv(proof_cache.ENVIRONMENT, "off")
    monkeypatch.setattr(loss_record, "lookup", lambda key, seconds: None)
    shipped = shipped_records()
    assert len(shipped) == len(catalogue.shipped_losses())
    for loss in catalogue.shipped_losses():
        fresh, prover = verify(monkeypatch, loss, provers=False)
        assert prover.calls == ["loss_facts"]
        key = loss_record.record_key(verifier._structural_key(verifier.declared_loss(loss)[1]))
        variable, expression = verifier.declared_loss(loss)
        _, code, outcome = verifier._analysed(loss, variable, expression, verifier.verification_budget(None), False)
        assert outcome == verifier.COMPLETE
        assert shipped[key] == loss_record.LossRecord(fresh.text, fresh.conditions, fresh.dcp_convex, code), loss


@pytest.mark.parametrize("loss", catalogue.catalogue_losses(), ids=repr)
def test_served_derivatives_equal_sympys_lambdify_on_a_grid(loss, monkeypatch):
    """The shipped code of l, l', l'' against sympy.lambdify of the translated loss, differentiated afresh."""
    require_shipped_catalogue()
    monkeypatch.setenv(proof_cache.ENVIRONMENT, "off")
    served, prover = verify(monkeypatch, loss)
    assert prover.calls == []  # from the shipped record
    variable, expression = verifier.declared_loss(loss)
    form = translate.to_sympy(expression, variable, SYMBOL).rewrite(sp.Piecewise)
    for order, name in enumerate(("value", "first", "second")):
        reference = sp.lambdify(SYMBOL, sp.diff(form, SYMBOL, order), modules=[translate._STABLE_NUMPY, "numpy"])
        expected = np.broadcast_to(np.asarray(reference(POINTS), dtype=float), POINTS.shape)
        np.testing.assert_array_equal(getattr(served.derivatives, name)(POINTS), expected, err_msg=f"{loss} {name}")


FIT = """
import sys, warnings
# ignore: the child's warnings go to its stderr, which the test does not read: it reads only the modules imported
warnings.simplefilter("ignore")
import numpy as np, cvxpy as cp, dpcvx
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 5))
X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
y = np.where(X @ np.ones(5) > 0, 1, -1)
{fit}
print(sorted({{"sympy", "mpmath"}} & set(sys.modules)))
"""
FITS = {
    "logistic": "dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=1e-2, data_norm=1.0).fit(X, y, epsilon=1.0)",
    "lambda": "dpcvx.PrivateERM(loss=lambda z: cp.logistic(-z), lam=1e-2, data_norm=1.0).fit(X, y, epsilon=1.0)",
    "DPLogisticRegression": "dpcvx.DPLogisticRegression().fit(X, (y > 0).astype(int))",
    # m = 1, the shipped Huber loss (the default m is a quarter of the label bound)
    "DPHuberRegressor": "dpcvx.DPHuberRegressor(label_bound=3.0, m=1.0).fit(X, X @ np.ones(5))",
    "custom": "dpcvx.PrivateERM(loss=lambda z: cp.logistic(-z / 3), lam=1e-2, data_norm=1.0).fit(X, y, epsilon=1.0)",
}


def imported_provers(case, cache):
    environment = dict(os.environ, PYTHONPATH=str(ROOT), DPCVX_CACHE_DIR=cache, OMP_NUM_THREADS="1",
                       OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", FIT.format(fit=FITS[case])], cwd=ROOT, env=environment,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))


@pytest.mark.slow
@pytest.mark.parametrize("case", ["logistic", "lambda", "DPLogisticRegression", "DPHuberRegressor"])
def test_a_catalogue_fit_imports_neither_sympy_nor_mpmath(case):
    assert imported_provers(case, "off") == []


@pytest.mark.slow
def test_a_custom_loss_fit_with_a_warm_cache_imports_neither_sympy_nor_mpmath(tmp_path):
    cache = str(tmp_path / "cache")
    assert imported_provers("custom", cache) == ["mpmath", "sympy"]  # the first process proves
    assert imported_provers("custom", cache) == []
