"""A model file's record of the fit's record weights (``certificate.weights``) against the other copies of its facts
the file holds (docs/model-files.md): w_max against sample_weight_bound and the class weights, the class weights
against their source (a prior's balanced weights, the private count's rates count / n), s_bar, the count's n against
the certificate's, the classes the class weights name, and the record's presence and w_max against the verified
conditions L and c, which a weighted fit multiplied by w_max. Each edit is refused with a FileError naming the field;
the untouched files load with their certificate text and predictions."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.models.record_weights import WEIGHTS_THEOREM


def _data(n=200):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3)) * 0.3
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


FITS = {
    "unweighted": ({}, False),
    "sample_weight": ({"sample_weight_bound": 2.0}, True),
    "dict": ({"class_weight": {0: 1.0, 1: 3.0}}, False),
    "prior": ({"class_weight": "balanced", "class_prior": (0.6, 0.4)}, False),
    "prior, sample_weight": ({"class_weight": "balanced", "class_prior": (0.6, 0.4), "sample_weight_bound": 2.0}, True),
    "count": ({"class_weight": "balanced"}, False),
    "offset": ({"class_prior": "private", "fit_intercept": True}, False),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One saved release of each source of weights (and one without), with the model it was saved from."""
    X, y = _data()
    saved = {}
    for name, (options, sample) in FITS.items():
        model = dpcvx.PrivateERM(lam=0.01, data_norm=1.0, classes=(0, 1), **options).fit(
            X, y, 1.0, random_state=0, **({"sample_weight": np.ones(len(y))} if sample else {}))
        path = tmp_path_factory.mktemp("weights") / f"{name}.json"
        dpcvx.save(model, path)
        saved[name] = (model, json.loads(path.read_text()), path.parent)
    return X, saved


@pytest.mark.parametrize("name", list(FITS))
def test_every_source_of_weights_loads_with_its_certificate_and_predictions(files, name):
    X, saved = files
    model, _, folder = saved[name]
    loaded = dpcvx.load(folder / f"{name}.json")
    assert str(loaded.certificate) == str(model.certificate)
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))


UNWEIGHTED_CLAIM = {"source": "sample_weight", "bound": 5.0, "sample_weight_bound": 5.0, "class_weights": None,
                    "mean_weight": None, "theorem": WEIGHTS_THEOREM}


def _set(path, value):
    def edit(data):
        *parents, last = path.split(".")
        item = data["certificate"]
        for key in parents:
            item = item[key]
        if value is KeyError:
            del item[last]
        else:
            item[last] = value
    return edit


EDITS = [
    # a weights record added to an unweighted release: its noise was drawn for unit weights
    ("unweighted", _set("weights", UNWEIGHTED_CLAIM), r"certificate\.weights\.bound is 5\.0 but the verified "
                                                       r"condition lipschitz"),
    ("sample_weight", _set("weights.bound", 1.0), r"certificate\.weights\.bound is 1\.0"),
    ("sample_weight", _set("weights.bound", 4.0), r"certificate\.weights\.bound is 4\.0"),
    ("sample_weight", _set("weights.sample_weight_bound", 1.0), r"certificate\.weights\.bound is 2\.0 but "
                                                                r"sample_weight_bound"),
    ("sample_weight", _set("weights.sample_weight_bound", None), r"certificate\.weights: sample_weight alone"),
    ("sample_weight", _set("weights.source", "dict"), r"certificate\.weights: sample_weight alone"),
    ("sample_weight", _set("weights.class_weights", [[0, 1.0], [1, 2.0]]), r"certificate\.weights: sample_weight "
                                                                           r"alone"),
    ("sample_weight", _set("weights", None), r"certificate\.weights records no record weights"),
    ("sample_weight", _set("weights", KeyError), r"certificate\.weights records no record weights"),
    # both copies of w_max edited alike: the verified L and c were multiplied by the fit's w_max
    ("sample_weight", lambda data: data["certificate"]["weights"].update(bound=4.0, sample_weight_bound=4.0),
     r"certificate\.weights\.bound is 4\.0 but the verified condition lipschitz is not multiplied"),
    ("dict", _set("weights.class_weights", [[0, 1.0], [1, 1.0]]), r"certificate\.weights\.bound is 3\.0"),
    ("dict", _set("weights.class_weights", [[1, 3.0], [0, 1.0]]), r"certificate\.weights\.class_weights name the "
                                                                  r"classes"),
    ("dict", _set("weights.mean_weight", 0.5), r"certificate\.weights\.mean_weight is 0\.5"),
    ("dict", _set("weights.source", "prior"), r"certificate\.weights\.class_weights are not the balanced weights"),
    ("dict", _set("weights", None), r"certificate\.weights records no record weights"),
    ("prior", _set("weights.class_weights", [[0, 1.0], [1, 1.0]]), r"certificate\.weights\.mean_weight is 0\.8"),
    ("prior", _set("weights.source", "dict"), r"certificate\.weights\.mean_weight is 0\.8"),
    ("prior, sample_weight", _set("weights.sample_weight_bound", 3.0), r"certificate\.weights\.bound is 2\.0"),
    ("count", _set("weights.private_count.count", 100), r"certificate\.weights\.class_weights are not the balanced "
                                                        r"weights of the count's rates"),
    ("count", _set("weights.private_count.n", 300), r"certificate\.weights\.private_count\.floor is 2 but the "
                                                    r"public rule gives 3 at n = 300"),
    ("count", _set("weights.class_weights", [[0, 1.0], [1, 1.0]]), r"certificate\.weights\.class_weights are not "
                                                                   r"the balanced weights"),
    ("offset", _set("weights.private_count.n", 300), r"certificate\.weights\.private_count\.floor is 2 but the "
                                                     r"public rule gives 3 at n = 300"),
    # n and the floor edited alike: n is compared with the release's own
    ("count", lambda data: data["certificate"]["weights"]["private_count"].update(n=300, floor=3),
     r"certificate\.weights\.private_count\.n is 300"),
    # the public floor is a rule of n (a files audit: floor 3 -> 100 loaded, and the certificate printed "floor 100")
    ("count", _set("weights.private_count.floor", 1), r"certificate\.weights\.private_count\.floor is 1 but the "
                                                      r"public rule gives 2 at n = 200"),
    ("offset", _set("weights.private_count.floor", 1), r"private_count\.floor is 1 but the public rule gives 2"),
]


@pytest.mark.parametrize("name, edit, match", EDITS)
def test_an_edited_weights_record_is_refused_naming_the_field(files, tmp_path, name, edit, match):
    _, saved = files
    data = copy.deepcopy(saved[name][1])
    edit(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FileError, match=match):
        dpcvx.load(path)
