"""``make fuzz``: differential fuzzing (compiled code vs the reference interpreter) for as
long as asked, writing each failure as a minimized, standalone reproducer.

Environment: ``FUZZ_SECONDS`` (default 600), ``FUZZ_SEED`` (default: random),
``FUZZ_OUT`` (default ``fuzz-failures/``), ``FUZZ_FEATURES`` (gated generator features to
turn on, comma-separated, or ``all``; see ``KNOWN_BUGS`` in
``packages/dsl-runtime/tests/fuzz_programs.py``), ``FUZZ_BATCH`` (programs per hypothesis
run, default 50). Each reproducer ``repro_<n>.py`` reruns its program: ``python repro_1.py``.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, reject, seed, settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packages" / "dsl-runtime" / "tests"))
import fuzz_programs as fp  # noqa: E402


def features() -> fp.Features:
    text = os.environ.get("FUZZ_FEATURES", "").strip()
    if text == "all":
        return fp.Features.all()
    chosen = [t.strip() for t in text.split(",") if t.strip()]
    unknown = set(chosen) - set(fp.KNOWN_BUGS)
    if unknown:
        raise SystemExit(f"FUZZ_FEATURES: unknown {sorted(unknown)}; known: {sorted(fp.KNOWN_BUGS)}")
    return replace(fp.Features(), **{c: True for c in chosen})


def batch(run_seed: int, count: int, feats: fp.Features, workdir: Path,
          stats: dict[str, int]) -> tuple[fp.Case, BaseException] | None:
    """One hypothesis run of ``count`` programs; the minimized failure, if any."""
    last: list[tuple[fp.Case, BaseException]] = []

    @seed(run_seed)
    @settings(max_examples=count, deadline=None, database=None, report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck),
              phases=[Phase.generate, Phase.shrink])
    @given(case=fp.programs(feats))
    def one(case: fp.Case) -> None:
        try:
            fp.check(case, directory=workdir)
            stats["programs"] += 1
        except fp.Skip:
            stats["skipped"] += 1
            reject()
        except Exception as err:
            last.append((case, err))
            raise

    try:
        one()
    except Exception:
        return last[-1] if last else None
    return None


def main() -> int:
    seconds = float(os.environ.get("FUZZ_SECONDS", "600"))
    base = int(os.environ.get("FUZZ_SEED", random.randrange(2**31)))
    out = Path(os.environ.get("FUZZ_OUT", "fuzz-failures"))
    count = int(os.environ.get("FUZZ_BATCH", "50"))
    with tempfile.TemporaryDirectory(prefix="dsl-fuzz-") as scratch:
        return _fuzz(seconds, base, out, count, Path(scratch))


def _fuzz(seconds: float, base: int, out: Path, count: int, workdir: Path) -> int:
    feats = features()
    stats = {"programs": 0, "skipped": 0, "failures": 0}
    deadline = time.monotonic() + seconds
    print(f"fuzzing for {seconds:.0f} s from seed {base}, features: {feats}", flush=True)
    k = 0
    while time.monotonic() < deadline:
        found = batch(base + k, count, feats, workdir, stats)
        k += 1
        if found is not None:
            case, err = found
            stats["failures"] += 1
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"repro_{base + k - 1}_{stats['failures']}.py"
            path.write_text(fp.reproducer(case, err, fp.OPTION_SETS))
            print(f"failure ({type(err).__name__}): {path}", flush=True)
        print(f"  {stats}", flush=True)
    print(f"done: {stats['programs']} programs compared, {stats['skipped']} skipped "
          f"(undefined for their inputs), {stats['failures']} failures written to {out}/")
    return 1 if stats["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
