"""Fixtures of the release tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from former_texts import former_text

from dpcvx.release.records.calibration_record import same_number

# The last bits of a decision value depend on the machine: its BLAS kernels (OpenBLAS picks them by processor,
# AVX-512 or not) and numpy's vectorised exp. 1 to 4 ulps were seen between two machines on the format 7 to 9
# fixtures; 1e-12 is about 4,500 ulps of 1.
LAST_BITS = 1e-12


@pytest.fixture
def as_written() -> Callable[[Any, Any], None]:
    """``as_written(actual, expected)``: a loaded file's outputs against those its writer computed: labels exactly,
    decision values and a regression's predictions (floats) to ``LAST_BITS``. The parameters they come from are
    checked exactly by the tests (the certificate's text, the file saved again)."""
    def check(actual: Any, expected: Any) -> None:
        values = np.asarray(actual)
        if values.dtype.kind == "f":
            np.testing.assert_allclose(values, expected, rtol=LAST_BITS, atol=LAST_BITS)
        else:
            np.testing.assert_array_equal(values, expected)
    return check


@pytest.fixture
def as_recorded() -> Callable[[Any, Any], None]:
    """``as_recorded(rewritten, source)``: a file saved again against the file it was loaded from, equal but for a
    calibration's numbers, which the loader recomputes from the public inputs and which another machine's
    eigensolver may move by a few ulps (TDDL's lambda_max of K_Z): those within ``same_number``'s tolerance."""
    def check(rewritten: Any, source: Any, path: str = "") -> None:
        if isinstance(source, dict) and isinstance(rewritten, dict):
            assert sorted(rewritten) == sorted(source), path
            for key in source:
                check(rewritten[key], source[key], f"{path}.{key}")
        elif isinstance(source, list) and isinstance(rewritten, list):
            assert len(rewritten) == len(source), path
            for index, (mine, theirs) in enumerate(zip(rewritten, source, strict=True)):
                check(mine, theirs, f"{path}[{index}]")
        elif ".calibration." in path and isinstance(source, float):
            assert same_number(source, rewritten), f"{path}: {rewritten!r} != {source!r}"
        else:
            assert rewritten == source and type(rewritten) is type(source), f"{path}: {rewritten!r} != {source!r}"
    return check



#: the kinds of the format 9 and 10 fixtures fitted on a schema's tables (the others on arrays, "named" on a frame)
SCHEMA_KINDS = ("linear", "linear_stats", "multi", "huber", "linreg", "linreg_gradient")


@pytest.fixture
def recorded_inputs() -> Callable[[dict, str, Any], Any]:
    """``recorded_inputs(expected, name, model)``: the records a fixture's expected values (``expected``, its
    expected.json) were computed on, as the loaded model takes them: the schema's encoded table, the rows, or the
    rows as the named frame."""
    import pandas as pd

    def inputs(expected: dict, name: str, model: Any) -> Any:
        if name in SCHEMA_KINDS:
            return model.schema.transform(expected["table"])
        rows = np.array(expected["rows"])
        return pd.DataFrame({"a": rows[:, 0], "b": rows[:, 1]}) if name == "named" else rows
    return inputs


@pytest.fixture
def unversioned() -> Callable[[dict], dict]:
    """``unversioned(data)``: a model file without its format versions (a multiclass file's entries' too), its digest,
    a statistics map's ``input_bound`` null (the raw rows its version 10 writer read), its curve's parts of private
    draws named by the quantile's name (the one name versions 12 and older gave every draw) and a multiclass file's
    null ``column_statistics`` and ``fit_epsilon`` (no draw: what the step from version 13 records) and a certificate's
    ``noise_source`` "not-recorded" (what the step from version 18 records) and a tuned file's curves of one candidate
    unmarked, its certificates' records of its tuning record made of it (what the step from version 19 changes), what
    the steps from older versions may change."""
    from dpcvx.privacy.privacy_curve import CANDIDATE_KEY, DrawnPart
    from dpcvx.release.tuning_record import TUNING_RECORD, tuning_digest

    def strip(data: dict) -> dict:
        data = json.loads(json.dumps(data))
        for record in [data, *data.get("per_class", [])]:
            saved = record.get("preprocessing", {}).get("row_map", {}).get("feature_map")
            if isinstance(saved, dict) and "input_bound" in saved and saved["input_bound"] is None:
                del saved["input_bound"]
            if record.get("certificate", {}).get("noise_source") == "not-recorded":  # the step from version 18's
                del record["certificate"]["noise_source"]
            for part in record.get("certificate", {}).get("privacy_curve", {}).get("parts", []):
                if part["what"] in {drawn.value for drawn in DrawnPart}:
                    part["what"] = DrawnPart.QUANTILE.value
        if isinstance(data.get("tuning"), dict):
            record = data["tuning"]["certificate"]
            release = record.get("release") or {}
            for curve in [data.get("certificate", {}).get("privacy_curve", {}), release.get("privacy_curve", {}),
                          *record.get("candidate_curves", [])]:
                curve.pop(CANDIDATE_KEY, None)
            for holder in [data, *data.get("per_class", [])]:
                if TUNING_RECORD in holder.get("certificate", {}):
                    holder["certificate"][TUNING_RECORD] = tuning_digest(data["tuning"])
        entries = [{key: value for key, value in entry.items() if key != "format_version"}
                   for entry in data.get("per_class", [])]
        drawn = {key for key in ("column_statistics", "fit_epsilon") if key in data and data[key] is None}
        return {**{key: value for key, value in data.items() if key not in {"format_version", "sha256", *drawn}},
                **({"per_class": entries} if entries else {})}
    return strip


def read_as_current(data: dict, report: str, loaded: Any) -> tuple[dict, str]:
    """(the file ``data`` and its writer's certificate ``report``) with each former text (a drawn guarantee's ``:g``
    numbers, a draw's former theorem: docs/model-files.md) as the loaded release holds it, this version's text of
    the same records, which it saves again; every other field as the file holds it. The reader accepts a former text
    only in a file of a version whose writers wrote it (an attacker probe, session 69, P9 F3)."""
    data = json.loads(json.dumps(data))
    entries = data.get("per_class", [data])
    held = loaded.certificate.per_class if "per_class" in data else [loaded.certificate]
    for entry, certificate in zip(entries, held, strict=True):
        now = certificate.to_dict()
        report = report.replace(entry["certificate"]["guarantee"], now["guarantee"])
        entry["certificate"]["guarantee"] = now["guarantee"]
        for key in ("column_statistics", "private_bound", "private_label_bound"):
            record = entry["certificate"].get(key)
            for text in ("theorem", "composition") if isinstance(record, dict) else ():
                if text in record:
                    record[text] = now[key][text]
    return data, report


@pytest.fixture
def loads_as_written(as_written, as_recorded, recorded_inputs, unversioned, tmp_path) -> Callable[..., None]:
    """``loads_as_written(folder, expected, name)``: a fixture file of an older format version loads with the
    certificate text, decision values and predictions its writer computed (``expected``, the folder's expected.json),
    and saved again it is of the current version with its digest, nothing else changed, and loads and predicts the
    same."""
    import dpcvx
    from dpcvx.release.records.header import MODEL_FORMAT_VERSION, file_digest

    def check(folder: Any, expected: dict, name: str) -> None:
        source, recorded = folder / f"{name}.json", expected[name]
        loaded = dpcvx.load(source)
        written, text = read_as_current(json.loads(source.read_text()), recorded["certificate"], loaded)
        assert former_text(loaded.certificate) == text
        as_written(np.asarray(loaded.decision_function(recorded_inputs(expected, name, loaded))), recorded["decision"])
        as_written(loaded.predict(recorded_inputs(expected, name, loaded)), recorded["predict"])
        rewritten = json.loads(dpcvx.save(loaded, tmp_path / "current.json").read_text())
        assert rewritten["format_version"] == MODEL_FORMAT_VERSION
        assert rewritten["sha256"] == file_digest(rewritten)
        as_recorded(unversioned(rewritten), unversioned(written))  # nothing else differs
        again = dpcvx.load(tmp_path / "current.json")
        assert former_text(again.certificate) == text
        as_written(again.predict(recorded_inputs(expected, name, again)), recorded["predict"])
    return check
