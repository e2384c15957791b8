#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_rdma where it cannot make its own device (harness/guest/init, in
# the kselftest's folder): lo gets an rxe device beside siw0, and
# test_rdma must test the one it finds: device_gone, which would remove
# it, skips for that reason, and no case skips for want of a device.
rdma link add rxe_lo type rxe netdev lo || exit 1
./test_rdma >/tmp/found.tap
rc=$?
cat /tmp/found.tap
if ! grep -q '^ok [0-9]* rdma.device_gone # SKIP .* was there before the tests' /tmp/found.tap ||
	grep -q '# SKIP no siw or rxe device' /tmp/found.tap; then
	echo "# test_rdma did not test the device it found"
	rc=1
fi
exit $rc
