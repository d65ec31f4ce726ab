"""A former text (a drawn guarantee with every number ``:g``, a one-vs-rest entry naming its own class 1, a class's
NumPy repr, the ranges' theorem before the coarser grids, an add-remove output release stating the replace-one bound,
a one-vs-rest split after column statistics worded as the total's) loads only from a file of a format version whose
writers wrote it, and loads as this version's text of the same records, which a save writes again. The reader
accepted every former text in a file of any version: a re-digested version 19 one-vs-rest entry named another class
of the same model, and a version 19 file stated eps_c = 0.03 where it records 0.029999999999970002 (an attacker probe,
session 69, P9 F3). The versions are those of the commits that changed each writer (release.draw_texts)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from edited_files import saved_json
from former_texts import as_version

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.release.draw_texts import (
    FORMER_CLASS_LAST,
    FORMER_NUMBERS_LAST,
    FORMER_RANGES_LAST,
    FORMER_RANGES_THEOREMS,
    NUMPY_CLASS_LAST,
    count_guarantee,
    former_number,
    statistics_guarantee,
)
from dpcvx.release.records.header import MODEL_FORMAT_VERSION

GUARANTEE = r"certificate\.guarantee is not the text dpcvx writes"


def _load(data: dict, tmp_path, name: str = "edited.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return dpcvx.load(path)


def _round_trips(model, tmp_path) -> None:
    """Saved again (as the current version), the release loads with the same texts."""
    again = dpcvx.load(dpcvx.save(model, tmp_path / "again.json"))
    assert str(again.certificate) == str(model.certificate)


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    return X, (X[:, 0] + 0.3 * rng.normal(size=3000) > 0).astype(int)


@pytest.fixture(scope="module")
def one_vs_rest(rows) -> dict:
    X, _ = rows
    y = np.digitize(X[:, 0] + 0.2 * np.random.default_rng(6).normal(size=X.shape[0]), [-0.15, 0.15])
    model = dpcvx.DPLogisticRegression(epsilon=2.0, random_state=0, class_prior="private", column_statistics=False,
                                       classes=(0, 1, 2), threshold="prior").fit(X, y).model_
    return saved_json(model)


def _entry_text(data: dict, index: int, label: str, number) -> dict:
    """``data`` with entry ``index``'s guarantee written with ``label`` and ``number`` from its own records."""
    edited = json.loads(json.dumps(data))
    certificate = edited["per_class"][index]["certificate"]
    count, guarantee = certificate["weights"]["private_count"], certificate["guarantee"]
    certificate["guarantee"] = count_guarantee(count["total_epsilon"], certificate["delta"], label, count["count"],
                                               count["epsilon"], "intercept offset", certificate["epsilon"],
                                               guarantee[guarantee.index("): ") + 3:], number)
    return edited


def test_a_version_19_entry_naming_another_class_is_refused(one_vs_rest, tmp_path):
    """P9 F3's reproducer: entry 2 (class 2) rewritten to the former text naming class 1, digest recomputed."""
    edited = _entry_text(one_vs_rest, 2, "1", former_number)
    with pytest.raises(FileError, match=GUARANTEE):
        _load(as_version(edited, MODEL_FORMAT_VERSION), tmp_path)


@pytest.mark.parametrize("version", [FORMER_CLASS_LAST + 1, MODEL_FORMAT_VERSION])
def test_a_former_one_vs_rest_text_in_a_later_file_is_refused(one_vs_rest, tmp_path, version):
    for index in range(3):
        with pytest.raises(FileError, match=GUARANTEE):
            _load(as_version(_entry_text(one_vs_rest, index, "1", former_number), version), tmp_path)


def test_a_former_one_vs_rest_text_loads_from_its_version_as_this_versions_text(one_vs_rest, tmp_path):
    """In a version 17 file each entry named its own positive class 1, every number :g: it loads, and the loaded
    certificate holds (and saves) the text naming the entry's class against the rest."""
    current = [entry["certificate"]["guarantee"] for entry in one_vs_rest["per_class"]]
    edited = one_vs_rest
    for index in range(3):
        edited = _entry_text(edited, index, "1", former_number)
    model = _load(as_version(edited, FORMER_CLASS_LAST), tmp_path)
    assert [entry.guarantee for entry in model.certificate.per_class] == current
    assert "the count of class 2 against the rest" in current[2]
    _round_trips(model, tmp_path)


@pytest.fixture(scope="module")
def class_count(rows) -> dict:
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, class_prior="private",
                                       column_statistics=False).fit(*rows).model_
    return saved_json(model)


def _former_numbers(data: dict) -> dict:
    """A class count's file with its guarantee written every number :g (eps_c, eps_fit and the total chosen so that
    :g rounds them)."""
    edited = json.loads(json.dumps(data))
    certificate = edited["certificate"]
    count, guarantee = certificate["weights"]["private_count"], certificate["guarantee"]
    use = "intercept offset" if "intercept offset" in guarantee else "balanced class weights"
    text = count_guarantee(count["total_epsilon"], certificate["delta"], "1", count["count"], count["epsilon"], use,
                           certificate["epsilon"], guarantee[guarantee.index("): ") + 3:], former_number)
    assert text != guarantee, "the numbers read the same at :g; choose another budget"
    certificate["guarantee"] = text
    return edited


@pytest.fixture(scope="module")
def rounded_count(rows) -> dict:
    """A class count whose eps_c and eps_fit need more digits than :g writes (epsilon 0.7 split 0.05 / 0.95)."""
    model = dpcvx.DPLogisticRegression(epsilon=0.7, random_state=0, class_prior="private",
                                       column_statistics=False).fit(*rows).model_
    return saved_json(model)


def test_former_numbers_load_only_from_their_versions(rounded_count, tmp_path):
    edited = _former_numbers(rounded_count)
    model = _load(as_version(edited, FORMER_NUMBERS_LAST), tmp_path)
    assert model.certificate.guarantee == rounded_count["certificate"]["guarantee"]
    _round_trips(model, tmp_path)
    for version in (FORMER_NUMBERS_LAST + 1, MODEL_FORMAT_VERSION):
        with pytest.raises(FileError, match=GUARANTEE):
            _load(as_version(edited, version), tmp_path)


def test_a_numpy_class_name_loads_only_from_its_versions(class_count, tmp_path):
    numpy_name = repr(np.array([1])[0])
    edited = json.loads(json.dumps(class_count))
    edited["certificate"]["guarantee"] = edited["certificate"]["guarantee"].replace("of class 1 ",
                                                                                    f"of class {numpy_name} ")
    model = _load(as_version(edited, NUMPY_CLASS_LAST), tmp_path)
    assert model.certificate.guarantee == class_count["certificate"]["guarantee"]
    _round_trips(model, tmp_path)
    with pytest.raises(FileError, match=GUARANTEE):
        _load(as_version(edited, NUMPY_CLASS_LAST + 1), tmp_path)


@pytest.fixture(scope="module")
def ranges(rows) -> dict:
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, column_statistics="ranges").fit(*rows).model_
    return saved_json(model)


def test_the_former_ranges_theorem_loads_only_from_its_versions(ranges, tmp_path):
    edited = json.loads(json.dumps(ranges))
    current = edited["certificate"]["column_statistics"]["theorem"]
    edited["certificate"]["column_statistics"]["theorem"] = FORMER_RANGES_THEOREMS[0]
    model = _load(as_version(edited, FORMER_RANGES_LAST), tmp_path)
    assert model.certificate.column_statistics["theorem"] == current
    assert model.certificate.to_dict()["column_statistics"]["theorem"] == current
    _round_trips(model, tmp_path)
    for version in (FORMER_RANGES_LAST + 1, MODEL_FORMAT_VERSION):
        with pytest.raises(FileError, match=r"certificate\.column_statistics\.theorem is not the text"):
            _load(as_version(edited, version), tmp_path)


def test_the_former_add_remove_statement_loads_only_from_its_versions(rows, tmp_path):
    """Version 11 (93bd5391) named the add-remove sensitivity; before, the statement named the replace-one bound."""
    X, y = rows
    model = dpcvx.PrivateERM(lam=0.01, data_norm=1.0).fit(X, 2 * y - 1, 1.0, "output", delta=1e-6,
                                                          neighbours="add-remove", n_public=3000, random_state=0)
    data = saved_json(model)
    data["certificate"]["guarantee"] = data["certificate"]["guarantee"].replace("bound L R / (n m Lam)",
                                                                                "bound 2 L R / (n m Lam)")
    loaded = _load(as_version(data, 11), tmp_path)
    assert loaded.certificate.guarantee == model.certificate.guarantee
    assert loaded.certificate.to_dict()["guarantee"] == model.certificate.guarantee
    _round_trips(loaded, tmp_path)
    for version in (12, MODEL_FORMAT_VERSION):
        with pytest.raises(FileError, match=r"certificate\.guarantee is not what dpcvx states"):
            _load(as_version(data, version), tmp_path)


def test_the_former_split_wording_loads_only_from_its_versions(rows, tmp_path):
    """f30c232e (version 18) named the split after column statistics eps_fit / k; before, epsilon / k."""
    from dpcvx.privacy.composition import WHOLE_BUDGET

    X, _ = rows
    y = np.digitize(X[:, 0] + 0.2 * np.random.default_rng(6).normal(size=X.shape[0]), [-0.15, 0.15])
    model = dpcvx.DPLogisticRegression(epsilon=3.0, random_state=0, column_statistics=True,
                                       classes=(0, 1, 2)).fit(X, y).model_
    data = saved_json(model)
    assert data["fit_epsilon"] is not None and "eps_fit" in data["composition"]
    data["composition"] = data["composition"].replace("eps_fit", WHOLE_BUDGET)
    assert data["composition"] != model.certificate.composition
    loaded = _load(as_version(data, 18), tmp_path)
    assert loaded.certificate.composition == model.certificate.composition
    _round_trips(loaded, tmp_path)
    with pytest.raises(FileError, match="composition"):
        _load(as_version(data, MODEL_FORMAT_VERSION), tmp_path)


def test_a_statistics_guarantee_with_former_numbers_in_a_current_file_is_refused(rows, tmp_path):
    model = dpcvx.DPLogisticRegression(epsilon=0.7, random_state=0, column_statistics=True).fit(*rows).model_
    data = saved_json(model)
    certificate = data["certificate"]
    statistics, guarantee = certificate["column_statistics"], certificate["guarantee"]
    former = statistics_guarantee(statistics["total_epsilon"], certificate["delta"], statistics["epsilon"], None,
                                  certificate["epsilon"], guarantee[guarantee.index("): ") + 3:], former_number)
    assert former != guarantee
    certificate["guarantee"] = former
    assert _load(as_version(data, FORMER_NUMBERS_LAST), tmp_path).certificate.guarantee == guarantee
    with pytest.raises(FileError, match=GUARANTEE):
        _load(as_version(data, MODEL_FORMAT_VERSION), tmp_path)
