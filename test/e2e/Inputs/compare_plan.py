"""A program's --plan=json against `flowc explain --format json` for the same --memory,
--block and params: the block size (also against the rule itself, written out here),
each phase's and node's memory and I/O, the queues' configuration.

usage: compare_plan.py PROGRAM FLOWC SCRIPT 'CASE' ...
A CASE is the program's flags, e.g. '--memory 16MiB --edges 8000000'; explain gets
--memory/--block as they are and every other --NAME VALUE as --set NAME=VALUE.
"""
import json
import re
import subprocess
import sys

UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size(text):
    m = re.fullmatch(r"(\d+)([KMG]iB|B)?", text)
    return int(m.group(1)) * UNITS[m.group(2) or ""]


def expected_block(memory, block_flag, script_block):
    """The block rule of docs/tuning.md: --block, else the script's, else the largest
    power of two from 64 KiB to 4 MiB with block * 2 <= memory / 128 ... counted up."""
    if block_flag:
        return block_flag
    if script_block:
        return script_block
    b = 64 << 10
    while b * 2 <= memory // 128 and b < (4 << 20):
        b *= 2
    return b


def close(a, b):
    return abs(a - b) <= max(1.0, 1e-9 * max(abs(a), abs(b)))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


def compare(program, flowc, script, case):
    args = case.split()
    explain_args, flags = [], {}
    for name, value in zip(args[::2], args[1::2]):
        if name in ("--memory", "--block"):
            explain_args += [name, value]
            flags[name] = size(value)
        else:
            explain_args += ["--set", f"{name[2:]}={value}"]
    got = run([program, "--plan=json"] + args)
    want = run([flowc, "explain", script, "--format", "json"] + explain_args)
    problems = []

    def check(what, a, b, exact=True, reference="explain"):
        if (a != b) if exact else not close(a, b):
            problems.append(f"{what}: program {a}, {reference} {b}")

    memory = flags.get("--memory", 256 << 20)
    check("memory_bytes", got["memory_bytes"], want["memory_bytes"])
    check("memory_bytes", got["memory_bytes"], memory, reference="--memory")
    check("block_bytes", got["block_bytes"], want["block_bytes"])
    check("block_bytes", got["block_bytes"], expected_block(memory, flags.get("--block"), None), reference="the rule")
    phases = {p["id"]: p for p in got["phases"]}
    for p in want["phases"]:
        if not (p["memory_bytes"] or p["read_bytes"] or p["write_bytes"]):
            continue
        mine = phases.get(p["id"])
        if mine is None:
            problems.append(f"phase {p['id']} ({p['label']}) is missing from --plan")
            continue
        check(f"phase {p['id']} memory", mine["memory_bytes"], p["memory_bytes"])
        check(f"phase {p['id']} read", mine["read_bytes"], p["read_bytes"], exact=False)
        check(f"phase {p['id']} write", mine["write_bytes"], p["write_bytes"], exact=False)
    nodes = {n["id"]: n for n in got["nodes"]}
    for n in want["nodes"]:
        mine = nodes.pop(n["id"], None)
        if mine is None:
            if n["memory_bytes"] or n["read_bytes"] or n["write_bytes"]:
                problems.append(f"node n{n['id']} ({n['name']}) is missing from --plan")
            continue
        check(f"n{n['id']} name", mine["name"], n["name"])
        check(f"n{n['id']} memory", mine["memory_bytes"], n["memory_bytes"])
        check(f"n{n['id']} read", mine["read_bytes"], n["read_bytes"], exact=False)
        check(f"n{n['id']} write", mine["write_bytes"], n["write_bytes"], exact=False)
        if "queue" in n:
            check(f"n{n['id']} queue", mine.get("queue"), n["queue"])
    for n in nodes.values():
        problems.append(f"--plan has node n{n['id']} ({n['name']}) that explain does not")
    check("total read", got["total"]["read_bytes"], want["total"]["read_bytes"], exact=False)
    check("total write", got["total"]["write_bytes"], want["total"]["write_bytes"], exact=False)
    kinds = {n["kind"] for n in want["nodes"] if n["memory_bytes"]}
    return problems, kinds


def main():
    program, flowc, script, cases = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    failed = False
    for case in cases:
        problems, kinds = compare(program, flowc, script, case)
        print(f"{case}: {'same plan' if not problems else 'DIFFERENT'} ({', '.join(sorted(kinds))})")
        for p in problems:
            print("  " + p)
        failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


main()
