# SPDX-License-Identifier: GPL-2.0
"""The bases of harness/bases, for the Python scripts (lib.sh reads the file too)."""
import os

HARNESS = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HARNESS, "bases")) as _f:
    ROWS = [l.split() for l in _f if l.strip() and not l.startswith("#")]
VERSION = {r[0]: r[1] for r in ROWS}
MAIN = ROWS[0][0]
BASE = os.environ.get("BASE") or MAIN


def tag(base):
    return "v%s-debian" % VERSION[base]
