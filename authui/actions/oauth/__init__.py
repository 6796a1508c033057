"""The OAuth 2 / OpenID Connect sign-in flow: the authorization request, the callback, the
checks (state, PKCE, nonce) carried in cookies, and account linking. The protocol pieces
below them (discovery, client authentication, the token request) are in ``authui.oauth``.
"""
