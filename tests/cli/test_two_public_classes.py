"""Two public classes make a binary model everywhere, so every file written can be read back.

``dpcvx fit --classes 0,1`` wrote a one-vs-rest file of two classes that ``dpcvx.load`` refuses
(a multiclass model has three or more classes); the learner now refuses two classes with the
binary alternative, and the CLI fits the binary model over the two labels.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.models.multiclass import PrivateMulticlassERM


def test_a_one_vs_rest_learner_of_two_classes_is_refused_with_the_binary_alternative():
    with pytest.raises(dpcvx.InputError, match=r"three or more public classes.*PrivateERM\(classes=\(a, b\)\)"):
        PrivateMulticlassERM(dpcvx.PrivateERM(data_norm=1.0), (0, 1))


def test_cli_two_classes_write_a_binary_release_that_loads(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(300, 2))
    rows = "".join(f"{a:.4f},{b:.4f},{int(a > 0)}\n" for a, b in X)
    (tmp_path / "d.csv").write_text("a,b,label\n" + rows)
    monkeypatch.chdir(tmp_path)
    code = main(["fit", "d.csv", "--target", "label", "--classes", "0,1", "--numeric", "a:-1:1", "--numeric",
                 "b:-1:1", "--data-norm", "1.5", "--epsilon", "1", "--lam", "0.01", "--random-state", "0",
                 "--no-fit-intercept", "--out", "m.json"])  # raw X below, with a sign threshold at 0
    assert code == 0
    model = dpcvx.load(tmp_path / "m.json")
    assert [str(c) for c in model.classes_] == ["0", "1"]
    assert np.mean(model.predict(X).astype(str) == np.where(X[:, 0] > 0, "1", "0")) > 0.8
