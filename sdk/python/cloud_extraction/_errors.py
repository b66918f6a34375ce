"""One error type for every error answer of the API, whichever of its two shapes the body has.

A 400 answers ``{statusCode, message, errorCode, ...}`` (BadRequestError); every other status answers
RFC 7807 problem details ``{status, title, detail, errorCode, requestId, ...}``. Subclasses by status
let callers catch what they handle.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

import httpx


class ApiError(Exception):
    """An error answer of the API (after any retries).

    Attributes: ``status`` (HTTP status), ``error_code`` (the API's errorCode, e.g. ``NOT_FOUND``),
    ``message``, ``retry_after`` (seconds, from Retry-After on 429/503), ``request_id`` (quote it when
    reporting a problem) and ``body`` (the parsed error body).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        error_code: str | None = None,
        retry_after: float | None = None,
        request_id: str | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.error_code = error_code
        self.retry_after = retry_after
        self.request_id = request_id
        self.body = body

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, error_code={self.error_code!r}, message={self.message!r})"


class BadRequestError(ApiError):
    """400: the request was refused as invalid (VALIDATION_FAILED, MALFORMED_JSON, ...)."""


class AuthenticationError(ApiError):
    """401: no credentials, or credentials the API does not accept."""


class PermissionDeniedError(ApiError):
    """403: the caller may not do this."""


class NotFoundError(ApiError):
    """404: no such resource, or one the caller cannot see."""


class ConflictError(ApiError):
    """409: the resource's state forbids it (a Run already active, not active, ...)."""


class UnprocessableEntityError(ApiError):
    """422: understood but not doable (an invalid Agent, not enough credits, ...)."""


class RateLimitError(ApiError):
    """429: rate limited; ``retry_after`` says how long to wait."""


class InternalServerError(ApiError):
    """5xx other than 503."""


class ServiceUnavailableError(ApiError):
    """503: the service (or a part of it) is unavailable; ``retry_after`` says how long to wait."""


class ApiTimeoutError(Exception):
    """The request got no answer within its time-out."""


class ApiConnectionError(Exception):
    """The request could not reach the API (connection refused, reset, DNS, ...)."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds of a Retry-After header (delta-seconds or an HTTP date); None without one."""
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - time.time())


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def api_error(status: int, headers: httpx.Headers, content: bytes) -> ApiError:
    """The ApiError (subclass by status) of an error answer, from either body shape."""
    try:
        body: Any = json.loads(content) if content else None
    except ValueError:
        body = content.decode("utf-8", "replace")
    fields = body if isinstance(body, dict) else {}
    message = (
        _text(fields.get("message"))
        or _text(fields.get("detail"))
        or _text(fields.get("title"))
        or (_text(body) if isinstance(body, str) else None)
        or f"HTTP {status}"
    )
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else ApiError)
    return cls(
        status,
        message,
        error_code=_text(fields.get("errorCode")),
        retry_after=parse_retry_after(headers.get("retry-after")),
        request_id=_text(fields.get("requestId")) or headers.get("x-request-id"),
        body=body,
    )
