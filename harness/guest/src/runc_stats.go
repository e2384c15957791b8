// SPDX-License-Identifier: GPL-2.0
//
// runc_stats CGROUP_DIR: the RDMA part of what runc collects for
// `runc events --stats`, printed as JSON, e.g.
//   {"rdma_limit":[{"device":"rxe0","hca_handles":1,"hca_objects":2}],
//    "rdma_current":[{"device":"rxe0","hca_handles":1,"hca_objects":2}]}
//
// runc gathers its container's statistics with the cgroup v2 manager of
// libcontainer, whose GetStats() reads rdma.current and rdma.max with
// fscommon.RdmaGetStats(); `runc events --stats` then converts them into
// its own event type, which has no field for RDMA, so the runc command
// never shows them.  This program calls that same GetStats(), built from
// Debian's golang-github-opencontainers-runc-dev, the source of Debian's
// runc, and prints what it found.  runc's parser keeps only lines of
// exactly three fields "DEV hca_handle=N hca_object=N" and skips the others
// silently, so a device missing from the output is a line runc could not
// read.  Exit status 1 if GetStats() fails.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/opencontainers/runc/libcontainer/cgroups/fs2"
	"github.com/opencontainers/runc/libcontainer/configs"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: runc_stats CGROUP_DIR")
		os.Exit(2)
	}
	m, err := fs2.NewManager(&configs.Cgroup{Resources: &configs.Resources{}}, os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "runc_stats:", err)
		os.Exit(1)
	}
	st, err := m.GetStats()
	if err != nil {
		fmt.Fprintln(os.Stderr, "runc_stats:", err)
		os.Exit(1)
	}
	out, err := json.Marshal(st.RdmaStats)
	if err != nil {
		fmt.Fprintln(os.Stderr, "runc_stats:", err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}
