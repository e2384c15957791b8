# SPDX-License-Identifier: GPL-2.0
# Entry points of the harness; see README.md.  Everything builds in build/.
#   make check   lint, build the debug kernel, boot it, run every test
#   make demo    build the release kernel, boot it, run the narrated demo
#   make shell   boot the release kernel into an interactive shell
#   make patch   write the patch series to build/patches/
#   make series-check  build every prefix of the series, KUnit at its patch
#   make kernel  build both kernels only
#   make bench   charge/uncharge cost, ours against upstream 6.12 (long)
#   make bench-smoke  one short bench case on both kernels
#   make clean   remove build/ except the pristine tree

H := harness

.PHONY: check demo shell patch series-check kernel deps tree clean bench bench-smoke

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

kernel: deps
	@bash $(H)/run.sh kernel

deps:
	@bash $(H)/deps.sh

tree: deps
	@bash $(H)/tree.sh

bench: deps
	@bash $(H)/bench/run.sh

bench-smoke: deps
	@bash $(H)/bench/run.sh --smoke

clean:
	@bash $(H)/run.sh clean
