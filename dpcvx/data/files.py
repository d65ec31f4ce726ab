"""Every file dpcvx reads or writes goes through here.

Writing: :func:`atomic_write` is the one writer. It fills a temporary file in
the target's own directory, flushes and fsyncs it, and moves it to the
target's name: with :func:`os.replace` when the caller allows a file there to
be replaced (``overwrite=True``), else with :func:`os.link`, which fails if
the name exists (both atomic on POSIX and Windows). If anything fails on the
way (a full disk, a value that cannot be serialised, an error of the code
producing the content, an interrupt), the temporary file is removed and the
previous file, if any, is left exactly as it was.

An existing file is never replaced unless the caller says so: every public
writer takes ``overwrite: bool = False`` (the command line ``--overwrite``)
and refuses, at its entry and before any work, a path that names an existing
file with an :class:`~dpcvx.exceptions.OverwriteError`
(:func:`check_writable`).

Reading: :func:`read_text` and :func:`read_json` turn every way a file can be
unreadable (missing, a directory, a device or a pipe, larger than
``MAX_FILE_BYTES``, no permission, not UTF-8, not JSON, a number too large,
nesting too deep, a repeated key) into a :class:`~dpcvx.exceptions.FileError`
naming the file, what is wrong and what to do, instead of a raw Python
exception.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from ..exceptions import FileError, InputError, OverwriteError
from ..validation import parse_integer

__all__ = ["atomic_write", "check_writable", "file_path", "read_text", "parse_json", "json_depth", "unpaired_surrogate",
           "printable", "read_json",
           "json_object", "os_error_message", "MAX_JSON_DEPTH", "MAX_FILE_BYTES",
           "MAX_INTEGER_DIGITS", "TEMPORARY_SUFFIX"]

# A dpcvx model or schema file nests a handful of levels; anything deeper is not one of them.
MAX_JSON_DEPTH = 32
# Integers in dpcvx files are counts and versions; a longer one is tampering (and would overflow a float).
MAX_INTEGER_DIGITS = 300
TEMPORARY_SUFFIX = ".tmp"
# The largest file read_text reads: a model, schema, names or release file is a few megabytes at most (a model of
# 100,000 weights is about 2 MiB); a larger one, or a device such as /dev/zero, would fill the memory.
MAX_FILE_BYTES = 256 * 2**20


def os_error_message(path: str | Path, error: OSError, action: str = "read") -> str:
    """One sentence for an operating-system error on ``path``: what happened and what to do."""
    if isinstance(error, FileNotFoundError):
        return f"{path} does not exist; check the path"
    if isinstance(error, IsADirectoryError):
        return f"{path} is a directory, not a file; give the path of a file"
    if isinstance(error, NotADirectoryError):
        return f"cannot {action} {path}: a part of the path is not a directory"
    if isinstance(error, PermissionError):
        return f"cannot {action} {path}: permission denied"
    reason = error.strerror or str(error) or type(error).__name__
    return f"cannot {action} {path}: {reason}"


def file_path(path: Any, what: str = "file") -> Path:
    """``path`` (a str or os.PathLike naming a file) as a Path; a FileError for anything else: another type, bytes,
    or a name with a NUL character, which no file system takes (Path and os raised a bare TypeError or ValueError)."""
    try:
        if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
            raise TypeError
        result = Path(path)
    except TypeError:
        raise FileError(f"the {what} path must be a str or a pathlib.Path, got {type(path).__name__}") from None
    if "\x00" in str(result):
        raise FileError(f"the {what} path {str(result)!r} holds a NUL character, which no file name can; check the "
                        "path")
    return result


# --- writing -----------------------------------------------------------------------------------


def _new_file_mode(path: Path) -> int:
    """The mode the file would get from a plain open(): the old file's, else 0o666 less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _remove(temporary: str) -> None:
    with contextlib.suppress(OSError):  # already gone, or not ours to remove: nothing to undo
        os.unlink(temporary)


def _sync_directory(directory: Path) -> None:
    """Persist the rename itself (best effort: not every platform can open a directory)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def check_writable(path: str | Path, what: str = "file", inputs: Iterable[tuple[str | Path | None, str]] = (), *,
                   overwrite: bool = False, option: str = "overwrite=True") -> Path:
    """Refuse early (before any work) a target that :func:`atomic_write` could not write, that is one of the
    command's ``inputs``, or, unless ``overwrite``, that exists. Every public writer calls it once, at its entry.

    ``inputs`` are (path, what it is) pairs of the files the caller reads (a None path is skipped): writing over
    one would replace the user's data or model with the output, so a target that is the same file
    (:func:`os.path.samefile`: the same path written another way, a symbolic or a hard link) is refused, with or
    without ``overwrite``.

    An existing file (a symbolic link's target, which the write would replace) is refused with an
    :class:`~dpcvx.exceptions.OverwriteError` without ``overwrite``, naming the file and ``option``, the caller's
    way to allow it ("overwrite=True", or the command line's "--overwrite"). A file that appears after this check,
    while the caller works, is not replaced either: :func:`atomic_write` without ``overwrite`` moves its content
    to the name only if the name is still free.
    """
    path = file_path(path, what)
    try:
        if path.is_symlink():  # written through: the link stays, its target gets the content (as open() writes)
            path = Path(os.path.realpath(path))
        directory = path.parent
        is_directory, directory_exists = path.is_dir(), directory.is_dir()
        existing = path.stat() if path.exists() else None
    except OSError as error:  # a name too long for the file system, a loop of links: no file can be written there
        reason = error.strerror or str(error) or type(error).__name__
        raise FileError(f"cannot write the {what} to {path}: {reason}; choose another path") from None
    if is_directory:
        raise FileError(f"cannot write the {what} to {path}: it is a directory; give a file path")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise FileError(f"cannot write the {what} to {path}: it is not a regular file (a device, a pipe or a socket), "
                        "which the written file would replace; give the path of a file")
    if existing is not None and not (existing.st_mode & 0o222 and os.access(path, os.W_OK)):
        raise FileError(f"cannot write the {what} to {path}: the file is read-only, and writing would replace it; "
                        "make it writable or choose another path")
    if not directory_exists:
        raise FileError(f"cannot write the {what} to {path}: the directory {directory.resolve()} "
                        "does not exist; create it or choose another path")
    descriptor, trial = _temporary_file(path, what)  # made and removed: os.access says yes to root on /proc
    os.close(descriptor)
    os.unlink(trial)
    for source, name in inputs:
        if source is not None and _same_file(path, Path(source)):
            raise FileError(f"cannot write the {what} to {path}: it is the {name} {source} this command reads, "
                            f"which writing would replace; choose another path for the {what}")
    if existing is not None and not overwrite:
        raise OverwriteError(f"cannot write the {what} to {path}: the file exists, and it is kept; choose another "
                             f"path, or pass {option} to replace it")
    return path


def _temporary_file(path: Path, what: str) -> tuple[int, str]:
    """(descriptor, name) of a new temporary file beside ``path``, where :func:`atomic_write` writes before it
    replaces ``path`` (and :func:`check_writable` tries, before any work); FileError naming ``what`` if none can be
    made there."""
    directory = path.parent
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=directory)
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise FileError(f"cannot write the {what} to {path}: the directory {directory.resolve()} is not writable "
                        f"({reason}); choose a writable directory") from None


def _link(temporary: str, path: Path, what: str, option: str) -> None:
    """Give the written ``temporary`` file the name ``path`` if no file has it (atomically: :func:`os.link` fails
    if the name exists), then drop the temporary name; an OverwriteError naming the temporary file, which keeps
    the content, if the name is taken."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise OverwriteError(f"cannot write the {what} to {path}: a file of that name appeared while the {what} was "
                             f"made, and it is kept; the {what} is in {temporary}: move it where it belongs, or "
                             f"pass {option} to replace the file") from None
    except OSError:  # no hard links on this file system: test the name, then replace (a tiny window remains)
        if os.path.lexists(path):
            raise OverwriteError(f"cannot write the {what} to {path}: a file of that name appeared while the {what} "
                                 f"was made, and it is kept; the {what} is in {temporary}: move it where it belongs, "
                                 f"or pass {option} to replace the file") from None
        os.replace(temporary, path)
        return
    _remove(temporary)  # the content has its name; the temporary one goes


def _same_file(target: Path, source: Path) -> bool:
    """Whether ``target`` exists and is the file ``source`` (the same path, a link to it, or a hard link)."""
    try:
        return os.path.samefile(target, source)
    except OSError:  # either does not exist (yet): nothing to replace, or the reader reports it
        return False


def atomic_write(path: str | Path, write: Callable[[IO], Any], *, binary: bool = False,
                 what: str = "file", overwrite: bool = False, option: str = "overwrite=True") -> Path:
    """Write ``path`` all at once: ``write(handle)`` fills a temporary file that then takes the name.

    ``handle`` is a text file (UTF-8, no newline translation), or a binary one
    with ``binary=True``. The temporary file lives in the target's directory
    (so the final move never crosses file systems), is flushed and fsynced
    before the move, and is removed if anything fails, in which case the
    previous content of ``path`` is untouched. Operating-system errors become a
    :class:`~dpcvx.exceptions.FileError` naming ``what`` and the path; any
    other exception (the content's own) propagates unchanged after the
    clean-up. Returns the path written: a symbolic link's target, which gets
    the content as open() would give it (the link stays). A target that is not
    a regular file (a device, a pipe) or is read-only is refused
    (:func:`check_writable`): os.replace would have put a new file in its place.

    Callers refuse an existing file at their entry (:func:`check_writable`
    without ``overwrite``), before any work; this function does not check it
    again. What is guaranteed: with ``overwrite=True`` the file at ``path`` is
    replaced (:func:`os.replace`); without it, the temporary file is linked to
    the name (:func:`os.link`, which fails if the name exists), so a file that
    appeared since the entry's check (another process writing the same name) is
    not replaced either: the :class:`~dpcvx.exceptions.OverwriteError` names
    the temporary file, which keeps the content (it is not removed: the content
    may be a release whose privacy budget was spent). On a file system without
    hard links (FAT, some network shares) the name is tested just before
    :func:`os.replace`, and a file made in the instant between the two is
    replaced.
    """
    path = check_writable(path, what, overwrite=True)  # what is written there, once the caller allowed the name
    descriptor, temporary = _temporary_file(path, what)
    try:
        try:
            handle = os.fdopen(descriptor, "wb") if binary else \
                os.fdopen(descriptor, "w", encoding="utf-8", newline="")
        except BaseException:
            os.close(descriptor)
            raise
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, _new_file_mode(path))
        if overwrite:
            os.replace(temporary, path)
        else:
            _link(temporary, path, what, option)
    except OverwriteError:
        raise  # the content stays in the temporary file, which the error names
    except OSError as error:
        _remove(temporary)
        raise FileError(f"cannot write the {what} to {path}: {error.strerror or error}; the previous "
                        "file, if any, is unchanged") from None
    except BaseException:
        _remove(temporary)
        raise
    _sync_directory(path.parent)
    return path


# --- reading -----------------------------------------------------------------------------------


_GROWTH_BYTES = 1 << 20  # what a file that grew since its size was read is read on by, at a time


def _read_capped(handle: IO[bytes], size: int) -> bytes:
    """The bytes of an open file whose size was ``size``, read up to one byte past ``MAX_FILE_BYTES`` (a file that
    grew since is read on by ``_GROWTH_BYTES`` until its end or the cap). A buffer is allocated for what the file
    holds: ``read(MAX_FILE_BYTES + 1)`` allocated the whole cap, 256 MiB, for a model file of a few kilobytes."""
    data = handle.read(size + 1)
    while len(data) <= MAX_FILE_BYTES:
        more = handle.read(_GROWTH_BYTES)
        if not more:
            break
        data += more
    return data


def read_text(path: str | Path, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (a byte-order mark is dropped), or a FileError saying why not.

    Only a regular file of at most ``MAX_FILE_BYTES`` is read; anything else is refused before a byte is read (a
    pipe would block, a device such as /dev/zero never ends)."""
    path = file_path(path, what)
    try:
        status = path.stat()
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(status.st_mode):
            raise FileError(f"{what} {path} is not a regular file (a device, a pipe or a socket); give the path of a "
                            "file")
        if status.st_size > MAX_FILE_BYTES:
            raise _too_large(path, what)
        with path.open("rb") as handle:
            data = _read_capped(handle, status.st_size)
    except OSError as error:
        raise FileError(f"{what} {os_error_message(path, error)}") from None
    if len(data) > MAX_FILE_BYTES:
        raise _too_large(path, what)
    if data[:2] == b"\x1f\x8b":  # gzip's magic number: data files may be compressed, this one may not
        raise FileError(f"{what} {path} is gzip-compressed; dpcvx reads a {what} as plain UTF-8 text (only data "
                        f"files, such as a CSV, may be compressed): decompress it first (gunzip)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FileError(f"{what} {path} is not UTF-8 text (byte {error.start} cannot be decoded); "
                        "convert it to UTF-8") from None


def _too_large(path: Path, what: str) -> FileError:
    return FileError(f"{what} {path} is larger than {MAX_FILE_BYTES // 2**20} MiB, the most dpcvx reads: a dpcvx "
                     "model, schema or names file is far smaller; check the path")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        repeated = sorted(key for key, count in Counter(key for key, _ in pairs).items() if count > 1)
        raise _Refused(f"repeats keys {repeated[:10]}{' ...' if len(repeated) > 10 else ''}; "
                       "it has been edited or corrupted")
    return data


def _integer(text: str) -> int:
    """A JSON integer, by dpcvx.validation.parse_integer (at most MAX_INTEGER_DIGITS digits, any sign)."""
    try:
        return parse_integer("each integer in it", text, minimum=None, max_digits=MAX_INTEGER_DIGITS)
    except InputError as error:
        raise _Refused(f"is refused: {error}; it has been edited or corrupted") from None


def _constant(text: str) -> float:
    raise _Refused(f"holds {text}, which is not standard JSON (a dpcvx file never writes NaN or "
                   "infinities); it has been edited or corrupted")


class _Refused(Exception):
    """Raised inside the JSON parser's hooks; turned into a FileError naming the file."""


def unpaired_surrogate(data: Any) -> str | None:
    """The first text (a string or a key, at any depth of parsed JSON) that holds a lone surrogate, U+D800 to U+DFFF,
    or None. No UTF-8 text holds one: it comes of a JSON escape ("\\ud800") or of a byte that is not UTF-8 in a
    command-line argument (Python's surrogateescape), and a file writer, a report or a CSV cannot encode it (the
    command line's report and predict failed with a bare UnicodeEncodeError, an attacker probe, sixty-second
    session). Iterative, as :func:`json_depth`."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on written as its escape (``\\x1b``, ``\\u202e``): the
    control characters but the line break and the tab (Unicode's Cc: ESC, carriage return, backspace, DEL, the C1
    controls) and the bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
    U+2069). A model file's text (a column, class or category name: a user's table's, or an edited file's) reaches
    a terminal in the report and in predictions; an escape sequence in it could move the cursor or clear lines and
    hide what the report says of the release, a CONDITIONAL line included, and a carriage return or a right-to-left
    override could overwrite or reorder it (an attacker probe, sixty-second session). The escape is text a reader
    sees, never markup (a backslash before a letter is no Markdown escape)."""
    return _TERMINAL.sub(lambda match: (f"\\x{ord(match.group()):02x}" if ord(match.group()) < 0x100
                                        else f"\\u{ord(match.group()):04x}"), text)


_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def json_depth(data: Any) -> int:
    """Nesting depth of parsed JSON, iteratively (no recursion on hostile input)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, level = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _ends_early(text: str, error: json.JSONDecodeError) -> bool:
    """Whether a JSON error is the text's end: nothing after the error's position, an unterminated string, or the
    start of a literal or number cut short (a file cut inside ``true`` ended "tru", an error at the "t")."""
    tail = text[error.pos:].rstrip()
    return (not tail or error.msg.startswith("Unterminated string") or any(word.startswith(tail) for word in
            ("true", "false", "null")) or re.fullmatch(r"-?[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]*)?", tail) is not None)


def parse_json(text: str, what: str = "file") -> Any:
    """Parse JSON text strictly: no NaN/Infinity, no repeated keys, bounded integers and nesting."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_int=_integer,
                          parse_constant=_constant)
    except _Refused as error:
        raise FileError(f"{what} {error}") from None
    except json.JSONDecodeError as error:
        ending = " (the file ends early: was it truncated?)" if _ends_early(text, error) else ""
        raise FileError(f"{what} is not valid JSON: {error.msg} at line {error.lineno}, column "
                        f"{error.colno}{ending}") from None
    except RecursionError:
        raise FileError(f"{what} nests JSON too deeply to be read (a dpcvx file nests at most "
                        f"{MAX_JSON_DEPTH} levels); it is not a dpcvx file") from None
    if json_depth(data) > MAX_JSON_DEPTH:
        raise FileError(f"{what} nests JSON more than {MAX_JSON_DEPTH} levels deep; it is not a dpcvx file")
    if unpaired_surrogate(data) is not None:
        raise FileError(f"{what} holds text that is not valid Unicode (a lone surrogate, written as a JSON escape such "
                        "as \\ud800), which no dpcvx file holds and no report or CSV can write; it has been edited")
    return data


def read_json(path: str | Path, what: str = "file") -> Any:
    """The parsed JSON content of ``path`` (see :func:`parse_json`), or a FileError naming it."""
    return parse_json(read_text(path, what), f"{what} {path}")


def json_object(what: str, data: Any, keys: set[str], holder: str = "a dpcvx model file") -> dict:
    """``data`` as a dict with exactly ``keys`` (InputError naming ``what`` otherwise)."""
    if not isinstance(data, dict):
        raise InputError(f"{what} must be a JSON object, got {type(data).__name__}")
    unknown, missing = sorted(set(data) - keys), sorted(keys - set(data))
    if unknown:
        raise InputError(f"{what} has unknown keys {unknown}; {holder} holds only data with the keys {sorted(keys)}")
    if missing:
        raise InputError(f"{what} lacks keys {missing}")
    return data
