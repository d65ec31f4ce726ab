"""Running time of the exact samplers (dpcvx.privacy.exact_sampling) against their scale.

For each scale, ``--draws`` seeded draws are made through a source that counts the uniform
integer draws; the table gives, per sampler and scale, the mean, 99th percentile and maximum of
that count, the mean microseconds per draw, and the mean count split by the size of the draw
(|Z| below the scale, or at least the scale), which is the correlation a timing observer could
exploit. Run (about a minute):

    python -m benchmarks.exact_samplers [--draws 4000] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np

from benchmarks.common import RunRecord, write_json, write_markdown
from dpcvx.privacy.exact_sampling import GeneratorSource, discrete_gaussian, discrete_laplace

SCALES = [Fraction(1, 4), Fraction(1), Fraction(10, 3), Fraction(100), Fraction(2**20, 3), Fraction(2**40, 7)]


class CountingSource:
    """An integer source that counts its uniform draws (reproducible: seeded)."""

    reproducible = True

    def __init__(self, seed: int):
        self.inner = GeneratorSource(np.random.default_rng(seed))
        self.count = 0

    def below(self, k: int) -> int:
        self.count += 1
        return self.inner.below(k)


def measure(sample: Callable[[Fraction, CountingSource], int], scale: Fraction, draws: int, seed: int,
            width: float) -> dict:
    source = CountingSource(seed)
    counts, sizes = np.empty(draws), np.empty(draws)
    start = time.perf_counter()
    for i in range(draws):
        before = source.count
        sizes[i] = abs(sample(scale, source))
        counts[i] = source.count - before
    seconds = time.perf_counter() - start
    small = sizes < width
    return {"scale": str(scale), "mean_draws": float(counts.mean()),
            "p99_draws": float(np.percentile(counts, 99)), "max_draws": int(counts.max()),
            "microseconds": 1e6 * seconds / draws,
            "mean_draws_small": float(counts[small].mean()) if small.any() else None,
            "mean_draws_large": float(counts[~small].mean()) if (~small).any() else None}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=4000)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    args = parser.parse_args(argv)
    record = RunRecord("benchmarks.exact_samplers", argv)
    rows = []
    for scale in SCALES:
        rows.append({"sampler": "discrete Laplace (t)",
                     **measure(discrete_laplace, scale, args.draws, 1, float(scale))})
        rows.append({"sampler": "discrete Gaussian (sigma^2)",
                     **measure(discrete_gaussian, scale, args.draws, 2, float(scale) ** 0.5)})
    result = {"draws": args.draws, "rows": rows, "run": record.finish()}
    write_json(args.out / "exact_samplers.json", result)
    lines = ["# Exact samplers: uniform draws per sample against the scale",
             "", f"`python -m benchmarks.exact_samplers --draws {args.draws}` (seeded). A draw is one call "
             "of the integer source (uniform on [0, k)). Small/large: mean draws when |Z| is below / at least "
             "the scale (t, or sigma).", "",
             "| sampler | scale | mean draws | p99 | max | us per sample | mean, small Z | mean, large Z |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        small, large = row["mean_draws_small"], row["mean_draws_large"]
        lines.append(f"| {row['sampler']} | {row['scale']} | {row['mean_draws']:.2f} | {row['p99_draws']:.0f} | "
                     f"{row['max_draws']} | {row['microseconds']:.0f} | "
                     f"{'-' if small is None else f'{small:.2f}'} | {'-' if large is None else f'{large:.2f}'} |")
    write_markdown(args.out / "exact_samplers.md", "\n".join(lines), record)
    print("\n".join(lines))
    return result


if __name__ == "__main__":
    main()
