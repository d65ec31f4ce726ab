"""Regenerate the README's "Results" section (and the per-run Markdown) from benchmarks/results/*.json.

The text between ``<!-- results:start -->`` and ``<!-- results:end -->`` in
README.md is replaced; nothing else in README.md is touched. The full
recorded runs (``*_full.json``) are used when present, else the quick ones; for
the reproduction, the recorded run with the most folds x draws is shown.

    python -m benchmarks.render_results
    python -m benchmarks.render_results --check     # exit 1 if README.md is out of date
"""

from __future__ import annotations

import argparse
import json
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


def pick_reproduction(results: Path) -> tuple[dict | None, str | None]:
    """The reproduce_*.json with the most folds x noise draws (the most thorough recorded run)."""
    runs = sorted(results.glob("reproduce_*.json"))
    if not runs:
        return None, None
    def effort(path: Path) -> int:
        config = json.loads(path.read_text())["config"]
        return config["folds_run"] * config["draws"]
    tag = max(runs, key=effort).stem.removeprefix("reproduce_")
    return pick(results, "reproduce", prefer=(tag,))


def render(readme: Path, results: Path) -> str:
    reproduction, repro_file = pick_reproduction(results)
    speed, speed_file = pick(results, "speed")
    run_all, _ = pick(results, "run_all", prefer=("quick",))
    tuning, tuning_file = pick(results, "tuning_kdd", prefer=("", "quick"))
    kernels, kernels_file = pick(results, "kernels")
    body = report.readme_section(
        reproduction, speed,
        {"reproduction": repro_file, "speed": speed_file, "tuning": tuning_file, "kernels": kernels_file},
        run_all, tuning, kernels,
    )
    text = readme.read_text()
    if START not in text or END not in text or text.index(START) > text.index(END):
        raise SystemExit(f"{readme} has no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return head + START + "\n" + body + END + tail


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.render_results", description=__doc__.split("\n\n")[0])
    parser.add_argument("--readme", type=Path, default=common.REPO_ROOT / "README.md")
    parser.add_argument("--results", type=Path, default=common.RESULTS_DIR)
    parser.add_argument("--check", action="store_true", help="only check that README.md is up to date")
    args = parser.parse_args(argv)
    new = render(args.readme, args.results)
    if args.check:
        if new != args.readme.read_text():
            print(f"{args.readme} is out of date: run python -m benchmarks.render_results", file=sys.stderr)
            return 1
        return 0
    for path in sorted(args.results.glob("*.json")):  # per-run Markdown, from the same JSON
        data = json.loads(path.read_text())
        if data.get("kind") == "reproduce_jmlr":
            path.with_suffix(".md").write_text(report.reproduction_markdown(data))
        elif data.get("kind") == "speed":
            path.with_suffix(".md").write_text(report.speed_markdown(data))
    args.readme.write_text(new)
    print(f"[render] updated {args.readme}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
