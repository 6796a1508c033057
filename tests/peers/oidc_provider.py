"""A real OpenID Connect provider (npm ``oidc-provider``, run by node) for browser sign-in
tests: ``tests/peers/oidcprovider/server.mjs``.

Its clients are static configuration, fixed when the process starts, and they must name the
redirect URI of the app under test, whose port is only known once the app runs; the app, in
turn, must be told the provider's issuer URL. So the provider's listening socket is made
first, here (127.0.0.1, a free port, like :func:`tests.peers.servers.asgi_servers`):

1. :func:`reserved_oidc_provider` binds the socket and yields an :class:`OIDCProvider`
   whose :attr:`~OIDCProvider.issuer` is already known;
2. the caller starts the app with that issuer (an app that connects early just waits in the
   socket's backlog);
3. :meth:`OIDCProvider.start` runs ``server.mjs`` on the inherited socket, with clients
   naming the app's redirect URIs, and waits for its ready line.

No port is ever released and taken again, so there is no window for another process.
:func:`oidc_provider` does all three steps for clients known in advance.

Without node or the npm package: fail under ``CI=true``, skip elsewhere (``peer_missing``).
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import select
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Literal

import httpx

from tests.peers.availability import peer_missing
from tests.peers.servers import stop

PEER_DIR = Path(__file__).resolve().parent / "oidcprovider"
SCRIPT = PEER_DIR / "server.mjs"
PACKAGE = PEER_DIR / "node_modules" / "oidc-provider"
INSTALL_HINT = "run npm ci in tests/peers/oidcprovider (scripts/test does)"
START_TIMEOUT = 30.0

ClientAuth = Literal["client_secret_basic", "client_secret_post", "none"]
Client = Mapping[str, Any]
"""oidc-provider client metadata: ``client_id``, ``redirect_uris``, …"""


def client(
    client_id: str,
    redirect_uri: str,
    auth: ClientAuth,
    secret: str | None = None,
    *,
    refresh: bool = False,
    **more: Any,
) -> dict[str, Any]:
    """Client metadata for one web client: confidential (``secret`` required) or public
    (``auth="none"``, no secret; the provider then requires PKCE). ``refresh``: the client
    may use refresh tokens (with ``start(refresh_tokens=…)``); ``more``: further metadata
    (``post_logout_redirect_uris``, ``backchannel_logout_uri``, …)."""
    metadata: dict[str, Any] = {
        "client_id": client_id,
        "redirect_uris": [redirect_uri],
        "token_endpoint_auth_method": auth,
        **more,
    }
    if refresh:
        metadata["grant_types"] = ["authorization_code", "refresh_token"]
    if auth != "none":
        if not secret:
            raise ValueError(f"a {auth} client needs a secret")
        metadata["client_secret"] = secret
    return metadata


def missing() -> str | None:
    """Why the provider cannot run here, or ``None`` when it can."""
    if shutil.which("node") is None:
        return "node is not installed (not on PATH)"
    if not (PACKAGE / "package.json").is_file():
        return f"oidc-provider is not installed in {PEER_DIR}"
    return None


class OIDCProvider:
    """The provider on a reserved socket: :attr:`issuer` is known at once, the process
    runs after :meth:`start`."""

    def __init__(self, listener: socket.socket, log: Path) -> None:
        self._listener: socket.socket | None = listener
        self.issuer = f"http://127.0.0.1:{listener.getsockname()[1]}"
        """``http://127.0.0.1:<port>``: the issuer, and the base of every endpoint."""
        self.log = log
        """The process's stderr: oidc-provider's warnings and one line per error."""
        self._process: subprocess.Popen[str] | None = None

    def start(
        self,
        clients: Sequence[Client],
        *,
        conform_id_token_claims: bool = True,
        refresh_tokens: Mapping[str, Any] | None = None,
        backchannel_logout: bool = False,
        revocation: bool = False,
    ) -> str:
        """Run the provider with ``clients``; return :attr:`issuer` once it answers.

        ``conform_id_token_claims``: oidc-provider's ``conformIdTokenClaims``; ``True`` (its
        default) keeps ``email``/``name`` out of the id_token when an access token is
        issued (the client reads them from userinfo), ``False`` puts them in the id_token.
        ``refresh_tokens``: ``{"rotate": bool, "accessTokenTtl": seconds}``, refresh
        tokens for the clients made with ``refresh=True`` (see ``server.mjs``).
        ``backchannel_logout``: the Back-Channel Logout feature. ``revocation``: the Token
        Revocation feature (RFC 7009; discovery names its ``revocation_endpoint``).
        """
        if self._listener is None or self._process is not None:
            raise RuntimeError("the provider was started already")
        node = shutil.which("node")
        assert node is not None, "missing() said node is there"
        fd = self._listener.fileno()
        config: dict[str, Any] = {
            "clients": list(clients),
            "conformIdTokenClaims": conform_id_token_claims,
            "backchannelLogout": backchannel_logout,
            "revocation": revocation,
            "fd": fd,
        }
        if refresh_tokens is not None:
            config["refreshTokens"] = dict(refresh_tokens)
        with self.log.open("w") as log:
            self._process = subprocess.Popen(
                [node, str(SCRIPT)],
                cwd=PEER_DIR,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                pass_fds=[fd],
                text=True,
                encoding="utf-8",
            )
        self._listener.close()  # the child holds the listening socket now
        self._listener = None
        assert self._process.stdin is not None
        assert self._process.stdout is not None
        self._process.stdin.write(json.dumps(config))
        self._process.stdin.close()
        ready = self._ready_line(self._process.stdout)
        if ready.get("issuer") != self.issuer:
            raise RuntimeError(f"server.mjs says {ready!r}, expected issuer {self.issuer}")
        return self.issuer

    def _ready_line(self, stdout: IO[str]) -> dict[str, Any]:
        assert self._process is not None
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError(f"server.mjs was not ready in time:\n{self.log_text()}")
            readable, _, _ = select.select([stdout], [], [], remaining)
            if readable:
                line = stdout.readline()
                if not line:
                    self._process.wait(timeout=5)
                    raise RuntimeError(
                        f"server.mjs exited ({self._process.returncode}):\n{self.log_text()}"
                    )
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue  # not ours: keep waiting for the JSON line
                if isinstance(answer, dict):
                    return answer

    def log_text(self) -> str:
        """What the provider logged so far (for failure messages)."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def errors(self) -> list[str]:
        """The provider's error lines (``oidc-provider <event>: …``), in order."""
        return [
            line
            for line in self.log_text().splitlines()
            if line.startswith("oidc-provider ") and "WARNING" not in line
        ]

    def grants(self, grant_type: str) -> int:
        """How many tokens the token endpoint has issued for ``grant_type`` so far."""
        line = f"oidc-provider-grant {grant_type}"
        return sum(1 for found in self.log_text().splitlines() if found == line)

    def stop(self) -> None:
        """Stop the process (if it runs) and release the socket (if it was never started)."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            stop(process)
        if process.stdout is not None:
            process.stdout.close()


@contextlib.contextmanager
def reserved_oidc_provider() -> Iterator[OIDCProvider]:
    """A provider whose socket (127.0.0.1, a free port) is bound but whose process is not
    started: start it with :meth:`OIDCProvider.start`. Stopped on exit.

    Without node or oidc-provider: skip, or fail under ``CI=true``."""
    reason = missing()
    if reason is not None:
        peer_missing(f"OpenID provider peer unavailable: {reason}; {INSTALL_HINT}")
    with tempfile.TemporaryDirectory(prefix="authui-oidc-provider-") as tmp:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind(("127.0.0.1", 0))
            listener.listen(128)
        except OSError:
            listener.close()
            raise
        provider = OIDCProvider(listener, Path(tmp) / "oidc-provider.log")
        try:
            yield provider
        finally:
            provider.stop()


@contextlib.contextmanager
def oidc_provider(clients: Sequence[Client], **settings: Any) -> Iterator[OIDCProvider]:
    """The provider, running with ``clients`` and :meth:`OIDCProvider.start`'s keyword
    settings; yields it (``.issuer``), stops it on exit."""
    with reserved_oidc_provider() as provider:
        provider.start(clients, **settings)
        yield provider


HIDDEN_INPUT = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


def log_in(
    authorization_url: str, redirect_uri: str, login: str, *, cookies: httpx.Cookies | None = None
) -> str:
    """Go through the provider's development login and consent pages the way a browser
    would (plain HTTP, no script on them), for ``login``; return the redirect back to the
    app (``redirect_uri?code=…&state=…``). ``cookies`` keep the provider's session."""
    jar = cookies if cookies is not None else httpx.Cookies()
    with httpx.Client(cookies=jar, follow_redirects=False, timeout=10) as browser:
        url = authorization_url
        for _ in range(12):
            if url.startswith(redirect_uri):
                return url
            answer = browser.get(url)
            if answer.is_redirect:
                url = str(answer.next_request.url) if answer.next_request else ""
                continue
            form = re.search(r'<form[^>]*action="([^"]+)"', answer.text)
            if answer.status_code != 200 or form is None:
                raise RuntimeError(f"unexpected page at {url}: {answer.status_code}")
            fields = dict(HIDDEN_INPUT.findall(answer.text))
            if 'name="login"' in answer.text:
                fields.update(login=login, password="any")
            sent = browser.post(str(answer.url.join(html.unescape(form.group(1)))), data=fields)
            if not sent.is_redirect or sent.next_request is None:
                raise RuntimeError(f"the form at {url} answered {sent.status_code}")
            url = str(sent.next_request.url)
    raise RuntimeError("the provider's pages did not lead back to the app")
