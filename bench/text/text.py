"""Helpers of bench/run's text row: the input files, the baselines (GNU sort and tr with
LC_ALL=C, DuckDB) and a digest of each side's answer, so that bench/run can check that
the sides agree. Every command but gen prints one 'RESULT k=v ...' line on stdout.

  text.py gen DIR MIB            lines.txt (lines of 20 to 60 bytes), words.txt (a text
                                 wrapped at 60 columns) and sales.csv (date,user,country,amount; quoted fields),
                                 each about MIB MiB
  text.py gnu-sort DIR MEMORY    LC_ALL=C sort -u -S MEMORY --parallel=THREADS lines.txt
  text.py gnu-words DIR          tr -cs 'A-Za-z0-9' '\\n' | tr A-Z a-z | sort | uniq -c |
                                 sort -rn | head -50 of words.txt (sort with -S 256M and
                                 --parallel=THREADS)
  text.py duck-words DIR MEMORY  the same 50 words by DuckDB (regexp_split_to_table +
                                 GROUP BY), memory_limit MEMORY
  text.py duck-csv DIR MEMORY    DuckDB's read_csv + GROUP BY country: sum(amount),
                                 count(DISTINCT user)
  text.py digest DIR what FILE   the digest of Flow's answer in FILE (what: sort, words, csv)
"""
import csv
import hashlib
import io
import os
import random
import subprocess
import sys
import time

THREADS = len(os.sched_getaffinity(0))
WORDS = ['the', 'of', 'and', 'a', 'to', 'in', 'is', 'you', 'that', 'it', 'he', 'was', 'for', 'on', 'are',
         'as', 'with', 'his', 'they', 'I', 'at', 'be', 'this', 'have', 'from', 'Flow', 'STXXL', 'sort']


def gen(d, mib):
    rnd = random.Random(29)
    target = mib << 20
    # Lines of 20 to 60 bytes with many duplicates (a log: a few hundred thousand kinds).
    with open(os.path.join(d, 'lines.txt'), 'w') as f:
        size, kinds = 0, max(1000, target // 400)
        while size < target:
            k = rnd.randrange(kinds)
            line = f'{["GET", "POST", "PUT"][k % 3]} /item/{k * 2654435761 % 10**9} {200 + k % 5} ' \
                   f'{"x" * (k % 23)}'[:60]
            f.write(line + '\n')
            size += len(line) + 1
    # A text wrapped at 60 columns: common words, a Zipf-like tail and punctuation.
    with open(os.path.join(d, 'words.txt'), 'w') as f:
        size, line = 0, ''
        while size < target:
            w = rnd.choice(WORDS) if rnd.random() < 0.6 else f'w{int(rnd.paretovariate(0.8)) % 1000003}'
            w += rnd.choice(['', '', ',', '.', ';'])
            if len(line) + 1 + len(w) > 60:
                f.write(line + '\n')
                size += len(line) + 1
                line = ''
            line = f'{line} {w}' if line else w
    # Sales: a header, then date,user,country,amount; some countries quoted (commas).
    countries = [f'country {i}' for i in range(200)] + ['Korea, Republic of', 'Congo, "DRC"', 'Côte d\'Ivoire']
    with open(os.path.join(d, 'sales.csv'), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['date', 'user', 'country', 'amount'])
        size = 0
        buf = io.StringIO()
        bw = csv.writer(buf, lineterminator='\n')
        while size < target:
            for _ in range(10000):
                bw.writerow([f'2026-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}', f'u{rnd.randrange(2_000_000)}',
                             rnd.choice(countries), rnd.randrange(100000)])
            chunk = buf.getvalue()
            f.write(chunk)
            size += len(chunk.encode())
            buf.seek(0)
            buf.truncate()


def digest(lines):
    h = hashlib.sha256()
    for line in lines:
        h.update(line if isinstance(line, bytes) else line.encode())
        h.update(b'\n')
    return h.hexdigest()[:16]


def timed(cmd, **kw):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, **kw)
    return time.perf_counter() - t0


def words_digest(pairs):
    """The top 50 as (count, word), by count descending then word ascending: the order
    both sides agree on (uniq -c | sort -rn leaves ties in any order)."""
    top = sorted(pairs, key=lambda p: (-p[0], p[1]))[:50]
    return digest(b'%d %s' % (n, w) for n, w in top)


def result(**kv):
    print('RESULT ' + ' '.join(f'{k}={v}' for k, v in kv.items()))


def main(argv):
    cmd, d = argv[1], argv[2]
    env = dict(os.environ, LC_ALL='C')
    if cmd == 'gen':
        gen(d, int(argv[3]))
    elif cmd == 'gnu-sort':
        out = os.path.join(d, 'gnu_sorted.txt')
        s = timed(['sort', '-u', '-S', argv[3], f'--parallel={THREADS}', '-T', d, os.path.join(d, 'lines.txt'),
                   '-o', out], env=env)
        result(seconds=f'{s:.3f}', digest=digest(open(out, 'rb').read().splitlines()))
    elif cmd == 'gnu-words':
        out = os.path.join(d, 'gnu_words.txt')
        pipe = (f"tr -cs 'A-Za-z0-9' '\\n' < {d}/words.txt | tr A-Z a-z | sort -S 256M --parallel={THREADS} "
                f"-T {d} | uniq -c | sort -rn -S 256M -T {d} | head -200 > {out}")
        s = timed(['bash', '-c', pipe], env=env)
        pairs = []
        for line in open(out, 'rb'):
            n, _, w = line.strip().partition(b' ')
            if w:
                pairs.append((int(n), w))
        result(seconds=f'{s:.3f}', digest=words_digest(pairs))
    elif cmd in ('duck-words', 'duck-csv'):
        import duckdb
        con = duckdb.connect()
        con.execute(f"SET memory_limit='{argv[3]}'")
        con.execute(f"SET threads={THREADS}")
        con.execute(f"SET temp_directory='{d}/duck.tmp'")
        con.execute("SET preserve_insertion_order=false")
        t0 = time.perf_counter()
        if cmd == 'duck-words':
            rows = con.execute(
                f"SELECT w, count(*) AS n FROM (SELECT unnest(regexp_split_to_array(lower(line), '[^a-z0-9]+')) AS w "
                f"FROM read_csv('{d}/words.txt', columns={{'line': 'VARCHAR'}}, header=false, delim=E'\\x01', "
                f"quote='', escape='')) WHERE w <> '' GROUP BY w ORDER BY n DESC, w LIMIT 50").fetchall()
            s = time.perf_counter() - t0
            result(seconds=f'{s:.3f}', digest=words_digest((n, w.encode()) for w, n in rows))
        else:
            rows = con.execute(
                f"SELECT country, sum(amount)::UBIGINT, count(DISTINCT \"user\") FROM read_csv('{d}/sales.csv', "
                f"header=true, columns={{'date': 'VARCHAR', 'user': 'VARCHAR', 'country': 'VARCHAR', "
                f"'amount': 'UBIGINT'}}) GROUP BY country").fetchall()
            s = time.perf_counter() - t0
            rows.sort(key=lambda r: r[0].encode())
            result(seconds=f'{s:.3f}', digest=digest(f'{c}|{a}|{u}' for c, a, u in rows))
    elif cmd == 'digest':
        what, path = argv[3], argv[4]
        if what == 'sort':
            result(digest=digest(open(path, 'rb').read().splitlines()))
        elif what == 'words':
            result(digest=words_digest((int(n), w) for n, _, w in
                                       (line.rstrip(b'\n').partition(b' ') for line in open(path, 'rb'))))
        else:
            with open(path, newline='', encoding='utf-8') as f:
                rows = [(r['country'], r['amount'], r['users']) for r in csv.DictReader(f)]
            rows.sort(key=lambda r: r[0].encode())
            result(digest=digest(f'{c}|{a}|{u}' for c, a, u in rows))
    else:
        sys.exit(f'unknown command {cmd}')


if __name__ == '__main__':
    main(sys.argv)
