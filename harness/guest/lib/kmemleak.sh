# SPDX-License-Identifier: GPL-2.0
# kmemleak helpers of the guest tests (busybox sh), sourced.  The caller
# sets KML (/sys/kernel/debug/kmemleak), MIN_AGE (6: kmemleak reports no
# object younger than 5 s) and TMP, a scratch folder.

# kmemleak_scan: a scan now; the exit status tells whether it could.
kmemleak_scan() {
	echo scan 2>/dev/null >"$KML"
}

# kmemleak_addrs: the addresses of the objects kmemleak reports.
kmemleak_addrs() {
	sed -n 's/^unreferenced object \(0x[0-9a-f]*\) .*/\1/p' "$KML"
}

# kmemleak_new_entries FILE: the entries whose address FILE does not list.
kmemleak_new_entries() {
	awk -v base="$1" '
		BEGIN { while ((getline a < base) > 0) old[a] = 1 }
		/^unreferenced object / { show = !($3 in old) }
		show
	' "$KML"
}

# kmemleak_start: what kmemleak reports now, in $TMP/kml.before.
kmemleak_start() {
	[ -r "$KML" ] && kmemleak_scan && kmemleak_addrs >"$TMP/kml.before"
}

# kmemleak_end fail|skip: the TAP result "kmemleak: no new unreferenced
# objects", after MIN_AGE s and two scans: fails for an object
# kmemleak_start did not see.  Without kmemleak: fail (a fix's test) or skip.
kmemleak_end() {
	if [ ! -e "$TMP/kml.before" ]; then
		if [ "$1" = fail ]; then
			fail "kmemleak: no new unreferenced objects # $KML not available"
		else
			skip "kmemleak: no new unreferenced objects" "$KML not available"
		fi
		return
	fi
	sleep "$MIN_AGE"
	kmemleak_scan
	sleep 1
	kmemleak_scan
	kmemleak_new_entries "$TMP/kml.before" >"$TMP/kml.new"
	kt_count=$(grep -c '^unreferenced object ' "$TMP/kml.new")
	if [ "$kt_count" = 0 ]; then
		pass "kmemleak: no new unreferenced objects"
	else
		fail "kmemleak: no new unreferenced objects"
		echo "kmemleak: $kt_count new unreferenced objects, the first ones:" | diag
		head -n 60 "$TMP/kml.new" | diag
	fi
}
