"""Passkey ceremonies on py_webauthn: options, single-use challenges, verification, and the
linking rules for passkeys."""
