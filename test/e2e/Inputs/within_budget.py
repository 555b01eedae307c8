"""within_budget.py STATS.json...: each run's --stats=json shows its counted buffers within
its --memory (buffer_peak_bytes <= memory_bytes) and its resident peak within the budget
plus the documented fixed overhead (docs/language.md: 8 MiB)."""
import json
import sys

mib = 1 << 20
for path in sys.argv[1:]:
    text = open(path).read()
    stats = json.loads(text[text.index('{'):text.rindex('}') + 1])
    budget = stats['memory_bytes']
    name = f"{stats['program']} at {budget / mib:.0f} MiB"
    if stats['buffer_peak_bytes'] > budget:
        sys.exit(f"{name}: buffers peaked at {stats['buffer_peak_bytes'] / mib:.2f} MiB, over the budget")
    if stats['rss_peak_bytes'] > budget + 8 * mib:
        sys.exit(f"{name}: resident peak {stats['rss_peak_bytes'] / mib:.1f} MiB, over the budget + 8 MiB")
    print(f"{name}: buffers {stats['buffer_peak_bytes'] / mib:.2f} MiB, resident {stats['rss_peak_bytes'] / mib:.1f} MiB")
print(f"{len(sys.argv) - 1} runs within budget")
