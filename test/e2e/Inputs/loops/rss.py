"""rss.py SHORT.json LONG.json BUDGET_MIB: the --stats=json of a short and a long run of
the same loop. The long run's resident peak stays within the budget plus the documented
overhead (docs/language.md: 8 MiB) and within 2 MiB of the short run's (measured: it
settles about 1 MiB above it, malloc's caches, and stays there: 3000 rounds hold no more
than 1000)."""
import json
import sys


def load(path):
    text = open(path).read()
    return json.loads(text[text.index('{'):text.rindex('}') + 1])


short, long_, budget = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]) << 20
mib = 1 << 20
if long_['rss_peak_bytes'] > budget + 8 * mib:
    sys.exit('resident peak %.1f MiB, more than the budget + 8 MiB' % (long_['rss_peak_bytes'] / mib))
if long_['rss_peak_bytes'] > short['rss_peak_bytes'] + 2 * mib:
    sys.exit('resident peak grew from %.1f MiB to %.1f MiB over the rounds' %
             (short['rss_peak_bytes'] / mib, long_['rss_peak_bytes'] / mib))
runs = [p['runs'] for p in long_['phases'] if 'v = ' in p['label']]
if not runs or max(runs) != 1000:
    sys.exit('the refill phase ran %s times, not 1000' % runs)
print('resident peak %.1f MiB after 10 rounds, %.1f MiB after 1000' %
      (short['rss_peak_bytes'] / mib, long_['rss_peak_bytes'] / mib))
