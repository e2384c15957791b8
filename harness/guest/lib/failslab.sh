# SPDX-License-Identifier: GPL-2.0
# failslab helpers, sourced: the knobs saved to $TMP/failslab.saved and
# put back at the end.

FS=/sys/kernel/debug/failslab
FS_KNOBS="probability interval times space verbose task-filter ignore-gfp-wait
cache-filter stacktrace-depth require-start require-end reject-start reject-end"

fs_set() { echo "$2" >"$FS/$1"; }

failslab_save() {
	for fs_k in $FS_KNOBS; do
		[ -e "$FS/$fs_k" ] && echo "$fs_k $(cat "$FS/$fs_k")"
	done >"$TMP/failslab.saved"
}

failslab_restore() {
	[ -f "$TMP/failslab.saved" ] || return 0
	fs_set probability 0
	while read -r fs_k fs_v; do
		fs_set "$fs_k" "$fs_v" 2>/dev/null
	done <"$TMP/failslab.saved"
}

# kallsyms_range ERE: "START END" (hex, no 0x), the lowest text symbol
# matching ERE to the first after the highest; compared as 16-digit
# strings (awk's numbers are doubles), unsorted (sorting costs much under TCG).
kallsyms_range() {
	awk -v re="$1" '
		$2 ~ /^[tT]$/ && length($1) == 16 {
			a[++n] = $1
			if ($3 ~ re && (lo == "" || $1 < lo)) lo = $1
			if ($3 ~ re && $1 > hi) hi = $1
		}
		END {
			if (lo == "") exit 1
			for (i = 1; i <= n; i++)
				if (a[i] > hi && (e == "" || a[i] < e)) e = a[i]
			if (e == "") exit 1
			print lo, e
		}' /proc/kallsyms
}

# failslab_aim START END: fail only allocations with an address of [START,
# END) on the stack, once armed; not kmemleak_alloc()'s, on the same stack.
failslab_aim() {
	fa_reject="0 0"
	fa_kr=$(kallsyms_range '^kmemleak_alloc$') && fa_reject=$fa_kr
	# shellcheck disable=SC2086
	set -- "$1" "$2" $fa_reject
	fs_set probability 0 && fs_set interval 1 && fs_set times -1 &&
		fs_set space 0 && fs_set verbose 1 && fs_set task-filter N &&
		fs_set ignore-gfp-wait N && fs_set cache-filter N &&
		fs_set stacktrace-depth 32 &&
		fs_set reject-start "0x$3" && fs_set reject-end "0x$4" &&
		fs_set require-start "0x$1" && fs_set require-end "0x$2"
}
