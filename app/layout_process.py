"""A helper process for the layouts whose fitting holds Python's global lock.

numba's compilation (UMAP's first run) and parts of UMAP and t-SNE hold the GIL for
hundreds of milliseconds; in a thread of the GUI process that freezes the window. In
this process they cannot, and a cancelled fit is stopped by killing it. It is started
with ``python -m app.layout_process`` (not multiprocessing's spawn, which re-imports the
caller's main script) and speaks pickled ``(function, arguments)`` requests and
``(ok, value)`` replies over its standard input and output. A thread waits for each
reply (not ``select``, which Windows cannot use on pipes).
"""

from __future__ import annotations

import atexit
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from sentspace.app.jobs import Job, Progress

_process: subprocess.Popen | None = None


def _serve() -> None:
    requests = sys.stdin.buffer
    # Replies get the real stdout; anything the libraries print (even from C) goes to
    # stderr instead of corrupting the reply stream.
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    while True:
        try:
            function, arguments = pickle.load(requests)
        except EOFError:
            return
        try:
            reply = (True, function(*arguments))
        except Exception as error:  # the caller re-raises it
            reply = (False, error)
        pickle.dump(reply, replies, protocol=pickle.HIGHEST_PROTOCOL)
        replies.flush()


def _started() -> subprocess.Popen:
    global _process
    if _process is None or _process.poll() is not None:
        _process = subprocess.Popen([sys.executable, "-m", "sentspace.app.layout_process"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        atexit.register(stop)
    return _process


def stop() -> None:
    """Kill the helper process (a cancelled fit); the next call starts a new one."""
    global _process
    if _process is not None:
        _process.kill()
        _process.wait()
        _process = None


def _read_reply(process: subprocess.Popen, replies: queue.Queue) -> None:
    try:
        replies.put(pickle.load(process.stdout))
    except (EOFError, OSError, pickle.UnpicklingError):     # killed, or it died
        replies.put(None)


def run_elsewhere(function: Callable[..., Any], arguments: tuple, stage: str) -> Job[Any]:
    """Run ``function(*arguments)`` (a module-level function) in the helper process,
    yielding progress while it works; closing the job kills the process."""
    process = _started()
    pickle.dump((function, arguments), process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
    process.stdin.flush()
    replies: queue.Queue = queue.Queue(maxsize=1)
    threading.Thread(target=_read_reply, args=(process, replies), daemon=True,
                     name="layout-reply").start()
    try:
        while True:
            try:
                reply = replies.get(timeout=0.2)
                break
            except queue.Empty:
                yield Progress(stage, 2, 3)
    except GeneratorExit:
        stop()
        raise
    if reply is None:
        stop()
        raise RuntimeError("the layout process ended unexpectedly")
    ok, value = reply
    if not ok:
        raise value
    return value


if __name__ == "__main__":
    _serve()
