/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The class bits that lib/ctype.c of the tree spells its table with, and
 * the tests parser.c and kstrtox.c use, on that table.
 */
#ifndef REF_LINUX_CTYPE_H
#define REF_LINUX_CTYPE_H

#define _U	0x01	/* upper case */
#define _L	0x02	/* lower case */
#define _D	0x04	/* digit */
#define _C	0x08	/* control */
#define _P	0x10	/* punctuation */
#define _S	0x20	/* white space */
#define _X	0x40	/* hex digit */
#define _SP	0x80	/* the space character */

extern const unsigned char _ctype[];

static inline int ref_ctype_has(int c, unsigned int bits)
{
	return (_ctype[(unsigned char)c] & bits) != 0;
}

#define isdigit(c)	ref_ctype_has((c), _D)
#define isxdigit(c)	ref_ctype_has((c), _D | _X)
#define isspace(c)	ref_ctype_has((c), _S)
#define _tolower(c)	((c) | 0x20)

#endif
