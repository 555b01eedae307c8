"""Helpers of bench/run's group row: the input data, the reference answers, DuckDB's side
and the reading of Flow's --stats=json. Needs numpy and duckdb (bench/run installs them
into a venv). Every command prints at most one 'RESULT k=v ...' line on stdout.

  group.py gen DIR keys LOG_N LOG_DISTINCT        keys.bin (u64) + ref_counts.npy
  group.py gen DIR join LOG_ORDERS LOG_CUSTOMERS  orders.bin, customers.bin + ref_nations.npy
  group.py duck-load DIR keys|join                tables in DIR/duck-keys.db or duck-join.db (not timed)
  group.py duck-query DIR keys|join MEMORY        time the GROUP BY / JOIN + GROUP BY
  group.py flow-result DIR keys|join STATS OUT    Flow's time and I/O, its output checked
"""
import json
import os
import sys
import time

import numpy as np

KC = np.dtype([('key', '<u8'), ('count', '<u8')])
ORDER = np.dtype([('cust', '<u4'), ('amount', '<u8')], align=True)       # 16 bytes, as Flow
CUSTOMER = np.dtype([('id', '<u4'), ('nation', '<u2')], align=True)      # 8 bytes, as Flow
NS = np.dtype([('nation', '<u2'), ('amount', '<u8')], align=True)        # 16 bytes, as Flow
NATIONS = 25
CHUNK = 1 << 24
# DuckDB runs on the CPUs available to this process, as Flow's default --threads does
# (bench/run's rows at 2 cores on a bigger machine run under taskset).
THREADS = len(os.sched_getaffinity(0))
MUL, ADD = np.uint64(0x9E3779B97F4A7C15), np.uint64(0x632BE59BD9B4E019)


def gen_keys(d, log_n, log_distinct):
    """2^log_n keys drawn uniformly from 2^log_distinct values spread over u64 (an odd
    multiplier is a bijection, so the values stay distinct)."""
    rng = np.random.default_rng(27)
    n, distinct = 1 << log_n, 1 << log_distinct
    counts = np.zeros(distinct, dtype=np.int64)
    with open(os.path.join(d, 'keys.bin'), 'wb') as f:
        for start in range(0, n, CHUNK):
            r = rng.integers(0, distinct, min(CHUNK, n - start), dtype=np.uint64)
            counts += np.bincount(r.astype(np.int64), minlength=distinct)
            (r * MUL + ADD).tofile(f)
    ref = np.zeros(distinct, dtype=KC)
    ref['key'] = np.arange(distinct, dtype=np.uint64) * MUL + ADD
    ref['count'] = counts
    ref = ref[ref['count'] > 0]
    np.save(os.path.join(d, 'ref_counts.npy'), np.sort(ref, order='key'))


def gen_join(d, log_orders, log_customers):
    """Customers 0..2^c-1 in random order, each in one of 25 nations; orders of random
    customers with amounts below 2^32 (so every sum fits in u64)."""
    rng = np.random.default_rng(26)
    n_orders, n_cust = 1 << log_orders, 1 << log_customers
    nation_of = rng.integers(0, NATIONS, n_cust, dtype=np.uint16)
    cust = np.zeros(n_cust, dtype=CUSTOMER)
    cust['id'] = rng.permutation(n_cust).astype(np.uint32)
    cust['nation'] = nation_of[cust['id']]
    cust.tofile(os.path.join(d, 'customers.bin'))
    lo, hi = np.zeros(NATIONS), np.zeros(NATIONS)   # exact: each part sums below 2^53
    with open(os.path.join(d, 'orders.bin'), 'wb') as f:
        for start in range(0, n_orders, CHUNK):
            o = np.zeros(min(CHUNK, n_orders - start), dtype=ORDER)
            o['cust'] = rng.integers(0, n_cust, len(o), dtype=np.uint32)
            o['amount'] = rng.integers(0, 1 << 32, len(o), dtype=np.uint64)
            nat = nation_of[o['cust']]
            lo += np.bincount(nat, weights=(o['amount'] & 0xFFFF).astype(np.float64), minlength=NATIONS)
            hi += np.bincount(nat, weights=(o['amount'] >> 16).astype(np.float64), minlength=NATIONS)
            o.tofile(f)
    sums = hi.astype(np.uint64) * np.uint64(1 << 16) + lo.astype(np.uint64)
    ref = np.zeros(NATIONS, dtype=NS)
    ref['nation'] = np.arange(NATIONS)
    ref['amount'] = sums
    np.save(os.path.join(d, 'ref_nations.npy'), ref)


def check(d, what, got_key, got_val):
    """Whether (key, value) pairs, in any order, are the reference answer."""
    ref = np.load(os.path.join(d, 'ref_counts.npy' if what == 'keys' else 'ref_nations.npy'))
    kf, vf = ('key', 'count') if what == 'keys' else ('nation', 'amount')
    ref = ref[ref[vf] > 0] if what == 'join' else ref
    idx = np.argsort(got_key, kind='stable')
    got_key, got_val = np.asarray(got_key)[idx], np.asarray(got_val)[idx]
    ok = (len(got_key) == len(ref) and np.array_equal(got_key.astype(np.uint64), ref[kf].astype(np.uint64))
          and np.array_equal(got_val.astype(np.uint64), ref[vf].astype(np.uint64)))
    return ok, len(got_key), int(np.sum(got_val.astype(np.uint64), dtype=np.uint64))


def duck_load(d, what):
    import duckdb
    path = os.path.join(d, f'duck-{what}.db')
    if os.path.exists(path):
        os.remove(path)
    con = duckdb.connect(path)
    con.execute(f"SET threads={THREADS}")
    if what == 'keys':
        keys_np = {'key': np.fromfile(os.path.join(d, 'keys.bin'), dtype='<u8')}  # noqa: F841 (scanned by name)
        con.execute("CREATE TABLE keys AS SELECT key FROM keys_np")
    else:
        o = np.fromfile(os.path.join(d, 'orders.bin'), dtype=ORDER)
        c = np.fromfile(os.path.join(d, 'customers.bin'), dtype=CUSTOMER)
        orders_np = {'cust': np.ascontiguousarray(o['cust']), 'amount': np.ascontiguousarray(o['amount'])}  # noqa: F841
        customers_np = {'id': np.ascontiguousarray(c['id']), 'nation': np.ascontiguousarray(c['nation'])}  # noqa: F841
        con.execute("CREATE TABLE orders AS SELECT cust, amount FROM orders_np")
        con.execute("CREATE TABLE customers AS SELECT id, nation FROM customers_np")
    con.execute("CHECKPOINT")
    con.close()


def proc_io():
    io = dict(line.split(': ') for line in open('/proc/self/io').read().splitlines())
    return int(io['read_bytes']), int(io['write_bytes'])


def duck_query(d, what, memory):
    import duckdb
    con = duckdb.connect(os.path.join(d, f'duck-{what}.db'))
    tmp = os.path.join(d, 'duck.tmp')
    con.execute(f"SET memory_limit='{memory}'")
    con.execute(f"SET threads={THREADS}")
    con.execute(f"SET temp_directory='{tmp}'")
    con.execute("SET preserve_insertion_order=false")
    sql = ("SELECT key, count(*) AS n FROM keys GROUP BY key" if what == 'keys' else
           "SELECT c.nation AS k, sum(o.amount)::UBIGINT AS n FROM orders o JOIN customers c ON o.cust = c.id "
           "GROUP BY c.nation")
    r0, w0 = proc_io()
    t0 = time.perf_counter()
    error = ''
    try:
        res = con.execute(sql).fetchnumpy()
    except duckdb.Error as e:
        error = ('out-of-memory:' if isinstance(e, duckdb.OutOfMemoryException) else 'error:') + \
            str(e).splitlines()[0].replace(' ', '_')[:120]
    seconds = time.perf_counter() - t0
    r1, w1 = proc_io()
    if error:
        print(f"RESULT lib=duckdb ok=0 seconds={seconds:.3f} read_bytes={r1 - r0} write_bytes={w1 - w0} "
              f"scratch_bytes=0 groups=0 total=0 strategy=- error={error}")
        return
    keys = res['key'] if what == 'keys' else res['k']
    ok, groups, total = check(d, what, keys, res['n'])
    print(f"RESULT lib=duckdb ok={int(ok)} seconds={seconds:.3f} read_bytes={r1 - r0} write_bytes={w1 - w0} "
          f"scratch_bytes=0 groups={groups} total={total} strategy=-")


def flow_result(d, what, stats_path, out, strategy):
    s = json.load(open(stats_path))
    got = np.fromfile(os.path.join(d, out), dtype=KC if what == 'keys' else NS)
    kf, vf = ('key', 'count') if what == 'keys' else ('nation', 'amount')
    ok, groups, total = check(d, what, got[kf], got[vf])
    ok = ok and s['status'] == 'ok'
    # The temporary disk's bytes (sort runs, spills) apart from the input and output files.
    scratch = sum(x['read_bytes'] + x['write_bytes'] for x in s['disks'] if not x['path'].endswith('.bin'))
    print(f"RESULT lib=flow ok={int(ok)} seconds={s['wall_seconds']:.3f} read_bytes={s['read_bytes']} "
          f"write_bytes={s['write_bytes']} scratch_bytes={scratch} groups={groups} total={total} "
          f"strategy={strategy}")


def main(argv):
    cmd, d, what = argv[1], argv[2], argv[3]
    if cmd == 'gen':
        (gen_keys if what == 'keys' else gen_join)(d, int(argv[4]), int(argv[5]))
    elif cmd == 'duck-load':
        duck_load(d, what)
    elif cmd == 'duck-query':
        duck_query(d, what, argv[4])
    elif cmd == 'flow-result':
        flow_result(d, what, argv[4], argv[5], argv[6])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == '__main__':
    main(sys.argv)
