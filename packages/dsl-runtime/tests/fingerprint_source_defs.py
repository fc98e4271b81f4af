"""Functions whose source the cache key reads (test_runtime_fingerprint_source.py)."""

import functools


def deco(f):  # type: ignore[no-untyped-def]
    return f


@deco
@functools.cache
def decorated(x):  # type: ignore[no-untyped-def]
    # a comment inside
    return x + 1


def ends_with_nested_def(x):  # type: ignore[no-untyped-def]
    y = x * 2

    def inner(z):  # type: ignore[no-untyped-def]
        return (z +
                y)
    return inner


def multiline_tail(x):  # type: ignore[no-untyped-def]
    return [
        x,
        x + 1,
    ]


def last_is_nested(x):  # type: ignore[no-untyped-def]
    def inner(z):  # type: ignore[no-untyped-def]
        return z
        # trailing comment in inner


class Holder:
    def method(self, x):  # type: ignore[no-untyped-def]
        if x:
            return 1
        return 2


LAMBDA = lambda x: x + 1  # noqa: E731
