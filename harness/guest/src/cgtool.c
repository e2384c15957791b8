// SPDX-License-Identifier: GPL-2.0
/*
 * cgtool: a write to a cgroup file for the guest tests, reporting the exact
 * errno, so that the tests can assert it (a shell's echo does not).
 *
 *   cgtool write [-F NTH] [-X] FILE TEXT
 *	open FILE for writing and write TEXT (without a newline) in one
 *	write(2); TEXT "self" stands for this process's pid.  Prints "ok",
 *	"open ERRNO" or "write ERRNO" (e.g. "write ENOMEM").
 *	-F NTH: arm /proc/thread-self/fail-nth with NTH just before the
 *	write(2), and disarm it after; -X: set /proc/self/make-it-fail for
 *	the write(2) only.  With -F, " injected=1" or " injected=0" is
 *	appended: whether the NTH fault was injected during the write.
 *
 * Exit status: 0 when the command ran and its result was printed (whatever
 * the result), 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static int usage(void)
{
	fprintf(stderr, "usage: cgtool write [-F NTH] [-X] FILE TEXT\n");
	return 2;
}

static int cmd_write(int argc, char **argv)
{
	const char *nth = NULL, *text;
	int c, fd, e, injected, make_it_fail = 0;
	char pid[24];
	ssize_t n;

	while ((c = getopt(argc, argv, "+F:X")) != -1)
		if (!fault_opt(c, optarg, &nth, &make_it_fail))
			return usage();
	if (argc - optind != 2)
		return usage();
	text = argv[optind + 1];
	if (!strcmp(text, "self")) {
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		text = pid;
	}

	fd = open(argv[optind], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("open %s\n", errname(errno));
		return 0;
	}
	e = fault_arm(nth, make_it_fail);
	if (e) {
		fprintf(stderr, "cgtool: arming fault injection: %s\n", strerror(-e));
		return 2;
	}
	n = write(fd, text, strlen(text));
	e = errno;
	injected = fault_disarm(nth, make_it_fail);
	if (injected < 0) {
		fprintf(stderr, "cgtool: reading fail-nth: %s\n", strerror(-injected));
		return 2;
	}
	close(fd);
	if (n < 0)
		printf("write %s", errname(e));
	else if ((size_t)n != strlen(text))
		printf("write short");
	else
		printf("ok");
	if (nth)
		printf(" injected=%d", injected);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	argc--;
	argv++;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(cmd, "write"))
		return cmd_write(argc, argv);
	return usage();
}
