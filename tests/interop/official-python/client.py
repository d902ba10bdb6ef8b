"""A small client on the official Python SDK (`agent-client-protocol`,
imported as `acp`), for the interop matrix: the same command line, session
and summary as our clients (`tests/interop/python/client.py`), written the
way the SDK's examples write a client (a subclass of `acp.Client`,
`acp.connect_to_agent` on the agent's stdio, typed calls on the connection).
It runs the agent command given after `--` over its stdio, answers
permission requests with the first "allow once" option, serves file reads
and writes inside `--cwd`, prints what it saw as JSON and exits 0 when every
prompt ended with a stop reason, else names the first failure. `--trace
FILE` records every message (see `recorded.py`); `dropped` lists what the
SDK logged as an error while the session ran.

python client.py --cwd DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanRemovedUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AllowedOutcome,
    AvailableCommandsUpdate,
    ClientCapabilities,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    PermissionOption,
    SessionInfoUpdate,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UsageUpdate,
    UserMessageChunk,
)

from recorded import RecordedStdio


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cwd", required=True, type=Path)
    parser.add_argument("--trace", type=Path)
    parser.add_argument("--authenticate")
    parser.add_argument("--prompt", action="append", default=[])
    parser.add_argument("agent", nargs=argparse.REMAINDER)
    parsed = parser.parse_args()
    parsed.agent = parsed.agent[1:] if parsed.agent[:1] == ["--"] else parsed.agent
    if not parsed.agent or not parsed.cwd.is_absolute():
        parser.error("--cwd ABSOLUTE_DIR and an agent command after -- are required")
    return parsed


class Dropped(logging.Handler):
    """What the SDK logs as an error: a handler that failed, a message it could not handle."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(f"{record.getMessage()}: {record.exc_info[1] if record.exc_info else ''}")


class Interop(acp.Client):
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd.resolve()
        self.updates: dict[str, int] = {}
        self.permissions = 0
        self.reads = 0
        self.writes = 0

    def inside(self, path: str) -> Path:
        full = (self.cwd / path).resolve()
        if not full.is_relative_to(self.cwd):
            raise acp.RequestError.invalid_params({"outside": str(full)})
        return full

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> acp.RequestPermissionResponse:
        self.permissions += 1
        chosen = next((option for option in options if option.kind == "allow_once"), options[0] if options else None)
        outcome = (
            DeniedOutcome(outcome="cancelled")
            if chosen is None
            else AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )
        return acp.RequestPermissionResponse(outcome=outcome)

    async def session_update(
        self,
        session_id: str,
        update: UserMessageChunk
        | AgentMessageChunk
        | AgentThoughtChunk
        | ToolCallStart
        | ToolCallProgress
        | AgentPlanUpdate
        | AgentPlanContentUpdate
        | AgentPlanRemovedUpdate
        | AvailableCommandsUpdate
        | CurrentModeUpdate
        | ConfigOptionUpdate
        | SessionInfoUpdate
        | UsageUpdate,
        **kwargs: Any,
    ) -> None:
        self.updates[update.session_update] = self.updates.get(update.session_update, 0) + 1

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> acp.ReadTextFileResponse:
        text = self.inside(path).read_text()
        self.reads += 1
        if line is not None or limit is not None:
            lines = text.split("\n")[max((line or 1) - 1, 0) :]
            text = "".join(f"{each}\n" for each in lines[: limit or len(lines)])
        return acp.ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> acp.WriteTextFileResponse | None:
        self.inside(path).write_text(content)
        self.writes += 1
        return acp.WriteTextFileResponse()


async def main() -> int:
    options = arguments()
    prompts = options.prompt or ["Read notes.txt, then update it."]
    dropped = Dropped()
    logging.getLogger().addHandler(dropped)
    # acp.Client is a Protocol whose methods have no bodies: mypy counts those this client leaves out as abstract.
    client = Interop(options.cwd)  # type: ignore[abstract]
    async with acp.spawn_stdio_transport(*options.agent, env=os.environ, cwd=options.cwd, stderr=None) as (
        reader,
        writer,
        _,
    ):
        conn = acp.connect_to_agent(
            client, RecordedStdio(reader, writer, options.trace, sent="client-to-agent", received="agent-to-client")
        )
        try:
            capabilities = ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=False
            )
            info = Implementation(name="official Python SDK interop client", version="0.12.1")
            initialized = await conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION, client_capabilities=capabilities, client_info=info
            )
            if options.authenticate:
                await conn.authenticate(method_id=options.authenticate)
            session = await conn.new_session(cwd=str(options.cwd), mcp_servers=[])
            stop_reasons = []
            for text in prompts:
                response = await conn.prompt(
                    session_id=session.session_id, prompt=[TextContentBlock(type="text", text=text)]
                )
                stop_reasons.append(response.stop_reason)
        except Exception as error:  # noqa: BLE001 (the first failure is the cell's result)
            print(f"FAIL: {type(error).__name__}: {error} (dropped: {dropped.seen})", file=sys.stderr)
            return 1
        finally:
            await conn.close()
    agent = (
        initialized.agent_info.model_dump(mode="json", by_alias=True, exclude_none=True)
        if initialized.agent_info
        else None
    )
    seen = {
        "updates": client.updates,
        "permissions": client.permissions,
        "reads": client.reads,
        "writes": client.writes,
        "dropped": dropped.seen,
    }
    print(json.dumps({"agent": agent, "stopReasons": stop_reasons, **seen}))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
