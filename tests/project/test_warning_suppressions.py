"""No test suppresses a warning it does not explain.

A test that ignores every warning, or every dpcvx warning, around a fit also hides the warnings the fit
should give or should not give: a ClippingWarning that starts firing on every row, a NoiseDominatesWarning
that goes silent. So every warning suppression in ``tests/`` must either name the warnings it ignores or say
why it ignores them all.

The rule, checked on every ``tests/**/*.py`` (each call found by its name and parsed with :mod:`ast`):

- A *suppression* is an ``"ignore"`` filter: ``warnings.simplefilter("ignore", ...)``,
  ``warnings.filterwarnings("ignore", ...)``, ``warnings.catch_warnings(action="ignore")``, and
  ``pytest.mark.filterwarnings("ignore:...")`` wherever it stands (a decorator, ``pytestmark``, a
  ``pytest.param(marks=...)``), also in a Python script a test holds in a string.
- A Python or pytest started with ``-W ignore``, ``PYTHONWARNINGS=ignore`` or ``-p no:warnings``, and a test that
  takes pytest's ``recwarn`` fixture and never reads it (it records every warning, which overrides the errors of
  pyproject.toml), are broad suppressions too.
- It is *narrow* when it names a warning class other than ``Warning``, ``UserWarning`` and ``DPCVXWarning``
  (the base of every dpcvx warning), or a message pattern. A narrow suppression needs no comment.
- A *broad* suppression (no class, or one of those three, and no message) needs a reason: a comment starting
  ``# ignore:`` on its first line or on the line just above it, saying which warnings fire there and why
  the test does not look at them (``# ignore: every DPCVXWarning of the sweep; the test reads only ...``).

pyproject.toml turns every DPCVXWarning into an error in the tests and ignores a few named classes, each
with its reason; a narrowed suppression in a test therefore lists the classes that really fire there.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
BROAD = {"Warning", "UserWarning", "DPCVXWarning"}
REASON = "# ignore:"


def _name(node: ast.AST | None) -> str | None:
    """The last dotted name of an expression (``dpcvx.exceptions.X`` -> ``X``), None for no expression."""
    if node is None:
        return None
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    return ast.unparse(node)


def _argument(call: ast.Call, position: int, keyword: str) -> ast.AST | None:
    for item in call.keywords:
        if item.arg == keyword:
            return item.value
    if position < len(call.args):
        return call.args[position]
    return None


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _broad(call: ast.Call) -> bool | None:
    """True for a broad ignore, False for a narrow one, None when the call is not an ignore filter."""
    function = _name(call.func)
    if function == "catch_warnings":
        if _string(_argument(call, 99, "action")) != "ignore":
            return None
        category = _name(_argument(call, 99, "category"))
        message = _string(_argument(call, 99, "message")) or ""
        return (category is None or category in BROAD) and not message
    if function not in ("simplefilter", "filterwarnings"):
        return None
    action = _string(_argument(call, 0, "action"))
    if action is None:
        return None
    if ":" in action:  # pytest's "action:message:category:module:lineno"
        parts = [part.strip() for part in action.split(":")]
        if parts[0] != "ignore":
            return None
        message = parts[1] if len(parts) > 1 else ""
        category = parts[2].rsplit(".", 1)[-1] if len(parts) > 2 and parts[2] else None
        return (category is None or category in BROAD) and not message
    if action != "ignore":
        return None
    if function == "simplefilter":
        category, message = _name(_argument(call, 1, "category")), ""
    else:
        category = _name(_argument(call, 2, "category"))
        message = _string(_argument(call, 1, "message")) or ""
    return (category is None or category in BROAD) and not message


CALL = re.compile(r"\b(simplefilter|filterwarnings|catch_warnings)\(")


def _call(source: str, start: int) -> ast.Call | None:
    """The call that starts at ``source[start]`` (a name and its arguments), parsed alone: the shortest text up to a
    closing parenthesis that parses; None for a name that is not called there (in prose, say)."""
    end = start
    for _ in range(40):
        end = source.find(")", end) + 1
        if end == 0:
            return None
        try:
            node = ast.parse(source[start:end], mode="eval").body
        except SyntaxError:
            continue
        return node if isinstance(node, ast.Call) else None
    return None


def _scan(source: str) -> list[int]:
    """The lines (1-based) of the broad suppressions of ``source`` with no ``# ignore:`` reason. Each call is found
    by its name in the text and parsed alone, so those of the Python scripts a test holds in a string (run in a
    subprocess, or a template to format) are found too, and a file with no such call is not parsed."""
    lines = source.splitlines()
    found = []
    for match in CALL.finditer(source):
        call = _call(source, match.start())
        if call is None or not _broad(call):
            continue
        line = source.count("\n", 0, match.start()) + 1
        if REASON in lines[line - 1] or (line > 1 and lines[line - 2].strip().startswith(REASON)):
            continue
        found.append(line)
    return found


#: a command line or environment that ignores every warning of a Python it starts: ``-W ignore`` (one argument or
#: two), ``PYTHONWARNINGS=ignore``, pytest's ``-p no:warnings``
COMMAND_LINE = re.compile(r"""["']-W\s*ignore["']|["']-W["']\s*,\s*["']ignore["']"""
                          r"""|PYTHONWARNINGS["']?\s*[:=,]\s*(?:f?["'])?ignore\b|["']no:warnings["']""")


def _command_lines(source: str) -> list[int]:
    """The lines of ``source`` that start a Python (or pytest) that ignores every warning (:data:`COMMAND_LINE`)."""
    return [source.count("\n", 0, match.start()) + 1 for match in COMMAND_LINE.finditer(source)]


def _unread_recwarn(source: str) -> list[int]:
    """The lines of the test functions that take pytest's ``recwarn`` and never read it: the fixture records every
    warning ("always"), which overrides pyproject.toml's errors, so it silences what it does not look at."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "recwarn" in {
                argument.arg for argument in node.args.args + node.args.kwonlyargs}:
            used = any(isinstance(inner, ast.Name) and inner.id == "recwarn"
                       for statement in node.body for inner in ast.walk(statement))
            if not used:
                found.append(node.lineno)
    return found


def unexplained(path: Path) -> list[tuple[int, str]]:
    """The broad suppressions of a test file with no ``# ignore:`` reason: (line, source line)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    others = [line for line in _command_lines(source) + _unread_recwarn(source)
              if REASON not in lines[line - 1] and not (line > 1 and lines[line - 2].strip().startswith(REASON))]
    return [(line, lines[line - 1].strip()) for line in sorted(_scan(source) + others)]


def test_every_broad_warning_suppression_in_the_tests_says_why() -> None:
    found = [f"{path.relative_to(TESTS.parent)}:{line}: {text}"
             for path in sorted(TESTS.rglob("*.py")) if path != Path(__file__).resolve()
             for line, text in unexplained(path)]
    assert not found, (f"{len(found)} warning suppressions ignore every warning (or every dpcvx warning) without "
                       f"a reason: name the classes that fire there, or say why on a '{REASON}' comment on the "
                       "line or just above it (tests/README.md, 'Warnings'):\n" + "\n".join(found))


def test_the_rule_tells_broad_from_narrow_and_reads_the_reason(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import warnings, pytest, dpcvx\n"
        "pytestmark = [pytest.mark.filterwarnings('ignore::dpcvx.DPCVXWarning')]\n"       # 2 broad
        "@pytest.mark.filterwarnings('ignore')\n"                                          # 3 broad
        "@pytest.mark.filterwarnings('ignore::dpcvx.exceptions.ClippingWarning')\n"        # 4 narrow
        "@pytest.mark.filterwarnings('ignore:solution may be inaccurate:UserWarning')\n"   # 5 narrow
        "def test_a():\n"
        "    with warnings.catch_warnings():\n"
        "        warnings.simplefilter('ignore')\n"                                        # 8 broad
        "        warnings.simplefilter('ignore', dpcvx.exceptions.NoiseDominatesWarning)\n"  # 9 narrow
        "        warnings.simplefilter('ignore', category=UserWarning)\n"                  # 10 broad
        "        warnings.filterwarnings('ignore', message='x')\n"                         # 11 narrow
        "        warnings.simplefilter('error')\n"                                         # 12 no ignore
        "        # ignore: the sweep gives every clipping and noise warning; it reads only the budget\n"
        "        warnings.simplefilter('ignore')\n"                                        # 14 reasoned
        "        warnings.simplefilter('ignore')  # ignore: the same, on its line\n"      # 15 reasoned
        "        # a comment that is not a reason\n"
        "        warnings.filterwarnings('ignore', category=dpcvx.DPCVXWarning)\n"         # 17 broad
        "    with warnings.catch_warnings(action='ignore'):\n"                             # 18 broad
        "        pass\n"
        "SCRIPT = '''\n"
        "import warnings\n"
        "warnings.simplefilter('ignore')\n"                                                # 22 broad, in a script
        "'''\n"
        "TEMPLATE = '''\n"
        "import warnings\n"
        "warnings.simplefilter('ignore')\n"                                                # 26 broad, in a template
        "# ignore: the child's stderr is not read\n"
        "warnings.simplefilter('ignore')\n"                                                # 28 reasoned
        "{name}(random_state=0{extra}).fit(X, y)\n"
        "'''\n",
        encoding="utf-8")
    assert [line for line, _ in unexplained(sample)] == [2, 3, 8, 10, 17, 18, 22, 26]


def test_a_command_line_that_ignores_warnings_and_an_unread_recwarn_are_broad_too(tmp_path: Path) -> None:
    """Forms a regression probe found the first rule missed (session 65): a subprocess's ``-W ignore`` and a test that
    takes ``recwarn`` (every warning recorded, overriding pyproject.toml's errors) and never reads it."""
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import os, subprocess, sys\n"
        "def test_a():\n"
        "    subprocess.run([sys.executable, '-W', 'ignore', '-c', 'pass'])\n"          # 3 broad
        "    subprocess.run([sys.executable, '-Wignore', '-c', 'pass'])\n"               # 4 broad
        "    subprocess.run(['pytest', '-p', 'no:warnings'])\n"                          # 5 broad
        "    env = {**os.environ, 'PYTHONWARNINGS': 'ignore'}\n"                         # 6 broad
        "    subprocess.run([sys.executable, '-W', 'error', '-c', 'pass'])\n"            # 7 not an ignore
        "def test_b(recwarn):\n"                                                         # 8 unread
        "    pass\n"
        "def test_c(recwarn):\n"                                                         # 10 read
        "    assert not recwarn.list\n"
        "# ignore: the child's stderr is not read; only its exit code is\n"
        "def test_d(recwarn):\n"                                                         # 13 reasoned
        "    subprocess.run([sys.executable, '-W', 'ignore', '-c', 'pass'])  # ignore: only the exit code\n")
    assert [line for line, _ in unexplained(sample)] == [3, 4, 5, 6, 8]
