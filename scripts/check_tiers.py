#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The shape of the code, checked: lib/'s tiers, the programs' parts, loops.

Usage: scripts/check_tiers.py [ROOT]   (default: the repository this is in)

Every C file of lib/ lives in a tier folder (lib/TIER/NAME.[ch]) and every
C file at the top is a program's: NAME.c or NAME_PART.c for a program NAME
of the Makefile. A unit is one file.c with its file.h, except a program's
main file NAME.c and its NAME.h: two units. The uses between
units are the #include "..." lines and the calls and data references the
linker resolves (nm of each file compiled alone). The rules:

  - a tier uses only itself and the tiers it is given below (TIERS);
  - a program uses any tier and its own parts, never another program's;
  - a part does not include its program's main header NAME.h, the main
    file's: what the parts share goes in a part's header below them;
  - no loop: no unit uses, through others, a unit that uses it (two parts
    that share something move it to a part below both of them);
  - a phase's part (one that exports a struct phase, NAME_*_phase) uses
    no other phase's part: phases meet only in the parts below them;
  - what a program's part exports is named with the program's prefix.

One line per violation on stdout, exit 1; silent, exit 0, when the code
keeps its shape. docs/design.md explains the tiers.

With CHECK_TIERS_CACHE set to a directory, each file's symbols are kept
there under a hash of the file, all the headers, the compiler and the
flags, and read back instead of compiled (tests/tiers.t checks many
copies of one tree, each with one file changed).
"""

import hashlib
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# What each tier may use besides itself. The order is the one of
# docs/design.md's map, from the bottom up.
TIERS = {
    "base": [],
    "kernel": ["base"],
    "load": ["base", "kernel"],
    "result": ["base"],
    "harness": ["base", "kernel", "load", "result"],
}

# Sources of which the build links one (the Makefile's HWLOC, NUMA and
# TRACEEVENT): each defines the same names as the others of its set.
ALTERNATIVES = [
    {"lib/base/topo_hwloc.c", "lib/base/topo_sysfs.c"},
    {"lib/base/numa_libnuma.c", "lib/base/numa_sysfs.c"},
    {"lib/kernel/trace_event_raw.c", "lib/kernel/trace_event_raw_none.c"},
]

# Sources whose headers are where pkg-config says (the Makefile's
# pkg-config --cflags); where it does not know them, the build links
# the other source of the set, and this one is not compiled here.
PKG_CFLAGS = {
    "lib/kernel/trace_event_raw.c": ["libtracefs", "libtraceevent"],
}


def pkg_cflags(path):
    """The -I flags @path needs, [] for none, None when not installed."""
    pkgs = PKG_CFLAGS.get(path)
    if not pkgs:
        return []
    try:
        r = subprocess.run(["pkg-config", "--cflags"] + pkgs, capture_output=True, text=True)
    except OSError:
        return None
    return r.stdout.split() if r.returncode == 0 else None


def alternatives(a, b):
    return any(a in alt and b in alt for alt in ALTERNATIVES)


CFLAGS = ["-c", "-O0", "-std=gnu11", "-D_GNU_SOURCE=", "-w"]


def programs(root):
    """The programs and tools the Makefile builds."""
    names = []
    with open(os.path.join(root, "Makefile")) as f:
        for line in f:
            m = re.match(r"^(PROGS|TOOLS)\s*:?=\s*(.*)$", line)
            if m:
                names += m.group(2).split()
    return names


class Shape:
    def __init__(self, root):
        self.root = root
        self.progs = programs(root)
        self.errors = []
        self.unit_of = {}	# path -> unit
        self.kind = {}		# unit -> tier name or "program:NAME"
        self.files = []
        # unit -> {used unit: the first reason seen}
        self.uses = {}
        self.phases = set()	# the units that export a struct phase

    def error(self, msg):
        self.errors.append(msg)

    def program_of(self, base):
        best = None
        for p in self.progs:
            if base == p or base.startswith(p + "_"):
                if best is None or len(p) > len(best):
                    best = p
        return best

    def collect(self):
        lib = os.path.join(self.root, "lib")
        for dirpath, _, names in os.walk(lib):
            for n in sorted(names):
                if not n.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, n), self.root)
                parts = path.split(os.sep)
                if len(parts) != 3 or parts[1] not in TIERS:
                    self.error(f"{path}: in no tier folder (lib/TIER/, TIER one of {', '.join(TIERS)})")
                    continue
                unit = path[:-2]
                self.add(path, unit, parts[1])
        for n in sorted(os.listdir(self.root)):
            if not n.endswith((".c", ".h")):
                continue
            prog = self.program_of(n[:-2])
            if prog is None:
                self.error(f"{n}: belongs to no program of the Makefile (NAME.c or NAME_PART.c)")
                continue
            # The main file and its header are two units: a part that
            # includes the header is named for it (main_header), not
            # reported as a loop through the main file.
            unit = n if n[:-2] == prog else n[:-2]
            self.add(n, unit, "program:" + prog)

    def add(self, path, unit, kind):
        self.files.append(path)
        self.unit_of[path] = unit
        self.kind[unit] = kind
        self.uses.setdefault(unit, {})

    def use(self, a, b, why):
        if a != b and b not in self.uses[a]:
            self.uses[a][b] = why

    def includes(self):
        pat = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
        for path in self.files:
            with open(os.path.join(self.root, path)) as f:
                for lineno, line in enumerate(f, 1):
                    m = pat.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    cands = [os.path.join(os.path.dirname(path), inc), inc]
                    target = None
                    for c in cands:
                        c = os.path.normpath(c)
                        if c in self.unit_of:
                            target = c
                            break
                    if target is None:
                        self.error(f"{path}:{lineno}: includes \"{inc}\", which is none of the checked files")
                        continue
                    self.use(self.unit_of[path], self.unit_of[target],
                             f"{path}:{lineno} includes \"{inc}\"")
                    self.main_header(path, lineno, inc, target)

    def main_header(self, path, lineno, inc, target):
        """A part (or a part's header) that includes its program's NAME.h."""
        kind = self.kind[self.unit_of[path]]
        if not kind.startswith("program:"):
            return
        prog = kind[8:]
        if target != prog + ".h" or path in (prog + ".c", prog + ".h"):
            return
        self.error(f"{path}:{lineno}: includes \"{inc}\", the header of the main file "
                   f"{prog}.c: a part reaches up into its program's main file; what "
                   f"the parts share goes in a part's header below them")

    def symbols(self, cc):
        sources = [p for p in self.files if p.endswith(".c")]
        tmp = tempfile.mkdtemp(prefix="tiers.")
        cache = os.environ.get("CHECK_TIERS_CACHE")
        # What every object depends on besides its own source: the
        # compiler, the flags and all the headers (one header changed:
        # every object is built again)
        common = hashlib.sha256(repr([cc, CFLAGS]).encode())
        for h in sorted(p for p in self.files if p.endswith(".h")):
            with open(os.path.join(self.root, h), "rb") as f:
                common.update(h.encode() + b"\0" + f.read() + b"\0")

        def cached(path, extra):
            """The cache file of @path's symbols, None without a cache."""
            if not cache:
                return None
            key = common.copy()
            with open(os.path.join(self.root, path), "rb") as f:
                key.update(repr([path, extra]).encode() + f.read())
            return os.path.join(cache, key.hexdigest())

        def build(path):
            obj = os.path.join(tmp, path.replace(os.sep, "__") + ".o")
            extra = pkg_cflags(path)
            if extra is None:
                return path, "", None
            memo = cached(path, extra)
            if memo and os.path.exists(memo):
                with open(memo) as f:
                    return path, f.read(), None
            r = subprocess.run([cc] + CFLAGS + extra + ["-iquote", self.root, "-o", obj,
                                os.path.join(self.root, path)],
                               capture_output=True, text=True)
            if r.returncode:
                return path, None, r.stderr.strip().splitlines()[:3]
            nm = subprocess.run(["nm", "-P", obj], capture_output=True, text=True)
            os.unlink(obj)
            if memo and nm.returncode == 0:
                os.makedirs(cache, exist_ok=True)
                with open("%s.%d.tmp" % (memo, os.getpid()), "w") as f:
                    f.write(nm.stdout)
                os.replace("%s.%d.tmp" % (memo, os.getpid()), memo)
            return path, nm.stdout, None

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            results = list(ex.map(build, sources))
        os.rmdir(tmp)
        # Each program links lib/ and its own files: its names are its own.
        defined, undefined = {}, {}	# scope (None: lib/) -> {sym: path}
        for path, out, err in results:
            if out is None:
                self.error(f"{path}: does not compile alone: {' '.join(err)}")
                continue
            scope = self.program(path)
            undefined[path] = []
            for line in out.splitlines():
                f = line.split()
                if len(f) < 2:
                    continue
                sym, t = f[0], f[1]
                if t == "U":
                    undefined[path].append(sym)
                elif t in "TDBRGSVW":	# global definitions
                    if t in "DR" and sym.endswith("_phase"):
                        self.phases.add(self.unit_of[path])
                    have = defined.setdefault(scope, {})
                    if sym in have and have[sym] != path and not alternatives(path, have[sym]):
                        self.error(f"{path}: defines {sym}, as {have[sym]} does")
                    have[sym] = path
        lib = defined.get(None, {})
        for path, syms in undefined.items():
            own = defined.get(self.program(path), {})
            for s in syms:
                where = own.get(s) or lib.get(s)
                if where:
                    self.use(self.unit_of[path], self.unit_of[where],
                             f"{path} uses {s}()")
        for scope, syms in defined.items():
            if scope is None:
                continue
            for sym, path in sorted(syms.items()):
                if sym in lib:
                    self.error(f"{path}: defines {sym}, as {lib[sym]} does")
                if sym != "main" and not sym.startswith(scope + "_"):
                    self.error(f"{path}: exports {sym}, not named {scope}_*: a program's parts export names with its prefix")

    def program(self, path):
        kind = self.kind[self.unit_of[path]]
        return kind[8:] if kind.startswith("program:") else None

    def rules(self):
        for a, used in sorted(self.uses.items()):
            ka = self.kind[a]
            for b, why in sorted(used.items()):
                kb = self.kind[b]
                if ka.startswith("program:"):
                    if kb.startswith("program:") and kb != ka:
                        self.error(f"{why}: {ka[8:]} uses {kb[8:]}'s part {b}")
                    elif a in self.phases and b in self.phases:
                        self.error(f"{why}: the phase {a} uses the phase {b}; what "
                                   f"phases share goes in a part below both")
                    continue
                if kb.startswith("program:"):
                    self.error(f"{why}: lib/ uses the program {kb[8:]}")
                elif kb != ka and kb not in TIERS[ka]:
                    below = ", ".join(TIERS[ka])
                    self.error(f"{why}: {ka} uses {kb}; " +
                               (f"{ka} may use only {below} below it" if below
                                else f"{ka} uses no other tier"))

    def loops(self):
        # Tarjan's strongly connected components, iteratively.
        index, low, on, stack, comps = {}, {}, set(), [], []
        counter = [0]
        for start in sorted(self.uses):
            if start in index:
                continue
            work = [(start, iter(sorted(self.uses[start])))]
            index[start] = low[start] = counter[0]
            counter[0] += 1
            stack.append(start)
            on.add(start)
            while work:
                v, it = work[-1]
                nxt = next(it, None)
                if nxt is not None:
                    if nxt not in index:
                        index[nxt] = low[nxt] = counter[0]
                        counter[0] += 1
                        stack.append(nxt)
                        on.add(nxt)
                        work.append((nxt, iter(sorted(self.uses[nxt]))))
                    elif nxt in on:
                        low[v] = min(low[v], index[nxt])
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
        for comp in comps:
            self.error("loop: " + self.cycle(comp))

    def cycle(self, comp):
        """One cycle through the component, each step with its reason."""
        members = set(comp)
        first = comp[0]
        # Breadth-first from first's successors back to first.
        prev = {}
        queue = [first]
        seen = {first}
        while queue:
            v = queue.pop(0)
            for w in sorted(self.uses[v]):
                if w not in members:
                    continue
                if w == first:
                    path = [v]
                    while path[-1] != first:
                        path.append(prev[path[-1]])
                    path.reverse()
                    path.append(first)
                    return "; ".join(self.uses[path[i]][path[i + 1]]
                                     for i in range(len(path) - 1))
                if w not in seen:
                    seen.add(w)
                    prev[w] = v
                    queue.append(w)
        return " <-> ".join(comp)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.isfile(os.path.join(root, "Makefile")):
        print(f"check_tiers: {root}: no Makefile: not an isolbench tree", file=sys.stderr)
        return 1
    s = Shape(root)
    s.collect()
    s.includes()
    s.symbols(os.environ.get("CC", "cc"))
    s.rules()
    s.loops()
    for e in s.errors:
        print(e)
    return 1 if s.errors else 0


if __name__ == "__main__":
    sys.exit(main())
