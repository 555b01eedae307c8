"""check_budget.py STATS.json BUDGET_MIB IN.bin SORTED.bin IN.txt SORTED.txt: the run of
Inputs/memory/budget.flow kept its buffers within the budget and its resident memory
within the budget plus the documented fixed overhead (docs/runtime.md, "Memory": 8 MiB),
planned the sort of in.bin (read without `~ N`) for the file's size, and lost nothing:
both outputs are their inputs sorted."""
import array
import json
import sys

stats_path, budget_mib, in_bin, sorted_bin, in_txt, sorted_txt = sys.argv[1:]
mib = 1 << 20
budget = int(budget_mib) * mib
text = open(stats_path).read()
stats = json.loads(text[text.index('{'):text.rindex('}') + 1])
problems = []
if stats['status'] != 'ok':
    problems.append('status %s' % stats['status'])
if stats['buffer_peak_bytes'] > budget:
    problems.append('buffer peak %.2f MiB, more than the budget %s MiB' % (stats['buffer_peak_bytes'] / mib, budget_mib))
if stats['rss_peak_bytes'] > budget + 8 * mib:
    problems.append('resident peak %.1f MiB, more than the budget + 8 MiB' % (stats['rss_peak_bytes'] / mib))
# The sort's run formation reads in.bin: its estimate is the file's size, not 0 (no `~`).
data = open(in_bin, 'rb').read()
first = stats['phases'][0]
if first['estimate'] is None or first['estimate']['read_bytes'] != len(data):
    problems.append('phase 1 estimated to read %s bytes, the file has %d' % (first['estimate'], len(data)))
numbers = array.array('Q')
numbers.frombytes(data)
result = array.array('Q')
result.frombytes(open(sorted_bin, 'rb').read())
if list(result) != sorted(numbers):
    problems.append('%s is not %s sorted (%d of %d elements)' % (sorted_bin, in_bin, len(result), len(numbers)))
lines = [int(x) for x in open(in_txt).read().split()]
out = [int(x) for x in open(sorted_txt).read().split()]
if out != sorted(lines):
    problems.append('%s is not %s sorted (%d of %d lines)' % (sorted_txt, in_txt, len(out), len(lines)))
if problems:
    sys.exit('; '.join(problems))
print('budget %s MiB: buffer peak %.2f MiB, resident peak %.1f MiB' %
      (budget_mib, stats['buffer_peak_bytes'] / mib, stats['rss_peak_bytes'] / mib))
