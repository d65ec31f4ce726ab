"""``certificate.clipping`` and ``certificate.weights.theorem`` are their writers' fixed texts (release.draw_texts):
the reader refuses another, where any text loaded (an edit with the digest recomputed: "clipped to R" turned into
"no row was clipped", or the record weights' theorem rewritten, and the report printed it beside the constants).
Every writer's file loads as written, and the text of another source (the intercept offset's theorem in a file of
class weights) is refused too."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from edited_files import load_edited

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.release.draw_texts import (
    BOUNDS_CLIPPED,
    NOT_CLIPPED,
    OFFSET_THEOREM,
    ROWS_CLIPPED,
    WEIGHTS_THEOREM,
)

QUIET = (dpcvx.exceptions.NoiseDominatesWarning, dpcvx.exceptions.ClippingWarning,
         dpcvx.exceptions.TrainingRowsWarning)


def _rows(n=600):
    rng = np.random.default_rng(11)
    X = rng.uniform(-0.5, 0.5, (n, 3))
    X /= np.linalg.norm(X, axis=1).max()
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y, np.clip(X @ np.array([0.5, -0.3, 0.2]), -1, 1)


WRITERS = {  # name -> (make the release from (X, y, r), its clipping text, its weights theorem or None)
    "erm": (lambda X, y, r: dpcvx.PrivateERM("logistic", lam=0.05, data_norm=1.0, classes=(0, 1)).fit(
        X, y, 1.0, random_state=0), ROWS_CLIPPED, None),
    "erm clip=False": (lambda X, y, r: dpcvx.PrivateERM("logistic", lam=0.05, data_norm=1.0, classes=(0, 1),
                                                        clip=False).fit(X, y, 1.0, random_state=0), NOT_CLIPPED, None),
    "class weights": (lambda X, y, r: dpcvx.DPLogisticRegression(
        epsilon=1.0, lam=0.05, class_weight={0: 2.0, 1: 1.0}, random_state=0).fit(X, y).model_, ROWS_CLIPPED,
        WEIGHTS_THEOREM),
    "private count weights": (lambda X, y, r: dpcvx.DPLogisticRegression(
        epsilon=1.0, lam=0.05, class_weight="balanced", random_state=0).fit(X, y).model_, ROWS_CLIPPED,
        WEIGHTS_THEOREM),
    "private count offset": (lambda X, y, r: dpcvx.DPLogisticRegression(
        epsilon=1.0, class_prior="private", threshold="prior", random_state=0).fit(X, y).model_, ROWS_CLIPPED,
        OFFSET_THEOREM),
    "huber regression": (lambda X, y, r: dpcvx.DPHuberRegressor(
        epsilon=1.0, label_bound=1.0, column_statistics=False, random_state=0).fit(X, r).model_, ROWS_CLIPPED, None),
    "adassp": (lambda X, y, r: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, mechanism="adassp", label_bound=1.0,
                                                        column_statistics=False, random_state=0).fit(X, r).model_,
               BOUNDS_CLIPPED, None),
    "adassp clip=False": (lambda X, y, r: dpcvx.DPLinearRegression(
        epsilon=1.0, delta=1e-6, mechanism="adassp", label_bound=1.0, column_statistics=False, clip=False,
        random_state=0).fit(X, r).model_, NOT_CLIPPED, None),
}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    X, y, r = _rows()
    files = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QUIET)
        for name, (make, _, _) in WRITERS.items():
            path = tmp_path_factory.mktemp("w") / "m.json"
            files[name] = json.loads(dpcvx.save(make(X, y, r), path).read_text())
    return files


@pytest.mark.parametrize("name", WRITERS)
def test_each_writer_records_its_texts_and_loads(saved, tmp_path, name):
    _, clipping, theorem = WRITERS[name]
    certificate = saved[name]["certificate"]
    assert certificate["clipping"] == clipping
    assert (certificate.get("weights") or {}).get("theorem") == theorem
    assert load_edited(saved[name], tmp_path).certificate.clipping == clipping


@pytest.mark.parametrize("name", WRITERS)
def test_an_edited_clipping_is_refused(saved, tmp_path, name):
    _, clipping, _ = WRITERS[name]
    # the other kind's text (the file records no clip flag: "refused" and the kind's own clipped text are both
    # genuine, so that swap is not detectable from the file)
    other = ROWS_CLIPPED if "adassp" in name else BOUNDS_CLIPPED
    for text in ("no row was clipped", other, clipping + " "):
        edited = json.loads(json.dumps(saved[name]))
        edited["certificate"]["clipping"] = text
        with pytest.raises(FileError, match=r"certificate\.clipping is not the text dpcvx records there"):
            load_edited(edited, tmp_path)


@pytest.mark.parametrize("name", [name for name, (_, _, theorem) in WRITERS.items() if theorem is not None])
def test_an_edited_weights_theorem_is_refused(saved, tmp_path, name):
    _, _, theorem = WRITERS[name]
    other = OFFSET_THEOREM if theorem == WEIGHTS_THEOREM else WEIGHTS_THEOREM
    for text in (theorem.replace("w_max", "1"), theorem + " (edited)", other):
        edited = json.loads(json.dumps(saved[name]))
        edited["certificate"]["weights"]["theorem"] = text
        with pytest.raises(FileError, match=r"certificate\.weights\.theorem is not the text dpcvx records there"):
            load_edited(edited, tmp_path)
