"""A password sign-in: ``POST <base>/callback/password`` with ``email`` and ``password``
(the sign-in page's form, or Auth.js's ``signIn("password", …)``), throttled as every
credentials sign-in is (``authui.actions.throttling``).

Every refusal is the same ``CredentialsSignin`` after the same work: a password is hashed
whether or not the address has an account or a password, so neither the answer nor its
time tells whether the address is known. A right password for an address not confirmed
yet gets ``EmailNotVerified`` and a new link (only the password's owner learns it).
"""

from __future__ import annotations

import contextlib

from authui.actions.finish import finish_sign_in
from authui.actions.password.common import NEEDED_FOR, adapter_of, address, typed_password
from authui.actions.password.signup import send_confirmation
from authui.adapters.base import AdapterUser, user_record
from authui.adapters.factors import PasswordRecord
from authui.context import Context
from authui.errors import CredentialsSignin, EmailNotVerified, TooManyAttempts
from authui.http import InternalResponse
from authui.passwords.hashing import check_password
from authui.providers.password import Password


async def sign_in(ctx: Context, provider: Password) -> InternalResponse:
    """Check the address and password and sign the user in (the second factor next, when
    they have one).

    Raises:
        CredentialsSignin: No such address, no password, or the wrong one.
        EmailNotVerified: The right password, for an address not confirmed yet.
    """
    adapter = adapter_of(ctx)
    email = address(ctx.body.get("email"))
    password = typed_password(ctx.body.get("password"), provider)
    user: AdapterUser | None = None
    if email is not None and password:
        user = await adapter.call("get_user_by_email", NEEDED_FOR, email)
    record: PasswordRecord | None = None
    if user is not None:
        record = await adapter.call("get_password", NEEDED_FOR, user.id)
    checked = await check_password(provider.hashing, record.hash if record else None, password)
    if not checked.matches or user is None or record is None:
        raise CredentialsSignin()
    if checked.new_hash is not None:  # the parameters changed: keep the hash up to date
        await adapter.call(
            "set_password",
            NEEDED_FOR,
            PasswordRecord(user_id=user.id, hash=checked.new_hash, updated=record.updated),
            record.hash,
        )
    if provider.verify_email and user.email_verified is None and user.email:
        with contextlib.suppress(TooManyAttempts):  # a link was sent not long ago
            await send_confirmation(ctx, provider, user.email)
        raise EmailNotVerified("The address of this password account is not confirmed yet")
    account = {"providerAccountId": user.id, "type": "credentials", "provider": provider.id}
    return await finish_sign_in(
        ctx,
        user=user_record(user),
        account=account,
        credentials={"email": email},
        is_new_user=False,
    )
