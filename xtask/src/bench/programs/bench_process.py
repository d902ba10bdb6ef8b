"""What the Python bench programs share: their arguments, the corpus, and
the measuring process's peak memory."""

from __future__ import annotations

import sys


def peak_kib() -> int | None:
    """The peak resident memory of this process (VmHWM), KiB."""
    with open("/proc/self/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def arguments(argv: list[str], usage: str) -> tuple[str, str, str, int]:
    """`<implementation> <module> <corpus.tsv> <runs>`; exits with `usage` otherwise."""
    if len(argv) != 4 or not argv[3].isdigit():
        print(usage, file=sys.stderr)
        raise SystemExit(2)
    return argv[0], argv[1], argv[2], int(argv[3])


def corpus(path: str) -> list[tuple[str, str]]:
    """The corpus's lines, each as its type name and its JSON text."""
    with open(path, encoding="utf-8") as lines:
        return [(type_name, text) for type_name, _, text in (line.rstrip("\n").partition("\t") for line in lines)]
