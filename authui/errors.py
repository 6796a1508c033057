"""The errors authui raises and logs.

Every error has a stable ``type`` (the Auth.js error type of the same name), a ``kind``
that picks the page a user is sent to (``"signIn"`` for the sign-in page, ``"error"`` for
the error page), and ``client_safe``, which says whether its type may appear in a URL.
Errors that are not client-safe reach the user as ``error=Configuration``; the details go
to the server log only.

Each type has an anchor on the errors reference page: ``docs/reference/errors.md#<type>``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

ErrorKind = Literal["signIn", "error"]

DOCS_URL = "https://authui.readthedocs.io/en/latest/reference/errors/"


class AuthError(Exception):
    """Base class of every error authui raises.

    Args:
        message: What went wrong, for the server log. Never shown to users.
        cause: Details for the log: the original exception under ``"err"`` plus any
            context worth printing.
    """

    type: ClassVar[str] = "AuthError"
    kind: ClassVar[ErrorKind] = "error"
    client_safe: ClassVar[bool] = False
    status: ClassVar[int | None] = None
    """An HTTP status the error is answered with on the spot (its page, or JSON for API
    clients) instead of a redirect to its page: 400 for a client's bad request, 429 for
    throttling, 503 for an outage. ``None``: the usual redirect to the error's page."""
    retry_after: int | None = None
    """Seconds after which trying again may succeed; sent as ``Retry-After``."""
    errors: tuple[AuthError, ...] = ()
    """On the error ``validate_config`` raises: every configuration problem it found, this
    error's own first (its message lists them all)."""

    def __init__(self, message: str | None = None, *, cause: dict[str, Any] | None = None):
        self.cause: dict[str, Any] = dict(cause or {})
        error = self.cause.get("err")
        if message is None and isinstance(error, BaseException):
            message = str(error) or type(error).__name__
        self.detail = message or self.type
        super().__init__(f"{self.detail}. Read more at {self.docs_url}")
        if isinstance(error, BaseException):
            self.__cause__ = error

    @property
    def docs_url(self) -> str:
        """Link to this error's entry in the errors reference."""
        return f"{DOCS_URL}#{self.type.lower()}"


class SignInError(AuthError):
    """Base class of errors that send the user back to the sign-in page."""

    kind: ClassVar[ErrorKind] = "signIn"


class AccessDenied(AuthError):
    """The ``sign_in`` callback returned ``False`` or raised."""

    type = "AccessDenied"
    client_safe = True


class AdapterError(AuthError):
    """An adapter method failed for another reason than an outage (``ServiceUnavailable``):
    a refused write, a schema that does not match, a bug. ``__cause__`` is the driver's
    exception, ``cause["method"]`` names the method. Client-safe: the user is told that the
    request could not be completed, not that the server is misconfigured."""

    type = "AdapterError"
    client_safe = True


class CallbackRouteError(AuthError):
    """Something that is not an ``AuthError`` was raised while finishing a sign-in, for
    example ``authorize`` raised a plain exception or a token exchange failed."""

    type = "CallbackRouteError"


class ErrorPageLoop(AuthError):
    """The custom error page's ``callbackUrl`` points back into the error page."""

    type = "ErrorPageLoop"


class EventError(AuthError):
    """An event handler raised. It is logged and the flow goes on."""

    type = "EventError"


class InvalidCallbackUrl(AuthError):
    """The ``callbackUrl`` query parameter or cookie is neither a path nor an http(s) URL."""

    type = "InvalidCallbackUrl"


class CodedSignInError(SignInError):
    """A client-safe sign-in error with a ``code`` for the sign-in page's URL
    (``?error=<type>&code=<code>``); the code must not reveal anything sensitive.

    Args:
        code: Overrides the class's ``code`` for this instance.
    """

    client_safe = True
    code: str = ""

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        cause: dict[str, Any] | None = None,
    ):
        super().__init__(message, cause=cause)
        if code is not None:
            self.code = code


class CredentialsSignin(CodedSignInError):
    """Raise this from a credentials provider's ``authorize`` to refuse a sign-in. ``code``
    is added to the sign-in page's URL (``?error=CredentialsSignin&code=<code>``), so it
    must not reveal anything sensitive; subclass and set it to pick the page's message."""

    type = "CredentialsSignin"
    code: str = "credentials"


class EmailNotVerified(CredentialsSignin):
    """A password sign-in with the right password for an address not confirmed yet: a new
    confirmation link is sent, and the page says to follow it. Only someone who knows the
    password learns that the account exists."""

    code = "email_not_verified"


class InvalidEndpoints(AuthError):
    """An OAuth provider has neither an issuer nor all of its endpoint URLs."""

    type = "InvalidEndpoints"


class InvalidCheck(AuthError):
    """A state, PKCE, nonce or challenge check cookie is missing, broken or foreign."""

    type = "InvalidCheck"


class JWTSessionError(AuthError):
    """A JWT session could not be decoded or encoded; the session cookie is cleared."""

    type = "JWTSessionError"


class MissingAdapter(AuthError):
    """A feature that needs an adapter (email, database sessions, passkeys) has none."""

    type = "MissingAdapter"


class MissingAdapterMethods(AuthError):
    """The adapter lacks methods that the configured providers or strategy need."""

    type = "MissingAdapterMethods"


class MissingAuthorize(AuthError):
    """A credentials provider has no ``authorize`` function."""

    type = "MissingAuthorize"


class MissingSecret(AuthError):
    """No secret is configured (``secret=`` or ``AUTH_SECRET``)."""

    type = "MissingSecret"


class OAuthAccountNotLinked(SignInError):
    """The OAuth account belongs to another user, or its email is already taken."""

    type = "OAuthAccountNotLinked"
    client_safe = True


class OAuthCallbackError(SignInError):
    """The OAuth provider answered the callback with an error."""

    type = "OAuthCallbackError"
    client_safe = True


class OAuthProfileParseError(AuthError):
    """A provider's ``profile`` function raised."""

    type = "OAuthProfileParseError"


class SessionTokenError(AuthError):
    """A database session could not be read; the session answer is ``null``."""

    type = "SessionTokenError"


class OAuthSignInError(SignInError):
    """Starting an OAuth sign-in failed."""

    type = "OAuthSignInError"


class EmailSignInError(CodedSignInError):
    """A sign-in email was not sent: the address is not valid (``code`` ``invalid_email``),
    or the mail service refused it (``send_failed``); the code goes in the sign-in page's
    URL. Too many requests are ``TooManyAttempts``; an unreachable mail service is
    ``ServiceUnavailable``."""

    type = "EmailSignInError"
    code: str = "send_failed"


class SignOutError(AuthError):
    """Ending a session failed. Logged; the session cookies are cleared all the same."""

    type = "SignOutError"


class UnknownAction(AuthError):
    """The request names no action authui knows, or uses an unsupported method."""

    type = "UnknownAction"


class UnsupportedStrategy(AuthError):
    """The session strategy cannot work with the configured providers."""

    type = "UnsupportedStrategy"


class InvalidProvider(AuthError):
    """The provider in the URL does not exist or cannot serve this action."""

    type = "InvalidProvider"


class UntrustedHost(AuthError):
    """The request's host is not trusted: set ``AUTH_URL`` or ``trust_host=True``."""

    type = "UntrustedHost"


class Verification(AuthError):
    """A sign-in link was already used, has expired or belongs to another address."""

    type = "Verification"
    client_safe = True


class MissingCSRF(SignInError):
    """A state-changing POST came without a valid CSRF token."""

    type = "MissingCSRF"
    client_safe = True


class AccountNotLinked(SignInError):
    """The passkey belongs to another user."""

    type = "AccountNotLinked"
    client_safe = True


class ReauthenticationRequired(AuthError):
    """A change that adds a way into the account (linking another provider's account,
    adding a passkey) came from a session whose sign-in is older than
    ``AccountOptions.reauthenticate_after``: the user signs in again first (step-up). A
    stolen session cookie alone cannot give its thief a lasting way in."""

    type = "ReauthenticationRequired"
    client_safe = True


class ReauthenticationFailed(SignInError):
    """A step-up sign-in (the account center asked the signed-in user to sign in again)
    signed in someone else: another account, or an account of another user. Nothing
    changed; the user is still signed in as before."""

    type = "ReauthenticationFailed"
    client_safe = True


class DuplicateConditionalUI(AuthError):
    """More than one passkey provider asks for conditional UI (autofill)."""

    type = "DuplicateConditionalUI"


class MissingWebAuthnAutocomplete(AuthError):
    """A passkey provider with conditional UI has no field with ``autocomplete`` "webauthn"."""

    type = "MissingWebAuthnAutocomplete"


class WebAuthnVerificationError(AuthError):
    """The browser's passkey response did not verify."""

    type = "WebAuthnVerificationError"
    client_safe = True


class PasskeyAlreadyRegistered(AuthError):
    """A passkey registration brought a credential this site has stored already (its
    authenticator ignored the list of passkeys to exclude, or a registration was sent
    twice). Nothing is stored; the user signs in with that passkey instead."""

    type = "PasskeyAlreadyRegistered"
    client_safe = True


class ExperimentalFeatureNotEnabled(AuthError):
    """An experimental feature is used without its ``experimental`` flag."""

    type = "ExperimentalFeatureNotEnabled"


class TooManyAttempts(SignInError):
    """A sign-in path is throttled for this account or client: answered with 429 and
    ``Retry-After``, the sign-in page showing when to try again.

    Args:
        retry_after: Seconds until the limit's window ends (at least 1).
        window: The length in seconds of the limit's fixed window (its windows start at
            multiples of it), which a throttled account's activity is recorded once in.
    """

    type = "TooManyAttempts"
    client_safe = True
    status = 429

    def __init__(
        self,
        message: str | None = None,
        *,
        retry_after: int = 60,
        window: int = 60,
        cause: dict[str, Any] | None = None,
    ):
        super().__init__(message, cause=cause)
        self.retry_after = max(1, retry_after)
        self.window = max(1, window)


class RefreshTokenError(AuthError):
    """A linked account's access token expired and could not be refreshed: no refresh
    token, the provider refused it (revoked, expired, spent), or another refresh of the
    account did not finish in time. The user has to sign in with the provider again."""

    type = "RefreshTokenError"
    cookies: tuple[Any, ...] = ()
    """With tokens kept in a JWT session: the re-issued session cookie that records the
    failure (``error`` in the session), for the integration to set before it raises."""


class ServiceUnavailable(AuthError):
    """A service authui depends on (the database, the mail service) is unreachable: an
    outage, not a configuration error. Answered with 503 and ``Retry-After``."""

    type = "ServiceUnavailable"
    client_safe = True
    status = 503
    retry_after = 30


class BadRequest(AuthError):
    """The client sent a request authui cannot serve (an unknown action, a malformed
    ``callbackUrl``): answered with 400, a page for browsers and JSON for API clients."""

    type = "BadRequest"
    client_safe = True
    status = 400


class InvalidHost(BadRequest):
    """The request's ``Host`` (or, from a trusted proxy, ``X-Forwarded-Host``) is not a
    valid host, or not one of ``trusted_hosts``: answered with 400, and nothing is built
    from it (no link, no redirect, no cookie)."""

    type = "InvalidHost"


ERROR_TYPES: tuple[type[AuthError], ...] = (
    AuthError,
    AccessDenied,
    AccountNotLinked,
    AdapterError,
    BadRequest,
    CallbackRouteError,
    CredentialsSignin,
    DuplicateConditionalUI,
    EmailSignInError,
    ErrorPageLoop,
    EventError,
    ExperimentalFeatureNotEnabled,
    InvalidCallbackUrl,
    InvalidCheck,
    InvalidEndpoints,
    InvalidHost,
    InvalidProvider,
    JWTSessionError,
    MissingAdapter,
    MissingAdapterMethods,
    MissingAuthorize,
    MissingCSRF,
    MissingSecret,
    MissingWebAuthnAutocomplete,
    OAuthAccountNotLinked,
    OAuthCallbackError,
    OAuthProfileParseError,
    OAuthSignInError,
    PasskeyAlreadyRegistered,
    ReauthenticationFailed,
    ReauthenticationRequired,
    RefreshTokenError,
    ServiceUnavailable,
    SessionTokenError,
    SignInError,
    SignOutError,
    TooManyAttempts,
    UnknownAction,
    UnsupportedStrategy,
    UntrustedHost,
    Verification,
    WebAuthnVerificationError,
)
"""Every error class, for docs and tests; ``SignInError`` is abstract but listed."""
