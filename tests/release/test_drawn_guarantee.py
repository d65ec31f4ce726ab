"""The guarantee of a release with private draws before its fit (column statistics, a label's range, a class count,
a private norm or label bound) is rebuilt whole by the file reader from the records, with the writers' own functions
(release.draw_texts), and any other text is refused. The reader used to pick the shares, the released count and the
drawn bounds out of the text between the opening and the fit's theorem: free words, an extra earlier
"(eps_fit = 0.001)" and a renamed class loaded with the digest recomputed, and the report printed them (an attacker
probe, session 69, F2). Former texts (every number ``:g``; a one-vs-rest entry naming its own class 1; a class given as
a NumPy scalar) load as exact matches only."""

from __future__ import annotations

import json

import numpy as np
import pytest
from edited_files import load_edited, saved_json
from former_texts import as_version

import dpcvx
from dpcvx.exceptions import FileError

REFUSED = r"certificate\.guarantee is not the text dpcvx writes"


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    return X, (X[:, 0] + 0.3 * rng.normal(size=3000) > 0).astype(int)


def _classifier(rows, options: dict) -> dict:
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, **options).fit(*rows).model_
    return saved_json(model)


def _regression(options: dict) -> dict:
    rng = np.random.default_rng(4)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    y = X @ np.array([1.0, -0.5, 0.25]) + 0.05 * rng.uniform(-1, 1, 3000)
    model = dpcvx.DPHuberRegressor(epsilon=2.0, random_state=1, **options).fit(X, y).model_
    return saved_json(model)


def _one_vs_rest(rows) -> dict:
    X, _ = rows
    rng = np.random.default_rng(6)
    y = np.digitize(X[:, 0] + 0.2 * rng.normal(size=X.shape[0]), [-0.15, 0.15])
    model = dpcvx.DPLogisticRegression(epsilon=3.0, random_state=0, class_prior="private", column_statistics=False,
                                       classes=(0, 1, 2)).fit(X, y).model_
    return saved_json(model)


KINDS = {
    "column sums": lambda rows: _classifier(rows, dict(column_statistics=True)),
    "column ranges": lambda rows: _classifier(rows, dict(column_statistics="ranges")),
    "class count": lambda rows: _classifier(rows, dict(column_statistics=False, class_prior="private")),
    "statistics and count": lambda rows: _classifier(rows, dict(column_statistics=True, class_weight="balanced")),
    "private norm": lambda rows: _classifier(rows, dict(column_statistics=False, data_norm="private",
                                                        norm_range=(0.25, 4))),
    "label range": lambda rows: _regression(dict(column_statistics="ranges")),
    "private label bound": lambda rows: _regression(dict(label_bound="private", label_range=(0.25, 4), m=1.0,
                                                         column_statistics=False)),
    "one-vs-rest count": _one_vs_rest,
}


@pytest.fixture(scope="module")
def saved(rows):
    return {kind: make(rows) for kind, make in KINDS.items()}


def _certificate(data: dict) -> dict:
    """The certificate holding the drawn guarantee: the file's, or a one-vs-rest file's first entry's."""
    return data["per_class"][0]["certificate"] if "per_class" in data else data["certificate"]


def _edited(data: dict, edit) -> dict:
    edited = json.loads(json.dumps(data))
    certificate = _certificate(edited)
    written = certificate["guarantee"]
    certificate["guarantee"] = edit(written)
    assert certificate["guarantee"] != written
    return edited


def _before_first_fit(text: str) -> str:
    at = text.index("(eps_fit =")
    return text[:at] + "(eps_fit = 0.001) (of which only a tenth is spent) " + text[at:]


def _free_words(text: str) -> str:
    at = text.index("composition: ") + len("composition: ")
    return text[:at] + "in total eps = 0.1; then " + text[at:]


def _divided(text: str) -> str:
    at = text.index(")", text.rindex("(eps_fit =")) + 1
    return text[:at] + " divided by 10" + text[at:]


EDITS = {"an extra eps_fit before the real one": _before_first_fit, "free words after the opening": _free_words,
         "free words after the fit's share": _divided}


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_round_trips_with_its_guarantee(saved, tmp_path, kind):
    data = saved[kind]
    model = load_edited(data, tmp_path)
    certificate = model.certificate.per_class[0] if "per_class" in data else model.certificate
    assert certificate.guarantee == _certificate(data)["guarantee"]
    assert "sequential composition: " in certificate.guarantee


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("kind", KINDS)
def test_an_edited_guarantee_of_draws_is_refused(saved, tmp_path, kind, edit):
    with pytest.raises(FileError, match=REFUSED):
        load_edited(_edited(saved[kind], EDITS[edit]), tmp_path)


@pytest.mark.parametrize("kind, written, renamed", [
    ("class count", "the count of class 1 released", "the count of class 0 released"),
    ("statistics and count", "the count of class 1 released", "the count of class 0 released"),
    ("one-vs-rest count", "the count of class 0 against the rest", "the count of class 1 against the rest"),
    ("one-vs-rest count", "the count of class 0 against the rest", "the count of class 0"),
])
def test_a_renamed_counted_class_is_refused(saved, tmp_path, kind, written, renamed):
    assert written in _certificate(saved[kind])["guarantee"]
    with pytest.raises(FileError, match=REFUSED):
        load_edited(_edited(saved[kind], lambda text: text.replace(written, renamed)), tmp_path)


def test_the_outer_share_of_statistics_before_a_count_is_compared(saved, tmp_path):
    """The statistics' eps_fit (the count's and the fit's together) is not recorded apart; it is taken within a few
    ulps of their sum, so an edit of it is refused (it was not compared)."""
    text = _certificate(saved["statistics and count"])["guarantee"]
    assert "scale (eps_fit = 0.9): " in text
    with pytest.raises(FileError, match=REFUSED):
        load_edited(_edited(saved["statistics and count"],
                            lambda text: text.replace("scale (eps_fit = 0.9): ", "scale (eps_fit = 0.99): ")), tmp_path)


def _entry_former(data: dict, label: str, number) -> dict:
    """A one-vs-rest file whose first entry's guarantee is the count's text with ``label`` and ``number``."""
    from dpcvx.release.draw_texts import count_guarantee

    certificate = _certificate(data)
    count, guarantee = certificate["weights"]["private_count"], certificate["guarantee"]
    fitted = guarantee[guarantee.index("): ") + 3:]
    text = count_guarantee(count["total_epsilon"], certificate["delta"], label, count["count"], count["epsilon"],
                           "intercept offset", certificate["epsilon"], fitted, number)
    return _edited(data, lambda _: text)


def test_a_former_one_vs_rest_entry_loads_as_written_only(saved, tmp_path):
    """Before the sixty-seventh session (format version 17) each entry named its own positive class 1, every number
    :g: that text loads from a file of that version (test_former_texts_by_version: of no later one); the same class
    with this version's numbers was never written, and is refused."""
    former_number = "{:g}".format
    load_edited(as_version(_entry_former(saved["one-vs-rest count"], "1", former_number), 17), tmp_path)
    with pytest.raises(FileError, match=REFUSED):
        load_edited(_entry_former(saved["one-vs-rest count"], "1", repr), tmp_path)
    with pytest.raises(FileError, match=REFUSED):
        load_edited(_entry_former(saved["one-vs-rest count"], "2", former_number), tmp_path)


def test_a_class_named_as_a_numpy_scalar_loads(saved, tmp_path):
    """A writer before this session named a class given as a NumPy scalar (classes=np.unique(y)) by its repr, which
    the file records as the Python value: that text loads from a file of format version 18
    (test_former_texts_by_version: of no later one); the other class in that form does not."""
    data = saved["class count"]
    numpy_name = repr(np.array([1])[0])
    load_edited(as_version(_edited(data, lambda text: text.replace("of class 1 ", f"of class {numpy_name} ")), 18),
                tmp_path)
    with pytest.raises(FileError, match=REFUSED):
        load_edited(_edited(data, lambda text: text.replace("of class 1 ", f"of class {repr(np.array([0])[0])} ")),
                    tmp_path)


def test_a_numpy_class_is_written_as_the_file_records_it(rows, tmp_path):
    X, y = rows
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, class_prior="private", column_statistics=False,
                                       classes=tuple(np.unique(y))).fit(X, y).model_
    assert "the count of class 1 released" in model.certificate.guarantee
    assert dpcvx.load(dpcvx.save(model, tmp_path / "m.json")).certificate.guarantee == model.certificate.guarantee
