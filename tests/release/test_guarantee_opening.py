"""The guarantee of a release with private draws before its fit opens with its total and delta; the reader derives
that opening from the recorded total and delta with the writers' one text (release.draw_texts.drawn_opening) and refuses
another, where it compared only the guarantee's end (an attacker probe loaded "(0.5, 0)-differential privacy" next to
a recorded epsilon of 1, with the digest recomputed, and the report printed both)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from edited_files import load_edited

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.release.draw_texts import drawn_opening


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    return X, (X[:, 0] + 0.3 * rng.normal(size=3000) > 0).astype(int)


KINDS = {  # one writer of each opening: column statistics, a class count, a private norm bound (and one nested)
    "column statistics": dict(column_statistics=True),
    "class count": dict(column_statistics=False, class_prior="private"),
    "statistics and count": dict(column_statistics=True, class_weight="balanced"),
    "private norm": dict(column_statistics=False, data_norm="private", norm_range=(0.25, 4)),
}


def _saved(rows, tmp_path, options) -> dict:
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, **options).fit(*rows).model_
    return json.loads(dpcvx.save(model, tmp_path / "m.json").read_text())


@pytest.mark.parametrize("kind", KINDS)
def test_the_written_opening_loads_and_another_is_refused(rows, tmp_path, kind):
    saved = _saved(rows, tmp_path, KINDS[kind])
    certificate = saved["certificate"]
    guarantee = certificate["guarantee"]
    assert guarantee.startswith(drawn_opening(1.0, certificate["delta"]))
    assert load_edited(saved, tmp_path).certificate.guarantee == guarantee  # as written
    for stated in ("(0.5, 0)", "(1, 1e-06)", "(1.0000000000000002, 0)"):
        edited = {**saved, "certificate": {**certificate, "guarantee": stated + guarantee[len("(1, 0)"):]}}
        with pytest.raises(FileError, match=r"certificate\.guarantee is not the text dpcvx writes"):
            load_edited(edited, tmp_path)


def test_a_former_g_opening_still_loads(rows, tmp_path):
    """Files written before the opening was one text stated the total with :g; a total that needs more digits (a
    residue) reads the same at :g as the writer wrote it, so such a text is accepted from a file of those versions
    (the whole former text, every number :g: release.draw_texts.former_number), read as this version's text, and an
    edit of it is not; a file of a later version holding it is refused."""
    from dpcvx.release.draw_texts import former_number, statistics_guarantee
    from dpcvx.release.records.release_certificate import _check_drawn_guarantee

    saved = _saved(rows, tmp_path, KINDS["column statistics"])
    certificate = saved["certificate"]
    statistics, epsilon = certificate["column_statistics"], certificate["epsilon"]
    fitted = certificate["guarantee"][certificate["guarantee"].index("): ") + 3:]
    total = 1.0000000000000002
    former = statistics_guarantee(total, 0.0, statistics["epsilon"], None, epsilon, fitted, former_number)
    assert former != statistics_guarantee(total, 0.0, statistics["epsilon"], None, epsilon, fitted)
    current = statistics_guarantee(total, 0.0, statistics["epsilon"], None, epsilon, fitted)
    assert _check_drawn_guarantee(former, fitted, epsilon, 0.0, total, {}, statistics, None, (),
                                  written=17) == current  # no refusal
    with pytest.raises(dpcvx.InputError):
        _check_drawn_guarantee("(0.5, 0)" + former[len("(1, 0)"):], fitted, epsilon, 0.0, total, {}, statistics,
                               None, (), written=17)
    with pytest.raises(dpcvx.InputError):
        _check_drawn_guarantee(former, fitted, epsilon, 0.0, total, {}, statistics, None, (), written=18)


DRAW_TEXTS = [  # (kind, the record, its text field): each a fixed text its writer records
    ("column statistics", ("column_statistics",), "theorem"),
    ("column statistics", ("column_statistics",), "composition"),
    ("ranges", ("column_statistics",), "theorem"),
    ("class count", ("weights", "private_count"), "theorem"),
    ("class count", ("weights", "private_count"), "composition"),
    ("statistics and count", ("weights", "private_count"), "composition"),
    ("private norm", ("private_bound",), "theorem"),
    ("private norm", ("private_bound",), "composition"),
    ("private label bound", ("private_label_bound",), "theorem"),
    ("label range", ("column_statistics",), "label_theorem"),
]
KINDS["ranges"] = dict(column_statistics="ranges")


def _label_bound_release(tmp_path) -> dict:
    rng = np.random.default_rng(3)
    X = rng.uniform(-0.5, 0.5, (2000, 3))
    y = X @ np.array([1.0, -0.5, 0.25]) + 0.05 * rng.uniform(-1, 1, 2000)  # |y| < 1: nothing clipped
    model = dpcvx.DPHuberRegressor(label_bound="private", label_range=(0.25, 4), m=1.0, column_statistics=False,
                                   random_state=1).fit(X, y).model_
    return json.loads(dpcvx.save(model, tmp_path / "m.json").read_text())


def _label_range_release(tmp_path) -> dict:
    """A DPHuberRegressor release with the columns' and the label's private ranges (its label_theorem)."""
    rng = np.random.default_rng(4)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    y = X @ np.array([1.0, -0.5, 0.25]) + 0.05 * rng.uniform(-1, 1, 3000)
    model = dpcvx.DPHuberRegressor(column_statistics="ranges", epsilon=2.0, random_state=1).fit(X, y).model_
    saved = json.loads(dpcvx.save(model, tmp_path / "m.json").read_text())
    assert "label_theorem" in saved["certificate"]["column_statistics"]
    return saved


@pytest.mark.parametrize("kind, record, field", DRAW_TEXTS)
def test_an_edited_text_of_a_draw_is_refused(rows, tmp_path, kind, record, field):
    """The theorem and the composition a draw's record states are its writer's fixed texts (release.draw_texts,
    privacy.quantile); an edit with the digest recomputed loaded, and the report showed it beside the constants."""
    saved = (_label_bound_release(tmp_path) if kind == "private label bound" else _label_range_release(tmp_path)
             if kind == "label range" else _saved(rows, tmp_path, KINDS[kind]))
    load_edited(saved, tmp_path)  # as written
    edited = json.loads(json.dumps(saved))
    item = edited["certificate"]
    for key in record:
        item = item[key]
    written = item[field]
    item[field] = written.replace("sequential", "parallel").replace("discrete Laplace", "no").replace(
        "exponential mechanism", "identity")
    assert item[field] != written
    with pytest.raises(FileError, match=rf"{'.'.join(record)}\.{field} is not the text dpcvx records there"):
        load_edited(edited, tmp_path)


SHARE_EDITS = [  # (kind, the quoted text in the guarantee, an edit of it)
    ("column statistics", "(eps_s = 0.1)", "(eps_s = 0.01)"),
    ("column statistics", "(eps_fit = 0.9)", "(eps_fit = 0.99)"),
    ("ranges", "(eps_s = 0.1)", "(eps_s = 0.5)"),
    ("class count", "(eps_c = 0.05)", "(eps_c = 0.001)"),
    ("class count", "(eps_fit = 0.95)", "(eps_fit = 0.5)"),
    ("statistics and count", "(eps_c = 0.045000000000000005)", "(eps_c = 0.0045)"),
    ("statistics and count", "(eps_s = 0.1)", "(eps_s = 0.2)"),
    ("private norm", "(eps_q = 0.1)", "(eps_q = 0.5)"),
]


@pytest.mark.parametrize("kind, written, edit", SHARE_EDITS)
def test_an_edited_share_in_the_guarantee_is_refused(rows, tmp_path, kind, written, edit):
    """The shares quoted between the opening and the fit's theorem are the recorded ones (an edit with the digest
    recomputed loaded: the report showed eps_c = 0.001 beside a recorded 0.05)."""
    saved = _saved(rows, tmp_path, KINDS[kind])
    guarantee = saved["certificate"]["guarantee"]
    assert written in guarantee, guarantee
    edited = json.loads(json.dumps(saved))
    edited["certificate"]["guarantee"] = guarantee.replace(written, edit, 1)
    with pytest.raises(FileError, match=r"certificate\.guarantee is not the text dpcvx writes"):
        load_edited(edited, tmp_path)


@pytest.mark.parametrize("kind", ["class count", "statistics and count"])
def test_an_edited_released_count_in_the_guarantee_is_refused(rows, tmp_path, kind):
    saved = _saved(rows, tmp_path, KINDS[kind])
    count = saved["certificate"]["weights"]["private_count"]["count"]
    guarantee = saved["certificate"]["guarantee"]
    assert f" released as {count} " in guarantee
    edited = json.loads(json.dumps(saved))
    edited["certificate"]["guarantee"] = guarantee.replace(f" released as {count} ", f" released as {count + 1} ")
    with pytest.raises(FileError, match=r"certificate\.guarantee is not the text dpcvx writes"):
        load_edited(edited, tmp_path)


def test_an_edited_drawn_bound_in_the_guarantee_is_refused(rows, tmp_path):
    saved = _saved(rows, tmp_path, KINDS["private norm"])
    bound = saved["certificate"]["private_bound"]["bound"]
    guarantee = saved["certificate"]["guarantee"]
    assert f"R = {bound:g} (eps_q" in guarantee
    edited = json.loads(json.dumps(saved))
    edited["certificate"]["guarantee"] = guarantee.replace(f"R = {bound:g} (eps_q", f"R = {bound / 2:g} (eps_q")
    with pytest.raises(FileError, match=r"certificate\.guarantee is not the text dpcvx writes"):
        load_edited(edited, tmp_path)


@pytest.mark.parametrize("kind", ["label range", "private label bound"])
def test_a_regression_guarantee_with_draws_loads_and_its_share_edit_is_refused(tmp_path, kind):
    saved = _label_range_release(tmp_path) if kind == "label range" else _label_bound_release(tmp_path)
    load_edited(saved, tmp_path)
    guarantee = saved["certificate"]["guarantee"]
    share = "eps_l = " if kind == "label range" else "eps_q = "
    start = guarantee.index(share) + len(share)
    end = guarantee.index(")", start)
    edited = json.loads(json.dumps(saved))
    edited["certificate"]["guarantee"] = guarantee[:start] + "0.000123" + guarantee[end:]
    with pytest.raises(FileError, match=r"certificate\.guarantee is not the text dpcvx writes"):
        load_edited(edited, tmp_path)
