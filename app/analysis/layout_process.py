"""A helper process for the layouts whose fitting holds Python's global lock.

numba's compilation (UMAP's first run) and parts of UMAP and t-SNE hold the GIL for
hundreds of milliseconds; in a thread of the GUI process that freezes the window. In
this process they cannot, and a cancelled fit is stopped by killing it. It is started
with ``python -m app.layout_process`` (not multiprocessing's spawn, which re-imports the
caller's main script) and speaks pickled ``(function, arguments)`` requests and
``(kind, value)`` replies over its standard input and output: any number of
``("progress", Progress)`` that the function sends with :func:`report`, then one
``("ok", result)`` or ``("error", exception)``. A thread reads the replies (not
``select``, which Windows cannot use on pipes).
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

from sentspace.app.base.jobs import Job, Progress

_process: subprocess.Popen | None = None
#: The reply stream while serving in the helper process; None elsewhere.
_replies: Any = None


def _send(kind: str, value: Any) -> None:
    pickle.dump((kind, value), _replies, protocol=pickle.HIGHEST_PROTOCOL)
    _replies.flush()


def report(stage: str, done: int, total: int) -> None:
    """Progress of the function running in the helper process, shown by the job that
    waits for it; does nothing when the function runs anywhere else."""
    if _replies is not None:
        _send("progress", Progress(stage, done, total))


def _serve() -> None:
    global _replies
    requests = sys.stdin.buffer
    # Replies get the real stdout; anything the libraries print (even from C) goes to
    # stderr instead of corrupting the reply stream.
    _replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    while True:
        try:
            function, arguments = pickle.load(requests)
        except EOFError:
            return
        try:
            result = function(*arguments)
        except Exception as error:  # the caller re-raises it
            _send("error", error)
        else:
            _send("ok", result)


def _started() -> subprocess.Popen:
    global _process
    if _process is None or _process.poll() is not None:
        _process = subprocess.Popen(
            [sys.executable, "-m", "sentspace.app.analysis.layout_process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        atexit.register(stop)
    return _process


def stop() -> None:
    """Kill the helper process (a cancelled fit); the next call starts a new one."""
    global _process
    if _process is not None:
        _process.kill()
        _process.wait()
        _process = None


def _read_replies(process: subprocess.Popen, replies: queue.Queue) -> None:
    """Queue the replies to one request, up to its result; None when the process died."""
    assert process.stdout is not None, "started with stdout=PIPE"
    try:
        while True:
            reply = pickle.load(process.stdout)
            replies.put(reply)
            if reply[0] != "progress":
                return
    except (EOFError, OSError, pickle.UnpicklingError):  # killed, or it died
        replies.put(None)


def run_elsewhere(function: Callable[..., Any], arguments: tuple, stage: str) -> Job[Any]:
    """Run ``function(*arguments)`` (a module-level function) in the helper process,
    yielding what it :func:`report`s (``Progress(stage, 2, 3)`` until it does) at least
    every 0.2 s; closing the job kills the process."""
    process = _started()
    assert process.stdin is not None, "started with stdin=PIPE"
    pickle.dump((function, arguments), process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
    process.stdin.flush()
    replies: queue.Queue = queue.Queue()
    threading.Thread(
        target=_read_replies, args=(process, replies), daemon=True, name="layout-reply"
    ).start()
    progress = Progress(stage, 2, 3)
    try:
        while True:
            try:
                reply = replies.get(timeout=0.2)
            except queue.Empty:
                yield progress
                continue
            if reply is None or reply[0] != "progress":
                break
            progress = reply[1]
            yield progress
    except GeneratorExit:
        stop()
        raise
    if reply is None:
        stop()
        raise RuntimeError("the layout process ended unexpectedly")
    kind, value = reply
    if kind == "error":
        raise value
    return value


if __name__ == "__main__":
    # Serve from the module as imported, whose ``report`` the layouts call.
    from sentspace.app.analysis import layout_process

    layout_process._serve()
