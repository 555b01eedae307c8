"""Checks of read_text and write_text runs for test/e2e/paths_text.test (one Python
process for many program runs: Python's start is most of such a test's time).

  errors PROG   In the current directory: writes the old output out.txt and one input
                per case below, runs PROG on each (it reads Point { x: u32, y: i64 } and
                writes out.txt), and prints each run's stdout and stderr for FileCheck.
                Asserts that every run exits with status 1, that out.txt still holds
                its old contents and nothing else was left beside it, that the message
                about a 3 MiB line is short, and that --stats counted at most 1 MiB +
                64 KiB read from that file (the rest of the line never read).
  counted STATS.json read|write:NAME:FILE...
                The --stats=json report counts exactly FILE's size read (written)
                under the disk NAME.
"""
import json
import os
import subprocess
import sys

# name, input file's contents (None: the case reads standard input), extra arguments
CASES = [
    ("sign", None, "-1 -1\n", []),  # a minus on u32 once wrapped around to 4294967295
    ("wrap", "wrap.txt", "1 2\n\n-4294967295 1\n", []),
    ("range", "range.txt", "1 9223372036854775808\n", []),
    ("missing", "short.txt", "1 2\n3\n", []),
    ("extra", "long_line.txt", "1 2 3\n", []),
    ("huge", "huge.txt", "1 2\n\x1b[31m" + "9" * (3 << 20) + "\n5 6\n", ["--stats=json:../huge.json"]),
    ("full", "good.txt", "1 2\n3 4\n", ["--output=/dev/full"]),
    ("full_stdout", "good.txt", "1 2\n3 4\n", ["--output=-"]),  # standard output is /dev/full
]


def disk(stats, name):
    found = [d for d in stats["disks"] if d["path"] == name]
    assert found, f"no disk {name!r} in {[d['path'] for d in stats['disks']]}"
    return found[0]


def errors(prog):
    with open("out.txt", "w") as f:
        f.write("keep\n")
    files = {"out.txt"}
    for name, path, data, args in CASES:
        if path:
            with open(path, "w") as f:
                f.write(data)
            files.add(path)
            argv = [prog, "--input=" + path, "--output=out.txt"] + args
            if name == "full_stdout":
                with open("/dev/full", "wb") as full:
                    run = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE)
                run.stdout = b""
            else:
                run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        else:
            run = subprocess.run([prog, "--output=out.txt"] + args, input=data.encode(),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        print(f"== {name}")
        sys.stdout.flush()
        sys.stdout.buffer.write(run.stdout + run.stderr)
        assert run.returncode == 1, f"{name}: exit status {run.returncode}, not 1"
        if name == "huge":
            assert len(run.stderr) < 1000, f"huge: a message of {len(run.stderr)} bytes"
            read = disk(json.load(open("../huge.json")), "huge.txt")["read_bytes"]
            assert 0 < read <= (1 << 20) + (64 << 10), f"huge: {read} bytes read"
    assert open("out.txt").read() == "keep\n", "out.txt changed"
    left = sorted(os.listdir("."))
    assert left == sorted(files), f"left behind: {sorted(set(left) - files)}, missing: {sorted(files - set(left))}"
    print("== out.txt kept, nothing left behind")


def counted(stats_path, checks):
    stats = json.load(open(stats_path))
    for check in checks:
        direction, name, file = check.split(":", 2)
        got = disk(stats, name)[direction + "_bytes"]
        size = os.path.getsize(file)
        assert got == size, f"{name}: {direction} {got} bytes counted, the file has {size}"
        print(f"{name}: {direction} {got} bytes counted, as many as {file} has")


if sys.argv[1] == "errors":
    errors(sys.argv[2])
elif sys.argv[1] == "counted":
    counted(sys.argv[2], sys.argv[3:])
else:
    sys.exit(f"unknown check {sys.argv[1]}")
