"""Our Python agent on protocol v2, for the interop matrix: the same turn as
`tests/interop/rust-v2/src/bin/agent_v2.rs`, played by the Python test agent
(`tests/python/scripted_agent.py`, its `notes` turn, on the path) on the
connection of the v2 stable bindings' package (importable as `acp_bindings`)
over its own stdio. A prompt is acknowledged at once (`running`, then the
response) and its turn is played by a task: the user message echoed, a
chunk, a tool call (in progress), a permission request, the tool call's end,
a closing chunk and `idle`. `ACP_INTEROP_TRACE` names a file that records
every message."""

from __future__ import annotations

import asyncio
from typing import Any

import acp_bindings as acp

import stdio
from scripted_agent import scripted_agent

if __name__ == "__main__":
    info = {"name": "acp-codegen interop agent (Python, v2)", "version": "0.1.0"}
    capabilities: dict[str, Any] = {"session": {}}
    asyncio.run(stdio.serve_agent(scripted_agent(acp, turn="notes", info=info, capabilities=capabilities)))
