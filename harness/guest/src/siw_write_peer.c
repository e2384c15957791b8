// SPDX-License-Identifier: GPL-2.0
/*
 * siw_write_peer: a remote RDMA WRITE into a memory region that its owner
 * deregisters between two DDP segments of the write, on siw.
 *
 * Usage: siw_write_peer ADDR PORT
 *
 * ADDR is an IPv4 address of the netdev a siw device is attached to.  The
 * process listens with librdmacm on ADDR:PORT and connects to it with a
 * plain TCP socket, on which it speaks MPA itself (revision 1, no
 * markers, no CRC): so it is the remote peer, and sends the segments of a
 * tagged RDMA WRITE one at a time.
 *   1. the connection is up: MPA reply received, RDMA_CM_EVENT_ESTABLISHED;
 *   2. the first segment (not the last) lands in the MR: its bytes show in
 *      the buffer, and siw holds the MR's memory for the write;
 *   3. the MR is deregistered: its pages stay pinned (VmPin), held by the
 *      write in progress;
 *   4. the last segment comes for a STag no longer valid: siw ends the
 *      write in error and drops the last reference to the memory, in
 *      softirq context (the loopback delivers the segment there); the
 *      pages are unpinned within 10 s (VmPin back to where it was).
 * Prints TAP (plan 1..4) and exits 0; a kernel splat during the run fails
 * the test in the harness.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define PAGES	2
#define SEG	64	/* payload of the first segment */

static int n;

static void tap(int ok, const char *what)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++n, what);
	fflush(stdout);
}

static void bail(int from, const char *why)
{
	while (n < 4)
		tap(0, n + 1 == from ? why : "not reached");
	exit(0);
}

/* VmPin of this process, in kB; -1 if unreadable */
static long vm_pin(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* All LEN bytes of BUF through socket S: sent if OUT, else received; 0 or -1 */
static int xfer(int s, void *buf, size_t len, int out)
{
	char *p = buf;

	while (len) {
		ssize_t r = out ? send(s, p, len, 0) : recv(s, p, len, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= r;
	}
	return 0;
}

/* MPA request and reply frames (RFC 5044): key, flags and revision, private data length */
struct mpa_rr {
	char key[16];
	uint16_t bits;
	uint16_t pd_len;
} __attribute__((packed));

#define MPA_REJECT	0x2000

/*
 * One FPDU with one DDP segment of a tagged RDMA WRITE: MPA length, DDP
 * and RDMAP control (tagged, last or not, DDP and RDMAP version 1, opcode
 * 0), sink STag and tagged offset, the payload, then the pad to 4 bytes
 * and the MPA CRC (0: CRC is not in use).
 */
static int send_write(int s, uint32_t stag, uint64_t to, const void *data,
		      uint16_t len, int last)
{
	unsigned char fpdu[16 + SEG + 4 + 4];
	uint16_t mpa_len = 14 + len, ctrl = 0x8000 | 0x0100 | 0x0040;
	size_t total = 2 + mpa_len;

	if (len > SEG)
		return -1;
	if (last)
		ctrl |= 0x4000;
	mpa_len = htobe16(mpa_len);
	ctrl = htobe16(ctrl);
	stag = htobe32(stag);
	to = htobe64(to);
	memset(fpdu, 0, sizeof(fpdu));
	memcpy(fpdu, &mpa_len, 2);
	memcpy(fpdu + 2, &ctrl, 2);
	memcpy(fpdu + 4, &stag, 4);
	memcpy(fpdu + 8, &to, 8);
	memcpy(fpdu + 16, data, len);
	total += (4 - total % 4) % 4 + 4;
	return xfer(s, fpdu, total, 1);
}

static struct rdma_cm_event *get_event(struct rdma_event_channel *ch,
				       enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	if (ev->event != want) {
		printf("# rdma_cm event %s, expected %s (status %d)\n",
		       rdma_event_str(ev->event), rdma_event_str(want), ev->status);
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

int main(int argc, char **argv)
{
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1 };
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct mpa_rr req = { .key = "MPA ID Req Frame", .bits = htobe16(1) }, rep;
	struct rdma_cm_id *lid, *cid;
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	unsigned char data[SEG];
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	long pin0, pin;
	size_t page = sysconf(_SC_PAGESIZE);
	char *buf;
	int s, one = 1;
	uint32_t rkey;
	double t;

	if (argc != 3 || inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: siw_write_peer ADDR PORT\n");
		return 2;
	}
	sin.sin_port = htons(atoi(argv[2]));
	printf("1..4\n");

	/* 1: the connection, with this process as the peer */
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lid, (struct sockaddr *)&sin) || rdma_listen(lid, 1))
		bail(1, "listen with librdmacm on ADDR:PORT");
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    connect(s, (struct sockaddr *)&sin, sizeof(sin)) ||
	    xfer(s, &req, sizeof(req), 1))
		bail(1, "connect and send an MPA request");
	ev = get_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!ev)
		bail(1, "a connect request from the MPA request");
	cid = ev->id;
	rdma_ack_cm_event(ev);

	buf = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	pin0 = vm_pin();
	pd = ibv_alloc_pd(cid->verbs);
	cq = pd ? ibv_create_cq(cid->verbs, 4, NULL, NULL, 0) : NULL;
	qpa.send_cq = qpa.recv_cq = cq;
	if (buf == MAP_FAILED || pin0 < 0 || !cq || rdma_create_qp(cid, pd, &qpa))
		bail(1, "a PD, a CQ and a QP on the connect request's device");
	mr = ibv_reg_mr(pd, buf, PAGES * page,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		bail(1, "an MR for remote writes");
	rkey = mr->rkey;
	if (rdma_accept(cid, &param) || xfer(s, &rep, sizeof(rep), 0))
		bail(1, "accept and an MPA reply");
	if (memcmp(rep.key, "MPA ID Rep Frame", 16) || (be16toh(rep.bits) & MPA_REJECT))
		bail(1, "an MPA reply that accepts");
	while (be16toh(rep.pd_len)) {
		char c;

		if (xfer(s, &c, 1, 0))
			bail(1, "the MPA reply's private data");
		rep.pd_len = htobe16(be16toh(rep.pd_len) - 1);
	}
	ev = get_event(ch, RDMA_CM_EVENT_ESTABLISHED);
	if (!ev)
		bail(1, "the connection established");
	rdma_ack_cm_event(ev);
	tap(1, "a connection to siw with this process as the MPA peer");

	/* 2: the first segment of a write lands in the MR */
	memset(data, 0xa5, sizeof(data));
	if (send_write(s, rkey, (uintptr_t)buf, data, SEG, 0))
		bail(2, "send the first segment");
	for (t = now(); memcmp(buf, data, SEG) && now() - t < 10; )
		usleep(1000);
	tap(!memcmp(buf, data, SEG), "the first segment of a WRITE lands in the MR");

	/* 3: deregistered, the pages stay pinned by the write */
	pin = vm_pin();
	if (ibv_dereg_mr(mr))
		bail(3, "deregister the MR");
	printf("# VmPin %ld kB before the MR, %ld kB with it, %ld kB once deregistered\n",
	       pin0, pin, vm_pin());
	tap(pin == pin0 + (long)(PAGES * page / 1024) && vm_pin() == pin,
	    "the deregistered MR's pages stay pinned by the write in progress");

	/* 4: the last segment ends the write in error; the pages go */
	if (send_write(s, rkey, (uintptr_t)buf + SEG, data, SEG, 1))
		bail(4, "send the last segment");
	for (t = now(); vm_pin() != pin0 && now() - t < 10; )
		usleep(10000);
	printf("# VmPin %ld kB after the last segment\n", vm_pin());
	tap(vm_pin() == pin0, "the last segment's error unpins the pages");

	close(s);
	rdma_destroy_qp(cid);
	rdma_destroy_id(cid);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(ch);
	return 0;
}
