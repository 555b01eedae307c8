import json, os, sys
plan = json.load(sys.stdin)
physical = os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE')
want = int(physical * 25 / 100) // 1024 * 1024
if plan['memory_bytes'] != want:
    sys.exit(f"memory_bytes {plan['memory_bytes']}, want a quarter of {physical}: {want}")
