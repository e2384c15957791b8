// SPDX-License-Identifier: GPL-2.0
/*
 * Reference model of an rdma.max write.
 *
 * Written from the contract, in a deliberately different shape from the
 * kernel's single-pass parser: first cut the whole input into tokens, then
 * judge each token on its own.
 *
 * The contract:
 *  - trailing spaces, tabs and newlines are dropped, in any mix;
 *  - tokens are maximal runs of bytes other than space and tab; any other
 *    byte (a newline that is not trailing, NUL, 0xff, '=') belongs to a token;
 *  - no token at all: -EINVAL;
 *  - token 0 is the device name;
 *  - every further token is KEY=VALUE, split at its first '=':
 *    no '=' -> -EINVAL; KEY exactly "hca_handle" or "hca_object", else
 *    -EINVAL; a KEY seen before -> -EINVAL; VALUE exactly "max" (2147483647)
 *    or one or more decimal digits (leading zeros allowed) worth at most
 *    2147483647, else -EINVAL.
 *
 * An rdma.mr_mem.max write is cut the same way and must have exactly two
 * tokens, the device and the value: "max" (2^64 - 1), or one or more
 * decimal digits, optionally followed by one of K, M, G, T in either case
 * (times 2^10, 2^20, 2^30, 2^40), worth at most 2^64 - 1; else -EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define MODEL_LIMIT	2147483647LL

static const char *const model_keys[MODEL_NKEYS] = { "hca_handle", "hca_object" };

struct span {
	size_t off, len;
};

static int is_sep(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static int is_trailing(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Cut buf[0, len) into tokens; returns how many, spans in *out (malloc'd). */
static size_t tokenize(const unsigned char *buf, size_t len, struct span **out)
{
	struct span *v = malloc(sizeof(*v) * (len / 2 + 1));
	size_t n = 0, i = 0;

	if (!v)
		abort();
	while (i < len) {
		if (is_sep(buf[i])) {
			i++;
			continue;
		}
		v[n].off = i;
		while (i < len && !is_sep(buf[i]))
			i++;
		v[n].len = i - v[n].off;
		n++;
	}
	*out = v;
	return n;
}

/* Index of the key spelled k[0, n), or -1. */
static int key_index(const unsigned char *k, size_t n)
{
	for (int i = 0; i < MODEL_NKEYS; i++) {
		const char *name = model_keys[i];
		size_t j;

		for (j = 0; j < n && name[j] != '\0'; j++)
			if ((unsigned char)name[j] != k[j])
				break;
		if (j == n && name[j] == '\0')
			return i;
	}
	return -1;
}

/* Value spelled s[0, n): its number, or -1 if it is not a valid one. */
static long long value_of(const unsigned char *s, size_t n)
{
	unsigned long long v = 0;
	size_t i, first;

	if (n == 3 && s[0] == 'm' && s[1] == 'a' && s[2] == 'x')
		return MODEL_LIMIT;
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++)
		if (!(s[i] >= '0' && s[i] <= '9'))
			return -1;
	/* All digits: skip the leading zeros, then at most 10 digits remain. */
	for (first = 0; first < n && s[first] == '0'; first++)
		;
	if (n - first > 10)
		return -1;
	for (i = first; i < n; i++)
		v = v * 10 + (s[i] - '0');	/* < 10^10, no overflow */
	return v <= (unsigned long long)MODEL_LIMIT ? (long long)v : -1;
}

void model_parse(const unsigned char *buf, size_t len, struct model_result *r)
{
	struct span *tok;
	size_t ntok, t;

	memset(r, 0, sizeof(*r));
	while (len > 0 && is_trailing(buf[len - 1]))
		len--;

	ntok = tokenize(buf, len, &tok);
	if (ntok == 0) {
		r->err = -EINVAL;
		goto out;
	}
	r->dev_off = tok[0].off;
	r->dev_len = tok[0].len;

	for (t = 1; t < ntok; t++) {
		const unsigned char *p = buf + tok[t].off;
		const unsigned char *eq = memchr(p, '=', tok[t].len);
		int k;
		long long v;

		if (!eq) {
			r->err = -EINVAL;
			goto out;
		}
		k = key_index(p, eq - p);
		if (k < 0 || (r->mask >> k) & 1) {
			r->err = -EINVAL;
			goto out;
		}
		v = value_of(eq + 1, tok[t].len - (size_t)(eq + 1 - p));
		if (v < 0) {
			r->err = -EINVAL;
			goto out;
		}
		r->mask |= 1u << k;
		r->value[k] = v;
	}
out:
	free(tok);
	if (r->err) {
		r->dev_off = r->dev_len = 0;
		r->mask = 0;
		r->value[0] = r->value[1] = 0;
	}
}

/* Value of rdma.mr_mem.max spelled s[0, n) into *v; 0 if it is not valid. */
static int bytes_of(const unsigned char *s, size_t n, unsigned long long *v)
{
	static const char units[] = "KMGT";
	unsigned __int128 x = 0;
	unsigned int shift = 0;
	size_t i;

	if (n == 3 && !memcmp(s, "max", 3)) {
		*v = ~0ULL;
		return 1;
	}
	for (i = 0; n > 0 && i < 4; i++)
		if (s[n - 1] == units[i] || s[n - 1] == units[i] + 32) {
			shift = 10 * (i + 1);
			n--;
			break;
		}
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (!(s[i] >= '0' && s[i] <= '9'))
			return 0;
		x = x * 10 + (s[i] - '0');
		if (x > ~0ULL)		/* stays below 2^68: no wrap */
			return 0;
	}
	x <<= shift;
	if (x > ~0ULL)
		return 0;
	*v = (unsigned long long)x;
	return 1;
}

void model_parse_bytes(const unsigned char *buf, size_t len,
		       struct model_bytes *r)
{
	struct span *tok;
	size_t ntok;

	memset(r, 0, sizeof(*r));
	while (len > 0 && is_trailing(buf[len - 1]))
		len--;
	ntok = tokenize(buf, len, &tok);
	if (ntok != 2 || !bytes_of(buf + tok[1].off, tok[1].len, &r->value)) {
		memset(r, 0, sizeof(*r));
		r->err = -EINVAL;
	} else {
		r->dev_off = tok[0].off;
		r->dev_len = tok[0].len;
	}
	free(tok);
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
