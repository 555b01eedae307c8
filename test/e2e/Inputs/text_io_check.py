"""Checks of read_text and write_text runs (test/e2e/paths_text.test):
  counted STATS.json read|write NAME FILE  the --stats=json report counts exactly FILE's
                                           size read (written) under the disk NAME
  at_most STATS.json NAME BYTES            NAME was read at most BYTES (and at least 1)
  short FILE BYTES                         FILE (a message) has at most BYTES bytes
  only DIR NAME...                         DIR holds exactly these files: nothing left behind
"""
import json
import os
import sys


def disk(stats_path, name):
    stats = json.load(open(stats_path))
    found = [d for d in stats["disks"] if d["path"] == name]
    assert found, f"no disk {name!r} in {[d['path'] for d in stats['disks']]}"
    return found[0]


what = sys.argv[1]
if what == "counted":
    stats_path, direction, name, file = sys.argv[2:6]
    got = disk(stats_path, name)[direction + "_bytes"]
    size = os.path.getsize(file)
    assert got == size, f"{name}: {direction} {got} bytes counted, the file has {size}"
    print(f"{name}: {direction} {got} bytes counted, as many as the file has")
elif what == "at_most":
    stats_path, name, limit = sys.argv[2], sys.argv[3], int(sys.argv[4])
    got = disk(stats_path, name)["read_bytes"]
    assert 0 < got <= limit, f"{name}: read {got} bytes, more than {limit}"
    print(f"{name}: read {got} bytes, at most {limit}")
elif what == "short":
    size = os.path.getsize(sys.argv[2])
    assert size <= int(sys.argv[3]), f"{sys.argv[2]} has {size} bytes"
    print(f"message of {size} bytes")
elif what == "only":
    have = sorted(os.listdir(sys.argv[2]))
    want = sorted(sys.argv[3:])
    assert have == want, f"left in {sys.argv[2]}: {have}, expected {want}"
    print("nothing left behind")
else:
    sys.exit(f"unknown check {what}")
