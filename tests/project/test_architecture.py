"""The layering of docs/architecture.md, checked on the source: who may import sympy, who may
draw random numbers, and which layer may import which.

Each rule is read off the module's syntax tree (imports and attribute calls), so a rule broken
anywhere in the package fails here with the module and line.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from dpcvx import PINP, TDDL, TDIL, PrivateERM, PrivateLinearRegression, PrivateMulticlassERM
from dpcvx.models.contract import FIT_KEYWORDS

PACKAGE = Path(__file__).resolve().parents[2] / "dpcvx"
MODULES = sorted(PACKAGE.rglob("*.py"))

# Random draws: methods of numpy Generators and the OS entropy source.
DRAWS = {"normal", "standard_normal", "laplace", "gamma", "standard_gamma", "exponential", "uniform", "random",
         "choice", "permutation", "shuffle", "integers", "standard_cauchy", "binomial", "beta", "default_rng",
         "urandom", "SeedSequence"}
# Randomness outside privacy/ that is not a mechanism's: synthetic data for the demo.
DRAWS_ALLOWED = {"demo.py": "the demo's synthetic data set, not a mechanism's noise",
                 "models/audit.py": "the audit's canary data set and the seeds of its trials, not a release's noise",
                 "data/datasets.py": "the experiments' row subsample of a public benchmark file",
                 "release/encodable.py": "the report's records drawn from a uniform law on a public schema's domain "
                                         "with a public seed (domain_share): a check of the release, not its noise"}

# The layers, lowest first: a module may import its own layer and the layers before it.
LAYERS = [
    {"exceptions", "advice", "version", "limits", "validation", "tables", "rounding", "losses", "progress"},
    {"verification"},
    {"privacy"},
    {"data"},
    {"solvers"},
    {"release"},
    {"models"},
    {"sklearn", "plots", "demo", "cli",
     "__main__", "__init__", "opendp_bridge"},
]


@functools.cache
def _tree(module: Path) -> ast.Module:
    """The syntax tree of a module of the package, parsed once for all the checks that read it (read only)."""
    return ast.parse(module.read_text(encoding="utf-8"), filename=str(module))


def _layer(relative: Path) -> int:
    top = relative.parts[0].removesuffix(".py")
    return next(index for index, names in enumerate(LAYERS) if top in names)


def _relative(module: Path) -> Path:
    return module.relative_to(PACKAGE)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:``: imports for type checkers, never run."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(child) for statement in node.body for child in ast.walk(statement))
    return hidden


def _imported_modules(tree: ast.AST, module: Path) -> list[tuple[str, int]]:
    """(absolute dotted name under dpcvx or the external package, line) for every import that runs."""
    found = []
    package_parts = ["dpcvx", *_relative(module).parent.parts]
    hidden = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
                found.append((name, node.lineno))
                if not node.module:  # from . import x: each x is a module of that package
                    found += [(f"{name}.{alias.name}", node.lineno) for alias in node.names]
            else:
                found.append((node.module or "", node.lineno))
    return found


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(_relative(m)))
def test_only_verification_imports_sympy(module):
    if _relative(module).parts[0] == "verification":
        return
    tree = _tree(module)
    sympy_imports = [line for name, line in _imported_modules(tree, module) if name.split(".")[0] == "sympy"]
    assert not sympy_imports, f"{_relative(module)} imports sympy at lines {sympy_imports}: only verification/ may"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(_relative(m)))
def test_only_privacy_draws_random_numbers(module):
    relative = _relative(module)
    if relative.parts[0] == "privacy" or relative.as_posix() in DRAWS_ALLOWED:
        return
    tree = _tree(module)
    draws = [f"{node.func.attr} (line {node.lineno})" for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DRAWS
             and not (isinstance(node.func.value, ast.Name) and node.func.value.id in {"math", "np", "sp"}
                      and node.func.attr in {"gamma", "beta"})]
    assert not draws, f"{relative} draws random numbers ({', '.join(draws)}): draw them through dpcvx.privacy"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(_relative(m)))
def test_layers_import_only_downwards(module):
    relative = _relative(module)
    own = _layer(relative)
    tree = _tree(module)
    upward = []
    for name, line in _imported_modules(tree, module):
        parts = name.split(".")
        if parts[0] != "dpcvx" or len(parts) < 2:
            continue
        target = _layer(Path(parts[1] + ("" if (PACKAGE / parts[1]).is_dir() else ".py")))
        if target > own:
            upward.append(f"{name} (line {line})")
    assert not upward, f"{relative} (layer {own}) imports from a higher layer: {upward}; see docs/architecture.md"


# What the solvers may read of verification/: the verified problem and the contract types beside it
# (the constraint set of KST12, the kernel learners' verified loss), never the symbolic calculus.
SOLVER_CONTRACT = {"problem", "constraints", "kernel_loss"}


@pytest.mark.parametrize("module", [m for m in MODULES if _relative(m).parts[0] == "solvers"],
                         ids=lambda m: str(_relative(m)))
def test_solvers_import_only_the_problem_contract_of_verification(module):
    tree = _tree(module)
    beyond = _beyond_contract(_imported_modules(tree, module))
    assert not beyond, (f"{_relative(module)} imports {beyond} of verification/: a solver reads the "
                        f"VerifiedProblem contract ({sorted(SOLVER_CONTRACT)}) only")


def _beyond_contract(imports: list[tuple[str, int]]) -> list[str]:
    return [f"{name} (line {line})" for name, line in imports
            if name.split(".")[:2] == ["dpcvx", "verification"] and len(name.split(".")) > 2
            and name.split(".")[2] not in SOLVER_CONTRACT]


def _every_import(tree: ast.AST, module: Path) -> set[str]:
    """Dotted names of the dpcvx modules a module imports anywhere: at module level, inside a function, or
    under ``if TYPE_CHECKING:`` (``from .pkg import name`` counts as the module ``pkg.name`` when it is one)."""
    package_parts = ["dpcvx", *_relative(module).parent.parts]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package_parts[: len(package_parts) - node.level + 1] + ([node.module] if node.module
                                                                                    else [])) \
                if node.level else node.module or ""
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in DOTTED else base for alias in node.names}
    return {name for name in found if name in DOTTED and name != _dotted(module)}


def _dotted(module: Path) -> str:
    parts = ["dpcvx", *_relative(module).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


DOTTED = {_dotted(module): module for module in MODULES}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the directed graph (a list of nodes, first = last), or [] when it has none."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for successor in sorted(graph.get(node, ())):
            if state.get(successor) == 1:
                return path[path.index(successor):] + [successor]
            if successor not in state and (found := visit(successor)):
                return found
        state[node] = 2
        path.pop()
        return []

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return []


def _import_graph() -> dict[str, set[str]]:
    """module -> the dpcvx modules it imports, every import counted (:func:`_every_import`)."""
    return {name: _every_import(_tree(path), path) for name, path in DOTTED.items()}


def _subpackage(name: str) -> str:
    """The top-level part of dpcvx a module belongs to: its subpackage, or the top-level module itself."""
    return (name.split(".") + ["__init__"])[1]


@pytest.mark.slow
def test_no_import_cycle_between_modules():
    """The modules of dpcvx import each other in one direction, counting function-level and type-only
    imports: a cycle there still means two modules each need the other to be read."""
    cycle = _cycle(_import_graph())
    assert not cycle, f"the import cycle {' -> '.join(cycle)}; see docs/architecture.md"


def test_no_import_cycle_between_subpackages():
    """Nor do two subpackages (or a subpackage and a top-level module) import each other, through any modules."""
    graph: dict[str, set[str]] = {}
    for name, targets in _import_graph().items():
        graph.setdefault(_subpackage(name), set()).update(_subpackage(t) for t in targets if _subpackage(t) !=
                                                          _subpackage(name))
    cycle = _cycle(graph)
    assert not cycle, f"the subpackages import each other: {' -> '.join(cycle)}; see docs/architecture.md"


def test_the_checks_see_a_violation(tmp_path):
    """The scanners are not vacuous: a planted sympy import, draw and upward import are found."""
    planted = PACKAGE / "solvers" / "planted.py"
    source = "import sympy\nfrom ..models import erm\ndef f(rng):\n    return rng.normal()\n"
    tree = ast.parse(source)
    names = [name for name, _ in _imported_modules(tree, planted)]
    assert "sympy" in names and "dpcvx.models" in names
    assert _layer(Path("models")) > _layer(_relative(planted))
    assert any(isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "normal" for n in ast.walk(tree))
    # the problem contract: the old objective.py read the calculus and the verifier
    solver = ast.parse("from ..verification.regularizer import Quadratic\nfrom ..verification.problem import X\n")
    assert _beyond_contract(_imported_modules(solver, planted)) == ["dpcvx.verification.regularizer (line 1)"]
    # the old problem.py <-> verifier.py cycle, through a type-only import
    problem = PACKAGE / "verification" / "problem.py"
    old = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .verifier import VerifiedLoss\n")
    graph = {"dpcvx.verification.problem": _every_import(old, problem),
             "dpcvx.verification.verifier": {"dpcvx.verification.problem"}}
    assert _cycle(graph) == ["dpcvx.verification.problem", "dpcvx.verification.verifier", "dpcvx.verification.problem"]
    # the old proof_cache -> proof_codec -> proof_cache cycle, through a function-level import
    cache = PACKAGE / "verification" / "proof_cache.py"
    lazy = ast.parse("def to_data(self):\n    from .proof_codec import encode\n    return encode(self)\n")
    graph = {"dpcvx.verification.proof_cache": _every_import(lazy, cache),
             "dpcvx.verification.proof_codec": {"dpcvx.verification.proof_cache"}}
    assert _cycle(graph)[:2] == ["dpcvx.verification.proof_cache", "dpcvx.verification.proof_codec"]
    # ``from ..privacy import calibration`` names the module privacy.calibration
    data = PACKAGE / "data" / "rows.py"
    assert _every_import(ast.parse("from ..privacy import calibration\n"), data) == {"dpcvx.privacy.calibration"}


# The names of mechanisms and noises, and the records of a certificate (a calibration, the constants, the lam
# rule, the record weights): only the file codec (release/records/, release/serialization.py) reads them; every
# other module asks the typed objects (privacy.calibration's classes, verification.verdict.Mechanism,
# privacy.calibration.Noise, release.constants.Constants, privacy.lam_rule.LamChoice, release.model.CertifiedWeights).
MECHANISM_NAMES = {"objective", "output", "gaussian", "laplace", "discrete-gaussian", "discrete-laplace", "adassp",
                   "l2-laplace"}
RECORDS = {"calibration", "lam_rule", "weights", "constants"}
CODEC = ("release/records/", "release/serialization.py")


def _in_codec(relative: Path) -> bool:
    return any(str(relative).startswith(prefix) for prefix in CODEC)


def _string_dispatches(tree: ast.AST) -> list[tuple[str, int]]:
    """(name, line) of every comparison (==, !=, in, not in) of a value with a mechanism or noise name."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for operand in [node.left, *node.comparators]:
            literals = operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]
            found += [(literal.value, node.lineno) for literal in literals
                      if isinstance(literal, ast.Constant) and literal.value in MECHANISM_NAMES]
    return found


def _keyed_reads(tree: ast.AST) -> list[tuple[str, int]]:
    """(record, line) of every read of a certificate record by a string key: ``x.calibration["beta"]``,
    ``calibration.get("noise")``, ``certificate.lam_rule["lam"]``, ``weights.get("mean_weight")``, ..."""
    found = []
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            target = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            target = node.func.value
        name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) \
            else None
        if name in RECORDS:
            found.append((name, node.lineno))
    return found


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(_relative(m)))
def test_only_the_codec_recognises_a_mechanism_by_its_name(module):
    relative = _relative(module)
    if _in_codec(relative):
        return
    found = _string_dispatches(_tree(module))
    assert not found, (f"{relative} compares a mechanism or noise name {found}; compare the typed Mechanism or "
                       "Noise, or ask the calibration object")


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(_relative(m)))
def test_only_the_codec_reads_a_record_by_key(module):
    relative = _relative(module)
    if _in_codec(relative):
        return
    found = _keyed_reads(_tree(module))
    assert not found, (f"{relative} reads a certificate record by a string key {found}; the certificate holds "
                       "typed objects (dicts live only in the file codec, release/records/)")


def test_the_dispatch_scanner_sees_a_comparison():
    """Not vacuous: each form of string dispatch is found, and a typed comparison is not."""
    source = ('if c.get("noise") == "gaussian": pass\nif "output" != m: pass\nif m in ("objective", "x"): pass\n'
              "if m is Mechanism.OBJECTIVE: pass\n")
    assert [line for _, line in _string_dispatches(ast.parse(source))] == [1, 2, 3]


def test_the_record_scanner_sees_a_keyed_read():
    """Not vacuous: each form of keyed read is found, and typed reads and other mappings are not."""
    source = ('beta = model.certificate.calibration["beta"]\nnoise = calibration.get("noise", "l2-laplace")\n'
              'lam = certificate.lam_rule["lam"]\nmean = cert.weights.get("mean_weight")\nn = constants["n"]\n'
              'beta = certificate.calibration.laplace_beta\nvalue = options["beta"]\n'
              'item = calibration[index]\n')
    assert _keyed_reads(ast.parse(source)) == [("calibration", 1), ("calibration", 2), ("lam_rule", 3),
                                               ("weights", 4), ("constants", 5)]


def _missing_fit_keywords(learner: type) -> list[str]:
    """The contract's fit keywords that ``learner.fit`` cannot take by name."""
    import inspect

    parameters = inspect.signature(learner.fit).parameters
    named = {name for name, parameter in parameters.items()
             if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)}
    return [name for name in FIT_KEYWORDS if name not in named]


LEARNERS = [PrivateERM, PrivateMulticlassERM, PrivateLinearRegression, TDDL, PINP, TDIL]


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda cls: cls.__name__)
def test_every_learner_fit_takes_the_contract_keywords(learner):
    assert not _missing_fit_keywords(learner), (f"{learner.__name__}.fit does not take "
                                                f"{_missing_fit_keywords(learner)} by name (dpcvx.models.contract)")


def test_the_keyword_check_sees_a_learner_without_the_contract():
    class Positional:
        def fit(self, X, y, epsilon, /, delta=0.0, *, seed=None):
            return self

    assert _missing_fit_keywords(Positional) == ["epsilon", "random_state", "accountant"]


def _package_names(tree: ast.Module) -> tuple[set[str], list[str]]:
    """(the names dpcvx/__init__.py imports, at run time or for type checkers; its ``__all__``)."""
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.level == 1 for alias in node.names}
    listed = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  and [ast.unparse(target) for target in node.targets] == ["__all__"])
    return imported, listed


def test_the_package_has_one_list_of_public_names():
    """``__all__`` is exactly what dpcvx/__init__.py imports, once each, and every name resolves; there is
    no other table of names (no aliases of moved modules)."""
    import dpcvx

    imported, listed = _package_names(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8")))
    assert len(listed) == len(set(listed)) and set(listed) == imported
    assert all(getattr(dpcvx, name) is not None for name in listed)
    with pytest.raises(AttributeError):
        dpcvx.calibrate  # noqa: B018 - an old module path is not an attribute of the package


def test_the_names_check_sees_a_second_list():
    tree = ast.parse("from .a import x\nfrom .b import y\n__all__ = ['x', 'z']\n")
    imported, listed = _package_names(tree)
    assert imported == {"x", "y"} and set(listed) != imported


# The user's declarations, callables z -> l(z) and w -> N(w): only verification/ calls them (once, on a CVXPY
# variable); every later layer works from the verified expression the VerifiedProblem holds.
DECLARATIONS = {"loss", "regularizer"}


def _declaration_calls(tree: ast.AST) -> list[str]:
    """``loss(...)``, ``self.loss(...)``, ``regularizer(...)``: a call of a user's declared callable."""
    return [f"{ast.unparse(node.func)} (line {node.lineno})" for node in ast.walk(tree) if isinstance(node, ast.Call)
            and (node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)) in DECLARATIONS]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(_relative(m)))
def test_only_verification_calls_a_users_declaration(module):
    if _relative(module).parts[0] == "verification":
        return
    calls = _declaration_calls(_tree(module))
    assert not calls, (f"{_relative(module)} calls the user's declared callable: {calls}; ask dpcvx.verification "
                       "(the VerifiedProblem, or a function beside the declared loss)")


def test_the_declaration_scanner_sees_a_call():
    source = "def f(self, loss):\n    loss(0)\n    self.loss(z)\n    self.regularizer(w)\n    losses.logistic()\n"
    assert _declaration_calls(ast.parse(source)) == ["loss (line 2)", "self.loss (line 3)",
                                                      "self.regularizer (line 4)"]


def _unnamed_modules(package: Path) -> list[str]:
    """The modules and subpackages of ``package`` its docstring does not name as :mod:`.name`."""
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    members = [path.stem for path in package.glob("*.py") if path.stem not in ("__init__", "__main__")]
    members += [path.name for path in package.iterdir() if (path / "__init__.py").is_file()]
    return sorted(name for name in members if f":mod:`.{name}`" not in docstring)


SUBPACKAGES = sorted(path.parent for path in PACKAGE.rglob("__init__.py") if path.parent != PACKAGE)


def test_no_two_modules_share_a_name():
    """One name, one meaning: a module's file name is unique in the package (the exact samplers are not
    ``exact.py`` beside the verifier's exact numbers, the file codec's records say what they record), so that a
    name in a traceback, a docstring or a review names one module. The package entry points ``__init__`` and
    ``__main__`` are the same concept wherever they stand."""
    names: dict[str, list[str]] = {}
    for module in MODULES:
        if module.name not in ("__init__.py", "__main__.py"):
            names.setdefault(module.name, []).append(_relative(module).as_posix())
    assert not {name: places for name, places in names.items() if len(places) > 1}


@pytest.mark.parametrize("package", SUBPACKAGES, ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_each_subpackage_docstring_names_its_modules(package):
    assert not _unnamed_modules(package), (f"the docstring of {package.relative_to(PACKAGE).as_posix()}/__init__.py "
                                           f"does not name {_unnamed_modules(package)} (as :mod:`.name`)")


def test_each_subpackage_has_a_test_folder():
    """tests/README.md: the folders mirror the package, a test in the folder of the subpackage whose behaviour it
    pins (dpcvx.sklearn's tests lived in tests/models for sixty sessions, against issue 29's rule)."""
    tests = PACKAGE.parent / "tests"
    top = {package.relative_to(PACKAGE).parts[0] for package in SUBPACKAGES}
    assert top and not {name for name in top if not (tests / name).is_dir()}


def test_the_docstring_check_sees_an_unnamed_module(tmp_path):
    (tmp_path / "__init__.py").write_text('"""* :mod:`.a`: the first."""\n')
    (tmp_path / "a.py").write_text("")
    (tmp_path / "b.py").write_text("")
    assert _unnamed_modules(tmp_path) == ["b"]


def test_every_public_error_and_warning_class_is_listed():
    """Every exception or warning class dpcvx.exceptions defines (not a private one) is in its ``__all__``:
    NoiseDominatesWarning, the warning the estimators give most and the command line names, was left out. The package
    lists it too, with the other warnings a user filters by name."""
    import inspect

    import dpcvx
    import dpcvx.exceptions as exceptions

    defined = [name for name, value in vars(exceptions).items() if inspect.isclass(value)
               and issubclass(value, BaseException) and value.__module__ == exceptions.__name__
               and not name.startswith("_")]
    assert "NoiseDominatesWarning" in defined
    assert [name for name in defined if name not in exceptions.__all__] == []
    assert dpcvx.NoiseDominatesWarning is exceptions.NoiseDominatesWarning and "NoiseDominatesWarning" in dpcvx.__all__
