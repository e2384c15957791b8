/* SPDX-License-Identifier: GPL-2.0 */
#ifndef REF_LINUX_OVERFLOW_H
#define REF_LINUX_OVERFLOW_H

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

#endif
