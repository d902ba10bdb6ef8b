"""Our Python client on protocol v2, for the interop matrix: the same session
as `tests/interop/rust-v2/src/bin/client_v2.rs`, on the connection of the v2
stable bindings' package (importable as `acp_bindings`). A prompt call
returns once its turn is drained (the acknowledgement, then the `idle` that
ends the turn, handled); the turn's stop reason is that `idle`'s. It runs
the agent command given after `--` over its stdio, answers permission
requests with the first "allow once" option, prints what it saw as JSON and
exits 0 when every prompt's turn ended, else names the first failure.
`--trace FILE` records every message.

python client_v2.py --cwd DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...
"""

from __future__ import annotations

import asyncio
from typing import Any

import acp_bindings as acp

import stdio

UNSEEN = object()
"""No `idle` handled since the prompt went out."""


class Interop(acp.Client):
    def __init__(self) -> None:
        self.seen: dict[str, Any] = {"updates": {}, "permissions": 0, "dropped": []}
        self.idle: Any = UNSEEN
        """The stop reason of the last `idle` handled (`None` when it gave none)."""

    async def session_request_permission(self, params: acp.RequestPermissionRequest) -> acp.RequestPermissionResponse:
        self.seen["permissions"] += 1
        return stdio.permission_outcome(params)

    async def session_update(self, params: acp.UpdateSessionNotification) -> None:
        update = acp.to_json(params)["update"]
        kind = update["sessionUpdate"]
        self.seen["updates"][kind] = self.seen["updates"].get(kind, 0) + 1
        if kind == "state_update" and update.get("state") == "idle":
            self.idle = update.get("stopReason")


async def main() -> None:
    options = stdio.arguments(authenticate=False)
    client = Interop()

    async def play(end: Any) -> dict[str, Any]:
        info = {"name": "acp-codegen interop client (Python, v2)", "version": "0.1.0"}
        initialize = acp.InitializeRequest.model_validate({"protocolVersion": acp.PROTOCOL_VERSION, "info": info})
        initialized = acp.to_json(await end.request("initialize", initialize))
        session = await end.request("session/new", acp.NewSessionRequest.model_validate({"cwd": str(options.cwd)}))
        stop_reasons = []
        for text in options.prompt:
            client.idle = UNSEEN
            prompt = acp.PromptRequest.model_validate(
                {"sessionId": session.session_id, "prompt": [{"type": "text", "text": text}]}
            )
            await end.request("session/prompt", prompt)
            if client.idle is UNSEEN:
                raise RuntimeError("session/prompt: the call returned before an idle ended its turn")
            stop_reasons.append(client.idle)
        return {"agent": initialized.get("info"), "stopReasons": stop_reasons, **client.seen}

    await stdio.run_client(options, client, client.seen["dropped"], play)


if __name__ == "__main__":
    asyncio.run(main())
