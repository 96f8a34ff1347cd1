"""A process forked after the parent has used the package (multiprocessing's
default start method on Linux, DataLoader workers) can use it too: the
child gets a thread pool of its own, where it used to wait forever on the
parent's pool threads, which fork does not copy."""

import os
import sys
import time
import warnings

import numpy as np
import pytest

import mlsopt as mi


def exp_graph():
    g = mi.new_kernel_graph()
    x = g.new_input(dims=(8, 64), dtype=mi.float32)
    g.mark_output(g.exp(x))
    return g


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
@pytest.mark.parametrize("parent_call", ["run", "ptx", "superoptimize"])
def test_forked_child_runs_graphs(parent_call):
    g = exp_graph()
    ones = np.ones((8, 64), np.float32)
    {"run": lambda: g(inputs=[ones]),
     "ptx": lambda: g.ptx("sm_90"),
     "superoptimize": lambda: g.superoptimize(timeout=2, threads=2)}[
        parent_call]()
    with warnings.catch_warnings():
        # Python warns that forking a process with threads may deadlock:
        # that is the case under test.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        status = 1
        try:
            out = exp_graph()(inputs=[ones])[0]
            exp_graph().ptx("sm_90")
            status = 0 if np.allclose(out, np.e) else 2
        finally:
            os._exit(status)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail(f"the forked child hung after the parent's {parent_call}")
