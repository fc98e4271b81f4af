"""A real ``redis-server`` on loopback for the shared-cache tests (no mocks).

``.ci/run`` / ``make test`` install the Debian package ``redis-server`` and set
``DSL_REQUIRE_REDIS=1``: then a missing server fails the tests instead of skipping them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """One server process with its own port and folder (no persistence)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, *extra: str) -> None:
        exe = shutil.which("redis-server")
        assert exe is not None
        self.proc = subprocess.Popen(
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder), "--enable-debug-command", "yes",
             *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if self.client(password=self._password(extra)).ping():
                    return
            except Exception:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    @staticmethod
    def _password(extra: tuple[str, ...]) -> str | None:
        return extra[extra.index("--requirepass") + 1] if "--requirepass" in extra else None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None

    def client(self, **kwargs: Any) -> Any:
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port,
                           **{"socket_timeout": 5, "password": self.password, **kwargs})

    password: str | None = None

    def values(self) -> dict[str, bytes]:
        c = self.client()
        return {k.decode(): c.get(k) for k in c.keys("*")}


def require_redis() -> None:
    """Skip (or fail, with ``DSL_REQUIRE_REDIS=1``) where redis-server or the client is missing."""
    missing = [what for what, ok in (("redis-server", shutil.which("redis-server")),
                                     ("the redis package", _has_client())) if not ok]
    if missing:
        why = f"{' and '.join(missing)} not installed (make test installs them)"
        if os.environ.get("DSL_REQUIRE_REDIS") == "1":
            pytest.fail(why)
        pytest.skip(why)


def _has_client() -> bool:
    try:
        import redis  # noqa: F401
    except ImportError:
        return False
    return True
