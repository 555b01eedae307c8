#!/usr/bin/env python3
"""Compares the bytes the ranks sent (--stats=json:STATS) with flowc explain --ranks P
--format json's estimate (PLAN): within 2% for a sort of keys spread evenly.

  network_check.py PLAN STATS"""
import json
import sys

plan = json.load(open(sys.argv[1]))
stats = json.load(open(sys.argv[2]))
estimate = sum(n.get("network_bytes", 0) for n in plan["nodes"])
measured = stats["network_bytes"]
spread = [n["name"] for n in plan["nodes"] if n.get("spread")]
print(f"{stats['ranks']} ranks sent {measured} bytes; estimated {estimate:.0f}; spread: {', '.join(spread)}")
if not estimate or abs(measured - estimate) > 0.02 * estimate:
    sys.exit("the network estimate is off by more than 2%")
print("within 2%")
