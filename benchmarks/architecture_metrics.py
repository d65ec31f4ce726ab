"""The package's shape at two or more commits, read from git (issue 41's before/after table).

For each revision: the modules under ``dpcvx/`` (``.py`` files), their lines, the top-level modules
(``dpcvx/*.py`` other than ``__init__`` and ``__main__``), the subpackages, the public names (the length of
``__all__`` in ``dpcvx/__init__.py``, read from its syntax tree), and the modules of 500 lines or more.
Nothing is imported or run: each file is read with ``git show``, so any commit can be measured::

    python -m benchmarks.architecture_metrics 6512f82 HEAD    # the wave's start and now
"""

from __future__ import annotations

import argparse
import ast
import subprocess
from pathlib import Path

from benchmarks.common import REPO_ROOT, RunRecord, write_json, write_markdown

RESULTS = Path(__file__).resolve().parent / "results"
LONG = 500


def _git(*arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=REPO_ROOT, check=True, capture_output=True, text=True).stdout


def public_names(source: str) -> int:
    """len(__all__) of a module's source (a literal list or tuple of strings)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return len(ast.literal_eval(node.value))
    raise ValueError("no __all__ in dpcvx/__init__.py")


def shape(revision: str) -> dict:
    """The counts above for one revision."""
    paths = [p for p in _git("ls-tree", "-r", "--name-only", revision, "dpcvx").splitlines() if p.endswith(".py")]
    lines = {path: _git("show", f"{revision}:{path}").count("\n") for path in paths}
    top = [p for p in paths if p.count("/") == 1 and Path(p).stem not in ("__init__", "__main__")]
    packages = [p for p in paths if p.endswith("/__init__.py") and p != "dpcvx/__init__.py"]
    return {"revision": revision, "commit": _git("rev-parse", "--short", revision).strip(),
            "modules": len(paths), "lines": sum(lines.values()), "top_level_modules": len(top),
            "top_level": sorted(Path(p).stem for p in top), "subpackages": len(packages),
            "public_names": public_names(_git("show", f"{revision}:dpcvx/__init__.py")),
            "long_modules": sum(count >= LONG for count in lines.values()),
            "largest": max(lines.values())}


def table(rows: list[dict]) -> str:
    header = ("| revision | modules | lines | top-level modules | subpackages | public names | "
              f"modules of {LONG}+ lines | largest module (lines) |")
    body = [f"| {r['revision']} ({r['commit']}) | {r['modules']} | {r['lines']:,} | {r['top_level_modules']} | "
            f"{r['subpackages']} | {r['public_names']} | {r['long_modules']} | {r['largest']} |" for r in rows]
    listing = [f"- top level at {r['revision']}: {', '.join(r['top_level'])}" for r in rows]
    return "\n".join(["# The package's shape (benchmarks/architecture_metrics.py)", "", header,
                      "|---|---|---|---|---|---|---|---|", *body, "", *listing])


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="*", default=["HEAD"])
    parser.add_argument("--out", type=Path, default=RESULTS)
    arguments = parser.parse_args(argv)
    record = RunRecord("benchmarks.architecture_metrics", argv)
    rows = [shape(revision) for revision in arguments.revisions]
    write_json(arguments.out / "architecture_metrics.json", {"rows": rows})
    print(write_markdown(arguments.out / "architecture_metrics.md", table(rows), record))
    return rows


if __name__ == "__main__":
    main()
