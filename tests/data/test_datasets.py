"""Adult and KDD loaders: small synthetic files always, the real UCI files when present."""

import gzip
import hashlib
import io
import re
from dataclasses import replace

import numpy as np
import pytest

from dpcvx.data import datasets
from dpcvx.data.datasets import find_data_directory, load_adult, load_kdd
from dpcvx.data.uci_domains import ADULT_COLUMNS, KDD_COLUMNS, KDD_LOG_COLUMNS, adult_schema, kdd_schema
from dpcvx.exceptions import FileError, InputError

# Paper mode warns PaperModeWarning (tests/data/test_loader_modes.py checks it); here it is reproduced on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.PaperModeWarning")

KDD = "kddcup.data_10_percent"


@pytest.fixture(scope="module")
def real_data(uci_data):
    """The UCI files' directory (tests/conftest.py skips when they are absent)."""
    return uci_data


def original_bytes(directory, name):
    """Uncompressed bytes of a data file stored plain or gzipped."""
    plain = directory / name
    return plain.read_bytes() if plain.is_file() else gzip.decompress((directory / f"{name}.gz").read_bytes())


# ---------------------------------------------------------------- synthetic files

ADULT_DATA = (
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, "
    "2174, 0, 40, United-States, <=50K\n"
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, "
    "Male, 0, 0, 13, United-States, >50K\n"
    "54, ?, 180211, Some-college, 10, Married-civ-spouse, ?, Husband, Asian-Pac-Islander, Male, 0, 0, "
    "60, South, >50K\n"
    "\n"
)
ADULT_TEST = (
    "|1x3 Cross validator\n"
    "25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, "
    "United-States, <=50K.\n"
    "44, Private, 160323, Some-college, 10, Married-civ-spouse, Machine-op-inspct, Husband, Black, Male, "
    "7688, 0, 40, United-States, >50K.\n"
    "\n"
)


def write_adult(directory, data=ADULT_DATA, test=ADULT_TEST):
    (directory / "adult.data.gz").write_bytes(gzip.compress(data.encode()))
    (directory / "adult.test").write_text(test)
    return directory


def kdd_line(protocol="tcp", service="http", flag="SF", src_bytes=181, count=8, label="normal"):
    numbers = [0] * 16  # land .. is_guest_login
    rates = ["0.00"] * 7 + [9, 9] + ["1.00"] * 8
    fields = [0, protocol, service, flag, src_bytes, 5450, *numbers, count, count, *rates, f"{label}."]
    assert len(fields) == 42
    return ",".join(map(str, fields)) + "\n"


KDD_LINES = [
    kdd_line(),
    kdd_line("icmp", "ecr_i", "SF", 1032, 511, "smurf"),
    kdd_line("tcp", "private", "S0", 0, 123, "neptune"),
    kdd_line(),
    kdd_line("udp", "domain_u", "SF", 45, 2, "satan"),
    kdd_line("icmp", "ecr_i", "SF", 1032, 511, "smurf"),
]


def write_kdd(directory, lines=KDD_LINES):
    (directory / "kddcup.data_10_percent").write_text("".join(lines))
    return directory


def record(line, columns):
    """One record of a data line as a dict of single-element columns."""
    fields = [field.strip() for field in line.split(",")]
    # a data line ends with its label, which is not a column: zip drops it
    return {name: [value] for name, value in zip(columns, fields, strict=False)}


def test_adult_private_keeps_every_record_strips_test_header_and_dots(tmp_path):
    dataset = load_adult(path=write_adult(tmp_path), mode="private")
    np.testing.assert_array_equal(dataset.record_index, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(dataset.y, [-1.0, 1.0, 1.0, -1.0, 1.0])
    assert dataset.X.shape == (5, 114) and dataset.schema == adult_schema() and dataset.private


def test_adult_paper_mode_drops_missing_and_says_it_is_not_private(tmp_path):
    dataset = load_adult(path=write_adult(tmp_path), mode="paper")
    np.testing.assert_array_equal(dataset.record_index, [0, 1, 3, 4])
    np.testing.assert_array_equal(dataset.y, [-1.0, 1.0, -1.0, 1.0])
    assert not dataset.private and "NOT PRIVATE" in dataset.description and "DROPPED" in dataset.description


def test_adult_private_missing_value_is_a_category_of_its_own(tmp_path):
    dataset = load_adult(path=write_adult(tmp_path), mode="private")
    names = dataset.feature_names
    row = dataset.X[2]  # "54, ?, ..., ?, ..." : workclass and occupation missing
    hot = {names[j] for j in np.flatnonzero(row) if "=" in names[j]}
    assert {"workclass=?", "occupation=?"} <= hot
    assert not any(name.startswith(("workclass=", "occupation=")) and name[-1] != "?" for name in hot)
    for j, name in enumerate(names):  # the other records never set a missing category
        if name.endswith("=?"):
            assert np.all(dataset.X[[0, 1, 3, 4], j] == 0)


def test_adult_private_numeric_missing_value_is_the_public_lower_bound(tmp_path):
    data = ADULT_DATA.replace("39, State-gov, 77516", "39, State-gov, ?")
    dataset = load_adult(path=write_adult(tmp_path, data=data), mode="private")
    assert dataset.X.shape[0] == 5
    same = adult_schema().transform({**record(ADULT_DATA.splitlines()[0], ADULT_COLUMNS), "fnlwgt": ["1"]})
    np.testing.assert_array_equal(dataset.X[0], same[0])  # "?" is encoded as fnlwgt = lo = 1


@pytest.mark.parametrize("field", ["State-gov", "Bachelors", "77516", "13", "2174", "United-States"])
def test_adult_private_neighbours_missing_vs_value_have_the_same_n_and_layout(tmp_path, field):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with_value = load_adult(path=write_adult(tmp_path / "a", ADULT_DATA), mode="private")
    first, rest = ADULT_DATA.split("\n", 1)
    neighbour = first.replace(f" {field},", " ?,", 1) + "\n" + rest
    assert neighbour != ADULT_DATA
    with_missing = load_adult(path=write_adult(tmp_path / "b", neighbour), mode="private")
    assert with_missing.X.shape == with_value.X.shape
    assert with_missing.feature_names == with_value.feature_names
    np.testing.assert_array_equal(with_missing.record_index, with_value.record_index)
    np.testing.assert_array_equal(with_missing.X[1:], with_value.X[1:])  # only the changed record's row moves
    assert with_missing.description == with_value.description


@pytest.mark.parametrize("encoding", ["centred", "unit"])
def test_adult_private_row_is_the_documented_formula(tmp_path, encoding):
    dataset = load_adult(path=write_adult(tmp_path), mode="private", encoding=encoding)
    assert dataset.schema.encoding == encoding
    expected = dict.fromkeys(dataset.feature_names, 0.0)
    expected.update(
        {
            "age": (39 - 17) / (90 - 17),
            "fnlwgt": (77516 - 1) / (1_500_000 - 1),
            "education-num": (13 - 1) / (16 - 1),
            "capital-gain": 2174 / 99_999,
            "hours-per-week": (40 - 1) / (99 - 1),
            "constant": 1.0,
        }
    )
    for feature in (
        "workclass=State-gov", "education=Bachelors", "marital-status=Never-married",
        "occupation=Adm-clerical", "relationship=Not-in-family", "race=White", "sex=Male",
        "native-country=United-States",
    ):  # fmt: skip
        expected[feature] = 1.0
    expected = {f"{name}:scaled" if name in dataset.schema.numeric_names else name: value
                for name, value in expected.items()}  # a numeric column's feature: name:scaled
    if encoding == "centred":  # each numeric column's code u(v) - 1/2 (capital-loss 0 -> -1/2)
        expected.update({f"{name}:scaled": expected[f"{name}:scaled"] - 0.5 for name in dataset.schema.numeric_names})
    raw = np.array(list(expected.values()))
    np.testing.assert_allclose(dataset.X[0], raw / np.linalg.norm(raw), rtol=0, atol=1e-15)


def test_adult_paper_mode_reads_maxima_and_categories_of_the_kept_records(tmp_path):
    dataset = load_adult(path=write_adult(tmp_path), mode="paper")
    columns = {c.name: c for c in dataset.schema.columns}
    assert columns["age"].hi == 50  # 54 belongs to a dropped record
    assert columns["workclass"].categories == ("Private", "Self-emp-not-inc", "State-gov")
    assert dataset.X.shape[1] == dataset.schema.dimension == 18 + 6 + 1  # categories present + numeric + 1
    assert "READ FROM THE DATA" in dataset.description


@pytest.mark.parametrize(
    "data, message",
    [
        ("39, State-gov\n", r"adult.data, line 1: 2 fields, expected 15"),
        (ADULT_DATA.replace("<=50K", "small"),
         r"labels must be >50K or <=50K; 1 record\(s\) hold another label, the first is record 0 \(values not shown"),
        ("\n", r"adult.data in .* holds no records"),
        (ADULT_DATA.replace("Bachelors", "Bachelor\u00e9"), r"adult.data.gz is not the plain-text"),
    ],
)
def test_adult_malformed_files(tmp_path, data, message):
    with pytest.raises(InputError, match=message):
        load_adult(path=write_adult(tmp_path, data=data))


def test_kdd_whole_file_in_order_with_repeated_lines(tmp_path):
    dataset = load_kdd(path=write_kdd(tmp_path), mode="private", n_rows=None)
    np.testing.assert_array_equal(dataset.record_index, np.arange(6))
    np.testing.assert_array_equal(dataset.y, [-1, 1, 1, -1, -1, 1])
    np.testing.assert_array_equal(dataset.X[0], dataset.X[3])
    for i, line in enumerate(KDD_LINES):
        np.testing.assert_array_equal(dataset.X[i], kdd_schema().transform(record(line, KDD_COLUMNS))[0])


def test_kdd_subset_is_seeded_and_matches_its_records(tmp_path):
    write_kdd(tmp_path)
    whole = load_kdd(path=tmp_path, mode="private", n_rows=None)
    subset = load_kdd(path=tmp_path, mode="private", n_rows=4, random_state=7)
    again = load_kdd(path=tmp_path, mode="private", n_rows=4, random_state=7)
    assert len(set(subset.record_index.tolist())) == 4
    np.testing.assert_array_equal(subset.record_index, again.record_index)
    np.testing.assert_array_equal(subset.X, whole.X[subset.record_index])
    np.testing.assert_array_equal(subset.y, whole.y[subset.record_index])


def test_kdd_paper_schema_comes_from_the_whole_file_not_the_subset(tmp_path):
    dataset = load_kdd(path=write_kdd(tmp_path), mode="paper", n_rows=1, random_state=0)
    columns = {c.name: c for c in dataset.schema.columns}
    assert columns["service"].categories == ("domain_u", "ecr_i", "http", "private")
    assert columns["src_bytes"].hi == 1032 and columns["count"].hi == 511
    assert dataset.X.shape == (1, 3 + 4 + 2 + 38 + 1)


@pytest.mark.parametrize("n_rows", [0, -1, 2.5, True, "10"])
def test_kdd_rejects_bad_n_rows(tmp_path, n_rows):
    with pytest.raises(InputError, match=r"n_rows must be a positive integer"):
        load_kdd(path=write_kdd(tmp_path), n_rows=n_rows)


def test_kdd_takes_a_numpy_integer_n_rows(tmp_path):
    assert load_kdd(path=write_kdd(tmp_path), mode="paper", n_rows=np.int64(1), random_state=0).X.shape[0] == 1


def test_kdd_rejects_more_rows_than_the_file_has(tmp_path):
    with pytest.raises(InputError, match=r"n_rows=7 exceeds the 6 records"):
        load_kdd(path=write_kdd(tmp_path), n_rows=7)


def test_kdd_private_missing_values_keep_the_record_and_the_layout(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    whole = load_kdd(path=write_kdd(tmp_path / "a"), mode="private", n_rows=None)
    lines = list(KDD_LINES)
    lines[1] = kdd_line("icmp", "?", "SF", "?", 511, "smurf")
    missing = load_kdd(path=write_kdd(tmp_path / "b", lines), mode="private", n_rows=None)
    assert missing.X.shape == whole.X.shape == (6, 126)
    assert missing.feature_names == whole.feature_names
    np.testing.assert_array_equal(missing.y, whole.y)
    np.testing.assert_array_equal(np.delete(missing.X, 1, axis=0), np.delete(whole.X, 1, axis=0))
    expected = kdd_schema().transform(record(kdd_line("icmp", "?", "SF", 0, 511, "smurf"), KDD_COLUMNS))
    np.testing.assert_array_equal(missing.X[1], expected[0])  # src_bytes "?" -> public lower bound 0
    assert missing.X[1, missing.feature_names.index("service=?")] > 0


@pytest.mark.parametrize(
    "lines, message",
    [
        ([kdd_line(), "0,tcp,http\n"], r"kddcup.data_10_percent in .* is malformed"),
        (["\n"], r"kddcup.data_10_percent in .* holds no records"),
    ],
)
def test_kdd_malformed_file(tmp_path, lines, message):
    with pytest.raises(InputError, match=message):
        load_kdd(path=write_kdd(tmp_path, lines=lines), n_rows=None)


@pytest.mark.parametrize("loader", [load_adult, load_kdd])
def test_unknown_mode(loader, tmp_path):
    with pytest.raises(InputError, match=r"mode must be one of 'paper', 'private'; got 'public'"):
        loader(path=tmp_path, mode="public")


def test_explicit_path_without_files_names_it_and_the_download_helper(tmp_path):
    with pytest.raises(InputError, match=r"(?s)adult.data.*not found; looked in:\n  - .*nowhere.*download"):
        find_data_directory(("adult.data",), tmp_path / "nowhere")


def test_search_order_env_then_current_directory_then_repository(tmp_path, monkeypatch):
    env, work, repo = tmp_path / "env", tmp_path / "work", tmp_path / "repo"
    for directory in (env, work, repo, tmp_path / "shared" / "data"):
        directory.mkdir(parents=True)
    monkeypatch.setenv("DPCVX_DATA", str(env))
    monkeypatch.chdir(work)
    monkeypatch.setattr(datasets, "REPOSITORY_ROOT", repo)
    with pytest.raises(InputError) as error:
        find_data_directory(("adult.data",))
    looked = str(error.value)
    assert looked.index(str(env)) < looked.index(str(tmp_path / "shared" / "data"))
    assert looked.count(str(tmp_path / "shared" / "data")) == 2  # from work/.. and from repo/..
    write_adult(tmp_path / "shared" / "data")
    assert find_data_directory(("adult.data", "adult.test")) == work / ".." / "shared" / "data"
    write_adult(env)
    assert load_adult(mode="private").X.shape == (5, 114)  # found through DPCVX_DATA


class FakeResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_download_refuses_a_file_with_the_wrong_checksum(tmp_path, monkeypatch):
    monkeypatch.setattr("urllib.request.urlopen", lambda url, timeout: FakeResponse(b"not the data"))
    with pytest.raises(InputError, match=r"adult.data: sha256 [0-9a-f]{64} differs from the published"):
        datasets.download(tmp_path)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- real UCI files


@pytest.mark.data
def test_download_checksums_match_the_original_files(real_data, tmp_path, monkeypatch):
    originals = {
        "adult.data": original_bytes(real_data, "adult.data"),
        "adult.test": original_bytes(real_data, "adult.test"),
        "kddcup.data_10_percent.gz": gzip.compress(original_bytes(real_data, KDD), compresslevel=1),
    }
    monkeypatch.setattr(
        "urllib.request.urlopen", lambda url, timeout: FakeResponse(originals[url.rsplit("/", 1)[1]])
    )
    assert datasets.download(tmp_path) == tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(originals)
    monkeypatch.setattr("urllib.request.urlopen", None)  # existing files are kept, nothing fetched
    datasets.download(tmp_path)


@pytest.fixture(scope="module")
def adult(real_data):
    return {mode: load_adult(path=real_data, mode=mode) for mode in ("paper", "private")}


@pytest.mark.data
def test_adult_counts_and_dimensions(adult):
    paper, private = adult["paper"], adult["private"]
    assert paper.X.shape == (45_222, 105) and private.X.shape == (48_842, 114)
    np.testing.assert_array_equal(private.record_index, np.arange(32_561 + 16_281))  # SOURCES.md: every record
    assert np.isin(paper.record_index, private.record_index).all()
    from_test_file = paper.record_index >= 32_561
    assert from_test_file.sum() == 15_060 and (paper.y[from_test_file] == 1).sum() == 3_700
    np.testing.assert_array_equal(private.y[paper.record_index], paper.y)


@pytest.mark.data
def test_adult_private_missing_values_are_their_own_category(adult, real_data):
    private = adult["private"]
    names = private.feature_names
    lines = [line for name in ("adult.data", "adult.test") for line in
             original_bytes(real_data, name).decode().splitlines() if line.strip() and not line.startswith("|")]
    assert len(lines) == 48_842
    has_missing = np.array(["?" in line for line in lines])
    assert has_missing.sum() == 48_842 - 45_222
    column = {"workclass": 1, "occupation": 6, "native-country": 13}
    for name, field in column.items():
        missing = np.array([line.split(", ")[field].strip() == "?" for line in lines])
        np.testing.assert_array_equal(private.X[:, names.index(f"{name}=?")] > 0, missing)
        block = [j for j, feature in enumerate(names) if feature.startswith(f"{name}=")]
        assert np.all(np.count_nonzero(private.X[:, block], axis=1) == 1)  # exactly one category per record
    assert private.X[:, [j for j, f in enumerate(names) if f.endswith("=?")]].sum(axis=0).astype(bool).sum() == 3


@pytest.mark.data
@pytest.mark.parametrize("mode, counts", [("paper", (11_208, 34_014)), ("private", (11_687, 37_155))])
def test_adult_labels_and_norms(adult, mode, counts):
    dataset = adult[mode]
    assert set(np.unique(dataset.y)) == {-1.0, 1.0}
    assert ((dataset.y == 1).sum(), (dataset.y == -1).sum()) == counts
    norms = np.linalg.norm(dataset.X, axis=1)
    assert np.all(np.isfinite(dataset.X)) and dataset.X.dtype == np.float64
    assert norms.max() <= 1 + 1e-12 and norms.min() > 1 - 1e-12  # every row is rescaled to norm 1
    assert dataset.feature_names == dataset.schema.feature_names and dataset.feature_names[-1] == "constant"


@pytest.mark.data
def test_adult_paper_dimension_105_is_present_categories_numeric_and_constant(adult):
    schema = adult["paper"].schema
    one_hot = [c for c in schema.columns if hasattr(c, "categories")]
    assert sum(len(c.categories) for c in one_hot) == 98
    assert "Never-worked" not in one_hot[0].categories and len(one_hot[0].categories) == 7
    maxima = {c.name: (c.lo, c.hi) for c in schema.columns if hasattr(c, "hi")}
    assert maxima == {
        "age": (0, 90), "fnlwgt": (0, 1_490_400), "education-num": (0, 16),
        "capital-gain": (0, 99_999), "capital-loss": (0, 4_356), "hours-per-week": (0, 99),
    }  # fmt: skip


@pytest.mark.data
def test_adult_private_rows_are_the_public_schema_of_each_record(adult, real_data):
    dataset = adult["private"]
    assert dataset.schema == adult_schema()
    lines = original_bytes(real_data, "adult.data").decode().splitlines()
    for i in (0, 1, 1000):
        line = lines[dataset.record_index[i]]
        np.testing.assert_array_equal(dataset.X[i], adult_schema().transform(record(line, ADULT_COLUMNS))[0])


@pytest.mark.data
def test_adult_without_constant_feature(real_data):
    assert load_adult(path=real_data, mode="paper", constant_feature=False).X.shape == (45_222, 104)
    assert load_adult(path=real_data, mode="private", constant_feature=False).X.shape == (48_842, 113)


@pytest.fixture(scope="module")
def kdd(real_data):
    return {
        "paper": load_kdd(path=real_data, mode="paper", random_state=0),
        "private": load_kdd(path=real_data, mode="private", random_state=0),
        "private, whole file": load_kdd(path=real_data, mode="private", n_rows=None),
    }


@pytest.mark.data
def test_kdd_counts_and_dimensions(kdd):
    assert kdd["paper"].X.shape == (70_000, 119)
    assert kdd["private"].X.shape == (70_000, 126)
    whole = kdd["private, whole file"]
    assert whole.X.shape == (494_021, 126)
    np.testing.assert_array_equal(whole.record_index, np.arange(494_021))
    assert ((whole.y == 1).sum(), (whole.y == -1).sum()) == (391_458, 102_563)
    assert (whole.y == 1).sum() > 280_790 + 107_201  # SOURCES.md: smurf + neptune, both DoS


@pytest.mark.data
@pytest.mark.parametrize("mode", ["paper", "private", "private, whole file"])
def test_kdd_labels_and_norms(kdd, mode):
    dataset = kdd[mode]
    assert set(np.unique(dataset.y)) == {-1.0, 1.0}
    assert np.all(np.isfinite(dataset.X)) and dataset.X.dtype == np.float64
    assert np.linalg.norm(dataset.X, axis=1).max() <= 1 + 1e-12


@pytest.mark.data
def test_kdd_same_seed_same_subset_and_private_rows_ignore_other_records(kdd):
    paper, private, whole = kdd["paper"], kdd["private"], kdd["private, whole file"]
    assert len(np.unique(private.record_index)) == 70_000
    np.testing.assert_array_equal(paper.record_index, private.record_index)
    np.testing.assert_array_equal(private.X, whole.X[private.record_index])
    np.testing.assert_array_equal(private.y, whole.y[private.record_index])
    assert private.schema == kdd_schema()


@pytest.mark.data
def test_kdd_paper_dimension_119_is_whole_file_categories_numeric_and_constant(kdd):
    dataset = kdd["paper"]
    columns = {c.name: c for c in dataset.schema.columns}
    assert [len(columns[n].categories) for n in ("protocol_type", "service", "flag")] == [3, 66, 11]
    assert columns["src_bytes"].hi == 693_375_640 and columns["num_outbound_cmds"].hi == 1  # all zero
    services_in_subset = [
        j
        for j, name in enumerate(dataset.feature_names)
        if name.startswith("service=") and dataset.X[:, j].any()
    ]
    assert len(services_in_subset) < 66  # so the categories were read from the whole file


@pytest.mark.data
def test_adult_private_real_neighbours_with_and_without_a_missing_value(adult, real_data, tmp_path):
    """Replace one field of one complete record by '?' (and one '?' by a value): same n, same layout."""
    data = original_bytes(real_data, "adult.data").decode()
    test = original_bytes(real_data, "adult.test")
    lines = data.split("\n")
    assert "?" not in lines[0] and lines[14].endswith(", ?, >50K")  # record 14: native-country '?'
    lines[0] = lines[0].replace(", State-gov,", ", ?,", 1)
    lines[14] = lines[14].replace(", ?,", ", United-States,", 1)
    (tmp_path / "adult.data").write_text("\n".join(lines))
    (tmp_path / "adult.test").write_bytes(test)
    neighbour = load_adult(path=tmp_path, mode="private")
    private = adult["private"]
    assert neighbour.X.shape == private.X.shape == (48_842, 114)
    assert neighbour.feature_names == private.feature_names
    np.testing.assert_array_equal(neighbour.y, private.y)
    changed = np.flatnonzero(np.any(neighbour.X != private.X, axis=1))
    np.testing.assert_array_equal(changed, [0, 14])
    names = neighbour.feature_names
    assert neighbour.X[0, names.index("workclass=?")] > 0 and private.X[0, names.index("workclass=State-gov")] > 0
    assert neighbour.X[14, names.index("native-country=United-States")] > 0
    assert private.X[14, names.index("native-country=?")] > 0


def test_kdd_numeric_scale_log_by_default_and_linear_on_request(tmp_path):
    write_kdd(tmp_path)
    log = load_kdd(path=tmp_path, mode="private", n_rows=None, encoding="unit")  # codes u(v) in [0, 1]
    linear = load_kdd(path=tmp_path, mode="private", n_rows=None, numeric_scale="linear", encoding="unit")
    assert log.schema == replace(kdd_schema(), encoding="unit")
    assert linear.schema == replace(kdd_schema(numeric_scale="linear"), encoding="unit")
    assert load_kdd(path=tmp_path, mode="private", n_rows=None).schema == kdd_schema()  # centred by default
    scales = {c.name: c.scale for c in log.schema.columns if hasattr(c, "scale")}
    assert {name for name, scale in scales.items() if scale == "log"} == set(KDD_LOG_COLUMNS)
    assert all(scales[name] == "linear" for name in KDD_COLUMNS if name.endswith("_rate") or name == "logged_in")
    j = log.feature_names.index("src_bytes:scaled")
    assert log.feature_names == linear.feature_names
    # smurf's 1032-byte echo requests: visible on the log scale, about 1e-6 on the linear one
    smurf = np.flatnonzero(log.y == 1)[0]
    assert linear.X[smurf, j] < 1e-5 < 0.05 < log.X[smurf, j]
    paper = load_kdd(path=tmp_path, mode="paper", n_rows=None, numeric_scale="log")
    assert all(c.scale == "linear" for c in paper.schema.columns if hasattr(c, "scale"))
    with pytest.raises(InputError, match="numeric_scale must be one of"):
        load_kdd(path=tmp_path, n_rows=None, numeric_scale="sqrt")


@pytest.mark.parametrize("path", [3, 0.5, [1], b"data"], ids=["int", "float", "list", "bytes"])
def test_a_data_path_that_is_not_a_path_is_a_typed_error(path):
    """pathlib's bare TypeError before (bytes: a directory named by its bytes' repr was looked for)."""
    with pytest.raises(InputError, match="data directory path must be a str or a pathlib.Path"):
        load_adult(path)
    with pytest.raises(InputError, match="data directory path must be a str or a pathlib.Path"):
        load_kdd(path)
    with pytest.raises(InputError, match="download directory path must be a str or a pathlib.Path"):
        datasets.download(path)  # refused before any connection is made


@pytest.mark.parametrize("path", [3, None, b"t.csv", "t\x00.csv"], ids=["int", "None", "bytes", "NUL"])
def test_a_table_path_that_is_no_path_is_a_typed_error(path):
    from dpcvx.data.csv_table import read_table_columns, table_chunks

    for read in (read_table_columns, lambda p, c: list(table_chunks(p, c, chunk_rows=10))):
        with pytest.raises(InputError, match="data file path"):
            read(path, ["a"])


@pytest.mark.parametrize("load", [load_adult, load_kdd])
def test_a_file_given_for_the_data_directory_is_named_a_file(tmp_path, load):
    """path= names the directory holding the files; a file there said "data files [...] not found; looked in"."""
    given = tmp_path / "adult.data"
    given.write_text("39, State-gov\n")
    with pytest.raises(InputError, match=rf"^{re.escape(str(given))} is a file, not a directory; give the directory "
                                         r"that holds \["):
        load(given)


def _served(monkeypatch, then=None):
    """download fetches one small file (its published sha256 replaced by this content's), and ``then(url)`` runs
    while it is fetched: no internet needed."""
    content = b"a,b\n1,2\n"
    monkeypatch.setattr(datasets, "DOWNLOADS", {"adult.data": ("https://example.invalid/adult.data",
                                                              hashlib.sha256(content).hexdigest())})

    def urlopen(url, timeout):
        if then is not None:
            then(url)
        return FakeResponse(content)
    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    return content


def test_download_writes_by_the_one_writer_and_touches_no_other_file(tmp_path, monkeypatch):
    """download wrote its scratch file `adult.data.part` without the check every other writer has: a user's file of
    that name was overwritten, then moved onto adult.data. It now writes through files.atomic_write (a temporary file
    of its own), and a user's .part file is untouched."""
    content = _served(monkeypatch)
    mine = tmp_path / "adult.data.part"
    mine.write_bytes(b"my own notes")
    assert datasets.download(tmp_path) == tmp_path
    assert (tmp_path / "adult.data").read_bytes() == content
    assert mine.read_bytes() == b"my own notes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adult.data", "adult.data.part"]  # no temporary left


def test_download_keeps_a_file_that_appears_while_it_is_fetched(tmp_path, monkeypatch):
    """Without overwrite, a file that appears under the target's name during the fetch is kept (OverwriteError, as
    every writer's), where the scratch file's replace() replaced it; with overwrite=True it is replaced."""
    from dpcvx.exceptions import OverwriteError

    content = _served(monkeypatch, then=lambda url: (tmp_path / "adult.data").write_bytes(b"appeared"))
    with pytest.raises(OverwriteError, match="a file of that name appeared"):
        datasets.download(tmp_path)
    assert (tmp_path / "adult.data").read_bytes() == b"appeared"
    for left in [p for p in tmp_path.iterdir() if p.name != "adult.data"]:  # the content, named by the error
        left.unlink()
    (tmp_path / "adult.data").unlink()
    _served(monkeypatch, then=lambda url: (tmp_path / "adult.data").write_bytes(b"appeared"))
    datasets.download(tmp_path, overwrite=True)
    assert (tmp_path / "adult.data").read_bytes() == content


def test_download_refuses_a_target_it_cannot_write_before_fetching(tmp_path, monkeypatch):
    """A directory under a target's name was skipped as an existing file; it is now refused (FileError) before
    anything is fetched."""
    fetched = []
    _served(monkeypatch, then=fetched.append)
    (tmp_path / "adult.data").mkdir()
    with pytest.raises(FileError, match="cannot write the data file adult.data .*it is a directory"):
        datasets.download(tmp_path)
    assert fetched == []
