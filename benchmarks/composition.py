"""What k default Gaussian output releases after private column ranges cost together (docs/accounting.md).

``DPLogisticRegression(epsilon=1, delta=1e-6, mechanism="output")`` draws private column ranges (a pure part of
its epsilon), then fits with the analytic Gaussian of multiplier z(eps_fit, delta) (theory section 29, Claim 5).
k such releases on a public generated table (k in {1, 2, 5, 10, 20}, each seeded apart) are charged to one
accountant, and their curves are composed at delta 1e-5:

* dpcvx: ``compose_epsilon`` by privacy loss distributions ("pld", the default with dp-accounting installed)
  and by Renyi DP ("rdp"),
  and the accountant's ``spent`` (at the sum of the releases' deltas, k 1e-6: 1e-5 at k = 10);
* dp-accounting's own ``RdpAccountant`` (replace-one) on ``PrivacyCurve.to_dp_events()`` composed k times, an
  accounting that is not dpcvx's (the events are the bridge's);
* what each fit cost as an (eps_fit, delta) pair, as before the fifty-third session: basic composition, k.

The curves are functions of the public options only (the drawn values do not enter them), so the table is the
same on any data; the fits are run so that the ledger is the one a user's releases write.

Run (a few seconds; needs dp-accounting):

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.composition [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

from benchmarks import common

COUNTS, EPSILON, DELTA_EACH, DELTA = (1, 2, 5, 10, 20), 1.0, 1e-6, 1e-5
METHODS = ("pld", "rdp")


def table(seed: int = 0, n: int = 4000, d: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """A public generated table: uniform columns on [-0.5, 0.5], a noisy threshold of the first."""
    rng = common.generator(seed)
    X = rng.uniform(-0.5, 0.5, (n, d))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


def dp_accounting_rdp(curves: list, delta: float) -> float:
    """epsilon at ``delta`` of dp-accounting's Renyi accountant (replace-one) on the curves' events."""
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    accountant = RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    for curve in curves:
        accountant.compose(curve.to_dp_events())
    return float(accountant.get_epsilon(delta))


def run(seed: int) -> list[dict]:
    import dpcvx
    from dpcvx.privacy.privacy_curve import compose_epsilon

    X, y = table(seed)
    rows = []
    for count in COUNTS:
        accountant = dpcvx.PrivacyAccountant(10.0 * count, 1e-3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for index in range(count):
                dpcvx.DPLogisticRegression(epsilon=EPSILON, delta=DELTA_EACH, mechanism="output",
                                           accountant=accountant,
                                           random_state=int(common.int_seed(seed, count, index))).fit(X, y)
        curves = [entry.curve for entry in accountant.ledger]
        parts = curves[0].parts
        rows.append({
            "releases": count,
            "parts": [{"kind": part.kind, "what": part.what, "epsilon": part.epsilon,
                       "noise_multiplier": part.noise_multiplier} for part in parts],
            "accountant": list(accountant.spent),
            **{method: compose_epsilon(curves, DELTA, method=method) for method in METHODS},
            "dp_accounting_rdp": dp_accounting_rdp(curves, DELTA),
            "each_a_pair": count * EPSILON,
        })
    return rows


def render(rows: list[dict]) -> str:
    first = rows[0]["parts"]
    lines = [
        "# k default Gaussian output releases, composed",
        "",
        f"Each release: `DPLogisticRegression(epsilon={EPSILON:g}, delta={DELTA_EACH:g}, mechanism=\"output\")` "
        "at its defaults, whose curve has the parts " + "; ".join(
            f"{part['what']} ({part['kind']}, " + (f"epsilon {part['epsilon']:.4g})" if part["epsilon"] is not None
                                                   else f"noise multiplier {part['noise_multiplier']:.4g})")
            for part in first) + f". Composed at delta {DELTA:g}.",
        "",
        "| releases | dpcvx (PLD) | dpcvx (Renyi) | dp-accounting RdpAccountant | each fit an (eps_fit, delta) "
        "pair, basic | the accountant's `spent` (epsilon, delta) |",
        "|---|---|---|---|---|---|",
        *(f"| {row['releases']} | {row['pld']:.2f} | {row['rdp']:.2f} | {row['dp_accounting_rdp']:.2f} | "
          f"{row['each_a_pair']:.2f} | ({row['accountant'][0]:.2f}, {row['accountant'][1]:.0e}) |"
          for row in rows),
        "",
        "The Renyi columns are dpcvx's own Renyi bound and dp-accounting's on the bridge's events (not dpcvx's "
        "code); both are above the privacy loss distributions' epsilon, which is dpcvx's default with "
        "dp-accounting installed.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> list[dict]:
    record = common.RunRecord("benchmarks.composition", argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    common.add_result_arguments(parser, "composition")
    options = parser.parse_args(argv)
    with common.limit_threads(1):
        rows = run(options.seed)
    out = Path(options.out)
    print(common.write_markdown(out / f"{options.tag}.md", render(rows), record))
    common.write_json(out / f"{options.tag}.json", {"rows": rows, "settings": {"seed": options.seed},
                                                     "run": record.finish()})
    return rows


if __name__ == "__main__":
    main()
