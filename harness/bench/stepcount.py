# SPDX-License-Identifier: GPL-2.0
"""Instructions per function of one kernel call, stepped through QEMU's
gdb stub: what perf would give if this machine had counters (it has none)
and QEMU's TCG plugins (Debian 12 ships none).

    qemu-system-x86_64 ... -append "... nokaslr kunit.enable=0" -s -S &
    FUNC=rdmacg_pool_get_locked SKIP=100 N=3 gdb -batch -x stepcount.py vmlinux

Skips SKIP calls of FUNC, then for each of the next N steps every
instruction until FUNC returns (its callees included) and prints the
count per function.  Interrupts are masked while stepping (QEMU's
default), and kunit.enable=0 keeps the boot-time KUnit suite out.
"""
import collections
import os

import gdb

FUNC = os.environ.get("FUNC", "rdmacg_try_charge")
SKIP, N = int(os.environ.get("SKIP", "2")), int(os.environ.get("N", "2"))


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & 0xffffffffffffffff


gdb.execute("set pagination off")
gdb.execute("target remote :1234")
bp = gdb.Breakpoint(FUNC)
for call in range(1, SKIP + N + 1):
    gdb.execute("continue")
    if call <= SKIP:
        continue
    bp.enabled = False
    sp0, pcs = reg("sp"), collections.Counter()
    while reg("sp") <= sp0:
        pcs[reg("pc")] += 1
        gdb.execute("stepi", to_string=True)
    bp.enabled = True
    fns = collections.Counter()
    for pc, n in pcs.items():
        sym = gdb.execute("info symbol 0x%x" % pc, to_string=True)
        fns[sym.split(" in ")[0].split(" + ")[0].strip()] += n
    print("call %d of %s: %d instructions" % (call, FUNC, sum(pcs.values())))
    for fn, n in fns.most_common():
        print("  %6d %s" % (n, fn))
gdb.execute("detach")
