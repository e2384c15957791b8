#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Concurrent stress of the controller, bounded in time.  In
# stress/{a,b}/{x,y} a verbs_worker per leaf opens and closes contexts and
# creates and destroys PDs, CQs and MRs (1 byte to 8 pages at random
# offsets; one iteration in eight exits holding everything), while loops
# rewrite rdma.max and rdma.mr_mem.max at random (often below the usage),
# move the workers between leaves and the transient a/z and b/z, create
# and remove z (and z/w with +rdma), read every rdma.* file, and, in the
# middle part only, remove DEV and add it back.  Then: the workers saw only
# successes, EAGAIN and device-gone errors; every counter is 0; every file
# parses; with limits lifted, held charges add up exactly at every level;
# no leak (kmemleak), no splat.
# Environment: DEV (default siw0), STRESS_SECONDS (default 45).

DEV=${DEV:-siw0}
DURATION=${STRESS_SECONDS:-45}
CGROOT=/sys/fs/cgroup
S=$CGROOT/stress
LEAVES="a/x a/y b/x b/y"
# every cgroup the loops may find, the transient ones (z, z/w) included
CGS="$S $S/a $S/b $S/a/x $S/a/y $S/b/x $S/b/y $S/a/z $S/b/z $S/a/z/w $S/b/z/w"
KML=/sys/kernel/debug/kmemleak
TMP=${TMPDIR:-/tmp}/50-stress.$$
MIN_AGE=6	# kmemleak reports nothing younger than 5 s
MAX_LOOP=100000	# count bound of every loop, besides the time bound

. "$HLIB/tap.sh"
. "$HLIB/kmemleak.sh"
. "$HLIB/rdmacg.sh"
. "$HLIB/wait.sh"

# Seconds since boot, without a fork.
now() {
	read -r NOW _ </proc/uptime
	NOW=${NOW%.*}
}

# pick WORD...: one of the words at random, in $R.
pick() {
	shift $((RANDOM % $#))
	R=$1
}

dev_present() { [ -d "/sys/class/infiniband/$DEV" ]; }

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -e "$TMP/hold" ] && rm -f "$TMP/hold"
	wait
	dev_present || rdma link add "$DEV" type siw netdev lo 2>/dev/null
	[ -d "$S" ] && find "$S" -depth -type d -exec rmdir {} \; 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP"
mkfifo "$TMP/nap"	# nap's (wait.sh), before the loops share it

all_cgroups() { find "$S" -type d 2>/dev/null; }

# The loops write their counters to $TMP/NAME.count at the end, use
# builtins where they can (a fork costs much under TCG with KASAN), and
# collect the shell's error messages in $TMP/NAME.err.

# running: the loop (counter i) has time ($END) and count left.
running() {
	now
	[ "$NOW" -lt "$END" ] && [ "$i" -lt $MAX_LOOP ]
}

# error_counts NAME LABEL=ERE...: "LABEL=N" per ERE, N the lines of
# $TMP/NAME.err it matches, then "other=N", the lines none matches.
error_counts() {
	ec_file=$TMP/$1.err
	shift
	ec_all=
	for ec in "$@"; do
		printf '%s=%s ' "${ec%%=*}" "$(grep -cE "${ec#*=}" "$ec_file")"
		ec_all="$ec_all|${ec#*=}"
	done
	printf 'other=%s\n' "$(grep -vE "${ec_all#|}" "$ec_file" 2>/dev/null | wc -l)"
}

limits_loop() {
	RANDOM=$1
	i=0 ok=0 err=0 mr=0 mrok=0
	while running; do
		i=$((i + 1))
		pick $CGS
		cg=$R
		pick max max 0 1 2 3 4 8
		h=$R
		pick max max 0 1 2 5 10 30
		o=$R
		# bytes: from nothing to more than the workers ever hold
		pick max max 0 4096 12K 20000 32K 64K 100K 1M
		m=$R
		f=rdma.max
		case $((RANDOM % 4)) in
		0) txt="$DEV hca_handle=$h" ;;
		1) txt="$DEV hca_object=$o" ;;
		2) txt="$DEV hca_handle=$h hca_object=$o" ;;
		*) txt="$DEV $m" f=rdma.mr_mem.max mr=$((mr + 1)) ;;
		esac
		if echo "$txt" 2>>"$TMP/limits.err" >"$cg/$f"; then
			ok=$((ok + 1))
			[ "$f" = rdma.max ] || mrok=$((mrok + 1))
		else
			err=$((err + 1))
		fi
		nap 0.0$((RANDOM % 5))
	done
	echo "limits writes=$i ok=$ok mr_mem_writes=$mr mr_mem_ok=$mrok $(error_counts limits \
		"enodev=No such device" "nocgroup=can't create")" >"$TMP/limits.count"
}

migrate_loop() {
	RANDOM=$1
	i=0 ok=0
	while running; do
		i=$((i + 1))
		pick $WORKERS
		pid=$R
		pick a/x a/y b/x b/y a/z b/z a/z b/z
		echo "$pid" 2>>"$TMP/migrate.err" >"$S/$R/cgroup.procs" && ok=$((ok + 1))
		nap 0.0$((RANDOM % 10))
	done
	# ESRCH: the worker is done; ENODEV, ENOENT: z was removed; EBUSY: z
	# has z/w with +rdma (no internal processes)
	echo "migrate moves=$i ok=$ok $(error_counts migrate \
		"gone=No such process|No such device|can't create" "busy=busy")" >"$TMP/migrate.count"
}

churn_loop() {
	RANDOM=$1
	i=0 mk=0 rm=0 rmbusy=0
	while running; do
		i=$((i + 1))
		for side in a b; do
			z=$S/$side/z
			mkdir "$z" 2>/dev/null && mk=$((mk + 1))
			if [ $((RANDOM % 2)) = 0 ] && mkdir "$z/w" 2>/dev/null; then
				mk=$((mk + 1))
				echo +rdma 2>/dev/null >"$z/cgroup.subtree_control"
			fi
		done
		nap 0.3
		for side in a b; do
			z=$S/$side/z
			for d in "$z/w" "$z"; do
				[ -d "$d" ] || continue
				while read -r p; do
					echo "$p" 2>/dev/null >"$S/$side/x/cgroup.procs"
				done 2>/dev/null <"$d/cgroup.procs"
				if rmdir "$d" 2>/dev/null; then
					rm=$((rm + 1))
				else
					rmbusy=$((rmbusy + 1))
				fi
			done
		done
		nap 0.1
	done
	echo "churn cycles=$i mkdir=$mk rmdir=$rm rmdir_busy=$rmbusy" >"$TMP/churn.count"
}

reader_loop() {
	i=0 reads=0 gone=0 bad=0
	while running; do
		i=$((i + 1))
		for d in $CGS; do
			for f in rdma.max rdma.current rdma.peak rdma.events rdma.events.local \
				rdma.mr_mem.max rdma.mr_mem.current rdma.mr_mem.peak; do
				if ! while read -r line; do
					case "$f:$line" in
					rdma.mr_mem.*:*" "*" "*) bad_line ;;
					rdma.mr_mem.max:*" max") ;;
					rdma.mr_mem.*:*" "*[!0-9]*) bad_line ;;
					rdma.mr_mem.*:*" "[0-9]*) ;;
					rdma.events*:*" hca_handle"*" hca_object"*" mr_mem.max="*" mr_mem.alloc_fail="*) ;;
					rdma.events*:*) bad_line ;;
					*" hca_handle"*" hca_object"*) ;;
					*) bad_line ;;
					esac
				done 2>/dev/null <"$d/$f"; then
					gone=$((gone + 1))	# z or z/w is not there
					continue
				fi
				reads=$((reads + 1))
			done
		done
	done
	echo "reader rounds=$i reads=$reads gone=$gone malformed=$bad" >"$TMP/reader.count"
}

# bad_line: count $line of $d/$f as malformed (shown up to 5 times).
bad_line() {
	bad=$((bad + 1))
	[ $bad -gt 5 ] || echo "reader: $d/$f: \"$line\"" >>"$TMP/errors"
}

# The limits at the start and after each re-add of the device: tight
# enough for refusals at every level.
base_limits() {
	echo "$DEV hca_handle=6 hca_object=20" >"$S/rdma.max" &&
	echo "$DEV hca_handle=3" >"$S/a/rdma.max" &&
	echo "$DEV hca_object=6" >"$S/a/y/rdma.max" &&
	echo "$DEV hca_object=4" >"$S/b/x/rdma.max" &&
	echo "$DEV 96K" >"$S/rdma.mr_mem.max" &&
	echo "$DEV 40K" >"$S/b/rdma.mr_mem.max" &&
	echo "$DEV 24576" >"$S/a/x/rdma.mr_mem.max"
}

device_loop() {
	RANDOM=$1
	dels=0 adds=0 addfail=0 delfail=0
	sleep $((DURATION / 6))
	now
	while [ "$NOW" -lt $((END - DURATION * 3 / 10)) ] && [ $dels -lt 50 ]; do
		if rdma link del "$DEV" 2>>"$TMP/device.err"; then
			dels=$((dels + 1))
		else
			delfail=$((delfail + 1))
		fi
		sleep 0.$((RANDOM % 9 + 1))
		if rdma link add "$DEV" type siw netdev lo 2>>"$TMP/device.err"; then
			adds=$((adds + 1))
			base_limits 2>/dev/null
		else
			addfail=$((addfail + 1))
		fi
		sleep $((RANDOM % 3 + 2))
		now
	done
	dev_present || { rdma link add "$DEV" type siw netdev lo && adds=$((adds + 1)); }
	echo "device dels=$dels readds=$adds del_failed=$delfail add_failed=$addfail" >"$TMP/device.count"
}

echo "TAP version 13"
PLAN=9
echo "1..$PLAN"
echo "50-stress: start" >/dev/kmsg

# 1: setup
make_tree() {
	find "$S" -depth -type d -exec rmdir {} \; 2>/dev/null
	mkdir "$S" && echo +rdma >"$S/cgroup.subtree_control" &&
		mkdir "$S/a" "$S/b" &&
		echo +rdma >"$S/a/cgroup.subtree_control" &&
		echo +rdma >"$S/b/cgroup.subtree_control" &&
		mkdir "$S/a/x" "$S/a/y" "$S/b/x" "$S/b/y" && base_limits
}
setup "$S/{a,b}/{x,y} with rdma, limits at three levels" make_tree

# What kmemleak reports at the start of this test (kmemleak_start scans
# first) is not held against it.
kmemleak_start

# ---- run ----
now
START=$NOW
END=$((NOW + DURATION))
WORKERS=
i=0
for leaf in $LEAVES; do
	i=$((i + 1))
	verbs_worker -d "$DEV" -g "$S/$leaf" loop -t "$DURATION" -o 6 -s $((i * 7919)) \
		>"$TMP/worker.$i" 2>&1 &
	WORKERS="$WORKERS $!"
done
limits_loop 11 &
migrate_loop 23 &
churn_loop 37 &
reader_loop &
device_loop 41 &
wait
now
elapsed=$((NOW - START))

# 2: the workers
ok2=1
sum() { awk -v k="$1" '{ for (i = 1; i <= NF; i++) if (split($i, a, "=") == 2 && a[1] == k) { split(a[2], v, "/"); for (j = 1; j <= 3; j++) t[j] += v[j] } } END { printf "%d/%d/%d", t[1], t[2], t[3] }' "$TMP"/worker.*; }
for f in "$TMP"/worker.*; do
	grep -q '^verbs_worker: iter=.* other=0$' "$f" || { ok2=0; diag <"$f"; }
done
ctx=$(sum ctx) pd=$(sum pd) cq=$(sum cq) mr=$(sum mr)
iters=$(awk -F'[ =]' '/^verbs_worker: iter=/ { t += $3 } END { print t + 0 }' "$TMP"/worker.*)
refused=$(echo "$ctx $pd $cq $mr" | awk '{ for (i = 1; i <= NF; i++) { split($i, v, "/"); t += v[2] } print t + 0 }')
mr_bytes=$(awk '/^verbs_worker: iter=/ { for (i = 1; i <= NF; i++) if ($i ~ /^mr_bytes=/) t += substr($i, 10) } END { printf "%d", t }' "$TMP"/worker.*)
[ "$iters" -gt 0 ] && [ "$refused" -gt 0 ] || ok2=0
result "$ok2" "4 workers, $iters iterations in ${elapsed}s: only successes, EAGAIN refusals ($refused) and device-gone errors"
echo "# ok/EAGAIN/device-gone: contexts $ctx, PDs $pd, CQs $cq, MRs $mr ($mr_bytes bytes registered)"
# refusals at S's limits and below, of the last device (re-adds start over)
echo "# $S/rdma.events: $(grep "^$DEV " "$S/rdma.events")"

# 3: the other loops ran, without unexpected errors
for f in limits migrate churn reader device; do
	[ -f "$TMP/$f.count" ] && sed 's/^/# /' "$TMP/$f.count" || echo "# $f: no counters"
done
ok3=1
for w in "limits:other=0$" "limits: mr_mem_ok=[1-9]" "migrate:other=0$" "reader:malformed=0$" \
	"device: readds=[1-9]" "device: add_failed=0$" "churn: rmdir=[1-9]"; do
	grep -q "${w#*:}" "$TMP/${w%%:*}.count" || { echo "# ${w%%:*}: not \"${w#*:}\""; ok3=0; }
done
[ -s "$TMP/errors" ] && diag <"$TMP/errors"
[ -s "$TMP/device.err" ] && head -n 5 "$TMP/device.err" | diag
result "$ok3" "limits, migrations, cgroup churn, readers and device re-adds ran without unexpected errors"

# 4: every counter is back to 0
ok4=0
if dev_present; then
	for _ in 1 2 3 4 5; do
		rdmacg_check "$S" "$DEV" >"$TMP/current" && { ok4=1; break; }
		sleep 1
	done
fi
try "$DEV is present and every rdma.current and rdma.mr_mem.current under $S is 0" \
	test "$ok4" = 1 || diag <"$TMP/current"

# 5: every file parses
for d in $(all_cgroups); do
	grep -vE "^[a-z0-9_]+ hca_handle=(max|[0-9]+) hca_object=(max|[0-9]+)$" "$d/rdma.max" |
		sed "s|^|$d/rdma.max: |"
	for f in rdma.current rdma.peak; do
		grep -vE "^[a-z0-9_]+ hca_handle=[0-9]+ hca_object=[0-9]+$" "$d/$f" |
			sed "s|^|$d/$f: |"
	done
	for f in rdma.events rdma.events.local; do
		grep -vE "^[a-z0-9_]+ hca_handle.max=[0-9]+ hca_handle.alloc_fail=[0-9]+ hca_object.max=[0-9]+ hca_object.alloc_fail=[0-9]+ mr_mem.max=[0-9]+ mr_mem.alloc_fail=[0-9]+$" "$d/$f" |
			sed "s|^|$d/$f: |"
	done
	grep -vE "^[a-z0-9_]+ (max|[0-9]+)$" "$d/rdma.mr_mem.max" |
		sed "s|^|$d/rdma.mr_mem.max: |"
	for f in rdma.mr_mem.current rdma.mr_mem.peak; do
		grep -vE "^[a-z0-9_]+ [0-9]+$" "$d/$f" | sed "s|^|$d/$f: |"
	done
	for f in rdma.max rdma.mr_mem.max rdma.mr_mem.current rdma.mr_mem.peak; do
		grep -q "^$DEV " "$d/$f" || echo "$d/$f: no $DEV line"
	done
done >"$TMP/malformed" 2>&1
try "every rdma.max, rdma.current, rdma.peak, rdma.events(.local), rdma.mr_mem.{max,current,peak} line under $S parses" \
	test ! -s "$TMP/malformed" || head -n 20 "$TMP/malformed" | diag

# 6: exact hierarchical counts with known charges held, all limits lifted
ok6=1
for d in $(all_cgroups); do
	echo "$DEV hca_handle=max hca_object=max" >"$d/rdma.max" || ok6=0
	echo "$DEV max" >"$d/rdma.mr_mem.max" || ok6=0
done
touch "$TMP/hold"
# leaf: contexts PDs CQs MRs, bytes and offset of each MR -> handles,
# objects (an MR without a PD brings one) and MR bytes (page-rounded spans)
set -- "a/x 1 1 0 2 4096 100" "a/y 2 2 1 1 1 0" "b/x 1 3 0 3 65536 0" "b/y 1 0 2 1 10000 4000"
for spec in "$@"; do
	set -- $spec
	verbs_worker -d "$DEV" -g "$S/$1" hold -c "$2" -p "$3" -q "$4" -m "$5" -b "$6" -O "$7" \
		-w "$TMP/hold" -T 60 >"$TMP/hold.${1%/*}${1#*/}" 2>&1 &
done
# the bytes each worker must report: 2 x 8192, 4096, 3 x 65536, 16384
set -- "a/x 16384" "a/y 4096" "b/x 196608" "b/y 16384"
for spec in "$@"; do
	f=${spec% *}
	t="$TMP/hold.${f%/*}${f#*/}"
	wait_hold "$t"
	echo "# $f: $hold_line"
	echo "$hold_line" | grep -q " ctx_err=none pd_ok=.* pd_err=none .* cq_err=none .* mr_err=none mr_bytes=${spec#* } " ||
		ok6=0
done
# a/x 1+3, a/y 2+4, b/x 1+6, b/y 1+4; MR bytes a 20480, b 212992
rdmacg_check "$S" "$DEV" "a/x:1:3" "a/y:2:4" "a:3:7" "b/x:1:6" "b/y:1:4" "b:2:10" ".:5:17" \
	"a/x=16384" "a/y=4096" "a=20480" "b/x=196608" "b/y=16384" "b=212992" ".=233472" ||
	ok6=0
rm -f "$TMP/hold"
wait
rdmacg_check "$S" "$DEV" || ok6=0
result "$ok6" "held charges add up exactly at every level (5 contexts, 17 objects, 233472 MR bytes), and go back to 0"

# 7: removing the whole tree works
ok=0
find "$S" -depth -type d -exec rmdir {} \; && [ ! -d "$S" ] && ok=1
result "$ok" "the stress cgroups can all be removed"

# 8: kmemleak
kmemleak_end skip

# 9: kernel log
rdmacg_no_splat "50-stress: start" "$TMP/dmesg"

exit "$failed"
