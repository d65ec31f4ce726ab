"""The verifier's time limit: a worker process with a deadline, in any thread, signals untouched."""

import importlib
import os
import signal
import threading
import time

import cvxpy as cp
import pytest

import dpcvx
from dpcvx.verification import deadline

verify_module = importlib.import_module("dpcvx.verification.verifier")

# sympy cannot settle the curvature of these (a steep logistic step near z0): it runs
# into the time limit, and the validated bounds take over.
STEP = 1e-3


def hard_loss(z0: float):
    def loss(z):
        return cp.logistic(-z) + STEP * cp.logistic((z - z0) / STEP)

    return loss


@pytest.mark.slow  # 3 to 8 s (default run kept within 5 minutes); CI's slow tier runs it
def test_slow_call_is_killed_at_its_deadline_and_the_next_call_works():
    start = time.monotonic()
    slow = deadline.run(time.sleep, (60,), seconds=0.5)
    assert slow.timed_out and not slow.finished
    assert "did not finish within 0.5 s" in slow.error
    assert 0.5 <= slow.seconds < 5 and time.monotonic() - start < 60
    with pytest.raises(ProcessLookupError):  # the worker was killed and reaped
        os.kill(slow.pid, 0)
    again = deadline.run(divmod, (17, 5), seconds=30)
    assert again.finished and again.items == [(3, 2)]
    assert again.pid != slow.pid


@pytest.mark.slow
def test_worker_errors_are_reported_not_raised():
    result = deadline.run(int, ("not a number",), seconds=30)
    assert not result.finished and not result.timed_out
    assert "ValueError" in result.error


@pytest.mark.slow  # about 2 s: waits out a deadline
def test_generator_items_before_the_deadline_are_kept():
    seen = []
    result = deadline.run(_count_then_sleep, (3, 60), seconds=2.0, on_item=seen.append)
    assert result.timed_out and result.items == [0, 1, 2] and seen == [0, 1, 2]


def _count_then_sleep(count: int, seconds: float):
    yield from range(count)
    time.sleep(seconds)


@pytest.mark.slow
def test_verify_keeps_the_callers_alarm_handler_and_timer():
    fired = []

    def handler(signum, frame):
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 1000.0)
    try:
        cert = dpcvx.verify(hard_loss(0.4171), time_limit=1.0)
        assert isinstance(cert, dpcvx.Certificate)
        assert signal.getsignal(signal.SIGALRM) is handler
        remaining, interval = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < remaining <= 1000.0 and interval == 0
        assert not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.slow
def test_verify_in_worker_threads_returns_within_a_bounded_time():
    shifts = (0.1237, 0.2377, 0.3517)
    results: dict[float, object] = {}

    def work(z0: float) -> None:
        results[z0] = dpcvx.verify(hard_loss(z0), time_limit=1.5)

    start = time.monotonic()
    threads = [threading.Thread(target=work, args=(z0,), daemon=True) for z0 in shifts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)
    assert not any(thread.is_alive() for thread in threads), "a verification hung"
    assert time.monotonic() - start < 240
    for z0 in shifts:
        cert = results[z0]
        assert isinstance(cert, dpcvx.Certificate)
        curvature = cert.condition("curvature")
        # sympy ran out of time in each thread; the curvature is proved by the validated route
        # (or, if the machine is too slow even for that, refused as an estimate)
        assert curvature.method in ("symbolic", "validated", "estimate")
        if curvature.method == "estimate":
            assert not cert.allows("objective")
        else:
            assert float(cert.curvature) >= 0.25 / STEP


@pytest.mark.slow  # 3 to 8 s (default run kept within 5 minutes); CI's slow tier runs it
def test_timed_out_analysis_is_reported_and_not_cached():
    loss = hard_loss(0.5813)
    cert = dpcvx.verify(loss, time_limit=0.5)
    details = " ".join(item.detail for item in cert.conditions)
    assert "time limit (time_limit = 0.5 s)" in details
    variable = cp.Variable()
    key = verify_module._structural_key(loss(variable))
    assert key not in verify_module._LOSS_CACHE


@pytest.mark.slow  # 3 to 8 s (default run kept within 5 minutes); CI's slow tier runs it
def test_cache_by_structure_still_works():
    first = dpcvx.verify(lambda z: cp.logistic(-z / 5), time_limit=30)
    start = time.perf_counter()
    again = dpcvx.verify(lambda z: cp.logistic(-z / 5), time_limit=30)
    assert time.perf_counter() - start < 0.05
    assert again.curvature == first.curvature == dpcvx.verify(lambda z: cp.logistic(-z / 5)).curvature


@pytest.mark.slow  # 3 to 7 s: the default run is kept within 5 minutes; CI's slow tier runs it
def test_progress_is_shown(capsys, caplog):
    caplog.set_level("INFO", logger="dpcvx.verify")
    dpcvx.verify(lambda z: cp.logistic(-z / 11), progress=True, time_limit=30)
    shown = capsys.readouterr().err + caplog.text
    assert "verify" in shown and "sympy" in shown


def _startup_seconds() -> float:
    """How long a worker takes to start on this machine now (every idle worker is stopped first and after)."""
    deadline.shutdown()
    start = time.monotonic()
    assert deadline.run(divmod, (7, 2), seconds=30).finished
    deadline.shutdown()
    return time.monotonic() - start


@pytest.mark.slow  # three verifications and two worker start-ups: 15 to 40 s
@pytest.mark.timing
def test_time_limit_bounds_the_whole_verification(monkeypatch):
    """Audit: time_limit bounded each worker call, and a call past its deadline restarted the worker (importing sympy
    again), so verify(time_limit=2) took 21 to 46 s. sympy cannot settle this loss within the limit. The first
    verification of a process returns within time_limit plus one worker start-up (the process's first, not counted);
    every later one within time_limit plus the caller's own work (a second audit: each later verification of such a
    loss waited for a whole new start-up beyond its limit, since each budget's first start-up was free and the
    workers of the call before had been killed). What it did not prove is not certified as proved, nor cached."""
    limit = 3.0
    startup = _startup_seconds()
    monkeypatch.setattr(deadline, "_STARTED_IN", None, raising=False)  # as in a new process: no worker started yet
    elapsed = []
    for z0 in (0.7219, 0.6143, 0.5521):
        loss = hard_loss(z0)
        start = time.monotonic()
        cert = dpcvx.verify(loss, time_limit=limit)
        elapsed.append(time.monotonic() - start)
        curvature = cert.condition("curvature")
        if curvature.method == "estimate":  # not proved in time: refused
            assert not cert.allows("objective")
        else:  # proved by the validated bounds in time: an upper bound of the true c
            assert curvature.method == "validated" and float(cert.curvature) >= 0.25 / STEP
        assert "time_limit = 3 s" in " ".join(item.detail for item in cert.conditions)
        assert verify_module._structural_key(loss(cp.Variable())) not in verify_module._LOSS_CACHE
    startup = max(startup, _startup_seconds())
    # the first: one start-up (a spare worker starts alongside it, so it can take longer than alone) and the caller's
    # own work; before, two calls of time_limit each and two start-ups: at least 2 * limit + 2 * startup
    assert elapsed[0] < limit + 1.5 * startup + 2.0, (elapsed, startup)
    # the later ones: no start-up beyond the limit (before: at least limit + startup each)
    assert max(elapsed[1:]) < limit + 0.5 * startup + 0.5, (elapsed, startup)


@pytest.mark.slow  # a worker start-up (3 to 8 s) continues in the background
def test_a_budget_counts_a_restart_and_keeps_the_worker_it_waited_for(monkeypatch):
    """Only the first start-up of a worker in the process is free; a later one counts against a budget's deadline,
    and a worker still starting when the time runs out is kept for the next call (not killed and started again)."""
    deadline.shutdown()
    monkeypatch.setattr(deadline, "_STARTED_IN", None, raising=False)  # as in a new process: no worker started yet
    budget = deadline.Budget(0.5)
    assert not budget.count_startup
    first = deadline.run(divmod, (7, 2), seconds=budget.left(), count_startup=budget.count_startup)
    budget.spent(first)
    assert first.finished and first.startup > 0 and budget.count_startup
    assert deadline.started_here() and deadline.Budget(0.5).count_startup  # a new budget counts every start-up
    deadline.shutdown()  # the next call must start a worker again
    start = time.monotonic()
    second = deadline.run(divmod, (7, 2), seconds=0.3, count_startup=budget.count_startup)
    assert time.monotonic() - start < 1.5
    assert second.timed_out and second.unstarted and not second.finished and "still starting" in second.error
    again = deadline.run(divmod, (7, 2), seconds=60)
    assert again.finished and again.pid == second.pid  # the same worker, once it had started


@pytest.mark.slow  # three worker start-ups and a wait for one (10 to 30 s)
def test_a_worker_killed_at_its_deadline_is_replaced_at_once():
    """The worker of a call cut short is killed and a replacement starts in the background right away, so that the
    next call, some time later, finds it started (and waits for no start-up)."""
    startup = _startup_seconds()
    assert deadline.run(divmod, (7, 2), seconds=60).finished  # one worker, started
    cut = deadline.run(time.sleep, (60,), seconds=0.2)
    assert cut.timed_out and cut.startup == 0
    time.sleep(2 * startup + 1.0)
    again = deadline.run(divmod, (7, 2), seconds=60, count_startup=True)
    assert again.finished and again.pid != cut.pid and again.startup == 0


@pytest.mark.slow  # two worker start-ups at once: 3 to 10 s
@pytest.mark.timing  # compares two start-up times: a second worker on a two-core machine would skew them
def test_a_spare_worker_serves_the_call_after_one_cut_short():
    """The worker of a call cut short is killed; with ``spare`` a second one starts alongside it, so the call that
    follows (the validated bounds after sympy, in a verification) does not wait for a whole start-up."""
    deadline.shutdown()
    first = deadline.run(time.sleep, (60,), seconds=0.5, spare=True)
    assert first.timed_out and first.startup > 0
    again = deadline.run(divmod, (7, 2), seconds=30, count_startup=True)
    assert again.finished and again.pid != first.pid
    assert again.startup < 0.5 * first.startup, (again.startup, first.startup)


def test_without_a_usable_interpreter_the_call_fails_and_runs_nothing_in_process(monkeypatch):
    """Audit: the call ran in the caller's thread, with no time limit (tests/verification/test_deadline_whole.py)."""
    deadline.shutdown()
    monkeypatch.setattr(deadline.sys, "executable", "/nonexistent/python")
    ran = []
    refused = deadline.run(ran.append, (1,), seconds=5)
    assert not refused.finished and "cannot start a worker process" in refused.error and ran == []


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.slow  # about 5 s (a worker's start-up); CI's slow tier runs it
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc (Linux)")
def test_a_worker_exits_when_its_caller_is_killed_mid_computation(tmp_path):
    """Audit: a caller killed by a signal (here SIGKILL) could not kill its worker, which kept computing for an hour,
    reparented to init. The worker now exits within PARENT_POLL_SECONDS of its caller. The call writes a file once it
    runs in the worker (so the caller is killed mid-computation, not during the worker's start-up)."""
    import subprocess
    import sys
    started = tmp_path / "started"
    caller = subprocess.Popen([sys.executable, "-c", "import os\nfrom dpcvx.verification import deadline\n"
                               f"deadline.run(os.system, ('touch {started}; sleep 60',), seconds=300)\n"])
    for _ in range(600):
        if started.exists():
            break
        time.sleep(0.1)
    workers = _children(caller.pid)
    assert started.exists() and len(workers) == 1
    caller.kill()
    caller.wait()
    for _ in range(100):
        if _state(workers[0]) in ("gone", "Z"):   # exited (a zombie until init reaps it)
            break
        time.sleep(0.1)
    else:
        os.kill(workers[0], signal.SIGKILL)
        pytest.fail("the worker outlived its caller by 10 s")
