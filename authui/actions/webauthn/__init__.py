"""Passkey ceremonies on py_webauthn: registration and authentication, their single-use
challenges, and what both share (the relying party, reading the browser's answer).

Credential ids and public keys are stored in standard base64 with padding, as Auth.js
stores them, so a database shared with an Auth.js app holds the same passkeys.
"""
