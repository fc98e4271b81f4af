"""The shared compile cache on a real redis-server: signed entries, IR-only sharing without
a key, forged and corrupted values, and faults (down, going away, slow, paused, full)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from redis_server import RedisServer, require_redis

import dsl_parser.language as pl
from dsl_runtime import backends, cache, configure_cache, jit, shared_cache
from dsl_runtime.shared_cache import seal, unseal

CHILD = Path(__file__).with_name("shared_cache_child.py")
KEY = "k" * 16 + "-team-secret-0123"
OTHER_KEY = "z" * 16 + "-someone-else-999"
X = np.arange(6, dtype=np.float32)
Y = np.full(6, 0.5, np.float32)
N = pl.dynamic("N")
#: The timeout of tests that are not about faults: a loaded CI machine can take a second
#: or more to answer, which would be a fault (one warning, a local compile).
SLOW_OK = 30.0


def child(tmp_path: Path, cache_name: str, fn: str = "scale_add", timeout: float = 120,
          **env: str) -> tuple[dict[str, Any], str]:
    """Run ``fn`` in a fresh process with its own disk cache folder; (its report, stderr)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("DSL_CACHE")}
    full.update(DSL_CACHE_DIR=str(tmp_path / cache_name), **env)
    full.setdefault("DSL_CACHE_TIMEOUT", str(SLOW_OK))
    proc = subprocess.run([sys.executable, str(CHILD), fn], env=full, capture_output=True,
                          text=True, timeout=timeout, cwd=CHILD.parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def expected(fn: str = "scale_add") -> list[float]:
    return (X * 2 + Y if fn == "scale_add" else X - Y + 1).tolist()


def entry_files() -> dict[str, bytes]:
    """The files of a real entry (compiled in this process, read back from disk)."""
    @jit
    def twice(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        return x * 2.0

    twice(X)
    cache.flush()
    (entry,) = cache.entries()
    found = cache.load_files(entry.key)
    assert found is not None
    return found[1]


# -- the value format ----------------------------------------------------------------------
def raw(*items: tuple[bytes, bytes], count: int | None = None) -> bytes:
    """A packed value written by hand (names unchecked, count free)."""
    out = b"DSLPACK1" + (len(items) if count is None else count).to_bytes(4, "little")
    for name, data in items:
        out += len(name).to_bytes(2, "little") + name + len(data).to_bytes(8, "little") + data
    return out


def test_pack_round_trip_and_malformed_values() -> None:
    files = {"manifest.json": b"{}", "abi.json": b"[1]", "kernel.so": bytes(range(256)) * 3}
    packed = backends.pack(files)
    assert backends.unpack(packed) == files
    assert packed == raw(*sorted((n.encode(), d) for n, d in files.items()))
    for value, message in (
            (packed[:-1], "truncated"),
            (packed + b"x", "trailing"),
            (b"XSLPACK1" + packed[8:], "not a packed"),
            (b"", "not a packed"),
            (raw((b"a", b"1"), count=10**6), "entry of 1000000 files"),
            (raw((b"a", b"1"), count=2), "truncated"),
            (raw((b"../x", b"")), "invalid file"),
            (raw((b"a", b"1"), (b"a", b"2")), "invalid file"),
            (raw((b"a", b"")) [:-8] + (1 << 40).to_bytes(8, "little"), "larger than")):
        with pytest.raises(ValueError, match=message):
            backends.unpack(value)


def test_signed_values_verify_only_with_their_key_and_cache_key() -> None:
    files = entry_files()
    key = json.loads(files["manifest.json"])["key"]
    value = seal(KEY.encode(), key, files)
    hit, back = unseal(KEY.encode(), key, value)
    assert back == files and hit.library == files.get("kernel.so")
    with pytest.raises(ValueError, match="signature"):
        unseal(OTHER_KEY.encode(), key, value)
    with pytest.raises(ValueError, match="signature"):
        unseal(KEY.encode(), "0" * 64, value)  # a valid entry moved to another cache key
    for at in (5, 40, len(value) // 2, len(value) - 1):  # tag, header, body, last byte
        flipped = bytearray(value)
        flipped[at] ^= 0x01
        with pytest.raises(ValueError):
            unseal(KEY.encode(), key, bytes(flipped))
    with pytest.raises(ValueError):
        unseal(KEY.encode(), key, value[:len(value) - 100])
    with pytest.raises(ValueError, match="unsigned"):
        unseal(None, key, value)  # no key: a signed value is not an IR entry


def test_unsigned_values_hold_only_the_ir() -> None:
    files = entry_files()
    key = json.loads(files["manifest.json"])["key"]
    value = seal(None, key, files)
    hit, back = unseal(None, key, value)
    assert set(back) == {"manifest.json", "abi.json", "dsl.mlir"}
    assert hit.lowered_text is None and hit.library is None
    assert hit.dsl_text == files["dsl.mlir"].decode()
    # An unsigned value that smuggles native code (checksummed and all) is refused.
    planted = dict(back)
    planted["kernel.so"] = files["kernel.so"]
    manifest = cache.Manifest.model_validate_json(back["manifest.json"])
    planted["manifest.json"] = cache.Manifest(
        key=key, function=manifest.function, created=0.0,
        files={**manifest.files, "kernel.so": cache._sha(files["kernel.so"])}
    ).model_dump_json().encode()
    with pytest.raises(ValueError, match="only the IR"):
        unseal(None, key, b"DSL1U" + backends.pack(planted))
    with pytest.raises(ValueError, match="signed"):
        unseal(KEY.encode(), key, value)  # with a key, unsigned values are not used


def test_disk_backend_moves_whole_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = entry_files()
    key = json.loads(files["manifest.json"])["key"]
    data = backends.DiskBackend().get(key)
    assert data is not None and backends.unpack(data) == files
    monkeypatch.setenv("DSL_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert backends.DiskBackend().get(key) is None
    with pytest.raises(ValueError):
        backends.DiskBackend().put(key, data[:-1])
    with pytest.raises(ValueError, match="key mismatch"):
        backends.DiskBackend().put("1" * 64, data)
    backends.DiskBackend().put(key, data)
    hit = cache.load(key)
    assert hit is not None and hit.library == files.get("kernel.so")


# -- fresh processes sharing a real Redis --------------------------------------------------
def test_signed_entries_are_shared_between_processes(tmp_path: Path,
                                                     redis_server: RedisServer) -> None:
    env = {"DSL_CACHE_BACKEND": redis_server.url, "DSL_CACHE_KEY": KEY}
    first, _ = child(tmp_path, "a", **env)
    assert first["result"] == expected() and first["source"] == "compiled"
    assert first["stats"]["compiles"] == 1 and first["stats"]["remote_published"] == 1
    (name,) = redis_server.values()
    assert name.startswith("dsl:v1:") and ":ir:" not in name
    second, _ = child(tmp_path, "b", **env)
    assert second["result"] == expected() and second["source"] == "shared-cache"
    assert second["stats"].get("compiles", 0) == 0 and second["stats"]["remote_hits"] == 1
    # The fetched entry was written to the second process's disk cache.
    third, _ = child(tmp_path, "b")
    assert third["source"] == "disk-cache" and third["result"] == expected()
    # Another key is another namespace: no hit, no warning, its own entry.
    other, err = child(tmp_path, "c", DSL_CACHE_BACKEND=redis_server.url,
                       DSL_CACHE_KEY=OTHER_KEY)
    assert other["source"] == "compiled" and "WARNING" not in err.upper()
    assert len(redis_server.values()) == 2


def test_without_a_key_only_ir_is_shared_and_compiled_locally(
        tmp_path: Path, redis_server: RedisServer) -> None:
    first, _ = child(tmp_path, "a", DSL_CACHE_BACKEND=redis_server.url)
    assert first["stats"]["remote_published"] == 1
    (name, value), = redis_server.values().items()
    assert ":ir:" in name and value.startswith(b"DSL1U")
    assert set(backends.unpack(value[5:])) == {"manifest.json", "abi.json", "dsl.mlir"}
    second, _ = child(tmp_path, "b", DSL_CACHE_BACKEND=redis_server.url)
    assert second["source"] == "shared-cache" and second["result"] == expected()
    assert second["stats"]["remote_ir_compiles"] == 1
    assert second["stats"].get("compiles", 0) == 0


def test_forged_and_corrupted_entries_are_never_loaded(tmp_path: Path,
                                                       redis_server: RedisServer) -> None:
    env = {"DSL_CACHE_BACKEND": redis_server.url, "DSL_CACHE_KEY": KEY}
    child(tmp_path, "a", **env)
    (name, good), = redis_server.values().items()
    key = name.rsplit(":", 1)[1]
    files = backends.unpack(good[5 + 32:])
    # The other function's real entry, re-signed for this key by someone without the key.
    forged = {
        "signed with another key": seal(OTHER_KEY.encode(), key, files),
        "truncated": good[:len(good) // 2],
        "one byte flipped": good[:-10] + bytes([good[-10] ^ 0xFF]) + good[-9:],
        "garbage": os.urandom(4096),
        "unsigned IR in the signed namespace": seal(None, key, files),
    }
    for n, (why, value) in enumerate(forged.items()):
        redis_server.client().set(name, value)
        report, err = child(tmp_path, f"victim{n}", **env)
        assert report["result"] == expected(), why
        assert report["source"] == "compiled", why
        assert report["stats"]["remote_rejected"] == 1, why
        assert err.count("invalid shared-cache entry") == 1, (why, err)
        # The victim's publish replaced the bad value with a good one.
        assert unseal(KEY.encode(), key, redis_server.client().get(name))[1]["dsl.mlir"] \
            == files["dsl.mlir"], why


@pytest.mark.parametrize("planted", [
    "func.func private @system(i64) -> i32",
    'llvm.mlir.global external @planted(0 : i64) : i64',
])
def test_unsigned_ir_may_not_reach_outside_itself(tmp_path: Path, redis_server: RedisServer,
                                                  planted: str) -> None:
    """IR that declares an external function (callable: the JIT resolves it in the
    process) or holds another dialect's ops is not compiled from an unsigned entry."""
    child(tmp_path, "a", DSL_CACHE_BACKEND=redis_server.url)
    (name, value), = redis_server.values().items()
    key = name.rsplit(":", 1)[1]
    files = backends.unpack(value[5:])
    text = files["dsl.mlir"].decode()
    files["dsl.mlir"] = text.replace("module {", "module {\n  " + planted, 1).encode()
    assert files["dsl.mlir"] != text.encode()
    redis_server.client().set(name, seal(None, key, files))
    report, err = child(tmp_path, "victim", DSL_CACHE_BACKEND=redis_server.url)
    assert report["result"] == expected() and report["source"] == "compiled"
    assert "unsigned entries may hold only what dsl-parser emits" in err


# -- faults, in this process ---------------------------------------------------------------
def make_kernel(scale: float) -> Any:
    """A distinct small @jit function per call (its own cache key)."""
    namespace: dict[str, Any] = {"pl": pl, "N": N, "jit": jit}
    exec(compile(f"@jit\ndef k(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:\n"
                 f"    return x * {scale}\n", str(CHILD.parent / f"gen_{scale}.py"), "exec"),
         namespace)
    return namespace["k"]


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "dsl_runtime.cache" and r.levelno >= logging.WARNING]


def run_kernel(scale: float) -> tuple[float, str]:
    """(seconds, source) of a first call, checked against numpy."""
    fn = make_kernel(scale)
    start = time.monotonic()
    result = fn(X)
    seconds = time.monotonic() - start
    np.testing.assert_array_equal(result, X * np.float32(scale))
    cache.flush()
    return seconds, fn.compile(X).source


@pytest.fixture
def linecache_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    """make_kernel's generated functions get their source from linecache."""
    import linecache

    for scale in (1.5, 2.5, 3.5, 4.5, 5.5, 6.5):
        path = str(CHILD.parent / f"gen_{scale}.py")
        text = (f"@jit\ndef k(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:\n"
                f"    return x * {scale}\n")
        monkeypatch.setitem(linecache.cache, path, (len(text), None,
                                                    text.splitlines(keepends=True), path))


def test_redis_down_at_start_warns_once(caplog: pytest.LogCaptureFixture,
                                        linecache_sources: None) -> None:
    require_redis()
    from redis_server import _free_port

    configure_cache(f"redis://127.0.0.1:{_free_port()}/0", key=KEY, timeout=0.5)
    caplog.set_level(logging.WARNING, "dsl_runtime.cache")
    assert run_kernel(1.5)[1] == "compiled"
    assert run_kernel(2.5)[1] == "compiled"
    assert len(warnings_of(caplog)) == 1 and "retrying" in warnings_of(caplog)[0]
    assert shared_cache.stats()["remote_errors"] == 1  # the second call did not try


def test_redis_going_away_mid_run(redis_server: RedisServer, caplog: pytest.LogCaptureFixture,
                                  linecache_sources: None) -> None:
    configure_cache(redis_server.url, key=KEY, timeout=SLOW_OK)
    caplog.set_level(logging.WARNING, "dsl_runtime.cache")
    run_kernel(1.5)
    assert len(redis_server.values()) == 1 and not warnings_of(caplog)
    redis_server.stop()
    assert run_kernel(2.5)[1] == "compiled"
    assert run_kernel(3.5)[1] == "compiled"
    assert len(warnings_of(caplog)) == 1


@pytest.mark.parametrize("stall", ["DEBUG SLEEP", "CLIENT PAUSE"])
def test_a_stalled_redis_costs_one_timeout(redis_server: RedisServer, stall: str,
                                           caplog: pytest.LogCaptureFixture,
                                           linecache_sources: None) -> None:
    configure_cache(redis_server.url, key=KEY, timeout=SLOW_OK)
    run_kernel(1.5)  # imports and first compile out of the way
    configure_cache(redis_server.url, key=KEY, timeout=0.3)
    caplog.set_level(logging.WARNING, "dsl_runtime.cache")
    blocker = redis_server.client(socket_timeout=30)
    if stall == "DEBUG SLEEP":
        thread = threading.Thread(target=blocker.execute_command, args=("DEBUG", "SLEEP", "6"))
    else:
        thread = threading.Thread(target=blocker.execute_command,
                                  args=("CLIENT", "PAUSE", "6000", "ALL"))
    thread.start()
    time.sleep(0.2)
    try:
        seconds, source = run_kernel(2.5)
        seconds2, _ = run_kernel(3.5)  # in the back-off period: no wait at all
    finally:
        thread.join()
    assert source == "compiled"
    assert seconds < 5 and seconds2 < 5  # the server stalls 6 s; the call gave up after 0.3 s
    (warning,) = warnings_of(caplog)
    assert "Timeout" in warning


def test_a_full_redis_refuses_entries_but_stays_in_use(redis_server: RedisServer,
                                                       caplog: pytest.LogCaptureFixture,
                                                       linecache_sources: None) -> None:
    configure_cache(redis_server.url, key=KEY, timeout=SLOW_OK)
    caplog.set_level(logging.WARNING, "dsl_runtime.cache")
    admin = redis_server.client()
    admin.config_set("maxmemory-policy", "noeviction")
    admin.config_set("maxmemory", "1")
    assert run_kernel(1.5)[1] == "compiled"
    assert run_kernel(2.5)[1] == "compiled"
    (warning,) = warnings_of(caplog)
    assert "refused" in warning and "maxmemory" in warning
    stats = shared_cache.stats()
    assert stats["remote_misses"] == 2  # lookups went on after the refusal
    assert redis_server.values() == {}


def test_shared_cache_with_the_disk_cache_off(redis_server: RedisServer,
                                              monkeypatch: pytest.MonkeyPatch,
                                              linecache_sources: None) -> None:
    monkeypatch.setenv("DSL_DISABLE_DISK_CACHE", "1")
    configure_cache(redis_server.url, key=KEY, timeout=SLOW_OK)
    assert run_kernel(1.5)[1] == "compiled"
    assert len(redis_server.values()) == 1
    assert cache.entries() == []
    shared_cache.reset_stats()
    fresh = make_kernel(1.5)  # a new function object: looks the key up again
    np.testing.assert_array_equal(fresh(X), X * np.float32(1.5))
    assert fresh.compile(X).source == "shared-cache"
    assert shared_cache.stats() == {"remote_hits": 1}


def test_configuration_errors_are_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(ValueError, match="at least 16"):
        configure_cache("redis://127.0.0.1:1/0", key="short")
    with pytest.raises(ValueError, match="expected redis://"):
        configure_cache("http://example.invalid/")
    with pytest.raises(TypeError, match="name, get and put"):
        configure_cache(object())  # type: ignore[arg-type]
    # From the environment: one warning, then compile without the shared cache.
    loose = tmp_path / "key"
    loose.write_text(KEY)
    loose.chmod(0o644)
    monkeypatch.setenv("DSL_CACHE_BACKEND", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("DSL_CACHE_KEY_FILE", str(loose))
    caplog.set_level(logging.WARNING, "dsl_runtime.cache")
    assert not shared_cache.active() and not shared_cache.active()
    (warning,) = warnings_of(caplog)
    assert "chmod 600" in warning
    private = tmp_path / "private-key"
    private.write_text(KEY)
    private.chmod(0o600)
    monkeypatch.setenv("DSL_CACHE_KEY_FILE", str(private))
    assert shared_cache.active()
    monkeypatch.setenv("DSL_CACHE_TIMEOUT", "-1")
    assert not shared_cache.active()
    assert "DSL_CACHE_TIMEOUT" in warnings_of(caplog)[-1]


def test_redis_urls() -> None:
    from dsl_runtime.resp import Address, parse_url

    assert parse_url("redis://:s3cret@cache.internal:7000/3") == Address(
        host="cache.internal", port=7000, db=3, password="s3cret")
    assert parse_url("redis://alice:p%40ss@h") == Address(host="h", username="alice",
                                                         password="p@ss")
    assert parse_url("rediss://h:6380/0").tls
    assert parse_url("unix:///run/redis.sock?db=2") == Address(path="/run/redis.sock", db=2)
    for bad, message in (("http://h/", "not a redis"), ("redis://h:port/", "bad port"),
                         ("redis://h/zero", "must be a number"), ("unix://", "path")):
        with pytest.raises(ValueError, match=message):
            parse_url(bad)
    # The URL's password never reaches a log line.
    assert backends.RedisBackend("redis://:s3cret@h:1/0").name == "redis://***@h:1/0"


def test_a_password_protected_redis(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                    linecache_sources: None) -> None:
    require_redis()
    server = RedisServer(tmp_path)
    server.start("--requirepass", "pw-0123")
    server.password = "pw-0123"
    try:
        configure_cache(f"redis://:pw-0123@127.0.0.1:{server.port}/5", key=KEY,
                        timeout=SLOW_OK)
        run_kernel(1.5)
        assert len(server.client(db=5).keys("*")) == 1
        caplog.set_level(logging.WARNING, "dsl_runtime.cache")
        configure_cache(f"redis://:wrong@127.0.0.1:{server.port}/5", key=KEY,
                        timeout=SLOW_OK)
        assert run_kernel(2.5)[1] == "compiled"
        (warning,) = warnings_of(caplog)
        assert "login refused" in warning and "wrong" not in warning
    finally:
        server.stop()


def test_dsl_doctor_reports_the_shared_cache(redis_server: RedisServer,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from redis_server import _free_port

    from dsl_runtime import cli

    def doctor() -> tuple[int, str]:
        shared_cache.reset()
        code = cli.main(["doctor"])
        line = next(x for x in capsys.readouterr().out.splitlines()
                    if x.startswith("shared cache:"))
        return code, line

    assert doctor()[1] == "shared cache: off (DSL_CACHE_BACKEND unset)"
    monkeypatch.setenv("DSL_CACHE_TIMEOUT", str(SLOW_OK))
    monkeypatch.setenv("DSL_CACHE_BACKEND", redis_server.url)
    monkeypatch.setenv("DSL_CACHE_KEY", KEY)
    code, line = doctor()
    assert f"{redis_server.url}, signed (key " in line and "reachable (" in line
    monkeypatch.delenv("DSL_CACHE_KEY")
    assert "IR only (no signing key), reachable" in doctor()[1]
    monkeypatch.setenv("DSL_CACHE_BACKEND", f"redis://127.0.0.1:{_free_port()}/0")
    code, line = doctor()
    assert code == 1 and "NOT reachable: ConnectionRefusedError" in line
    monkeypatch.setenv("DSL_CACHE_BACKEND", "memcached://h")
    code, line = doctor()
    assert code == 1 and "set but unusable" in line


def test_threads_share_one_connection(redis_server: RedisServer,
                                      linecache_sources: None) -> None:
    """Compiles on several threads at once: lookups and background publishes share one
    connection (one command at a time) and every entry arrives whole."""
    from concurrent.futures import ThreadPoolExecutor

    configure_cache(redis_server.url, key=KEY, timeout=SLOW_OK)
    scales = (1.5, 2.5, 3.5, 4.5, 5.5, 6.5)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(run_kernel, scales))
    assert [source for _, source in results] == ["compiled"] * len(scales)
    values = redis_server.values()
    assert len(values) == len(scales)
    for name, value in values.items():
        hit, _ = unseal(KEY.encode(), name.rsplit(":", 1)[1], value)
        assert hit.abi.function == "k"
    stats = shared_cache.stats()
    assert stats["remote_misses"] == stats["remote_published"] == len(scales)
