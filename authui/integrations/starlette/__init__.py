"""Starlette integration (FastAPI builds on it): the auth routes as a mountable ASGI app
(``app``) or as route handlers, ``get_session`` / ``get_token`` (``session``), a pure ASGI
middleware putting the session on ``request.state.auth`` and guarding path prefixes
(``middleware``), server-side ``sign_in``/``sign_out``/``update`` (``helpers``), and authui
in ``Jinja2Templates`` (``templates``). The public names are in ``authui.starlette``.
"""
