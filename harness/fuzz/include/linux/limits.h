/* SPDX-License-Identifier: GPL-2.0 */
#include_next <linux/limits.h>
#include <limits.h>
#include <stdint.h>

#ifndef U64_MAX
#define U64_MAX		UINT64_MAX
#endif

#ifndef U32_MAX
#define U32_MAX		UINT32_MAX
#endif
