// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA cgroup controller: parsing of the writes of limits (see the grammar
 * in rdma_parse.h).
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

/*
 * A number argument of 24 bytes or more is refused whatever it spells, as
 * upstream refuses it (lib/parser.c copies it into a buffer of that size).
 */
#define RDMACG_NUM_LEN_LIMIT	24

/* The key that tells devices of the same name apart. */
#define RDMACG_INDEX_KEY	"index="

/*
 * The bytes that the kernel's isspace() takes for whitespace, which a
 * write loses at both ends: \t, \n, \v, \f, \r, space and 0xa0. Spelt out
 * so that user space builds the parser with the same set.
 */
static bool rdmacg_is_space(unsigned char c)
{
	return (c >= '\t' && c <= '\r') || c == ' ' || c == 0xa0;
}

/* The bytes that separate the tokens after the device name. */
static bool rdmacg_is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* The value of hex digit @c, or 16 if it is none. */
static unsigned int rdmacg_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return 16;
}

/*
 * Read an unsigned number in C notation from [*s, end): "0x" or "0X" and
 * at least one hex digit, else "0" and octal digits, else decimal digits.
 * *s is moved past the digits, which may be none; *value is the number, or
 * U64_MAX once it overflows. Return: whether it overflowed.
 */
static bool rdmacg_scan_number(const char **s, const char *end, u64 *value)
{
	const char *p = *s;
	unsigned int base = 10, digit;
	bool overflow = false;
	u64 v = 0;

	if (p < end && *p == '0') {
		base = 8;
		if (end - p > 2 && (p[1] | 0x20) == 'x' && rdmacg_digit(p[2]) < 16) {
			base = 16;
			p += 2;
		}
	}
	for (; p < end && (digit = rdmacg_digit(*p)) < base; p++) {
		if (overflow || v > (U64_MAX - digit) / base) {
			overflow = true;
			v = U64_MAX;
			continue;
		}
		v = v * base + digit;
	}
	*s = p;
	*value = v;
	return overflow;
}

/*
 * Read the value of "hca_handle=" or "hca_object=" from [s, end) as
 * upstream does: "max", or a number of at most %RDMACG_NUM_LEN_LIMIT - 1
 * bytes, an optional '-' and then C notation, whose 64 bits, negated after
 * a '-' and taken as a long, lie in 0..INT_MAX (see rdma_parse.h).
 */
static bool rdmacg_parse_count(const char *s, const char *end, int *value)
{
	bool neg = s < end && *s == '-';
	const char *p = s + neg;
	unsigned long bits;
	long v;
	u64 n;

	if (end - s == 3 && !memcmp(s, "max", 3)) {
		*value = RDMACG_MAX;
		return true;
	}
	if (end - s >= RDMACG_NUM_LEN_LIMIT)
		return false;
	rdmacg_scan_number(&p, end, &n);
	/* A lone '-' reads as 0; without it, at least one digit is needed. */
	if (p != end || p == s)
		return false;
	bits = n;
	if (neg)
		bits = -bits;
	v = bits;
	if (v < 0 || v > INT_MAX)
		return false;
	*value = v;
	return true;
}

/*
 * Read N of "index=N" from [s, end): decimal digits that would read as
 * octal or decimal in C notation ("0" then 0-7, or 1-9 then 0-9), of at
 * most %RDMACG_NUM_LEN_LIMIT - 1 bytes, worth at most U32_MAX.
 */
static bool rdmacg_parse_index(const char *s, const char *end, u32 *index)
{
	bool octal = s < end && *s == '0';
	u64 v = 0;

	if (s == end || end - s >= RDMACG_NUM_LEN_LIMIT)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > (octal ? '7' : '9'))
			return false;
		v = v * 10 + (*s - '0');
		if (v > U32_MAX)
			return false;
	}
	*index = v;
	return true;
}

/*
 * Read the limit of rdma.mr_mem.max from [s, end): "max", or an unsigned
 * number in C notation with an optional binary suffix (K, M, G or T, either
 * case), worth at most U64_MAX.
 */
static bool rdmacg_parse_size(const char *s, const char *end, u64 *value)
{
	static const char suffixes[] = "kmgt";
	const char *suffix, *p = s;
	unsigned int shift = 0;
	u64 v;

	if (end - s == 3 && !memcmp(s, "max", 3)) {
		*value = RDMACG_MR_MEM_MAX;
		return true;
	}
	suffix = s < end ? memchr(suffixes, end[-1] | 0x20, 4) : NULL;
	if (suffix) {
		shift = 10 * (suffix - suffixes + 1);
		end--;
	}
	if (rdmacg_scan_number(&p, end, &v) || p != end || p == s)
		return false;
	if (v > RDMACG_MR_MEM_MAX >> shift)
		return false;
	*value = v << shift;
	return true;
}

/* Whether [tok, tok + len) starts with @key. */
static bool rdmacg_has_key(const char *tok, size_t len, const char *key)
{
	size_t key_len = strlen(key);

	return len >= key_len && !memcmp(tok, key, key_len);
}

/*
 * The resource of rdma.max whose key "NAME=" starts [tok, tok + len), or
 * %RDMACG_RESOURCE_MAX if none does; *arg is set to what follows the '='.
 */
static enum rdmacg_resource_type rdmacg_count_key(const char *tok, size_t len,
						  const char **arg)
{
	enum rdmacg_resource_type type;
	size_t n;

	for (type = 0; type < RDMACG_NR_COUNTS; type++) {
		n = strlen(rdmacg_names[type]);
		if (len > n && tok[n] == '=' && !memcmp(tok, rdmacg_names[type], n)) {
			*arg = tok + n + 1;
			return type;
		}
	}
	return RDMACG_RESOURCE_MAX;
}

/*
 * The next token of @cur, and its length in *len; NULL when none is left.
 * *after_nl is set when a newline comes between it and what came before.
 */
static const char *rdmacg_next_token(struct rdmacg_cursor *cur, size_t *len,
				     bool *after_nl)
{
	const char *s = cur->pos, *t;

	*after_nl = false;
	for (; s < cur->end && rdmacg_is_sep(*s); s++)
		*after_nl |= *s == '\n';
	for (t = s; t < cur->end && !rdmacg_is_sep(*t); t++)
		;
	cur->pos = t;
	*len = t - s;
	return s < t ? s : NULL;
}

/*
 * Handle "index=N" at [tok, tok + len) if it is one: 1 when done, 0 when
 * the token is not an index, -EINVAL when it is a bad or a second one.
 */
static int rdmacg_take_index(const char *tok, size_t len, bool *has_index,
			     u32 *index)
{
	size_t n = strlen(RDMACG_INDEX_KEY);

	if (!rdmacg_has_key(tok, len, RDMACG_INDEX_KEY))
		return 0;
	if (*has_index || !rdmacg_parse_index(tok + n, tok + len, index))
		return -EINVAL;
	*has_index = true;
	return 1;
}

/* Move @cur to the device named by [tok, tok + len), the next entry. */
static void rdmacg_cursor_next_dev(struct rdmacg_cursor *cur, const char *tok,
				   size_t len)
{
	cur->dev = tok;
	cur->dev_len = len;
}

/**
 * rdmacg_cursor_init() - start parsing a write of limits
 * @cur: the cursor to set
 * @buf: the text written; need not be NUL-terminated, ends at a NUL byte
 * @len: its length
 *
 * Finds the first device name: there always is one, maybe empty. See the
 * grammar in rdma_parse.h.
 *
 * Context: Any context.
 */
void rdmacg_cursor_init(struct rdmacg_cursor *cur, const char *buf,
			size_t len)
{
	const char *end = buf + strnlen(buf, len), *space;

	while (end > buf && rdmacg_is_space(end[-1]))
		end--;
	while (buf < end && rdmacg_is_space(*buf))
		buf++;
	space = memchr(buf, ' ', end - buf);
	rdmacg_cursor_next_dev(cur, buf, (space ?: end) - buf);
	cur->pos = space ? space + 1 : end;
	cur->end = end;
}

/* Take the name of the next device from @cur; false when none is left. */
static bool rdmacg_cursor_take_dev(struct rdmacg_cursor *cur,
				   const char **dev, size_t *dev_len)
{
	if (!cur->dev)
		return false;
	*dev = cur->dev;
	*dev_len = cur->dev_len;
	cur->dev = NULL;
	return true;
}

/**
 * rdmacg_next_max() - parse the next device's limits of an rdma.max write
 * @cur: the cursor, set by rdmacg_cursor_init() and moved past the device
 * @req: the result, valid only when 1 is returned
 *
 * Context: Any context.
 * Return: 1 when a device was parsed into @req; 0 when none is left;
 * -EINVAL if the text is malformed (@cur is then spent).
 */
int rdmacg_next_max(struct rdmacg_cursor *cur, struct rdmacg_max_req *req)
{
	enum rdmacg_resource_type type;
	const char *tok, *arg;
	size_t len;
	bool nl;
	int ret;

	memset(req, 0, sizeof(*req));
	if (!rdmacg_cursor_take_dev(cur, &req->dev, &req->dev_len))
		return 0;
	while ((tok = rdmacg_next_token(cur, &len, &nl))) {
		ret = rdmacg_take_index(tok, len, &req->has_index, &req->index);
		if (ret < 0)
			goto bad;
		if (ret)
			continue;
		type = rdmacg_count_key(tok, len, &arg);
		if (type != RDMACG_RESOURCE_MAX) {
			if (!rdmacg_parse_count(arg, tok + len, &req->value[type]))
				goto bad;
			req->mask |= BIT(type);
			continue;
		}
		if (!nl)
			goto bad;
		rdmacg_cursor_next_dev(cur, tok, len);
		break;
	}
	return 1;
bad:
	cur->pos = cur->end;
	return -EINVAL;
}

/**
 * rdmacg_next_bytes() - parse the next device's limit of an rdma.mr_mem.max
 * write
 * @cur: the cursor, set by rdmacg_cursor_init() and moved past the device
 * @req: the result, valid only when 1 is returned
 *
 * Context: Any context.
 * Return: 1 when a device was parsed into @req; 0 when none is left;
 * -EINVAL if the text is malformed (@cur is then spent).
 */
int rdmacg_next_bytes(struct rdmacg_cursor *cur, struct rdmacg_bytes_req *req)
{
	bool nl, has_value = false;
	const char *tok;
	size_t len;
	int ret;

	memset(req, 0, sizeof(*req));
	if (!rdmacg_cursor_take_dev(cur, &req->dev, &req->dev_len))
		return 0;
	while ((tok = rdmacg_next_token(cur, &len, &nl))) {
		ret = rdmacg_take_index(tok, len, &req->has_index, &req->index);
		if (ret < 0)
			goto bad;
		if (ret)
			continue;
		if (nl) {
			rdmacg_cursor_next_dev(cur, tok, len);
			break;
		}
		if (has_value || !rdmacg_parse_size(tok, tok + len, &req->value))
			goto bad;
		has_value = true;
	}
	if (has_value)
		return 1;
bad:
	cur->dev = NULL;
	cur->pos = cur->end;
	return -EINVAL;
}

/**
 * rdmacg_parse_max() - parse an rdma.max write of one device
 * @buf: the text; need not be NUL-terminated
 * @len: its length
 * @req: the result, valid only on success
 *
 * The grammar of upstream Linux exactly: a write that names more than one
 * device is refused.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if the text is malformed.
 */
int rdmacg_parse_max(const char *buf, size_t len, struct rdmacg_max_req *req)
{
	struct rdmacg_cursor cur;

	rdmacg_cursor_init(&cur, buf, len);
	return rdmacg_next_max(&cur, req) == 1 && !cur.dev ? 0 : -EINVAL;
}

/**
 * rdmacg_parse_bytes() - parse an rdma.mr_mem.max write of one device
 * @buf: the text; need not be NUL-terminated
 * @len: its length
 * @req: the result, valid only on success
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if the text is malformed or names more than one
 * device.
 */
int rdmacg_parse_bytes(const char *buf, size_t len,
		       struct rdmacg_bytes_req *req)
{
	struct rdmacg_cursor cur;

	rdmacg_cursor_init(&cur, buf, len);
	return rdmacg_next_bytes(&cur, req) == 1 && !cur.dev ? 0 : -EINVAL;
}
