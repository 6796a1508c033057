"""Where the data folders of the pages (``themes``, ``static``) are.

In the repository they sit at the top level, beside ``authui/``; the wheel carries them
into the package as ``authui/themes`` and ``authui/static`` (hatch ``force-include``).
So there are two places to look, and the rule is:

- a source checkout wins: when the folder above the package holds a ``pyproject.toml``
  naming the ``authui`` project, the running code is that checkout (an editable install,
  or ``PYTHONPATH`` pointing at it), and its top-level folder is the one being edited. A
  copy left inside the package folder there is stale by definition, and ignored
  (``.gitignore`` keeps it out of commits);
- otherwise the code runs from an installed wheel, and the folder is inside the package.

Checking the checkout first (rather than the packaged folder first) is what makes an edit
to ``themes/`` show at once under ``pip install -e .``, whatever an earlier build left in
``authui/``. The project name is read, not just the file's presence, so an unrelated
``pyproject.toml`` above an installed package never redirects the lookup.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def is_checkout(root: Path) -> bool:
    """Whether ``root`` is the top of a checkout of authui's repository."""
    manifest = root / "pyproject.toml"
    if not manifest.is_file():
        return False
    project = tomllib.loads(manifest.read_text("utf-8")).get("project", {})
    return bool(project.get("name") == PACKAGE_DIR.name)


def data_dir(name: str) -> Path:
    """The folder ``name`` (``"themes"`` or ``"static"``) of the running authui.

    The checkout's top-level folder in a source checkout, else the one inside the
    installed package (see the module docstring for why in that order).
    """
    root = PACKAGE_DIR.parent
    checkout = root / name
    return checkout if checkout.is_dir() and is_checkout(root) else PACKAGE_DIR / name
