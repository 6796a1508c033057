"""The release artefacts carry the top-level ``themes/`` and ``static/`` folders, and an
installed wheel works on its own.

The wheel is built the way a release is: an sdist first, then the wheel from the unpacked
sdist (so a folder the sdist leaves out is missing from the wheel too). It is installed
into a fresh virtual environment whose only other path is this environment's
site-packages, for the dependencies; that path's ``.pth`` files are not read, so the
editable install of the checkout stays out of sight. ``tests/wheel_probe.py`` then walks
every page of every pack in that interpreter.

In this (editable) environment, the checkout's own folders are the ones read.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from authui.i18n import SHIPPED
from authui.pages import data
from authui.pages.assets import STATIC_DIR
from authui.pages.packs import THEMES_DIR

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "tests" / "wheel_probe.py"
PACKS = sorted(d.name for d in (ROOT / "themes").iterdir() if d.is_dir())
PAGES: Mapping[str, int] = {
    "signin": 200,
    "signin-error": 200,
    "signout": 200,
    "error": 200,
    "error-verification": 403,
    "verify-request": 200,
    "confirm-signin": 200,
    "new-user": 200,
    "new-user-invalid": 422,
    "account": 200,
    "account/profile": 200,
    "account/passkeys": 200,
    "account/sessions": 200,
    "account/activity": 200,
    "account/delete": 200,
    "account/reauthenticate": 200,
}


def run(*command: str | Path, cwd: Path = ROOT) -> str:
    """Run ``command``; its stdout. A failure shows the command's stderr."""
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def only(found: list[Path]) -> Path:
    assert len(found) == 1, found
    return found[0]


def shipped_files(folder: str) -> set[str]:
    """The files of a top-level data folder, as ``<folder>/<path>``."""
    return {
        f"{folder}/{f.relative_to(ROOT / folder).as_posix()}"
        for f in (ROOT / folder).rglob("*")
        if f.is_file()
    }


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the sdist and the wheel built from it."""
    out = tmp_path_factory.mktemp("dist")
    build_sdist = "import sys; from hatchling.build import build_sdist; build_sdist(sys.argv[1])"
    run(sys.executable, "-c", build_sdist, out)
    sdist = only(list(out.glob("authui-*.tar.gz")))
    pip_wheel = ("-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q")
    run(sys.executable, *pip_wheel, "-w", out, sdist, cwd=out)
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed; its folder."""
    folder = tmp_path_factory.mktemp("wheel-venv")
    run(sys.executable, "-m", "venv", "--without-pip", folder)
    python = folder / "bin" / "python"
    wheel = only(list(dist.glob("authui-*.whl")))
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "-q",
        "--no-deps",
        "--no-index",
        wheel,
    )
    purelib = run(python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
    dependencies = Path(purelib.strip()) / "_authui_test_dependencies.pth"
    dependencies.write_text(sysconfig.get_path("purelib") + "\n", "utf-8")
    return folder


@pytest.fixture(scope="module")
def report(venv: Path) -> dict[str, Any]:
    """What ``tests/wheel_probe.py`` saw, run isolated (``-I``) outside the checkout."""
    found: dict[str, Any] = json.loads(run(venv / "bin" / "python", "-I", PROBE, cwd=venv))
    return found


def test_the_sdist_and_the_wheel_carry_the_data_folders(dist: Path) -> None:
    sdist = only(list(dist.glob("authui-*.tar.gz")))
    with tarfile.open(sdist) as archive:
        in_sdist = {name.partition("/")[2] for name in archive.getnames()}
    wheel = set(zipfile.ZipFile(only(list(dist.glob("authui-*.whl")))).namelist())
    for folder in ("themes", "static"):
        files = shipped_files(folder)
        assert files
        assert files <= in_sdist
        assert {f"authui/{name}" for name in files} <= wheel
    assert "authui/py.typed" in wheel
    assert not any(n.startswith(("themes/", "static/")) for n in wheel)
    # the catalogues: compiled by the build, their sources left out
    sources = sorted((ROOT / "authui" / "i18n" / "locales").glob("*/LC_MESSAGES/authui.po"))
    assert len(sources) == len(SHIPPED) - 1  # English has none
    for source in sources:
        name = source.relative_to(ROOT).as_posix()
        assert name.removesuffix(".po") + ".mo" in wheel
        assert name not in wheel
        assert name in in_sdist


def test_authui_comes_from_the_wheel(venv: Path, report: dict[str, Any]) -> None:
    package = Path(report["authui"]).parent
    assert package.is_relative_to(venv)
    assert not package.is_relative_to(ROOT)
    assert Path(report["themes"]) == package / "themes"
    assert Path(report["static"]) == package / "static"


def test_every_page_of_every_pack_renders_from_the_wheel(report: dict[str, Any]) -> None:
    assert sorted(report["packs"]) == PACKS
    for pack, seen in report["packs"].items():
        statuses = {page: found["status"] for page, found in seen["pages"].items()}
        assert statuses == PAGES, pack
        assert all(found["bytes"] > 0 for found in seen["pages"].values()), pack
        assert seen["signed_in"].startswith("http://localhost:3000/auth/new-user"), pack
        assert seen["email"]["subject"], pack
        assert seen["email"]["text"] > 0, pack
        assert seen["email"]["html"] > 0, pack


def test_every_static_file_the_pages_link_is_served_from_the_wheel(
    report: dict[str, Any],
) -> None:
    for pack, seen in report["packs"].items():
        served: dict[str, dict[str, Any]] = seen["static_files"]
        names = {link.rsplit("/", 1)[1] for link in served}
        assert any(n.startswith("htmx-") for n in names), pack
        assert any(n.startswith("authui.") for n in names), pack
        assert any(n.startswith("webauthn.") for n in names), pack
        marks = [link for link in served if "/_static/logos/github" in link]
        assert marks, pack  # the provider's mark, from authui's own files
        assert all(served[link]["type"] == "image/svg+xml" for link in marks), pack
        assert pack == "base" or any(n.endswith(".css") for n in names), pack
        for link, found in served.items():
            assert (found["status"], found["bytes"] > 0) == (200, True), link


def test_every_locale_speaks_from_the_wheels_compiled_catalogues(report: dict[str, Any]) -> None:
    assert Path(report["catalogues"]).is_relative_to(Path(report["authui"]).parent)
    seen: dict[str, str] = report["languages"]
    assert list(seen) == list(SHIPPED)
    english = '<html lang="en" dir="ltr" class="authui" data-color-scheme="auto"> Sign in'
    assert seen["en"] == english
    assert seen["de"].endswith(" Anmelden")
    assert seen["ar"].startswith('<html lang="ar" dir="rtl"')
    headings = [text.rsplit("> ", 1)[1] for text in seen.values()]
    assert len(set(headings)) == len(SHIPPED)  # each its own words


def test_the_checkout_reads_its_own_folders() -> None:
    assert THEMES_DIR == ROOT / "themes"
    assert STATIC_DIR == ROOT / "static"


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        ('[project]\nname = "authui"\n', "checkout"),
        ('[project]\nname = "someone-else"\n', "package"),
        (None, "package"),
    ],
)
def test_the_folder_is_the_checkouts_only_in_an_authui_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, manifest: str | None, expected: str
) -> None:
    package = tmp_path / "authui"
    (package / "themes").mkdir(parents=True)
    (tmp_path / "themes").mkdir()
    if manifest is not None:
        (tmp_path / "pyproject.toml").write_text(manifest, "utf-8")
    monkeypatch.setattr(data, "PACKAGE_DIR", package)
    folders = {"checkout": tmp_path / "themes", "package": package / "themes"}
    assert data.data_dir("themes") == folders[expected]
