"""Recomputes examples/orders_report.flow's report from the text files with Python.
Usage: orders_check.py DIR (customers.txt, orders.txt, report.txt in DIR)"""
import os
import sys
from collections import defaultdict

d = sys.argv[1]
nation = {}
for line in open(os.path.join(d, "customers.txt")):
    cid, n = line.split()
    nation[int(cid)] = int(n)
orders, amount = defaultdict(int), defaultdict(int)
for line in open(os.path.join(d, "orders.txt")):
    _, cust, amt = line.split()
    if int(cust) in nation:
        orders[nation[int(cust)]] += 1
        amount[nation[int(cust)]] += int(amt)
want = "".join(f"{n} {orders[n]} {amount[n]}\n" for n in sorted(orders))
got = open(os.path.join(d, "report.txt")).read()
assert got == want, f"report differs:\n{got[:300]}\nexpected:\n{want[:300]}"
print(f"report: {len(orders)} nations, {sum(orders.values())} orders match")
