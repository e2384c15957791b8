/* SPDX-License-Identifier: GPL-2.0 */
#ifndef REF_LINUX_COMPILER_H
#define REF_LINUX_COMPILER_H

#define noinline	__attribute__((__noinline__))
#define __must_check	__attribute__((__warn_unused_result__))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define __user
#define __ro_after_init
#define __initdata

#endif
