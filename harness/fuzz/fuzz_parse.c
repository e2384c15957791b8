// SPDX-License-Identifier: GPL-2.0
/*
 * Check the rdma.max and rdma.mr_mem.max parsers of
 * kernel/cgroup/rdma_parse.c against the reference models in model.c, on
 * one input.
 *
 * Built two ways by harness/fuzz/run.sh, both with ASan and UBSan, from the
 * kernel's parser source as it is (harness/fuzz/include stands in for the
 * kernel headers):
 *  - as a libFuzzer target (LLVMFuzzerTestOneInput);
 *  - with -DFUZZ_STANDALONE, as a plain program that checks each file named
 *    on its command line and prints "NAME<TAB>RESULT" for each.
 *
 * Checked on each input: rdmacg_parse_max() and rdmacg_parse_bytes(), a
 * write of one device, against model_parse() and model_parse_bytes(); and
 * rdmacg_cursor_init() with rdmacg_next_max() or rdmacg_next_bytes(), the
 * devices of a whole write, against model_parse_write(), for both files.
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

/* One line: "-EINVAL", or "ok dev=\"...\" mask=M [hca_handle=V] [hca_object=V]". */
static void put_result(FILE *f, const uint8_t *buf, const struct model_result *r)
{
	static const char *const keys[MODEL_NKEYS] = { "hca_handle", "hca_object" };

	if (r->err == -EINVAL) {
		fputs("-EINVAL", f);
		return;
	}
	if (r->err) {
		fprintf(f, "error %d", r->err);
		return;
	}
	fputs("ok dev=\"", f);
	model_put_escaped(f, buf + r->dev_off, r->dev_len);
	if (r->has_index)
		fprintf(f, "\" index=%u", r->index);
	else
		fputc('"', f);
	fprintf(f, " mask=%u", r->mask);
	for (int k = 0; k < MODEL_NKEYS; k++)
		if (r->mask & (1u << k))
			fprintf(f, " %s=%lld", keys[k], r->value[k]);
}

static void disagree(const uint8_t *buf, size_t len, const char *why,
		     const struct model_result *parser,
		     const struct model_result *model)
{
	fprintf(stderr, "\nFUZZ: rdma.max parser disagrees with the model: %s\n", why);
	fprintf(stderr, "FUZZ: input (%zu bytes): \"", len);
	model_put_escaped(stderr, buf, len);
	fputs("\"\nFUZZ: parser: ", stderr);
	if (parser)
		put_result(stderr, buf, parser);
	else
		fputs("(see above)", stderr);
	fputs("\nFUZZ: model:  ", stderr);
	put_result(stderr, buf, model);
	fputs("\n", stderr);
	abort();
}

/* The rdma.mr_mem.max parser against its model on buf[0, len). */
static void check_bytes(const uint8_t *buf, size_t len)
{
	struct rdmacg_bytes_req req;
	struct model_bytes want;
	int ret;

	memset(&req, 0xa5, sizeof(req));
	ret = rdmacg_parse_bytes((const char *)buf, len, &req);
	model_parse_bytes(buf, len, &want);
	if (ret == want.err && (ret ||
	    (req.dev == (const char *)buf + want.dev_off &&
	     req.dev_len == want.dev_len && req.value == want.value &&
	     req.has_index == want.has_index && req.index == want.index)))
		return;
	fprintf(stderr, "\nFUZZ: rdma.mr_mem.max parser disagrees with the model\n");
	fprintf(stderr, "FUZZ: input (%zu bytes): \"", len);
	model_put_escaped(stderr, buf, len);
	fprintf(stderr, "\"\nFUZZ: parser: %d", ret);
	if (!ret)
		fprintf(stderr, " dev_off=%td dev_len=%zu index=%d/%u value=%llu",
			req.dev - (const char *)buf, req.dev_len, req.has_index,
			req.index, (unsigned long long)req.value);
	fprintf(stderr, "\nFUZZ: model:  %d dev_off=%zu dev_len=%zu index=%d/%u value=%llu\n",
		want.err, want.dev_off, want.dev_len, want.has_index, want.index,
		want.value);
	abort();
}

#define MAX_ENTRIES	512

/* Print the devices of a whole write, as the model reads it. */
static void put_entries(FILE *f, const uint8_t *buf, int bytes,
			const struct model_entry *e, int n)
{
	if (n < 0) {
		fputs("-EINVAL", f);
		return;
	}
	for (int i = 0; i < n && i < MAX_ENTRIES; i++) {
		fprintf(f, "%sdev=\"", i ? " | " : "");
		model_put_escaped(f, buf + e[i].dev_off, e[i].dev_len);
		fputc('"', f);
		if (e[i].has_index)
			fprintf(f, " index=%u", e[i].index);
		if (bytes) {
			fprintf(f, " value=%llu", e[i].bytes);
			continue;
		}
		fprintf(f, " mask=%u", e[i].mask);
		for (int k = 0; k < MODEL_NKEYS; k++)
			if (e[i].mask & (1u << k))
				fprintf(f, " %s=%lld", k ? "hca_object" : "hca_handle",
					e[i].value[k]);
	}
}

/*
 * The devices of a whole write of either file, by the cursor, against
 * model_parse_write(); the model's count in *nr, entries in want[].
 */
static void check_write(const uint8_t *buf, size_t len, int bytes,
			struct model_entry *want, int *nr)
{
	static struct model_entry got[MAX_ENTRIES];
	struct rdmacg_cursor cur;
	struct rdmacg_max_req max;
	struct rdmacg_bytes_req b;
	int n = 0, ret, i, k;
	const char *why = NULL;

	*nr = model_parse_write(buf, len, bytes, want, MAX_ENTRIES);
	rdmacg_cursor_init(&cur, (const char *)buf, len);
	for (;;) {
		memset(&max, 0xa5, sizeof(max));
		memset(&b, 0xa5, sizeof(b));
		ret = bytes ? rdmacg_next_bytes(&cur, &b) : rdmacg_next_max(&cur, &max);
		if (ret <= 0)
			break;
		if (n == MAX_ENTRIES) {
			why = "too many devices";
			break;
		}
		memset(&got[n], 0, sizeof(got[n]));
		got[n].dev_off = (size_t)((bytes ? b.dev : max.dev) - (const char *)buf);
		got[n].dev_len = bytes ? b.dev_len : max.dev_len;
		got[n].has_index = bytes ? b.has_index : max.has_index;
		got[n].index = bytes ? b.index : max.index;
		got[n].bytes = bytes ? b.value : 0;
		got[n].mask = bytes ? 0 : max.mask;
		for (k = 0; !bytes && k < MODEL_NKEYS; k++)
			if (max.mask & (1u << k))
				got[n].value[k] = max.value[k];
		if (got[n].dev_off > len || got[n].dev_len > len - got[n].dev_off)
			why = "device name outside the input";
		n++;
	}
	if (!why && ret != 0 && ret != -EINVAL)
		why = "return value is neither 0, 1 nor -EINVAL";
	if (!why && (ret ? -EINVAL : n) != *nr)
		why = "number of devices, or refusal";
	for (i = 0; !why && !ret && i < n; i++) {
		const struct model_entry *g = &got[i], *w = &want[i];

		if (g->dev_off != w->dev_off || g->dev_len != w->dev_len ||
		    g->has_index != w->has_index || g->index != w->index ||
		    g->mask != w->mask || g->bytes != w->bytes)
			why = "a device's name, index, mask or value";
		for (k = 0; k < MODEL_NKEYS; k++)
			if ((g->mask & (1u << k)) && g->value[k] != w->value[k])
				why = "a device's value";
	}
	if (!why)
		return;
	fprintf(stderr, "\nFUZZ: whole %s write: parser disagrees with the model: %s\n",
		bytes ? "rdma.mr_mem.max" : "rdma.max", why);
	fprintf(stderr, "FUZZ: input (%zu bytes): \"", len);
	model_put_escaped(stderr, buf, len);
	fputs("\"\nFUZZ: parser: ", stderr);
	put_entries(stderr, buf, bytes, got, ret ? -EINVAL : n);
	fputs("\nFUZZ: model:  ", stderr);
	put_entries(stderr, buf, bytes, want, *nr);
	fputs("\n", stderr);
	abort();
}

/* The model's devices of the last input, for the plain checker to print. */
static struct model_entry model_max[MAX_ENTRIES], model_mr[MAX_ENTRIES];
static int model_max_nr, model_mr_nr;

/* Run both on buf[0, len); abort on any disagreement; the model's result in *out. */
static void check_one(const uint8_t *buf, size_t len, struct model_result *out)
{
	struct rdmacg_max_req req;
	struct model_result got = { 0 }, want;
	int ret;

	check_bytes(buf, len);
	check_write(buf, len, 0, model_max, &model_max_nr);
	check_write(buf, len, 1, model_mr, &model_mr_nr);
	/* Poison what the parser must overwrite, to catch stale fields. */
	memset(&req, 0xa5, sizeof(req));
	ret = rdmacg_parse_max((const char *)buf, len, &req);
	model_parse(buf, len, &want);
	*out = want;

	got.err = ret;
	if (ret == 0) {
		if (req.dev < (const char *)buf || req.dev_len > len ||
		    req.dev > (const char *)buf + len - req.dev_len) {
			fprintf(stderr, "FUZZ: dev=%p dev_len=%zu outside the input %p+%zu\n",
				(const void *)req.dev, req.dev_len,
				(const void *)buf, len);
			disagree(buf, len, "device name outside the input", NULL, &want);
		}
		got.dev_off = (size_t)(req.dev - (const char *)buf);
		got.dev_len = req.dev_len;
		got.has_index = req.has_index;
		got.index = req.index;
		got.mask = req.mask & ((1u << MODEL_NKEYS) - 1);
		for (int k = 0; k < MODEL_NKEYS; k++)
			if (req.mask & (1u << k))
				got.value[k] = req.value[k];
	}
	if (ret != 0 && ret != -EINVAL)
		disagree(buf, len, "return value is neither 0 nor -EINVAL", &got, &want);
	if (ret != want.err)
		disagree(buf, len, "return value", &got, &want);
	if (ret)
		return;

	if (req.mask & ~((1u << MODEL_NKEYS) - 1))
		disagree(buf, len, "mask has bits beyond the known keys", &got, &want);
	if (got.dev_off != want.dev_off || got.dev_len != want.dev_len)
		disagree(buf, len, "device name", &got, &want);
	if (got.has_index != want.has_index || got.index != want.index)
		disagree(buf, len, "index", &got, &want);
	if (got.mask != want.mask)
		disagree(buf, len, "mask", &got, &want);
	for (int k = 0; k < MODEL_NKEYS; k++)
		if (got.value[k] != want.value[k])
			disagree(buf, len, "value", &got, &want);
}

#ifndef FUZZ_STANDALONE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_result r;

	check_one(data, size, &r);
	return 0;
}

#else /* FUZZ_STANDALONE */

#include "readfile.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *name = fuzz_base_name(argv[i]);
		struct model_result r;
		size_t len;
		uint8_t *buf = fuzz_read_file("fuzz_check", argv[i], &len);

		check_one(len ? buf : buf + 1, len, &r);
		printf("%s\t", name);
		put_result(stdout, buf, &r);
		if (model_max_nr > 1) {
			fputs(" ; devices: ", stdout);
			put_entries(stdout, buf, 0, model_max, model_max_nr);
		}
		fputs(" ; mr_mem: ", stdout);
		put_entries(stdout, buf, 1, model_mr, model_mr_nr);
		putchar('\n');
		fflush(stdout);
		free(buf);
	}
	return 0;
}

#endif /* FUZZ_STANDALONE */
