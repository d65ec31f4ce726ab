"""The demo's default plot file, dpcvx-demo.png in the current directory, is replaced only when an earlier demo wrote
it (the PNG's Software text): a file of the user's of that name is kept and the demo refused before any work (it was
replaced without a word: the user's files are never changed). An existing file given with --plot is kept and the demo
refused before any work, as an existing --out is, unless --overwrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpcvx import demo
from dpcvx.cli import main


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    pytest.importorskip("matplotlib")
    real = demo.run_demo
    monkeypatch.setattr(demo, "run_demo", lambda *, n, draws, random_state: real(n=30, draws=1, epsilons=(1.0,),
                                                                                  random_state=random_state))
    monkeypatch.chdir(tmp_path)
    return tmp_path / demo.DEMO_PLOT


def test_a_file_of_the_users_at_the_default_path_is_kept(quick: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quick.write_bytes(b"\x89PNG\r\n\x1a\n my own picture")
    assert main(["demo"]) == 3
    assert quick.read_bytes() == b"\x89PNG\r\n\x1a\n my own picture"
    err = capsys.readouterr().err
    assert "was not written by dpcvx demo: it is kept" in err and "or pass --overwrite to replace it" in err


@pytest.mark.slow
def test_the_demos_own_plot_is_replaced(quick: Path) -> None:
    assert main(["demo"]) == 0
    assert demo.demo_wrote(quick)
    first = quick.stat().st_mtime_ns
    assert main(["demo"]) == 0  # a second run replaces its own plot
    assert quick.stat().st_mtime_ns >= first and demo.demo_wrote(quick)


def test_an_existing_path_given_with_plot_is_kept_before_any_run(quick: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine.png"
    mine.write_bytes(b"old")
    runs: list[int] = []
    monkeypatch.setattr(demo, "run_demo", lambda **options: runs.append(1))
    assert main(["demo", "--plot", str(mine)]) == 3  # it was replaced, exit 0
    assert mine.read_bytes() == b"old" and runs == []
    err = capsys.readouterr().err
    assert f"cannot write the plot to {mine}: the file exists" in err and "--overwrite" in err


@pytest.mark.slow
def test_a_path_given_with_plot_is_replaced_with_overwrite(quick: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine.png"
    mine.write_bytes(b"old")
    assert main(["demo", "--plot", str(mine), "--overwrite"]) == 0
    assert demo.demo_wrote(mine)
    assert not quick.exists()
