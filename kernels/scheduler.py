"""Reaching a Dask cluster for ``--scheduler``: an address checked and probed before Dask
is let near it, or a throwaway local cluster that a Ctrl-C stops cleanly.

Dask's own client, pointed at a port that is not a Dask scheduler, waits for ever (a
silent port) or reads a frame length of petabytes (a web server's reply), and
``inproc://`` addresses, which exist only inside one process, fail deep inside it;
:func:`connect` refuses each with one ``ValueError`` line in bounded time. Only this
module and :mod:`critlab.kernels.cluster` import ``distributed``.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing import resource_tracker
from typing import Any

try:
    from distributed import Client, LocalCluster
except ImportError as exc:  # pragma: no cover - the extra is part of critlab[dev]
    raise ImportError("cluster runs need Dask: pip install 'critlab[distributed]'") from exc

CONNECT_TIMEOUT_S = 30
# A Dask scheduler sends its handshake at once; a port silent this long is something else.
HANDSHAKE_TIMEOUT_S = 10

_ADDRESS = re.compile(
    r"(?:(?P<scheme>tcp|tls)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})"
)


def parse_address(scheduler: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a scheduler address, or a one-line ``ValueError``
    saying what is allowed (an address that cannot leave one process, such as
    ``inproc://x``, is refused too).

    >>> parse_address("tcp://10.0.0.5:8786"), parse_address("sched:8786")
    (('tcp', '10.0.0.5', 8786), ('tcp', 'sched', 8786))
    >>> parse_address("inproc://x")
    Traceback (most recent call last):
    ...
    ValueError: scheduler = 'inproc://x': must be local or an address tcp://HOST:PORT or tls://HOST:PORT
    """
    m = _ADDRESS.fullmatch(scheduler.strip()) if isinstance(scheduler, str) else None
    if m is None or not 0 < int(m["port"]) < 65536:
        shown = repr(scheduler) if not isinstance(scheduler, str) else repr(scheduler)[:80]
        raise ValueError(
            f"scheduler = {shown}: must be local or an address tcp://HOST:PORT or tls://HOST:PORT"
        )
    host = m["host"]
    labels = host.removesuffix(".").split(".")  # a trailing dot: a fully qualified name
    if not host.startswith("[") and (len(host) > 254 or not all(0 < len(p) < 64 for p in labels)):
        # the resolver's own words for this are the idna codec's ("label empty or too long")
        raise ValueError(
            f"scheduler = {repr(scheduler)[:80]}: the host is no host name (labels of 1 to 63 letters, "
            "digits, '-' or '_' joined by single dots, at most 253 characters)"
        )
    return m["scheme"] or "tcp", host, int(m["port"])


def probe_scheduler(host: str, port: int, timeout: float, handshake_timeout: float) -> None:
    """Raise ``ValueError`` unless a Dask scheduler answers at ``host:port``.

    A Dask server sends its handshake as soon as a connection opens (8 bytes: the length
    of what follows, then a frame count and lengths), so a few bytes read with a timeout
    tell it from a port that is closed, silent (``nc -l``) or another server: Dask's own
    client, meeting one of those, waits for ever or reads a length of petabytes.
    """
    where = f"tcp://{host}:{port}"
    try:
        with socket.create_connection((host.strip("[]"), port), timeout=timeout) as sock:
            deadline = time.monotonic() + handshake_timeout
            head = _receive(sock, 16, deadline)
            if len(head) < 16:
                raise ValueError(f"no Dask scheduler at {where}: it did not send Dask's handshake")
            total, frames = struct.unpack("<QQ", head)
            if not (1 <= frames <= 64 and 8 * (frames + 1) <= total <= 1 << 24):
                raise ValueError(f"no Dask scheduler at {where}: another kind of server answers there")
            # The whole handshake, not just its header: a peer that sends a plausible
            # header and then nothing would hold Dask's client (which reads the rest
            # without a time limit) for ever.
            if len(_receive(sock, total - 8, deadline)) < total - 8:
                raise ValueError(f"no Dask scheduler at {where}: its handshake stopped short")
    except TimeoutError:
        raise ValueError(
            f"no Dask scheduler at {where}: no complete handshake within {handshake_timeout:g} s"
        ) from None
    except OSError as exc:
        raise ValueError(f"cannot reach the Dask scheduler at {where}: {exc.strerror or exc}") from None
    except UnicodeError:  # a host name the resolver cannot encode
        raise ValueError(f"cannot reach the Dask scheduler at {where}: the host is no host name") from None


def _receive(sock: socket.socket, n: int, deadline: float) -> bytes:
    """Up to ``n`` bytes from ``sock`` (fewer when the peer closes); ``TimeoutError`` when
    they have not all arrived by ``deadline`` (``time.monotonic()``)."""
    data = bytearray()
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(min(n - len(data), 1 << 16))
        if not chunk:
            break
        data += chunk
    return bytes(data)


@contextmanager
def connect(scheduler: str) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler``, closed on exit.

    ``"local"`` starts a throwaway cluster of two single-threaded worker processes on the
    loopback interface instead (and shuts it down on exit). An address that is no
    ``tcp://`` or ``tls://`` address, or where no Dask scheduler answers within
    :data:`CONNECT_TIMEOUT_S` seconds, raises ``ValueError``.
    """
    if scheduler == "local":
        with _local_cluster() as client:
            yield client
        return
    scheme, host, port = parse_address(scheduler)
    if scheme == "tcp":  # a TLS scheduler speaks only after the TLS handshake: Dask's timeout applies
        probe_scheduler(host, port, CONNECT_TIMEOUT_S, min(CONNECT_TIMEOUT_S, HANDSHAKE_TIMEOUT_S))
    address = f"{scheme}://{host}:{port}"
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S)
    except Exception as exc:  # OSError, TimeoutError, or what a broken peer makes Dask raise
        raise ValueError(f"cannot connect to the Dask scheduler at {address}: {exc}") from None
    with client:
        yield client


@contextmanager
def _local_cluster() -> Iterator[Client]:
    """A LocalCluster of two single-threaded worker processes, and its client.

    Ctrl-C reaches the workers too (a terminal signals the whole process group), but only
    this process should stop, cancel its tasks and shut the cluster down: the workers
    ignore SIGINT, inherited from their start where :func:`_interrupts_held` can hold a
    Ctrl-C back without losing it, else from :func:`dask_setup` once they run. A Ctrl-C
    while the cluster starts is raised once it has (so that it is shut down here, not
    left to Dask's exit handlers), and Dask's shutdown is kept quiet after an interrupt.
    """
    # Started here, before SIGINT is held: multiprocessing starts its resource tracker
    # with SIGINT blocked and then unblocks it in the starting thread, which would
    # otherwise be Dask's event-loop thread, and every thread that thread starts.
    resource_tracker.ensure_running()
    cluster = None
    try:
        with _interrupts_held():
            # Port 0 for the scheduler's web server: a cluster already on this machine keeps
            # Dask's usual 8787 and neither of them warns about the other. Its logs are for
            # whoever runs a cluster; this one is gone after the run (cancelling its tasks on
            # Ctrl-C would log a warning per task, and a worker's last heartbeat an error),
            # and a task's error reaches this process as an exception anyway.
            cluster = LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,
                preload=[__name__],  # dask_setup below
            )
        with Client(cluster) as client:
            yield client
    except BaseException:
        _quiet_dask()
        raise
    finally:
        if cluster is not None:
            cluster.close()


def dask_setup(worker: Any) -> None:
    """Dask's preload hook, run in each worker of :func:`connect`'s ``"local"`` cluster
    as it starts: Ctrl-C in the terminal is for the client, which cancels the tasks."""
    if _main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


_SIGINT_BIT = 1 << (signal.SIGINT - 1)


def _only_this_thread_takes_sigint() -> bool:
    """Whether every other thread of the process blocks SIGINT (Linux's /proc says), so
    that blocking it here too keeps a Ctrl-C pending instead of lost."""
    me = threading.get_native_id()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return False
    for tid in tasks:
        if tid == str(me):
            continue
        try:
            with open(f"/proc/self/task/{tid}/status", encoding="ascii") as f:
                blocked = next((line.split()[1] for line in f if line.startswith("SigBlk:")), "0")
        except OSError:  # the thread has ended
            continue
        if not int(blocked, 16) & _SIGINT_BIT:
            return False
    return True


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """A Ctrl-C meanwhile is held back, then raised as KeyboardInterrupt at the end.

    Where every other thread blocks SIGINT (the command line arranges that), it is blocked
    here too and ignored, so the processes started meanwhile inherit "ignored" from
    birth, and Linux keeps the blocked signal pending until it is unblocked; elsewhere a
    handler records it (and the workers ignore SIGINT from :func:`dask_setup` on).
    """
    if not _main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    blocking = hasattr(signal, "pthread_sigmask") and _only_this_thread_takes_sigint()
    if blocking:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    except BaseException:
        if caught:
            raise KeyboardInterrupt from None  # Dask's own error after an interrupt says less
        raise
    finally:
        if blocking:
            signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a pending one lands in caught
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _quiet_dask() -> None:
    """After an interrupt: Dask's own messages about the connections being cut short say
    nothing the user needs (one line says it was interrupted)."""
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
