"""What is retried and how long to wait, shared by the sync and the async transport.

GET, PUT and DELETE are retried on 429, 5xx and network errors; POST (a start is not idempotent) only
on 429 and on 503 with Retry-After, the two answers after which the API guarantees nothing was done,
and never after a network error. Waits honour Retry-After, else exponential backoff with full jitter.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import httpx

from ._version import __version__

BACKOFF_BASE = 0.5
BACKOFF_MAX = 30.0
#: The longest a status request may be held by the server (its ``waitForFinish`` maximum).
MAX_HOLD_SECONDS = 60
POLL_MIN = 1.0
POLL_MAX = 10.0
DEFAULT_PAGE_SIZE = 100
#: RunStatus values a Run ends in: Failure, Stopped, Completed, Success, Skipped.
TERMINAL_STATUSES = frozenset({6, 8, 9, 10, 11})


def backoff(attempt: int) -> float:
    """Full jitter: a random delay up to base * 2**attempt, capped."""
    return random.random() * min(BACKOFF_MAX, BACKOFF_BASE * 2**attempt)


def retryable(method: str, response: httpx.Response) -> bool:
    if response.status_code == 429:
        return True
    if method == "POST":
        return response.status_code == 503 and "retry-after" in response.headers
    return response.status_code >= 500


def retry_on_network_error(method: str) -> bool:
    return method != "POST"


def clean_params(params: dict[str, Any] | None) -> dict[str, Any]:
    """Query parameters without the unset ones; booleans as the API spells them."""
    out: dict[str, Any] = {}
    for key, value in (params or {}).items():
        if value is None:
            continue
        out[key] = ("true" if value else "false") if isinstance(value, bool) else value
    return out


def default_headers(api_key: str | None, token: str | None, user_agent: str | None) -> dict[str, str]:
    headers = {"accept": "application/json", "user-agent": user_agent or f"cloud-extraction-python/{__version__}"}
    if api_key:
        headers["authorization"] = f"ApiKey {api_key}"
    elif token:
        headers["authorization"] = f"Bearer {token}"
    return headers


@dataclass
class RateLimit:
    """The last X-RateLimit-Limit per X-RateLimit-Window-Seconds the API announced."""

    limit: int
    window_seconds: int

    @staticmethod
    def of(headers: httpx.Headers) -> RateLimit | None:
        try:
            limit = int(headers.get("x-ratelimit-limit", "0"))
            window = int(headers.get("x-ratelimit-window-seconds", "0"))
        except ValueError:
            return None
        return RateLimit(limit, window) if limit > 0 and window > 0 else None


def poll_delay(polls: int, rate_limit: RateLimit | None) -> float:
    """Pause between status polls answered early: 1 s doubling to 10 s, at least twice the rate limit's spacing."""
    delay = min(POLL_MAX, POLL_MIN * 2**polls)
    if rate_limit:
        delay = max(delay, 2 * rate_limit.window_seconds / rate_limit.limit)
    return delay


def page_of(body: dict[str, Any], key: str, page_index: int, records_per_page: int) -> dict[str, Any]:
    """A page answer as ``{items, totalRecordCount, pageIndex, recordsPerPage}``."""
    return {
        "items": body[key],
        "totalRecordCount": body["totalRecordCount"],
        "pageIndex": page_index,
        "recordsPerPage": records_per_page,
    }


def is_last_page(page: dict[str, Any]) -> bool:
    size = page["recordsPerPage"]
    count = len(page["items"])
    return count < size or (page["pageIndex"] - 1) * size + count >= page["totalRecordCount"]
