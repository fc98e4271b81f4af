"""File access for the disk cache that another user cannot subvert.

- A folder is *trusted* when it is owned by the current user and not writable by
  group or others (pip and ccache apply the same rule); folders are opened one
  level at a time with ``O_NOFOLLOW`` and checked on the open descriptor.
- A file is read through one descriptor (``O_NOFOLLOW | O_NONBLOCK``), only if it is
  a regular file owned by the user and below a size limit; the bytes returned are
  the bytes read, so a checksum of them covers exactly what is used.
- Native code is loaded from a sealed ``memfd`` copy of verified bytes: nothing can
  change between the check and ``dlopen``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import threading
from typing import Any

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_SEALS = ("F_SEAL_SEAL", "F_SEAL_SHRINK", "F_SEAL_GROW", "F_SEAL_WRITE")


class Untrusted(OSError):
    """A folder or file that another user owns or may write."""


class Invalid(ValueError):
    """A file that is not a regular file or is larger than allowed."""


def check_trusted(st: os.stat_result, what: str) -> None:
    """Raise Untrusted unless ``st`` is owned by this user and not group/other-writable."""
    uid = os.geteuid()
    if st.st_uid != uid:
        raise Untrusted(f"{what} is owned by uid {st.st_uid}, not by the current user (uid {uid})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise Untrusted(f"{what} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})")


def open_dir(name: str, dir_fd: int | None = None, *, create: bool = False,
             follow: bool = False) -> int:
    """A descriptor of a trusted folder ``name`` (relative to ``dir_fd``); created 0700 if asked.

    ``follow=False`` refuses a symbolic link. Raises FileNotFoundError, Untrusted or OSError."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=dir_fd)
    fd = os.open(name, DIR_FLAGS | (0 if follow else os.O_NOFOLLOW), dir_fd=dir_fd)
    try:
        check_trusted(os.fstat(fd), f"cache folder {name!r}")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file(dir_fd: int, name: str, limit: int) -> bytes:
    """The bytes of regular file ``name`` in ``dir_fd``, read once through one descriptor.

    Refuses links (``O_NOFOLLOW``), FIFOs and devices (without blocking), files of
    another user and files larger than ``limit`` bytes (Invalid / Untrusted / OSError)."""
    fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Invalid(f"{name} is not a regular file")
        check_trusted(st, name)
        if st.st_size > limit:
            raise Invalid(f"{name} is larger than {limit} bytes")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(limit + 1 - total, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise Invalid(f"{name} grew beyond {limit} bytes while read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_file(dir_fd: int, name: str, data: bytes) -> None:
    """Create ``name`` (0600, never through a link, never over an existing file)."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o600, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def sealed_memfd(data: bytes, name: str) -> int:
    """A memfd holding ``data``, sealed against every later change (write, grow, shrink)."""
    if not hasattr(os, "memfd_create") or not all(hasattr(fcntl, s) for s in _SEALS):
        raise OSError("sealed memfds are not available on this system")
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        seals = 0
        for seal in _SEALS:
            seals |= getattr(fcntl, seal)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    except BaseException:
        os.close(fd)
        raise
    return fd


_loaded_names: set[str] = set()
_dlopen_lock = threading.Lock()


def dlopen_bytes(data: bytes, name: str) -> Any:
    """``ctypes.CDLL`` of a shared library given as (verified) bytes, via a sealed memfd.

    The dynamic loader recognizes a library already loaded under the same path, so
    each load uses a ``/proc/self/fd/N`` path never used before in this process."""
    import ctypes

    fd = sealed_memfd(data, name)
    with _dlopen_lock:
        try:
            if f"/proc/self/fd/{fd}" in _loaded_names:  # move above every number used so far
                highest = max(int(p.rsplit("/", 1)[1]) for p in _loaded_names)
                higher = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, highest + 1)
                os.close(fd)
                fd = higher
            path = f"/proc/self/fd/{fd}"
            _loaded_names.add(path)
            return ctypes.CDLL(path)
        finally:
            os.close(fd)
