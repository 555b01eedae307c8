"""Checks examples/csv_report.flow's report against Python's csv module.

Usage: csv_report_check.py SALES REPORT: REPORT must be the header
`country,amount,customers` and, per country in bytewise order, the sum of the amounts
and the number of distinct users of SALES, as Python's csv writer quotes them."""
import collections
import csv
import io
import sys

sales, report = sys.argv[1], sys.argv[2]
amount = collections.Counter()
users = collections.defaultdict(set)
with open(sales, newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        amount[row["country"]] += int(row["amount"])
        users[row["country"]].add(row["user"])
out = io.StringIO()
w = csv.writer(out, lineterminator="\n")
w.writerow(["country", "amount", "customers"])
for c in sorted(amount, key=lambda c: c.encode()):
    w.writerow([c, amount[c], len(users[c])])
got = open(report, newline="", encoding="utf-8").read()
if got != out.getvalue():
    sys.exit("csv_report: the report differs from Python's:\n%r\n%r" % (got[:300], out.getvalue()[:300]))
print("csv_report: %d countries, %d sales match" % (len(amount), sum(1 for _ in open(sales)) - 1))
