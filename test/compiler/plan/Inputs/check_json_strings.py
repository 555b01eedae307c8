"""Runs `flowc explain --format json` on a copy of a script under an awkward name, with
an awkward path param, and checks that the output parses as strict UTF-8 JSON and gives
both names back (bytes that are not UTF-8 as U+FFFD); then that `flowc emit` quotes the
param as a C++ literal holding exactly its bytes. argv: flowc, script, scratch folder."""
import json
import os
import shutil
import subprocess
import sys

flowc, script, scratch = sys.argv[1], sys.argv[2], os.fsencode(sys.argv[3])
awkward = b'q"b\\s\tn\nc\x01\x1f d\x7f \xc3\xa9 \xff'  # quote, backslash, controls, é, a stray byte
shown = 'q"b\\s\tn\nc\x01\x1f d\x7f \u00e9 \ufffd'    # what JSON must give back

copy = os.path.join(scratch, awkward + b".flow")
shutil.copyfile(script, copy)
out = subprocess.run([os.fsencode(flowc), b"explain", copy, b"--format", b"json", b"--set", b"input=" + awkward],
                     check=True, stdout=subprocess.PIPE).stdout
plan = json.loads(out.decode("utf-8"))  # strict: raises on bytes that are not UTF-8
assert plan["script"].endswith(shown + ".flow"), plan["script"]
assert plan["params"]["input"] == shown, plan["params"]
assert any(shown in n["name"] for n in plan["nodes"]), [n["name"] for n in plan["nodes"]]

emitted = subprocess.run([os.fsencode(flowc), b"emit", copy, b"-o", b"-", b"--set", b"input=" + awkward],
                         check=True, stdout=subprocess.PIPE).stdout
literal = b'std::string s_input = "q\\"b\\\\s\\tn\\nc\\001\\037 d\\177 \xc3\xa9 \\377";'
assert literal in emitted, [l for l in emitted.splitlines() if b"s_input =" in l]
print("json strings ok")
