"""The same computation written with and without functions (gen_scripts.py --functions).

generate_pair(seed) returns (plain, main, modules): `plain` is a script of gen_scripts.py
(the text generate_script gives for that seed, plus, in some scripts, statements that
refill or clear a pushed vector and those of extra(), after which names shift), `main`
the same computation written
through functions (docs/language.md, "Functions and modules"), and `modules` the files
`main` uses, {path relative to main's folder: text}. Built and run, the two must print
the same text and write the same files byte for byte (build_and_compare.py --functions).

How: FnScript generates the plain script with gen_scripts.Script's own choices and random
numbers (its own generator, self.fr, makes every function choice), and marks the text it
could write differently: a marker holds the plain text and names the function version
(OPEN id SEP plain CLOSE). Markers nest, so a function's body may call other functions.
Expanding the lines gives the plain script or the function version; the functions a
version needs are declared before the top-level statement that first needs them, or in
a module. What is rewritten:

- value functions: a sub-expression, a map or filter body, a record or array value, a
  reduce function, `min`/`max` (generic `Fg_min2<T>`) and variables (`Fg_id<T>`) become
  `fn Fv(x: T, …) -> U = …;`, called where the expression was (per element in lambdas).
  The variables it reads are its parameters (or, in script functions, read directly as
  top-level names); a call inside it may be hoisted into an argument (`Fv(a, Fv2(a))`).
- stream functions: a run of stages of a pipeline becomes `fn Fs(Fin: stream<T>, …) ->
  stream<U> = Fin | …;` with `take N` counts, filter estimates and orders as parameters
  (constant arguments; a count may be a module `let`); single stages go through generic
  functions (`Fg_sort<T>(s, o: order<T>)`, `Fg_take`, `Fg_uniq`, `Fg_sorta`, `Fg_sortd`).
  Runs are rewritten again, so an argument may itself be a call; a sort in a function's
  body may go through Fg_sort (a function calling a function, passing an order on).
- block functions: checksums (one function per element type, called for every checksum
  of that type), `for x in p { … }` loops with their accumulator (the loop body, prints
  and assignments to top-level variables included), priority-queue drains (a `pq` in the
  body, its order maybe a parameter), `count` (`Fg_count<T>`), `sum`/`min`/`max` of a
  pipeline, vectors made by `Fg_mat` (`vector v = s; return v;`), `Fg_copy` (a pushing
  loop) or `Fg_pqsort` (a pq of the order given), vectors taken by reference and pushed
  into (`Fg_push3`), refilled (`Fg_keep`) or cleared (`Fg_clear`).
- extra statements (in both versions; see extra()): a stream parameter read twice, a
  vector refilled in a while loop by a function (by reference, or a block body returning
  the next vector; a value function in the loop's condition), an array by reference.
- modules (about half the scripts): records and orders move to a module (`lib.flow`, or
  `mods/util.flow` used without `as`, or a `defs.flow` that `lib.flow` itself uses), with
  the functions that read no script names; the script names them `lib.R`, `lib.f(…)`.

What keeps the two versions equal (beyond gen_scripts.py's own rules):
- a value argument is computed at the call: stream and block functions are called before
  their statement, and a named stream is read later, so variables that may change are
  never value arguments of those (read directly as top-level names, else no rewrite);
- a bare literal never becomes a call (its type would change from untyped to typed);
- a hoisted call holds no rand() (the order of rand() calls stays the same);
- vectors filled by pushes lose the order the compiler knew, which only adds sorts: joins
  and reduces of gen_scripts.py give the same output whatever the compiler sorts.
Constructs that meet known compiler bugs are left out unless --avoid says otherwise
(AVOIDABLE, KNOWN_BUGS; build_and_compare.py generates them unless told to avoid them).
"""
import random
import re

import gen_scripts as G
from gen_scripts import is_arr, is_float, is_rec, is_signed, tname

OPEN, SEP, CLOSE = '\ue000', '\ue001', '\ue002'
LITERAL = re.compile(r'\(?-?(0x[0-9a-fA-F_]+|[0-9][0-9_]*(\.[0-9]+)?(e-?[0-9]+)?)\)?|true|false')

# Switches of gen_scripts.py --avoid for the function version (see gen_scripts.AVOIDABLE),
# to narrow a failure down; both met compiler bugs once (fixed, with a test each:
# test/compiler/functions/value_fn_in_reduce.flow, order_passed_on.flow).
AVOIDABLE = {
    'fnreduce': 'a value function called in the function of a reduce',
    'fnorderarg': 'a function that passes an order on to another function: its own order parameter, or '
                  'in a module an order of the module',
}
# Left out unless asked for: constructs with a known open compiler bug.
KNOWN_BUGS = ()

# Generic helpers, declared (in the module or the script) when first used.
GENERIC = {
    'Fg_sort': 'fn Fg_sort<T>(Fin: stream<T>, Fo: order<T>) -> stream<T> = Fin | sort by Fo;',
    'Fg_sorta': 'fn Fg_sorta<T>(Fin: stream<T>) -> stream<T> = Fin | sort;',
    'Fg_sortd': 'fn Fg_sortd<T>(Fin: stream<T>) -> stream<T> = Fin | sort by desc;',
    'Fg_take': 'fn Fg_take<T>(Fin: stream<T>, Fk: u64) -> stream<T> = Fin | take Fk;',
    'Fg_uniq': 'fn Fg_uniq<T>(Fin: stream<T>) -> stream<T> = Fin | unique;',
    'Fg_count': 'fn Fg_count<T>(Fin: stream<T>) -> u64 {\n    var Fc: u64 = 0;\n'
                '    for Fx in Fin { Fc += 1; }\n    return Fc;\n}',
    'Fg_min': 'fn Fg_min<T>(Fin: stream<T>) -> T = min(Fin);',
    'Fg_max': 'fn Fg_max<T>(Fin: stream<T>) -> T = max(Fin);',
    'Fg_mat': 'fn Fg_mat<T>(Fin: stream<T>) -> vector<T> {\n    vector Fv = Fin;\n    return Fv;\n}',
    'Fg_copy': 'fn Fg_copy<T>(Fin: stream<T>) -> vector<T> {\n    vector Fv: T;\n'
               '    for Fx in Fin { Fv.push(Fx); }\n    return Fv;\n}',
    'Fg_pqsort': 'fn Fg_pqsort<T>(Fin: stream<T>, Fo: order<T>) -> vector<T> {\n    pq Fq: T order Fo;\n'
                 '    for Fx in Fin { Fq.push(Fx); }\n    vector Fv: T;\n'
                 '    while !Fq.empty() { Fv.push(Fq.top()); Fq.pop(); }\n    return Fv;\n}',
    'Fg_push3': 'fn Fg_push3<T>(Fv: vector<T>, Fin: stream<T>) {\n'
                '    for Fx in Fin { if Fv.empty() || Fv.size() % 3 == 0 { Fv.push(Fx); } }\n}',
    'Fg_keep': 'fn Fg_keep<T>(Fv: vector<T>, Fk: u64) { Fv = Fv | take Fk; }',
    'Fg_clear': 'fn Fg_clear<T>(Fv: vector<T>) { Fv.clear(); }',
    'Fg_id': 'fn Fg_id<T>(Fx: T) -> T = Fx;',
    'Fg_min2': 'fn Fg_min2<T>(Fa: T, Fb: T) -> T = min(Fa, Fb);',
    'Fg_max2': 'fn Fg_max2<T>(Fa: T, Fb: T) -> T = max(Fa, Fb);',
}

# How often each rewrite is tried (self.fr draws).
P = {
    'expr': 0.10, 'bool': 0.08, 'value': 0.15, 'lambda': 0.35, 'leaf': 0.04, 'minmax': 0.3,
    'direct': 0.25, 'hoist': 0.4, 'pipeline': 0.45, 'again': 0.35, 'generic': 0.5,
    'checksum': 0.6, 'for_in': 0.5, 'pq': 0.5, 'pqorder': 0.5, 'push': 0.6, 'refill': 0.5,
    'vector': 0.5, 'agg': 0.6, 'aggpos': 0.5, 'reduce': 0.4, 'typed_stream': 0.3,
    'module': 0.5, 'kconst': 0.3, 'extra': 0.3, 'nested_sort': 0.5,
}


# ---------------------------------------------------------------------- text helpers
def marker_end(s, k):
    """Index of the CLOSE that ends the marker whose SEP is at k."""
    depth = 1
    i = k + 1
    while True:
        c = s[i]
        if c == OPEN:
            depth += 1
        elif c == CLOSE:
            depth -= 1
            if depth == 0:
                return i
        i += 1


def children(s):
    """(start, end, id) of the markers at the top of s (not inside another marker)."""
    out = []
    i = 0
    while True:
        j = s.find(OPEN, i)
        if j < 0:
            return out
        k = s.index(SEP, j)
        e = marker_end(s, k)
        out.append((j, e + 1, s[j + 1:k]))
        i = e + 1


def split_top(s):
    """s split at the `|` of its top level (outside brackets, strings and markers)."""
    parts, depth, start, i, n = [], 0, 0, 0, len(s)
    while i < n:
        c = s[i]
        if c == '"':
            i += 1
            while s[i] != '"':
                i += 2 if s[i] == '\\' else 1
        elif c in '([{' + OPEN:
            depth += 1
        elif c in ')]}' + CLOSE:
            depth -= 1
        elif c == '|' and depth == 0:
            if i + 1 < n and s[i + 1] == '|':
                i += 1
            else:
                parts.append(s[start:i].strip())
                start = i + 1
        i += 1
    parts.append(s[start:].strip())
    return parts


def idents(s):
    """(start, end, name, member) of the names in code positions of s: not in the text of
    string literals (interpolations are code) nor inside numbers. member: a field or a
    method (after '.') or a name declared or a field named before ':'."""
    out = []
    i, n = 0, len(s)
    in_str = False
    while i < n:
        c = s[i]
        if in_str is True:          # the text of a string literal
            if c == '\\':
                i += 2
                continue
            if c == '"':
                in_str = False
            elif s.startswith('{{', i) or s.startswith('}}', i):
                i += 2
                continue
            elif c == '{':
                in_str = 'interp'
            i += 1
            continue
        if c == '"':
            in_str = True
            i += 1
            continue
        if c == '}' and in_str == 'interp':
            in_str = True
            i += 1
            continue
        if c.isdigit():
            while i < n and (s[i].isalnum() or s[i] in '_.'):
                i += 1
            continue
        if c.isalpha() or c == '_':
            j = i
            while j < n and (s[j].isalnum() or s[j] == '_'):
                j += 1
            p = i - 1
            while p >= 0 and s[p] == ' ':
                p -= 1
            q = j
            while q < n and s[q] == ' ':
                q += 1
            member = (p >= 0 and s[p] == '.') or (q < n and s[q] == ':' and not s.startswith('::', q))
            out.append((i, j, s[i:j], member))
            i = j
            continue
        i += 1
    return out


def names_in(s, pool):
    """The names of pool that s reads (code positions, not fields), in order of appearance."""
    seen = []
    for _, _, name, member in idents(s):
        if not member and name in pool and name not in seen:
            seen.append(name)
    return seen


def rename(s, mapping):
    """s with the names of mapping (code positions, not fields) replaced."""
    out, last = [], 0
    for i, j, name, member in idents(s):
        if not member and name in mapping:
            out.append(s[last:i])
            out.append(mapping[name])
            last = j
    out.append(s[last:])
    return ''.join(out)


class Decl:
    def __init__(self, name, text, script_only, kind='fn'):
        self.name = name
        self.text = text              # with markers
        self.script_only = script_only
        self.kind = kind              # 'fn' or 'let'


class FnScript(G.Script):
    def __init__(self, rng, frng, avoid=()):
        super().__init__(rng, avoid)
        self.fr = frng
        self.frags = {}          # id -> (fn text, [decl names], info)
        self.decls = {}          # name -> Decl
        self.nfn = 0
        self.flines = []         # (item, indent, text, symbol declared or None)
        self.item = 0
        self.capture = None
        self.frames = []
        self.pipe_types = {}     # pipeline text -> element type
        self.state_vars = {}     # name -> indent of its declaration
        self.check_fns = {}      # element type name -> checksum function

    # ------------------------------------------------------------------ machinery
    def fchance(self, key):
        return self.fr.random() < P[key]

    def emit_line(self, s, f=None):
        """s in the plain script; f (a string, or a list of lines) in the function version."""
        if self.capture is not None:
            self.capture.append((self.indent, s, f))
            return
        self.lines.append('    ' * self.indent + s)
        for fl in ([s if f is None else f] if not isinstance(f, list) else f):
            self.flines.append((self.item, self.indent, fl, None))

    def replay(self, lines):
        saved = self.indent
        for ind, s, f in lines:
            self.indent = ind
            self.emit_line(s, f)
        self.indent = saved

    def captured(self, fn, *args):
        saved = self.capture
        self.capture = []
        try:
            fn(*args)
            return self.capture
        finally:
            self.capture = saved

    def new_name(self, kind):
        self.nfn += 1
        return f'F{kind}{self.nfn}'

    def frag(self, plain, fn, needs=(), **info):
        fid = str(len(self.frags))
        self.frags[fid] = (fn, list(needs), info)
        return f'{OPEN}{fid}{SEP}{plain}{CLOSE}'

    def expand(self, s, fn, needs=None):
        out = []
        i = 0
        while True:
            j = s.find(OPEN, i)
            if j < 0:
                out.append(s[i:])
                return ''.join(out)
            out.append(s[i:j])
            k = s.index(SEP, j)
            e = marker_end(s, k)
            if fn:
                text, req, _ = self.frags[s[j + 1:k]]
                if needs is not None:
                    needs.extend(req)
                out.append(self.expand(text, True, needs))
            else:
                out.append(self.expand(s[k + 1:e], False))
            i = e + 1

    def plain(self, s):
        return self.expand(s, False)

    def generic(self, name):
        if name not in self.decls:
            self.decls[name] = Decl(name, GENERIC[name], False)
        return name

    def script_names(self):
        out = set(self.params) | set(self.globals) | set(self.vectors) | set(self.streams) | set(self.pushvecs)
        out |= {v for v, ind in self.state_vars.items() if ind == 0}
        return out

    def add_decl(self, name, text, params=(), script_only=False, kind='fn'):
        """A declaration; script-only when its body reads names of the script itself."""
        reads = set(names_in(self.plain(text), self.script_names())) - set(params)
        self.decls[name] = Decl(name, text, script_only or bool(reads), kind)
        return name

    def is_mutable(self, name, ctx):
        return name in self.mutable or name in ctx.mutable or name in self.state_vars

    def top_level(self, name, ctx):
        """name is a top-level declaration of the script (a function body can read it)."""
        if name in self.state_vars:
            return self.state_vars[name] == 0
        t = ctx.names.get(name)
        return (name in self.params and self.params[name] == t) or (name in self.globals and self.globals[name] == t)

    def arguments(self, text, ctx, skip=(), lazy=False):
        """(params, args, direct) for the names of ctx that text reads: each one a value
        parameter, or read directly (a top-level name; direct is then True). lazy: the
        function runs before its statement (or a named stream reads it later), so a
        variable that may change is read directly; None when it cannot be."""
        params, args, direct = [], [], False
        for nm in names_in(self.plain(text), set(ctx.names) | set(self.state_vars)):
            if nm in skip:
                continue
            if nm not in ctx.names or (lazy and self.is_mutable(nm, ctx)):
                if not self.top_level(nm, ctx):
                    return None
                direct = True
                continue
            if self.top_level(nm, ctx) and self.fchance('direct'):
                direct = True
                continue
            params.append(f'{nm}: {tname(ctx.names[nm])}')
            args.append(nm)
        return params, args, direct

    # ------------------------------------------------------------------ value functions
    def value_fn(self, body, rt, ctx, first=None, first_t=None):
        """A marker: body (an expression of type rt) or a call of a value function."""
        if body.startswith(OPEN) and body.endswith(CLOSE) and len(children(body)) == 1 and first is None:
            return body
        # hoist calls into arguments: Fv(a, Fv2(a))
        hoisted_p, hoisted_a = [], []
        fbody = body
        for s, e, fid in reversed(children(body)):
            info = self.frags[fid][2]
            if info.get('kind') != 'value' or 'rand(' in self.plain(body[s:e]):
                continue
            if not set(info['free']) <= set(ctx.names) or not self.fchance('hoist'):
                continue
            h = self.new_name('h')
            hoisted_p.insert(0, f'{h}: {tname(info["type"])}')
            hoisted_a.insert(0, body[s:e])
            fbody = fbody[:s] + h + fbody[e:]
        r = self.arguments(fbody, ctx, skip=(first,) if first else ())
        if r is None:
            return body
        params, args, direct = r
        if first:
            params.insert(0, f'{first}: {tname(first_t)}')
            args.insert(0, first)
        params += hoisted_p
        args += hoisted_a
        name = self.new_name('v')
        pnames = [p.split(':')[0] for p in params]
        self.add_decl(name, f'fn {name}({", ".join(params)}) -> {tname(rt)} = {fbody};', pnames, direct)
        free = names_in(self.plain(body), set(ctx.names))
        return self.frag(body, f'{name}({", ".join(args)})', [name], kind='value', type=rt, free=free)

    def expr(self, t, ctx, d=0):
        e = super().expr(t, ctx, d)
        if not LITERAL.fullmatch(e) and self.fchance('expr'):
            return self.value_fn(e, t, ctx)
        return e

    def bool_expr(self, ctx, d):
        e = super().bool_expr(ctx, d)
        if not LITERAL.fullmatch(e) and e not in ctx.names and self.fchance('bool'):
            return self.value_fn(e, 'bool', ctx)
        return e

    def value(self, t, ctx, d=0, free=False):
        e = super().value(t, ctx, d, free)
        if (is_rec(t) or is_arr(t)) and self.fchance('value'):
            return self.value_fn(e, t, ctx)
        return e

    def leaf(self, t, ctx, d=0):
        e = super().leaf(t, ctx, d)
        if not LITERAL.fullmatch(e) and 'rand(' not in e and self.fchance('leaf'):
            return self.frag(e, f'{self.generic("Fg_id")}({e})', ['Fg_id'], kind='value', type=t,
                             free=names_in(e, set(ctx.names)))
        return e

    def call(self, t, ctx, d):
        e = super().call(t, ctx, d)
        m = re.match(r'(min|max)\((.*)\)$', e, re.S)
        # both arguments may call rand(): the call evaluates them in order, the builtin as C++ does
        if m and self.fchance('minmax'):
            args = split_args(m.group(2))
            if len(args) == 2:
                g = self.generic('Fg_min2' if m.group(1) == 'min' else 'Fg_max2')
                return self.frag(e, f'{g}({args[0]}, {args[1]})', [g], kind='value', type=t,
                                 free=names_in(self.plain(e), set(ctx.names)))
        return e

    def stage(self, t, ctx, nonempty, allow_sort=True):
        text, nt, ne, srt = super().stage(t, ctx, nonempty, allow_sort)
        m = re.match(r'(map|filter) (\w+) => ', text)
        if m and len(split_top(text)) == 1 and self.fchance('lambda'):
            x = m.group(2)
            body = text[m.end():]
            est = ''
            if m.group(1) == 'filter':
                em = re.search(r' ~ 0\.\d+$', body)
                if em:
                    body, est = body[:em.start()], body[em.start():]
            c = ctx.child()
            c.names[x] = t
            call = self.value_fn(body, nt if m.group(1) == 'map' else 'bool', c, first=x, first_t=t)
            text = f'{m.group(1)} {x} => {call}{est}'
        if self.frames:
            self.frames[-1]['stages'].append((text, t, nt))
        return text, nt, ne, srt

    def reduce_text(self, t, keys):
        text = super().reduce_text(t, keys)
        m = re.match(r'(reduce \(.*?\) with \((\w+), (\w+)\) => )(.*?)( ~ [0-9.]+)?$', text)
        if m and 'fnreduce' not in self.avoid and self.fchance('reduce'):
            c = G.Ctx(dict(self.params))
            body = m.group(4)
            r = self.arguments(body, c, skip=(m.group(2), m.group(3)))
            if r is not None:
                params, args, direct = r
                name = self.new_name('v')
                params = [f'{m.group(2)}: {tname(t)}', f'{m.group(3)}: {tname(t)}'] + params
                args = [m.group(2), m.group(3)] + args
                self.add_decl(name, f'fn {name}({", ".join(params)}) -> {tname(t)} = {body};',
                              [p.split(':')[0] for p in params], direct)
                call = self.frag(body, f'{name}({", ".join(args)})', [name])
                text = m.group(1) + call + (m.group(5) or '')
        return text

    # ------------------------------------------------------------------ stream functions
    def source(self, ctx, t=None, depth=0):
        res = super().source(ctx, t, depth)
        if self.frames:
            self.frames[-1]['src'] = res[1]
        return res

    def declare_state(self, name, t, init):
        self.state_vars[name] = self.indent
        super().declare_state(name, t, init)

    def pipeline(self, ctx, t=None, depth=0, allow_sort=True):
        self.frames.append({'src': None, 'stages': []})
        try:
            text, et, srt = super().pipeline(ctx, t, depth, allow_sort)
        finally:
            frame = self.frames.pop()
        if frame['src'] is not None and self.fchance('pipeline'):
            text = self.stream_rewrite(text, frame, t, ctx)
        self.pipe_types[text] = et
        return text, et, srt

    def stream_rewrite(self, text, frame, t, ctx):
        """text with runs of its stages moved into stream functions (a marker)."""
        stages = list(frame['stages'])
        cur = stages[-1][2] if stages else frame['src']
        if t is not None and cur != t:
            last = split_top(text)[-1]
            stages.append((last, cur, t))
        suffix = ''.join(' | ' + s for s, _, _ in stages)
        if not stages or not text.endswith(suffix) or len(suffix) >= len(text):
            return text
        segs = [(text[:len(text) - len(suffix)], frame['src'])] + [(s, ti, to) for s, ti, to in stages]
        changed = False
        while len(segs) > 1:
            a = self.fr.randrange(1, len(segs))
            b = min(len(segs), a + self.fr.randrange(1, 4))
            call = self.stream_call(segs, a, b, ctx)
            if call is None:
                break
            changed = True
            segs = [(call, segs[b - 1][2])] + segs[b:]
            if not self.fchance('again'):
                break
        if not changed:
            return text
        fn = ' | '.join(s[0] for s in segs)
        return self.frag(text, fn, [])

    def stream_call(self, segs, a, b, ctx):
        """The call of a function doing stages a..b-1 of segs on segs[0..a-1]; None if it
        cannot be written (a run reading a block's local variable that may change)."""
        arg = ' | '.join(s[0] for s in segs[:a])
        run = [s[0] for s in segs[a:b]]
        tin, tout = segs[a][1], segs[b - 1][2]
        plain = ' | '.join([arg] + run)
        if b - a == 1 and self.fchance('generic'):
            st = run[0]
            m = re.fullmatch(r'sort by (\w+)', st)
            if m and m.group(1) in self.order_specs:
                return self.gcall('Fg_sort', plain, f'{arg}, {m.group(1)}')
            if st in ('sort', 'sort by asc'):
                return self.gcall('Fg_sorta', plain, arg)
            if st == 'sort by desc':
                return self.gcall('Fg_sortd', plain, arg)
            m = re.fullmatch(r'take (\d+)', st)
            if m:
                return self.gcall('Fg_take', plain, f'{arg}, {self.count_arg(m.group(1))}')
            if st == 'unique':
                return self.gcall('Fg_uniq', plain, arg)
        r = self.arguments(' | '.join(run), ctx, lazy=True)
        if r is None:
            return None
        params, args, direct = r
        body = []
        for idx, st in enumerate(run):
            m = re.fullmatch(r'take (\d+)', st)
            if m:
                k = self.new_name('k')
                params.append(f'{k}: u64')
                args.append(self.count_arg(m.group(1)))
                st = f'take {k}'
            m = re.fullmatch(r'sort by (\w+)', st)
            if m and m.group(1) in self.order_specs and self.fr.random() < 0.5:
                o = self.new_name('o')
                params.append(f'{o}: order<{tname(segs[a + idx][1])}>')
                args.append(m.group(1))
                st = f'sort by {o}'
            m = re.fullmatch(r'((?:filter|unique).*) ~ (0\.\d+)', st, re.S)
            if m and self.fr.random() < 0.5:
                e = self.new_name('e')
                params.append(f'{e}: f64')
                args.append(m.group(2))
                st = f'{m.group(1)} ~ {e}'
            body.append(st)
        # a sort of the body through Fg_sort: a function passing an order on to another one
        sorts = [k for k, st in enumerate(body) if re.fullmatch(r'sort by (\w+)', st)]
        if sorts and self.fchance('nested_sort'):
            k = self.fr.choice(sorts)
            o = body[k][len('sort by '):]
            param = o not in self.order_specs
            if o not in ('asc', 'desc') and ('fnorderarg' not in self.avoid or not (param or self.module)):
                inner = ' | '.join(['Fin'] + body[:k])
                body = [self.frag(' | '.join(['Fin'] + body[:k + 1]),
                                  f'{self.generic("Fg_sort")}({inner}, {o})', ['Fg_sort'])] + body[k + 1:]
        name = self.new_name('s')
        sig = ', '.join([f'Fin: stream<{tname(tin)}>'] + params)
        head = 'Fin | ' if not body[0].startswith(OPEN) else ''
        self.add_decl(name, f'fn {name}({sig}) -> stream<{tname(tout)}> =\n    {head}{" | ".join(body)};',
                      ['Fin'] + [p.split(':')[0] for p in params], direct)
        return self.frag(plain, f'{name}({", ".join([arg] + args)})', [name])

    def gcall(self, g, plain, args):
        """A call of generic helper g (a marker: its plain text is the pipeline it replaces)."""
        return self.frag(plain, f'{self.generic(g)}({args})', [g])

    def count_arg(self, n):
        """A take count: the number, or a module (or top-level) let holding it."""
        if self.module and self.fchance('kconst'):
            k = self.new_name('K')
            self.decls[k] = Decl(k, f'let {k}: u64 = {n};', False, 'let')
            return self.frag(n, k, [k])
        return n

    # ------------------------------------------------------------------ block functions
    def checksum(self, p, t):
        lines = self.captured(super().checksum, p, t)
        if not self.fchance('checksum'):
            return self.replay(lines)
        (i0, l0, _), (i1, l1, _), rest = lines[0], lines[1], lines[2:]
        acc = re.match(r'var (\w+): u64 = 0;$', l0).group(1)
        x = re.match(r'for (\w+) in ', l1).group(1)
        head = f'for {x} in {p} {{ {acc} = {acc} * 31 + ('
        assert l1.startswith(head) and l1.endswith('); }'), l1
        mix = rename(l1[len(head):-4], {x: 'Fx'})
        key = tname(t)
        if key not in self.check_fns:
            name = self.new_name('c')
            self.check_fns[key] = name
            self.add_decl(name, f'fn {name}(Fin: stream<{key}>) -> u64 {{\n'
                                f'    var Fh: u64 = 0;\n'
                                f'    for Fx in Fin {{ Fh = Fh * 31 + ({mix}); }}\n    return Fh;\n}}')
        name = self.check_fns[key]
        self.indent, saved = i0, self.indent
        self.emit_line(l0, [f'let {acc} = ' + self.call_marker(name, p) + ';'])
        self.emit_line(l1, [])
        self.indent = saved
        self.replay(rest)

    def call_marker(self, name, args):
        """A call in text that only the function version has."""
        return self.frag('', f'{name}({args})', [name])

    def elem_type_of(self, p):
        return self.pipe_types.get(p)

    def gen_for_in(self):
        lines = self.captured(super().gen_for_in)
        ok = self.fchance('for_in')
        m = re.match(r'for (\w+) in (.*) \{$', lines[1][1], re.S) if len(lines) > 1 else None
        if not ok or not m or lines[0][0] != 0:
            return self.replay(lines)
        x, p = m.group(1), m.group(2)
        t = self.elem_type_of(p)
        acc = re.match(r'var (\w+): u64 = 0;$', lines[0][1]).group(1)
        close = max(k for k, (ind, s, _) in enumerate(lines) if ind == 0 and s == '}')
        body = lines[2:close]
        if t is None or any(f is not None for _, _, f in body):
            return self.replay(lines)
        text = '\n'.join('    ' * (ind + 1) + s for ind, s, _ in body)
        ctx = self.top_ctx()
        r = self.arguments(text, ctx, skip=(x, acc), lazy=True)
        if r is None:
            return self.replay(lines)
        params, args, direct = r
        name = self.new_name('f')
        sig = ', '.join([f'Fin: stream<{tname(t)}>'] + params)
        decl = (f'fn {name}({sig}) -> u64 {{\n' +
                f'    var {acc}: u64 = 0;\n    for {x} in Fin {{\n{text}\n    }}\n    return {acc};\n}}')
        self.add_decl(name, decl, ['Fin'] + [q.split(':')[0] for q in params], direct)
        fn = f'let {acc} = ' + self.call_marker(name, ', '.join([p] + args)) + ';'
        self.emit_line(lines[0][1], [fn])
        for ind, s, f in lines[1:close + 1]:
            self.indent = ind
            self.emit_line(s, [])
        self.indent = 0
        self.replay(lines[close + 1:])

    def gen_pq(self):
        lines = self.captured(super().gen_pq)
        if not self.fchance('pq') or any(f is not None for _, _, f in lines) or len(lines) != 9:
            return self.replay(lines)
        m = re.match(r'pq (\w+): (.*) order (\w+);$', lines[0][1])
        acc = re.match(r'var (\w+): u64 = 0;$', lines[1][1]).group(1)
        fm = re.match(r'for (\w+) in (.*) \{$', lines[2][1], re.S)
        q, t, o, p = m.group(1), m.group(2), m.group(3), fm.group(2)
        params, args = [f'Fin: stream<{t}>'], [p]
        if o in self.order_specs and self.fchance('pqorder'):
            params.append(f'Fo: order<{t}>')
            args.append(o)
            o = 'Fo'
        body = [f'pq {q}: {t} order {o};', lines[1][1], f'for {fm.group(1)} in Fin {{'] + \
            [s for _, s, _ in lines[3:5]] + ['}'] + [s for _, s, _ in lines[5 + 1:8]]
        name = self.new_name('q')
        decl = f'fn {name}({", ".join(params)}) -> u64 {{\n' + '\n'.join('    ' + s for s in body) + \
            f'\n    return {acc};\n}}'
        self.add_decl(name, decl, ['Fin', 'Fo'])
        self.emit_line(lines[0][1], [f'let {acc} = ' + self.call_marker(name, ', '.join(args)) + ';'])
        for _, s, _ in lines[1:8]:
            self.emit_line(s, [])
        self.emit_line(lines[8][1])

    def gen_push_vector(self):
        lines = self.captured(super().gen_push_vector)
        v = re.match(r'vector (\w+): ', lines[0][1]).group(1)
        m = re.match(r'for (\w+) in (.*) \{ if ' + v + r'\.empty\(\) \|\| ', lines[1][1], re.S)  # not the nested loop
        if self.fchance('push') and m:
            self.replay(lines[:1])
            self.emit_line(lines[1][1], [self.call_marker(self.generic('Fg_push3'), f'{v}, {m.group(2)}') + ';'])
            self.replay(lines[2:])
        else:
            self.replay(lines)
        if self.fchance('refill'):
            if self.fr.random() < 0.7:
                k = self.fr.randrange(0, 20)
                self.emit_line(f'{v} = {v} | take {k};',
                               [self.call_marker(self.generic('Fg_keep'), f'{v}, {self.count_arg(str(k))}') + ';'])
            else:
                self.emit_line(f'{v}.clear();', [self.call_marker(self.generic('Fg_clear'), v) + ';'])
            self.emit_line(f'print "{v} {{{v}.size()}}";')

    def gen_vector(self):
        lines = self.captured(super().gen_vector)
        m = re.match(r'vector (\w+) = (.*);$', lines[0][1], re.S)
        if not self.fchance('vector') or not m:
            return self.replay(lines)
        name, p = m.group(1), m.group(2)
        parts = split_top(p)
        om = re.fullmatch(r'sort by (\w+)', parts[-1])
        k = self.fr.randrange(2)
        if om and om.group(1) in self.order_specs and len(parts) > 1 and self.fr.random() < 0.7:
            call = self.call_marker(self.generic('Fg_pqsort'), f'{" | ".join(parts[:-1])}, {om.group(1)}')
        else:
            call = self.call_marker(self.generic(['Fg_mat', 'Fg_copy'][k]), p)
        self.emit_line(lines[0][1], [f'vector {name} = {call};'])
        self.replay(lines[1:])

    def gen_stream(self):
        lines = self.captured(super().gen_stream)
        m = re.match(r'stream (\w+) = ', lines[0][1])
        if m and self.fchance('typed_stream'):
            t = self.streams[m.group(1)]['type']
            self.emit_line(lines[0][1], f'stream {m.group(1)}: {tname(t)} = ' + lines[0][1][m.end():])
            return self.replay(lines[1:])
        self.replay(lines)

    def gen_aggregates(self):
        lines = self.captured(super().gen_aggregates)
        if not self.fchance('agg'):
            return self.replay(lines)
        out = []
        for ind, s, f in lines:
            if f is not None:
                out.append((ind, s, f))
                continue
            f = rewrite_count(self, s)
            m = re.match(r'let (\w+) = (sum|min|max)\((.*) \| map (\w+) => (.*)\);$', s, re.S)
            if m and self.fr.random() < 0.7:
                p, y, e = m.group(3), m.group(4), m.group(5)
                t = self.elem_type_of(p)
                lt = dict(self.leaves(y, t)).get(e) if t is not None else None
                if lt is not None:
                    if m.group(2) == 'sum':
                        rt = 'f64' if is_float(lt) else 'i64' if is_signed(lt) else 'u64'
                    else:
                        rt = lt
                    name = self.new_name('a')
                    self.add_decl(name, f'fn {name}(Fin: stream<{tname(t)}>) -> {rt} = '
                                        f'{m.group(2)}(Fin | map {y} => {e});')
                    f = f'let {m.group(1)} = ' + self.call_marker(name, p) + ';'
            out.append((ind, s, f))
        self.replay(out)

    def gen_agg_positions(self):
        lines = self.captured(super().gen_agg_positions)
        if not self.fchance('aggpos'):
            return self.replay(lines)
        self.replay([(ind, s, f if f is not None else rewrite_count(self, s)) for ind, s, f in lines])

    # ------------------------------------------------------------------ extra statements
    # Statements only the --functions scripts have (in both versions), for what the plain
    # generator never writes: a stream parameter read twice, a vector refilled round after
    # round by a function in a while loop, an array passed by reference. They draw from a
    # generator forked from self.fr, so the plain script keeps gen_scripts' choices (its
    # later names shift), and their pipelines update no variables.
    def extra(self):
        saved = self.r
        self.r = random.Random(self.fr.random())
        self.no_state += 1
        try:
            self.fr.choice([self.extra_twice, self.extra_rounds, self.extra_rounds, self.extra_array])()
        finally:
            self.r = saved
            self.no_state -= 1

    def extra_twice(self):
        """A stream parameter read twice (in one statement, or in two loops) against a
        named stream read so."""
        p, t, _ = self.pipeline(self.top_ctx())
        tmp, c, x = self.new_name('t'), self.new_name('r'), self.new_name('x')
        name = self.new_name('w')
        if self.fr.random() < 0.5:
            self.emit_line(f'stream {tmp} = {p};', [])
            self.emit_line(f'let {c} = count(concat({tmp}, {tmp})) * 3 + count({tmp});',
                           [f'let {c} = ' + self.call_marker(name, p) + ';'])
            self.add_decl(name, f'fn {name}(Fin: stream<{tname(t)}>) -> u64 = '
                                f'count(concat(Fin, Fin)) * 3 + count(Fin);')
        else:
            mix = self.summ(x, t)
            self.emit_line(f'stream {tmp} = {p};', [])
            self.emit_line(f'var {c}: u64 = 0;', [f'let {c} = ' + self.call_marker(name, p) + ';'])
            self.emit_line(f'for {x} in {tmp} {{ {c} += 1; }}', [])
            self.emit_line(f'for {x} in {tmp} {{ {c} = {c} * 31 + {mix}; }}', [])
            self.add_decl(name, f'fn {name}(Fin: stream<{tname(t)}>) -> u64 {{\n    var {c}: u64 = 0;\n'
                                f'    for {x} in Fin {{ {c} += 1; }}\n'
                                f'    for {x} in Fin {{ {c} = {c} * 31 + {mix}; }}\n    return {c};\n}}')
        self.emit_line(f'print "{c} {{{c}}}";')

    def extra_rounds(self):
        """A vector refilled by stages in a while loop, against a function that refills it
        (by reference) or returns the next one (a block body declaring a vector)."""
        ctx = self.top_ctx()
        p, t, _ = self.pipeline(ctx)
        stages = []
        for _ in range(8):
            if len(stages) >= 2:
                break
            st, nt, _, _ = self.stage(t, ctx, False)
            if nt == t and not st.startswith('for '):
                stages.append(st)
        if not stages:
            stages = ['take 50']
        w, i, rounds = self.new_name('w'), self.new_name('i'), self.fr.randrange(1, 4)
        run = ' | '.join(stages)
        r = self.arguments(run, ctx, lazy=True)
        if r is None:
            return
        params, args, direct = r
        name = self.new_name('r')
        self.emit_line(f'vector {w} = {p};')
        self.emit_line(f'var {i}: u64 = 0;')
        cond = f'{i} < {rounds}'
        if self.fr.random() < 0.5:
            cname = self.new_name('v')
            self.add_decl(cname, f'fn {cname}(Fa: u64, Fb: u64) -> bool = Fa < Fb;')
            fcond = self.call_marker(cname, f'{i}, {rounds}')
        else:
            fcond = cond
        self.emit_line(f'while {cond} ~ {rounds} {{', f'while {fcond} ~ {rounds} {{')
        self.indent += 1
        if self.fr.random() < 0.5:
            sig = ', '.join([f'Fw: vector<{tname(t)}>'] + params)
            self.add_decl(name, f'fn {name}({sig}) {{\n    Fw = Fw | {run};\n}}',
                          ['Fw'] + [q.split(':')[0] for q in params], direct)
            self.emit_line(f'{w} = {w} | {run};', self.call_marker(name, ', '.join([w] + args)) + ';')
        else:
            nxt = self.new_name('n')
            sig = ', '.join([f'Fin: stream<{tname(t)}>'] + params)
            self.add_decl(name, f'fn {name}({sig}) -> vector<{tname(t)}> {{\n'
                                f'    vector Fnext = Fin | {run};\n    return Fnext;\n}}',
                          ['Fin'] + [q.split(':')[0] for q in params], direct)
            call = self.call_marker(name, ', '.join([w] + args))
            self.emit_line(f'{w} = {w} | {run};', [f'vector {nxt} = {call};', f'{w} = {nxt};'])
        self.emit_line(f'{i} += 1;')
        self.indent -= 1
        self.emit_line('}')
        self.emit_line(f'print "{w} {{{w}.size()}} {{{i}}}";')
        self.checksum(w, t)

    def extra_array(self):
        """An array filled by a function that takes it by reference."""
        p, t, _ = self.pipeline(self.top_ctx())
        a, x, j, h = self.new_name('a'), self.new_name('x'), self.new_name('j'), self.new_name('h')
        size = self.fr.randrange(1, 40)
        et = self.fr.choice(['u64', 'u32', 'i64', 'u8'])
        key = self.summ(x, t)
        body = f'{a}[{key} % {size}] += 1 as {et};' if et != 'u64' else f'{a}[{key} % {size}] += 1;'
        name = self.new_name('y')
        self.emit_line(f'array {a}: {et}[{size}];')
        self.emit_line(f'for {x} in {p} {{ {body} }}',
                       self.call_marker(name, f'{a}, {p}') + ';')
        self.add_decl(name, f'fn {name}(Fa: array<{et}>, Fin: stream<{tname(t)}>) {{\n'
                            f'    for {x} in Fin {{ {rename(body, {a: "Fa"})} }}\n}}')
        self.emit_line(f'var {h}: u64 = 0;')
        self.emit_line(f'var {j}: u64 = 0;')
        self.emit_line(f'while {j} < {a}.size() {{ {h} = {h} * 7 + ({a}[{j}] as u64); {j} += 1; }}')
        self.emit_line(f'print "{a} {{{h}}}";')

    # ------------------------------------------------------------------ records, modules, assembly
    def gen_records(self):
        lines = self.captured(super().gen_records)
        for ind, s, f in lines:
            m = re.match(r'(record|order) (\w+) ', s)
            self.lines.append(s)
            self.flines.append((self.item, ind, s, m.group(2)))

    def generate(self):
        self.module = self.fr.choice(['lib', 'util', 'defs']) if self.fchance('module') else None
        super().generate()
        return '\n'.join(self.plain(s) for s in self.lines) + '\n'

    def add_header(self, lines):
        super().add_header(lines)
        self.flines[1:1] = [(0, 0, line, None) for line in lines]

    def gen_item(self):
        self.item += 1
        super().gen_item()
        if self.fchance('extra'):
            self.item += 1
            self.extra()

    def assemble(self):
        """(main, modules) of the function version."""
        fields = {f for fs in self.records.values() for f, _ in fs}
        symbols = set(self.records) | {o for os in self.orders.values() for o in os}
        module = self.module if not (symbols & fields) else None
        lib_file = {'lib': 'lib.flow', 'util': 'mods/util.flow', 'defs': 'mods/lib.flow'}.get(module)
        home = {}                       # symbol -> 'lib' or 'defs' (not in: the script)
        files = {'lib': [], 'defs': []}
        items = {}                      # item -> {'pre': [...], 'lines': [...]}
        placed = set()
        line_start = ['']

        def place(name, item_rec, indent):
            if name in placed:
                return
            placed.add(name)
            d = self.decls[name]
            needs = []
            text = self.expand(d.text, True, needs)
            for nd in needs:
                place(nd, item_rec, indent)
            if module and not d.script_only and all(home.get(nd) == 'lib' for nd in needs):
                home[name] = 'lib'
                files['lib'].append(text)
            elif indent == 0 and not line_start[0].startswith('}'):
                item_rec['lines'].append(text)
            else:
                item_rec['pre'].append(text)

        for item, indent, text, sym in self.flines:
            rec = items.setdefault(item, {'pre': [], 'lines': []})
            if sym is not None and module:
                home[sym] = 'defs' if module == 'defs' else 'lib'
                files[home[sym]].append(text)
                continue
            needs = []
            line = self.expand(text, True, needs)
            line_start[0] = line
            for nd in needs:
                place(nd, rec, indent)
            rec['lines'].append('    ' * indent + line)
        script = []
        for item in sorted(items):
            script += items[item]['pre'] + items[item]['lines']
        modules = {}
        alias = {'lib': 'lib', 'util': 'util', 'defs': 'lib'}.get(module)
        if module:
            qual = {'lib': alias, 'defs': 'defs'}
            uses = [f'use "{lib_file}" as lib;' if module != 'util' else f'use "{lib_file}";']
            if module == 'defs':
                uses.append('use "mods/defs.flow" as defs;')
            for fname, rel in (('lib', lib_file), ('defs', 'mods/defs.flow')):
                if fname == 'defs' and module != 'defs':
                    continue
                others = {s: f'{qual[h]}.{s}' for s, h in home.items() if h != fname}
                text = '\n'.join(rename(x, others) for x in files[fname])
                head = f'// a module of the function version (gen_scripts.py --functions)\n'
                if fname == 'lib' and module == 'defs':
                    head += 'use "defs.flow" as defs;\n'
                modules[rel] = head + text + '\n'
            mapping = {s: f'{qual[h]}.{s}' for s, h in home.items()}
            script = [script[0]] + uses + [x if x.startswith('use std.') else rename(x, mapping) for x in script[1:]]
        return '\n'.join(script) + '\n', modules


def split_args(s):
    """The arguments of a call: s split at its top-level commas."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(s):
        if c in '([{' + OPEN:
            depth += 1
        elif c in ')]}' + CLOSE:
            depth -= 1
        elif c == ',' and depth == 0:
            out.append(s[start:i].strip())
            start = i + 1
    out.append(s[start:].strip())
    return out


def rewrite_count(sc, s):
    """s with its aggregates count(p) / min(p) / max(p) of whole pipelines written as calls
    of generic block functions (statement-level lines only); None if it has none."""
    out, last, changed = [], 0, False
    spans = [(a, b) for a, b, _ in children(s)]
    for i, j, name, member in idents(s):
        if member or name not in ('count', 'min', 'max') or i < last or any(a <= i < b for a, b in spans):
            continue
        if not s.startswith('(', j):
            continue
        depth, k = 0, j
        while True:
            c = s[k]
            if c in '([{' + OPEN:
                depth += 1
            elif c in ')]}' + CLOSE:
                depth -= 1
                if depth == 0:
                    break
            k += 1
        inner = s[j + 1:k]
        if name != 'count' and len(split_args(inner)) != 1:
            continue
        g = sc.generic({'count': 'Fg_count', 'min': 'Fg_min', 'max': 'Fg_max'}[name])
        out.append(s[last:i])
        out.append(sc.call_marker(g, inner))
        last = k + 1
        changed = True
    if not changed:
        return None
    out.append(s[last:])
    return ''.join(out)


def generate_pair(seed, avoid=G.KNOWN_BUGS + KNOWN_BUGS):
    """(plain script, function version, {module path: text}) for a seed of gen_scripts."""
    sc = FnScript(random.Random(seed), random.Random(seed * 7 + 0xF00D), avoid)
    plain = sc.generate()
    main, modules = sc.assemble()
    return plain, main, modules
