"""Receiving throughput of one end of a connection on the benchmark corpus.

Usage: receive.py <ours|official|floor> <module> <corpus.tsv> <runs>

Every `SessionNotification` of the corpus, wrapped as the JSON-RPC text of a
`session/update` notification, is handed to a client's end of a connection
whose handler counts it: ours is `connect_client` and `receive` of our
package (<module>); the official one is `acp`'s `ClientSideConnection` over
a message-level transport that parses each text with `json.loads` (what its
stdio transport does with each line). The floor is `json.loads` alone. A
first pass warms up and counts what was handled; then each run times the
whole corpus. Prints one JSON object: messages, bytes, seconds per run,
messages not handled (`failures`), the first of them, and the peak resident
memory (VmHWM, KiB).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any

from bench_process import arguments, corpus, peak_kib


class Counter:
    """A client whose only handler counts the session updates it gets."""

    def __init__(self) -> None:
        self.handled = 0

    async def request_permission(self, *_: Any, **__: Any) -> Any:
        raise NotImplementedError


def ours(module_name: str) -> Callable[[list[str]], Coroutine[Any, Any, int]]:
    module = importlib.import_module(module_name)

    class Client(Counter, module.Client):  # type: ignore[misc, name-defined]
        async def session_update(self, params: Any) -> None:
            self.handled += 1

    async def run(texts: list[str]) -> int:
        client = Client()

        async def send(_text: str) -> None:
            return None

        connection = module.connect_client(lambda _agent: client, send)
        for text in texts:
            await connection.receive(text)
        return client.handled

    return run


def official(module_name: str) -> Callable[[list[str]], Coroutine[Any, Any, int]]:
    connection_module = importlib.import_module(f"{module_name}.client.connection")

    class Client(Counter):
        async def session_update(self, session_id: Any, update: Any, **_: Any) -> None:
            self.handled += 1

    class Transport:
        """Hands over the texts one by one, parsed, then ends the stream."""

        def __init__(self, texts: list[str]) -> None:
            self.pending = iter(texts)

        async def send(self, message: dict[str, Any]) -> None:
            return None

        async def receive(self) -> dict[str, Any] | None:
            text = next(self.pending, None)
            return None if text is None else json.loads(text)

        async def close(self) -> None:
            return None

    async def run(texts: list[str]) -> int:
        client = Client()
        connection = connection_module.ClientSideConnection(lambda _agent: client, Transport(texts))
        # Each notification is handled by a task of its own: wait for them all.
        while client.handled < len(texts):
            await asyncio.sleep(0)
            if all(task.done() for task in asyncio.all_tasks() if task is not asyncio.current_task()):
                break
        await connection.close()
        return client.handled

    return run


def floor(_module_name: str) -> Callable[[list[str]], Coroutine[Any, Any, int]]:
    async def run(texts: list[str]) -> int:
        for text in texts:
            json.loads(text)
        return len(texts)

    return run


def main(argv: list[str]) -> int:
    implementation, module_name, corpus_path, runs = arguments(argv, __doc__ or "")
    makers = {"ours": ours, "official": official, "floor": floor}
    if implementation not in makers:
        raise SystemExit(f"unknown implementation {implementation!r}")
    run = makers[implementation](module_name)
    texts = [
        '{"jsonrpc":"2.0","method":"session/update","params":' + text + "}"
        for type_name, text in corpus(corpus_path)
        if type_name == "SessionNotification"
    ]
    size = sum(len(text.encode("utf-8")) for text in texts)

    handled = asyncio.run(run(texts))
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        asyncio.run(run(texts))
        seconds.append(time.perf_counter() - start)
    failures = len(texts) - handled
    report = {
        "messages": len(texts),
        "bytes": size,
        "seconds": seconds,
        "failures": failures,
        "differ": 0,
        "first_difference": f"{failures} of {len(texts)} notifications were not handled" if failures else None,
        "outcome": "handled",
        "peak_kib": peak_kib(),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
