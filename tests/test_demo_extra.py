"""``scripts/demo`` installs the ``demo`` extra, and that extra holds everything the demo runs.

Rather than building a fresh virtualenv (slow, and it needs the network), the demo runs in a
process that cannot import any installed distribution outside what ``pip install
authui[demo]`` brings (read from pyproject.toml and the installed packages' metadata): every
variant ``scripts/demo`` serves, the servers it executes, and a request to each provider the
demo's configuration holds (a passkey's options, a magic link through an SMTP server, an
OAuth redirect, the credentials form) on every theme. What the demo needs is whatever that
configuration imports, not a list written here; an optional import that fails (a package
the demo does not need) is no failure.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = (ROOT / "scripts" / "demo").read_text()
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

RUN_DEMO = r"""
import asyncio, importlib, importlib.abc, importlib.metadata, json, sys

BLOCKED = frozenset(json.loads(sys.argv[1]))
APPS, SERVERS = json.loads(sys.argv[2]), json.loads(sys.argv[3])


class OutsideTheExtra(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (not in authui[demo])", name=name)
        return None


sys.meta_path.insert(0, OutsideTheExtra())

import httpx

answers = []


async def visit(asgi, label, settings):
    transport = httpx.ASGITransport(app=asgi)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        for pack, scheme in settings.CONFIGS:
            client.cookies.set("theme", pack)
            client.cookies.set("scheme", scheme)
            page = await client.get("/auth/signin")
            answers.append((label, f"signin page, theme {pack}", page.status_code))
        csrf = (await client.get("/auth/csrf")).json()["csrfToken"]
        for provider in settings.CONFIGS["default", "auto"].providers:
            if provider.type == "webauthn":
                path = f"/auth/webauthn-options/{provider.id}?action=authenticate"
                response = await client.get(path)
            else:
                action = "callback" if provider.type == "credentials" else "signin"
                form = {"csrfToken": csrf, "email": "probe@example.com"}
                form |= {"username": "demo", "password": "demo"}
                response = await client.post(f"/auth/{action}/{provider.id}", data=form)
            where = response.headers.get("location") or response.headers.get("content-type")
            answers.append((label, provider.id, response.status_code, where))
        for path in ("/", "/protected", "/profile", "/theme?next=/"):
            answers.append((label, path, (await client.get(path)).status_code))


async def main():
    from demo import settings

    await settings.seed_demo_user()
    for target in APPS:
        module, _, name = target.partition(":")
        await visit(getattr(importlib.import_module(module), name), target, settings)
    await settings.ADAPTER.close()


for server in SERVERS:
    (entry,) = importlib.metadata.entry_points(group="console_scripts", name=server)
    entry.load()
asyncio.run(main())
print(json.dumps(answers))
"""
"""The demo under an import blocker: ``argv`` holds the blocked top-level modules, the
``module:app`` targets and the server commands; prints what each request answered."""


def installs(extra: str) -> set[str]:
    """The distributions ``pip install authui[<extra>]`` installs (normalised names), from
    pyproject.toml and the metadata of the installed distributions."""
    options = PROJECT["optional-dependencies"]
    pending = [Requirement(f"{PROJECT['name']}[{extra}]")]
    seen: set[tuple[str, frozenset[str]]] = set()
    found: set[str] = set()
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        key = (name, frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        if name == canonicalize_name(PROJECT["name"]):
            wanted = [*PROJECT["dependencies"]]
            wanted += [r for e in sorted(requirement.extras) for r in options[e]]
            pending += [Requirement(r) for r in wanted]
            continue
        found.add(name)
        try:
            needs = importlib.metadata.requires(requirement.name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # not installed here: nothing of it can be imported anyway
        extras = ["", *sorted(requirement.extras)]
        for need in map(Requirement, needs):
            if need.marker is None or any(need.marker.evaluate({"extra": e}) for e in extras):
                pending.append(need)
    return found


def modules_outside(allowed: set[str]) -> list[str]:
    """Top-level modules of installed distributions none of which is ``allowed``."""
    return sorted(
        module
        for module, distributions in importlib.metadata.packages_distributions().items()
        if module not in {"authui", "demo"}
        and not {canonicalize_name(d) for d in distributions} & allowed
    )


def free_port() -> int:
    """A local port nobody listens on (the demo's SMTP server: unreachable, by design)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_scripts_demo_installs_the_demo_extra() -> None:
    assert re.search(r'pip install .*"\.\[demo\]"', SCRIPT)
    assert "demo" in PROJECT["optional-dependencies"]


def test_the_demo_runs_on_the_demo_extra_alone(tmp_path: Path) -> None:
    apps = re.findall(r"\bapp=([\w.]+:\w+)", SCRIPT)
    servers = sorted(set(re.findall(r"\.venv/bin/(\w+)", SCRIPT)) - {"python"})
    assert len(apps) == 3
    assert servers == ["hypercorn", "uvicorn"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTH_")}
    env |= {
        "AUTH_SECRET": secrets.token_urlsafe(32),
        "AUTH_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}",
        "AUTH_EMAIL_SERVER": f"smtp://127.0.0.1:{free_port()}",
        "AUTH_GITHUB_ID": "demo-github-id",
        "AUTH_GITHUB_SECRET": "demo-github-secret",
    }
    blocked = modules_outside(installs("demo"))
    ran = subprocess.run(
        [
            sys.executable,
            "-c",
            RUN_DEMO,
            json.dumps(blocked),
            json.dumps(apps),
            json.dumps(servers),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    answers = json.loads(ran.stdout)
    for target in apps:
        mine = {tuple(answer[1:]) for answer in answers if answer[0] == target}
        assert ("passkey", 200, "application/json") in mine
        assert ("github", 302) in {answer[:2] for answer in mine}
        assert ("email", 503) in {answer[:2] for answer in mine}  # aiosmtplib, a closed port
        assert ("/profile", 200) in mine  # signed in with the credentials form
        for answer in mine:
            assert answer[1] < 500 or answer[:2] == ("email", 503), answer
            assert "error=Configuration" not in str(answer[2:]), answer
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
