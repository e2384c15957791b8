/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plain corpus checkers of harness/fuzz: read one seed file whole.
 */
#ifndef FUZZ_READFILE_H
#define FUZZ_READFILE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The bytes of @path in a buffer of exactly their length (so that ASan sees
 * any read past the end), their number in *@len; exits with status 2 and a
 * message naming @prog if the file cannot be read.
 */
static inline uint8_t *fuzz_read_file(const char *prog, const char *path,
				      size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		exit(2);
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: %s: short read\n", prog, path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The last component of @path. */
static inline const char *fuzz_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

#endif
