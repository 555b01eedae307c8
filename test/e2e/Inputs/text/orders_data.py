"""Rows for text_sort_orders.test and each order's answer by Python's sort.

    orders_data.py DIR   DIR/rows.csv (name,city,n: names with long common prefixes,
                         of every length from 0 to 60 bytes, cities that are prefixes
                         of one another, UTF-8, many ties) and DIR/expected_<order>.txt
"""
import functools
import os
import random
import sys

random.seed(31)
d = sys.argv[1]
stems = ["customer-account-number-", "customer-account-", "custom", "", "zz", "é-accent-", "customer-account-number-9"]
cities = ["San", "San ", "San Jose", "San Josef", "Santa", "", "Zürich", "Sankt Gallen and a much longer name"]
rows = []
for i in range(6000):
    name = random.choice(stems) + "".join(random.choice("ab") for _ in range(random.randrange(0, 12)))
    name = name[:60]
    rows.append((name, random.choice(cities), random.randrange(0, 40) * (2 ** random.choice([0, 20, 40]))))
with open(os.path.join(d, "rows.csv"), "w", encoding="utf-8", newline="") as f:
    f.write("name,city,n\n")
    for name, city, n in rows:
        f.write(f"{name},{city},{n}\n")


def order(*keys):
    """keys: (field index, descending); bytes compared as str does (UTF-8, bytewise)."""
    def cmp(a, b):
        for i, desc in keys:
            x, y = a[i], b[i]
            if isinstance(x, str):
                x, y = x.encode(), y.encode()
            if x != y:
                return (1 if x < y else -1) if desc else (-1 if x < y else 1)
        return 0
    return functools.cmp_to_key(cmp)


orders = {
    "by_name_city": order((0, False), (1, False), (2, False)),
    "by_name_desc_n": order((0, True), (2, True), (1, False)),
    "by_n_name": order((2, False), (0, False), (1, False)),
    "by_city_name": order((1, False), (0, True), (2, False)),
}
for name, key in orders.items():
    with open(os.path.join(d, f"expected_{name}.txt"), "w", encoding="utf-8", newline="") as f:
        for r in sorted(rows, key=key):
            f.write(f"{r[0]},{r[1]},{r[2]}\n")
