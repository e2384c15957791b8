/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDMA cgroup controller: parsing of the writes of limits.
 *
 * The parser is a pure function of its input and includes only what user
 * space has too, so that the same source can be built and tested in user
 * space.
 */

#ifndef _KERNEL_CGROUP_RDMA_PARSE_H
#define _KERNEL_CGROUP_RDMA_PARSE_H

#include <linux/cgroup_rdma.h>
#include <linux/limits.h>
#include <linux/types.h>

/* No limit on a count of rdma.max; reads and writes spell it "max". */
#define RDMACG_MAX		INT_MAX

/* No limit on the bytes of rdma.mr_mem.max, spelt "max" likewise. */
#define RDMACG_MR_MEM_MAX	U64_MAX

/* The resources that rdma.max sets, counted one at a time. */
#define RDMACG_NR_COUNTS	(RDMACG_RESOURCE_HCA_OBJECT + 1)

/* The keys of each resource in the interface files. */
extern const char *const rdmacg_names[RDMACG_RESOURCE_MAX];

/**
 * DOC: the grammar of the writes of limits
 *
 * A write to rdma.max is read as the upstream controller reads it:
 *
 * - The text ends at its first NUL byte, if any.
 * - Whitespace (isspace(): space, \t, \n, \v, \f, \r and 0xa0) is dropped
 *   at both ends.
 * - The device name is what comes before the first space; only a space
 *   ends it, so a tab or a newline belongs to the name. What remains may
 *   be empty (the name is then "", which names no device).
 * - The rest is cut into tokens at every space, tab and newline; empty
 *   tokens are skipped. Each token is one of:
 *
 *   - "index=N": N is "0" followed by digits 0-7 or a digit 1-9 followed by
 *     digits, read in decimal ("010" is ten), at most 4294967295 and
 *     shorter than 24 bytes. It may be given once per device.
 *   - "hca_handle=V" or "hca_object=V": V is "max" (%RDMACG_MAX), or a
 *     number in C notation shorter than 24 bytes: an optional '-', then
 *     "0x" or "0X" and hex digits, or "0" and octal digits, or decimal
 *     digits ("010" is 8, "0x10" is 16; no '+'). It is read into 64 bits,
 *     stopping at U64_MAX on overflow, negated after a '-', and taken as a
 *     long; it must then lie in 0..INT_MAX. So "-0" and a lone "-" are 0,
 *     and "-18446744073709551615" is 1, as upstream has it. When a key is
 *     given again, its last value counts.
 *
 *   Anything else is refused with -EINVAL.
 *
 * A token that is not a key (does not start with "index=", "hca_handle=" or
 * "hca_object=") and that a newline precedes, among the spaces, tabs and
 * newlines since the token before it (or since the device name), is the
 * name of the next device, and the tokens after it are its keys: the
 * text is cut into one line per device, which rdmacg_next_max() returns in
 * turn. A device named alone on a line must be followed by a space before
 * the newline that ends the line: without one, the newline and the next
 * line are part of the first device's name, as upstream reads it. A key
 * after a newline belongs to the device before it
 * ("mlx5_0 hca_handle=1\nhca_object=2" sets both).
 * Our extension, several devices per write: rdma.max applies every line,
 * or none. Upstream refuses every such write, so no write upstream takes
 * changes its meaning.
 *
 * A write to rdma.mr_mem.max, our own file, is cut the same way. Its keys
 * are "index=N" as above; every device has exactly one token that is not a
 * key and that no newline precedes: its limit, "max" (%RDMACG_MR_MEM_MAX)
 * or a number in C notation without a sign ("0x" hex, "0" octal, else
 * decimal, as memory.max reads with memparse()) followed by an optional K,
 * M, G or T in either case (times 2^10, 2^20, 2^30, 2^40), of at most
 * U64_MAX; overflow is refused. A token that is not a key and follows a
 * newline names the next device, as in rdma.max.
 */

/**
 * struct rdmacg_max_req - the limits of one device in an rdma.max write
 * @dev: the device name, not NUL-terminated
 * @dev_len: its length
 * @has_index: whether index= was given
 * @index: its value, 0 without
 * @mask: bit i is set when resource i was given
 * @value: the limits given, %RDMACG_MAX for "max"
 */
struct rdmacg_max_req {
	const char	*dev;
	size_t		dev_len;
	bool		has_index;
	u32		index;
	unsigned int	mask;
	int		value[RDMACG_NR_COUNTS];
};

/**
 * struct rdmacg_bytes_req - the limit of one device in an rdma.mr_mem.max
 * write
 * @dev: the device name, not NUL-terminated
 * @dev_len: its length
 * @has_index: whether index= was given
 * @index: its value, 0 without
 * @value: the limit in bytes, %RDMACG_MR_MEM_MAX for "max"
 */
struct rdmacg_bytes_req {
	const char	*dev;
	size_t		dev_len;
	bool		has_index;
	u32		index;
	u64		value;
};

/**
 * struct rdmacg_cursor - where the parsing of a write has got to
 * @dev: the name of the next device, %NULL when none is left
 * @dev_len: its length
 * @pos: where the tokens after it start
 * @end: the end of the text
 *
 * Set by rdmacg_cursor_init() and moved on by each call that parses the
 * line of a device; its fields are private to the parser.
 */
struct rdmacg_cursor {
	const char	*dev;
	size_t		dev_len;
	const char	*pos;
	const char	*end;
};

void rdmacg_cursor_init(struct rdmacg_cursor *cur, const char *buf,
			size_t len);
int rdmacg_next_max(struct rdmacg_cursor *cur, struct rdmacg_max_req *req);
int rdmacg_next_bytes(struct rdmacg_cursor *cur, struct rdmacg_bytes_req *req);
int rdmacg_parse_max(const char *buf, size_t len, struct rdmacg_max_req *req);
int rdmacg_parse_bytes(const char *buf, size_t len,
		       struct rdmacg_bytes_req *req);

#endif	/* _KERNEL_CGROUP_RDMA_PARSE_H */
