"""benchmarks/ reaches dpcvx through its public API and documented extension hooks only,
and its README names every script.

"Private" is any name of dpcvx that starts with one underscore: importing it, reading or
calling it as an attribute, or overriding such a method in a subclass of a dpcvx class, and
assigning to an attribute of a dpcvx module (a monkeypatch). The scan reads each script with
``ast``, and the Python code that scripts run in child processes (string constants that import
dpcvx). Where a benchmark must reach inside, dpcvx offers a documented hook instead
(docs/architecture.md, "Extension hooks").
"""

from __future__ import annotations

import ast
import contextlib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@cache
def dpcvx_private_names() -> frozenset[str]:
    """Every underscore name dpcvx defines: functions, classes, methods, globals and attributes."""
    names = set()
    for path in (ROOT / "dpcvx").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return frozenset(name for name in names if _private(name))


def _dpcvx_module(module: str | None) -> bool:
    return module is not None and module.split(".")[0] == "dpcvx"


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id in names for sub in ast.walk(node))


def violations(source: str, private: frozenset[str]) -> list[str]:
    """What ``source`` takes from inside dpcvx, one line each ("line N: ...")."""
    tree = ast.parse(source)
    found: list[str] = []
    bound: set[str] = set()  # names bound to a dpcvx module or object
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _dpcvx_module(alias.name):
                    if any(_private(part) for part in alias.name.split(".")):
                        found.append(f"line {node.lineno}: imports the private module {alias.name}")
                    bound.add(alias.asname or "dpcvx")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _dpcvx_module(node.module):
            assert node.module is not None
            if any(_private(part) for part in node.module.split(".")):
                found.append(f"line {node.lineno}: imports from the private module {node.module}")
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: imports {alias.name} from {node.module}")
                bound.add(alias.asname or alias.name)
    derived: set[str] = set()  # classes of this source that subclass a dpcvx class
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    for _ in classes:  # until no new subclass is found (bases defined earlier in the file)
        for node in classes:
            if any(_mentions(base, bound | derived) for base in node.bases):
                derived.add(node.name)
    own_self: set[int] = set()  # `self` / `cls` nodes inside classes that do not derive from dpcvx
    for node in classes:
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in derived \
                    and _private(item.name) and item.name in private:
                found.append(f"line {item.lineno}: {node.name} overrides dpcvx's private {item.name}")
        if node.name not in derived:
            own_self |= {id(sub) for sub in ast.walk(node) if isinstance(sub, ast.Name) and sub.id in ("self", "cls")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base_is_dpcvx = isinstance(node.value, ast.Name) and node.value.id in bound
            if base_is_dpcvx or (node.attr in private and id(node.value) not in own_self):
                found.append(f"line {node.lineno}: uses the private attribute {node.attr}")
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in bound:
                    found.append(f"line {node.lineno}: assigns {target.value.id}.{target.attr} (a monkeypatch)")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "dpcvx" in node.value \
                and "import" in node.value:
            with contextlib.suppress(SyntaxError):  # prose or a fragment is not code
                found += [f"code string at line {node.lineno}, {v}" for v in violations(node.value, private)]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.name)
def test_a_benchmark_takes_nothing_private_from_dpcvx(script):
    found = violations(script.read_text(), dpcvx_private_names())
    assert not found, (f"benchmarks/{script.name} reaches inside dpcvx: {found}; use the public API or a "
                       "documented extension hook (docs/architecture.md, 'Extension hooks')")


PLANTED = '''
import dpcvx
import dpcvx.models.erm as erm
from dpcvx.data import datasets
from dpcvx.data.datasets import _kdd_records
from dpcvx.solvers.blockwise import BlockwiseObjective


class Cached(dpcvx.PrivateERM):
    def _solve(self, *args, **kwargs):
        return super()._solve(*args, **kwargs)

    def release_calibration(self, calibration):
        return calibration


class Mine:
    def __init__(self):
        self._verified = None  # its own attribute, even under a dpcvx name


def run(learner):
    datasets._adult_records(None, "adult.data")
    learner._check_training(None, None)
    erm.BlockwiseObjective = BlockwiseObjective


CHILD = """
import dpcvx
dpcvx.PrivateERM()._calibrate("objective", 1, 1.0, None, 1.0, "max")
"""
'''


def test_the_scan_finds_each_kind_of_reach_and_spares_the_public_hooks():
    found = violations(PLANTED, dpcvx_private_names())
    lines = sorted(int(text.split("line ")[1].split(":")[0].split(",")[0]) for text in found)
    # the private import, the override (and its super() call), the two private calls,
    # the monkeypatch and the child's private call (in the string that starts on line 28)
    assert lines == [5, 10, 11, 23, 24, 25, 28], found
    assert not any("release_calibration" in text or "Mine" in text for text in found)


def test_the_readme_names_every_benchmark_script():
    readme = (ROOT / "benchmarks" / "README.md").read_text()
    missing = [path.name for path in BENCHMARKS if path.name != "__init__.py" and f"`{path.name}`" not in readme]
    assert not missing, f"benchmarks/README.md does not name {missing}"


# Modules of benchmarks/ that run no experiment: the package, the harness itself, the renderers of recorded
# results, DP-GD (a baseline other scripts run) and the Opacus worker (delta_mechanisms.py runs it in its own
# virtual environment, without dpcvx, and records the run).
NOT_AN_EXPERIMENT = {"__init__.py", "common.py", "render_results.py", "report.py", "dpgd.py", "dpsgd_opacus.py",
                     "huber_guarantee_tables.py"}
# Experiments that still write their own run metadata (or none) instead of benchmarks.common.RunRecord:
# what remains of issue 41's "every script on one harness". The list may only shrink. tuning_kdd.py: its
# recorded full run (2,147 s) feeds docs/results.md through benchmarks/report.py in its own record's format.
OWN_RECORD = {"tuning_kdd.py"}


def _on_the_harness(source: str) -> bool:
    """Whether a script records its run through benchmarks.common.RunRecord (command, machine, threads, load),
    itself or through common.tables_main (the command line of the per-table grids, which makes the record),
    common.staged_main (the same by development and held-out stage) or common.run_recorded (a script's main with its
    record)."""
    tree = ast.parse(source)
    names = {"RunRecord", "tables_main", "staged_main", "run_recorded"}
    return any(isinstance(node, ast.Name) and node.id in names
               or isinstance(node, ast.Attribute) and node.attr in names for node in ast.walk(tree))


def test_every_experiment_records_its_run_on_the_one_harness():
    off = {path.name for path in BENCHMARKS if path.name not in NOT_AN_EXPERIMENT
           and not _on_the_harness(path.read_text())}
    assert off == OWN_RECORD, (f"not on benchmarks.common.RunRecord: {sorted(off - OWN_RECORD)}; now on it (drop "
                               f"from OWN_RECORD): {sorted(OWN_RECORD - off)}")


def test_the_harness_check_sees_a_script_without_a_record():
    assert _on_the_harness("from benchmarks.common import RunRecord\nrecord = RunRecord('x')\n")
    assert _on_the_harness("from benchmarks import common\nrecord = common.RunRecord('x')\n")
    assert not _on_the_harness("import os\nprint(os.getloadavg())\n")
