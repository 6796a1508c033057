"""A software passkey authenticator for request-level tests: it answers WebAuthn options
the way a browser with a platform authenticator would (attestation ``none``, ES256), so the
server's verification runs for real without a browser."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def from_b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


FLAG_UP, FLAG_UV, FLAG_BE, FLAG_BS, FLAG_AT = 0x01, 0x04, 0x08, 0x10, 0x40


@dataclass
class SoftAuthenticator:
    """One passkey: a P-256 key, a credential id and a signature counter.

    Attributes:
        user_verified: Whether it reports user verification (UV flag).
        synced: A synced passkey, as iCloud Keychain and Google Password Manager keep
            them: backed up (BE and BS flags), its counter always 0.
    """

    origin: str
    user_verified: bool = True
    synced: bool = False
    counter: int = 0
    credential_id: bytes = field(default_factory=lambda: os.urandom(16))
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    user_handle: bytes = b""

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )

    def _client_data(self, kind: str, challenge: str) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False}
        ).encode()

    def _flags(self) -> int:
        backed_up = FLAG_BE | FLAG_BS if self.synced else 0
        return FLAG_UP | (FLAG_UV if self.user_verified else 0) | backed_up

    def register(self, options: dict[str, Any]) -> dict[str, Any]:
        """The answer to ``navigator.credentials.create`` with these options."""
        rp_hash = hashlib.sha256(options["rp"]["id"].encode()).digest()
        self.user_handle = from_b64url(options["user"]["id"])
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id
        auth_data = (
            rp_hash
            + bytes([self._flags() | FLAG_AT])
            + struct.pack(">I", self.counter)
            + attested
            + self._cose_key()
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"])
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def authenticate(self, options: dict[str, Any]) -> dict[str, Any]:
        """The answer to ``navigator.credentials.get`` with these options (the counter goes
        up by one, as a device-bound authenticator's does; a synced one's stays 0)."""
        if not self.synced:
            self.counter += 1
        rp_hash = hashlib.sha256(options["rpId"].encode()).digest()
        auth_data = rp_hash + bytes([self._flags()]) + struct.pack(">I", self.counter)
        client_data = self._client_data("webauthn.get", options["challenge"])
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(self.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
