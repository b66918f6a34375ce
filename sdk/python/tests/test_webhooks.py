"""verify_webhook against signatures made as the service makes them (Standard Webhooks)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest

from cloud_extraction import WebhookVerificationError, verify_webhook

SECRET = "whsec_" + base64.b64encode(bytes([7]) * 32).decode()
BODY = json.dumps({"type": "run.succeeded", "timestamp": "2026-01-01T00:00:00Z", "data": {"id": 1}})


def signed(secret=SECRET, at=None, body=BODY):
    ts = str(int(at if at is not None else time.time()))
    key = base64.b64decode(secret.removeprefix("whsec_"))
    sig = base64.b64encode(hmac.new(key, f"evt_1.{ts}.{body}".encode(), hashlib.sha256).digest()).decode()
    return {"webhook-id": "evt_1", "webhook-timestamp": ts, "webhook-signature": f"v1,{sig}"}


def test_accepts_a_valid_signature_also_among_several():
    assert verify_webhook(SECRET, BODY, signed())["type"] == "run.succeeded"
    other = "whsec_" + base64.b64encode(bytes([9]) * 32).decode()
    h = signed()
    h["webhook-signature"] = signed(other)["webhook-signature"] + " " + h["webhook-signature"]
    assert verify_webhook(SECRET, BODY.encode(), h)["data"] == {"id": 1}


def test_refuses_altered_body_other_secret_old_timestamp_missing_headers():
    with pytest.raises(WebhookVerificationError):
        verify_webhook(SECRET, BODY.replace("1", "2"), signed())
    with pytest.raises(WebhookVerificationError):
        verify_webhook("whsec_" + base64.b64encode(bytes([1]) * 32).decode(), BODY, signed())
    with pytest.raises(WebhookVerificationError, match="timestamp"):
        verify_webhook(SECRET, BODY, signed(at=time.time() - 600))
    with pytest.raises(WebhookVerificationError, match="missing"):
        verify_webhook(SECRET, BODY, {})
