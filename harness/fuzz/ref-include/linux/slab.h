/* SPDX-License-Identifier: GPL-2.0 */
#ifndef REF_LINUX_SLAB_H
#define REF_LINUX_SLAB_H

#include <linux/types.h>

#define GFP_KERNEL	0u

/* In fuzz_diff.c. */
char *kmemdup_nul(const char *s, size_t len, gfp_t gfp);

#endif
