// SPDX-License-Identifier: GPL-2.0
/*
 * Differential check of the rdma.max parser, kernel/cgroup/rdma_parse.c,
 * against upstream Linux 7.3's own parsing code (ref_rdma.c on the tree's
 * lib/parser.c and lib/kstrtox.c), on one input.
 *
 * Built two ways by harness/fuzz/run.sh, with ASan and UBSan:
 *  - as a libFuzzer target (LLVMFuzzerTestOneInput);
 *  - with -DFUZZ_STANDALONE, as a plain program that checks each file named
 *    on its command line and prints "NAME<TAB>RESULT", upstream's result.
 *
 * Checked on each input:
 *  1. rdmacg_parse_max(), a write of one device, gives exactly upstream's
 *     answer: refusal, or the same device name, index, keys and values.
 *  2. The cursor (rdmacg_cursor_init() and rdmacg_next_max()) over the
 *     whole write: when upstream accepts, exactly one device, the same as
 *     upstream's; when upstream refuses, a refusal or several devices (the
 *     multi-device extension), each of whose keys upstream reads the same
 *     when given alone, as "d KEYS".
 *
 * Any disagreement aborts with both results and the input, escaped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_parse.h"
#include "model.h"
#include "ref_rdma.h"

#define MAX_ENTRIES	512

static void put_ref(FILE *f, const uint8_t *buf, const struct ref_result *r)
{
	if (r->err) {
		fprintf(f, "%s", r->err == -EINVAL ? "-EINVAL" : "error");
		return;
	}
	fputs("ok dev=\"", f);
	model_put_escaped(f, buf + r->dev_off, r->dev_len);
	fputc('"', f);
	if (r->has_index)
		fprintf(f, " index=%u", r->index);
	fprintf(f, " mask=%u", r->mask);
	if (r->mask & 1)
		fprintf(f, " hca_handle=%d", r->value[0]);
	if (r->mask & 2)
		fprintf(f, " hca_object=%d", r->value[1]);
}

/* @req as a ref_result, its offsets from @buf. */
static void from_req(const uint8_t *buf, const struct rdmacg_max_req *req,
		     struct ref_result *r)
{
	memset(r, 0, sizeof(*r));
	r->dev_off = (size_t)(req->dev - (const char *)buf);
	r->dev_len = req->dev_len;
	r->has_index = req->has_index;
	r->index = req->index;
	r->mask = req->mask;
	for (int k = 0; k < 2; k++)
		if (req->mask & (1u << k))
			r->value[k] = req->value[k];
}

static int same(const struct ref_result *a, const struct ref_result *b,
		int with_dev)
{
	return a->err == b->err && (a->err ||
		((!with_dev || (a->dev_off == b->dev_off && a->dev_len == b->dev_len)) &&
		 a->has_index == b->has_index && a->index == b->index &&
		 a->mask == b->mask && a->value[0] == b->value[0] &&
		 a->value[1] == b->value[1]));
}

static void differ(const uint8_t *buf, size_t len, const char *why,
		   const struct ref_result *ours, const struct ref_result *up)
{
	fprintf(stderr, "\nFUZZ: rdma.max parser differs from Linux 7.3: %s\n", why);
	fprintf(stderr, "FUZZ: input (%zu bytes): \"", len);
	model_put_escaped(stderr, buf, len);
	fputs("\"\nFUZZ: ours:     ", stderr);
	if (ours)
		put_ref(stderr, buf, ours);
	fputs("\nFUZZ: upstream: ", stderr);
	put_ref(stderr, buf, up);
	fputs("\n", stderr);
	abort();
}

/*
 * Upstream's reading of the keys of one device of a multi-device write,
 * buf[from, to): as the write "d" + " " + those bytes.
 */
static void ref_keys(const uint8_t *buf, size_t from, size_t to,
		     struct ref_result *r)
{
	uint8_t *text = malloc(to - from + 2);

	if (!text)
		abort();
	text[0] = 'd';
	text[1] = ' ';
	memcpy(text + 2, buf + from, to - from);
	ref_parse_max(text, to - from + 2, r);
	free(text);
}

static void check_one(const uint8_t *buf, size_t len, struct ref_result *up)
{
	static struct rdmacg_max_req e[MAX_ENTRIES];
	struct rdmacg_max_req req;
	struct rdmacg_cursor cur;
	struct ref_result ours, keys;
	int ret, n = 0;

	ref_parse_max(buf, len, up);
	if (up->err && up->err != -EINVAL)
		differ(buf, len, "upstream failed otherwise (harness bug)", NULL, up);

	/* 1. One device: upstream's grammar exactly. */
	memset(&req, 0xa5, sizeof(req));
	ret = rdmacg_parse_max((const char *)buf, len, &req);
	memset(&ours, 0, sizeof(ours));
	ours.err = ret;
	if (!ret)
		from_req(buf, &req, &ours);
	if (!same(&ours, up, 1))
		differ(buf, len, "rdmacg_parse_max()", &ours, up);

	/* 2. The whole write, by the cursor. */
	rdmacg_cursor_init(&cur, (const char *)buf, len);
	while (n < MAX_ENTRIES && (ret = rdmacg_next_max(&cur, &e[n])) > 0)
		n++;
	if (n == MAX_ENTRIES)
		return;
	if (!up->err) {
		if (ret || n != 1)
			differ(buf, len, "the cursor, on a write upstream takes",
			       NULL, up);
		from_req(buf, &e[0], &ours);
		if (!same(&ours, up, 1))
			differ(buf, len, "the cursor's device", &ours, up);
		return;
	}
	if (ret)
		return;			/* both refuse */
	if (n < 2)
		differ(buf, len, "the cursor takes one device upstream refuses",
		       NULL, up);
	for (int i = 0; i < n; i++) {
		size_t from = (size_t)(e[i].dev - (const char *)buf) + e[i].dev_len;
		size_t to = i + 1 < n ? (size_t)(e[i + 1].dev - (const char *)buf) : len;

		ref_keys(buf, from, to, &keys);
		from_req(buf, &e[i], &ours);
		if (keys.err || !same(&ours, &keys, 0)) {
			fprintf(stderr, "FUZZ: device %d of %d, keys from byte %zu to %zu\n",
				i, n, from, to);
			differ(buf, len, "a device's keys, as upstream reads them alone",
			       &ours, &keys);
		}
	}
}

#ifndef FUZZ_STANDALONE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ref_result up;

	check_one(data, size, &up);
	return 0;
}

#else /* FUZZ_STANDALONE */

#include "readfile.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *name = fuzz_base_name(argv[i]);
		struct ref_result up;
		size_t len;
		uint8_t *buf = fuzz_read_file("fuzz_diff_check", argv[i], &len);

		check_one(len ? buf : buf + 1, len, &up);
		printf("%s\t", name);
		put_ref(stdout, buf, &up);
		putchar('\n');
		fflush(stdout);
		free(buf);
	}
	return 0;
}

#endif /* FUZZ_STANDALONE */
