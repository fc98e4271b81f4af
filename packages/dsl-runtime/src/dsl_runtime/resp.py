"""A minimal Redis client: the few commands the shared cache sends, over one socket.

The ``redis`` package costs ~250 ms to import (asyncio, ssl, importlib.metadata), more
than a cold compile, on the path whose point is to skip the compile; the shared cache
needs five commands of the RESP protocol (AUTH, SELECT, GETRANGE, SET, PING), spoken here
with the standard library. Any server speaking RESP2 works (Redis, Valkey, KeyDB).

URLs: ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` (TLS, the system's CA
certificates), ``unix://[[user]:password@]/path/to/socket[?db=N]``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

#: Longest reply line (simple strings, errors, lengths) read before giving up.
_LINE_LIMIT = 64 * 1024


class ConnectionFailed(OSError):
    """The server could not be reached, went away, timed out or spoke something else."""


class ServerError(Exception):
    """The server answered with an error (``-OOM ...``, ``-NOAUTH ...``, ``-READONLY ...``)."""


@dataclass(frozen=True)
class Address:
    """Where a URL points and how to log in."""

    host: str = "127.0.0.1"
    port: int = 6379
    path: str | None = None  # a unix socket
    tls: bool = False
    db: int = 0
    username: str | None = None
    password: str | None = None


def parse_url(url: str) -> Address:
    """The Address of a ``redis://``, ``rediss://`` or ``unix://`` URL (ValueError otherwise)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("redis", "rediss", "unix"):
        raise ValueError(f"not a redis:// URL: {url[:200]!r}")
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    db_text = parse_qs(parts.query).get("db", [""])[0]
    if scheme == "unix":
        if not parts.path:
            raise ValueError("unix:// needs the path of the socket")
        return Address(path=parts.path, db=_db(db_text), username=username, password=password)
    db_text = parts.path.strip("/") or db_text
    try:
        port = parts.port or 6379
    except ValueError as err:
        raise ValueError(f"bad port in {url[:200]!r}") from err
    return Address(host=parts.hostname or "127.0.0.1", port=port, tls=scheme == "rediss",
                   db=_db(db_text), username=username, password=password)


def _db(text: str) -> int:
    if not text:
        return 0
    if not text.isdigit():
        raise ValueError(f"the database must be a number, got {text[:40]!r}")
    return int(text)


def _encode(*args: bytes | str | int) -> bytes:
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts += [b"$%d\r\n" % len(data), data, b"\r\n"]
    return b"".join(parts)


class Client:
    """One connection (made on first use, made again after a failure), one command at a
    time (a lock: background publishes and calls share it); every wait is bounded by
    ``timeout`` seconds."""

    def __init__(self, address: Address, timeout: float, bulk_limit: int) -> None:
        self.address = address
        self.timeout = timeout
        self.bulk_limit = bulk_limit
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._reader: Any = None

    def command(self, *args: bytes | str | int) -> Any:
        """Send one command and return its reply (bytes, int, str, list or None);
        ConnectionFailed or ServerError."""
        with self._lock:
            try:
                if self._sock is None:
                    self._connect()
                return self._roundtrip(args)
            except (OSError, ValueError) as err:
                self._close()
                if isinstance(err, ConnectionFailed):
                    raise
                raise ConnectionFailed(f"{type(err).__name__}: {err}") from err

    def _roundtrip(self, args: tuple[bytes | str | int, ...]) -> Any:
        assert self._sock is not None
        self._sock.sendall(_encode(*args))
        return self._reply(depth=0)

    def _connect(self) -> None:
        a = self.address
        if a.path is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(a.path)
            except OSError:
                sock.close()
                raise
        else:
            sock = socket.create_connection((a.host, a.port), timeout=self.timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if a.tls:
                import ssl

                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=a.host)
        self._sock, self._reader = sock, sock.makefile("rb")
        try:
            if a.password is not None:
                self._roundtrip(("AUTH", *((a.username,) if a.username else ()), a.password))
            if a.db:
                self._roundtrip(("SELECT", a.db))
        except ServerError as err:
            raise ConnectionFailed(f"login refused: {err}") from err

    def _line(self) -> bytes:
        line = self._reader.readline(_LINE_LIMIT)
        if not line.endswith(b"\r\n"):
            raise ConnectionFailed("the connection closed, or a reply line is too long")
        return bytes(line[:-2])

    def _reply(self, depth: int) -> Any:
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode("utf-8", "replace")
        if kind == b"-":
            error = ServerError(rest.decode("utf-8", "replace"))
            if depth == 0:
                raise error
            return error
        if kind == b":":
            return int(rest)
        if kind == b"$":
            size = int(rest)
            if size < 0:
                return None
            if size > self.bulk_limit:
                raise ConnectionFailed(f"a reply of {size} bytes (limit {self.bulk_limit})")
            data = self._reader.read(size + 2)
            if len(data) != size + 2:
                raise ConnectionFailed("the connection closed inside a reply")
            return bytes(data[:-2])
        if kind == b"*" and depth < 4:
            count = int(rest)
            return None if count < 0 else [self._reply(depth + 1) for _ in range(count)]
        raise ConnectionFailed(f"not a RESP reply: {line[:40]!r}")

    def _close(self) -> None:
        for thing in (self._reader, self._sock):
            if thing is not None:
                with contextlib.suppress(OSError):
                    thing.close()
        self._sock = self._reader = None

    def close(self) -> None:
        with self._lock:
            self._close()
