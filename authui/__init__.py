"""authui: authentication for Python web apps, wire-compatible with Auth.js.

The core is one coroutine, ``Auth``, that turns a framework-free
``Request`` into a ``Response``.
"""

from __future__ import annotations

from authui.checks import ConfigCheck as ConfigCheck
from authui.checks import assert_config as assert_config
from authui.config import AccountOptions as AccountOptions
from authui.config import AuthConfig as AuthConfig
from authui.config import Callbacks as Callbacks
from authui.config import Events as Events
from authui.config import Experimental as Experimental
from authui.config import JWTOptions as JWTOptions
from authui.config import MfaOptions as MfaOptions
from authui.config import Pages as Pages
from authui.config import SessionOptions as SessionOptions
from authui.config import Theme as Theme
from authui.config import raw as raw
from authui.config import skip_csrf_check as skip_csrf_check
from authui.cookies import CookieOverride as CookieOverride
from authui.core import Auth as Auth
from authui.core import prepare as prepare
from authui.dates import is_date as is_date
from authui.env import set_env_defaults as set_env_defaults
from authui.errors import AuthError as AuthError
from authui.errors import CredentialsSignin as CredentialsSignin
from authui.http import InternalResponse as InternalResponse
from authui.http import Request as Request
from authui.http import Response as Response
from authui.options import validate_config as validate_config
from authui.passwords.hashing import Argon2 as Argon2
from authui.passwords.rules import PasswordRules as PasswordRules
from authui.providers.credentials import Credentials as Credentials
from authui.providers.email import EmailProvider as EmailProvider
from authui.providers.oauth import OIDC as OIDC
from authui.providers.oauth import Endpoint as Endpoint
from authui.providers.oauth import OAuth2 as OAuth2
from authui.providers.oauth import OAuthProvider as OAuthProvider
from authui.providers.password import Password as Password
from authui.throttle import Limit as Limit
from authui.throttle import Throttle as Throttle
from authui.urls import create_action_url as create_action_url
from authui.urls import is_auth_action as is_auth_action

__version__ = "0.1.0"

__all__ = [
    "OIDC",
    "AccountOptions",
    "Argon2",
    "Auth",
    "AuthConfig",
    "AuthError",
    "Callbacks",
    "ConfigCheck",
    "CookieOverride",
    "Credentials",
    "CredentialsSignin",
    "EmailProvider",
    "Endpoint",
    "Events",
    "Experimental",
    "InternalResponse",
    "JWTOptions",
    "Limit",
    "MfaOptions",
    "OAuth2",
    "OAuthProvider",
    "Pages",
    "Password",
    "PasswordRules",
    "Request",
    "Response",
    "SessionOptions",
    "Theme",
    "Throttle",
    "assert_config",
    "create_action_url",
    "is_auth_action",
    "is_date",
    "prepare",
    "raw",
    "set_env_defaults",
    "skip_csrf_check",
    "validate_config",
]
