"""The loaders' default is the private mode; the paper mode is an explicit, announced choice."""

import json
import warnings
from pathlib import Path

import pytest

import dpcvx
from dpcvx.data.datasets import ADULT_FILES, find_data_directory, load_adult, load_kdd
from dpcvx.data.uci_domains import adult_schema
from dpcvx.exceptions import PaperModeWarning

# A tiny Adult-like pair of files: ages 28 .. 50 and fnlwgt 98000 .. 201000, far inside the public
# bounds of dpcvx.data.uci_domains, so a schema read off these records differs from the public one.
ADULT_DATA = "".join(
    f"{age}, {work}, {weight}, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, {sex}, "
    f"0, 0, {hours}, United-States, {label}\n"
    for age, work, weight, sex, hours, label in [
        (33, "Private", 120000, "Female", 38, "<=50K"),
        (50, "State-gov", 98000, "Male", 45, ">50K"),
        (41, "?", 150000, "Male", 50, ">50K"),   # a missing value: paper mode drops this record
    ]
)
ADULT_TEST = "|1x3 Cross validator\n28, Private, 201000, Bachelors, 13, Never-married, Adm-clerical, " \
             "Not-in-family, White, Female, 0, 0, 40, United-States, <=50K.\n"


def write_adult(directory: Path) -> Path:
    (directory / "adult.data").write_text(ADULT_DATA)
    (directory / "adult.test").write_text(ADULT_TEST)
    return directory


def saved_schema(dataset, tmp_path: Path) -> dict:
    """Fit a release on the loaded rows, save it with the loader's schema, and read the file back."""
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(dataset.X, dataset.y, epsilon=1.0, random_state=0)
    path = tmp_path / "model.json"
    dpcvx.save(model, path, schema=dataset.schema)
    return json.loads(path.read_text())["preprocessing"]["schema"]


def data_maxima(dataset_text: str) -> dict[int, float]:
    """Each numeric field's maximum over the records (the statistic a release must not hold)."""
    rows = [line.split(",") for line in dataset_text.splitlines() if line and not line.startswith("|")]
    maxima = {}
    for j in range(len(rows[0]) - 1):
        try:
            maxima[j] = max(float(row[j]) for row in rows)
        except ValueError:
            continue
    return maxima


def test_default_adult_release_holds_no_bound_read_off_the_data(tmp_path):
    dataset = load_adult(path=write_adult(tmp_path))
    assert dataset.private and dataset.mode == "private"
    schema = saved_schema(dataset, tmp_path)
    public = {column.name: column for column in adult_schema().columns}
    maxima = set(data_maxima(ADULT_DATA + ADULT_TEST).values())
    numeric = [column for column in schema["columns"] if column["kind"] == "numeric"]
    assert numeric
    for column in numeric:
        assert (column["lo"], column["hi"]) == (public[column["name"]].lo, public[column["name"]].hi)
        assert column["hi"] not in maxima, column
    for column in (c for c in schema["columns"] if c["kind"] == "categorical"):
        assert tuple(column["categories"]) == public[column["name"]].categories


def test_paper_mode_warns_at_the_callers_line_and_its_schema_holds_the_data_maximum(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dataset = load_adult(path=write_adult(tmp_path), mode="paper")
    paper = [w for w in caught if issubclass(w.category, PaperModeWarning)]
    assert len(paper) == 1 and paper[0].filename == __file__
    assert "maximum" in str(paper[0].message) and "dropped" in str(paper[0].message)
    ages = next(c for c in dataset.schema.columns if c.name == "age")
    assert ages.hi == 50.0  # the kept records' maximum: what no release may hold
    assert "age" in dataset.schema.read_off_data


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.PaperModeWarning")
def test_save_refuses_the_paper_schema_naming_its_columns_and_writes_nothing(tmp_path):
    dataset = load_adult(path=write_adult(tmp_path), mode="paper")
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(dataset.X, dataset.y, epsilon=1.0, random_state=0)
    path = tmp_path / "model.json"
    with pytest.raises(dpcvx.NonPublicSchemaError, match=r"'age'.*read off the data.*NumericColumn") as caught:
        dpcvx.save(model, path, schema=dataset.schema)
    assert isinstance(caught.value, dpcvx.InputError) and not path.exists()
    assert "50" not in str(caught.value)  # names the column, never the maximum it read


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.PaperModeWarning")
def test_save_refuses_a_schema_file_that_says_it_was_read_off_the_data(tmp_path):
    """The mark is the column's source, which a schema file keeps: a paper schema saved and read back is
    refused too, and only the paper columns are named."""
    dataset = load_adult(path=write_adult(tmp_path), mode="paper")
    columns = (dpcvx.NumericColumn("hours", 0, 99, source="the week"), *dataset.schema.columns[:1])
    schema = dpcvx.PublicSchema.load(dpcvx.PublicSchema(columns).save(tmp_path / "schema.json"))
    assert schema.read_off_data == (dataset.schema.columns[0].name,)
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(schema.transform({"hours": [1.0], "age": [30.0]}),
                                                         [1], epsilon=1.0, random_state=0)
    with pytest.raises(dpcvx.NonPublicSchemaError, match=f"'{dataset.schema.columns[0].name}'") as caught:
        dpcvx.save(model, tmp_path / "model.json", schema=schema)
    assert "'hours'" not in str(caught.value)


@pytest.mark.data("adult")
@pytest.mark.slow
def test_default_adult_on_the_real_files_saves_the_public_schema(tmp_path):
    dataset = load_adult(path=find_data_directory(ADULT_FILES))
    assert dataset.private and dataset.schema == adult_schema()
    assert saved_schema(dataset, tmp_path) == adult_schema().to_dict()  # public bounds and categories only


@pytest.mark.parametrize("loader", [load_adult, load_kdd])
def test_loaders_default_to_the_private_mode(loader):
    import inspect

    assert inspect.signature(loader).parameters["mode"].default == "private"
