"""Round-trips a batch of values through the Python bindings.

Usage: roundtrip_batch.py <bindings-folder> <in.jsonl> <out.jsonl>

The package's import name is `ACP_PYTHON_PACKAGE` (default `acp_bindings`).
It is imported as installed in the running environment, which must hold
exactly the sources in `<bindings-folder>/python/`.

Each input line is `{"type": T, "value": V}`; each output line is
`{"type": T, "value": roundtrip(T, V)}` or `{"type": T, "error": message,
"pointer": P}`, `P` being the JSON pointer the error names.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import installed_package


def main(arguments: list[str]) -> int:
    if len(arguments) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    folder, source, target = (Path(argument) for argument in arguments)
    package = installed_package(folder)
    with source.open(encoding="utf-8") as lines, target.open("w", encoding="utf-8") as output:
        for line in lines:
            if not line.strip():
                continue
            request = json.loads(line)
            try:
                result = {"type": request["type"], "value": package.roundtrip(request["type"], request["value"])}
            except package.DecodeError as error:
                result = {"type": request["type"], "error": str(error), "pointer": error.path}
            output.write(json.dumps(result, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
