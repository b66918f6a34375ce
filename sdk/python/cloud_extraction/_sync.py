"""The synchronous client: ``Client``."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from . import _policy as policy
from ._errors import ApiConnectionError, ApiTimeoutError, api_error
from ._resources import (
    AgentBase,
    AgentsBase,
    BUILDER_SETTLED,
    AnalyticsBase,
    BillingBase,
    BuilderBase,
    BuilderSessionBase,
    RunBase,
    SchedulesBase,
    SpacesBase,
    WebhooksBase,
)


def _sleep(seconds: float, cancel: threading.Event | None) -> None:
    if cancel is None:
        time.sleep(seconds)
    elif cancel.wait(seconds):
        raise InterruptedError("cancelled")


class SyncTransport:
    """Requests with credentials, time-outs and the retry policy of ``_policy``."""

    def __init__(self, base_url: str, headers: dict[str, str], max_retries: int, timeout: float) -> None:
        self.max_retries = max_retries
        self.timeout = timeout
        self.rate_limit: policy.RateLimit | None = None
        self.cancel: threading.Event | None = None
        self.http = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, follow_redirects=False)

    def send(self, method: str, path: str, *, params=None, body=None, timeout=None, hold=0.0, stream=False) -> httpx.Response:
        """A successful answer (2xx, or 3xx: redirects are the caller's); ApiError otherwise."""
        seconds = (timeout if timeout is not None else self.timeout) + hold
        for attempt in itertools.count():
            request = self.http.build_request(
                method, path, params=policy.clean_params(params), json=body, timeout=seconds
            )
            try:
                response = self.http.send(request, stream=stream)
            except httpx.TimeoutException as err:
                failure: Exception = ApiTimeoutError(f"{method} {path}: no answer within {seconds} s")
                failure.__cause__ = err
            except httpx.TransportError as err:
                failure = ApiConnectionError(f"{method} {path}: {err}")
                failure.__cause__ = err
            else:
                self.rate_limit = policy.RateLimit.of(response.headers) or self.rate_limit
                if response.status_code < 400:
                    return response
                error = api_error(response.status_code, response.headers, response.read())
                response.close()
                if attempt >= self.max_retries or not policy.retryable(method, response):
                    raise error
                _sleep(error.retry_after if error.retry_after is not None else policy.backoff(attempt), self.cancel)
                continue
            if attempt >= self.max_retries or not policy.retry_on_network_error(method):
                raise failure
            _sleep(policy.backoff(attempt), self.cancel)
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, *, params=None, body=None, timeout=None, hold=0.0) -> Any:
        response = self.send(method, path, params=params, body=body, timeout=timeout, hold=hold)
        return None if response.status_code == 204 or not response.content else response.json()


class Agents(AgentsBase):
    def _page(self, path, key, page_index, size, params, timeout):
        query = {**params, "pageIndex": page_index, "recordsPerPage": size}
        return policy.page_of(self._t.json("GET", path, params=query, timeout=timeout), key, page_index, size)

    def iterate(self, *, records_per_page: int = policy.DEFAULT_PAGE_SIZE, **filters: Any) -> Iterator[dict[str, Any]]:
        """Every Agent matching the filters, fetched page by page."""
        for page_index in itertools.count(1):
            page = self.list(page_index=page_index, records_per_page=records_per_page, **filters)
            yield from page["items"]
            if policy.is_last_page(page):
                return


class AgentRuns:
    """The Runs of one Agent, newest first."""

    def __init__(self, transport: SyncTransport, agent_id: int) -> None:
        self._t = transport
        self._path = f"/api/v1/agent/{agent_id}/runs"

    def list(self, *, page_index: int = 1, records_per_page: int = 100, timeout: float | None = None) -> dict[str, Any]:
        query = {"pageIndex": page_index, "recordsPerPage": records_per_page}
        return policy.page_of(self._t.json("GET", self._path, params=query, timeout=timeout), "runs", page_index, records_per_page)

    def iterate(self, *, records_per_page: int = policy.DEFAULT_PAGE_SIZE) -> Iterator[dict[str, Any]]:
        for page_index in itertools.count(1):
            page = self.list(page_index=page_index, records_per_page=records_per_page)
            yield from page["items"]
            if policy.is_last_page(page):
                return


class Schedules(SchedulesBase):
    def list(self, *, page_index: int = 1, records_per_page: int = 100, timeout: float | None = None) -> dict[str, Any]:
        query = {"pageIndex": page_index, "recordsPerPage": records_per_page}
        return policy.page_of(self._t.json("GET", self._path, params=query, timeout=timeout), "schedules", page_index, records_per_page)

    def iterate(self, *, records_per_page: int = policy.DEFAULT_PAGE_SIZE) -> Iterator[dict[str, Any]]:
        for page_index in itertools.count(1):
            page = self.list(page_index=page_index, records_per_page=records_per_page)
            yield from page["items"]
            if policy.is_last_page(page):
                return


class Run(RunBase):
    _t: SyncTransport

    def wait_for_finish(self, *, wait_secs: float | None = None) -> dict[str, Any]:
        """Waits until the Run is terminal (Failure, Stopped, Completed, Success, Skipped) or ``wait_secs``
        have passed, and answers the Run as it is then.

        The server holds each request up to 60 s (``waitForFinish``); answers that come back early are
        followed by a pause growing from 1 s to 10 s, never faster than the announced rate limit.
        """
        deadline = float("inf") if wait_secs is None else time.monotonic() + wait_secs
        for polls in itertools.count():
            left = deadline - time.monotonic()
            hold = int(max(0, min(policy.MAX_HOLD_SECONDS, left)))
            asked = time.monotonic()
            run = self.get(wait_for_finish=hold)
            if run["status"] in policy.TERMINAL_STATUSES or time.monotonic() >= deadline:
                return run
            if hold > 0 and time.monotonic() - asked >= hold - 0.5:
                continue
            _sleep(min(policy.poll_delay(polls, self._t.rate_limit), max(0.0, deadline - time.monotonic())), self._t.cancel)
        raise AssertionError("unreachable")

    @contextmanager
    def stream_file(self, file_id: int, *, chunk_size: int = 65536, timeout: float | None = None) -> Iterator[Iterator[bytes]]:
        """The bytes of one of the Run's files, as an iterator of chunks inside a ``with`` block.

        With object storage the API answers 302 to a pre-signed URL: it is followed without the
        Authorization header (the store must not see the API's credentials).
        """
        response = self._t.send("GET", f"{self._path}/file/{file_id}/download", timeout=timeout, stream=True)
        location = response.headers.get("location")
        if response.is_redirect and location:
            response.close()
            with httpx.Client(follow_redirects=True, timeout=timeout or self._t.timeout) as store:
                with store.stream("GET", str(response.url.join(location))) as stored:
                    if stored.status_code >= 400:
                        raise api_error(stored.status_code, stored.headers, stored.read())
                    yield stored.iter_bytes(chunk_size)
            return
        try:
            yield response.iter_bytes(chunk_size)
        finally:
            response.close()


class Agent(AgentBase):
    _t: SyncTransport

    def call(self, *, wait_secs: float | None = None, **options: Any) -> dict[str, Any]:
        """Starts a Run and waits until it is terminal (or ``wait_secs`` have passed): the Run as it is then."""
        run = self.start(**options)
        return Run(self._t, self.agent_id, run["id"]).wait_for_finish(wait_secs=wait_secs)

    def runs(self) -> AgentRuns:
        return AgentRuns(self._t, self.agent_id)

    def run(self, run_id: int) -> Run:
        return Run(self._t, self.agent_id, run_id)

    def schedules(self) -> Schedules:
        return Schedules(self._t, self.agent_id)


class BuilderSession(BuilderSessionBase):
    def events(self, *, last_event_index: int = 0) -> Iterator[dict[str, Any]]:
        """The session's events after ``last_event_index`` as they are written (long-polled), ending once
        the session has stopped processing (ready, completed, error, cancelled) and every event is read."""
        while True:
            page = self._events_page(last_event_index)
            for event in page["events"]:
                last_event_index = max(last_event_index, event["index"])
                yield event
            if page["status"] in BUILDER_SETTLED and not page["events"]:
                return


class Builder(BuilderBase):
    def session(self, session_id: str) -> BuilderSession:
        return BuilderSession(self._t, session_id)


class Client:
    """The synchronous client of the Cloud Extraction Service API.

    ``Client(base_url, api_key=...)`` (or ``token=`` for a bearer token); ``max_retries`` (default 4),
    ``timeout`` per attempt in seconds (default 60), ``user_agent``, and ``cancel`` (a threading.Event
    that ends retries and waits when set). Use it as a context manager, or call ``close()``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        token: str | None = None,
        max_retries: int = 4,
        timeout: float = 60.0,
        user_agent: str | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        headers = policy.default_headers(api_key, token, user_agent)
        self._t = SyncTransport(base_url, headers, max_retries, timeout)
        self._t.cancel = cancel

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._t.http.close()

    def agents(self) -> Agents:
        return Agents(self._t)

    def agent(self, agent_id: int) -> Agent:
        return Agent(self._t, agent_id)

    def run(self, agent_id: int, run_id: int) -> Run:
        return Run(self._t, agent_id, run_id)

    def schedules(self, agent_id: int) -> Schedules:
        return Schedules(self._t, agent_id)

    def spaces(self) -> SpacesBase:
        return SpacesBase(self._t)

    def billing(self) -> BillingBase:
        return BillingBase(self._t)

    def analytics(self) -> AnalyticsBase:
        return AnalyticsBase(self._t)

    def webhooks(self) -> WebhooksBase:
        return WebhooksBase(self._t)

    def builder(self) -> Builder:
        return Builder(self._t)
