"""A mail service that fails: the password forms answer 503 with ``Retry-After``, the same
for an address with an account and one without (an outage tells nobody which addresses
are known), and nothing is left half-made."""

from __future__ import annotations

import pytest

from authui.mail.message import DeliveryError, MailServiceUnavailable, VerificationEmail
from authui.providers.email import EmailProvider
from tests.passwords.support import form_post, password_site, sign_up


@pytest.mark.parametrize("failure", [MailServiceUnavailable("down"), DeliveryError("refused")])
async def test_known_and_unknown_addresses_fail_alike(failure: Exception) -> None:
    async def broken(message: VerificationEmail, provider: EmailProvider) -> None:
        raise failure

    site = await password_site(transport=broken)
    ann = await site.add_user("ann@example.com")
    before = await site.hash_of(ann.id)
    answers = {}
    for email in ("ann@example.com", "zed@example.com"):
        forgot = await form_post(site.browser(), "password/forgot", {"email": email})
        signed_up = await sign_up(site.browser(), email, "someone-elses-secret-9")
        answers[email] = [
            (answer.status, answer.header("retry-after") is not None, answer.header("location"))
            for answer in (forgot, signed_up)
        ]
    assert answers["ann@example.com"] == answers["zed@example.com"] == [(503, True, None)] * 2
    assert await site.user_by_email("zed@example.com") is None  # no account half-made
    assert await site.hash_of(ann.id) == before
