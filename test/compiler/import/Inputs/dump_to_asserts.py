"""Turns flow-import-dump output into a C++ file of static_asserts on the layout the
import reported (sizeof, alignof, offsetof, trivially copyable, aggregate), so a RUN line
can check it against the C++ compiler:  dump_to_asserts.py DUMP > t.cpp"""
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
header = lines[0].split(" ", 1)[1]
print('#include "%s"' % header)
print("#include <cstddef>\n#include <type_traits>")
record = None
for line in lines[1:]:
    m = re.match(r"record (\S+) size (\d+) align (\d+) (\S+)( aggregate)? @", line)
    if m:
        record, size, align, copyable, aggregate = m.groups()
        print("static_assert(sizeof(%s) == %s);" % (record, size))
        print("static_assert(alignof(%s) == %s);" % (record, align))
        print("static_assert(%sstd::is_trivially_copyable_v<%s>);" % ("" if copyable == "trivially-copyable" else "!", record))
        print("static_assert(%sstd::is_aggregate_v<%s>);" % ("" if aggregate else "!", record))
        continue
    m = re.match(r"  field (\S+): (.*) offset (\d+)( private)? @", line)
    if m:
        name, type_, offset, private = m.groups()
        # offsetof cannot name a private member, a bit-field or an anonymous union.
        if private or name == "<anonymous>" or re.match(r"unsupported '.* : \d+'$", type_):
            continue
        print("static_assert(offsetof(%s, %s) == %s);" % (record, name, offset))
        continue
    if not line.startswith(("  because", "function", "comparator")):
        sys.exit("unexpected line: " + line)
