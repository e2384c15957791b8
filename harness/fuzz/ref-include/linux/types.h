/* SPDX-License-Identifier: GPL-2.0 */
#ifndef REF_LINUX_TYPES_H
#define REF_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's headers bring these in along with the types. */
#include <errno.h>
#include <limits.h>

typedef uint8_t u8;
typedef int8_t s8;
typedef uint16_t u16;
typedef int16_t s16;
typedef uint32_t u32;
typedef int32_t s32;
typedef unsigned long long u64;
typedef long long s64;
typedef unsigned int gfp_t;

#endif
