"""Cross-check layouts against the system C compiler (``cc``) on generated declarations.

Random (seeded) structs and unions of scalars, arrays, nested composites, ``_Alignas``
members, pointers and GCC vector types are declared both ways; the compiled program prints
``sizeof``, ``__alignof__`` and every ``offsetof``, which must equal ours. (GCC's C11
``_Alignof`` reports 16 for vector types wider than 16 bytes when AVX is off, although it
lays them out at their natural alignment, as LLVM does; ``__alignof__`` reports that.)
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

import dsl_core as dc

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")

C_SCALARS = {
    dc.Int8: "int8_t", dc.Int16: "int16_t", dc.Int32: "int32_t", dc.Int64: "int64_t",
    dc.UInt8: "uint8_t", dc.UInt16: "uint16_t", dc.UInt32: "uint32_t", dc.UInt64: "uint64_t",
    dc.Float16: "_Float16", dc.BFloat16: "uint16_t", dc.Float32: "float", dc.Float64: "double",
    dc.Boolean: "_Bool",
}


class Generator:
    """Builds matching DSL and C declarations."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.decls: list[str] = []
        self.types: list[tuple[str, type]] = []  # (C name, DSL type)
        self.c_names: dict[type, str] = dict(C_SCALARS)

    def member(self, depth: int) -> tuple[type, str, str]:
        """(DSL type, C type prefix, C declarator suffix)."""
        kind = self.rng.choice(["scalar"] * 5 + ["array", "align", "nested", "pointer", "vector"])
        if kind == "array":
            elem, prefix, suffix = self.member(depth + 1) if depth < 2 else self.scalar()
            if suffix or dc.dsl_size_of(elem) % dc.dsl_align_of(elem):
                return self.scalar()
            n = self.rng.randint(1, 5)
            return dc.Array[elem, n], prefix, f"[{n}]"
        if kind == "align":
            inner, prefix, suffix = self.scalar()
            a = dc.dsl_align_of(inner) << self.rng.randint(0, 4)
            return dc.Align[inner, a], f"_Alignas({a}) {prefix}", suffix
        if kind == "nested" and depth < 2 and self.types:
            c_name, t = self.rng.choice(self.types)
            return t, c_name, ""
        if kind == "pointer":
            return dc.Pointer[dc.Float32], "void *", ""
        if kind == "vector":
            elem = self.rng.choice([dc.Int8, dc.Int16, dc.Float32, dc.Float64, dc.Float16])
            n = self.rng.choice([2, 4, 8])
            name = f"v{n}_{elem.__name__}"
            decl = (f"typedef {C_SCALARS[elem]} {name} "
                    f"__attribute__((vector_size({n * dc.dsl_size_of(elem)})));")
            if decl not in self.decls:
                self.decls.append(decl)
            return dc.Vector[elem, n], name, ""
        return self.scalar()

    def scalar(self) -> tuple[type, str, str]:
        t = self.rng.choice(list(C_SCALARS))
        return t, C_SCALARS[t], ""

    def composite(self, index: int) -> None:
        is_union = self.rng.random() < 0.25
        name = f"{'U' if is_union else 'S'}{index}"
        members, annotations = [], {}
        for i in range(self.rng.randint(1, 6)):
            t, prefix, suffix = self.member(0)
            members.append(f"  {prefix} f{i}{suffix};")
            annotations[f"f{i}"] = t
        kind = "union" if is_union else "struct"
        self.decls.append(f"typedef {kind} {{\n" + "\n".join(members) + f"\n}} {name};")
        cls = type(name, (), {"__annotations__": annotations, "__module__": __name__})
        t = (dc.union if is_union else dc.struct)(cls)
        self.types.append((name, t))


def c_program(gen: Generator) -> str:
    lines = ["#include <stdio.h>", "#include <stdint.h>", "#include <stddef.h>", *gen.decls,
             "int main(void) {"]
    for name, t in gen.types:
        fields = " ".join('%zu' for _ in dc.fields_of(t))
        offs = "".join(f", offsetof({name}, {f.name})" for f in dc.fields_of(t))
        lines.append(f'  printf("{name} %zu %zu {fields}\\n", sizeof({name}), '
                     f"__alignof__({name}){offs});")
    lines += ["  return 0;", "}"]
    return "\n".join(lines)


def compile_and_run(source: str, tmp_path: Path) -> dict[str, list[int]]:
    src, exe = tmp_path / "layout.c", tmp_path / "layout"
    src.write_text(source)
    subprocess.run(["cc", "-std=gnu11", "-w", "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {line.split()[0]: [int(x) for x in line.split()[1:]] for line in out.splitlines()}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_layouts_match_the_c_compiler(seed, tmp_path):
    gen = Generator(seed)
    for i in range(40):
        gen.composite(i)
    c_layouts = compile_and_run(c_program(gen), tmp_path)
    assert len(c_layouts) == 40
    for name, t in gen.types:
        ours = [dc.dsl_size_of(t), dc.dsl_align_of(t), *(dc.offset_of(t, f.name)
                                                         for f in dc.fields_of(t))]
        assert ours == c_layouts[name], f"{name}: {dc.layout_of(t)}"


def test_constexpr_fields_take_no_storage_like_absent_c_members(tmp_path):
    @dc.struct
    class K:
        a: dc.Int8
        n: dc.Constexpr[int] = 3
        b: dc.Float64

    src = "\n".join([
        "#include <stdio.h>", "#include <stdint.h>", "#include <stddef.h>",
        "typedef struct { int8_t a; double b; } K;",
        'int main(void) { printf("K %zu %zu %zu\\n", sizeof(K), _Alignof(K), '
        "offsetof(K, b)); return 0; }",
    ])
    assert compile_and_run(src, tmp_path)["K"] == [dc.dsl_size_of(K), dc.dsl_align_of(K),
                                                   dc.offset_of(K, "b")] == [16, 8, 8]
