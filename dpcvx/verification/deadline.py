"""Run a computation in a worker process with a deadline.

sympy can take arbitrarily long, and Python cannot interrupt a thread. A
signal alarm (SIGALRM) works only in the main thread and takes over the
caller's own timer, so the verifier runs its symbolic and validated analysis
in a separate worker process instead:

* The worker is a fresh interpreter (``python -m dpcvx.verification.deadline``, the
  equivalent of multiprocessing's "spawn": nothing is forked, so it is safe
  in threaded programs, and unlike "spawn" it never re-imports the caller's
  ``__main__``). It is started lazily on first use and reused: the start-up
  (importing sympy) is paid once, and it does not count towards a deadline
  unless the caller asks (``count_startup``: any start-up but the first of the
  process, in a :class:`Budget`).
* Each call sends a picklable top-level function and its arguments. The
  function may be a generator: each item it yields is sent back at once, so a
  caller that hits the deadline still has every item finished before it.
* When the deadline passes (or the worker dies), the worker is killed (its own
  process, by its handle) and a replacement is started at once in the
  background, so that the next call finds it started, or part of the way.
  Calls from several threads at once each get their own worker from a small
  pool.
* A :class:`Budget` is one deadline shared by several calls (a verification's
  ``time_limit``): each call gets what is left, and only the first start-up of
  a worker in the process is not counted, so the calls together end within the
  budget, plus that one start-up in the first budget that waits for it. (Each
  budget's first start-up was free: a verification after one cut short waited
  for a whole new start-up beyond its limit, every time.) A call that another
  follows if it is cut short (sympy, then the validated bounds) asks for a
  ``spare`` worker, started alongside it, so that the next call does not spend
  its time waiting for a start-up.
* No signal handler or timer of the calling process is touched.
* A worker never outlives its caller: it exits within ``PARENT_POLL_SECONDS`` once the process that started it is
  gone, even mid-computation (a caller killed by SIGTERM or SIGKILL cannot kill its worker first; such a worker
  had kept computing for an hour, reparented to init).
* A worker that cannot start (no usable interpreter: an embedded Python whose
  ``sys.executable`` is not Python, a sandbox without ``fork``/``exec``), or that
  dies or hangs while starting, makes the call fail (``error`` says why): the
  function never runs in the caller's thread, where no deadline could stop it
  (it did, unbounded: a pathological loss hung the caller). The failed start-up
  is the process's one uncounted start-up (:func:`started_here`): every later
  one counts against a :class:`Budget`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

__all__ = ["Budget", "DeadlineResult", "run", "shutdown", "started_here", "STARTUP_SECONDS",
           "MIN_CALL_SECONDS"]

STARTUP_SECONDS = 180.0  # the longest wait for the process's first start-up (the only one not counted)
MIN_CALL_SECONDS = 0.05  # less time left than this in a Budget: its callers start no call
_MAX_IDLE = 4
PARENT_POLL_SECONDS = 1.0


@dataclass
class DeadlineResult:
    """What a worker call produced.

    ``items`` holds every item yielded (or the single return value) before the
    end; ``finished`` is False when the deadline passed or the worker failed,
    and ``error`` then says why ("did not finish within N s", or the worker's
    exception). ``startup`` is how long the call waited for its worker to start
    (0 for a worker already running), ``seconds`` how long it ran after;
    ``unstarted`` says the deadline passed while the worker was still starting
    (``count_startup``): nothing was computed.
    """

    items: list[Any] = field(default_factory=list)
    finished: bool = False
    error: str = ""
    timed_out: bool = False
    seconds: float = 0.0
    startup: float = 0.0
    unstarted: bool = False
    pid: int | None = None


class _Worker:
    def __init__(self) -> None:
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        # the caller's import path, so the worker imports the same dpcvx and can unpickle
        # functions of the caller's modules
        path = [package_root] + [entry for entry in sys.path if entry and os.path.isdir(entry)]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(path))
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dpcvx.verification.deadline"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # a Ctrl-C in the terminal reaches the caller, not the worker
        )
        if self.process.stdin is None or self.process.stdout is None:  # pragma: no cover - PIPE gives both
            raise OSError("the worker process has no pipes")
        self.requests: IO[bytes] = self.process.stdin
        self.replies: IO[bytes] = self.process.stdout
        self.owner = os.getpid()  # a forked child of the caller must not share this worker
        self.messages: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.ready = False

    def _read(self) -> None:
        try:
            while True:
                self.messages.put(pickle.load(self.replies))
        except Exception:  # noqa: BLE001 - EOF or a dead worker ends the stream
            self.messages.put(("closed",))

    def wait_ready(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the worker to start: False if it is still starting, RuntimeError if it
        failed."""
        global _STARTED_IN
        try:
            message = self.messages.get(timeout=seconds)
        except queue.Empty:
            return False
        _STARTED_IN = os.getpid()  # the process's uncounted start-up is spent, whether the worker started or died
        if message != ("ready",):
            raise RuntimeError("the verifier's worker process died while starting")
        self.ready = True
        return True

    def send(self, message: Any) -> None:
        pickle.dump(message, self.requests, protocol=pickle.HIGHEST_PROTOCOL)
        self.requests.flush()

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # cannot happen: SIGKILL is not ignorable
            self.process.wait(timeout=10)
        for stream in (self.requests, self.replies):
            with contextlib.suppress(Exception):  # a pipe of a dead process may fail to flush on close
                stream.close()


_IDLE: list[_Worker] = []
_LOCK = threading.Lock()
_JOBS = iter(range(1, sys.maxsize))
_STARTED_IN: int | None = None  # the process (its pid) in which a worker has started: later start-ups are counted


def started_here() -> bool:
    """Whether a worker of this process has started, or died or hung while starting: the process's one uncounted
    start-up is spent (a forked child has started none of its own)."""
    return os.getpid() == _STARTED_IN


def _acquire() -> _Worker:
    """An idle worker of this process, one that has started if any has, else the one started first; a new one if
    none is idle. A worker that died (while starting, too: its message said so before the process was reaped, when
    ``alive`` still held) is dropped; it raised a bare RuntimeError out of the verification before, about 2 times in
    120 on a loaded machine (a test-suite probe, sixtieth session)."""
    with _LOCK:
        _IDLE[:] = [worker for worker in _IDLE if worker.owner == os.getpid()]  # inherited through fork: left be
        ready = []
        for worker in list(_IDLE):
            try:
                started = worker.alive() and (worker.ready or worker.wait_ready(0.0))
            except RuntimeError:  # died while starting
                started = None
            if started is None or not worker.alive():
                _IDLE.remove(worker)
                worker.kill()
            elif started:
                ready.append(worker)
        if _IDLE:
            worker = (ready or _IDLE)[-1 if ready else 0]
            _IDLE.remove(worker)
            return worker
    return _Worker()


def _release(worker: _Worker) -> None:
    with _LOCK:
        if len(_IDLE) < _MAX_IDLE and worker.alive():
            _IDLE.append(worker)
            return
    worker.kill()


def _start_spare() -> None:
    """Start a worker into the idle pool unless one is there (it starts in the background; no wait)."""
    with _LOCK:
        if any(worker.owner == os.getpid() and worker.alive() for worker in _IDLE):
            return
        try:
            _IDLE.append(_Worker())
        except OSError:  # no interpreter: the next call falls back as it would have
            return


def shutdown() -> None:
    """Stop the idle workers (they are restarted on the next call)."""
    with _LOCK:
        workers, _IDLE[:] = list(_IDLE), []
    for worker in workers:
        if worker.owner == os.getpid():
            worker.kill()


atexit.register(shutdown)


def run(function: Callable[..., Any], args: tuple[Any, ...] = (), *, seconds: float | None,
        on_item: Callable[[Any], None] | None = None, count_startup: bool = False,
        spare: bool = False) -> DeadlineResult:
    """Run ``function(*args)`` in a worker process, for at most ``seconds``.

    ``function`` must be a picklable top-level function; its arguments and
    results must pickle. A generator's items are streamed (``on_item`` is
    called on each, in this thread). Never raises for a slow or failing
    computation, nor for a worker that cannot start or dies while starting: the result says what happened, and
    ``function`` then did not run at all. ``seconds=None`` waits forever.
    A worker's start-up is not counted in ``seconds`` unless ``count_startup``:
    the whole call then ends within ``seconds``, and a worker still starting at
    the end is kept for the next call. ``spare`` starts a second worker in the
    background when none is idle, for a call that follows this one if it is cut
    short (its own worker is then killed): that call need not wait for a whole
    start-up.
    """
    try:
        worker = _acquire()
    except OSError as error:  # no usable interpreter (an embedded Python, say)
        return _unstartable(f"cannot start a worker process: {error}")
    if spare and seconds is not None:
        _start_spare()
    result = DeadlineResult(pid=worker.process.pid)
    called = time.monotonic()
    counted = count_startup and seconds is not None
    patience = min(seconds, STARTUP_SECONDS) if counted and seconds is not None else STARTUP_SECONDS
    try:
        started = worker.ready or worker.wait_ready(0.0)  # a worker that started while idle did not keep us
        if not started:
            started = worker.wait_ready(patience)
            result.startup = time.monotonic() - called
        if not started and counted:
            result.timed_out, result.unstarted = True, True
            result.error = f"did not finish within {seconds:g} s (the worker process was still starting)"
            _release(worker)  # kept starting, for the next call
            return result
        if not started:
            raise RuntimeError(f"the verifier's worker process did not start within {STARTUP_SECONDS:g} s")
        with _LOCK:
            job = next(_JOBS)
        worker.send((job, function, args))
    except Exception as error:  # noqa: BLE001 - a worker that died or hung while starting, or a broken pipe
        worker.kill()
        failed = _unstartable(f"worker process unavailable: {error}")
        failed.pid, failed.startup = result.pid, time.monotonic() - called
        return failed
    start = time.monotonic()
    deadline = None if seconds is None else (called if counted else start) + seconds
    healthy = False
    try:
        while True:
            timeout = None if deadline is None else min(max(0.0, deadline - time.monotonic()),
                                                         threading.TIMEOUT_MAX)
            try:
                message = worker.messages.get(timeout=timeout)
            except queue.Empty:
                result.timed_out = True
                result.error = f"did not finish within {seconds:g} s"
                break
            kind = message[0]
            if kind == "closed":
                result.error = "the worker process died"
                break
            if message[1] != job:  # a stale message; cannot happen with one job at a time
                continue
            if kind == "item":
                result.items.append(message[2])
                if on_item is not None:
                    on_item(message[2])
            elif kind == "done":
                result.finished, healthy = True, True
                break
            elif kind == "error":
                result.error, healthy = message[2], True
                break
    finally:
        result.seconds = time.monotonic() - start
        if healthy:
            _release(worker)
        else:
            worker.kill()
            _start_spare()  # for the next call: a verification after one cut short need not wait a whole start-up
    return result


class Budget:
    """One deadline shared by several calls of :func:`run`: a verification's ``time_limit``.

    Each call gets what is left (:meth:`left`) and reports back (:meth:`spent`). The first start-up of a worker in
    the process (importing sympy: a few seconds, once per process; at most :data:`STARTUP_SECONDS`, after which the
    call fails), when a call of this budget waits for it, is not counted: the deadline moves by it. Any other (a
    worker killed at a deadline is replaced, in the background, and a call may find its replacement still starting;
    a worker started again after one died while starting) is counted (:attr:`count_startup`). ``reserve`` seconds
    before the deadline are kept for the caller's own work after the calls: :meth:`left` is the time left for calls.
    The calls together therefore end ``reserve`` before ``seconds`` have passed, plus, in the first budget of the
    process that waits for a worker, one start-up.
    """

    def __init__(self, seconds: float, reserve: float = 0.0) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.reserve = reserve
        self.count_startup = started_here()

    def left(self) -> float:
        """Seconds left for calls: before the deadline, less the reserve (0 once that time has passed)."""
        return max(0.0, self.end - self.reserve - time.monotonic())

    def spent(self, result: DeadlineResult) -> None:
        """Account for a finished call: the process's first start-up, if it waited for it, moves the deadline."""
        if not self.count_startup and result.startup > 0:
            self.end += result.startup
        self.count_startup = self.count_startup or result.startup > 0 or started_here()


def _unstartable(why: str) -> DeadlineResult:
    """The result of a call whose worker could not start: nothing ran (not in this thread either, where no deadline
    could stop it), and the process's uncounted start-up is spent."""
    global _STARTED_IN
    _STARTED_IN = os.getpid()
    return DeadlineResult(error=why)


# --- the worker side ----------------------------------------------------------------


def _exit_with_parent(parent: int) -> None:
    """Exit this worker once its parent is gone: os.getppid() then names another process (init, or a subreaper).
    A thread, so that it also ends a computation in progress (sympy runs Python code, which yields the GIL)."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(0)


def _serve() -> None:
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the channel
    requests = sys.stdin.buffer
    import sympy

    import dpcvx.verification.symbolic
    import dpcvx.verification.validated  # noqa: F401

    try:  # the start-up cost (imports, sympy's caches), paid before "ready", outside any deadline
        z = sympy.Symbol("z", real=True)
        list(dpcvx.verification.symbolic.loss_facts(sympy.Max(0, 1 - z) + sympy.log(1 + sympy.exp(-z)), z, ()))
    except Exception:  # noqa: BLE001 - a warm-up only
        pass

    def send(message: tuple[Any, ...]) -> None:
        pickle.dump(message, channel, protocol=pickle.HIGHEST_PROTOCOL)
        channel.flush()

    send(("ready",))
    while True:
        try:
            job, function, args = pickle.load(requests)
        except EOFError:
            return
        try:
            value = function(*args)
            if hasattr(value, "__next__"):
                for item in value:
                    send(("item", job, item))
            else:
                send(("item", job, value))
            send(("done", job))
        except Exception as error:  # noqa: BLE001 - reported to the caller
            text = "".join(traceback.format_exception_only(type(error), error)).strip()
            send(("error", job, text))


if __name__ == "__main__":
    _serve()
