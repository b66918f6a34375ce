"""Standard Webhooks verification of an event the service delivered.

The signature is base64(HMAC-SHA256(secret, f"{webhook-id}.{webhook-timestamp}.{body}")), prefixed
``v1,``; the webhook-signature header may hold several (space-separated, during a secret rotation) and
one match is enough. A timestamp more than five minutes from now is refused (replays).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

TOLERANCE_SECONDS = 5 * 60
_SECRET_PREFIX = "whsec_"


class WebhookVerificationError(Exception):
    """Wrong secret, altered body, missing headers or a timestamp too far from now."""


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def verify_webhook(secret: str, body: str | bytes, headers: Mapping[str, str], *, now: float | None = None) -> Any:
    """Verifies a delivery and returns its parsed payload (``{type, timestamp, data}``).

    ``body`` is the raw request body exactly as received; ``headers`` any mapping of the request's
    headers. Raises WebhookVerificationError when it does not verify.
    """
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-* headers")
    try:
        seconds = int(timestamp)
    except ValueError as err:
        raise WebhookVerificationError("bad timestamp") from err
    if abs((time.time() if now is None else now) - seconds) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("timestamp too old or too new")
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    key = base64.b64decode(secret[len(_SECRET_PREFIX):] if secret.startswith(_SECRET_PREFIX) else secret)
    expected = hmac.new(key, f"{msg_id}.{timestamp}.{text}".encode(), hashlib.sha256).digest()
    for candidate in signatures.split(" "):
        version, _, sig = candidate.partition(",")
        if version != "v1" or not sig:
            continue
        try:
            given = base64.b64decode(sig)
        except ValueError:
            continue
        if hmac.compare_digest(given, expected):
            return json.loads(text)
    raise WebhookVerificationError("no matching signature")
