"""RFC 7009 against a real OpenID provider (``conftest.op``, npm ``oidc-provider`` with its
revocation feature): unlinking an account, or deleting the user, revokes the account's
refresh token there, which the provider's token endpoint then refuses. A revocation that
fails is logged, and the account is unlinked all the same."""

from __future__ import annotations

import logging

import httpx
import pytest

from authui.adapters.base import AdapterAccount
from authui.adapters.memory import MemoryAdapter
from tests.account.support import (
    OP_CLIENT,
    OP_SECRET,
    PAGE,
    Site,
    account_url,
    form_for,
    oauth_sign_in,
    op_provider,
    site,
    submit,
)
from tests.peers.oidc_provider import OIDCProvider


async def refreshed(op: OIDCProvider, refresh_token: str) -> httpx.Response:
    """The provider's token endpoint, asked for new tokens with ``refresh_token``."""
    async with httpx.AsyncClient() as client:
        return await client.post(
            f"{op.issuer}/token",
            data={"grant_type": "refresh_token", "refresh_token": refresh_token},
            auth=(OP_CLIENT, OP_SECRET),
        )


async def linked_at_op(here: Site, login: str) -> AdapterAccount:
    """Ada links her account ``login`` at the provider, as the connections page does; the
    account stored, whose refresh token works."""
    ada = await here.client("ada")
    done = await oauth_sign_in(ada, login, account_url("connections"))
    assert done.header("location") == account_url("connections")
    store: MemoryAdapter = here.store
    [account] = store.accounts.values()
    assert account.refresh_token
    return account


@pytest.mark.parametrize("configured", [False, True], ids=["discovered", "configured"])
async def test_unlinking_revokes_the_refresh_token_at_the_provider(
    op: OIDCProvider, configured: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """The endpoint comes from the provider's discovery document, or from the provider's
    ``revocation`` setting."""
    settings = {"revocation": f"{op.issuer}/token/revocation"} if configured else {}
    here = await site(oauth=[op_provider(op.issuer, **settings)])
    account = await linked_at_op(here, f"unlink-{configured}")
    assert (await refreshed(op, str(account.refresh_token))).status_code == 200  # it works
    ada = await here.client("ada")

    page = await ada.get("account/connections", headers=PAGE)
    done = await submit(ada, form_for(page, "unlink"))
    assert done.header("location") == account_url("connections", notice="unlinked")
    assert await here.store.get_account(account.provider_account_id, "op") is None
    refused = await refreshed(op, str(account.refresh_token))
    assert refused.status_code == 400
    assert refused.json()["error"] == "invalid_grant"
    assert [line for line in op.errors() if "revocation" in line] == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_deleting_the_user_revokes_their_accounts_tokens(op: OIDCProvider) -> None:
    here = await site(oauth=[op_provider(op.issuer)])
    account = await linked_at_op(here, "deleted-user")
    ada = await here.client("ada")
    page = await ada.get("account/delete", headers=PAGE)
    done = await submit(ada, form_for(page, "delete"), confirm="yes")
    assert done.header("location") == account_url("deleted")
    refused = await refreshed(op, str(account.refresh_token))
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")


async def test_a_failed_revocation_is_logged_and_the_account_unlinked_all_the_same(
    op: OIDCProvider, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = f"{op.issuer}/no-such-endpoint"
    here = await site(oauth=[op_provider(op.issuer, revocation=wrong)])
    account = await linked_at_op(here, "unlucky")
    ada = await here.client("ada")
    page = await ada.get("account/connections", headers=PAGE)
    done = await submit(ada, form_for(page, "unlink"))
    assert done.header("location") == account_url("connections", notice="unlinked")
    assert await here.store.get_account(account.provider_account_id, "op") is None
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
    assert f"Revoking a op token failed: {wrong} answered 404" in errors[0]
    assert str(account.refresh_token) not in caplog.text
    assert (await refreshed(op, str(account.refresh_token))).status_code == 200
