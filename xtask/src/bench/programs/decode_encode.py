"""Decode + encode throughput of one implementation on the benchmark corpus.

Usage: decode_encode.py <ours|official|floor> <module> <corpus.tsv> <runs>

<module> is the import name of the models: our package (`acp_bindings`) or
the official SDK's (`acp.schema`); unused for the floor. Each corpus line is
`TypeName<TAB>json`; every message is parsed from text into the model
(`model_validate_json`) and printed back (`model_dump_json` with wire names
and only the members that were set), as an SDK does. A first pass checks
that every output equals its input (object key order aside) and warms up;
then each run times the whole corpus. Prints one JSON object: messages,
bytes, seconds per run, decode failures, outputs that differ, the first
difference, and the peak resident memory (VmHWM, KiB).
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Callable

from bench_process import arguments, corpus, peak_kib


def codecs(implementation: str, module_name: str) -> Callable[[str], Callable[[str], str]]:
    if implementation == "floor":
        return lambda _type_name: lambda text: json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))
    if implementation not in ("ours", "official"):
        raise SystemExit(f"unknown implementation {implementation!r}")
    module = importlib.import_module(module_name)

    def for_type(type_name: str) -> Callable[[str], str]:
        model = getattr(module, type_name)
        return lambda text: model.model_validate_json(text).model_dump_json(by_alias=True, exclude_unset=True)

    return for_type


def main(argv: list[str]) -> int:
    implementation, module_name, corpus_path, runs = arguments(argv, __doc__ or "")
    for_type = codecs(implementation, module_name)
    by_type: dict[str, Callable[[str], str]] = {}
    messages: list[tuple[str, Callable[[str], str], str]] = []
    for type_name, text in corpus(corpus_path):
        if type_name not in by_type:
            by_type[type_name] = for_type(type_name)
        messages.append((type_name, by_type[type_name], text))
    size = sum(len(text.encode("utf-8")) for _, _, text in messages)

    failures = differ = 0
    first_difference: str | None = None
    for index, (type_name, codec, text) in enumerate(messages):
        problem = None
        try:
            output = codec(text)
            if json.loads(output) != json.loads(text):
                differ += 1
                problem = f"line {index + 1} ({type_name}): {text} became {output}"
        except ValueError as error:
            failures += 1
            problem = f"line {index + 1} ({type_name}) does not decode: {error}"
        if first_difference is None:
            first_difference = problem

    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        for _, codec, text in messages:
            try:
                codec(text)
            except ValueError:
                pass
        seconds.append(time.perf_counter() - start)
    report = {
        "messages": len(messages),
        "bytes": size,
        "seconds": seconds,
        "failures": failures,
        "differ": differ,
        "first_difference": first_difference,
        "peak_kib": peak_kib(),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
