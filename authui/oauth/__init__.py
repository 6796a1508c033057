"""The OAuth 2 / OpenID Connect protocol, below the sign-in flow (``authui.actions.oauth``):
discovery and key sets, client authentication, the token request and id_token checks.

Protocol pieces come from authlib (client assertions, PKCE, id_token claims) and joserfc
(JWKS, JWS); every request goes through one shared ``httpx.AsyncClient`` per event loop,
or through a provider's ``custom_fetch``.
"""
