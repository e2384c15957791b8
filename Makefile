# SPDX-License-Identifier: GPL-2.0
# Entry points of the harness; see README.md and docs/commands.md.  Every target works on a base:
# BASE=7.3 (Linux 7.3.4, mainline) or BASE=6.12 (6.12.117, the backport);
# the bases are in harness/bases.  A base builds in build/BASE/.
#   make check   lint, build the debug kernel, boot it, run every test
#   make demo    build the release kernel, boot it, run the narrated demo
#   make shell   boot the release kernel into an interactive shell
#   make patch   write the submissions (fixes, drivers, controller) with
#                their cover letters to build/BASE/patches/NAME/, signed off
#                by SUBMITTER="Name <mail>" or git config (DRAFT=1: none)
#   make series-check  build every prefix of the series, KUnit at its patch
#   make fixes-check   for each leading fix of the series: its test fails on
#                      the base + the fixes before it, passes with it (long)
#   make series-git    build/BASE/series-git: a kernel git tree with the
#                      series as commits on the base, to edit (rebase -i,
#                      --fixup)
#   make series-save   write build/BASE/series-git back: harness/series/BASE/
#                      and, on the main base, the in-tree files
#   make kernel  build both kernels only
#   make mutations  remove each mechanism a KUnit case guards, one at a
#                   time, and show which case catches it (about 30 min)
#   make source  install the Linux source of the base (7.3.4 comes from
#                trixie-backports through a private apt list)
#   make kcsan   the concurrent tests under KCSAN, the data race detector
#   make bench   charge/uncharge cost, ours against the pristine base (long)
#   make bench-smoke  one short bench case on both kernels
#   make clean   remove build/BASE/ except the pristine tree

H := harness

.PHONY: check demo shell patch series-check fixes-check series-git series-save kernel deps tree clean bench bench-smoke mutations source kcsan

check:
	@bash $(H)/check.sh

demo: deps
	@bash $(H)/run.sh demo

shell: deps
	@bash $(H)/run.sh shell

patch: deps
	@bash $(H)/run.sh patch

series-check: deps
	@bash $(H)/series-check.sh

fixes-check: deps
	@bash $(H)/series-check.sh fixes

series-git: deps
	@bash $(H)/tree.sh >/dev/null
	@bash $(H)/series.sh git

series-save:
	@bash $(H)/series.sh save

kernel: deps
	@bash $(H)/run.sh kernel

deps:
	@bash $(H)/deps.sh

tree: deps
	@bash $(H)/tree.sh

mutations: deps
	@python3 $(H)/mutate.py

source:
	@bash $(H)/source.sh

kcsan: deps
	@bash $(H)/check.sh kcsan

bench: deps
	@bash $(H)/bench/run.sh

bench-smoke: deps
	@bash $(H)/bench/run.sh --smoke

clean:
	@bash $(H)/run.sh clean
