package matrix

import (
	"reflect"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cpuset"
)

// withDB is good with a target of two services, its db on a core of its own.
var withDB = strings.Replace(good, "targets:\n", `targets:
  dbt:
    services:
      db: {build: t1, port: 5432, cpus: 1}
      server: {build: t1}
    entry: server
    port: 8080
    scenarios: [plaintext]
`, 1)

// A service's cpus: the server takes the lowest cores, db the next, the
// generator the highest; with too few cores for all three the generator
// shares the server's (the cell becomes together, and says so), db still
// alone on its own; with too few even for the server and db, the cell is
// skipped naming both; unpinned, every container has every core; on two
// machines db takes the cores after the server's on the target's.
func TestServiceCores(t *testing.T) {
	m, err := parse(t, strings.Replace(withDB, "cpus: [1, 2]\nconnections: [64, 256]", "cpus: [1]\nconnections: [64]", 1))
	if err != nil {
		t.Fatal(err)
	}
	line := func(c Cell) string {
		return c.ID() + " server " + c.CPUSet.String() + " db " + c.ServiceSet("db").String() + " gen " + c.LoadgenSet.String() + " skip " + c.Skip
	}
	for _, tc := range []struct {
		cores     int
		want      string
		placement string
	}{
		{4, "dbt/plaintext/1cpu/c64 server 0 db 1 gen 3 skip ", ""},
		{3, "dbt/plaintext/1cpu/c64 server 0 db 1 gen 2 skip ", ""},
		{2, "dbt/plaintext/1cpu/c64/together server 0 db 1 gen 0 skip ",
			"this machine's 2 online cores cannot give the server 1, db 1 and the load generator 1 cores of their own, so the load generator shares the server's core 0 (as pinning together does), and db keeps core 1 to itself"},
		{1, "dbt/plaintext/1cpu/c64 server  db  gen  skip the server 1 and db 1 cores exceed the 1 online CPUs of this machine", ""},
	} {
		cells := Expand(m, Selector{"dbt"}, cpuset.Range(0, tc.cores))
		if len(cells) != 1 || line(cells[0]) != tc.want || cells[0].Placement != tc.placement {
			t.Errorf("%d cores: %d cell(s), the first %q (placement %q), want %q (placement %q)", tc.cores, len(cells), line(cells[0]), cells[0].Placement, tc.want, tc.placement)
			continue
		}
		if got := cells[0].TargetCores().String(); tc.cores > 1 && got != "0-1" {
			t.Errorf("%d cores: the target's cores %s, want 0-1", tc.cores, got)
		}
	}
	m, err = parse(t, strings.Replace(withDB, "cpus: [1, 2]\nconnections: [64, 256]", "cpus: [1]\nconnections: [64]\npinning: [apart, together, none]", 1))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range Expand(m, Selector{"dbt"}, cpuset.Range(0, 2)) {
		got = append(got, line(c))
	}
	want := []string{
		"dbt/plaintext/1cpu/c64 server 0 db 1 gen 0 skip this machine's 2 online cores cannot give the server 1, db 1 and the load generator 1 cores of their own, so the load generator shares the server's core 0 (as pinning together does), and db keeps core 1 to itself; the pinning axis's together cell is that cell",
		"dbt/plaintext/1cpu/c64/together server 0 db 1 gen 0 skip ",
		"dbt/plaintext/1cpu/c64/unpinned server 0-1 db 0-1 gen 0-1 skip ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pinning axis on 2 cores:\n%q\nwant\n%q", got, want)
	}
	apart := ExpandApart(m, Selector{"dbt"}, cpuset.Range(0, 2), cpuset.Range(0, 2))
	if c := apart[0]; line(c) != "dbt/plaintext/1cpu/c64 server 0 db 1 gen 1 skip " || c.Placement != "" {
		t.Errorf("two machines: %q, want the server on 0 and db on 1 of the target's, the generator on 1 of its own", line(c))
	}
}

// A service's cpus is decoded strictly, at its position; the entry
// service cannot have cores of its own (it has the cpus axis's).
func TestServiceCoresErrors(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"cpus: 1}", "cpus: 0}", "matrix.yaml:16:41: targets.dbt.services.db.cpus: must be at least 1, got 0"},
		{"cpus: 1}", "cpus: one}", "matrix.yaml:16:41: targets.dbt.services.db.cpus: want an integer"},
		{"server: {build: t1}", "server: {build: t1, cpus: 2}", "matrix.yaml:17:33: targets.dbt.services.server.cpus: the entry service runs on the cell's cores (the cpus axis)"},
	} {
		_, err := parse(t, strings.Replace(withDB, tc.from, tc.to, 1))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.to, err, tc.want)
		}
	}
}
