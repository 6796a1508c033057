"""The ``authui`` command line."""

from __future__ import annotations

import base64
import subprocess
import sys
from io import BytesIO

import pytest
from babel.messages.pofile import read_po

from authui import messages
from authui.cli import main
from authui.providers.registry import provider_ids


def test_secret_prints_an_env_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["secret"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith('AUTH_SECRET="')
    assert out.out.endswith('"\n')
    value = out.out.strip()[len('AUTH_SECRET="') : -1]
    assert len(base64.urlsafe_b64decode(value + "=")) == 32
    assert ".env" in out.err


def test_secret_raw_prints_only_the_value_and_differs_each_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    values = set()
    for _ in range(5):
        main(["secret", "--raw"])
        values.add(capsys.readouterr().out.strip())
    assert len(values) == 5
    assert all(len(v) == 43 for v in values)


def test_console_script_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "authui.cli", "secret", "--raw"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(done.stdout.strip()) == 43


def test_unknown_command_exits_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["nope"])
    assert exit_info.value.code == 2
    assert "usage: authui" in capsys.readouterr().err


def test_providers_lists_every_built_in_with_its_environment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["providers"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + len(provider_ids())
    keycloak = next(line.split() for line in lines if line.startswith("keycloak "))
    assert keycloak[-4:] == [
        "/auth/callback/keycloak",
        "AUTH_KEYCLOAK_ID",
        "AUTH_KEYCLOAK_SECRET",
        "AUTH_KEYCLOAK_ISSUER",
    ]
    github = next(line for line in lines if line.startswith("github "))
    assert github.endswith("AUTH_GITHUB_ID AUTH_GITHUB_SECRET")


def test_messages_template_prints_every_message(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["messages", "template"]) == 0
    template = read_po(BytesIO(capfdbinary.readouterr().out))
    assert {"Sign in", "Continue with {name}"} <= {m.id for m in template}
    assert len(template) > 300


def test_messages_update_refuses_outside_a_checkout(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(messages, "in_checkout", lambda: False)
    assert main(["messages", "update"]) == 1
    assert "this authui is installed, not a checkout" in capsys.readouterr().err
