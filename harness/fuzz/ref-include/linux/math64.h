/* SPDX-License-Identifier: GPL-2.0 */
#ifndef REF_LINUX_MATH64_H
#define REF_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 int_pow(u64 base, unsigned int exp)
{
	u64 r = 1;

	while (exp--)
		r *= base;
	return r;
}

#endif
