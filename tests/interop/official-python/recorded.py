"""The stdio transport of the agent and client on the official Python SDK
(`agent-client-protocol`, imported as `acp`), recording every message for
the interop matrix's trace.

It is the SDK's message-level seam (an object with `send`, `receive` and
`close`, which `acp.run_agent` and `acp.connect_to_agent` take in place of a
reader and writer), speaking newline-delimited JSON over the asyncio streams
the SDK's stdio helpers open. The SDK's observer hook reports a sent message
only once its write has completed, so a fast peer's answer could be recorded
before the request it answers; here each message is recorded as it is
written or read."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any


class RecordedStdio:
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        trace: Path | None,
        *,
        sent: str,
        received: str,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.file = trace.open("w") if trace else None
        self.sent = sent
        self.received = received

    def record(self, direction: str, message: Any) -> None:
        if self.file is not None:
            self.file.write(json.dumps({"direction": direction, "message": message}) + "\n")
            self.file.flush()

    async def send(self, message: dict[str, Any]) -> None:
        self.record(self.sent, message)
        self.writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        await self.writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while line := await self.reader.readline():
            text = line.decode().strip()
            if not text:
                continue
            try:
                message: dict[str, Any] = json.loads(text)
            except ValueError:
                self.record(self.received, text)
                continue
            self.record(self.received, message)
            return message
        return None

    async def close(self) -> None:
        self.writer.close()
