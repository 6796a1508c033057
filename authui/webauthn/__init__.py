"""Passkey ceremonies on py_webauthn: options, the challenge cookie, verification, and the
linking rules for passkeys."""
