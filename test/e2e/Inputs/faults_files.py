"""The concurrent cases of faults_files.test: programs killed or signalled while they
work, two programs on one disk file or one output. Each case runs the program built from
faults_files.flow (sorts u64 numbers), asserts what must hold and prints one line of
facts that the test's FileCheck lines match. The program is held at a known point by
giving it a FIFO as input: it blocks reading it until this script writes and closes it.

Usage: faults_files.py CASE PROG   (run in the test's own directory)
       faults_files.py listing|data|big-data|show|mode FILE   (small file tools)
       faults_files.py sorted-of IN,OUT
"""
import errno
import fcntl
import os
import signal
import struct
import subprocess
import sys
import time

TIMEOUT = 30  # seconds any wait may take before the case fails (never reached when it passes)


def fail(message):
    sys.exit("FAIL: " + message)


def numbers(n, seed):
    """n u64 numbers in a scrambled order (a multiplicative hash of 0..n-1)."""
    return [(i * 0x9E3779B97F4A7C15 + seed) % (1 << 64) for i in range(n)]


def pack(values):
    return struct.pack("<%dQ" % len(values), *values)


def wait_until(what, predicate):
    deadline = time.monotonic() + TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            fail("timed out waiting until " + what)
        time.sleep(0.01)


def fresh_fifo(name):
    if os.path.lexists(name):
        os.unlink(name)
    os.mkfifo(name)
    return name


def open_fifo_writer(path, proc):
    """The writing end of FIFO `path` once `proc` has opened it for reading (fails if
    `proc` ends first, e.g. with an error, instead of waiting forever)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
        if proc.poll() is not None:
            fail("the program ended before it read %s: status %d, %s" % (path, proc.returncode, proc.stderr.read().decode()))
        if time.monotonic() > deadline:
            fail("timed out waiting for the program to open " + path)
        time.sleep(0.01)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return os.fdopen(fd, "wb")


def start(prog, *args):
    return subprocess.Popen([prog, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc):
    out, err = proc.communicate(timeout=TIMEOUT)
    return proc.returncode, err.decode()


def open_files(pid):
    """(path the link names, os.stat of the open file) of each descriptor of `pid`."""
    result = []
    fd_dir = "/proc/%d/fd" % pid
    for fd in os.listdir(fd_dir):
        try:
            result.append((os.readlink(os.path.join(fd_dir, fd)), os.stat(os.path.join(fd_dir, fd))))
        except OSError:
            pass  # closed meanwhile
    return result


def holds_lock(pid):
    with open("/proc/locks") as f:
        return any(line.split()[4] == str(pid) for line in f if len(line.split()) > 4)


def kill_mid_sort(prog):
    """SIGKILL while a sort has runs on a temporary disk: its directory holds nothing after."""
    os.makedirs("disk", exist_ok=True)
    fifo = fresh_fifo("kill.fifo")
    proc = start(prog, "--input", fifo, "--output", "killed.bin", "--disk", "disk", "--memory", "2MiB",
                 "--block", "64KiB")
    data = pack(numbers(1 << 20, 1))  # 8 MiB: runs of the 2 MiB budget go to disk
    writer = open_fifo_writer(fifo, proc)
    writer.write(data)
    writer.flush()
    disk = os.path.abspath("disk") + "/"
    # The disk file is open (already unlinked: "(deleted)") and holds runs.
    spilled = lambda: [(p, st) for p, st in open_files(proc.pid) if p.startswith(disk) and st.st_size > 0]
    wait_until("the sort writes runs to its disk", lambda: spilled())
    path, st = spilled()[0]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    try:
        writer.close()
    except BrokenPipeError:
        pass  # the reader is gone
    left = os.listdir("disk")
    print("kill-mid-sort: status %d, disk file %s mode %o with %d bytes while running, %d files left in disk/" %
          (proc.returncode, "deleted" if path.endswith(" (deleted)") else "NAMED", st.st_mode & 0o777,
           st.st_size, len(left)))
    if proc.returncode != -signal.SIGKILL or left:
        fail("left %r" % left)


def disk_lock(prog):
    """A second program given the disk file another program holds stops, never writes it."""
    marker = b"the user's disk file\n" * 200
    with open("shared.disk", "wb") as f:
        f.write(marker)
    fifo = fresh_fifo("lock.fifo")
    first = start(prog, "--input", fifo, "--output", "first.bin", "--disk", "shared.disk")
    wait_until("the first program locks its disk", lambda: holds_lock(first.pid))
    with open("in.bin", "wb") as f:
        f.write(pack(numbers(1000, 2)))
    second = start(prog, "--input", "in.bin", "--output", "second.bin", "--disk", "shared.disk")
    status, err = finish(second)
    sys.stdout.write(err.replace(str(first.pid), "FIRST_PID"))
    with open("shared.disk", "rb") as f:
        untouched = f.read() == marker
    data = numbers(50000, 3)
    with open_fifo_writer(fifo, first) as w:
        w.write(pack(data))
    first_status, first_err = finish(first)
    with open("first.bin", "rb") as f:
        first_ok = f.read() == pack(sorted(data))
    print("disk-lock: second status %d, disk untouched by it: %s, second.bin exists: %s, first status %d, "
          "first output sorted: %s" % (status, untouched, os.path.exists("second.bin"), first_status, first_ok))
    if status != 2 or not untouched or first_status != 0 or not first_ok:
        fail(first_err)


def sigterm_while_writing(prog):
    """SIGTERM while the output is being written: the previous output stays, no temporary."""
    previous = pack([7, 8, 9])
    with open("result.bin", "wb") as f:
        f.write(previous)
    fifo = fresh_fifo("term.fifo")
    proc = start(prog, "--input", "/dev/null", "--output", "/dev/null", "--copy-input", fifo, "--copy-output",
                 "result.bin")
    writer = open_fifo_writer(fifo, proc)
    writer.write(pack(numbers(1 << 20, 4)))  # 8 MiB: whole chunks reach the temporary
    writer.flush()
    # The output's temporary: a file with no name in this directory ("/dir/#123 (deleted)",
    # O_TMPFILE), or named ".result.bin.flow-PID-N" where the file system has no O_TMPFILE.
    here = os.path.abspath(".") + "/"
    written = lambda: [st for p, st in open_files(proc.pid) if p.startswith(here) and st.st_size > 0 and
                       ("result.bin.flow-" in p or p.endswith(" (deleted)"))]
    wait_until("the program writes its output", lambda: written())
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=TIMEOUT)
    try:
        writer.close()
    except BrokenPipeError:
        pass
    with open("result.bin", "rb") as f:
        kept = f.read() == previous
    left = [n for n in os.listdir(".") if "result.bin.flow-" in n]
    print("sigterm-while-writing: status %d, previous output intact: %s, temporaries left: %d" %
          (proc.returncode, kept, len(left)))
    if proc.returncode != -signal.SIGTERM or not kept or left:
        fail("left %r" % left)


def two_writers(prog):
    """Two programs writing one output path: it ends as one whole output, never a mix."""
    a, b = numbers(200000, 5), [x ^ 1 for x in numbers(150000, 6)]
    fifos = [fresh_fifo("w1.fifo"), fresh_fifo("w2.fifo")]
    procs = [start(prog, "--input", "/dev/null", "--output", "/dev/null", "--copy-input", f, "--copy-output", "both.bin")
             for f in fifos]
    writers = [open_fifo_writer(f, p) for f, p in zip(fifos, procs)]
    # Interleave the two inputs so both outputs are being written at the same time.
    for i in range(0, 200000, 10000):
        writers[0].write(pack(a[i:i + 10000]))
        writers[1].write(pack(b[i:i + 10000]))
    for w in writers:
        w.close()
    statuses = [finish(p)[0] for p in procs]
    with open("both.bin", "rb") as f:
        got = f.read()
    which = "first" if got == pack(a) else "second" if got == pack(b) else "A MIX"
    left = [n for n in os.listdir(".") if "both.bin.flow-" in n]
    print("two-writers: statuses %s, output is the %s program's whole output, temporaries left: %d" %
          (statuses, which, len(left)))
    if statuses != [0, 0] or which == "A MIX" or left:
        fail("bad")


def output_checked_first(prog):
    """An output that cannot be written stops the program before it reads any input: the
    input is a FIFO nobody writes, which the program would wait on forever."""
    os.makedirs("a_directory", exist_ok=True)
    fifo = fresh_fifo("never.fifo")
    for output in ["missing_dir/out.bin", "a_directory"]:
        proc = start(prog, "--input", fifo, "--output", output)
        status, err = finish(proc)
        sys.stdout.write("status %d: %s" % (status, err))


def stream_inputs(prog):
    """A FIFO and /dev/stdin on a pipe are inputs of unknown size, read to their end; a
    FIFO output is written in order."""
    values = numbers(100000, 8)
    fifo = fresh_fifo("in.fifo")
    proc = start(prog, "--input", fifo, "--output", "from_fifo.bin")
    with open_fifo_writer(fifo, proc) as w:
        w.write(pack(values))
    fifo_status, fifo_err = finish(proc)
    proc = subprocess.Popen([prog, "--input", "/dev/stdin", "--output", "from_stdin.bin"], stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    _, stdin_err = proc.communicate(pack(values), timeout=TIMEOUT)
    results = []
    for name in ["from_fifo.bin", "from_stdin.bin"]:
        with open(name, "rb") as f:
            results.append(f.read() == pack(sorted(values)))
    print("stream-inputs: fifo status %d, sorted all %d: %s; /dev/stdin status %d, sorted all: %s" %
          (fifo_status, len(values), results[0], proc.returncode, results[1]))
    if fifo_status or proc.returncode or not all(results):
        fail(fifo_err + stdin_err.decode())
    # Outputs that are FIFOs are written in place, in order (binary and text).
    with open("in.bin", "wb") as f:
        f.write(pack(values))
    fifo = fresh_fifo("out.fifo")
    for args, expected in [(["--output", fifo], pack(sorted(values))),
                           (["--input", "/dev/null", "--output", "/dev/null", "--text-input", "in.bin", "--text-output",
                             fifo], "".join("%d\n" % v for v in sorted(values)).encode())]:
        proc = start(prog, *args)
        with open(fifo, "rb") as r:  # opened once the program opens it for writing
            got = r.read()
        status, err = finish(proc)
        print("stream-outputs: %s status %d, all %d read from the FIFO in order: %s" %
              ("text" if "--text-output" in args else "binary", status, len(values), got == expected))
        if status or got != expected:
            fail(err)


def listing(directory):
    """Prints the names in `directory` (hidden ones too): what a case left behind."""
    print("%s holds: %s" % (directory, " ".join(sorted(os.listdir(directory))) or "nothing"))


def data(name):
    """Writes 5 u64 numbers, unsorted, to `name`."""
    with open(name, "wb") as f:
        f.write(pack([5, 3, 9, 1, 7]))


def big_data(name):
    """Writes 4 MiB of u64 numbers to `name`: more than a 2 MiB budget sorts in memory."""
    with open(name, "wb") as f:
        f.write(pack(numbers(1 << 19, 7)))


def show(name):
    """Prints a binary file of u64 numbers."""
    with open(name, "rb") as f:
        raw = f.read()
    print("%s: %s" % (name, " ".join(str(v) for v in struct.unpack("<%dQ" % (len(raw) // 8), raw))))


def mode(name):
    print("%s mode %o" % (name, os.stat(name).st_mode & 0o777))


def sorted_of(names):
    """Prints whether file B holds the u64 numbers of file A, sorted ("A,B")."""
    a, b = names.split(",")
    with open(a, "rb") as f:
        raw = f.read()
    with open(b, "rb") as f:
        got = f.read()
    print("%s is %s sorted: %s" % (b, a, got == pack(sorted(struct.unpack("<%dQ" % (len(raw) // 8), raw)))))


FILE_TOOLS = {"listing": listing, "data": data, "big-data": big_data, "show": show, "mode": mode,
              "sorted-of": sorted_of}

CASES = {
    "kill-mid-sort": kill_mid_sort,
    "disk-lock": disk_lock,
    "sigterm-while-writing": sigterm_while_writing,
    "two-writers": two_writers,
    "output-checked-first": output_checked_first,
    "stream-inputs": stream_inputs,
}

if __name__ == "__main__":
    if sys.argv[1] in FILE_TOOLS:
        FILE_TOOLS[sys.argv[1]](sys.argv[2])
    else:
        CASES[sys.argv[1]](os.path.abspath(sys.argv[2]))
