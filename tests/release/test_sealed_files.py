"""Every field of a model file is bound (format version 10): the file holds the SHA-256 digest of the rest of it
(``sha256``, dpcvx.release.records.header.file_digest), and a file changed after dpcvx wrote it is refused, also by
an edit of a field of which the file holds no second copy to compare (an audit found these loading: the order of
``classes`` or of a multiclass file's entries, a kernel release's centres, ``feature_names``, ``decision_cut``, a
certificate's texts and records). Re-indenting the file or reordering its keys changes no value and loads. The
files are the version 9 fixtures saved again (``fixtures/format9``), one of every kind."""

import copy
import json

import numpy as np
import pytest
from test_format9_files import EXPECTED, FORMAT9, KINDS

import dpcvx
from dpcvx.exceptions import FileError, InputError
from dpcvx.release import serialization

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files

CHANGED = "the file was changed after dpcvx wrote it. The digest detects edits and corruption, not forgery"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The text of every kind of file as this dpcvx writes it."""
    directory = tmp_path_factory.mktemp("sealed")
    return {name: dpcvx.save(dpcvx.load(FORMAT9 / f"{name}.json"), directory / f"{name}.json").read_text()
            for name in KINDS}


def _swap(items, i=0, j=1):
    items[i], items[j] = items[j], items[i]


# the audit's edits that loaded before the digest: each file's field has no other copy that a check compares
EDITS = {
    "binary classes reversed": ("named", lambda data: data["classes"].reverse()),
    "multiclass classes reordered": ("multi", lambda data: _swap(data["classes"])),
    "multiclass entries reordered": ("multi", lambda data: _swap(data["per_class"])),
    "TDDL centres permuted": ("tddl", lambda data: _swap(data["predictor"]["centers"])),
    "feature_names swapped": ("named", lambda data: data["feature_names"].reverse()),
    "feature_names deleted": ("named", lambda data: data.pop("feature_names")),
    "decision_cut changed": ("named", lambda data: data.update(decision_cut=0.5)),
    "lam_rule deleted": ("linear", lambda data: data["certificate"].pop("lam_rule")),
    "a constant's exact text nulled": ("linear", lambda data: data["certificate"]["constants"]["c"].update(exact=None)),
    "verification.dim nulled": ("linear", lambda data: data["certificate"]["verification"].update(dim=None)),
    "a condition's value text retyped": ("linear", lambda data: data["certificate"]["verification"]["conditions"][
        3].update(value="C^2")),
    "class weights swapped": ("weighted", lambda data: data["certificate"]["weights"].update(
        class_weights=[[0, 3.0], [1, 1.0]])),
}


@pytest.mark.parametrize("what", EDITS)
def test_an_edit_no_check_compares_is_refused(files, tmp_path, what):
    name, edit = EDITS[what]
    data = json.loads(files[name])
    edit(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(FileError, match=f"model file {path}: sha256 records '[0-9a-f]{{64}}' but the file's "
                                        f"content has [0-9a-f]{{64}}: {CHANGED}.*Restore the file"):
        dpcvx.load(path)


def _changed(value):
    """Another JSON value of the same kind as ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1 if value == 0 or isinstance(value, int) else value * (1 + 2 ** -40)
    if isinstance(value, str):
        return value + " "
    return 0 if value is None else [0]  # null, or an empty list or object


def _leaves(data, path=()):
    if isinstance(data, dict) and data:
        return [leaf for key, item in data.items() for leaf in _leaves(item, (*path, key))]
    if isinstance(data, list) and data:
        return [leaf for index, item in enumerate(data) for leaf in _leaves(item, (*path, index))]
    return [path]


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
@pytest.mark.parametrize("name", ["named", "multi", "tddl", "linreg_gradient"])
def test_a_change_of_any_value_of_a_file_is_refused(files, name):
    """Every leaf of the file changed in turn (a number by one part in 2^40, a text by a space, a flag, a null): none
    loads, whichever check refuses it."""
    data, loaded = json.loads(files[name]), []
    for path in _leaves(data):
        edited = copy.deepcopy(data)
        *parents, last = path
        holder = edited
        for key in parents:
            holder = holder[key]
        holder[last] = _changed(holder[last])
        try:
            serialization.model_from_dict(edited)
        except InputError:
            continue
        loaded.append(path)
    assert loaded == []


@pytest.mark.parametrize("name", KINDS)
def test_the_digest_is_missing_or_not_a_digest(files, tmp_path, name):
    data, path = json.loads(files[name]), tmp_path / "edited.json"
    for edited, found in (({key: value for key, value in data.items() if key != "sha256"}, "sha256 is missing"),
                          ({**data, "sha256": data["sha256"].upper()}, "sha256 records '[0-9A-F]{64}'"),
                          ({**data, "sha256": None}, "sha256 records None")):
        path.write_text(json.dumps(edited))
        with pytest.raises(FileError, match=f"{found}.*{CHANGED}"):
            dpcvx.load(path)


def _reordered(data):
    """``data`` with every object's keys in reverse order."""
    if isinstance(data, dict):
        return {key: _reordered(data[key]) for key in reversed(list(data))}
    return [_reordered(item) for item in data] if isinstance(data, list) else data


@pytest.mark.parametrize("name", KINDS)
def test_a_file_reindented_or_with_its_keys_reordered_loads_and_predicts_the_same(files, tmp_path, name, as_written,
                                                                                  recorded_inputs):
    """Its certificate is the same record (a kernel's text prints its kernel's keys in the file's order)."""
    data, expected = json.loads(files[name]), EXPECTED[name]
    certificate = dpcvx.load(FORMAT9 / f"{name}.json").certificate.to_dict()
    for text in (json.dumps(data), json.dumps(_reordered(data), indent=7), json.dumps(data, sort_keys=True, indent=1,
                                                                                      ensure_ascii=False)):
        (tmp_path / "moved.json").write_text(text)
        loaded = dpcvx.load(tmp_path / "moved.json")
        assert loaded.certificate.to_dict() == certificate
        as_written(np.asarray(loaded.decision_function(recorded_inputs(EXPECTED, name, loaded))), expected["decision"])
        as_written(loaded.predict(recorded_inputs(EXPECTED, name, loaded)), expected["predict"])


@pytest.mark.parametrize("name", KINDS)
def test_a_file_saved_again_is_the_same_text(files, tmp_path, name):
    """The round trip of every kind: a loaded file saved again is byte for byte the file (its digest too)."""
    (tmp_path / "first.json").write_text(files[name])
    assert dpcvx.save(dpcvx.load(tmp_path / "first.json"), tmp_path / "again.json").read_text() == files[name]


def test_the_digest_is_not_a_signature(files):
    """Whoever edits a file can compute the digest again: an edit that also rewrote it loads (docs/model-files.md,
    what loading cannot check)."""
    from dpcvx.release.records.header import file_digest

    data = json.loads(files["named"])
    data["classes"].reverse()
    forged = serialization.model_from_dict({**data, "sha256": file_digest(data)})
    assert forged.classes_.tolist() == [1, -1]
