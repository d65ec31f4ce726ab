"""Regenerate the results page docs/results.md (and the per-run Markdown) from benchmarks/results/*.json.

The text between ``<!-- results:start -->`` and ``<!-- results:end -->`` in
docs/results.md is replaced; nothing else in the page is touched. Relative
links are written relative to the page. The full
recorded runs (``*_full.json``) are used when present, else the quick ones; for
the reproduction, see :func:`pick_reproductions`.

    python -m benchmarks.render_results
    python -m benchmarks.render_results --check     # exit 1 if docs/results.md is out of date
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from benchmarks import common, report

START = "<!-- results:start -->"
END = "<!-- results:end -->"


def pick(results: Path, kind: str, prefer: tuple[str, ...] = ("full", "quick")) -> tuple[dict | None, str | None]:
    """The first of results/{kind}_{tag}.json for the tags in ``prefer`` ("" means {kind}.json)."""
    for tag in prefer:
        path = results / (f"{kind}_{tag}.json" if tag else f"{kind}.json")
        if path.exists():
            return json.loads(path.read_text()), str(path.relative_to(common.REPO_ROOT)
                                                     if common.REPO_ROOT in path.parents else path)
    return None, None


def pick_reproductions(results: Path) -> list[tuple[dict, str]]:
    """The recorded reproductions to show, the main one first.

    Main: the run covering the most data sets, then with the most folds x
    draws. After it, every other run that is not in quick mode (for example a
    K = 50 run on one data set).
    """
    runs = []
    for path in sorted(results.glob("reproduce_*.json")):
        tag = path.stem.removeprefix("reproduce_")
        data, file = pick(results, "reproduce", prefer=(tag,))
        runs.append((data, file))
    if not runs:
        return []

    def coverage(run: tuple[dict, str]) -> tuple[int, int]:
        data = run[0]
        return len(data["data"]), data["config"]["folds_run"] * data["config"]["draws"]

    main = max(runs, key=coverage)
    others = sorted((run for run in runs if run is not main and not run[0].get("quick")), key=coverage, reverse=True)
    return [main, *others]


def rebase_links(body: str, page: Path) -> str:
    """Rewrite the repository-relative Markdown links of ``body`` relative to ``page`` (a file in the repository)."""
    page = page.resolve()
    root = common.REPO_ROOT.resolve()
    if root not in page.parents or page.parent == root:
        return body

    def rebase(match: re.Match) -> str:
        target = match.group(1)
        if "://" in target or target.startswith("#"):
            return match.group(0)
        return "](" + os.path.relpath(root / target, page.parent) + ")"

    return re.sub(r"\]\(([^)]+)\)", rebase, body)


def render(readme: Path, results: Path) -> str:
    reproductions = pick_reproductions(results)
    speed, speed_file = pick(results, "speed")
    run_all, _ = pick(results, "run_all", prefer=("quick",))
    tuning, tuning_file = pick(results, "tuning_kdd", prefer=("", "quick"))
    kernels, kernels_file = pick(results, "kernels")
    body = report.readme_section(
        reproductions, speed,
        {"speed": speed_file, "tuning": tuning_file, "kernels": kernels_file},
        run_all, tuning, kernels,
    )
    body = rebase_links(body, readme)
    text = readme.read_text()
    if START not in text or END not in text or text.index(START) > text.index(END):
        raise SystemExit(f"{readme} has no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return head + START + "\n" + body + END + tail


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.render_results", description=__doc__.split("\n\n")[0])
    parser.add_argument("--readme", "--page", type=Path, default=common.REPO_ROOT / "docs" / "results.md",
                        help="the page holding the results markers (default: docs/results.md)")
    parser.add_argument("--results", type=Path, default=common.RESULTS_DIR)
    parser.add_argument("--check", action="store_true", help="only check that the page is up to date")
    args = parser.parse_args(argv)
    new = render(args.readme, args.results)
    if args.check:
        if new != args.readme.read_text():
            print(f"{args.readme} is out of date: run python -m benchmarks.render_results", file=sys.stderr)
            return 1
        return 0
    for path in sorted(args.results.glob("*.json")):  # per-run Markdown, from the same JSON
        data = json.loads(path.read_text())
        if not isinstance(data, dict):  # a record that is a list of rows (two_valued_labels.json) has no kind
            continue
        if data.get("kind") == "reproduce_jmlr":
            path.with_suffix(".md").write_text(report.reproduction_markdown(data))
        elif data.get("kind") == "speed":
            path.with_suffix(".md").write_text(report.speed_markdown(data))
    args.readme.write_text(new)
    print(f"[render] updated {args.readme}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
