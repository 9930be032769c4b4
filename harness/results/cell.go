package results

import (
	"fmt"
	"strings"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
)

// Label names a cell's target in a table: "target[:variant]", then
// " (wrk)" when another load generator than the default measured it,
// " (h2)" when another protocol than cleartext HTTP/1.1 carried it,
// " (n=1000000)" when the requests axis set its count, " (2 generators)"
// when the loadgens axis set how many generator engines loaded it,
// " (name=value)" for each declared axis away from its default, and
// " (control)" for an A/A control.
func (c *Cell) Label() string {
	label := c.Key().TargetName()
	if g := c.GeneratorName(); g != cellid.DefaultGenerator {
		label += " (" + g + ")"
	}
	if c.Protocol != "" {
		label += " (" + c.Protocol + ")"
	}
	if c.Requests > 0 {
		label += fmt.Sprintf(" (n=%d)", c.Requests)
	}
	switch {
	case c.Loadgens == 1:
		label += " (1 generator)"
	case c.Loadgens > 1:
		label += fmt.Sprintf(" (%d generators)", c.Loadgens)
	}
	if c.Pipeline > 1 {
		label += fmt.Sprintf(" (pipeline %d)", c.Pipeline)
	}
	switch c.Pinning {
	case cellid.PinTogether:
		label += " (together)"
	case cellid.PinNone:
		label += " (unpinned)"
	}
	for _, kv := range c.Axes {
		label += " (" + kv.Name + "=" + kv.Value + ")"
	}
	if c.Control {
		label += " (control)"
	}
	return label
}

// Cores is how many cores the target could run on: its cpus axis value,
// save unpinned (pinning none), where the value only names the cell and
// the target, like the generator, had every core of its recorded cpuset.
func (c *Cell) Cores() int { return cores(c.CPUs, c.Pinning, c.CPUSet) }

// Cores is Cell.Cores for the generator's ceiling.
func (c *Ceiling) Cores() int { return cores(c.CPUs, c.Pinning, c.CPUSet) }

func cores(cpus int, pinning, set string) int {
	if pinning != cellid.PinNone {
		return cpus
	}
	if s, err := cpuset.Parse(set); err == nil && len(s) > 0 {
		return len(s)
	}
	return cpus
}

// ParamText is the cell's params as a table shows them: "k=v&k2=v2".
func (c *Cell) ParamText() string {
	k := c.Key()
	return strings.TrimPrefix(strings.TrimPrefix(k.ScenarioName(), k.Scenario), "?")
}
