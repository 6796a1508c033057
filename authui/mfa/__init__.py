"""Second factors: time-based one-time passwords (``totp``), recovery codes
(``recovery``) and the QR code that enrols an authenticator app (``qr``). The challenge
that asks for one after a first sign-in, and the enrolment pages, are actions
(``authui.actions.mfa``, ``authui.actions.account.two_factor``)."""
