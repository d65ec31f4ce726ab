"""A saved model file edited in memory, its digest computed again, loaded: the tests of what the reader refuses in a
file whose digest matches (the digest is no defence against forgery; the reader's own checks are)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import dpcvx
from dpcvx.release.records.header import file_digest


def load_edited(data: dict[str, Any], tmp_path: Any) -> Any:
    """``data`` (a file's JSON, edited) with its digest recomputed, written under ``tmp_path`` and loaded."""
    data = {key: value for key, value in data.items() if key != "sha256"}
    data["sha256"] = file_digest(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return dpcvx.load(path)


def saved_json(model: Any) -> dict[str, Any]:
    """The JSON of ``model`` as :func:`dpcvx.save` writes it (in a temporary folder, removed after): the file a test
    then edits."""
    with tempfile.TemporaryDirectory() as folder:
        return json.loads(dpcvx.save(model, Path(folder) / "m.json").read_text())
