// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA cgroup controller: parsing of rdma.max and rdma.mr_mem.max writes
 * (see rdma_parse.h).
 */

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "rdma_parse.h"

const char *const rdmacg_names[RDMACG_RESOURCE_MAX] = {
	[RDMACG_RESOURCE_HCA_HANDLE]	= "hca_handle",
	[RDMACG_RESOURCE_HCA_OBJECT]	= "hca_object",
	[RDMACG_RESOURCE_MR_MEM]	= "mr_mem",
};

static bool rdmacg_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Return the next token in [*pos, end) and its length in *len, and move
 * *pos past it; NULL when only blanks are left.
 */
static const char *rdmacg_next_token(const char **pos, const char *end,
				     size_t *len)
{
	const char *s = *pos, *t;

	while (s < end && rdmacg_is_blank(*s))
		s++;
	if (s == end)
		return NULL;
	for (t = s; t < end && !rdmacg_is_blank(*t); t++)
		;
	*pos = t;
	*len = t - s;
	return s;
}

/* Accept "max", or a decimal number from 0 to RDMACG_MAX in digits only. */
static bool rdmacg_parse_value(const char *s, size_t len, int *value)
{
	int v = 0, digit;
	size_t i;

	if (len == 3 && !memcmp(s, "max", 3)) {
		*value = RDMACG_MAX;
		return true;
	}
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		digit = s[i] - '0';
		if (v > (RDMACG_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*value = v;
	return len > 0;
}

/*
 * The resource of rdma.max named by s[0..len), or RDMACG_RESOURCE_MAX if
 * none is.
 */
static enum rdmacg_resource_type rdmacg_parse_key(const char *s, size_t len)
{
	enum rdmacg_resource_type type;

	for (type = 0; type < RDMACG_NR_COUNTS; type++)
		if (strlen(rdmacg_names[type]) == len &&
		    !memcmp(s, rdmacg_names[type], len))
			return type;
	return RDMACG_RESOURCE_MAX;
}

/* Parse one "KEY=VALUE" token into @req, refusing a key seen before. */
static bool rdmacg_parse_setting(const char *tok, size_t len,
				 struct rdmacg_max_req *req)
{
	const char *eq = memchr(tok, '=', len);
	enum rdmacg_resource_type type;

	if (!eq)
		return false;
	type = rdmacg_parse_key(tok, eq - tok);
	if (type == RDMACG_RESOURCE_MAX || (req->mask & BIT(type)))
		return false;
	if (!rdmacg_parse_value(eq + 1, tok + len - eq - 1, &req->value[type]))
		return false;
	req->mask |= BIT(type);
	return true;
}

/* Trim blanks and newlines at the end of [buf, *end). */
static void rdmacg_trim_end(const char *buf, const char **end)
{
	while (*end > buf && (rdmacg_is_blank((*end)[-1]) || (*end)[-1] == '\n'))
		(*end)--;
}

/**
 * rdmacg_parse_max() - parse "DEV [KEY=VALUE]..." as written to rdma.max
 * @buf: the text; need not be NUL-terminated
 * @len: its length
 * @req: the result, valid only on success
 *
 * Tokens are separated by any run of spaces and tabs; blanks at either end
 * and newlines at the end are ignored. Each key may appear once.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if the text is malformed.
 */
int rdmacg_parse_max(const char *buf, size_t len, struct rdmacg_max_req *req)
{
	const char *pos = buf, *end = buf + len, *tok;
	size_t tok_len;

	memset(req, 0, sizeof(*req));
	rdmacg_trim_end(buf, &end);

	req->dev = rdmacg_next_token(&pos, end, &req->dev_len);
	if (!req->dev)
		return -EINVAL;
	while ((tok = rdmacg_next_token(&pos, end, &tok_len)))
		if (!rdmacg_parse_setting(tok, tok_len, req))
			return -EINVAL;
	return 0;
}

/*
 * Accept "max", or decimal digits with an optional binary suffix (K, M, G
 * or T, either case), whose value fits in 64 bits.
 */
static bool rdmacg_parse_size(const char *s, size_t len, u64 *value)
{
	static const char suffixes[] = "kmgt";
	unsigned int shift = 0;
	const char *suffix;
	u64 v = 0;
	size_t i;

	if (len == 3 && !memcmp(s, "max", 3)) {
		*value = RDMACG_MR_MEM_MAX;
		return true;
	}
	suffix = len ? memchr(suffixes, s[len - 1] | 0x20, 4) : NULL;
	if (suffix) {
		shift = 10 * (suffix - suffixes + 1);
		len--;
	}
	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (RDMACG_MR_MEM_MAX - (s[i] - '0')) / 10)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > RDMACG_MR_MEM_MAX >> shift)
		return false;
	*value = v << shift;
	return true;
}

/**
 * rdmacg_parse_bytes() - parse "DEV VALUE" as written to rdma.mr_mem.max
 * @buf: the text; need not be NUL-terminated
 * @len: its length
 * @req: the result, valid only on success
 *
 * The two tokens are separated by any run of spaces and tabs; blanks at
 * either end and newlines at the end are ignored.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if the text is malformed.
 */
int rdmacg_parse_bytes(const char *buf, size_t len,
		       struct rdmacg_bytes_req *req)
{
	const char *pos = buf, *end = buf + len, *tok;
	size_t tok_len, extra_len;

	memset(req, 0, sizeof(*req));
	rdmacg_trim_end(buf, &end);

	req->dev = rdmacg_next_token(&pos, end, &req->dev_len);
	tok = req->dev ? rdmacg_next_token(&pos, end, &tok_len) : NULL;
	if (!tok || rdmacg_next_token(&pos, end, &extra_len))
		return -EINVAL;
	return rdmacg_parse_size(tok, tok_len, &req->value) ? 0 : -EINVAL;
}

/**
 * rdmacg_next_line() - the next line of a write that holds more than blanks
 * @pos: where to start; moved past the line and its newline
 * @end: the end of the text
 * @len: set to the length of the line, without its newline
 *
 * Context: Any context.
 * Return: the line, or %NULL when only blanks and newlines are left.
 */
const char *rdmacg_next_line(const char **pos, const char *end, size_t *len)
{
	const char *s, *nl, *t;

	while (*pos < end) {
		s = *pos;
		nl = memchr(s, '\n', end - s);
		*pos = nl ? nl + 1 : end;
		*len = (nl ?: end) - s;
		for (t = s; t < s + *len && rdmacg_is_blank(*t); t++)
			;
		if (t < s + *len)
			return s;
	}
	return NULL;
}
