"""Turns `flowc check --dump-types` output into C++ structs with static_asserts on
sizeof, alignof and offsetof, so the C++ compiler confirms the layouts Flow computed.
Imported records are skipped (their layout is Clang's own). Usage: layout_to_cpp.py DUMP"""
import re
import sys

SCALARS = {"bool": "bool", "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
           "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "f32": "float", "f64": "double"}


def cpp_type(t):
    m = re.fullmatch(r"\[(.*); (\d+)\]", t)
    if m:
        return f"std::array<{cpp_type(m.group(1))}, {m.group(2)}>"
    return SCALARS.get(t, t)


records, current = [], None
for line in open(sys.argv[1]):
    m = re.match(r"record (\w+): size (\d+), align (\d+)$", line.rstrip())
    if m:
        current = {"name": m.group(1), "size": m.group(2), "align": m.group(3), "fields": []}
        records.append(current)
        continue
    m = re.match(r"  field (\w+): (.*), offset (\d+)$", line.rstrip())
    if m and current is not None:
        current["fields"].append((m.group(1), m.group(2), m.group(3)))
        continue
    current = None

if not records:
    sys.exit("no records in the dump")
print("#include <array>\n#include <cstddef>\n#include <cstdint>\n")
for r in records:
    print(f"struct {r['name']} {{")
    for name, t, _ in r["fields"]:
        print(f"  {cpp_type(t)} {name};")
    print("};")
    print(f"static_assert(sizeof({r['name']}) == {r['size']}, \"size of {r['name']}\");")
    print(f"static_assert(alignof({r['name']}) == {r['align']}, \"alignment of {r['name']}\");")
    for name, _, offset in r["fields"]:
        print(f"static_assert(offsetof({r['name']}, {name}) == {offset}, \"offset of {r['name']}.{name}\");")
    print()
