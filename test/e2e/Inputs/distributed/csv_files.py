#!/usr/bin/env python3
"""Writes the CSV inputs of distributed_csv.test into the current folder and prints what
Python's csv module reads from them (the records, the sum of their amounts):
table.csv: a header (after a byte order mark), records whose quoted fields hold line
breaks (also CRLF), separators, doubled quotes and lines that look like records or start
with a quote; unquoted fields with a quote inside (a byte, as most readers take it);
CRLF and LF line ends, blank lines, no newline at the end. plain.tsv: the same shapes
without a header, tab-separated. header_only.csv, one.csv: tiny files for 4 ranks.
bad.csv: a value that is no number in the last quarter of the file."""
import csv
import io
import random

random.seed(31)


def note(i):
    kind = i % 11
    if kind == 0:
        return 'two\nlines'
    if kind == 1:
        return '"quoted" and, comma'
    if kind == 2:
        return '\n7,fake,"record",1\n"starts with a quote'
    if kind == 3:
        return 'crlf\r\ninside'
    if kind == 4:
        return ''
    if kind in (5, 6):  # lines that look like records: most of the file's bytes are in quotes
        return '\n'.join(f'{k},ann,"x",{k}' for k in range(random.randrange(0, 12)))
    return random.choice(['plain', 'a b c', 'tab\there', 'end"quote'])


def quoted(value, sep):
    if value == '' or value.startswith('"') or any(c in value for c in (sep, '\n', '\r')):
        return '"' + value.replace('"', '""') + '"'
    return value  # a quote inside stays as it is


def table(count, sep, header, bad=None):
    rows, text = [], []
    if header:
        text.append(sep.join(['id', 'name', 'note', 'amount']) + '\n')
    for i in range(count):
        row = [str(i), random.choice(['ann', 'bo"b', 'cy', 'd e']), note(i), str(random.randrange(10**9))]
        if i == bad:  # its line: after the lines of the records before it
            row[0] = '12x'
            open('bad_line.txt', 'w').write(f'bad.csv:{"".join(text).count(chr(10)) + 1}: column \'id\'\n')
        rows.append(row)
        text.append(sep.join(quoted(v, sep) for v in row) + ('\r\n' if i % 5 == 0 else '\n'))
        if i % 97 == 0:
            text.append('\n')  # a blank line
    return rows, ''.join(text).rstrip('\n')  # no newline at the end


rows, text = table(30000, ',', True)
open('table.csv', 'w', newline='').write('\ufeff' + text)
read = [r for r in csv.reader(io.StringIO(text, newline=''), strict=False) if r][1:]
assert read == [r for r in rows], 'the generator quotes as csv reads'
print(f'table.csv: {len(read)} records, amounts {sum(int(r[3]) for r in read)}')

rows, text = table(20000, '\t', False)
open('plain.tsv', 'w', newline='').write(text + '\n')
read = [r for r in csv.reader(io.StringIO(text, newline=''), delimiter='\t', strict=False) if r]
assert read == rows
print(f'plain.tsv: {len(read)} records, amounts {sum(int(r[3]) for r in read)}')

open('header_only.csv', 'w').write('id,name,note,amount\n')
open('one.csv', 'w').write('id,name,note,amount\n1,"a\nb",c,5')
bad_rows, text = table(30000, ',', True, bad=27000)
open('bad.csv', 'w', newline='').write(text)
