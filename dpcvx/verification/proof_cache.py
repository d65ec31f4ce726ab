"""The proof cache: the verifier's worker results, kept so that a new process need not prove them again.

Every new process used to pay for the verifier's worker (a fresh interpreter importing
sympy, about 2.5 s) and the proof itself, even for the catalogue's logistic loss; a custom
loss that needs the validated route paid about 25 s. :func:`dpcvx.verification.proof_replay.run` stands in for
:func:`dpcvx.verification.deadline.run` for the two provers,
:func:`~dpcvx.verification.symbolic.loss_facts` and
:func:`~dpcvx.verification.validated.validated_facts`, and answers from, in order:

1. **The shipped catalogue** (``catalogue_proofs.json`` in this package): the results for
   the catalogue's losses at their default parameters, and the kernel learners' own losses
   (:data:`dpcvx.verification.kernel_loss.KERNEL_CATALOGUE`), written by
   :func:`dpcvx.verification.catalogue.write_catalogue`.
   It is part of the package and trusted like its code; a test proves every entry again
   with the provers and compares. It is used only by the dpcvx version that wrote it.
2. **The on-disk cache** (``$DPCVX_CACHE_DIR``, else ``$XDG_CACHE_HOME/dpcvx``, else
   ``~/.cache/dpcvx``; ``DPCVX_CACHE_DIR=off`` turns it off): one JSON file per result.
   An entry is used only when all of these hold, and is otherwise recomputed and rewritten:

   * its HMAC-SHA256, under a per-installation 32-byte secret key (``hmac.key`` beside the
     entries, created from OS entropy with mode 0600, refused if others can read it),
     verifies, so an edited entry, or one written by another installation, is refused;
   * the key it was written for equals the key asked for, in full, so an entry of another
     expression copied over this one is refused;
   * that key names the prover, the exact sympy form of its arguments (``srepr``) and the
     fingerprint of the code that proved it (the dpcvx version, a SHA-256 of every source
     file of ``dpcvx/verification`` and ``dpcvx/rounding.py``, and the sympy, mpmath, CVXPY and
     Python versions, read from the installed metadata), so an entry written by other code is
     stale and never found.

   The entry's text is evaluated (sympy's constructor form) only after these checks.
3. **The worker** (:func:`dpcvx.verification.deadline.run`), whose result is then stored.

The same storage (:func:`load_data`, :func:`store_data`, :func:`shipped_data`) keeps the
verifier's whole result for a loss, :mod:`dpcvx.verification.loss_record`, which a fit finds
without sympy, and the kernel learners' loss facts, :mod:`dpcvx.verification.kernel_record`.
This module is the storage: where entries live, their HMAC, the shipped file, and the
recording state while the catalogue is written; it imports nothing of the provers, the codec
or the verifier. :mod:`dpcvx.verification.proof_replay` keeps the provers' results in it,
:mod:`dpcvx.verification.catalogue` writes the shipped file.

What is stored is the prover's output, not the certificate: the verifier builds the
conditions from it by the same code as from a fresh result, so a cached verification
gives the same certificate as a fresh one. A result cut short by the time limit (sympy
not finished, or validated bounds stopped by the clock) is stored with that limit and is
used only by a call whose limit is no larger; a call with a larger limit proves again.
Replaying "sympy did not finish" is always sound: it certifies nothing, the verifier
falls back to the next route. A worker that died or failed is never stored.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
import sys
import tempfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

from ..version import __version__

__all__ = ["cache_directory", "fingerprint", "load_data", "store_data", "shipped_data", "stored", "recorded",
           "recording", "canonical", "installed_version", "Unencodable", "SHIPPED", "ENVIRONMENT"]

ENVIRONMENT = "DPCVX_CACHE_DIR"
SHIPPED = Path(__file__).with_name("catalogue_proofs.json")
_KEY_FILE = "hmac.key"
_KEY_BYTES = 32
_LOG = logging.getLogger("dpcvx.verify")


class Unencodable(TypeError):
    """A value with no exact text form (it is then not cached), or stored data that is malformed."""


def canonical(data: Any) -> str:
    """The one JSON text of ``data``: sorted keys, no spaces, ASCII (what keys and MACs are computed over)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


# --- the shipped catalogue -------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def shipped_data() -> dict[str, Any]:
    """The shipped catalogue file's JSON data (empty if absent, or written by another dpcvx or CVXPY version)."""
    try:
        data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("dpcvx_version") != __version__ or \
            data.get("cvxpy_version") != installed_version("cvxpy"):
        return {}
    return data


def stored(key: str, *, section: str, field: str, folder: str) -> Iterator[tuple[str, Any]]:
    """("shipped" or "disk", data) for ``key``, in that order: the shipped catalogue's ``section`` (its items'
    ``field``), then the disk's ``folder`` (HMAC-checked, :func:`load_data`); nothing while the catalogue is
    being written (its results are collected under the kind ``section`` then, never served)."""
    if recorded(section) is not None:
        return
    shipped = {item["key"]: item[field] for item in shipped_data().get(section, ())}.get(key)
    if shipped is not None:
        yield "shipped", shipped
    disk = load_data(key, folder)
    if disk is not None:
        yield "disk", disk


# --- the on-disk cache -------------------------------------------------------------------------


def cache_directory() -> Path | None:
    """Where the on-disk cache lives (None when ``DPCVX_CACHE_DIR=off``)."""
    chosen = os.environ.get(ENVIRONMENT, "").strip()  # empty counts as unset, never the working directory
    if chosen:
        return None if chosen.lower() == "off" else Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dpcvx"


@functools.lru_cache(maxsize=1)
def fingerprint() -> dict[str, str]:
    """What a proof depends on besides its input: the versions and a hash of the proving code's source."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    sources = sorted((package / "verification").rglob("*.py")) + [package / "rounding.py"]
    try:
        if len(sources) == 1:
            raise FileNotFoundError("no source files")
        for path in sources:
            digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
        code = digest.hexdigest()
    except OSError:  # no readable source (a bytecode-only install): entries of this process only
        code = "unreadable:" + secrets.token_hex(16)
    return {"dpcvx": __version__, "sources": code, "sympy": installed_version("sympy"),
            "mpmath": installed_version("mpmath"), "cvxpy": installed_version("cvxpy"),
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}"}


def installed_version(distribution: str) -> str:
    """An installed distribution's version, read from its metadata (without importing it)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


_SECRETS: dict[Path, bytes] = {}


def _secret(directory: Path) -> bytes | None:
    """This installation's HMAC key (created on first use, mode 0600); None if unsafe or unreadable."""
    if directory in _SECRETS:
        return _SECRETS[directory]
    path = directory / _KEY_FILE
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not path.exists():
            handle, temporary = tempfile.mkstemp(dir=directory)  # mode 0600
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(secrets.token_bytes(_KEY_BYTES))
                with contextlib.suppress(FileExistsError):  # another process made it first: use theirs
                    os.link(temporary, path)  # appears whole, never half written
            finally:
                os.unlink(temporary)
        status = path.stat()
        key = path.read_bytes()
    except OSError as error:
        _LOG.debug("proof cache off: %s", error)
        return None
    others = status.st_mode & (stat.S_IRWXG | stat.S_IRWXO)
    foreign = hasattr(os, "getuid") and status.st_uid != os.getuid()
    if others or foreign or len(key) != _KEY_BYTES:
        _LOG.warning("proof cache off: %s must be a %d-byte file of this user with mode 0600", path, _KEY_BYTES)
        return None
    _SECRETS[directory] = key
    return key


def _mac(secret: bytes, key: str, entry: Any) -> str:
    return hmac.new(secret, canonical([key, entry]).encode(), hashlib.sha256).hexdigest()


def _entry_path(directory: Path, key: str, folder: str = "proofs") -> Path:
    return directory / folder / (hashlib.sha256(key.encode()).hexdigest() + ".json")


def _disk_key(key: str) -> str:
    return canonical({"proof": key, "code": fingerprint()})


def load_data(key: str, folder: str = "proofs") -> Any:
    """The data stored on disk for ``key`` in ``folder``, or None: absent, off, or refused (bad HMAC, another key).

    The data is returned only after its HMAC, under this installation's secret key, has verified
    over the full key (``key`` and the code's :func:`fingerprint`) and the data.
    """
    directory = cache_directory()
    secret = None if directory is None else _secret(directory)
    if directory is None or secret is None:
        return None
    full = _disk_key(key)
    path = _entry_path(directory, full, folder)
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        _LOG.debug("proof cache: unreadable entry %s refused: %s", path.name, error)
        return None
    if not isinstance(stored, dict) or not isinstance(stored.get("mac"), str) or stored.get("key") != full:
        _LOG.info("proof cache: entry %s refused: written for another key", path.name)
        return None
    if not hmac.compare_digest(stored["mac"], _mac(secret, full, stored.get("entry"))):
        _LOG.info("proof cache: entry %s refused: its HMAC does not verify", path.name)
        return None
    return stored.get("entry")


def store_data(key: str, data: Any, folder: str = "proofs") -> None:
    """Write JSON ``data`` for ``key`` in ``folder`` under an HMAC (atomically); silently skipped when the cache
    is off or unwritable."""
    directory = cache_directory()
    secret = None if directory is None else _secret(directory)
    if directory is None or secret is None:
        return
    full = _disk_key(key)
    path = _entry_path(directory, full, folder)
    text = json.dumps({"key": full, "entry": data, "mac": _mac(secret, full, data)}, sort_keys=True)
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError as error:
        _LOG.debug("proof cache: result not stored: %s", error)
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)  # atomic: a reader sees the old entry or the new one
    except OSError as error:
        _LOG.debug("proof cache: result not stored: %s", error)
        with contextlib.suppress(OSError):
            os.unlink(temporary)


# --- the catalogue being written ----------------------------------------------------------------

# set while write_catalogue proves the catalogue: kind ("entries", "losses", "kernel") -> [(key, result)]
_RECORDED: dict[str, list[tuple[str, Any]]] | None = None


def recorded(kind: str) -> list[tuple[str, Any]] | None:
    """The list collecting results of ``kind`` while the catalogue is written (then nothing is served), else None."""
    return None if _RECORDED is None else _RECORDED.setdefault(kind, [])


@contextlib.contextmanager
def recording() -> Iterator[dict[str, list[tuple[str, Any]]]]:
    """Collect the results proved inside the block, by kind, and serve none from the cache meanwhile."""
    global _RECORDED
    _RECORDED = {}
    try:
        yield _RECORDED
    finally:
        _RECORDED = None
