# SPDX-License-Identifier: GPL-2.0
# kmemleak helpers, sourced (`. "$HLIB/kmemleak.sh"`) by the guest
# tests, which busybox sh runs; not a test itself.
#
# Every helper expects the caller to have set KML to the kmemleak file
# (/sys/kernel/debug/kmemleak).  The caller also keeps MIN_AGE (6: kmemleak
# reports no object younger than 5 s) and sleeps that long before its
# final scans, or has kmemleak_end do it; and TMP, a scratch folder.

# Have kmemleak scan memory now, by writing "scan" to KML; the shell's
# error message if that fails is discarded, the exit status tells.
kmemleak_scan() {
	echo scan 2>/dev/null >"$KML"
}

# Addresses of every object in the current kmemleak report (reads KML).
kmemleak_addrs() {
	sed -n 's/^unreferenced object \(0x[0-9a-f]*\) .*/\1/p' "$KML"
}

# The report entries whose address is not listed in file $1, as written by
# kmemleak_addrs (reads KML).
kmemleak_new_entries() {
	awk -v base="$1" '
		BEGIN { while ((getline a < base) > 0) old[a] = 1 }
		/^unreferenced object / { show = !($3 in old) }
		show
	' "$KML"
}

# kmemleak_start: note in $TMP/kml.before the objects kmemleak reports
# now, if kmemleak is there (KML readable and scannable).
kmemleak_start() {
	[ -r "$KML" ] && kmemleak_scan && kmemleak_addrs >"$TMP/kml.before"
}

# kmemleak_end fail|skip: one TAP result, "kmemleak: no new unreferenced
# objects" (pass and fail come from tap.sh): waits MIN_AGE seconds, has
# kmemleak scan twice, and fails if the report lists an object that
# kmemleak_start did not, with the first ones as diagnostics.  Without
# kmemleak, the result fails (a fix's test: the leak is the point) or is
# skipped.
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
