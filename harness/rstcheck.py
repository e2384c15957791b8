#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that reStructuredText files build without docutils warnings.

Usage: rstcheck.py FILE...

Sphinx-only roles and directives that the kernel's documentation uses
(:ref:, :doc:, toctree, kernel-doc ...) are registered as inert stand-ins,
so that plain docutils judges only the markup itself. Exit status 1 if any
file produces a message of level WARNING or above.
"""
import sys

import docutils.core
import docutils.utils
from docutils.parsers.rst import Directive, directives, roles


def inert_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    from docutils import nodes
    return [nodes.literal(rawtext, text)], []


class InertDirective(Directive):
    has_content = True
    optional_arguments = 99
    final_argument_whitespace = True
    option_spec = None

    def run(self):
        return []


for r in ("ref", "doc", "c:func", "c:type", "c:macro", "kbd", "manpage"):
    roles.register_local_role(r, inert_role)
for d in ("toctree", "kernel-doc", "only", "c:function", "c:type", "c:macro"):
    directives.register_directive(d, InertDirective)

bad = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        src = f.read()
    try:
        docutils.core.publish_doctree(
            src, source_path=path,
            settings_overrides={"report_level": docutils.utils.Reporter.WARNING_LEVEL,
                                "halt_level": docutils.utils.Reporter.WARNING_LEVEL,
                                "warning_stream": sys.stdout})
        print("rst: %s: no warnings" % path)
    except docutils.utils.SystemMessage as e:
        print("rst: %s: %s" % (path, e))
        bad += 1
sys.exit(1 if bad else 0)
