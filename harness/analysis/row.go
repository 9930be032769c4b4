package analysis

import (
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// Row is one ok cell as the tables show it, with the statistics computed
// from its trials. Its figures are grouped by what a table reads (which
// cell, how it ran, throughput, latency, errors, what bounded it, its
// footprint, its rank); the groups are embedded, so the JSON is one flat
// object in the order declared here, and row.RPS reads as before.
type Row struct {
	Identity
	Unsustained int  `json:"unsustained_trials,omitempty"` // fixed-rate trials that fell short of the rate (see Sustains)
	OpenLoop    bool `json:"open_loop,omitempty"`          // measured open-loop: latencies from intended send times
	Setup
	// Services is a multi-service target's CPU (median over trials) and
	// peak memory (largest) by service.
	Services map[string]results.ServiceUsage `json:"services,omitempty"`
	Throughput
	Latency
	MBps           float64 `json:"mb_per_s"` // median over trials of bytes read per second, in 10^6 bytes
	Noisy          bool    `json:"noisy"`
	GeneratorBound int     `json:"generator_bound_trials"`
	ErrorFigures
	Bounding
	Footprint
	Ranking

	cell *results.Cell // the cell the row shows
}

// Identity is which cell a row shows: its id, target and scenario, and
// the axes its tables sort and compare by.
type Identity struct {
	ID          string `json:"id"`
	Target      string `json:"target"` // target[:variant]
	Scenario    string `json:"scenario"`
	Params      string `json:"params,omitempty"` // k=v&k2=v2
	CPUs        int    `json:"cpus"`
	Connections int    `json:"connections"`
	Close       bool   `json:"connection_close,omitempty"` // keep-alive off
	Rate        int    `json:"rate,omitempty"`             // fixed requests/s; 0: as fast as the generator could
	Generator   string `json:"generator,omitempty"`        // the load generator, when not the default
	Base        string `json:"-"`                          // target[:variant], without generator or control
	// Control marks an A/A control: the same cell measured twice to show
	// the machine's noise. It is no competitor: it has no VsFastest, and
	// is never the fastest of its group.
	Control bool `json:"control,omitempty"`
}

// Setup is how a cell was run beyond Identity's axes: where the load
// generator and the services ran, over what protocol, with how many
// requests and generator engines.
type Setup struct {
	Pinning  string `json:"pinning,omitempty"`  // together or none: the generator shared the target's cores
	Protocol string `json:"protocol,omitempty"` // https, h2 or h2c; "": cleartext HTTP/1.1
	Requests int64  `json:"requests,omitempty"` // the requests axis's count per trial
	Loadgens int    `json:"loadgens,omitempty"` // the loadgens axis's count of generator engines
	// Schedule is the schedule axis's value when not the default: duet
	// cells ran beside another cell, on half the machine, so they are
	// ranked and compared among themselves only.
	Schedule string `json:"schedule,omitempty"`
	// Placement is what a machine with too few cores did in place of
	// giving each service and the load generator cores of their own.
	Placement string `json:"placement,omitempty"`
	// ServiceCPUSets are the cores each service of a target of several ran on.
	ServiceCPUSets map[string]string `json:"service_cpusets,omitempty"`
	// Cores is how many cores the target could run on, as the tables show
	// it: CPUs, save unpinned, where it had every core of its cpuset.
	Cores int `json:"-"`
	// Negotiated is what the probe agreed with the target before load.
	Negotiated *results.Negotiated `json:"negotiated,omitempty"`
}

// Throughput is a cell's requests per second: the headline, how it was
// picked from the trials, and the trials' spread.
type Throughput struct {
	Aggregate results.Aggregate `json:"aggregate"`
	RPS       float64           `json:"rps"` // the headline: median, or best of N
	RPSStats  stats.Summary     `json:"rps_stats"`
}

// Latency is a cell's latencies in milliseconds, over its trials.
type Latency struct {
	P50 stats.Summary `json:"latency_ms_p50"`
	P99 stats.Summary `json:"latency_ms_p99"`
	// P75, P90 and P95 are medians over trials, for the latency chart.
	P75, P90, P95 float64 `json:"-"`
	// Merged is every request's latency, the trials' HDR histograms
	// merged (open-loop cells); nil where trials carry none.
	Merged *results.Latency `json:"latency_ms_merged,omitempty"`
	MeanMS float64          `json:"latency_ms_mean,omitempty"` // median over trials; 0 in results without it
	MaxMS  float64          `json:"latency_ms_max"`            // the longest request of any trial
}

// ErrorFigures is how many of a cell's requests failed.
type ErrorFigures struct {
	Errors    int64   `json:"errors"`
	ErrorRate float64 `json:"error_rate"` // of the trials behind the headline
}

// Bounding is what bounded a cell, and the figures it was judged on.
type Bounding struct {
	CeilingShare float64  `json:"ceiling_share,omitempty"`
	BoundBy      []string `json:"bound_by,omitempty"` // why the cell is generator-bound
	// Bound is what bounded the cell: BoundGenerator, BoundServer,
	// BoundDatabase, BoundWaiting, BoundUnclear, BoundShared or
	// BoundUnknown ("" at a fixed rate, or without CPU samples); BoundWhy
	// gives the figures. For an A/A control and its twin, BoundWith is the
	// other cell's id: the two were judged together (see pairBounds), and
	// BoundBy, Bound and BoundWhy are the pair's.
	Bound     string        `json:"bounded_by,omitempty"`
	BoundWhy  *BoundFigures `json:"bounded_by_figures,omitempty"`
	BoundWith string        `json:"bounded_with,omitempty"`
}

// Footprint is what a cell's target costs beside its speed, and what it
// runs on.
type Footprint struct {
	TargetCPU float64 `json:"target_cpu_cores"`
	PeakMiB   float64 `json:"target_mem_peak_mib"`
	// The start-to-first-verified-answer time (median over visits), each
	// service's image size, the target's CPU time per good answer (median
	// over trials) and its steady memory (the last trial's median sample).
	// Zero where results predate them.
	StartupS     float64            `json:"startup_seconds,omitempty"`
	ImageMiB     map[string]float64 `json:"image_mib,omitempty"`
	CPUPerAnswer float64            `json:"cpu_us_per_answer,omitempty"`
	// CPUPerAnswerStats is the CPU time per good answer over the trials,
	// with its interval: a cost a user sees that the RPS of a busy machine
	// can hide (the same server made slower spends more per answer).
	CPUPerAnswerStats stats.Summary `json:"cpu_us_per_answer_stats"`
	SteadyMiB         float64       `json:"target_mem_steady_mib,omitempty"`
	Runtime           string        `json:"runtime,omitempty"` // what the target's image reports it runs on
}

// Ranking is how a cell compares with the fastest of its group.
// VsFastest is RPS over the fastest RPS of the same scenario, params,
// cores and connections, controls aside; Versus says whether that
// difference is significant: "" (it is, or this is the fastest), "~"
// (not), "?" (too few trials to tell). Both are zero for a control.
//
// RankLo…RankHi is the row's rank among the full-speed rows of its
// group with a 95% family-wise interval, and VsNext is Distinguishable or
// Tie against the next row in rank order ("" for the last); see
// RankTrials. All three are zero for a control and a fixed-rate row.
type Ranking struct {
	VsFastest float64 `json:"vs_fastest"`
	Versus    string  `json:"vs_fastest_significance"`
	// Not in the JSON model yet: adding them changes its schema
	// (docs/report.schema.json), which is regenerated with it.
	RankLo, RankHi int    `json:"-"`
	VsNext         string `json:"-"`
}
