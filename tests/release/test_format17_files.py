"""Files of format version 17 load as they were written: pure-epsilon objective perturbations released at a stated
delta = 1e-6 (a ball-constrained logistic ``PrivateERM`` on 2,000 x 4 rows, a ``DPLogisticRegression`` on 3,000 x 5
and a one-vs-rest ``PrivateMulticlassERM`` of three classes on 6,000 x 6, each at random_state 5), written by dpcvx
at commit 8cd3e4e6 (the last to record such a release's curve as the statement's part (epsilon, delta)) through
``dpcvx.save``, with the certificate text, decision values and predictions that dpcvx computed
(``fixtures/format17/expected.json``).

The mechanism that ran is epsilon-DP, which implies the stated (epsilon, delta); version 18 records its curve as the
pure part (epsilon, 0) (``LinearCalibration.privacy_curve``), and the step from version 17 records it so for such a
file. A version 17 file already holding the pure part (written in the sixty-fourth session) loads as it is; a version
18 file holding the former part was not written by dpcvx and is refused, as is any other curve."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from former_texts import former_text

import dpcvx
from dpcvx.release.records.header import MODEL_FORMAT_VERSION, file_digest

FORMAT17 = Path(__file__).parent / "fixtures" / "format17"
EXPECTED = json.loads((FORMAT17 / "expected.json").read_text())
NAMES = ["ball", "estimator", "multiclass"]
WIDTH = {"ball": 4, "estimator": 5, "multiclass": 6}


def _certificates(data: dict) -> list[dict]:
    """The file's certificate records: its own, or a multiclass file's per-class ones."""
    return [data["certificate"]] if "certificate" in data else [entry["certificate"] for entry in data["per_class"]]


def _curve_deltas(data: dict) -> list[float]:
    return [part["delta"] for record in _certificates(data) for part in record["privacy_curve"]["parts"]]


def _with_curve_delta(data: dict, delta: float | None, version: int) -> dict:
    """``data`` at format ``version`` with each certificate's one curve part at ``delta`` (None: its certificate's
    delta), its digest made again: what a writer of that version would have written."""
    edited = json.loads(json.dumps(data))
    for record in [edited, *edited.get("per_class", [])]:
        record["format_version"] = version
    for certificate in _certificates(edited):
        (part,) = certificate["privacy_curve"]["parts"]
        part["delta"] = certificate["delta"] if delta is None else delta
    edited.pop("sha256")
    edited["sha256"] = file_digest(edited)
    return edited


def _model_curves(model: Any) -> list[tuple[float, float]]:
    certificate = model.certificate
    certificates = getattr(certificate, "per_class", None) or [certificate]
    return [(part.epsilon, part.delta) for one in certificates for part in one.privacy_curve.parts]


@pytest.mark.parametrize("name", NAMES)
def test_a_version_17_pure_release_at_delta_loads_with_the_pure_curve(name: str, as_written: Any, as_recorded: Any,
                                                                      unversioned: Any, tmp_path: Path) -> None:
    source = FORMAT17 / f"{name}.json"
    data = json.loads(source.read_text())
    assert data["format_version"] == 17 and data["sha256"] == file_digest(data)
    written = [record["delta"] for record in _certificates(data)]
    assert _curve_deltas(data) == written and all(delta > 0 for delta in written)
    loaded = dpcvx.load(source)
    assert former_text(loaded.certificate) == EXPECTED[name]["certificate"]
    assert all(delta == 0.0 for _, delta in _model_curves(loaded))
    rows = np.array(EXPECTED["rows"])[:, :WIDTH[name]]
    as_written(np.asarray(loaded.decision_function(rows)), EXPECTED[name]["decision"])
    as_written(loaded.predict(rows), EXPECTED[name]["predict"])
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert rewritten["format_version"] == MODEL_FORMAT_VERSION == 20 and rewritten["sha256"] == file_digest(rewritten)
    assert _curve_deltas(rewritten) == [0.0] * len(written)
    # nothing else differs: the statement, the calibration and the weights are the version 17 file's
    as_recorded(unversioned(rewritten), unversioned(_with_curve_delta(data, 0.0, 17)))


@pytest.mark.parametrize("name", NAMES)
def test_a_version_17_file_with_the_pure_curve_loads_and_a_version_18_file_with_the_former_one_is_refused(
        name: str, tmp_path: Path) -> None:
    """The two forms a version 17 dpcvx wrote load; version 18 holds the pure part only, so the statement's part
    in a version 18 file is an edit (the step from 17 recorded it, the reader used to accept it in any file)."""
    data = json.loads((FORMAT17 / f"{name}.json").read_text())
    pure = tmp_path / "pure17.json"
    pure.write_text(json.dumps(_with_curve_delta(data, 0.0, 17)))
    assert all(delta == 0.0 for _, delta in _model_curves(dpcvx.load(pure)))
    former = tmp_path / "former18.json"
    former.write_text(json.dumps(_with_curve_delta(data, None, 18)))
    with pytest.raises(dpcvx.exceptions.FileError, match="privacy_curve is not the curve"):
        dpcvx.load(former)


def test_a_version_17_file_with_another_curve_is_refused(tmp_path: Path) -> None:
    """The step records the pure part only where the version 17 part is the statement's (epsilon, delta)."""
    data = json.loads((FORMAT17 / "ball.json").read_text())
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(_with_curve_delta(data, 2e-6, 17)))
    with pytest.raises(dpcvx.exceptions.FileError, match="privacy_curve is not the curve"):
        dpcvx.load(edited)


def test_a_file_of_a_newer_version_is_refused_as_newer_not_as_edited(tmp_path: Path) -> None:
    """What a version 17 dpcvx now says of a file written by this one: it needs a newer dpcvx."""
    data = json.loads((FORMAT17 / "ball.json").read_text())
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(_with_curve_delta(data, 0.0, MODEL_FORMAT_VERSION + 1)))
    with pytest.raises(dpcvx.exceptions.FileError, match="written by a newer dpcvx") as refused:
        dpcvx.load(newer)
    assert "edited" not in str(refused.value)
