// SPDX-License-Identifier: GPL-2.0
/*
 * Reference model of rdma.max and rdma.mr_mem.max writes.
 *
 * Written from the contract (the grammar of upstream Linux 7.3 for
 * rdma.max, our extension of several devices per write, our rdma.mr_mem.max
 * file), in a deliberately different shape from the kernel's single-pass
 * parser: first cut the whole input into words, then judge each word on its
 * own, numbers through 128-bit arithmetic on the digits. The contract:
 *
 *  - the text ends at the first NUL byte;
 *  - bytes 9-13, 32 and 0xa0 (the kernel's isspace()) are dropped at both
 *    ends;
 *  - the first device name runs to the first space (0x20) only, and may be
 *    empty;
 *  - the rest is cut at spaces, tabs and newlines into words, empty ones
 *    dropped;
 *  - a word "index=N" (once per device): N is digits only, no 8 or 9 if it
 *    starts with 0, fewer than 24 bytes, read in decimal, at most 2^32 - 1;
 *  - rdma.max: a word "hca_handle=V"/"hca_object=V": V is "max" (2^31 - 1)
 *    or, in fewer than 24 bytes, an optional '-' and then nothing (only
 *    after a '-'), or "0x"/"0X" and one or more hex digits, or "0" and octal
 *    digits, or 1-9 and decimal digits; its magnitude saturates at
 *    2^64 - 1, a '-' negates it modulo 2^64, and the 64 bits read as a
 *    signed number must lie in [0, 2^31 - 1]; the last value of a key
 *    counts;
 *  - rdma.mr_mem.max: exactly one word that is not a key and no newline
 *    precedes: "max" (2^64 - 1), or an unsigned number as above (no sign)
 *    with an optional K/M/G/T in either case, no overflow at all;
 *  - a word that is not a key ("index=", and for rdma.max "hca_handle=" and
 *    "hca_object=") and is preceded by a newline names the next device;
 *    anything else: -EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "model.h"

#define MODEL_LIMIT	2147483647LL
#define NUM_TOO_LONG	24

typedef unsigned __int128 u128;

static const char *const model_keys[MODEL_NKEYS] = { "hca_handle=", "hca_object=" };

struct word {
	size_t off, len;
	int after_newline;
};

static int kernel_space(unsigned char c)
{
	return c == 9 || c == 10 || c == 11 || c == 12 || c == 13 ||
	       c == 32 || c == 160;
}

static int cuts(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static int starts(const unsigned char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

static int hexval(unsigned char c)
{
	const char *digits = "0123456789abcdef", *p;

	if (c >= 'A' && c <= 'F')
		c = c - 'A' + 'a';
	p = c ? strchr(digits, c) : NULL;
	return p ? (int)(p - digits) : -1;
}

/*
 * Digits of an unsigned C-notation number s[0, n), n >= 1: 1 and the value
 * (capped just above 2^64 - 1, *over set past it) if the whole is one.
 */
static int c_number(const unsigned char *s, size_t n, u128 *v, int *over)
{
	size_t i = 0;
	int base = 10;

	if (n >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval(s[2]) >= 0) {
		base = 16;
		i = 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	*v = 0;
	*over = 0;
	for (; i < n; i++) {
		int d = hexval(s[i]);

		if (d < 0 || d >= base)
			return 0;
		*v = *v * base + d;
		if (*v > (u128)~0ULL) {
			*over = 1;
			*v = (u128)~0ULL + 1;	/* stays small */
		}
	}
	return 1;
}

/* hca_handle=/hca_object= value s[0, n): its value, or -1. */
static long long count_value(const unsigned char *s, size_t n)
{
	unsigned long long mag, bits;
	int neg, over;
	u128 v = 0;

	if (n == 3 && !memcmp(s, "max", 3))
		return MODEL_LIMIT;
	if (n >= NUM_TOO_LONG)
		return -1;
	neg = n > 0 && s[0] == '-';
	if (n - neg == 0) {
		if (!neg)
			return -1;
	} else if (!c_number(s + neg, n - neg, &v, &over)) {
		return -1;
	}
	mag = v > (u128)~0ULL ? ~0ULL : (unsigned long long)v;
	bits = neg ? 0 - mag : mag;
	if (bits > (unsigned long long)MODEL_LIMIT)	/* negative or too big */
		return -1;
	return (long long)bits;
}

/* index= value s[0, n): 1 and *v, or 0. */
static int index_value(const unsigned char *s, size_t n, unsigned int *v)
{
	unsigned long long x = 0;

	if (n == 0 || n >= NUM_TOO_LONG)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || (s[0] == '0' && s[i] > '7'))
			return 0;
		x = x * 10 + (s[i] - '0');
		if (x > 0xffffffffULL)
			return 0;
	}
	*v = (unsigned int)x;
	return 1;
}

/* rdma.mr_mem.max value s[0, n): 1 and *v, or 0. */
static int bytes_value(const unsigned char *s, size_t n, unsigned long long *v)
{
	static const char units[] = "KMGT";
	unsigned int shift = 0;
	int over;
	u128 x;

	if (n == 3 && !memcmp(s, "max", 3)) {
		*v = ~0ULL;
		return 1;
	}
	for (int i = 0; n > 0 && i < 4; i++)
		if (s[n - 1] == units[i] || s[n - 1] == units[i] + 32) {
			shift = 10 * (i + 1);
			n--;
			break;
		}
	if (n == 0 || !c_number(s, n, &x, &over) || over)
		return 0;
	x <<= shift;
	if (x > (u128)~0ULL)
		return 0;
	*v = (unsigned long long)x;
	return 1;
}

int model_parse_write(const unsigned char *buf, size_t len, int bytes,
		      struct model_entry *out, int max)
{
	struct model_entry cur;
	struct word *w;
	size_t start = 0, end, i, nw = 0, dev_end;
	int n = 0, has_value = 0, err = 0;

	end = 0;
	while (end < len && buf[end])
		end++;
	while (end > 0 && kernel_space(buf[end - 1]))
		end--;
	while (start < end && kernel_space(buf[start]))
		start++;
	for (dev_end = start; dev_end < end && buf[dev_end] != ' '; dev_end++)
		;

	/* Words after the first device. */
	w = malloc(sizeof(*w) * (end - start + 1));
	if (!w)
		abort();
	i = dev_end < end ? dev_end + 1 : end;
	while (i < end) {
		int nl = 0;

		while (i < end && cuts(buf[i]))
			nl |= buf[i++] == '\n';
		if (i == end)
			break;
		w[nw].off = i;
		w[nw].after_newline = nl;
		while (i < end && !cuts(buf[i]))
			i++;
		w[nw].len = i - w[nw].off;
		nw++;
	}

	memset(&cur, 0, sizeof(cur));
	cur.dev_off = start;
	cur.dev_len = dev_end - start;
	for (i = 0; i < nw && !err; i++) {
		const unsigned char *s = buf + w[i].off;
		size_t k, l = w[i].len;
		int key = -1;

		if (starts(s, l, "index=")) {
			if (cur.has_index || !index_value(s + 6, l - 6, &cur.index))
				err = -EINVAL;
			cur.has_index = 1;
			continue;
		}
		for (k = 0; !bytes && k < MODEL_NKEYS; k++)
			if (starts(s, l, model_keys[k]))
				key = (int)k;
		if (key >= 0) {
			size_t kl = strlen(model_keys[key]);
			long long v = count_value(s + kl, l - kl);

			if (v < 0)
				err = -EINVAL;
			cur.value[key] = v;
			cur.mask |= 1u << key;
			continue;
		}
		if (w[i].after_newline) {
			if (bytes && !has_value) {
				err = -EINVAL;
				break;
			}
			if (n < max)
				out[n] = cur;
			n++;
			memset(&cur, 0, sizeof(cur));
			cur.dev_off = w[i].off;
			cur.dev_len = l;
			has_value = 0;
			continue;
		}
		if (!bytes || has_value || !bytes_value(s, l, &cur.bytes))
			err = -EINVAL;
		has_value = 1;
	}
	free(w);
	if (err || (bytes && !has_value))
		return -EINVAL;
	if (n < max)
		out[n] = cur;
	return n + 1;
}

/* The one device of a write in @e; false if it is malformed or names more. */
static bool model_parse_one(const unsigned char *buf, size_t len, int bytes,
			    struct model_entry *e)
{
	struct model_entry two[2];

	if (model_parse_write(buf, len, bytes, two, 2) != 1)
		return false;
	*e = two[0];
	return true;
}

void model_parse(const unsigned char *buf, size_t len, struct model_result *r)
{
	struct model_entry e;

	memset(r, 0, sizeof(*r));
	if (!model_parse_one(buf, len, 0, &e)) {
		r->err = -EINVAL;
		return;
	}
	r->dev_off = e.dev_off;
	r->dev_len = e.dev_len;
	r->has_index = e.has_index;
	r->index = e.index;
	r->mask = e.mask;
	memcpy(r->value, e.value, sizeof(r->value));
	for (int k = 0; k < MODEL_NKEYS; k++)
		if (!(r->mask & (1u << k)))
			r->value[k] = 0;
}

void model_parse_bytes(const unsigned char *buf, size_t len,
		       struct model_bytes *r)
{
	struct model_entry e;

	memset(r, 0, sizeof(*r));
	if (!model_parse_one(buf, len, 1, &e)) {
		r->err = -EINVAL;
		return;
	}
	r->dev_off = e.dev_off;
	r->dev_len = e.dev_len;
	r->has_index = e.has_index;
	r->index = e.index;
	r->value = e.bytes;
}

/* Print buf[0, len) as a C string literal body. */
void model_put_escaped(FILE *f, const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = buf[i];

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\\' || c == '"')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}
