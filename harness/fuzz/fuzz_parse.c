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
	fprintf(f, "\" mask=%u", r->mask);
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
	     req.dev_len == want.dev_len && req.value == want.value)))
		return;
	fprintf(stderr, "\nFUZZ: rdma.mr_mem.max parser disagrees with the model\n");
	fprintf(stderr, "FUZZ: input (%zu bytes): \"", len);
	model_put_escaped(stderr, buf, len);
	fprintf(stderr, "\"\nFUZZ: parser: %d", ret);
	if (!ret)
		fprintf(stderr, " dev_off=%td dev_len=%zu value=%llu",
			req.dev - (const char *)buf, req.dev_len,
			(unsigned long long)req.value);
	fprintf(stderr, "\nFUZZ: model:  %d dev_off=%zu dev_len=%zu value=%llu\n",
		want.err, want.dev_off, want.dev_len, want.value);
	abort();
}

/* Run both on buf[0, len); abort on any disagreement; the model's result in *out. */
static void check_one(const uint8_t *buf, size_t len, struct model_result *out)
{
	struct rdmacg_max_req req;
	struct model_result got = { 0 }, want;
	int ret;

	check_bytes(buf, len);
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

#include <errno.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		FILE *f = fopen(argv[i], "rb");
		struct model_result r;
		uint8_t *buf;
		long len;

		if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET)) {
			fprintf(stderr, "fuzz_check: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		/* Exactly len bytes, so that ASan sees any read past the end. */
		buf = malloc(len ? (size_t)len : 1);
		if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
			fprintf(stderr, "fuzz_check: %s: short read\n", argv[i]);
			return 2;
		}
		fclose(f);
		check_one(len ? buf : buf + 1, (size_t)len, &r);
		printf("%s\t", name);
		put_result(stdout, buf, &r);
		putchar('\n');
		fflush(stdout);
		free(buf);
	}
	return 0;
}

#endif /* FUZZ_STANDALONE */
