"""The API's operations, shared by ``Client`` and ``AsyncClient``.

Each method returns what its transport's ``json`` returns: the parsed answer with ``Client``, an
awaitable of it with ``AsyncClient``. Methods with logic of their own (paging, waiting, streaming) are in
``_sync.py`` and ``_async.py``.
"""

from __future__ import annotations

from typing import Any, Protocol


class Transport(Protocol):
    def json(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        body: Any = None,
        timeout: float | None = None,
        hold: float = 0,
    ) -> Any: ...


def _body(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class AgentsBase:
    """The Agents the caller can read."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def list(self, *, page_index: int = 1, records_per_page: int = 100, timeout: float | None = None, **filters: Any) -> Any:
        """One page of Agents: ``{items, totalRecordCount, pageIndex, recordsPerPage}``.

        Filters (``name``, ``status``, ``spaceId``, ``configType``, ``sortColumn``, ``sortOrder``) are the
        query parameters of GET /api/v1/agent/all.
        """
        return self._page("/api/v1/agent/all", "agents", page_index, records_per_page, filters, timeout)

    def create(self, name: str, space_id: int, definition: dict[str, Any], *, timeout: float | None = None, **extra: Any) -> Any:
        """Creates an Agent (answers the SavedAgent)."""
        body = {"name": name, "spaceId": space_id, "definition": definition, **extra}
        return self._t.json("POST", "/api/v1/agent", body=body, timeout=timeout)

    def _page(self, path: str, key: str, page_index: int, size: int, params: dict[str, Any], timeout: float | None) -> Any:
        raise NotImplementedError


class AgentBase:
    """One Agent."""

    def __init__(self, transport: Transport, agent_id: int) -> None:
        self._t = transport
        self.agent_id = agent_id
        self._path = f"/api/v1/agent/{agent_id}"

    def get(self, *, timeout: float | None = None) -> Any:
        """The Agent."""
        return self._t.json("GET", self._path, timeout=timeout)

    def update(self, *, timeout: float | None = None, **fields: Any) -> Any:
        """Replaces the Agent's ``name``, ``definition`` or ``spaceId`` (answers the SavedAgent)."""
        return self._t.json("PUT", self._path, body=fields, timeout=timeout)

    def archive(self, *, timeout: float | None = None) -> Any:
        return self._t.json("POST", f"{self._path}/archive", timeout=timeout)

    def unarchive(self, *, timeout: float | None = None) -> Any:
        return self._t.json("POST", f"{self._path}/unarchive", timeout=timeout)

    def versions(self, *, timeout: float | None = None) -> Any:
        """The Agent's saved versions."""
        return self._t.json("GET", f"{self._path}/versions", timeout=timeout)

    def start(self, *, timeout: float | None = None, **options: Any) -> Any:
        """Starts a Run and answers it queued (options: the start body, e.g. ``inputParameters``).

        Not idempotent: repeated only after a 429 or a 503 with Retry-After, never after a network error.
        """
        options.pop("isRunSynchronously", None)
        return self._t.json("POST", f"{self._path}/start", body=options, timeout=timeout)


class RunBase:
    """One Run of an Agent."""

    def __init__(self, transport: Transport, agent_id: int, run_id: int) -> None:
        self._t = transport
        self.agent_id = agent_id
        self.run_id = run_id
        self._path = f"/api/v1/agent/{agent_id}/run/{run_id}"

    def get(self, *, wait_for_finish: int | None = None, timeout: float | None = None) -> Any:
        """The Run; with ``wait_for_finish`` (seconds, at most 60) once it is terminal or that time is up."""
        params = {"waitForFinish": wait_for_finish}
        return self._t.json("GET", f"{self._path}/status", params=params, timeout=timeout, hold=wait_for_finish or 0)

    status = get

    def stop(self, *, timeout: float | None = None) -> Any:
        """Stops the Run gracefully (the data so far is exported)."""
        return self._t.json("POST", f"{self._path}/stop", timeout=timeout)

    def kill(self, *, timeout: float | None = None) -> Any:
        """First call: stop gracefully; a second call while it is stopping ends it at once."""
        return self._t.json("POST", f"{self._path}/kill", timeout=timeout)

    def delete(self, *, remove_method: str | None = None, timeout: float | None = None) -> Any:
        """Deletes the Run and its files (``remove_method``: RemoveEntireRun, RemoveAllFiles, ...)."""
        return self._t.json("DELETE", self._path, params={"removeMethod": remove_method}, timeout=timeout)

    def files(self, *, timeout: float | None = None) -> Any:
        """The files the Run wrote (exports, log, HTML snapshots)."""
        return self._t.json("GET", f"{self._path}/files", timeout=timeout)

    def log(self, *, lines: int | None = None, timeout: float | None = None) -> Any:
        """The last lines of the Run's log."""
        return self._t.json("GET", f"{self._path}/log", params={"lines": lines}, timeout=timeout)

    def diagnostics(self, *, timeout: float | None = None) -> Any:
        """Possible causes, evidence and statistics of the Run."""
        path = f"/api/v1/analytics/agents/{self.agent_id}/runs/{self.run_id}/diagnostics"
        return self._t.json("GET", path, timeout=timeout)


class SpacesBase:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def list(self, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", "/api/v1/spaces", timeout=timeout)

    def create(self, name: str, *, timeout: float | None = None, **extra: Any) -> Any:
        return self._t.json("POST", "/api/v1/spaces", body={"name": name, **extra}, timeout=timeout)

    def get(self, space_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", f"/api/v1/spaces/{space_id}", timeout=timeout)

    def agents(self, space_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", f"/api/v1/spaces/{space_id}/agents", timeout=timeout)

    def run_all(self, space_id: int, *, timeout: float | None = None, **options: Any) -> Any:
        """Starts every Agent of the Space; each result says whether its Agent started."""
        return self._t.json("POST", f"/api/v1/spaces/{space_id}/run-all", body=options, timeout=timeout)


class SchedulesBase:
    def __init__(self, transport: Transport, agent_id: int) -> None:
        self._t = transport
        self._path = f"/api/v1/agent/{agent_id}/schedules"

    def create(self, *, timeout: float | None = None, **fields: Any) -> Any:
        return self._t.json("POST", self._path, body=fields, timeout=timeout)

    def get(self, schedule_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", f"{self._path}/{schedule_id}", timeout=timeout)

    def update(self, schedule_id: int, *, timeout: float | None = None, **fields: Any) -> Any:
        return self._t.json("PUT", f"{self._path}/{schedule_id}", body=fields, timeout=timeout)

    def delete(self, schedule_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("DELETE", f"{self._path}/{schedule_id}", timeout=timeout)

    def enable(self, schedule_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("POST", f"{self._path}/{schedule_id}/enable", timeout=timeout)

    def disable(self, schedule_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("POST", f"{self._path}/{schedule_id}/disable", timeout=timeout)


class BillingBase:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def credits(self, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", "/api/v1/billing/credits", timeout=timeout)

    def history(self, *, page_index: int | None = None, records_per_page: int | None = None, timeout: float | None = None) -> Any:
        params = {"pageIndex": page_index, "recordsPerPage": records_per_page}
        return self._t.json("GET", "/api/v1/billing/history", params=params, timeout=timeout)

    def spending(self, *, timeout: float | None = None, **query: Any) -> Any:
        return self._t.json("GET", "/api/v1/billing/spending", params=query, timeout=timeout)

    def low_credits_alert(self, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", "/api/v1/billing/low-credits-alert", timeout=timeout)


class AnalyticsBase:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def runs_summary(self, *, timeout: float | None = None, **query: Any) -> Any:
        return self._t.json("GET", "/api/v1/analytics/runs/summary", params=query, timeout=timeout)

    def records_summary(self, *, timeout: float | None = None, **query: Any) -> Any:
        return self._t.json("GET", "/api/v1/analytics/records/summary", params=query, timeout=timeout)

    def upcoming_schedules(self, *, timeout: float | None = None, **query: Any) -> Any:
        return self._t.json("GET", "/api/v1/analytics/schedules/upcoming", params=query, timeout=timeout)

    def latest_failure(self, agent_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", f"/api/v1/analytics/agents/{agent_id}/latest-failure", timeout=timeout)


class WebhooksBase:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def list(self, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", "/api/v1/webhooks", timeout=timeout)

    def create(self, url: str, event_types: list[str], *, timeout: float | None = None, **extra: Any) -> Any:
        """Creates a webhook; the answer holds its signing ``secret``, shown this once."""
        body = _body({"url": url, "eventTypes": event_types, **extra})
        return self._t.json("POST", "/api/v1/webhooks", body=body, timeout=timeout)

    def get(self, webhook_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", f"/api/v1/webhooks/{webhook_id}", timeout=timeout)

    def update(self, webhook_id: int, *, timeout: float | None = None, **fields: Any) -> Any:
        return self._t.json("PUT", f"/api/v1/webhooks/{webhook_id}", body=fields, timeout=timeout)

    def delete(self, webhook_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("DELETE", f"/api/v1/webhooks/{webhook_id}", timeout=timeout)

    def rotate_secret(self, webhook_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("POST", f"/api/v1/webhooks/{webhook_id}/rotate-secret", timeout=timeout)

    def test(self, webhook_id: int, *, timeout: float | None = None) -> Any:
        return self._t.json("POST", f"/api/v1/webhooks/{webhook_id}/test", timeout=timeout)


#: Session statuses after which no more events come until the caller acts (message, finish).
BUILDER_SETTLED = frozenset({"ready", "completed", "error", "cancelled"})
#: How long the server holds an events request when there is nothing new (BUILDER_EVENTS_WAIT_SECONDS).
BUILDER_EVENTS_HOLD = 30


class BuilderSessionBase:
    """One Agent Builder session (``events()`` is in ``_sync.py`` and ``_async.py``)."""

    def __init__(self, transport: Transport, session_id: str) -> None:
        self._t = transport
        self.session_id = session_id
        self._path = f"/api/v1/agent-builder/{session_id}"

    def get(self, *, timeout: float | None = None) -> Any:
        return self._t.json("GET", self._path, timeout=timeout)

    def message(self, message: str, *, timeout: float | None = None) -> Any:
        """Refines the ready draft; the session goes back to processing."""
        return self._t.json("POST", f"{self._path}/message", body={"message": message}, timeout=timeout)

    def finish(self, *, timeout: float | None = None, **options: Any) -> Any:
        """Creates the Agent from the ready draft (options: ``name``, ``spaceId``)."""
        return self._t.json("POST", f"{self._path}/finish", body=options, timeout=timeout)

    def stop(self, *, timeout: float | None = None) -> Any:
        return self._t.json("POST", f"{self._path}/stop", timeout=timeout)

    def _events_page(self, last_event_index: int) -> Any:
        params = {"lastEventIndex": last_event_index}
        return self._t.json("GET", f"{self._path}/events", params=params, hold=BUILDER_EVENTS_HOLD)


class BuilderBase:
    """The Agent Builder: ``start(prompt=...)``, then ``session(session_id)``."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def start(self, prompt: str, *, timeout: float | None = None, **options: Any) -> Any:
        """Starts a session (answers ``{success, sessionId}``); options: ``url``, ``spaceId``, ..."""
        body = {"prompt": prompt, **options}
        return self._t.json("POST", "/api/v1/agent-builder/start", body=body, timeout=timeout)
