// Package matrix owns matrix.yaml: its schema (version 1), strict decoding
// with file:line:col errors (decode.go: yaml.v3 into schema structs, one
// walk of the nodes for positions and shape), profiles, and the expansion
// of a matrix into the cells the runner measures. It never talks to Docker.
package matrix

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/internal/redact"
)

// SchemaVersion is the only matrix version this harness reads.
const SchemaVersion = 1

// Network is how the load generator reaches the target.
type Network string

// Network modes a run can use.
const (
	// NetworkShared (the default): the target joins the load generator's
	// network namespace, which has loopback only; they talk on 127.0.0.1.
	NetworkShared Network = "shared"
	NetworkBridge Network = "bridge" // a user-defined bridge network per run
	NetworkHost   Network = "host"   // both on the host's network (Linux only)
)

// Networks lists the modes in the order the documentation gives them.
var Networks = []Network{NetworkShared, NetworkBridge, NetworkHost}

// Defaults are the documented values of every optional setting.
var Defaults = Load{
	Warmup:       3 * time.Second,
	Trials:       3,
	Timeout:      2 * time.Second,
	LoadgenCPUs:  1,
	ReadyTimeout: 60 * time.Second,
	Aggregate:    AggregateMedian,
	MaxErrorRate: 0.001,
}

// Limits bound what one target container may take from the host, so that a
// leaking or forking target cannot take the machine down.
type Limits struct {
	MemoryBytes int64 `json:"memory_bytes"` // Memory and MemorySwap: no swap
	Pids        int64 `json:"pids"`
	// NoFile is the soft and hard RLIMIT_NOFILE, set explicitly (engines
	// differ: 1024 soft breaks -c 512). 0 asks for DefaultNoFile or the
	// engine's hard limit, whichever is lower.
	NoFile int64 `json:"nofile"`
}

// DefaultNoFile is the open-files limit a target gets when it sets none
// and the engine allows it.
const DefaultNoFile = 65536

// DefaultLimits are the limits of a target that sets none.
var DefaultLimits = Limits{MemoryBytes: 2 << 30, Pids: 4096}

// Matrix is a decoded, validated matrix file.
type Matrix struct {
	File        string              // path as given
	Dir         string              // folder of the file; build paths are relative to it
	Version     int                 `json:"version"`
	Images      map[string]string   `json:"images"`
	Network     Network             `json:"network"`
	Load        Load                `json:"load"`
	Limits      Limits              `json:"limits"` // of every target that does not set its own
	CPUs        []int               `json:"cpus"`
	Connections []int               `json:"connections"`
	KeepAlive   []bool              `json:"keepalive"`            // axis: false sends Connection: close on every request
	Rate        []int               `json:"rate"`                 // axis: requests/s the generator offers; 0 is as fast as it can
	SLO         []Objective         `json:"slo,omitempty"`        // the latency objective of fixed-rate cells' capacity
	Generators  []string            `json:"generators,omitempty"` // axis: the load generators (GeneratorNames); empty is [bombardier]
	Pinning     []string            `json:"pinning,omitempty"`    // axis: apart, together, none; empty is [apart]
	Protocols   []string            `json:"protocol,omitempty"`   // axis: http1, https, h2, h2c; empty is [http1]
	Requests    []int64             `json:"requests,omitempty"`   // axis: requests per trial, in place of the load's duration or count
	Loadgens    []int               `json:"loadgens,omitempty"`   // axis: each cell's load from the first k generator engines; empty is all
	LoadgensAt  []Error             `json:"-"`                    // where each of Loadgens was set, for CheckLoadgens's errors
	Axes        map[string][]string `json:"axes,omitempty"`       // the declared axes' values (package axis), by axis name
	Crosscheck  string              `json:"crosscheck,omitempty"` // a generator that measures every cell a second time
	Targets     []Target            `json:"targets"`
	Scenarios   []Scenario          `json:"scenarios"`
	Control     Selector            `json:"control,omitempty"`     // cells measured twice, as an A/A control
	RelativeTo  []Relative          `json:"relative_to,omitempty"` // report: ratio tables against a baseline
	Profiles    map[string]Profile  `json:"-"`
	// Engines and Placement put targets and the load generator on two
	// Docker engines (two machines); none: both on the environment's.
	Engines   map[string]EngineSpec `json:"-"`
	Placement *Placement            `json:"-"`
	Profile   string                `json:"profile,omitempty"` // the profile applied, if any
	// ProfilesFile is the profiles file whose profiles joined the
	// matrix's (OpenWithProfiles), "" for none.
	ProfilesFile string   `json:"profiles_file,omitempty"`
	ProfileOnly  Selector `json:"profile_only,omitempty"` // the applied profile's cell selection
	// Set are the settings given on the command line over the profile
	// (WithSettings), as KEY=VALUE in the order given: what results.json
	// records, and what a resumed run applies again.
	Set []string `json:"set,omitempty"`
}

// Aggregate is how a cell's trials make its headline RPS.
type Aggregate string

// Aggregations of a cell's trials into its headline RPS.
const (
	AggregateMedian Aggregate = "median" // default: robust to one odd trial
	AggregateBest   Aggregate = "best"   // best of N, as study 003 reported
)

// Load says how each cell is driven.
type Load struct {
	Duration     time.Duration `json:"duration,omitempty"` // per trial; exclusive with Requests
	Requests     int64         `json:"requests,omitempty"` // per trial (bombardier -n)
	Warmup       time.Duration `json:"warmup"`             // one discarded run before the trials; 0 disables it
	Trials       int           `json:"trials"`
	Timeout      time.Duration `json:"timeout"` // per request
	LoadgenCPUs  int           `json:"loadgen_cpus"`
	ReadyTimeout time.Duration `json:"ready_timeout"` // how long a target may take to answer
	Aggregate    Aggregate     `json:"aggregate"`     // median or best
	// MaxErrorRate is the share of a trial's requests that may fail (another
	// status class, no response) before its cell fails; below it, a warning.
	MaxErrorRate float64 `json:"max_error_rate"`
}

// Target is one server under test: a single built service, or several
// services (an nginx front and a FastCGI pool, a client and its upstream)
// that share the target's cores (save a service with cores of its own).
type Target struct {
	Name      string            `json:"name"`
	Services  []Service         `json:"services"`            // in start order
	Entry     string            `json:"entry"`               // the service the load generator hits
	Port      int               `json:"port"`                // the entry service's HTTP port
	Env       map[string]string `json:"-"`                   // for every service (values stay out of results: they may be secrets)
	EnvKeys   []string          `json:"env_keys,omitempty"`  // the keys of Env, sorted
	Variants  []Variant         `json:"variants,omitempty"`  // empty: one unnamed variant
	Scenarios []string          `json:"scenarios,omitempty"` // the scenarios it serves; empty means all
	Limits    Limits            `json:"limits"`              // of each of its containers: the file's, overlaid by its own
	// Protocols are the protocols it serves (http1, https, h2, h2c); empty
	// is [http1]. A cell exists for each that is also on the protocol axis.
	Protocols []string `json:"protocols,omitempty"`
}

// Speaks says whether t serves protocol p.
func (t Target) Speaks(p string) bool {
	if len(t.Protocols) == 0 {
		return p == cellid.ProtoHTTP1
	}
	return slices.Contains(t.Protocols, p)
}

// Service is one container image of a target, started Replicas times.
type Service struct {
	Name     string            `json:"name"`
	Build    string            `json:"-"`     // build context, absolute (this machine's)
	BuildRel string            `json:"build"` // as written in the file, relative to it: what results record
	Replicas int               `json:"replicas"`
	Env      map[string]string `json:"-"`
	EnvKeys  []string          `json:"env_keys,omitempty"`
	Port     int               `json:"port,omitempty"` // TCP port readiness waits for (non-entry services)
	// CPUs are cores of its own, apart from the cell's (which the other
	// services share) and the load generator's; 0: it shares the cell's.
	CPUs   int      `json:"cpus,omitempty"`
	Images []string `json:"images,omitempty"` // keys of Matrix.Images its Dockerfile uses
	// Undeclared are images its Dockerfile's FROM lines name directly,
	// not through an images key: the engine must have or pull them.
	Undeclared []string `json:"-"`
}

// Variant is the same build run another way: extra environment for every
// service of the target.
type Variant struct {
	Name    string            `json:"name"`
	Env     map[string]string `json:"-"`
	EnvKeys []string          `json:"env_keys,omitempty"`
}

// Images lists the images keys any service uses, sorted, without repeats.
func (t Target) Images() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range t.Services {
		for _, k := range s.Images {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Undeclared lists the images any service's Dockerfile names in a FROM
// line without an images key, sorted, without repeats.
func (t Target) Undeclared() []string {
	var out []string
	for _, s := range t.Services {
		out = append(out, s.Undeclared...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// UndeclaredFix is what to do about an undeclared base image: the words
// plan and run both say.
func UndeclaredFix(image string) string {
	key := undeclaredKey(image)
	return fmt.Sprintf("declare it under images: (%s: %s) and write ARG %s_IMAGE / FROM ${%s_IMAGE} in the Dockerfile, or run where a registry serves it",
		key, image, strings.ToUpper(key), strings.ToUpper(key))
}

// undeclaredKey suggests an images key for an image: its last path
// component without the tag, as a key (python:3.12-slim → python).
func undeclaredKey(image string) string {
	name := image
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name, _, _ = strings.Cut(name, ":")
	name, _, _ = strings.Cut(name, "@")
	return strings.Trim(nonKey.ReplaceAllString(strings.ToLower(name), "_"), "_")
}

var nonKey = regexp.MustCompile(`[^a-z0-9]+`)

// Serves reports whether the target answers the scenario.
func (t Target) Serves(scenario string) bool {
	if len(t.Scenarios) == 0 {
		return true
	}
	for _, s := range t.Scenarios {
		if s == scenario {
			return true
		}
	}
	return false
}

// Variant returns the named variant ("" is the unnamed default).
func (t Target) Variant(name string) Variant {
	for _, v := range t.Variants {
		if v.Name == name {
			return v
		}
	}
	return Variant{}
}

// Scenario is one request shape and the answer it must get. Path and
// expectations may name params as {name}; each cell substitutes its values.
type Scenario struct {
	Name   string  `json:"name"`
	Path   string  `json:"path"`
	Params []Param `json:"params,omitempty"` // an axis each, in file order
	Expect Expect  `json:"expect"`
	// Pipeline is the requests in flight on each connection (HTTP/1.1
	// pipelining, HTTP/2 streams); 0 waits for each answer.
	Pipeline int `json:"pipeline,omitempty"`
	// Headers are sent with every request of the scenario, verification's
	// first ask and the load generator's, by canonical name.
	Headers map[string]string `json:"headers,omitempty"`
}

// HeaderLines are s's request headers as "Name: value", in the order of
// their names: what a probe and a load generator send.
func (s Scenario) HeaderLines() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		out = append(out, k+": "+s.Headers[k])
	}
	return out
}

// Param is one scenario axis: a name and its values.
type Param struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Expect is what a correct answer looks like. Body, JSON, JSONArray, TFB,
// SHA256 and Compute are exclusive.
type Expect struct {
	Status      int        `json:"status"`
	ContentType string     `json:"content_type,omitempty"` // media type; parameters such as charset are ignored
	Body        *string    `json:"body,omitempty"`         // exact text
	JSON        any        `json:"json,omitempty"`         // JSON equality
	JSONArray   *JSONArray `json:"json_array,omitempty"`   // shape of a JSON array
	TFB         *TFB       `json:"tfb,omitempty"`          // one of TechEmpower's database tests
	SHA256      string     `json:"sha256,omitempty"`       // the body's SHA-256, lowercase hex
	// Encoding is the Content-Encoding the answer must carry (gzip); the
	// other keys check the decoded body, and an ask without the scenario's
	// headers must be answered unencoded.
	Encoding string `json:"encoding,omitempty"`
	// Compute: the body is {"result": a*b+a-b} of the query's a and b,
	// asked again at other values.
	Compute bool `json:"compute,omitempty"`
}

// TFB checks an answer by the rules of one of TechEmpower's database tests.
type TFB struct {
	Test    string `json:"test"`              // TFBDB, TFBQueries, TFBUpdates or TFBFortunes
	Queries string `json:"queries,omitempty"` // the queries parameter as asked: a value or "{param}"
}

// The tests TFB.Test names.
const (
	TFBDB       = "db"
	TFBQueries  = "queries"
	TFBUpdates  = "updates"
	TFBFortunes = "fortunes"
)

// JSONArray checks an answer that is a JSON array of objects.
type JSONArray struct {
	Length string   `json:"length"`         // a number, or "{param}"
	Keys   []string `json:"keys,omitempty"` // every element has exactly these keys
}

// Profile is a named override chosen with --profile, resolved against the
// base settings when the file is loaded.
type Profile struct {
	Name        string
	Load        Load
	CPUs        []int
	Connections []int
	KeepAlive   []bool
	Rate        []int
	SLO         []Objective
	Generators  []string
	Pinning     []string
	Protocols   []string
	Requests    []int64
	Loadgens    []int
	LoadgensAt  []Error // where each of Loadgens was set
	Axes        map[string][]string
	Crosscheck  string
	Only        Selector   // cells the profile measures (with --only, both must pick a cell)
	Control     Selector   // replaces the file's control when set
	RelativeTo  []Relative // replaces the file's report.relative_to when set
}

// Objective is one percentile of a latency objective (slo:) and the
// longest it may be: a fixed-rate cell meets the objective when every
// percentile named is at most its Max.
type Objective struct {
	Percentile string        `json:"percentile"` // p50, p75, p90, p95, p99, p99.9, p99.99
	Max        time.Duration `json:"max"`
}

// Sweep is the geometric sweep of steps rates from from to to, each
// rounded to two significant digits (2,353 → 2,400), repeats dropped.
func Sweep(from, to, steps int) []int {
	var out []int
	for i := range steps {
		r := float64(from) * math.Pow(float64(to)/float64(from), float64(i)/float64(steps-1))
		p := math.Pow(10, math.Floor(math.Log10(r))-1)
		if v := int(math.Round(r/p) * p); len(out) == 0 || v > out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// GeneratorNames are the load generators a matrix may name (each is a
// loadgen.Tool; a runner test checks that the two lists agree).
var GeneratorNames = []string{"bombardier", "wrk", "h2load", "ab", "openloop"}

// Relative names the baseline of a ratio table (see cellid.Relative).
type Relative = cellid.Relative

// WithProfile returns a copy of m with the named profile applied.
func (m *Matrix) WithProfile(name string) (*Matrix, error) {
	if name == "" {
		return m, nil
	}
	p, ok := m.Profiles[name]
	if !ok {
		return nil, fmt.Errorf("%s: no profile %q (have: %s)", m.File, name, strings.Join(m.ProfileNames(), ", "))
	}
	c := m.with(p)
	c.Profile, c.ProfileOnly = name, p.Only
	return c, nil
}

// with returns a copy of m with the settings of p in place of its own;
// p's control and relative_to replace m's only when p sets them.
func (m *Matrix) with(p Profile) *Matrix {
	c := *m
	c.Load, c.CPUs, c.Connections, c.KeepAlive, c.Rate, c.SLO, c.Generators, c.Pinning, c.Protocols, c.Requests, c.Crosscheck = p.Load, p.CPUs, p.Connections, p.KeepAlive, p.Rate, p.SLO, p.Generators, p.Pinning, p.Protocols, p.Requests, p.Crosscheck
	c.Loadgens, c.LoadgensAt, c.Axes = p.Loadgens, p.LoadgensAt, p.Axes
	if p.Control != nil {
		c.Control = p.Control
	}
	if p.RelativeTo != nil {
		c.RelativeTo = p.RelativeTo
	}
	return &c
}

// ParseControl reads a control: one or more TARGET[:VARIANT]/SCENARIO
// terms naming the cells to measure twice, or whole cell ids
// (TARGET[:VARIANT]/SCENARIO/1cpu/c512/together) naming one cell among the
// axes' many; globs are allowed in either.
func ParseControl(s string) (Selector, error) {
	var sel Selector
	for _, term := range terms(s) {
		if !strings.Contains(term, "/") {
			return nil, fmt.Errorf("control %q: want TARGET[:VARIANT]/SCENARIO or a cell id, got %q", s, term)
		}
		if _, err := path.Match(term, ""); err != nil {
			return nil, fmt.Errorf("control %q: bad pattern %q", s, term)
		}
		sel = append(sel, term)
	}
	return sel, nil
}

// CheckLoadgens says what is wrong with the loadgens axis of a run on
// engines generator engines: every value must be at most engines, and
// each that is not is named where it was set (file:line:col, or the flag).
func (m *Matrix) CheckLoadgens(engines int) error {
	var errs Errors
	for i, k := range m.Loadgens {
		if k <= engines {
			continue
		}
		e := Error{File: m.File, Field: fmt.Sprintf("loadgens[%d]", i)}
		if i < len(m.LoadgensAt) {
			e = m.LoadgensAt[i]
		}
		e.Msg = fmt.Sprintf("%d generator engines asked, but this run has %d (placement.loadgen or --loadgen-engine names them)", k, engines)
		if engines == 1 {
			e.Msg = fmt.Sprintf("%d generator engines asked, but this run has one: name several with placement.loadgen or --loadgen-engine A,B", k)
		}
		errs = append(errs, &e)
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// ProfileNames lists the profiles in sorted order.
func (m *Matrix) ProfileNames() []string {
	names := make([]string, 0, len(m.Profiles))
	for n := range m.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// EngineSpec is one Docker engine of the engines section: where the
// harness reaches it and where a load generator on another machine
// reaches the machine it runs on.
type EngineSpec struct {
	Name string
	// Host is a DOCKER_HOST-style URL (unix://, tcp://, ssh://user@host)
	// or a docker context name.
	Host string
	// Address is where a load generator on another engine reaches this
	// engine's machine: the matrix's, else the host of a tcp:// or ssh://
	// URL.
	Address string
	Reserve int // cores kept free of targets and load generators (the lowest-numbered)
}

// Placement says on which engine targets and the load generator run.
type Placement struct {
	Target string // engines key
	// Loadgens are the engines keys of the load generator: one, or
	// several that divide each cell's load among them, in the order given
	// (the first takes a split's remainder).
	Loadgens []string
	Link     string // the network between the machines, as the user describes it
}

// EngineSchemes are the URL schemes an engine may be given by, as
// DOCKER_HOST takes them.
var EngineSchemes = []string{"unix", "tcp", "ssh", "npipe"}

var contextName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.+-]*$`)

// CheckEngine says what is wrong with an engine given as a URL or a docker
// context name, without reaching it.
func CheckEngine(spec string) error {
	if !strings.Contains(spec, "://") {
		if !contextName.MatchString(spec) {
			return fmt.Errorf("%q is neither a URL (unix://, tcp://, ssh://user@host) nor a docker context name", spec)
		}
		return nil
	}
	u, err := url.Parse(spec)
	if err != nil {
		// url.Parse's error repeats the URL or a piece of it (a password
		// read as a port), so none of it is shown.
		return fmt.Errorf("%q is not a URL (scheme://[user@]host[:port]; a password's / # : must be escaped)", redact.URL(spec))
	}
	if !slices.Contains(EngineSchemes, u.Scheme) {
		return fmt.Errorf("unsupported scheme %q in %q (use one of %s)", u.Scheme, redact.URL(spec), strings.Join(EngineSchemes, ", "))
	}
	if (u.Scheme == "tcp" || u.Scheme == "ssh") && u.Hostname() == "" {
		return fmt.Errorf("%q names no host", redact.URL(spec))
	}
	// url.Parse splits host:22:99 at its last colon and keeps host:22 as
	// the host name, which no engine answers at; an IPv6 address is
	// bracketed.
	if strings.Contains(u.Hostname(), ":") && !strings.HasPrefix(u.Host, "[") {
		return fmt.Errorf("%q has a colon in its host name (write host:port, or [IPv6]:port)", redact.URL(spec))
	}
	return nil
}

// EngineHost is the host part of a tcp:// or ssh:// engine URL, "" for a
// socket or a context name.
func EngineHost(spec string) string {
	u, err := url.Parse(spec)
	if err != nil || u.Scheme != "tcp" && u.Scheme != "ssh" {
		return ""
	}
	return u.Hostname()
}
