package matrix

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/cpuset"
)

// Cell is one measurement: a target answering a scenario on some cores under
// some number of connections.
type Cell struct {
	Target      string     `json:"target"`
	Scenario    string     `json:"scenario"`
	CPUs        int        `json:"cpus"`
	Connections int        `json:"connections"`
	CPUSet      cpuset.Set `json:"-"` // target cores; empty when skipped
	LoadgenSet  cpuset.Set `json:"-"`
	Skip        string     `json:"-"` // reason the cell cannot run on this machine
}

// ID names a cell uniquely within a run: target/scenario/c<cpus>/n<conns>.
func (c Cell) ID() string {
	return fmt.Sprintf("%s/%s/%dcpu/c%d", c.Target, c.Scenario, c.CPUs, c.Connections)
}

// Expand lists the cells of m in a documented order (target as in the file,
// then scenario as in the file, then cpus, then connections), keeping those
// the selector picks and the targets serve. Cores come from online; a cell
// whose cores do not fit is kept with Skip set.
func Expand(m *Matrix, only Selector, online cpuset.Set) []Cell {
	var cells []Cell
	for _, t := range m.Targets {
		for _, s := range m.Scenarios {
			if !t.Serves(s.Name) {
				continue
			}
			for _, cpus := range m.CPUs {
				for _, conns := range m.Connections {
					c := Cell{Target: t.Name, Scenario: s.Name, CPUs: cpus, Connections: conns}
					if !only.Match(c) {
						continue
					}
					tg, lg, err := cpuset.Allocate(online, cpus, m.Load.LoadgenCPUs)
					if err != nil {
						c.Skip = err.Error()
					}
					c.CPUSet, c.LoadgenSet = tg, lg
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
}

// Selector picks cells by name. It is a comma-separated list of terms; a
// cell is picked when any term matches. A term without a slash matches a
// target or scenario name (shell glob); a term "T/S" matches target T and
// scenario S (each a glob). The empty selector picks every cell.
type Selector []string

// ParseSelector splits --only's value.
func ParseSelector(s string) (Selector, error) {
	var sel Selector
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			continue
		}
		for _, part := range strings.Split(term, "/") {
			if _, err := path.Match(part, ""); err != nil {
				return nil, fmt.Errorf("--only %q: bad pattern %q", s, part)
			}
		}
		if strings.Count(term, "/") > 1 {
			return nil, fmt.Errorf("--only %q: a term is NAME or TARGET/SCENARIO, got %q", s, term)
		}
		sel = append(sel, term)
	}
	return sel, nil
}

// Match reports whether the selector picks c.
func (sel Selector) Match(c Cell) bool {
	if len(sel) == 0 {
		return true
	}
	for _, term := range sel {
		if t, s, ok := strings.Cut(term, "/"); ok {
			if glob(t, c.Target) && glob(s, c.Scenario) {
				return true
			}
		} else if glob(term, c.Target) || glob(term, c.Scenario) {
			return true
		}
	}
	return false
}

func glob(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}

// Estimate is the expected wall time of running cells, counting readiness,
// verification and container start as perCellOverhead. A request-count load
// has no known duration; it is counted at the given guess of requests/s.
func Estimate(m *Matrix, cells []Cell, perCellOverhead time.Duration, guessRPS float64) time.Duration {
	trial := m.Load.Duration
	if m.Load.Requests > 0 {
		trial = time.Duration(float64(m.Load.Requests) / guessRPS * float64(time.Second))
	}
	var total time.Duration
	for _, c := range cells {
		if c.Skip != "" {
			continue
		}
		total += perCellOverhead + m.Load.Warmup + time.Duration(m.Load.Trials)*trial
	}
	return total
}
