from __future__ import annotations

import os

from fastapi import FastAPI

from authui import AuthConfig, Pages
from authui.fastapi import AuthMiddleware, CurrentSession, RequireSession, Session

# The scheme the browser sees names the cookie: __Secure-authjs.session-token over HTTPS.
# AUTH_URL is the Next.js app's public origin, the same value on both sides.
HTTPS = os.environ.get("AUTH_URL", "").startswith("https:")

config = AuthConfig(
    providers=[],  # nobody signs in here; AUTH_SECRET comes from the environment
    trust_host=True,  # the API builds no links of its own
    use_secure_cookies=HTTPS,
    pages=Pages(sign_in="/api/auth/signin"),  # where browsers go: the Next.js sign-in page
)

app = FastAPI()
app.add_middleware(AuthMiddleware, config=config)


@app.get("/api/py/me")
async def me(session: RequireSession) -> Session:
    return session


@app.get("/api/py/greeting")
async def greeting(session: CurrentSession) -> dict[str, str]:
    name = session["user"].get("name") if session else None
    return {"greeting": f"Hello, {name or 'stranger'}!"}
