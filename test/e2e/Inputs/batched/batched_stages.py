"""Recomputes batched_stages.flow's outputs and checks a run's: lines.txt, drawn.bin,
sorted.txt, concat.txt and the printed lines (its standard output, in a file).

    batched_stages.py N DIR STDOUT
"""
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from flow_rand import Rand  # noqa: E402

n, out, printed = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
problems = []


def expect(name, got, want):
    if got != want:
        problems.append(f"{name}: differs from Python's ({len(got)} against {len(want)} bytes or items)")


lines = []
for i in range(n):
    text = f"row {i} of {n}"
    if len(text) % 3 != 0:
        lines.append(f"{i * 7919 % 1000}:{text.upper()}\n")
expect("lines.txt", (out / "lines.txt").read_text(), "".join(lines))

stage = Rand(1, stage=1)
drawn = [stage.at(i).rand(1_000_000) * 2 + i for i in range(n)]
expect("drawn.bin", (out / "drawn.bin").read_bytes(), struct.pack(f"<{n}Q", *drawn))

words = sorted(s for s in (f"{i * 2654435761 % 1000}-{i}" for i in range(n)) if not s.startswith("7"))
expect("sorted.txt", (out / "sorted.txt").read_text(), "".join(w + "\n" for w in words))

expect("concat.txt", (out / "concat.txt").read_text(), "".join(f"{i}\n" for i in range(1000)) + "".join(f"z{i}\n" for i in range(10)))

want = [f"total {n * (n - 1) // 2}", "seen 1000", f"shifted {sum(2 * i for i in range(1000))}"]
want += [f"k {k}: {sum(i * k for i in range(100))}" for k in range(1, 4)]
want += [f"levels {sum(range(10_000))}"]
expect("standard output", printed.read_text().splitlines(), want)

print("\n".join(problems) if problems else f"batched_stages: {n} elements, every output as Python computes it")
sys.exit(1 if problems else 0)
