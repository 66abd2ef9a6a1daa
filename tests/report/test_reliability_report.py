"""Report writes that lose nothing: the output folder checked before any work, the report
built aside and swapped in whole, an interrupt or a full disk at any point leaving the
previous complete report, and configuration text that cannot put markup in the README."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from critlab.analysis import report as report_pkg
from critlab.analysis.cli import main as cli
from critlab.analysis.report import build_report, html, markdown, output
from critlab.analysis.report.config import ConfigError

# What is tested here is where a report's files go, never what its figures show.
pytestmark = pytest.mark.usefixtures("undrawn")

SMALL = """
[report]
name = "small"
title = "Small report"
description = "{description}"
trials = 2000
batches = 2
seed = {seed}

[systems.thac0]
params = {{ thac0 = 15, target_ac = 5 }}

[[systems.thac0.sections]]
kind = "outcomes_by"
id = "by-ac"
title = "{title}"
grid = {{ target_ac = [0, 5] }}

[[systems.thac0.sections]]
kind = "validation"
id = "check"
"""


def config(tmp: Path, *, seed: int = 1, description: str = "A small report.", title: str = "By AC") -> Path:
    path = tmp / f"small-{seed}.toml"
    path.write_text(SMALL.format(seed=seed, description=description, title=title), encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its hash: two equal snapshots are the same report."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def leftovers(parent: Path) -> list[str]:
    """Hidden staging folders left beside a report (there must be none)."""
    return sorted(p.name for p in parent.iterdir() if ".critlab-" in p.name)


@pytest.fixture(scope="module")
def previous(tmp_path_factory):
    """A complete report (seed 1) to copy into each test as the report already there."""
    tmp = tmp_path_factory.mktemp("previous")
    result = build_report(config(tmp), out=tmp / "report", progress=False)
    return result.out


@pytest.fixture
def existing(previous, tmp_path):
    target = tmp_path / "out"
    shutil.copytree(previous, target)
    return target


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if the report's computation starts."""

    def computed(*args, **kwargs):
        raise AssertionError("the report's work started")

    monkeypatch.setattr(report_pkg, "run_system", computed)


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(err: str, *words: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "error:" in lines[0] and "Traceback" not in err
    for w in words:
        assert w in lines[0], lines[0]


# -- refused before any work, changing nothing ------------------------------------------
def test_empty_out_is_refused_and_the_readme_stays(tmp_path, monkeypatch, capsys, no_work):
    monkeypatch.chdir(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text("the project's own README\n", encoding="utf-8")
    status, out, err = run_cli(
        ["report", "--config", str(config(tmp_path)), "--out", "", "--no-progress"], capsys
    )
    assert status == 2 and out == ""
    assert_one_line_error(err, "--out", "empty")
    assert readme.read_text(encoding="utf-8") == "the project's own README\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "small-1.toml"]


def test_a_file_as_out_is_refused(tmp_path, monkeypatch, capsys, no_work):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text("mine\n", encoding="utf-8")
    for flags in ([], ["--force"]):
        status, _, err = run_cli(
            ["report", "--config", str(config(tmp_path)), "--out", "README.md", *flags, "--no-progress"],
            capsys,
        )
        assert status == 2
        assert_one_line_error(err, "README.md", "is a file")
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_an_unwritable_out_is_refused_before_any_work(tmp_path, capsys, no_work, where):
    (tmp_path / "plain.txt").write_text("x", encoding="utf-8")
    out = tmp_path / "plain.txt" / "report" if where == "under-a-file" else Path("/proc/critlab-test/report")
    if where == "proc" and not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    status, _, err = run_cli(
        ["report", "--config", str(config(tmp_path)), "--out", str(out), "--no-progress"], capsys
    )
    assert status == 2
    assert_one_line_error(err, "--out", "cannot create")


def test_a_folder_that_is_not_a_report_is_refused(tmp_path, capsys, no_work):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "index.html").write_text("<p>my page</p>", encoding="utf-8")
    (notes / "todo.txt").write_text("keep me", encoding="utf-8")
    before = snapshot(notes)
    status, _, err = run_cli(
        ["report", "--config", str(config(tmp_path)), "--out", str(notes), "--no-progress"], capsys
    )
    assert status == 2
    assert_one_line_error(err, "not a critlab report", "todo.txt", "--force")
    assert snapshot(notes) == before


def test_a_report_with_a_users_file_in_it_is_refused(existing, tmp_path, capsys, no_work):
    (existing / "my-notes.md").write_text("mine", encoding="utf-8")
    before = snapshot(existing)
    status, _, err = run_cli(
        ["report", "--config", str(config(tmp_path)), "--out", str(existing), "--no-progress"], capsys
    )
    assert status == 2
    assert_one_line_error(err, "my-notes.md")
    assert snapshot(existing) == before


def test_the_current_folder_is_refused_even_with_force(tmp_path, monkeypatch, capsys, no_work):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "code.py").write_text("print(1)\n", encoding="utf-8")
    for out in (".", str(tmp_path), "sub/.."):
        status, _, err = run_cli(
            ["report", "--config", str(config(tmp_path)), "--out", out, "--force", "--no-progress"], capsys
        )
        assert status == 2
        assert_one_line_error(err, "current folder")
    assert (tmp_path / "code.py").is_file()


def test_force_keeps_the_folder_beside_the_new_report(tmp_path, capsys):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("keep me", encoding="utf-8")
    argv = ["report", "--config", str(config(tmp_path)), "--out", str(notes), "--force", "--no-progress"]
    status, _, _ = run_cli(argv, capsys)
    assert status == 0
    (kept,) = [p for p in tmp_path.iterdir() if p.name.startswith("notes.replaced-")]
    assert (kept / "todo.txt").read_text(encoding="utf-8") == "keep me"
    assert output.is_report(notes) and (notes / "index.html").is_file()
    assert leftovers(tmp_path) == []


def test_a_malformed_baseline_entry_exits_2_before_any_work(tmp_path, capsys, no_work):
    base = tmp_path / "summary.json"
    for metrics, words in (
        ({"a": 5}, ["metrics['a']", "must be an object"]),
        ({"a": {"kind": "exact", "value": "x"}}, ["value must be a finite number"]),
        ({"a": {"kind": "guess", "value": 0.5}}, ["kind must be exact or simulated"]),
        ({"a": {"kind": "simulated", "value": 0.5, "se": -1}}, ["se must not be negative"]),
    ):
        base.write_text(
            json.dumps({"format": "critlab-report-summary/1", "metrics": metrics}), encoding="utf-8"
        )
        argv = [
            "report",
            "--config",
            str(config(tmp_path)),
            "--out",
            str(tmp_path / "x"),
            "--baseline",
            str(base),
        ]
        status, _, err = run_cli([*argv, "--no-progress"], capsys)
        assert status == 2
        assert_one_line_error(err, "--baseline", *words)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("value", ["1_0", "٣", "１０", "ten"])
def test_report_options_take_ascii_digits_only(tmp_path, capsys, no_work, value):
    argv = ["report", "--config", str(config(tmp_path)), "--out", str(tmp_path / "x"), "--trials", value]
    status, _, err = run_cli([*argv, "--no-progress"], capsys)
    assert status == 2
    assert_one_line_error(err, "--trials", "ASCII digits")


# -- the default folder and replacing a report ------------------------------------------
def test_default_folder_on_a_fresh_clone_and_twice_in_a_row(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no reports/ folder yet, as on a fresh clone
    cfg = config(tmp_path)
    for seed in ("5", "6"):
        status, out, _ = run_cli(["report", "--config", str(cfg), "--seed", seed, "--no-progress"], capsys)
        assert status == 0 and "reports/small/index.html" in out
        summary = json.loads((tmp_path / "reports" / "small" / "summary.json").read_text(encoding="utf-8"))
        assert summary["run"]["seed"] == int(seed)
    assert output.is_report(tmp_path / "reports" / "small")
    assert leftovers(tmp_path / "reports") == []


@pytest.mark.parametrize("earlier", ["no marker", "marker without a list"])
def test_a_report_of_an_earlier_critlab_is_replaced_and_kept_beside(existing, tmp_path, capsys, earlier):
    """An earlier critlab listed no files: a user's table there cannot be told from the
    report's, so the folder is kept whole beside the new report instead of removed."""
    if earlier == "no marker":
        (existing / output.MARKER).unlink()
    else:
        (existing / output.MARKER).write_text("critlab-report/1\nA report.\n", encoding="utf-8")
    assert output.is_report(existing) and output.manifest(existing) is None
    (existing / "tables" / "mine.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    before = snapshot(existing)
    argv = ["report", "--config", str(config(tmp_path, seed=2)), "--out", str(existing), "--no-progress"]
    status, _, err = run_cli(argv, capsys)
    assert status == 0
    summary = json.loads((existing / "summary.json").read_text(encoding="utf-8"))
    assert summary["run"]["seed"] == 2 and output.manifest(existing) is not None
    (kept,) = [p for p in tmp_path.iterdir() if p.name.startswith("out.replaced-")]
    assert snapshot(kept) == before
    assert "note:" in err and kept.name in err
    assert leftovers(tmp_path) == []


def test_an_earlier_critlab_report_holding_a_file_no_report_writes_is_refused(existing, tmp_path, capsys):
    (existing / output.MARKER).unlink()
    (existing / "notes.txt").write_text("mine", encoding="utf-8")
    before = snapshot(existing)
    argv = ["report", "--config", str(config(tmp_path, seed=2)), "--out", str(existing), "--no-progress"]
    status, _, err = run_cli(argv, capsys)
    assert status == 2
    assert_one_line_error(err, "notes.txt", "--force")
    assert snapshot(existing) == before


def test_an_empty_folder_is_used(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    build_report(config(tmp_path), out=empty, progress=False)
    assert output.is_report(empty)


# -- the user's files in a report folder: only what the report wrote is its own ------------
USERS_FILES = {  # a file of the user's, and how the refusal names it
    "tables/mine.csv": "tables/mine.csv",
    "figures/mine.png": "figures/mine.png",
    "tables/encounters--mine.csv": "tables/encounters--mine.csv",
    "tables/notes.txt": "tables/notes.txt",
    "tables/sub/deep.csv": "tables/sub/",
    "figures/sub/deep.png": "figures/sub/",
    "mine/notes.txt": "mine/",
    "summary.json.bak": "summary.json.bak",
}


def test_the_marker_lists_exactly_the_files_the_report_wrote(existing):
    written = {
        str(p.relative_to(existing)) for p in existing.rglob("*") if p.is_file() and p.name != output.MARKER
    }
    assert output.manifest(existing) == written
    assert output.foreign_files(existing) == []
    assert any(f.startswith("tables/") for f in written) and any(f.startswith("figures/") for f in written)


@pytest.mark.parametrize("rel", USERS_FILES)
def test_a_users_file_anywhere_in_a_report_is_refused_by_name(existing, tmp_path, capsys, no_work, rel):
    """Without --force a second report never removes a file it did not write."""
    mine = existing / rel
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_bytes(b"a,b\n1,2\n")
    before = snapshot(existing)
    argv = ["report", "--config", str(config(tmp_path, seed=2)), "--out", str(existing), "--no-progress"]
    status, _, err = run_cli(argv, capsys)
    assert status == 2
    assert_one_line_error(err, "--out", USERS_FILES[rel], "did not write", "--force")
    assert snapshot(existing) == before


@pytest.mark.parametrize("rel", list(USERS_FILES)[:3])
def test_force_keeps_a_report_holding_a_users_file_beside_the_new_one(existing, tmp_path, capsys, rel):
    (existing / rel).write_bytes(b"a,b\n1,2\n")
    argv = ["report", "--config", str(config(tmp_path, seed=2)), "--out", str(existing), "--force"]
    status, _, err = run_cli([*argv, "--no-progress"], capsys)
    assert status == 0
    (kept,) = [p for p in tmp_path.iterdir() if p.name.startswith("out.replaced-")]
    assert (kept / rel).read_bytes() == b"a,b\n1,2\n"
    assert not (existing / rel).exists() and kept.name in err


def test_a_users_file_a_symlink_or_an_empty_folder_in_a_report_is_not_its_own(existing):
    (existing / "tables" / "linked.csv").symlink_to(existing / "summary.json")
    (existing / "figures" / "empty").mkdir()
    assert output.foreign_files(existing) == ["figures/empty/", "tables/linked.csv"]


def test_a_users_file_put_in_while_the_report_runs_is_kept(existing, tmp_path, monkeypatch, capsys):
    real = report_pkg.run_system

    def run_system(*args, **kwargs):
        (existing / "tables" / "mine.csv").write_text("late\n", encoding="utf-8")
        return real(*args, **kwargs)

    monkeypatch.setattr(report_pkg, "run_system", run_system)
    argv = ["report", "--config", str(config(tmp_path, seed=2)), "--out", str(existing), "--no-progress"]
    status, _, err = run_cli(argv, capsys)
    assert status == 2
    assert_one_line_error(err, "tables/mine.csv")
    assert (existing / "tables" / "mine.csv").read_text(encoding="utf-8") == "late\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("exchange", [True, False], ids=["atomic-exchange", "two-renames"])
def test_a_users_file_put_in_during_the_swap_is_kept(existing, tmp_path, monkeypatch, exchange):
    """The last moment: after the check, while the folders trade places."""
    real_replaceable = output.ReportFolder._replaceable

    def replaceable_then_a_users_file(self):
        answer = real_replaceable(self)
        if self.staging is not None:  # the check in _swap, not the one before any work
            (existing / "tables" / "mine.csv").write_text("late\n", encoding="utf-8")
        return answer

    monkeypatch.setattr(output.ReportFolder, "_replaceable", replaceable_then_a_users_file)
    if not exchange:
        monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    result = build_report(config(tmp_path, seed=2), out=existing, progress=False)
    assert result.kept is not None
    assert (result.kept / "tables" / "mine.csv").read_text(encoding="utf-8") == "late\n"
    assert not (existing / "tables" / "mine.csv").exists()
    assert leftovers(tmp_path) == []


# -- an interrupt or a full disk at any point ---------------------------------------------
def _raise_on_call(n: int, exc: BaseException):
    calls = {"n": 0}
    real = output.write_file

    def write_file(path, data):
        calls["n"] += 1
        if calls["n"] == n:
            raise exc
        real(path, data)

    return write_file


@pytest.mark.parametrize(
    ("where", "exc"),
    [
        ("first file", KeyboardInterrupt()),
        ("third file", KeyboardInterrupt()),
        ("marker", KeyboardInterrupt()),  # the last write, inside commit()
        ("full disk", OSError(errno.ENOSPC, "No space left on device")),
        ("html", KeyboardInterrupt()),
        ("markdown", KeyboardInterrupt()),
        ("swap", KeyboardInterrupt()),
        ("computation", KeyboardInterrupt()),
    ],
)
def test_an_interrupted_report_leaves_the_previous_one(existing, tmp_path, monkeypatch, where, exc):
    before = snapshot(existing)
    if where in ("first file", "third file", "full disk"):
        monkeypatch.setattr(report_pkg, "write_file", _raise_on_call({"third file": 3}.get(where, 1), exc))
    elif where == "marker":
        monkeypatch.setattr(output, "write_file", _raise_on_call(1, exc))
    elif where in ("html", "markdown"):
        module = html if where == "html" else markdown

        def render(doc):
            raise exc

        monkeypatch.setattr(module, "render", render)
    elif where == "swap":

        def swap(self, staging):
            raise exc

        monkeypatch.setattr(output.ReportFolder, "_swap", swap)
    else:

        def run_system(*args, **kwargs):
            raise exc

        monkeypatch.setattr(report_pkg, "run_system", run_system)
    expected = ConfigError if isinstance(exc, OSError) else type(exc)
    with pytest.raises(expected):
        build_report(config(tmp_path, seed=2), out=existing, progress=False)
    assert snapshot(existing) == before
    assert leftovers(existing.parent) == []


@pytest.mark.parametrize("exchange", [True, False], ids=["atomic-exchange", "two-renames"])
def test_a_replaced_report_is_the_new_one_whole(existing, tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    result = build_report(config(tmp_path, seed=3), out=existing, progress=False)
    assert result.summary["run"]["seed"] == 3
    summary = json.loads((existing / "summary.json").read_text(encoding="utf-8"))
    assert summary["run"]["seed"] == 3
    page = (existing / "index.html").read_text(encoding="utf-8")
    assert "seed 3;" in page and "seed 1;" not in page
    assert leftovers(existing.parent) == []


def test_the_second_rename_failing_puts_the_previous_report_back(existing, tmp_path, monkeypatch):
    monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    before = snapshot(existing)
    real = os.rename
    calls = {"n": 0}

    def rename(a, b):
        calls["n"] += 1
        if calls["n"] == 2:  # the new report into place, after the old one moved aside
            raise KeyboardInterrupt
        real(a, b)

    monkeypatch.setattr(output.os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        build_report(config(tmp_path, seed=4), out=existing, progress=False)
    assert snapshot(existing) == before
    assert leftovers(existing.parent) == []


def test_a_full_disk_is_one_line_and_exit_2(existing, tmp_path, monkeypatch, capsys):
    before = snapshot(existing)
    monkeypatch.setattr(
        report_pkg, "write_file", _raise_on_call(2, OSError(errno.ENOSPC, "No space left on device"))
    )
    argv = ["report", "--config", str(config(tmp_path, seed=2)), "--out", str(existing), "--no-progress"]
    status, _, err = run_cli(argv, capsys)
    assert status == 2
    assert_one_line_error(err, "No space left on device", "unchanged")
    assert snapshot(existing) == before


def test_a_ctrl_c_during_the_swap_is_held_until_it_is_done(existing, tmp_path, monkeypatch):
    import signal

    real = output.ReportFolder._swap

    def swap_with_a_ctrl_c(self, staging):
        os.kill(os.getpid(), signal.SIGINT)  # arrives mid-swap; must not split it
        return real(self, staging)

    monkeypatch.setattr(output.ReportFolder, "_swap", swap_with_a_ctrl_c)
    monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    with pytest.raises(KeyboardInterrupt):
        build_report(config(tmp_path, seed=5), out=existing, progress=False)
    # interrupted, but only after the swap: the new report is there, whole
    assert json.loads((existing / "summary.json").read_text(encoding="utf-8"))["run"]["seed"] == 5
    assert leftovers(existing.parent) == []


@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("nth", [1, 2, 3, 4])
def test_a_signal_the_instant_a_folder_is_created_leaves_no_staging(
    tmp_path, monkeypatch, capsys, signum, nth
):
    """A signal right after each mkdir of the staging (a missing parent, the staging
    folder, its figures/ and tables/) ends the run with 130 and leaves nothing behind."""
    import signal

    real = os.mkdir
    calls = {"n": 0}

    def mkdir(path, *args, **kwargs):
        real(path, *args, **kwargs)
        calls["n"] += 1
        if calls["n"] == nth:
            os.kill(os.getpid(), getattr(signal, signum))

    cfg = config(tmp_path)
    monkeypatch.setattr(output.os, "mkdir", mkdir)
    status, _, err = run_cli(["report", "--config", str(cfg), "--out", str(tmp_path / "new" / "rep")], capsys)
    monkeypatch.undo()
    assert status == 130 and "interrupted" in err
    assert calls["n"] >= nth
    assert sorted(p.name for p in tmp_path.iterdir()) == [cfg.name]  # "new/" created, then removed


def test_stale_staging_of_a_killed_run_is_removed(existing, tmp_path):
    stale = existing.parent / f".{existing.name}.critlab-new-999999999-abcd"
    stale.mkdir()
    (stale / "index.html").write_text("half", encoding="utf-8")
    build_report(config(tmp_path, seed=2), out=existing, progress=False)
    assert not stale.exists()


# -- configuration text in the README -----------------------------------------------------
def test_config_text_is_inert_in_the_readme(tmp_path):
    evil = "<script>alert(1)</script> [click](javascript:alert(2)) ![x](javascript:alert(3))"
    result = build_report(
        config(tmp_path, description=evil.replace('"', "'"), title="# <b>by</b> [AC](javascript:x)"),
        out=tmp_path / "out",
        progress=False,
    )
    readme = (result.out / "README.md").read_text(encoding="utf-8")
    assert "<script" not in readme and "<b>" not in readme and "&lt;script&gt;" in readme
    # the brackets escaped: no link or image of the configuration's can start
    assert re.search(r"(?<!\\)\]\(javascript:", readme) is None
    assert re.search(r"(?<!\\)\[(click|x|AC)\\?\]", readme) is None
    page = (result.out / "index.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_markdown_text_helpers():
    assert markdown.text("a\nb\tc") == "a b c"
    assert markdown.paragraph("- item") == "\\- item"
    assert markdown.paragraph("12) item") == "12\\) item"
    assert markdown.text("x <y> & [z]") == "x &lt;y&gt; &amp; \\[z\\]"
