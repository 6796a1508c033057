"""Azure AD: Microsoft Entra ID under the id ``azure-ad``."""

from __future__ import annotations

from authui.providers.azure_ad import AzureAD
from authui.providers.microsoft_entra_id import MicrosoftEntraID
from authui.providers.registry import built_in
from tests.oauth.standin import sign_in_through
from tests.providers.oidc.common import check_account, check_authorization, location, mapped
from tests.providers.oidc.test_microsoft_entra_id import SUB, entra_standin


async def test_sign_in() -> None:
    provider = AzureAD()
    assert (provider.id, provider.name) == ("azure-ad", "Azure Active Directory")
    standin = entra_standin()
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email User.Read"})
    check_account(outcome, provider, SUB)
    assert location(outcome.callback) == "http://localhost:3000/dashboard"
    assert mapped(outcome)["image"].startswith("data:image/jpeg;base64,")


def test_same_provider_as_entra() -> None:
    entra, azure = MicrosoftEntraID(tenant_id="t"), built_in("azure-ad", tenant_id="t")
    assert azure.__class__ is entra.__class__
    different = {"id", "name"}
    for field in entra.__dataclass_fields__:
        if field not in different:
            assert getattr(azure, field) == getattr(entra, field), field
