// Package results owns results.json, the file format: the types written
// to disk, their encoding and decoding, and the validation of what is read
// (a file anyone can edit is made safe to render, or refused). It computes
// nothing from the figures: package analysis builds the model (rows, noise
// floors, bounds, capacity) and package report renders it. It links no
// Docker code, so reports and comparisons are rendered from it alone.
package results

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moby/sys/atomicwriter"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/internal/safefile"
)

// Schema is the results.json version this harness writes. Version 2 added
// the generator axis: a cell's generator, in its id unless it is the
// default, and each ceiling's. Version 1 files (every cell measured by
// bombardier) are read as they were. The partial status (and a cell's
// trials_asked) came within version 2: a harness that reads 2 but not
// partial refuses such a cell by name (Decode's unknown status) rather
// than misread it, and this one reads a short ok cell of a run that never
// finished as partial, so no reading changed meaning.
const Schema = 2

// Status is how a cell ended.
type Status string

// Cell statuses.
const (
	OK      Status = "ok"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	// Partial is a cell measured in part: fewer trials than the load asks
	// (Cell.TrialsAsked), because its run was killed or interrupted, or is
	// still running (results.json is written after every trial). Its
	// figures are no cell's result: renderers list it apart, compare does
	// not compare it, and `run --resume` measures the rest.
	Partial Status = "partial"
)

// Why is why a cell failed or was bounded, as a short stable code that
// renderers word. The English of Reason and BoundBy is kept beside it:
// files before it hold only that, and a failure the runner has no code
// for (a build, a verification) has its sentence alone.
type Why string

// Why codes.
const (
	WhyErrorRate     Why = "error-rate"     // more of a trial's requests failed than load.max_error_rate allows
	WhyNoResponses   Why = "no-responses"   // a trial had no answer, not even an error
	WhyRateNotHeld   Why = "rate-not-held"  // a trial's generator could not keep the fixed rate
	WhyTargetStopped Why = "target-stopped" // the target's container stopped during a trial (OOM-killed, exited)

	BoundCeiling       Why = "ceiling"        // RPS at ≥ analysis.CeilingBound of the load generator's ceiling
	BoundSharedCeiling Why = "shared-ceiling" // the same, the generator sharing the target's cores (the pair bounds it)
	BoundLoadgenCPU    Why = "loadgen-cpu"    // generator CPU ≥ analysis.GeneratorBoundShare in Summary.GeneratorBound trials
)

// Measured is the status of a cell with done of asked trials measured
// and none failed: ok once every trial is, partial before.
func Measured(done, asked int) Status {
	if done < asked {
		return Partial
	}
	return OK
}

// Order is how a run's trials were scheduled.
type Order string

// Trial orders.
const (
	Interleaved Order = "interleaved" // round k runs trial k of every cell, shuffled per round
	Sequential  Order = "sequential"  // every trial of a cell before the next cell
	// Duet runs in rounds as Interleaved does, but each cell of the
	// schedule axis's duet value compared trial by trial (a later
	// revision, an A/A control) runs at the same time as its baseline,
	// each on cores of its own, the two swapping cores every round: the
	// machine's noise hits both sides of a pair at once. The run's other
	// cells run back to back with their baselines, as Interleaved.
	Duet Order = "duet"
)

// BaseImage is what one images key of the matrix resolved to.
type BaseImage struct {
	Key      string `json:"key"`
	Official string `json:"official"`         // the reference in the matrix
	Used     string `json:"used,omitempty"`   // the reference builds were given
	StandIn  bool   `json:"stand_in"`         // Used is a local stand-in, not Official
	Pulled   bool   `json:"pulled,omitempty"` // this run pulled Official from its registry (else the engine had it)
	Note     string `json:"note,omitempty"`   // how the stand-in was made
	Error    string `json:"error,omitempty"`  // why neither could be had
}

// Duration is a time.Duration written in results.json as Go spells it ("10s").
type Duration time.Duration

// MarshalText writes d as "10s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads "10s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

func (d Duration) String() string { return time.Duration(d).String() }

// Run is one results.json.
type Run struct {
	Schema      int                   `json:"schema"`
	Environment Environment           `json:"environment"`
	Matrix      Settings              `json:"matrix"`
	Images      map[string]*BaseImage `json:"base_images,omitempty"`
	Cells       []*Cell               `json:"cells"`
	Selection   string                `json:"selection,omitempty"` // hash of what the run measures: a resume must match it
	Warnings    []string              `json:"warnings,omitempty"`  // about the whole run (containers sharing its cores)
	Ceilings    []Ceiling             `json:"ceilings,omitempty"`  // the load generator's, per cores and connections
	Interrupted bool                  `json:"interrupted,omitempty"`
	Stopped     string                `json:"stopped,omitempty"` // why the run stopped early, when not by an interrupt
	FinishedAt  *time.Time            `json:"finished_at,omitempty"`
}

// Environment is where and with what the run was measured.
type Environment struct {
	Label          string      `json:"label"`
	Hostname       string      `json:"hostname"`
	CPUModel       string      `json:"cpu_model"`
	OnlineCPUs     int         `json:"online_cpus"`
	Kernel         string      `json:"kernel"`
	OS             string      `json:"os,omitempty"`
	DockerVersion  string      `json:"docker_version"`
	DockerAPI      string      `json:"docker_api_version,omitempty"`
	StorageDriver  string      `json:"storage_driver,omitempty"`
	HarnessVersion string      `json:"harness_version"`
	LoadGenerator  string      `json:"load_generator"`
	StartedAt      time.Time   `json:"started_at"`
	NetworkMode    Network     `json:"network_mode"`
	Resumed        []time.Time `json:"resumed_at,omitempty"` // when the run was continued with --resume
	// Machines are the target's and the load generator's machines when a
	// run used two engines (the fields above then describe the target's);
	// Link is the network between them as the user described it.
	Machines []Machine `json:"machines,omitempty"`
	Link     string    `json:"link,omitempty"`
}

// Machine is one machine of a run on two engines.
type Machine struct {
	Role          string `json:"role"`              // RoleTarget or RoleLoadgen
	Engine        string `json:"engine"`            // the matrix's engines key
	Host          string `json:"host"`              // the URL or context name the harness reached its engine by
	Address       string `json:"address,omitempty"` // the target's: where the load generator reached it
	Hostname      string `json:"hostname"`
	CPUModel      string `json:"cpu_model"`
	OnlineCPUs    int    `json:"online_cpus"`
	Reserved      int    `json:"reserved_cpus,omitempty"` // lowest-numbered cores no cell used
	Kernel        string `json:"kernel"`
	OS            string `json:"os,omitempty"`
	DockerVersion string `json:"docker_version"`
	StorageDriver string `json:"storage_driver,omitempty"`
}

// Machine roles.
const (
	RoleTarget  = "target"
	RoleLoadgen = "loadgen"
)

// Machine returns the machine of role, if the run had two.
func (e Environment) Machine(role string) (Machine, bool) {
	for _, m := range e.Machines {
		if m.Role == role {
			return m, true
		}
	}
	return Machine{}, false
}

// Settings is the expanded matrix the run used.
type Settings struct {
	File     string `json:"file"`
	Path     string `json:"path,omitempty"` // the matrix file as given to run (-f), for --resume
	Profile  string `json:"profile,omitempty"`
	Profiles string `json:"profiles_file,omitempty"` // the profiles file (-profiles) the profile came from
	Only     string `json:"only,omitempty"`
	// Set are the settings the command line gave over the profile
	// (--trials, --duration, --protocol, --rate, --connections, --set),
	// each as --set takes it, KEY=VALUE, in the order given; the fields
	// below hold their outcome.
	Set         []string            `json:"set,omitempty"`
	Load        LoadSettings        `json:"load"`
	CPUs        []int               `json:"cpus"`
	Connections []int               `json:"connections"`
	KeepAlive   []bool              `json:"keepalive,omitempty"`
	Rate        []int               `json:"rate,omitempty"`
	SLO         []Objective         `json:"slo,omitempty"`        // the latency objective of the capacity tables
	Generators  []string            `json:"generators,omitempty"` // the generator axis; none: [bombardier]
	Pinning     []string            `json:"pinning,omitempty"`    // the pinning axis; none: [apart]
	Protocols   []string            `json:"protocol,omitempty"`   // the protocol axis; none: [http1]
	Requests    []int64             `json:"requests,omitempty"`   // the requests axis: each cell's count in place of the load's
	Loadgens    []int               `json:"loadgens,omitempty"`   // the loadgens axis: how many of the generator engines each cell used; none: all
	Axes        map[string][]string `json:"axes,omitempty"`       // the declared axes' values (package axis), by name; an axis not set: its default
	Crosscheck  string              `json:"crosscheck,omitempty"` // the generator that measured every cell a second time
	NoCeiling   bool                `json:"no_ceiling,omitempty"` // run with --no-ceiling: no ceiling measured
	Images      map[string]string   `json:"images"`
	Targets     []Target            `json:"targets"`
	Scenarios   []Scenario          `json:"scenarios"`
	Control     string              `json:"control,omitempty"`     // the cells measured twice (A/A)
	RelativeTo  []cellid.Relative   `json:"relative_to,omitempty"` // baselines of the ratio tables
	Order       Order               `json:"order"`
	Seed        uint64              `json:"seed,omitempty"` // of the interleaved order's shuffles
	// Blocked: within each round of an interleaved run, the cells compared
	// trial by trial (an A/A control and its twin, a cell and its
	// relative_to baseline) ran back to back, blocks and cells within them
	// shuffled. Without it every cell of a round was shuffled freely.
	Blocked bool `json:"blocked,omitempty"`
}

// PerTrial says how long each trial ran: "duration 10s", "1000000
// requests", or, with the requests axis, "1000000 or 10000000 requests".
func (s Settings) PerTrial() string {
	counts := s.Requests
	if len(counts) == 0 && s.Load.Requests > 0 {
		counts = []int64{s.Load.Requests}
	}
	if len(counts) == 0 {
		return "duration " + s.Load.Duration.String()
	}
	text := make([]string, len(counts))
	for i, n := range counts {
		text[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(text, " or ") + " requests"
}

// Objective is one percentile of the latency objective (slo:) and the
// longest it may be.
type Objective struct {
	Percentile string   `json:"percentile"` // p50 … p99.99
	Max        Duration `json:"max"`
}

// LoadSettings is the load the run was given, durations written as text ("10s").
type LoadSettings struct {
	Duration     Duration  `json:"duration,omitzero"`
	Requests     int64     `json:"requests,omitempty"`
	Warmup       Duration  `json:"warmup"`
	Trials       int       `json:"trials"`
	Timeout      Duration  `json:"timeout"`
	LoadgenCPUs  int       `json:"loadgen_cpus"`
	ReadyTimeout Duration  `json:"ready_timeout"`
	Aggregate    Aggregate `json:"aggregate"`
	MaxErrorRate float64   `json:"max_error_rate"`
}

// Cell is one measured (or failed, or skipped) cell.
type Cell struct {
	Target        string `json:"target"`
	Variant       string `json:"variant,omitempty"`
	Scenario      string `json:"scenario"`
	Params        []KV   `json:"params,omitempty"`
	CPUs          int    `json:"cpus"`
	CPUSet        string `json:"cpuset"`
	LoadgenCPUSet string `json:"loadgen_cpuset"`
	// ServiceCPUSets are the cores each service of a target of several
	// ran on: cpuset, or cores of its own (its cpus: in the matrix).
	ServiceCPUSets map[string]string `json:"service_cpusets,omitempty"`
	// Placement says what a machine with too few cores did in place of
	// giving the server, each service with cores of its own and the load
	// generator cores of their own; none when it gave them.
	Placement   string      `json:"placement,omitempty"`
	Connections int         `json:"connections"`
	Close       bool        `json:"connection_close,omitempty"` // keep-alive off: Connection: close on every request
	Rate        int         `json:"rate,omitempty"`             // requests/s bombardier held; 0: as fast as it could
	Control     bool        `json:"control,omitempty"`          // the A/A twin of the cell of the same id
	Generator   *Generator  `json:"generator,omitempty"`        // the load generator that measured it; none: bombardier (schema 1)
	Pinning     string      `json:"pinning,omitempty"`          // together: the generator on the target's cores; none: neither pinned; "": apart
	Protocol    string      `json:"protocol,omitempty"`         // https, h2 or h2c; "": cleartext HTTP/1.1
	Requests    int64       `json:"requests,omitempty"`         // the requests axis's count per trial; 0: the load's
	Loadgens    int         `json:"loadgens,omitempty"`         // the loadgens axis: the first k generator engines (Split names them); 0: all
	Axes        []KV        `json:"axes,omitempty"`             // its values of the declared axes (package axis) but their defaults, by name
	Revision    *Revision   `json:"revision,omitempty"`         // the git revision its target was built from, when the revision axis named one
	Pipeline    int         `json:"pipeline,omitempty"`         // its scenario's requests in flight per connection; 0: one, each answer awaited
	Split       []Share     `json:"split,omitempty"`            // the load's division among several generators; none: one
	Duet        string      `json:"duet,omitempty"`             // in a duet run: what it was measured beside, and on which cores
	Negotiated  *Negotiated `json:"negotiated,omitempty"`       // what the probe agreed with the target before load
	Writes      *Writes     `json:"db_writes,omitempty"`        // of an updates cell: what its database showed written
	DBCounts    *DBCounts   `json:"db_counts,omitempty"`        // of a TFB database cell: what its database served per answer
	Status      Status      `json:"status"`
	Reason      string      `json:"reason,omitempty"`
	Why         Why         `json:"why,omitempty"`          // the kind of a failed cell's reason, when the runner has one
	TrialsAsked int         `json:"trials_asked,omitempty"` // of a partial cell: the trials the load asks (len(trials) were measured)
	Warnings    []string    `json:"warnings,omitempty"`
	Image       *Image      `json:"image,omitempty"`
	Limits      *Limits     `json:"limits,omitempty"` // of each of the target's containers
	Trials      []Trial     `json:"trials,omitempty"`
	Summary     *Summary    `json:"summary,omitempty"`
	Seconds     float64     `json:"seconds"` // wall time the cell took, start to stop
	// Startup is, per visit, the seconds from starting the target's
	// containers to its first verified answer.
	Startup []float64 `json:"startup_seconds,omitempty"`
}

// Revision is a git revision a target was built from: its name as the
// revision axis gave it, the commit it named, and, for WORKTREE, whether
// the work tree differed from that commit.
type Revision struct {
	Name   string `json:"name"`
	Commit string `json:"commit,omitempty"` // the full hash; none in a repository without commits
	Dirty  bool   `json:"dirty,omitempty"`
}

// ID names the cell (see cellid.Key.ID).
func (c *Cell) ID() string {
	return c.Key().ID()
}

// Key is the cell's identity as the matrix names it.
func (c *Cell) Key() cellid.Key {
	return cellid.Key{Target: c.Target, Variant: c.Variant, Scenario: c.Scenario, Params: c.Params, CPUs: c.CPUs,
		Connections: c.Connections, Close: c.Close, Rate: c.Rate, Control: c.Control, Generator: c.GeneratorName(), Pinning: c.Pinning, Protocol: c.Protocol, Requests: c.Requests, Loadgens: c.Loadgens, Axes: c.Axes}
}

// Negotiated is what the probe and the target agreed on, before load:
// the HTTP version of the answer and, over TLS, the TLS version, the
// cipher suite and the ALPN protocol, with the subject of the certificate
// the probe verified against the run's CA.
type Negotiated struct {
	HTTP    string `json:"http"`                   // the answer's protocol: HTTP/1.1, HTTP/2.0
	TLS     string `json:"tls,omitempty"`          // TLS 1.3, TLS 1.2
	Cipher  string `json:"cipher,omitempty"`       // e.g. TLS_AES_128_GCM_SHA256
	ALPN    string `json:"alpn,omitempty"`         // h2, http/1.1
	Subject string `json:"cert_subject,omitempty"` // of the leaf the probe verified
}

// Writes is what the database of a cell of TFB's updates test showed its
// trials wrote, counted from the database itself (an answer cannot show
// whether a server wrote what it answered), summed over the cell's visits,
// each of which starts a freshly seeded database.
type Writes struct {
	Method      string `json:"method"`       // how the rows were counted: WritesWorldDiff
	Answered    int64  `json:"answered"`     // update requests the trials answered (good responses)
	RowsChanged int64  `json:"rows_changed"` // rows of World the database shows changed over the trials
}

// WritesWorldDiff is Writes.Method when World was read whole from the
// database before and after the trials and compared row by row.
const WritesWorldDiff = "world-diff"

// GeneratorName is the name of the load generator that measured c.
func (c *Cell) GeneratorName() string {
	if c.Generator == nil || c.Generator.Name == "" {
		return cellid.DefaultGenerator
	}
	return c.Generator.Name
}

// Generator is a load generator as a cell records it.
type Generator struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Image is what the target ran as.
type Image struct {
	ID             string            `json:"id"`                    // the entry service's image
	Services       map[string]string `json:"services,omitempty"`    // image of each service`
	Sizes          map[string]int64  `json:"sizes_bytes,omitempty"` // of each service's image, its layers included
	Bases          []*BaseImage      `json:"bases"`
	RuntimeVersion string            `json:"runtime_version,omitempty"`
}

// Trial is one measured bombardier run plus the resources used during it.
type Trial struct {
	StartedAt *time.Time `json:"started_at,omitempty"` // when the measured run began (drift, order)
	Result
	TargetCPUCores   float64 `json:"target_cpu_cores"`
	TargetMemPeakMiB float64 `json:"target_mem_peak_mib"`
	// TargetMemSteadyMiB is the median of the target's memory samples
	// during the trial (summed over containers): what it holds under load.
	TargetMemSteadyMiB float64 `json:"target_mem_steady_mib,omitempty"`
	LoadgenCPUCores    float64 `json:"loadgen_cpu_cores"`
	GeneratorBound     bool    `json:"generator_bound"`
	// Services splits the target's CPU and memory by service (summed over
	// its replicas), for a target of several services.
	Services map[string]ServiceUsage `json:"services,omitempty"`
	// Spread is how a load from several generators went: their start,
	// skew and overlap, and each one's figures (LoadgenCPUCores above is
	// their sum). Nil for one generator.
	Spread *Spread `json:"spread,omitempty"`
	// CPUSet and LoadgenCPUSet are where this trial's target and load
	// generator ran when that is not the cell's (a duet: its two sides
	// swap cores every round).
	CPUSet        string `json:"cpuset,omitempty"`
	LoadgenCPUSet string `json:"loadgen_cpuset,omitempty"`
	// Beside is, in a duet, the trial of the cell this one is compared
	// with, measured at the same time beside it: a ratio's pair.
	Beside *Beside `json:"beside,omitempty"`
}

// Beside is a duet's other side during a trial: the cell it measured
// (its id) and what that cell's target did.
type Beside struct {
	Cell string `json:"cell"`
	Result
	TargetCPUCores float64 `json:"target_cpu_cores"`
	CPUSet         string  `json:"cpuset,omitempty"`
	LoadgenCPUSet  string  `json:"loadgen_cpuset,omitempty"`
}

// Trial is the trial the other side measured, as a cell's trial.
func (b *Beside) Trial() Trial {
	return Trial{Result: b.Result, TargetCPUCores: b.TargetCPUCores, CPUSet: b.CPUSet, LoadgenCPUSet: b.LoadgenCPUSet}
}

// ServiceUsage is what one service of a target (all its replicas) used
// during a trial.
type ServiceUsage struct {
	CPUCores   float64 `json:"cpu_cores"`
	MemPeakMiB float64 `json:"mem_peak_mib"` // the sum of its replicas' peaks
}

// Summary condenses a cell's trials. RPS is the headline number: the
// median of the trials, or the best when the load's aggregate is "best".
type Summary struct {
	Aggregate        Aggregate `json:"aggregate"`
	RPS              float64   `json:"rps"`
	RPSMedian        float64   `json:"rps_median"`
	RPSMin           float64   `json:"rps_min"`
	RPSMax           float64   `json:"rps_max"`
	LatencyP50Median float64   `json:"latency_ms_p50_median"`
	LatencyP99Median float64   `json:"latency_ms_p99_median"`
	Errors           int64     `json:"errors"`     // over every trial
	ErrorRate        float64   `json:"error_rate"` // of the trials behind the headline: all for the median, the best one for best
	TargetCPUCores   float64   `json:"target_cpu_cores_median"`
	TargetMemPeakMiB float64   `json:"target_mem_peak_mib"`
	GeneratorBound   int       `json:"generator_bound_trials,omitempty"` // trials whose generator CPU passed GeneratorBoundShare
	CeilingShare     float64   `json:"ceiling_share,omitempty"`          // RPS ÷ the load generator's measured ceiling
	BoundBy          []string  `json:"bound_by,omitempty"`               // the rules that call the cell generator-bound, worded
	Bounds           []Why     `json:"bounds,omitempty"`                 // the same rules, as codes (none in files before them)
	// Merged is the latency of every request of the trials together,
	// from their HDR histograms (open-loop cells; see Merged).
	Merged *Latency `json:"latency_ms_merged,omitempty"`
}

// Ceiling is the load generator's ceiling on some cores and connections:
// what it drew from the fixed-response server there, loaded exactly as
// the targets were.
type Ceiling struct {
	CPUs        int     `json:"cpus"`
	CPUSet      string  `json:"cpuset"`
	Connections int     `json:"connections"`
	Close       bool    `json:"connection_close,omitempty"`
	Generator   string  `json:"generator,omitempty"` // none: bombardier (schema 1)
	Pinning     string  `json:"pinning,omitempty"`   // as the cells': the fixed server and the generator together, or unpinned
	Protocol    string  `json:"protocol,omitempty"`  // as the cells': https, h2 or h2c; "": cleartext HTTP/1.1
	Pipeline    int     `json:"pipeline,omitempty"`  // as the cells': requests in flight per connection
	Split       []Share `json:"split,omitempty"`     // as the cells': every generator against the server
	Loadgens    int     `json:"loadgens,omitempty"`  // as the cells': the loadgens axis's k, the generators Split names
	NetworkMode Network `json:"network_mode"`
	RPS         float64 `json:"ceiling_rps,omitempty"` // median of the trials
	// Rate is the rate a generator that only keeps a schedule (openloop)
	// was asked: the run's highest. AtLeast is that rate when it sustained
	// it: its ceiling is then above every rate the run asked, not RPS.
	Rate    int `json:"rate,omitempty"`
	AtLeast int `json:"at_least,omitempty"`
	// RPSPerCPU is good answers per second of the generator's CPU
	// (RPS over LoadgenCPU): how much load the tool draws from a core.
	RPSPerCPU  float64   `json:"rps_per_cpu_second,omitempty"`
	TrialRPS   []float64 `json:"trial_rps,omitempty"`
	LoadgenCPU float64   `json:"loadgen_cpu_cores,omitempty"` // median
	Error      string    `json:"error,omitempty"`             // why it could not be measured
}

// GeneratorName is the ceiling's load generator.
func (c Ceiling) GeneratorName() string {
	if c.Generator == "" {
		return cellid.DefaultGenerator
	}
	return c.Generator
}

// Write saves run as dir/results.json atomically: a reader (or a crash)
// sees the previous complete file or the new one, never half of one.
func Write(dir string, run *Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, "results.json"), append(data, '\n'))
}

// WriteFileAtomic writes data to path so that a reader (or a crash) sees
// the old file or the new one, never half of one. Its errors name path
// (atomicwriter's refusals, "cannot write to a symbolic link directly",
// name none).
func WriteFileAtomic(path string, data []byte) error {
	if err := atomicwriter.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Read loads dir/results.json.
func Read(dir string) (*Run, error) {
	path := filepath.Join(dir, "results.json")
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	run, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// MaxFileSize bounds a results.json the harness reads.
const MaxFileSize = 256 << 20

// Decode reads results.json text. What it returns is safe to render
// whatever the file held: a damaged file's null cells, images and trials
// are dropped, and values no run can produce (negative counts, NaN) are
// reset, so that report, compare and index never fail on it.
func Decode(data []byte) (*Run, error) {
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, err
	}
	if run.Schema != 1 && run.Schema != Schema {
		return nil, fmt.Errorf("schema %d, this harness reads 1 and %d", run.Schema, Schema)
	}
	for i := range run.Ceilings {
		// A ceiling is judged against, not measured again on resume:
		// one its own figures contradict is kept only as an error.
		if ce := &run.Ceilings[i]; ce.Error == "" {
			if err := ce.Check(); err != nil {
				ce.Error = "not kept from results.json: " + err.Error()
			}
		}
	}
	run.Cells = slices.DeleteFunc(run.Cells, func(c *Cell) bool { return c == nil })
	maps.DeleteFunc(run.Images, func(_ string, b *BaseImage) bool { return b == nil })
	for i, c := range run.Cells {
		// A cell of no known status would be listed nowhere: refuse it
		// rather than drop it from every table.
		if c.Status != OK && c.Status != Failed && c.Status != Skipped && c.Status != Partial {
			return nil, fmt.Errorf("cell %d (%s): status %q is none of ok, failed, skipped, partial", i+1, c.ID(), c.Status)
		}
		if (c.Status == OK || c.Status == Partial) && len(c.Trials) == 0 {
			return nil, fmt.Errorf("cell %d (%s): status %s with no trial: a run records a cell %[3]s only once it measured one", i+1, c.ID(), c.Status)
		}
		partly(c, run.Matrix.Load.Trials, run.FinishedAt == nil || run.Interrupted || run.Stopped != "")
		if c.Image != nil {
			c.Image.Bases = slices.DeleteFunc(c.Image.Bases, func(b *BaseImage) bool { return b == nil })
		}
		if c.CPUs < 0 || c.Connections < 0 {
			c.CPUs, c.Connections = max(c.CPUs, 0), max(c.Connections, 0)
		}
		for i := range c.Trials {
			t := &c.Trials[i]
			for _, x := range []*float64{&t.RPS, &t.ErrorRate, &t.Seconds, &t.TargetCPUCores, &t.TargetMemPeakMiB, &t.LoadgenCPUCores,
				&t.LatencyMS.Mean, &t.LatencyMS.P50, &t.LatencyMS.P75, &t.LatencyMS.P90, &t.LatencyMS.P95, &t.LatencyMS.P99, &t.LatencyMS.Max} {
				if *x < 0 || math.IsNaN(*x) || math.IsInf(*x, 0) || *x > 1e15 {
					*x = 0
				}
			}
			if t.OpenLoop != nil && t.OpenLoop.Histogram != "" && !histogramDecodes(t.OpenLoop.Histogram) {
				t.OpenLoop.Histogram = "" // damaged: the cell's merged latency is then not shown
			}
		}
	}
	return &run, nil
}

// partly marks partial a cell ok with fewer trials than asked of a run
// that did not end (cut short: killed, interrupted, stopped): harnesses
// before the partial status wrote a killed run's cells so (results.json
// is written after every trial), and a reader would take its figures for
// the cell's. A partial cell's own count of asked trials is kept.
func partly(c *Cell, asked int, cut bool) {
	switch {
	case c.Status == OK && cut && len(c.Trials) < asked:
		c.Status, c.TrialsAsked = Partial, asked
	case c.Status == Partial && c.TrialsAsked == 0:
		c.TrialsAsked = asked
	}
}

// ShortCause says in a few words why a base image could not be had, from
// the engine's full error (which results.json keeps): "no registry
// reachable: cannot pull; no local stand-in".
func ShortCause(err string) string {
	var parts []string
	switch {
	case strings.Contains(err, "pull disabled"):
		parts = append(parts, "not pulled (--no-pull)")
	case strings.Contains(err, "no such host"), strings.Contains(err, "dial tcp"), strings.Contains(err, "connection refused"),
		strings.Contains(err, "i/o timeout"), strings.Contains(err, "TLS handshake"):
		parts = append(parts, "no registry reachable: cannot pull")
	case strings.Contains(err, "not found"), strings.Contains(err, "manifest unknown"), strings.Contains(err, "denied"):
		parts = append(parts, "the registry does not serve it")
	case strings.Contains(err, "cannot pull"):
		parts = append(parts, "cannot pull")
	}
	switch {
	case strings.Contains(err, "no stand-in recipe"):
		parts = append(parts, "no local stand-in")
	case strings.Contains(err, "debootstrap is not installed"):
		parts = append(parts, "no stand-in: debootstrap is not installed")
	case strings.Contains(err, "needs root"):
		parts = append(parts, "no stand-in: debootstrap needs root")
	case strings.Contains(err, "no local stand-in"):
		parts = append(parts, "the stand-in failed to build (see logs/build-standins.log)")
	}
	if len(parts) == 0 {
		if r := []rune(err); len(r) > 120 {
			return string(r[:120]) + "…"
		}
		return err
	}
	return strings.Join(parts, "; ")
}

// histogramDecodes says whether an encoded histogram is within bounds and
// decodes.
func histogramDecodes(encoded string) bool {
	_, err := DecodeHistogram(encoded)
	return err == nil
}
