"""DP-SGD with Opacus, a contender of benchmarks/delta_mechanisms.py run in its own virtual environment.

Opacus needs torch, which dpcvx does not depend on, so this script runs
under the Python of a separate virtual environment (by default
/work/venv-opacus: ``python -m venv /work/venv-opacus && /work/venv-opacus/bin/pip
install torch==2.13.0 opacus numpy``) and imports neither dpcvx nor scipy.
benchmarks/delta_mechanisms.py calls it as a subprocess:

    VENV_PYTHON benchmarks/dpsgd_opacus.py JOB.npz JOB.json   # prints one JSON object

``JOB.npz`` holds X_train, y_train (labels in {-1, +1}), X_test, y_test;
``JOB.json`` holds ``runs``: a list of {"epsilon", "delta", "learning_rate",
"seed"} and the shared ``lam``, ``epochs``, ``batch_size``, ``max_grad_norm``,
``accountant`` and ``max_train_rows``.

The model minimises the benchmark's objective (1/n) sum_i log(1 + exp(-y_i w^T x_i))
+ (Lam/2) ||w||^2 (or the Huber hinge with h = 0.5) over a linear map without
bias (the constant feature is in the rows). Opacus makes the SGD optimiser
private: Poisson sampling with expected batch ``batch_size``, per-example
gradients clipped to ``max_grad_norm`` (rows have norm <= 1 and |l'| <= 1, so
the clipping never binds at 1), Gaussian noise whose multiplier
``make_private_with_epsilon`` sets for (epsilon, delta) over ``epochs``
epochs with the chosen accountant. The ridge is weight decay: it does not
touch the data. Opacus accounts for ADD/REMOVE neighbours only. The last
iterate is released; the output is its test error.
"""

from __future__ import annotations

import json
import sys
import time
import warnings

import numpy as np
import torch
from opacus import PrivacyEngine
from torch.utils.data import DataLoader, TensorDataset

HUBER_H = 0.5


def margin_loss(margins: torch.Tensor, loss: str) -> torch.Tensor:
    """Per-example loss of the margin z = y w^T x: logistic log(1 + e^-z) or the Huber hinge (h = 0.5)."""
    if loss == "logistic":
        return torch.nn.functional.softplus(-margins)
    # Huber hinge (Chapelle 2007): 0 for z > 1 + h, (1 + h - z)^2 / (4h) on |1 - z| <= h, 1 - z below.
    quadratic = (1 + HUBER_H - margins) ** 2 / (4 * HUBER_H)
    return torch.where(margins > 1 + HUBER_H, torch.zeros_like(margins),
                       torch.where(margins < 1 - HUBER_H, 1 - margins, quadratic))


def train(X, y, run: dict, job: dict) -> tuple[np.ndarray, dict]:
    torch.manual_seed(run["seed"])
    generator = torch.Generator().manual_seed(run["seed"])
    data = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
    loader = DataLoader(data, batch_size=job["batch_size"], shuffle=True, generator=generator)
    model = torch.nn.Linear(X.shape[1], 1, bias=False, dtype=torch.float64)
    torch.nn.init.zeros_(model.weight)
    optimizer = torch.optim.SGD(model.parameters(), lr=run["learning_rate"], weight_decay=job["lam"])
    engine = PrivacyEngine(accountant=job["accountant"], secure_mode=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, optimizer, loader = engine.make_private_with_epsilon(
            module=model, optimizer=optimizer, data_loader=loader, target_epsilon=run["epsilon"],
            target_delta=run["delta"], epochs=job["epochs"], max_grad_norm=job["max_grad_norm"],
            noise_generator=generator)
    steps = 0
    for _ in range(job["epochs"]):
        for xb, yb in loader:
            if xb.shape[0] == 0:  # Poisson sampling can draw an empty batch; the step still counts
                optimizer.zero_grad()
                continue
            optimizer.zero_grad()
            margins = yb * model(xb).squeeze(1)
            margin_loss(margins, job["loss"]).mean().backward()
            optimizer.step()
            steps += 1
    w = model._module.weight.detach().numpy().ravel().copy()
    info = {"noise_multiplier": float(optimizer.noise_multiplier), "steps": steps,
            "spent_epsilon": float(engine.get_epsilon(run["delta"])),
            "sample_rate": float(1 / len(loader))}
    return w, info


def main(argv: list[str]) -> None:
    arrays = np.load(argv[0])
    with open(argv[1]) as handle:
        job = json.load(handle)
    torch.set_num_threads(1)
    X_train, y_train = arrays["X_train"], arrays["y_train"]
    if job.get("max_train_rows") and X_train.shape[0] > job["max_train_rows"]:
        keep = np.sort(np.random.default_rng(job["subsample_seed"]).permutation(X_train.shape[0])
                       [: job["max_train_rows"]])
        X_train, y_train = X_train[keep], y_train[keep]
    results = []
    for run in job["runs"]:
        start = time.perf_counter()
        w, info = train(X_train, y_train, run, job)
        error = float(np.mean(np.where(arrays["X_test"] @ w >= 0, 1.0, -1.0) != arrays["y_test"]))
        results.append({**run, "error": error, "seconds": time.perf_counter() - start, **info})
    print(json.dumps({"torch": torch.__version__, "opacus": __import__("opacus").__version__,
                      "train_rows": int(X_train.shape[0]), "results": results}))


if __name__ == "__main__":
    main(sys.argv[1:])
