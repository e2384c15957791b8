// SPDX-License-Identifier: GPL-2.0
/*
 * What upstream Linux 7.3's rdma.max write handler does before it looks a
 * device up, re-written for the differential fuzzer from a reading of
 * rdmacg_resource_set_max() (kernel/cgroup/rdma.c of 7.3): the text as
 * kernfs hands it over (NUL-terminated), whitespace dropped at both ends
 * with the tree's isspace(), the device name cut at the first space, the
 * rest cut at spaces, tabs and newlines, each non-empty piece judged by the
 * tree's match_token() against the five patterns of 7.3 and its number
 * read by the tree's match_uint() or match_int(). Built against
 * harness/fuzz/ref-include and the tree's lib/parser.c, lib/kstrtox.c,
 * lib/ctype.c and the simple_strto*() of lib/vsprintf.c.
 */
#include <linux/types.h>
#include <linux/ctype.h>
#include <linux/parser.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ref_rdma.h"

enum ref_tok {
	REF_INDEX,
	REF_HANDLE,
	REF_HANDLE_MAX,
	REF_OBJECT,
	REF_OBJECT_MAX,
	REF_OTHER,
};

/* The patterns of 7.3, in its order: the first that matches wins. */
static const match_table_t ref_patterns = {
	{ REF_INDEX,		"index=%u" },
	{ REF_HANDLE,		"hca_handle=%d" },
	{ REF_HANDLE_MAX,	"hca_handle=max" },
	{ REF_OBJECT,		"hca_object=%d" },
	{ REF_OBJECT_MAX,	"hca_object=max" },
	{ REF_OTHER,		NULL },
};

/* strstrip() as the kernel has it: isspace() bytes off both ends. */
static char *ref_strip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace(s[n - 1]))
		s[--n] = '\0';
	while (isspace(*s))
		s++;
	return s;
}

char *kmemdup_nul(const char *s, size_t len, gfp_t gfp)
{
	char *p = malloc(len + 1);

	(void)gfp;
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

void ref_parse_max(const unsigned char *buf, size_t len, struct ref_result *r)
{
	char *text = malloc(len + 1), *rest, *dev, *tok;

	memset(r, 0, sizeof(*r));
	if (!text) {
		r->err = -ENOMEM;
		return;
	}
	memcpy(text, buf, len);
	text[len] = '\0';		/* kernfs terminates the buffer */

	rest = ref_strip(text);
	dev = strsep(&rest, " ");	/* never NULL: rest is a string */
	r->dev_off = (size_t)(dev - text);
	r->dev_len = strlen(dev);

	while ((tok = strsep(&rest, " \t\n")) != NULL) {
		substring_t args[MAX_OPT_ARGS];
		unsigned int index;
		int v, k = 0;

		if (*tok == '\0')
			continue;
		switch (match_token(tok, ref_patterns, args)) {
		case REF_INDEX:
			if (r->has_index || match_uint(&args[0], &index))
				goto refuse;
			r->has_index = 1;
			r->index = index;
			continue;
		case REF_OBJECT:
			k = 1;
			/* fall through */
		case REF_HANDLE:
			if (match_int(&args[0], &v) || v < 0)
				goto refuse;
			break;
		case REF_OBJECT_MAX:
			k = 1;
			/* fall through */
		case REF_HANDLE_MAX:
			v = INT_MAX;
			break;
		default:
			goto refuse;
		}
		r->value[k] = v;
		r->mask |= 1u << k;
	}
	free(text);
	return;
refuse:
	free(text);
	memset(r, 0, sizeof(*r));
	r->err = -EINVAL;
}
