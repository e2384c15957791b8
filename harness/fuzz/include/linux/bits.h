/* SPDX-License-Identifier: GPL-2.0 */
/* include/vdso/bits.h */
#define BIT(nr)		(1UL << (nr))
