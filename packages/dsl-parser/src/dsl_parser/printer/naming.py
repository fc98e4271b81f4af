"""Python names for SSA values that obey the parser's strict SSA rules.

A name may not be defined while it is visible (this scope or an enclosing
one), so the printer keeps the same scope stack as the parser: the source
name is used when it is free, else a numbered variant (``acc_1``).
"""

from __future__ import annotations

import keyword

from ..parser.evaluator import BUILTINS

#: Names the printed code needs with their usual meaning.
_RESERVED = frozenset({"pl", "self", *keyword.kwlist, *BUILTINS})


class Namer:
    """Scope-aware allocation of Python names."""

    def __init__(self, reserved: set[str]) -> None:
        self.reserved = set(reserved) | _RESERVED
        self.scopes: list[set[str]] = [set()]
        self._counter = 0

    def push(self) -> None:
        self.scopes.append(set())

    def pop(self) -> None:
        self.scopes.pop()

    def visible(self, name: str) -> bool:
        return name in self.reserved or any(name in scope for scope in self.scopes)

    def pick(self, hint: str | None) -> str:
        """A name that may be defined here (not yet defined)."""
        if hint and hint.isidentifier() and not self.visible(hint):
            return hint
        if hint and hint.isidentifier():
            n = 1
            while self.visible(f"{hint}_{n}"):
                n += 1
            return f"{hint}_{n}"
        while self.visible(f"t{self._counter}"):
            self._counter += 1
        name = f"t{self._counter}"
        self._counter += 1
        return name

    def define(self, name: str) -> str:
        self.scopes[-1].add(name)
        return name

    def fresh(self, hint: str | None) -> str:
        """Pick and define a name in the current scope."""
        return self.define(self.pick(hint))
