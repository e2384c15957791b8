// SPDX-License-Identifier: GPL-2.0
/*
 * cgtool: small cgroup helpers for the guest tests, each reporting the exact
 * errno of what it did, so that the tests can assert it.
 *
 *   cgtool write [-F NTH] [-X] FILE TEXT
 *	open FILE for writing and write TEXT (without a newline) in one
 *	write(2); TEXT "self" stands for this process's pid.  Prints "ok",
 *	"open ERRNO" or "write ERRNO" (e.g. "write ENOMEM").
 *	-F NTH: arm /proc/thread-self/fail-nth with NTH just before the
 *	write(2), and disarm it after; -X: set /proc/self/make-it-fail for
 *	the write(2) only.  With -F, " injected=1" or " injected=0" is
 *	appended: whether the NTH fault was injected during the write.
 *   cgtool mkdir DIR
 *   cgtool rmdir DIR
 *   cgtool chmod FILE OCTAL_MODE
 *	print "ok" or the errno name.
 *   cgtool remount DIR [OPTIONS]
 *	mount(2) with MS_REMOUNT and exactly OPTIONS as data (busybox mount
 *	would merge in the current options); print "ok" or the errno name.
 *   cgtool runas [-g CGROUP_DIR] [-N] UID GID CMD [ARG...]
 *	as root: join CGROUP_DIR (write the pid to its cgroup.procs), with
 *	-N unshare the cgroup namespace (the new namespace's root is that
 *	cgroup), drop every supplementary group, set real, effective and
 *	saved ids to UID/GID, then exec CMD.
 *
 * Exit status: 0 when the command ran and its result was printed (whatever
 * the result), 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: cgtool write [-F NTH] [-X] FILE TEXT\n"
		"       cgtool mkdir|rmdir DIR\n"
		"       cgtool chmod FILE OCTAL_MODE\n"
		"       cgtool remount DIR [OPTIONS]\n"
		"       cgtool runas [-g CGROUP_DIR] [-N] UID GID CMD [ARG...]\n");
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

static int cmd_runas(int argc, char **argv)
{
	const char *cg = NULL;
	int c, e, newns = 0;
	char path[4096];
	uid_t uid;
	gid_t gid;

	while ((c = getopt(argc, argv, "+g:N")) != -1) {
		switch (c) {
		case 'g':
			cg = optarg;
			break;
		case 'N':
			newns = 1;
			break;
		default:
			return usage();
		}
	}
	if (argc - optind < 3)
		return usage();
	uid = strtoul(argv[optind], NULL, 10);
	gid = strtoul(argv[optind + 1], NULL, 10);

	if (cg) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		snprintf(path + strlen(path) + 1,
			 sizeof(path) - strlen(path) - 1, "%d", (int)getpid());
		e = write_str(path, path + strlen(path) + 1);
		if (e) {
			fprintf(stderr, "cgtool: runas: joining %s: %s\n", cg,
				strerror(-e));
			return 2;
		}
	}
	if (newns && unshare(CLONE_NEWCGROUP)) {
		perror("cgtool: runas: unshare(CLONE_NEWCGROUP)");
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("cgtool: runas: dropping privileges");
		return 2;
	}
	execvp(argv[optind + 2], argv + optind + 2);
	fprintf(stderr, "cgtool: runas: exec %s: %s\n", argv[optind + 2],
		strerror(errno));
	return 2;
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
	if (!strcmp(cmd, "runas"))
		return cmd_runas(argc, argv);
	if (!strcmp(cmd, "mkdir") && argc == 2) {
		printf("%s\n", mkdir(argv[1], 0755) ? errname(errno) : "ok");
		return 0;
	}
	if (!strcmp(cmd, "rmdir") && argc == 2) {
		printf("%s\n", rmdir(argv[1]) ? errname(errno) : "ok");
		return 0;
	}
	if (!strcmp(cmd, "chmod") && argc == 3) {
		mode_t mode = strtoul(argv[2], NULL, 8);

		printf("%s\n", chmod(argv[1], mode) ? errname(errno) : "ok");
		return 0;
	}
	if (!strcmp(cmd, "remount") && (argc == 2 || argc == 3)) {
		printf("%s\n", mount("none", argv[1], NULL, MS_REMOUNT,
				     argc == 3 ? argv[2] : "") ?
		       errname(errno) : "ok");
		return 0;
	}
	return usage();
}
