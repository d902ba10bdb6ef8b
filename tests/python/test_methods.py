"""Decoding by method name and dispatching to a side's protocol, on methods
every ACP release has (`initialize`, `session/new`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from conftest import bindings_folder, installed_package

PACKAGE = installed_package(bindings_folder())


def minimal(type_name: str) -> Any:
    """The minimal valid vector of `type_name`."""
    document = json.loads((bindings_folder() / "vectors" / f"{type_name}.json").read_text(encoding="utf-8"))
    return next(vector["value"] for vector in document["valid"] if vector["name"] == "minimal")


def test_a_request_decodes_by_method_to_its_params_class() -> None:
    params = minimal("InitializeRequest")
    decoded = PACKAGE.decode_agent_request("initialize", params)
    assert isinstance(decoded, PACKAGE.InitializeRequest)
    assert PACKAGE.to_json(decoded) == params


def test_an_unknown_method_and_invalid_params_are_told_apart() -> None:
    with pytest.raises(PACKAGE.MethodNotFound) as unknown:
        PACKAGE.decode_agent_request("no/such_method", {})
    assert unknown.value.to_json()["code"] == -32601
    with pytest.raises(PACKAGE.MethodNotFound):
        PACKAGE.decode_client_request("initialize", minimal("InitializeRequest"))
    with pytest.raises(PACKAGE.InvalidParams) as invalid:
        PACKAGE.decode_agent_request("initialize", {"protocolVersion": "one"})
    error = invalid.value.to_json()
    assert error["code"] == -32602 and error["data"] == {"pointer": "/protocolVersion"}, error


def test_extension_methods_are_kept_undecoded() -> None:
    request = PACKAGE.decode_client_request("_zed/cursor", {"line": 1})
    assert request == PACKAGE.ExtensionRequest("_zed/cursor", {"line": 1})
    notification = PACKAGE.decode_agent_notification("_zed/ping", None)
    assert notification == PACKAGE.ExtensionNotification("_zed/ping", None)


def test_a_result_decodes_by_method() -> None:
    result = minimal("InitializeResponse")
    assert isinstance(PACKAGE.decode_result("initialize", result), PACKAGE.InitializeResponse)
    with pytest.raises(PACKAGE.DecodeError):
        PACKAGE.decode_result("initialize", {})


class Agent(PACKAGE.Agent):
    """Answers `initialize`; every other required method is left to the protocol."""

    async def initialize(self, params: Any) -> Any:
        return PACKAGE.decode_result("initialize", minimal("InitializeResponse"))


def test_the_dispatcher_calls_the_handler_and_encodes_its_answer() -> None:
    agent = Agent()
    answer = asyncio.run(PACKAGE.dispatch_agent_request(agent, "initialize", minimal("InitializeRequest")))
    assert answer == minimal("InitializeResponse")
    with pytest.raises(PACKAGE.MethodNotFound):
        asyncio.run(PACKAGE.dispatch_agent_request(agent, "no/such_method", {}))
    with pytest.raises(PACKAGE.MethodNotFound):
        asyncio.run(PACKAGE.dispatch_agent_request(agent, "_zed/cursor", {}))
    assert asyncio.run(PACKAGE.dispatch_agent_notification(agent, "_zed/ping", {})) is None


def test_optional_methods_answer_method_not_found_or_ignore_by_default() -> None:
    agent = Agent()
    handled = ("agent", "protocol", "both")
    requests = [method for method in PACKAGE.methods.REQUESTS.values() if method.optional and method.side in handled]
    notifications = [method for method in PACKAGE.methods.NOTIFICATIONS.values() if method.optional and method.side in handled]
    assert notifications, "every release has the protocol-level `$/cancel_request`"
    for request in requests:
        with pytest.raises(PACKAGE.MethodNotFound):
            asyncio.run(PACKAGE.dispatch_agent_request(agent, request.name, minimal(request.params.__name__)))
    for notification in notifications:
        assert asyncio.run(PACKAGE.dispatch_agent_notification(agent, notification.name, minimal(notification.params.__name__))) is None


def test_the_method_tables_decode_params_and_results() -> None:
    initialize = PACKAGE.methods.REQUESTS["initialize"]
    assert isinstance(initialize.decode_params(minimal("InitializeRequest")), PACKAGE.InitializeRequest)
    assert isinstance(initialize.decode_result(minimal("InitializeResponse")), PACKAGE.InitializeResponse)
    with pytest.raises(PACKAGE.InvalidParams):
        initialize.decode_params({})


def test_a_connection_pairs_requests_with_responses_decodes_results_and_reports_what_it_cannot_handle() -> None:
    async def scenario() -> None:
        sent: list[dict[str, Any]] = []
        dropped: list[tuple[str | None, int]] = []

        async def send(text: str) -> None:
            sent.append(json.loads(text))

        class Quiet(PACKAGE.Client):  # type: ignore[name-defined,misc]
            pass

        end = PACKAGE.connect_client(lambda _: Quiet(), send, lambda method, error: dropped.append((method, error.code)))
        params = minimal("InitializeRequest")
        answered = asyncio.ensure_future(end.request("initialize", PACKAGE.InitializeRequest.model_validate(params)))
        failed = asyncio.ensure_future(end.request("initialize", params))
        malformed = asyncio.ensure_future(end.request("initialize", params))
        await asyncio.sleep(0)
        assert [(message["id"], message["method"]) for message in sent] == [(1, "initialize"), (2, "initialize"), (3, "initialize")]
        assert sent[0]["params"] == params and sent[1]["params"] == params
        result = minimal("InitializeResponse")
        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "auth required", "data": {"hint": 1}}}))
        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}))
        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 3, "result": {**result, "protocolVersion": "one"}}))
        assert PACKAGE.to_json(await answered) == result
        with pytest.raises(PACKAGE.RequestError) as error:
            await failed
        assert (error.value.code, error.value.data) == (-32000, {"hint": 1})
        with pytest.raises(PACKAGE.DecodeError) as undecodable:
            await malformed
        assert undecodable.value.path == "/protocolVersion"

        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 9, "result": {}}))
        await end.receive("{not json")
        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "no/such_method", "params": {}}))
        await end.receive(json.dumps({"jsonrpc": "2.0", "method": "no/such_notification", "params": {}}))
        await asyncio.sleep(0)
        assert dropped == [(None, -32600), ("no/such_notification", -32601)]
        assert sent[-2]["error"]["code"] == -32700
        assert (sent[-1]["id"], sent[-1]["error"]["code"]) == (4, -32601)

        pending = asyncio.ensure_future(end.request("initialize", params))
        await asyncio.sleep(0)
        end.close(ConnectionError("gone"))
        for call in (pending, end.request("initialize", params)):
            with pytest.raises(ConnectionError, match="gone"):
                await call

    asyncio.run(scenario())
