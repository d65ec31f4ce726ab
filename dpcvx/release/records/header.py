"""The header every model record starts with: the format's name, its version and the kinds of record.

A file of another version is refused (docs/model-files.md states the compatibility policy).
"""

from __future__ import annotations

MODEL_FORMAT = "dpcvx-model"
MODEL_FORMAT_VERSION = 9
KINDS = ("linear", "kernel", "multiclass", "regression")
