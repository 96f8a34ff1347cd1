"""Runs a command under a wall-clock bound and, optionally, a memory cap.

    limited.py [--seconds S] [--memory-mb M] -- COMMAND...

Fails (exit 1, with the time taken) if COMMAND takes more than S seconds,
killing it then, and otherwise exits with COMMAND's status. --memory-mb
caps the address space (RLIMIT_AS) so that a program that tries to allocate
what it must not fails fast instead of swapping the machine; it is ignored
where the environment says the tools are sanitized (their runtime reserves
terabytes of address space up front).
"""

import argparse
import os
import resource
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--seconds", type=float)
parser.add_argument("--memory-mb", type=int)
parser.add_argument("command", nargs=argparse.REMAINDER)
args = parser.parse_args()
command = args.command[1:] if args.command[:1] == ["--"] else args.command


def cap_memory():
    if args.memory_mb and not os.environ.get("MLSOPT_SANITIZED"):
        limit = args.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


start = time.monotonic()
try:
    # Killed at the bound: a command that ignores its timeout must fail the
    # test quickly, not hold the suite for as long as it would run.
    rc = subprocess.call(command, preexec_fn=cap_memory, timeout=args.seconds)
except subprocess.TimeoutExpired:
    rc = None
elapsed = time.monotonic() - start
if rc is None or (args.seconds is not None and elapsed > args.seconds):
    # On stdout: callers usually send the command's stderr to FileCheck.
    print(f"limited.py: took {elapsed:.2f} s, more than {args.seconds} s")
    sys.exit(1)
sys.exit(rc)
