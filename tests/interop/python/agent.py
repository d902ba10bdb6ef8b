"""Our Python agent, for the interop matrix: the same turn as
`tests/interop/rust/src/bin/agent.rs`, played by the Python test agent
(`tests/python/scripted_agent.py`, its `notes` turn, on the path) on the
generated package's connection (importable as `acp_bindings`) over its own
stdio. `ACP_INTEROP_TRACE` names a file that records every message."""

from __future__ import annotations

import asyncio

import acp_bindings as acp

import stdio
from scripted_agent import scripted_agent

if __name__ == "__main__":
    info = {"name": "acp-codegen interop agent (Python)", "version": "0.1.0"}
    asyncio.run(stdio.serve_agent(scripted_agent(acp, turn="notes", info=info)))
