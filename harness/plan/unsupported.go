package plan

import (
	"fmt"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
)

// Spec is the load of cell c of m, sent to url, whose scenario expects
// status expect: what its load generator is asked to do.
func Spec(m *matrix.Matrix, c matrix.Cell, url string, expect int) loadgen.Spec {
	load := matrix.CellLoad(m, c)
	return loadgen.Spec{URL: url, Connections: c.Connections, Duration: load.Duration, Requests: load.Requests,
		Timeout: load.Timeout, Expect: expect, Close: c.Close, Rate: c.Rate, Threads: m.Load.LoadgenCPUs, Protocol: cellid.Proto(c.Protocol),
		Pipeline: c.Pipeline, Headers: scenarioHeaders(m, c.Scenario)}
}

// scenarioHeaders are the request headers of the scenario named name.
func scenarioHeaders(m *matrix.Matrix, name string) []string {
	for _, sc := range m.Scenarios {
		if sc.Name == name {
			return sc.HeaderLines()
		}
	}
	return nil
}

// Unsupported marks the cells whose load generator cannot measure them as
// the matrix asks (wrk given a request count, ab a duration, h2load
// keep-alive off…) as skipped, naming the setting; a cell skipped already
// keeps its reason. Plan and run both call it, so that plan lists what
// run will skip.
func Unsupported(m *matrix.Matrix, cells []matrix.Cell) {
	for i, c := range cells {
		if c.Skip != "" {
			continue
		}
		tool, ok := loadgen.Tools[c.Generator]
		if !ok {
			cells[i].Skip = fmt.Sprintf("no load generator %q", c.Generator)
			continue
		}
		expect := 200
		for _, sc := range m.Scenarios {
			if sc.Name == c.Scenario {
				expect = sc.Expect.Status
			}
		}
		if why := tool.Unsupported(Spec(m, c, "", expect)); why != "" {
			cells[i].Skip = why
		}
	}
}
