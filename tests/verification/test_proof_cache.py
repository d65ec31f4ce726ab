"""The verifier's proof cache: shipped catalogue proofs and the HMAC-protected on-disk cache.

A cached result must give the same certificate as a fresh proof, and an edited, stale or
foreign entry must never certify a constant: it is refused and the prover runs again.
The worker is replaced by an in-process runner that counts the prover calls, so each test
sees exactly when a proof was served from the cache and when it was computed.
"""

from __future__ import annotations

import json
import os
import shutil

import cvxpy as cp
import numpy as np
import pytest
import sympy as sp

from dpcvx import losses
from dpcvx.verification import catalogue, deadline, loss_record, proof_cache, proof_replay, verifier
from dpcvx.verification.proof_codec import decode, encode, same
from dpcvx.verification.symbolic import Failed, loss_facts
from dpcvx.verification.validated import InfBound, Smoothness, SupBound


def third(z):
    """logistic(-z/3): L = 1/3, c = 1/36, proved by sympy in well under a second."""
    return cp.logistic(-z / 3)


def fifth(z):
    return cp.logistic(-z / 5)


def require_shipped_catalogue():
    """Skip a test of the shipped catalogue where it does not apply: the catalogue is written for one dpcvx and
    one CVXPY version (proof_cache.shipped_data), and with another CVXPY (e.g. the declared minimum, in CI's
    minimum-versions job) dpcvx ignores it and proves every loss afresh, which the other tests cover."""
    if not proof_cache.shipped_data():
        written = json.loads(proof_cache.SHIPPED.read_text()).get("cvxpy_version")
        pytest.skip(f"the shipped proof catalogue was written with CVXPY {written}; installed "
                    f"{proof_cache.installed_version('cvxpy')}: dpcvx does not use it here")


class Prover:
    """Stands in for deadline.run: runs the prover in this process and counts the calls."""

    def __init__(self, fail: bool = False):
        self.calls: list[str] = []
        self.fail = fail

    def __call__(self, function, args=(), *, seconds, on_item=None, count_startup=False, spare=False):
        self.calls.append(function.__name__)
        if self.fail:
            raise AssertionError(f"{function.__name__} was proved again, not served from the cache")
        result = deadline.DeadlineResult()
        for item in function(*args):
            result.items.append(item)
            if on_item is not None:
                on_item(item)
        result.finished = True
        return result


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache directory and an empty in-memory verifier cache; yields the directory."""
    monkeypatch.setenv(proof_cache.ENVIRONMENT, str(tmp_path / "cache"))
    monkeypatch.setattr(verifier, "_LOSS_CACHE", {})
    return tmp_path / "cache"


def prove(monkeypatch, loss, fail=False, records=False):
    """Verify ``loss`` afresh in this process (the in-memory cache emptied); (certificate, prover).

    ``records=False`` looks up no verified-loss record (tests/verification/test_loss_record.py tests
    those), so that the prover cache answers or the prover runs.
    """
    prover = Prover(fail)
    monkeypatch.setattr(deadline, "run", prover)
    if not records:
        monkeypatch.setattr(loss_record, "lookup", lambda key, seconds: None)
    monkeypatch.setattr(verifier, "_LOSS_CACHE", {})
    return verifier.verify_problem(loss, dim=3).certificate, prover


def entry_files(directory):
    return sorted((directory / "proofs").glob("*.json"))


@pytest.mark.slow
def test_cached_verification_gives_the_same_certificate_without_proving(cache, monkeypatch):
    fresh, prover = prove(monkeypatch, third)
    assert prover.calls == ["loss_facts"] and len(entry_files(cache)) == 1
    cached, _ = prove(monkeypatch, third, fail=True)
    assert cached == fresh and str(cached) == str(fresh)
    assert cached.curvature == sp.Rational(1, 36) and cached.lipschitz == sp.Rational(1, 3)
    problem = verifier.verify_problem(third, dim=3)
    z = np.linspace(-30.0, 30.0, 7)
    np.testing.assert_allclose(problem.loss.derivatives.second(z), np.exp(-z / 3) / (9 * (1 + np.exp(-z / 3)) ** 2))


def tamper(path, old, new):
    stored = json.loads(path.read_text())
    text = json.dumps(stored["entry"])
    assert old in text
    stored["entry"] = json.loads(text.replace(old, new))
    path.write_text(json.dumps(stored))
    return stored


@pytest.mark.slow
def test_an_edited_entry_is_refused_and_proved_again(cache, monkeypatch):
    fresh, _ = prove(monkeypatch, third)
    (path,) = entry_files(cache)
    stored = tamper(path, "Rational(1, 36)", "Rational(1, 72)")  # a curvature half the true one
    # the edit is well formed: without the HMAC check it would certify c = 1/72
    facts = dict(proof_replay.Entry.from_data(stored["entry"]).items)
    assert facts["sup2"] == sp.Rational(1, 72)
    again, prover = prove(monkeypatch, third)
    assert prover.calls == ["loss_facts"]
    assert again == fresh and again.curvature == sp.Rational(1, 36)
    served, _ = prove(monkeypatch, third, fail=True)  # the proof written over the edit is trusted again
    assert served == fresh


@pytest.mark.slow  # about 3.5 s (proves the other expression afresh): the slow tier runs it
def test_an_entry_of_another_expression_is_refused(cache, monkeypatch):
    prove(monkeypatch, third)
    (third_path,) = entry_files(cache)
    fresh_fifth, _ = prove(monkeypatch, fifth)
    (fifth_path,) = [path for path in entry_files(cache) if path != third_path]
    shutil.copyfile(third_path, fifth_path)  # logistic(-z/3)'s valid entry where logistic(-z/5)'s belongs
    again, prover = prove(monkeypatch, fifth)
    assert prover.calls == ["loss_facts"]
    assert again == fresh_fifth and again.curvature == sp.Rational(1, 100)


@pytest.mark.slow  # about 2 s: fresh processes
def test_an_entry_of_other_code_or_versions_is_refused(cache, monkeypatch):
    current = proof_cache.fingerprint()
    monkeypatch.setattr(proof_cache, "fingerprint", lambda: {**current, "sources": "0" * 64})
    prove(monkeypatch, third)
    (stale_path,) = entry_files(cache)
    tamper(stale_path, "Rational(1, 36)", "Rational(1, 72)")
    stored = json.loads(stale_path.read_text())  # re-signed: the stale entry's own HMAC is valid
    secret = (cache / "hmac.key").read_bytes()
    stored["mac"] = proof_cache._mac(secret, stored["key"], stored["entry"])
    stale_path.write_text(json.dumps(stored))
    monkeypatch.setattr(proof_cache, "fingerprint", lambda: current)
    again, prover = prove(monkeypatch, third)  # not found under the current code's key
    assert prover.calls == ["loss_facts"] and again.curvature == sp.Rational(1, 36)
    (current_path,) = [path for path in entry_files(cache) if path != stale_path]
    os.replace(stale_path, current_path)  # the stale entry, validly signed, at the current key's file
    again, prover = prove(monkeypatch, third)
    assert prover.calls == ["loss_facts"] and again.curvature == sp.Rational(1, 36)


@pytest.mark.slow  # about 3 s: the refused entry is proved again
def test_an_entry_signed_by_another_installation_is_refused(cache, tmp_path, monkeypatch):
    prove(monkeypatch, third)
    other = tmp_path / "other"
    monkeypatch.setenv(proof_cache.ENVIRONMENT, str(other))
    fresh, prover = prove(monkeypatch, fifth)  # creates the other installation's own key
    shutil.copytree(cache / "proofs", other / "proofs", dirs_exist_ok=True)
    assert (other / "hmac.key").read_bytes() != (cache / "hmac.key").read_bytes()
    again, prover = prove(monkeypatch, third)
    assert prover.calls == ["loss_facts"] and again.curvature == sp.Rational(1, 36)


@pytest.mark.slow
def test_a_key_file_others_can_read_turns_the_disk_cache_off(cache, monkeypatch, caplog):
    prove(monkeypatch, third)
    os.chmod(cache / "hmac.key", 0o644)
    monkeypatch.setattr(proof_cache, "_SECRETS", {})
    again, prover = prove(monkeypatch, third)
    assert prover.calls == ["loss_facts"] and again.curvature == sp.Rational(1, 36)
    assert "mode 0600" in caplog.text
    assert (cache.stat().st_mode & 0o077) == 0 and len(entry_files(cache)) == 1


@pytest.mark.slow
def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv(proof_cache.ENVIRONMENT, "off")
    prove(monkeypatch, third)
    again, prover = prove(monkeypatch, third)
    assert prover.calls == ["loss_facts"] and again.curvature == sp.Rational(1, 36)
    assert proof_cache.cache_directory() is None


def test_an_empty_cache_setting_means_the_default_directory(monkeypatch, tmp_path):
    monkeypatch.setenv(proof_cache.ENVIRONMENT, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert proof_cache.cache_directory() == tmp_path / "dpcvx"


def cut_short(function, args=(), *, seconds, on_item=None, count_startup=False, spare=False):
    items = [("domain", ())]
    return deadline.DeadlineResult(items=items, timed_out=True, error=f"did not finish within {seconds:g} s")


@pytest.mark.slow
def test_a_result_cut_short_serves_only_calls_with_no_larger_time_limit(cache, monkeypatch):
    z = sp.Symbol("z", real=True)
    args = (sp.log(1 + sp.exp(-z / 7)), z, ())
    monkeypatch.setattr(deadline, "run", cut_short)
    first = proof_replay.run(loss_facts, args, seconds=1.0)
    assert first.timed_out and len(entry_files(cache)) == 1
    monkeypatch.setattr(deadline, "run", Prover(fail=True))
    replay = proof_replay.run(loss_facts, args, seconds=0.5)
    assert replay.timed_out and not replay.finished and replay.items == [("domain", ())]
    prover = Prover()
    monkeypatch.setattr(deadline, "run", prover)
    longer = proof_replay.run(loss_facts, args, seconds=30.0)  # a larger limit proves again
    assert prover.calls == ["loss_facts"] and longer.finished
    assert dict(longer.items)["sup2"] == sp.Rational(1, 196)


def test_a_failed_worker_is_not_cached(cache, monkeypatch):
    z = sp.Symbol("z", real=True)
    args = (sp.log(1 + sp.exp(-z / 7)), z, ())
    monkeypatch.setattr(deadline, "run", lambda *a, **k: deadline.DeadlineResult(error="the worker process died"))
    assert not proof_replay.run(loss_facts, args, seconds=5.0).finished
    assert entry_files(cache) == []


def test_a_call_whose_worker_had_not_started_is_not_cached(cache, monkeypatch):
    """A call of a verification's budget that ran out while its worker was still starting computed nothing: it is
    not kept as a result cut short (a later call with a running worker may prove it within the same limit)."""
    z = sp.Symbol("z", real=True)
    args = (sp.log(1 + sp.exp(-z / 7)), z, ())
    unstarted = deadline.DeadlineResult(timed_out=True, unstarted=True, error="did not finish within 0.3 s (the "
                                        "worker process was still starting)")
    monkeypatch.setattr(deadline, "run", lambda *a, **k: unstarted)
    assert proof_replay.run(loss_facts, args, seconds=0.3, count_startup=True).timed_out
    assert entry_files(cache) == []


@pytest.mark.slow
def test_every_shipped_entry_is_proved_again_by_the_provers():
    shipped = json.loads(proof_cache.SHIPPED.read_text())["entries"]
    assert len(shipped) == len(catalogue.shipped_losses())  # one symbolic proof per shipped loss
    for record in shipped:
        key = json.loads(record["key"])
        function, arity = proof_replay.provers()[key["prover"]]
        args = decode(key["args"])
        assert len(args) == arity
        extra = (None,) * (function.__code__.co_argcount - arity)  # no time limit
        entry = proof_replay.Entry.from_data(record["entry"])
        assert entry.finished and entry.limit is None
        assert same(tuple(function(*args, *extra)), entry.items), key["args"]


@pytest.mark.parametrize("loss", catalogue.catalogue_losses(), ids=repr)
def test_the_catalogue_verifies_without_the_worker(loss, monkeypatch, tmp_path):
    require_shipped_catalogue()
    monkeypatch.setenv(proof_cache.ENVIRONMENT, "off")
    certificate, _ = prove(monkeypatch, loss, fail=True)
    assert certificate.method("lipschitz") == "symbolic"
    expected = {"logistic": sp.Rational(1, 4), "huber_hinge": sp.Rational(1), "huber_regression": 1,
                "squared_error": 1}[loss.name]
    assert certificate.curvature == expected


def test_a_loss_of_the_catalogue_at_other_parameters_is_proved(monkeypatch, cache):
    certificate, prover = prove(monkeypatch, losses.huber_hinge(0.25))
    assert prover.calls == ["loss_facts"] and certificate.curvature == 2


def test_the_codec_round_trips_the_provers_results():
    z = sp.Symbol("z", real=True)
    values = (
        Failed("no root"), SupBound(1.0000000000000002, 0.9999, 812, True), InfBound(-0.0, None, 4, "x"),
        SupBound(float("inf"), float("nan"), 1, False), Smoothness(True, "C^2", None, sp.exp(-z) / 3),
        Smoothness(False, "kink", (0.5, 0.75)), sp.Piecewise((z**2, z < 1), (2 * z - 1, True)),
        sp.oo, sp.S.EmptySet, sp.Float("0.1", 53), [1, None, "a", True],
    )
    text = json.dumps(encode(values))
    assert same(decode(json.loads(text)), values)
    assert not same(decode(json.loads(text.replace("0.9999", "0.5"))), values)
