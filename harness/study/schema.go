package study

import "time"

// File is a study.yaml: one published study, its setup, and every claim it
// makes, each with the cells that would test it. Nothing in it is a
// verdict: verdicts are computed from the committed runs (Judge).
type File struct {
	// Study is the study's number, as the seed file names it ("000").
	Study string `yaml:"study" check:"required"`
	// Title is a short English title.
	Title string `yaml:"title" check:"required"`
	// Seed is the file name of the study's original text in shared/seeds.
	Seed string `yaml:"seed" check:"required"`
	// Language is the language of the quotes: en (the default) or fr. A
	// claim in another language than en gives its English beside it.
	Language string `yaml:"language" check:"oneof=en|fr"`
	// Setup is how the study itself ran: each claim is held to it, less
	// what the claim's own setup replaces.
	Setup Setup `yaml:"setup" check:"required"`
	// Runs are the committed runs this study reads, folders relative to
	// the study's own (runs/<label>).
	Runs []string `yaml:"runs" check:"required,nonempty,unique"`
	// Reproduce are the commands that measured the runs.
	Reproduce []string `yaml:"reproduce"`
	// Claims are every claim of the study, in the order the text makes them.
	Claims []Claim `yaml:"claims" check:"required,nonempty"`
	// Context are cells measured beside the claims that no claim compares
	// (a topology's own limit, say): the README shows their figures, as
	// the runs recorded them, so that no such figure is written by hand.
	Context []Shown `yaml:"context"`
}

// Shown is a cell whose figure the README shows beside the claims.
type Shown struct {
	Cell   string `yaml:"cell" check:"required"`
	Metric string `yaml:"metric" check:"required,oneof=rps|mbps|latency_mean|latency_max|errors|mem_peak"`
	// Why is what the figure says for the study, in a sentence.
	Why string `yaml:"why" check:"required"`
}

// Setup is how a study measured a claim. The study file's top-level setup
// states every checklist item, or names it under Unstated: an item the
// study does not state cannot be shown to match a run, so a claim that
// rests on one is not testable as stated.
type Setup struct {
	Tool        string        `yaml:"tool" check:"oneof=bombardier|wrk|h2load|ab|openloop"`
	ToolVersion string        `yaml:"tool_version"`
	Requests    int64         `yaml:"requests" check:"min=1"` // per run (-n)
	Duration    time.Duration `yaml:"duration"`               // per run (-d)
	Connections []int         `yaml:"connections" check:"unique,min=1"`
	// Pinning is where the load generator ran beside the server: apart
	// (cores of its own), together (the server's cores), none (unpinned,
	// sharing the machine).
	Pinning string `yaml:"pinning" check:"oneof=apart|together|none"`
	Cores   int    `yaml:"cores" check:"min=1"` // the server's
	Machine string `yaml:"machine"`             // in words
	// OS is the machine's operating system family, held against the run's
	// recorded OS.
	OS string `yaml:"os" check:"oneof=linux|windows"`
	// Across says the claim compares machines (two of the author's, or one
	// under two systems): a pair is two cells of one run on one machine, so
	// no run can hold it.
	Across string `yaml:"across" check:"oneof=machines"`
	// Unstated names the checklist items the study does not state (tool,
	// tool_version, load, pinning, cores, os, servers, statistic, runs).
	// Servers are the servers the study measured, each as the harness's
	// target that stands for it.
	Servers []Server `yaml:"servers"`
	// Statistic is the figure the study reports from its runs: median
	// (the median of Runs), best (the best of Runs), single (one run's
	// figure, however it was chosen: every trial here is read as one such
	// run, and the ratio's interval is the spread of single trials).
	Statistic string `yaml:"statistic" check:"oneof=median|best|single"`
	Runs      int    `yaml:"runs" check:"min=1"` // how many runs the statistic is taken over
	// Words is the statistic in the study's words ("one run 'in the
	// middle' of several").
	Words    string   `yaml:"words"`
	Unstated []string `yaml:"unstated" check:"unique,oneof=tool|tool_version|load|pinning|cores|os|servers|statistic|runs"`
}

// Server is one server of a study and the target that stands for it here.
type Server struct {
	Name   string `yaml:"name" check:"required"`   // as the study names it: "Node.js 8.9 http"
	Target string `yaml:"target" check:"required"` // target or target:variant of the harness
	// Runtime is the runtime the study ran, as the start of a cell's
	// recorded runtime_version ("node v8.9"); left out, any runtime matches.
	Runtime string `yaml:"runtime"`
}

// Claim is one claim of the study.
type Claim struct {
	ID      string `yaml:"id" check:"required"`
	Quote   string `yaml:"quote" check:"required"` // the study's own words
	English string `yaml:"english"`                // required when the study is not in English
	// Unit and Figures are the claim's unit and the study's own figures,
	// quoted as the study gives them.
	Unit    string `yaml:"unit" check:"required"`
	Figures string `yaml:"figures"`
	// Setup replaces the study's setup where the claim was measured
	// otherwise (another machine, another count).
	Setup *Setup `yaml:"setup"`
	// NotTestableHere is the file's own words on why no run here can test
	// the claim. The verdict does not rest on it: it is derived from the
	// runs (cells skipped, with their reasons) and from the checklist items
	// no machine of the runs can meet, and a reason the runs contradict is
	// an error.
	NotTestableHere string `yaml:"not_testable_here"`
	// Untestable is why no measurement can test the claim as it is worded
	// (an opinion, a statement about the study's own runs).
	Untestable string `yaml:"untestable"`
	// SeedDefect is a fault of the seed's own record that the claim's
	// figures rest on (a capture that names another server's port): the
	// README flags the claim with it, whatever its verdict.
	SeedDefect string `yaml:"seed_defect"`
	// Alone names the service of a target of several that the claim is
	// about by itself (a client service, not the upstream it calls). A
	// cell that ran another service on the same cores measured both
	// together: the claim is then not testable as stated.
	Alone string `yaml:"alone"`
	// Needs are cells the claim is about where no metric compares them (a
	// claim about .NET's logging): skipped in the runs, they make the claim
	// not testable here.
	Needs []string `yaml:"needs" check:"unique"`
	// Test is the cells and the statistic that would test the claim.
	Test *Test `yaml:"test"`

	reasonAt pos // where not_testable_here stands, for an error on it
}

// pos is where a field stands in the study file.
type pos struct {
	file, field string
	line, col   int
}

// Test is how runs test a claim: for each pair, cell A over cell B in the
// metric, against Expect.
type Test struct {
	// Metric is what is compared: rps (good responses per second), mbps
	// (bytes read per second), latency_mean and latency_max (ms), errors
	// (failed requests), mem_peak (the target's peak memory, MiB). Two
	// read one cell's two sides, trial by trial (cells, not pairs):
	// cpu_split (the server's CPU ÷ the load generator's) and cpu_busy
	// (their CPU together ÷ the cores they ran on: the machine's, unpinned).
	Metric string `yaml:"metric" check:"required,oneof=rps|mbps|latency_mean|latency_max|errors|mem_peak|cpu_split|cpu_busy"`
	// Expect is what the claim says of A ÷ B (of a cell's own figure, with
	// cells): greater or less than Value, about Value (within Tolerance),
	// or, with fails, that A fails (the cell fails, or has errors) where B
	// does not. no_errors (metric errors, cells) says each cell recorded
	// no failed request in any trial.
	Expect    string  `yaml:"expect" check:"required,oneof=greater|less|about|fails|no_errors"`
	Value     float64 `yaml:"value"`     // default 1
	Tolerance float64 `yaml:"tolerance"` // about: the claim's own slack, 0.25 for ±25%
	// Pairs are A ÷ B; Cells are one-cell tests (no_errors, cpu_split,
	// cpu_busy). A test has one or the other.
	Pairs []Pair   `yaml:"pairs"`
	Cells []string `yaml:"cells" check:"unique"`
}

// Pair is two cell ids as results.json names them (cellid.Key.ID).
type Pair struct {
	A string `yaml:"a" check:"required"`
	B string `yaml:"b" check:"required"`
}
