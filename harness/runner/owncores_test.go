package runner

import (
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// A service with cores of its own is started on them, the server on the
// cell's and the generator on its own; each service's cores are recorded.
// On a 2-core machine the generator shares the server's core instead, and
// the cell records that placement.
func TestServiceCores(t *testing.T) {
	m := testMatrix(t, `version: 1
images: {debian: debian:bookworm-slim}
load: {duration: 1s, warmup: 0s, trials: 1, ready_timeout: 1s}
connections: [8]
targets:
  dbt:
    services:
      db: {build: db, port: 5432, cpus: 1}
      server: {build: server}
    entry: server
    port: 8080
scenarios:
  plaintext: {path: /plaintext, expect: {status: 200, body: "Hello, World!"}}
`, "", "db", "server")
	for _, tc := range []struct {
		ncpu              int
		server, db, gen   string
		placement, pinned string
	}{
		{4, "0", "1", "3", "", ""},
		{2, "0", "1", "0", "the load generator shares the server's core 0", "together"},
	} {
		f := newFake()
		f.ncpu = tc.ncpu
		res, err, _ := run(t, f, m, Options{NoCeiling: true})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Cells[0]
		if c.Status != results.OK || c.CPUSet != tc.server || c.LoadgenCPUSet != tc.gen || c.Pinning != tc.pinned ||
			c.ServiceCPUSets["db"] != tc.db || c.ServiceCPUSets["server"] != tc.server ||
			!strings.Contains(c.Placement, tc.placement) || (tc.placement == "") != (c.Placement == "") {
			t.Errorf("%d cores: cell %s %q, cpuset %s, generator %s, pinning %q, services %v, placement %q",
				tc.ncpu, c.Status, c.Reason, c.CPUSet, c.LoadgenCPUSet, c.Pinning, c.ServiceCPUSets, c.Placement)
		}
		for _, s := range f.containerSpecs() {
			want := tc.server
			if strings.HasSuffix(s.Name, "-db-1") {
				want = tc.db
			}
			if s.CPUSet != want {
				t.Errorf("%d cores: container %s on cores %s, want %s", tc.ncpu, s.Name, s.CPUSet, want)
			}
		}
	}
}
