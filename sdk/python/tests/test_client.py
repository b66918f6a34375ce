"""The sync and async clients against a scripted server: retries, the start's stricter rule, time-outs,
both error shapes, paging, waiting for terminal statuses and downloads through a cross-origin 302."""

from __future__ import annotations

import asyncio
import time

import pytest

from cloud_extraction import (
    ApiConnectionError,
    ApiTimeoutError,
    AsyncClient,
    BadRequestError,
    Client,
    NotFoundError,
    RateLimitError,
    ServiceUnavailableError,
)
from conftest import Reply, problem

AGENT = {"id": 7, "name": "A"}


def client(api, **kw):
    return Client(api.url, api_key="cx_test", **kw)


def test_429_waits_retry_after_then_repeats(api):
    api.handle(lambda req, n: Reply(429, problem(429, "RATE_LIMITED", "slow"), {"retry-after": "1"}) if n == 1 else Reply(200, AGENT))
    began = time.monotonic()
    assert client(api).agent(7).get() == AGENT
    assert time.monotonic() - began >= 0.95
    assert len(api.requests) == 2
    assert api.requests[1].headers["authorization"] == "ApiKey cx_test"


def test_get_repeated_after_503_and_dropped_connection(api):
    replies = [Reply(503, problem(503, "SERVICE_UNAVAILABLE", "busy")), Reply(drop=True)]
    api.handle(lambda req, n: replies[n - 1] if n <= len(replies) else Reply(200, AGENT))
    assert client(api).agent(7).get() == AGENT
    assert len(api.requests) == 3


def test_gives_up_after_max_retries_with_the_error(api):
    api.handle(lambda req, n: Reply(429, problem(429, "RATE_LIMITED", "slow", "req-429"), {"retry-after": "0"}))
    with pytest.raises(RateLimitError) as caught:
        client(api, max_retries=2).agent(7).get()
    assert (caught.value.status, caught.value.error_code, caught.value.retry_after, caught.value.request_id) == (429, "RATE_LIMITED", 0, "req-429")
    assert len(api.requests) == 3


def test_start_repeated_only_after_429_or_503_with_retry_after(api):
    api.handle(lambda req, n: Reply(503, problem(503, "SERVICE_UNAVAILABLE", "q"), {"retry-after": "0"}) if n == 1 else Reply(202, {"id": 1, "status": 4}))
    assert client(api).agent(7).start()["id"] == 1
    assert len(api.requests) == 2
    api.handle(lambda req, n: Reply(503, problem(503, "SERVICE_UNAVAILABLE", "no Retry-After")))
    with pytest.raises(ServiceUnavailableError):
        client(api).agent(7).start()
    assert len(api.requests) == 1
    api.handle(lambda req, n: Reply(drop=True))
    with pytest.raises(ApiConnectionError):
        client(api).agent(7).start()
    assert len(api.requests) == 1


def test_timeout_per_attempt(api):
    api.handle(lambda req, n: Reply(200, AGENT, delay=2))
    with pytest.raises(ApiTimeoutError):
        client(api, max_retries=0, timeout=0.3).agent(7).get()
    with pytest.raises(ApiTimeoutError):
        client(api, max_retries=0).agent(7).get(timeout=0.3)


def test_both_error_shapes(api):
    bad = {"statusCode": 400, "statusDescription": "Bad Request", "message": "body: name", "severity": 0, "errorCode": "VALIDATION_FAILED"}
    api.handle(lambda req, n: Reply(400, bad, {"x-request-id": "req-400"}))
    with pytest.raises(BadRequestError) as caught:
        client(api).agents().create("", 1, {})
    assert (caught.value.status, caught.value.error_code, caught.value.message, caught.value.request_id) == (400, "VALIDATION_FAILED", "body: name", "req-400")
    api.handle(lambda req, n: Reply(404, problem(404, "NOT_FOUND", "Agent 7 was not found.", "req-404")))
    with pytest.raises(NotFoundError) as caught:
        client(api).agent(7).get()
    assert (caught.value.error_code, caught.value.message, caught.value.request_id) == ("NOT_FOUND", "Agent 7 was not found.", "req-404")


def _paged(api, total=5):
    from urllib.parse import parse_qs, urlsplit

    def reply(req, n):
        q = parse_qs(urlsplit(req.path).query)
        page, size = int(q["pageIndex"][0]), int(q["recordsPerPage"][0])
        return Reply(200, {"agents": [{"id": i} for i in range(1, total + 1)][(page - 1) * size : page * size], "totalRecordCount": total})

    api.handle(reply)


def test_iterate_over_several_pages(api):
    _paged(api)
    assert [a["id"] for a in client(api).agents().iterate(records_per_page=2, name="x")] == [1, 2, 3, 4, 5]
    assert [r.path for r in api.requests] == [f"/api/v1/agent/all?name=x&pageIndex={p}&recordsPerPage=2" for p in (1, 2, 3)]


@pytest.mark.parametrize("status", [6, 8, 9, 10, 11])
def test_call_ends_at_each_terminal_status(api, status):
    api.handle(lambda req, n: Reply(202, {"id": 5, "status": 4}) if "/start" in req.path else Reply(200, {"id": 5, "status": status}))
    assert client(api).agent(3).call(wait_secs=120)["status"] == status
    assert [f"{r.method} {r.path}" for r in api.requests] == ["POST /api/v1/agent/3/start", "GET /api/v1/agent/3/run/5/status?waitForFinish=60"]


def test_wait_continues_through_active_statuses(api):
    statuses = [7, 1]
    api.handle(lambda req, n: Reply(200, {"id": 5, "status": statuses[n - 1] if n <= 2 else 10}))
    began = time.monotonic()
    assert client(api).run(3, 5).wait_for_finish()["status"] == 10
    assert len(api.requests) == 3
    assert time.monotonic() - began >= 2.9  # early answers: 1 s, then 2 s


def test_download_follows_cross_origin_302_without_authorization(api, store):
    csv = b"title,price\nA,1\n" * 1000
    api.handle(lambda req, n: Reply(302, raw=b"", headers={"location": f"{store.url}/bucket/f.csv?sig=1"}))
    store.handle(lambda req, n: Reply(200, raw=csv, headers={"content-type": "text/csv"}))
    with client(api).run(3, 5).stream_file(11, chunk_size=1024) as chunks:
        assert b"".join(chunks) == csv
    assert api.requests[0].headers["authorization"] == "ApiKey cx_test"
    assert store.requests[0].path == "/bucket/f.csv?sig=1"
    assert "authorization" not in store.requests[0].headers


def test_async_client_retries_pages_waits_and_streams(api, store):
    async def scenario():
        async with AsyncClient(api.url, api_key="cx_test") as c:
            api.handle(lambda req, n: Reply(429, problem(429, "RATE_LIMITED", "x"), {"retry-after": "0"}) if n == 1 else Reply(200, AGENT))
            assert await c.agent(7).get() == AGENT
            _paged(api, total=3)
            assert [a["id"] async for a in c.agents().iterate(records_per_page=2)] == [1, 2, 3]
            api.handle(lambda req, n: Reply(202, {"id": 5, "status": 4}) if "/start" in req.path else Reply(200, {"id": 5, "status": 10}))
            assert (await c.agent(3).call())["status"] == 10
            api.handle(lambda req, n: Reply(302, raw=b"", headers={"location": f"{store.url}/b"}))
            store.handle(lambda req, n: Reply(200, raw=b"a,b\n"))
            async with c.run(3, 5).stream_file(1) as chunks:
                assert b"".join([chunk async for chunk in chunks]) == b"a,b\n"
            assert "authorization" not in store.requests[0].headers
            api.handle(lambda req, n: Reply(404, problem(404, "NOT_FOUND", "no")))
            with pytest.raises(NotFoundError):
                await c.agent(1).get()

    asyncio.run(scenario())


def test_builder_events_follow_the_session_until_it_settles(api):
    pages = [
        {"status": "processing", "events": [{"index": 1, "type": "started"}, {"index": 2, "type": "fetched"}]},
        {"status": "processing", "events": []},
        {"status": "ready", "events": [{"index": 3, "type": "ready"}]},
        {"status": "ready", "events": []},
    ]
    api.handle(lambda req, n: Reply(200, pages[n - 1]))
    events = list(client(api).builder().session("s1").events())
    assert [e["index"] for e in events] == [1, 2, 3]
    assert [r.path.split("?")[1] for r in api.requests] == ["lastEventIndex=0", "lastEventIndex=2", "lastEventIndex=2", "lastEventIndex=3"]
