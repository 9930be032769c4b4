package check

import (
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
)

// TestSpec: the target runs on the network check made for it, and on the
// host's only where there is none.
func TestSpec(t *testing.T) {
	c := &container{network: "webbench-check-x", t: matrix.Target{Services: make([]matrix.Service, 1)}}
	if got := c.spec().Network; got != "webbench-check-x" {
		t.Errorf("on network %q, want its own", got)
	}
	c.network = ""
	if got := c.spec().Network; got != "host" {
		t.Errorf("on network %q, want host", got)
	}
}

// TestSequence: a target that dies during a rule is reported dead, and no
// rule reads ok after it, that rule's own pass included.
func TestSequence(t *testing.T) {
	alive := true
	steps := []step{
		{RuleKeepAlive, func() []Finding { return []Finding{pass(RuleKeepAlive, "fine")} }},
		{RuleConcurrency, func() []Finding {
			alive = false // the pids limit reached by its connections
			return []Finding{pass(RuleConcurrency, "all answered"), breach(RuleHeaders, "endless")}
		}},
		{RuleBacklog, func() []Finding { return []Finding{pass(RuleBacklog, "not checked: no socket")} }},
	}
	dead := func() string {
		if alive {
			return ""
		}
		return "the container stopped (exited with code 137); its last lines: fork: Resource temporarily unavailable"
	}
	got := sequence(steps, dead)
	var lines []string
	for _, f := range got {
		lines = append(lines, f.String())
	}
	want := []string{
		"ok     keep-alive: fine",
		"breach headers: endless",
		"breach start: the target died while its concurrency rule was checked: the container stopped (exited with code 137); its last lines: fork: Resource temporarily unavailable; not checked: backlog",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	alive = true
	if got := sequence(steps[:1], dead); len(got) != 1 || !got[0].OK {
		t.Errorf("a live target: %v", got)
	}
}
