"""A verifier worker that crashed is no verdict on the loss: nothing of that analysis is cached, in the process or
on disk, and the next verification proves again.

Audit: a worker killed mid-proof (out of memory, a segfault, SIGKILL) left the analysis cached in the process as
complete ("sympy failed: the worker process died") and written to the on-disk proof cache as a complete record, so
neither that process nor any later one tried again; the certificate fell back to estimates soundly, but for good.
"""

from __future__ import annotations

import os
import signal

import cvxpy as cp
import pytest

from dpcvx.verification import deadline, loss_analysis, loss_record, proof_replay, verifier


def seventh(z):
    """logistic(-z/7): sympy proves it in well under a second (L = 1/7, c = 1/196)."""
    return cp.logistic(-z / 7)


def _die() -> None:
    """Run in the worker: the worker process is killed, as the kernel kills a process out of memory."""
    os.kill(os.getpid(), signal.SIGKILL)


class Crashing:
    """Stands in for proof_replay.run: the first ``crashes`` prover calls end as a killed worker's call ends
    (``DeadlineResult(error="the worker process died")``, what deadline.run returns then); later calls are proved
    in this process, as a worker would."""

    def __init__(self, crashes: int):
        self.crashes = crashes
        self.calls: list[str] = []

    def __call__(self, function, args=(), *, seconds, on_item=None, count_startup=False, spare=False):
        self.calls.append(function.__name__)
        if len(self.calls) <= self.crashes:
            return deadline.DeadlineResult(error="the worker process died")
        result = deadline.DeadlineResult(finished=True)
        for item in function(*args):
            result.items.append(item)
            if on_item is not None:
                on_item(item)
        return result


def _record(loss):
    variable, expression = verifier.declared_loss(loss)
    key = verifier._structural_key(expression)
    return key, loss_record.lookup(loss_record.record_key(key), 1e9)


@pytest.mark.slow
def test_a_crashed_worker_is_not_cached_and_the_next_verification_proves_again(monkeypatch):
    verifier.forget_losses()
    crashing = Crashing(crashes=2)  # sympy's call and the validated bounds' call of the first verification
    monkeypatch.setattr(loss_analysis.proof_replay, "run", crashing)
    first = verifier.verify_loss(seventh)
    assert crashing.calls == ["loss_facts", "validated_facts"]
    curvature = {item.name: item for item in first.conditions}["curvature"]
    assert curvature.method == "estimate" and "the worker process died" in curvature.detail
    key, record = _record(seventh)
    assert key not in verifier._LOSS_CACHE and record is None  # neither in this process nor on disk
    again = verifier.verify_loss(seventh)  # proved again: sympy settles it
    assert crashing.calls[2] == "loss_facts"
    conditions = {item.name: item for item in again.conditions}
    assert conditions["curvature"].method == "symbolic"
    assert float(conditions["curvature"].value) == pytest.approx(1 / 196)
    assert key in verifier._LOSS_CACHE and _record(seventh)[1] is not None
    verifier.forget_losses()


@pytest.mark.slow  # a worker's start-up (2 to 8 s)
def test_a_worker_killed_mid_call_reports_a_crash_that_is_not_stored():
    """The real machinery: the worker process is killed by SIGKILL while it runs the call; the call reports that the
    worker died (not a time-out, not finished), the proof cache stores nothing, and the next call gets a new
    worker."""
    result = deadline.run(_die, (), seconds=60)
    assert not result.finished and not result.timed_out and result.error == "the worker process died"
    assert proof_replay.Entry.of(result, 60) is None
    again = deadline.run(divmod, (7, 2), seconds=60)
    assert again.finished and again.items == [(3, 1)] and again.pid != result.pid
