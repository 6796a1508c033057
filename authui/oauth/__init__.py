"""The OAuth 2 / OpenID Connect flow: authorization request, callback, checks, discovery.

Protocol pieces come from authlib (client assertions, PKCE, id_token claims) and joserfc
(JWKS, JWS); every request goes through one shared ``httpx.AsyncClient`` per event loop,
or through a provider's ``custom_fetch``.
"""
