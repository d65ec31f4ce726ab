"""The layering of docs/architecture.md, checked on the source: who may import sympy, who may
draw random numbers, and which layer may import which.

Each rule is read off the module's syntax tree (imports and attribute calls), so a rule broken
anywhere in the package fails here with the module and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "dpcvx"
MODULES = sorted(PACKAGE.rglob("*.py"))

# Random draws: methods of numpy Generators and the OS entropy source.
DRAWS = {"normal", "standard_normal", "laplace", "gamma", "standard_gamma", "exponential", "uniform", "random",
         "choice", "permutation", "shuffle", "integers", "standard_cauchy", "binomial", "beta", "default_rng",
         "urandom", "SeedSequence"}
# Randomness outside privacy/ that is not a mechanism's: synthetic data for the demo.
DRAWS_ALLOWED = {"demo.py": "the demo's synthetic data set, not a mechanism's noise",
                 "data/datasets.py": "the experiments' row subsample of a public benchmark file"}

# The layers, lowest first: a module may import its own layer and the layers before it.
LAYERS = [
    {"exceptions", "version", "validation", "rounding", "losses", "progress"},
    {"verification"},
    {"privacy"},
    {"data"},
    {"solvers"},
    {"release"},
    {"models"},
    {"estimators", "regressors", "noise_warning", "plots", "demo", "cli", "__main__", "__init__"},
]


# The audit lives with the privacy tools but runs whole learners and reads release files.
LAYER_OF_MODULE = {"privacy/audit.py": 6}


def _layer(relative: Path) -> int:
    if relative.as_posix() in LAYER_OF_MODULE:
        return LAYER_OF_MODULE[relative.as_posix()]
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
    tree = ast.parse(module.read_text(encoding="utf-8"))
    sympy_imports = [line for name, line in _imported_modules(tree, module) if name.split(".")[0] == "sympy"]
    assert not sympy_imports, f"{_relative(module)} imports sympy at lines {sympy_imports}: only verification/ may"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(_relative(m)))
def test_only_privacy_draws_random_numbers(module):
    relative = _relative(module)
    if relative.parts[0] == "privacy" or relative.as_posix() in DRAWS_ALLOWED:
        return
    tree = ast.parse(module.read_text(encoding="utf-8"))
    draws = [f"{node.func.attr} (line {node.lineno})" for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DRAWS
             and not (isinstance(node.func.value, ast.Name) and node.func.value.id in {"math", "np", "sp"}
                      and node.func.attr in {"gamma", "beta"})]
    assert not draws, f"{relative} draws random numbers ({', '.join(draws)}): draw them through dpcvx.privacy"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(_relative(m)))
def test_layers_import_only_downwards(module):
    relative = _relative(module)
    own = _layer(relative)
    tree = ast.parse(module.read_text(encoding="utf-8"))
    upward = []
    for name, line in _imported_modules(tree, module):
        parts = name.split(".")
        if parts[0] != "dpcvx" or len(parts) < 2:
            continue
        target = _layer(Path(parts[1] + ("" if (PACKAGE / parts[1]).is_dir() else ".py")))
        if target > own:
            upward.append(f"{name} (line {line})")
    assert not upward, f"{relative} (layer {own}) imports from a higher layer: {upward}; see docs/architecture.md"


def test_the_checks_see_a_violation(tmp_path):
    """The scanners are not vacuous: a planted sympy import, draw and upward import are found."""
    planted = PACKAGE / "solvers" / "planted.py"
    source = "import sympy\nfrom ..models import erm\ndef f(rng):\n    return rng.normal()\n"
    tree = ast.parse(source)
    names = [name for name, _ in _imported_modules(tree, planted)]
    assert "sympy" in names and "dpcvx.models" in names
    assert _layer(Path("models")) > _layer(_relative(planted))
    assert any(isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "normal" for n in ast.walk(tree))
