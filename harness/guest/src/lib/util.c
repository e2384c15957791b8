// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the guest's and the benchmark's C tools; see util.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "none";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EFAULT: return "EFAULT";
	case ESRCH: return "ESRCH";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case ENOTDIR: return "ENOTDIR";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case EROFS: return "EROFS";
	case ENOTEMPTY: return "ENOTEMPTY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

int parse_bytes(const char *s, unsigned long long *bytes)
{
	unsigned long long v, mul = 1;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	}
	if (*end || (v && mul > ~0ULL / v))
		return -EINVAL;
	*bytes = v * mul;
	return 0;
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	return n < 0 ? -e : 0;
}

int join_cgroup(const char *dir)
{
	char path[4096], pid[24];
	int e;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	e = write_str(path, pid);
	if (e)
		fprintf(stderr, "%s: joining %s: %s\n",
			program_invocation_short_name, dir, strerror(-e));
	return e;
}

#define FAIL_NTH "/proc/thread-self/fail-nth"
#define MAKE_IT_FAIL "/proc/self/make-it-fail"

int fault_arm(const char *nth, int make_it_fail)
{
	int e;

	if (nth && (e = write_str(FAIL_NTH, nth)))
		return e;
	if (make_it_fail && (e = write_str(MAKE_IT_FAIL, "1")))
		return e;
	return 0;
}

int fault_disarm(const char *nth, int make_it_fail)
{
	char left[16] = "";
	ssize_t n;
	int fd;

	if (make_it_fail)
		write_str(MAKE_IT_FAIL, "0");
	if (!nth)
		return 0;
	fd = open(FAIL_NTH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, left, sizeof(left) - 1);
	close(fd);
	write_str(FAIL_NTH, "0");
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	return atoi(left) == 0;
}

int fault_opt(int c, const char *arg, const char **nth, int *make_it_fail)
{
	if (c == 'F')
		*nth = arg;
	else if (c == 'X')
		*make_it_fail = 1;
	else
		return 0;
	return 1;
}
