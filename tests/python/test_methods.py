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
