"""The asyncio client: ``AsyncClient`` (cancel a call by cancelling its task, or with asyncio.timeout)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
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


class AsyncTransport:
    """Requests with credentials, time-outs and the retry policy of ``_policy``."""

    def __init__(self, base_url: str, headers: dict[str, str], max_retries: int, timeout: float) -> None:
        self.max_retries = max_retries
        self.timeout = timeout
        self.rate_limit: policy.RateLimit | None = None
        self.http = httpx.AsyncClient(base_url=base_url.rstrip("/"), headers=headers, follow_redirects=False)

    async def send(self, method: str, path: str, *, params=None, body=None, timeout=None, hold=0.0, stream=False) -> httpx.Response:
        """A successful answer (2xx, or 3xx: redirects are the caller's); ApiError otherwise."""
        seconds = (timeout if timeout is not None else self.timeout) + hold
        for attempt in itertools.count():
            request = self.http.build_request(
                method, path, params=policy.clean_params(params), json=body, timeout=seconds
            )
            try:
                response = await self.http.send(request, stream=stream)
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
                error = api_error(response.status_code, response.headers, await response.aread())
                await response.aclose()
                if attempt >= self.max_retries or not policy.retryable(method, response):
                    raise error
                await asyncio.sleep(error.retry_after if error.retry_after is not None else policy.backoff(attempt))
                continue
            if attempt >= self.max_retries or not policy.retry_on_network_error(method):
                raise failure
            await asyncio.sleep(policy.backoff(attempt))
        raise AssertionError("unreachable")

    async def json(self, method: str, path: str, *, params=None, body=None, timeout=None, hold=0.0) -> Any:
        response = await self.send(method, path, params=params, body=body, timeout=timeout, hold=hold)
        return None if response.status_code == 204 or not response.content else response.json()


class AsyncAgents(AgentsBase):
    async def _page(self, path, key, page_index, size, params, timeout):
        query = {**params, "pageIndex": page_index, "recordsPerPage": size}
        return policy.page_of(await self._t.json("GET", path, params=query, timeout=timeout), key, page_index, size)

    async def iterate(self, *, records_per_page: int = policy.DEFAULT_PAGE_SIZE, **filters: Any) -> AsyncIterator[dict[str, Any]]:
        """Every Agent matching the filters, fetched page by page."""
        for page_index in itertools.count(1):
            page = await self.list(page_index=page_index, records_per_page=records_per_page, **filters)
            for item in page["items"]:
                yield item
            if policy.is_last_page(page):
                return


class AsyncAgentRuns:
    """The Runs of one Agent, newest first."""

    def __init__(self, transport: AsyncTransport, agent_id: int) -> None:
        self._t = transport
        self._path = f"/api/v1/agent/{agent_id}/runs"

    async def list(self, *, page_index: int = 1, records_per_page: int = 100, timeout: float | None = None) -> dict[str, Any]:
        query = {"pageIndex": page_index, "recordsPerPage": records_per_page}
        body = await self._t.json("GET", self._path, params=query, timeout=timeout)
        return policy.page_of(body, "runs", page_index, records_per_page)

    async def iterate(self, *, records_per_page: int = policy.DEFAULT_PAGE_SIZE) -> AsyncIterator[dict[str, Any]]:
        for page_index in itertools.count(1):
            page = await self.list(page_index=page_index, records_per_page=records_per_page)
            for item in page["items"]:
                yield item
            if policy.is_last_page(page):
                return


class AsyncSchedules(SchedulesBase):
    async def list(self, *, page_index: int = 1, records_per_page: int = 100, timeout: float | None = None) -> dict[str, Any]:
        query = {"pageIndex": page_index, "recordsPerPage": records_per_page}
        body = await self._t.json("GET", self._path, params=query, timeout=timeout)
        return policy.page_of(body, "schedules", page_index, records_per_page)

    async def iterate(self, *, records_per_page: int = policy.DEFAULT_PAGE_SIZE) -> AsyncIterator[dict[str, Any]]:
        for page_index in itertools.count(1):
            page = await self.list(page_index=page_index, records_per_page=records_per_page)
            for item in page["items"]:
                yield item
            if policy.is_last_page(page):
                return


class AsyncRun(RunBase):
    _t: AsyncTransport

    async def wait_for_finish(self, *, wait_secs: float | None = None) -> dict[str, Any]:
        """Waits until the Run is terminal or ``wait_secs`` have passed (as ``Run.wait_for_finish``)."""
        deadline = float("inf") if wait_secs is None else time.monotonic() + wait_secs
        for polls in itertools.count():
            left = deadline - time.monotonic()
            hold = int(max(0, min(policy.MAX_HOLD_SECONDS, left)))
            asked = time.monotonic()
            run = await self.get(wait_for_finish=hold)
            if run["status"] in policy.TERMINAL_STATUSES or time.monotonic() >= deadline:
                return run
            if hold > 0 and time.monotonic() - asked >= hold - 0.5:
                continue
            await asyncio.sleep(min(policy.poll_delay(polls, self._t.rate_limit), max(0.0, deadline - time.monotonic())))
        raise AssertionError("unreachable")

    @asynccontextmanager
    async def stream_file(self, file_id: int, *, chunk_size: int = 65536, timeout: float | None = None) -> AsyncIterator[AsyncIterator[bytes]]:
        """The bytes of one of the Run's files (``async with ... as chunks: async for chunk in chunks``);
        a 302 to the object store is followed without the Authorization header."""
        response = await self._t.send("GET", f"{self._path}/file/{file_id}/download", timeout=timeout, stream=True)
        location = response.headers.get("location")
        if response.is_redirect and location:
            await response.aclose()
            async with httpx.AsyncClient(follow_redirects=True, timeout=timeout or self._t.timeout) as store:
                async with store.stream("GET", str(response.url.join(location))) as stored:
                    if stored.status_code >= 400:
                        raise api_error(stored.status_code, stored.headers, await stored.aread())
                    yield stored.aiter_bytes(chunk_size)
            return
        try:
            yield response.aiter_bytes(chunk_size)
        finally:
            await response.aclose()


class AsyncAgent(AgentBase):
    _t: AsyncTransport

    async def call(self, *, wait_secs: float | None = None, **options: Any) -> dict[str, Any]:
        """Starts a Run and waits until it is terminal (or ``wait_secs`` have passed)."""
        run = await self.start(**options)
        return await AsyncRun(self._t, self.agent_id, run["id"]).wait_for_finish(wait_secs=wait_secs)

    def runs(self) -> AsyncAgentRuns:
        return AsyncAgentRuns(self._t, self.agent_id)

    def run(self, run_id: int) -> AsyncRun:
        return AsyncRun(self._t, self.agent_id, run_id)

    def schedules(self) -> AsyncSchedules:
        return AsyncSchedules(self._t, self.agent_id)


class AsyncBuilderSession(BuilderSessionBase):
    async def events(self, *, last_event_index: int = 0) -> AsyncIterator[dict[str, Any]]:
        """The session's events as they are written (as ``BuilderSession.events``)."""
        while True:
            page = await self._events_page(last_event_index)
            for event in page["events"]:
                last_event_index = max(last_event_index, event["index"])
                yield event
            if page["status"] in BUILDER_SETTLED and not page["events"]:
                return


class AsyncBuilder(BuilderBase):
    def session(self, session_id: str) -> AsyncBuilderSession:
        return AsyncBuilderSession(self._t, session_id)


class AsyncClient:
    """The asyncio client; the same operations as ``Client``, awaited. ``async with AsyncClient(...)``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        token: str | None = None,
        max_retries: int = 4,
        timeout: float = 60.0,
        user_agent: str | None = None,
    ) -> None:
        self._t = AsyncTransport(base_url, policy.default_headers(api_key, token, user_agent), max_retries, timeout)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._t.http.aclose()

    def agents(self) -> AsyncAgents:
        return AsyncAgents(self._t)

    def agent(self, agent_id: int) -> AsyncAgent:
        return AsyncAgent(self._t, agent_id)

    def run(self, agent_id: int, run_id: int) -> AsyncRun:
        return AsyncRun(self._t, agent_id, run_id)

    def schedules(self, agent_id: int) -> AsyncSchedules:
        return AsyncSchedules(self._t, agent_id)

    def spaces(self) -> SpacesBase:
        return SpacesBase(self._t)

    def billing(self) -> BillingBase:
        return BillingBase(self._t)

    def analytics(self) -> AnalyticsBase:
        return AnalyticsBase(self._t)

    def webhooks(self) -> WebhooksBase:
        return WebhooksBase(self._t)

    def builder(self) -> AsyncBuilder:
        return AsyncBuilder(self._t)
