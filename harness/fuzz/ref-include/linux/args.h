/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two macros lib/kstrtox.h uses; the tree's own args.h clashes with
 * glibc's __CONCAT.
 */
#ifndef REF_LINUX_ARGS_H
#define REF_LINUX_ARGS_H

#define REF_ARG_9TH(_0, _1, _2, _3, _4, _5, _6, _7, _8, n, ...)	n
/* How many arguments, from 0 to 8. */
#define COUNT_ARGS(...) \
	REF_ARG_9TH(_, ##__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)

#define REF_GLUE(a, b)		a ## b
#define CONCATENATE(a, b)	REF_GLUE(a, b)

#endif
