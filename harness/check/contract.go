// Package check owns the target contract: what a server under test must
// do to be measured fairly (Rules, the list docs/targets.md states), and
// the checks of it made without load. Target builds a target's folder
// the way a run does, starts it alone on an internal network as a run
// does, reaches it from inside its network namespace and asks it once
// per rule; the rule evaluations (KeepAlive, Concurrency, Scenario,
// Runtime…) take an address, so that they are tested against httptest
// servers that break each rule.
package check

import (
	"fmt"
	"strings"
)

// Rule is one clause of the contract, named by its ID in every finding.
type Rule struct {
	ID string
	// Text is the clause as docs/targets.md states it.
	Text string
	// Checked says whether check verifies it; a rule it cannot observe
	// without load (Nagle's algorithm, the worker pool's size) says why.
	Checked bool
	Why     string // for a rule not checked: why not
}

// Rule IDs.
const (
	RuleBuild       = "build"
	RuleStart       = "start"
	RulePort        = "port"
	RuleRuntime     = "runtime"
	RuleScenario    = "scenario"
	RuleProtocol    = "protocol"
	RuleKeepAlive   = "keep-alive"
	RuleConcurrency = "concurrency"
	RuleBacklog     = "backlog"
	RuleHeaders     = "headers"
	RuleCPUs        = "cpus"
	RuleNagle       = "nagle"
)

// Rules is the target contract, in the order check verifies it.
var Rules = []Rule{
	{ID: RuleBuild, Checked: true, Text: "the folder builds from its Dockerfile, taking each base image as a build argument `ARG <KEY>_IMAGE` for a key of the matrix's `images:`"},
	{ID: RuleStart, Checked: true, Text: "the container starts and keeps running"},
	{ID: RulePort, Checked: true, Text: "it listens on all interfaces on the port in `PORT` (the harness sets it; it need not be the matrix's `port`)"},
	{ID: RuleRuntime, Checked: true, Text: "it prints a line `runtime: <name> <version>` on stdout at start (`runtime: go1.26.8`, `runtime: node v22.11.0`)"},
	{ID: RuleScenario, Checked: true, Text: "every scenario it declares (`scenarios:`; none listed is all) answers as the scenario's `expect:` says, for every value of its params"},
	{ID: RuleProtocol, Checked: true, Text: "every protocol it declares (`protocols:`; none listed is `[http1]`) is spoken on `PORT`: `https` and `h2` with the PEM files in `TLS_CERT_FILE` and `TLS_KEY_FILE` (ALPN `http/1.1`, `h2`), `h2c` as cleartext HTTP/2 with prior knowledge beside HTTP/1.1"},
	{ID: RuleKeepAlive, Checked: true, Text: "HTTP/1.1 keeps the connection alive: a second request on the connection of the first is answered as the scenario's `expect:` says, like the first, and nothing the client did not ask for follows either answer"},
	{ID: RuleConcurrency, Checked: true, Text: "it serves connections concurrently: the matrix's largest connection count, opened at once, all get answers of the expected status while all stay open"},
	{ID: RuleBacklog, Checked: true, Text: "its listen backlog is at least that connection count (a backlog of 5 drops connection attempts that the load generator then waits on)"},
	{ID: RuleHeaders, Checked: true, Text: "each answer's status line and headers end within 64 KiB: check reads no more of them"},
	{ID: RuleCPUs, Text: "it sizes worker pools from `CPUS`, the number of cores it is pinned to, where its runtime does not see the cpuset itself",
		Why: "a pool's size shows only under load"},
	{ID: RuleNagle, Text: "it turns Nagle's algorithm off (`TCP_NODELAY`) on the connections it accepts",
		Why: "it shows only as delayed answers under load, and check asserts no timing"},
}

// Finding is the outcome of one rule for one thing checked: Seen says
// what was seen, a breach when OK is false.
type Finding struct {
	Rule string
	OK   bool
	Seen string
}

func (f Finding) String() string {
	mark := "ok    "
	if !f.OK {
		mark = "breach"
	}
	return fmt.Sprintf("%s %s: %s", mark, f.Rule, f.Seen)
}

func pass(rule, format string, args ...any) Finding {
	return Finding{Rule: rule, OK: true, Seen: fmt.Sprintf(format, args...)}
}

func breach(rule, format string, args ...any) Finding {
	return Finding{Rule: rule, Seen: fmt.Sprintf(format, args...)}
}

// Breaches are the findings that are not OK.
func Breaches(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if !f.OK {
			out = append(out, f)
		}
	}
	return out
}

// clip shortens what a server said to one line of at most n bytes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
