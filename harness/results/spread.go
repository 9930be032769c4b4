package results

import "time"

// Share is one load generator's part of a cell's load when the load comes
// from several engines (placement.loadgen: [a, b, …]): the connections,
// rate and request count it was given (the first takes a split's
// remainder) and the cores it ran on.
type Share struct {
	Engine      string `json:"engine"`
	CPUSet      string `json:"loadgen_cpuset"`
	Connections int    `json:"connections"`
	Rate        int    `json:"rate,omitempty"`
	Requests    int64  `json:"requests,omitempty"`
}

// Spread is how a trial of a load from several generators went: the
// instant every generator was handed, how far apart they really started,
// how much of their windows they shared, and what each measured. The
// trial's own figures are their merge: counts summed, the rate over the
// common window, latency percentiles from every generator's full
// distribution merged, or none (NoLatency).
type Spread struct {
	StartAt time.Time `json:"start_at"` // the start instant the harness handed out
	SkewMS  float64   `json:"skew_ms"`  // the latest generator's start minus the earliest's
	// Overlap is the common window over the longest generator's (0…1);
	// under merge.MinOverlap the trial fails.
	Overlap       float64 `json:"overlap"`
	CommonSeconds float64 `json:"common_seconds"`
	// NoLatency names the generators whose tool exported no full latency
	// distribution: percentiles of the others' requests would describe
	// other requests than the trial's, so the trial has none.
	NoLatency  []string         `json:"no_latency,omitempty"`
	Generators []GeneratorTrial `json:"generators"`
}

// GeneratorTrial is one generator's part of a trial, by its machine's
// clock.
type GeneratorTrial struct {
	Engine    string    `json:"engine"`
	StartedAt time.Time `json:"started_at"` // when its tool started
	StoppedAt time.Time `json:"stopped_at"` // when its tool exited, after any drain
	Requests  int64     `json:"requests"`   // good answers
	Errors    int64     `json:"errors"`
	Seconds   float64   `json:"seconds"` // its tool's own timed span
	RPS       float64   `json:"rps"`     // its tool's own rate
	// ClockOffsetMS is its machine's clock minus the harness's, read just
	// before the start instant was handed out, to within ClockWithinMS
	// (half the reading's round trip); StartedAt and StoppedAt are on that
	// clock.
	ClockOffsetMS float64 `json:"clock_offset_ms"`
	ClockWithinMS float64 `json:"clock_within_ms"`
	// LoadgenCPUCores is the cores it used; GeneratorBound says they
	// passed analysis.GeneratorBoundShare of its own (the trial is
	// generator-bound when any generator is).
	LoadgenCPUCores float64 `json:"loadgen_cpu_cores"`
	GeneratorBound  bool    `json:"generator_bound"`
}
