"""The Python SDK against a started service (CI starts it: see sdk/ci/quickstart.sh).

Needs CXS_URL, CXS_API_KEY, CXS_SPACE_ID and CXS_START_URL (a page with the README's book markup);
without them the tests are skipped, unless CXS_CONTRACT_REQUIRED=1 (CI), which makes that a failure.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from cloud_extraction import AsyncClient, Client, NotFoundError, RateLimitError, RunStatus

ENV = {name: os.environ.get(name) for name in ("CXS_URL", "CXS_API_KEY", "CXS_SPACE_ID", "CXS_START_URL")}
if not all(ENV.values()):
    if os.environ.get("CXS_CONTRACT_REQUIRED") == "1":
        raise RuntimeError("the contract suite needs CXS_URL, CXS_API_KEY, CXS_SPACE_ID and CXS_START_URL")
    pytest.skip("no service to run against (CXS_URL, ...)", allow_module_level=True)

DEFINITION = {
    "startUrl": ENV["CXS_START_URL"],
    "list": {
        "selector": "article.product_pod",
        "fields": [{"name": "title", "selector": "h3 a", "attribute": "title"}, {"name": "price", "selector": ".price_color"}],
    },
    "export": {"format": "csv"},
}


def test_create_call_iterate_stream_and_errors():
    with Client(ENV["CXS_URL"], api_key=ENV["CXS_API_KEY"]) as client:
        agent = client.agents().create("Python contract", int(ENV["CXS_SPACE_ID"]), DEFINITION)
        run = client.agent(agent["id"]).call(wait_secs=120)
        assert run["status"] == RunStatus.SUCCESS
        assert [r["id"] for r in client.agent(agent["id"]).runs().iterate(records_per_page=1)] == [run["id"]]
        assert agent["id"] in [a["id"] for a in client.agents().iterate(name="Python contract")]
        csv_file = next(f for f in client.run(agent["id"], run["id"]).files() if f["fileType"] == "Csv")
        with client.run(agent["id"], run["id"]).stream_file(csv_file["id"]) as chunks:
            text = b"".join(chunks).decode()
        assert text.splitlines()[0].startswith("title")
        assert len(text.strip().splitlines()) == run["recordsExported"] + 1
        with pytest.raises(NotFoundError) as caught:
            client.run(agent["id"], 999_999_999).get()
        assert caught.value.error_code == "NOT_FOUND" and caught.value.request_id


def test_async_client_and_a_rate_limited_burst():
    async def scenario():
        async with AsyncClient(ENV["CXS_URL"], api_key=ENV["CXS_API_KEY"], max_retries=0) as client:
            agent = await client.agents().create("Python async", int(ENV["CXS_SPACE_ID"]), DEFINITION)
            run = await client.agent(agent["id"]).call(wait_secs=120)
            assert run["status"] == RunStatus.SUCCESS
            results = await asyncio.gather(*(client.spaces().list() for _ in range(150)), return_exceptions=True)
            limited = [r for r in results if isinstance(r, RateLimitError)]
            assert limited, "the service's rate limit (RATE_LIMIT_MAX) was not reached"
            assert limited[0].error_code == "RATE_LIMITED" and limited[0].retry_after > 0

    asyncio.run(scenario())
