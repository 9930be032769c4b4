package matrix

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/internal/safefile"

	units "github.com/docker/go-units"
	goccy "github.com/goccy/go-yaml"
	goccyparser "github.com/goccy/go-yaml/parser"
	"go.yaml.in/yaml/v3"
)

// Error is one problem in a matrix file, at a position; or in a setting
// given on the command line, File then the flag and Line 0.
type Error struct {
	File      string
	Line, Col int
	Field     string // dotted key path, e.g. "load.duration"
	Msg       string
}

func (e *Error) Error() string {
	at := fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
	if e.Line == 0 {
		at = e.File // a flag (WithSettings), which has no lines
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", at, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", at, e.Msg)
}

// Errors is every problem found in one file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Open reads and validates a matrix file. Every problem is reported in one
// Errors value; a file that cannot be read or parsed as YAML at all yields a
// single error.
func Open(path string) (*Matrix, error) {
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// OpenWithProfiles reads a matrix file and, when profiles is not "", a
// profiles file beside it: a YAML document holding only a profiles:
// mapping, as a study keeps its own (studies/<id>/profiles.yaml). Its
// profiles join the matrix's; a problem in it is named at its own file,
// line and column.
func OpenWithProfiles(path, profiles string) (*Matrix, error) {
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	if profiles == "" {
		return Parse(path, data)
	}
	extra, err := safefile.Read(profiles, MaxFileSize)
	if err != nil {
		return nil, err
	}
	m, err := parseWith(path, data, &source{path: profiles, data: extra})
	if err != nil {
		return nil, err
	}
	m.ProfilesFile = profiles
	return m, nil
}

// source is a second file whose profiles join the matrix's.
type source struct {
	path string
	data []byte
}

// MaxContainers bounds the containers of one target (replicas summed over
// its services): each gets its own limits, so nothing else bounds the
// target as a whole.
const MaxContainers = 64

// shorten cuts a long value for a message.
func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "…"
	}
	return s
}

// MaxFileSize bounds a matrix file and a Dockerfile the harness reads.
const MaxFileSize = 1 << 20

// The file's schema, which yaml.v3 decodes. The check tag says what the
// shape walk enforces on a value, each at its position: required, names
// (a mapping's keys are names), nonempty and unique (lists), str (a string,
// not another scalar), min=/max= (integers and durations), zero (a
// duration may be 0), oneof=a|b; why replaces the message of a min.
// doc says what a key is for and example is one value of it, in YAML:
// reference.go renders docs/matrix.md and docs/matrix.schema.json from
// these types, and a key without both fails TestReferenceDocumentsEveryKey.
// They are tags, not a map keyed by path, because loadSchema, limitsSchema,
// reportSchema, rateSchema and sloSchema each sit at two paths: a field
// carries its description wherever it appears.
type (
	fileSchema struct {
		Version     *int                      `yaml:"version" check:"required" why:"write version: 1" doc:"The schema version: 1, the only one this harness reads." example:"1"`
		Images      map[string]string         `yaml:"images" check:"names,str" doc:"Base images by key: each is passed to every build as the build argument <KEY>_IMAGE, which a Dockerfile names in ARG and FROM." example:"{debian: 'debian:bookworm-slim', golang: 'golang:1.26-bookworm'}"`
		Network     *Network                  `yaml:"network" check:"oneof=shared|bridge|host" doc:"How the load generator reaches the targets: shared (one loopback namespace), bridge (a bridge network of the run's own) or host (the host's network, Linux only)." example:"bridge"`
		Load        *loadSchema               `yaml:"load" check:"required" doc:"How each cell is driven: trial length (duration or requests), warm-up, trials, timeouts." example:"{duration: 10s, warmup: 3s, trials: 3}"`
		CPUs        []int                     `yaml:"cpus" check:"nonempty,unique,min=1,max=4096" doc:"Axis: cores given to the target, all of its containers together but those of a service with cpus of its own." example:"[1, 4]"`
		Connections []int                     `yaml:"connections" check:"required,nonempty,unique,min=1,max=1000000" doc:"Axis: concurrent connections the load generator keeps open." example:"[64, 512]"`
		KeepAlive   []bool                    `yaml:"keepalive" check:"nonempty,unique" doc:"Axis: false sends Connection: close on every request (ab without -k)." example:"[true, false]"`
		Rate        *rateSchema               `yaml:"rate" check:"nonempty,unique,min=0,max=10000000" doc:"Axis: requests/s offered, 0 for as fast as the generator can; a list, or a geometric sweep {from, to, steps} rounded to two significant digits." example:"{from: 2000, to: 48000, steps: 7}"`
		SLO         *sloSchema                `yaml:"slo" doc:"Latency objective of the fixed-rate cells: the longest each named percentile may be; it gives their capacity table." example:"{p99: 10ms}"`
		Pinning     []string                  `yaml:"pinning" check:"nonempty,unique,oneof=apart|together|none" doc:"Axis: where the load generator runs: apart (cores of its own), together (on the target's cores), none (neither pinned)." example:"[apart, together, none]"`
		Protocol    []string                  `yaml:"protocol" check:"nonempty,unique,oneof=http1|https|h2|h2c" doc:"Axis: http1, https (HTTP/1.1 over TLS), h2 (HTTP/2 over TLS), h2c (cleartext HTTP/2); a target gets a cell for each protocol it also lists." example:"[http1, h2]"`
		Requests    []int64                   `yaml:"requests" check:"nonempty,unique,min=1,max=1000000000000" doc:"Axis: requests per trial, each cell sending its own count in place of the load's duration or requests." example:"[1000000, 10000000]"`
		Loadgens    []int                     `yaml:"loadgens" check:"nonempty,unique,min=1,max=64" doc:"Axis: how many of the run's generator engines load a cell, the first k of placement.loadgen (or --loadgen-engine), each cell's connections divided among them; ids end in /<k>lg. Without it every cell uses them all." example:"[1, 2]"`
		Generator   []string                  `yaml:"generator" check:"nonempty,unique,oneof=bombardier|wrk|h2load|ab|openloop" doc:"Axis: the load generators that measure each cell." example:"[bombardier, wrk, h2load]"`
		Crosscheck  *string                   `yaml:"crosscheck" check:"oneof=bombardier|wrk|h2load|ab|openloop" doc:"A load generator that measures every cell a second time, interleaved with the first." example:"wrk"`
		Targets     map[string]targetSchema   `yaml:"targets" check:"required,names" doc:"The servers under test, in the order they run." example:"{go-nethttp: {build: targets/go-nethttp, port: 8080}}"`
		Scenarios   map[string]scenarioSchema `yaml:"scenarios" check:"required,names" doc:"The requests sent to the targets and what a correct answer is." example:"{plaintext: {path: /plaintext, expect: {body: 'Hello, World!'}}}"`
		Profiles    map[string]profileSchema  `yaml:"profiles" check:"names" doc:"Named overrides, chosen with --profile." example:"{quick: {load: {duration: 2s, warmup: 1s, trials: 1}}}"`
		Control     *string                   `yaml:"control" check:"str" doc:"Cells measured a second time as independent cells, an A/A test of the machine: TARGET[:VARIANT]/SCENARIO terms, or whole cell ids (node-http:single/plaintext/1cpu/c512/together) to pick one cell of many, comma-separated." example:"node-http:single/plaintext"`
		Limits      *limitsSchema             `yaml:"limits" doc:"What each target container may take; a target may overlay its own." example:"{memory: 2g, pids: 4096}"`
		Report      *reportSchema             `yaml:"report" doc:"How the report compares cells." example:"{relative_to: [{target: go-nethttp}]}"`
		Engines     map[string]engineSchema   `yaml:"engines" check:"names" doc:"Docker engines by name, to put targets and the load generator on two machines; needs placement." example:"{server: {host: 'ssh://bench@10.0.0.5'}, client: {host: 'unix:///var/run/docker.sock'}}"`
		Placement   *placementSchema          `yaml:"placement" doc:"Which engine runs the targets and which the load generator." example:"{target: server, loadgen: client, link: 10 GbE}"`
		Axes        declaredSchema            `yaml:"-"` // the declared axes (package axis), each a key of its own
	}
	reportSchema struct {
		RelativeTo []struct {
			Scenario    *string `yaml:"scenario" check:"str" doc:"Baseline: this scenario." example:"noprocess"`
			Variant     *string `yaml:"variant" check:"str" doc:"Baseline: this variant." example:"logging-off"`
			Target      *string `yaml:"target" check:"str" doc:"Baseline: this target." example:"fastcgi-go"`
			Connections *int    `yaml:"connections" check:"min=1,max=1000000" doc:"Baseline: this value of the connections axis." example:"512"`
			Protocol    *string `yaml:"protocol" check:"oneof=http1|https|h2|h2c" doc:"Baseline: this value of the protocol axis." example:"http1"`
			Requests    *int64  `yaml:"requests" check:"min=1,max=1000000000000" doc:"Baseline: this value of the requests axis." example:"1000000"`
			Loadgens    *int    `yaml:"loadgens" check:"min=1,max=64" doc:"Baseline: this value of the loadgens axis." example:"1"`
		} `yaml:"relative_to" check:"nonempty" doc:"Ratio tables: for each entry, every cell over its baseline, the cell that differs from it only in what the entry names (exactly one key)." example:"[{variant: logging-off}, {connections: 512}]"`
	}
	engineSchema struct {
		Host    *string `yaml:"host" check:"required,str" why:"a DOCKER_HOST-style URL (unix://, tcp://, ssh://user@host) or a docker context name" doc:"Where the harness reaches the engine: a DOCKER_HOST-style URL (unix://, tcp://, ssh://user@host, npipe://) or a docker context name." example:"ssh://bench@10.0.0.5"`
		Address *string `yaml:"address" check:"str" doc:"Where the load generator on the other machine reaches this one; by default the host of a tcp:// or ssh:// URL." example:"10.0.0.5"`
		Reserve *int    `yaml:"reserve" check:"min=0,max=4096" doc:"Cores of this machine kept free of targets and load generators, the lowest-numbered (for the OS, interrupts, sshd)." example:"1"`
	}
	placementSchema struct {
		Target  *string      `yaml:"target" check:"required,str" why:"the engines key targets run on" doc:"The engines key the targets run on." example:"server"`
		Loadgen *namesSchema `yaml:"loadgen" check:"required,nonempty,unique,str" why:"the engines key the load generator runs on, or a list of them" doc:"The engines key the load generator runs on, or a list of them: each cell's connections (and rate) are then divided among a generator on each, started together, their trials merged." example:"[client1, client2]"`
		Link    *string      `yaml:"link" check:"str" doc:"How you describe the network between the two machines; results print it, nothing measures it." example:"10 GbE, same zone"`
	}
	limitsSchema struct {
		Memory *string `yaml:"memory" doc:"Memory of each target container, in bytes or with a unit (512m, 2g); no swap; at least 6m." example:"512m"` // bytes, or with a unit: 256m, 2g
		Pids   *int64  `yaml:"pids" check:"min=16,max=4194304" doc:"Processes and threads each target container may run." example:"4096"`
		NoFile *int64  `yaml:"nofile" check:"min=64,max=1048576" doc:"Open files of each target container (soft and hard limit); the engine's hard limit where that is lower." example:"65536"`
	}
	loadSchema struct {
		Duration     *time.Duration `yaml:"duration" check:"min=1s,max=24h" why:"bombardier runs for at least 1s" doc:"Length of each trial; set it or requests, not both." example:"10s"`
		Requests     *int64         `yaml:"requests" check:"min=1,max=1000000000000" doc:"Requests per trial, a fixed count; set it or duration, not both." example:"1000000"`
		Warmup       *time.Duration `yaml:"warmup" check:"zero,min=1s,max=24h" why:"bombardier runs for at least 1s; use 0 for no warm-up" doc:"One discarded run before the trials; 0 for none." example:"3s"`
		Trials       *int           `yaml:"trials" check:"min=1,max=1000" doc:"Measured runs of each cell." example:"6"`
		Timeout      *time.Duration `yaml:"timeout" check:"min=1ms,max=1h" doc:"Timeout of each request." example:"2s"`
		LoadgenCPUs  *int           `yaml:"loadgen_cpus" check:"min=1,max=4096" doc:"Cores of the load generator, apart from the target's." example:"1"`
		Aggregate    *Aggregate     `yaml:"aggregate" check:"oneof=median|best" doc:"How a cell's trials make its headline requests/s: their median, or the best of them." example:"best"`
		ReadyTimeout *time.Duration `yaml:"ready_timeout" check:"min=1ms,max=1h" doc:"How long a target may take to answer after it starts." example:"2m"`
		MaxErrorRate *float64       `yaml:"max_error_rate" check:"min=0,max=1" doc:"Share of a trial's requests that may fail (another status class, no answer) before its cell fails; below it, a warning." example:"0.01"`
	}
	targetSchema struct {
		Build    *string                  `yaml:"build" check:"str" doc:"Folder holding the target's Dockerfile, relative to the matrix file; set it or services, not both." example:"targets/go-nethttp"`
		Port     *int                     `yaml:"port" check:"min=1,max=65535" doc:"The port the target (its entry service) listens on; required." example:"8080"`
		Env      map[string]string        `yaml:"env" doc:"Environment of every service of the target; not CPUS, PORT, TLS_CERT_FILE, TLS_KEY_FILE or <SERVICE>_ADDRS, which the harness sets." example:"{GOGC: '200'}"`
		Services map[string]serviceSchema `yaml:"services" check:"names" doc:"Several services in place of build, started in this order, on the target's cores (a service with cpus: on cores of its own)." example:"{backend: {build: targets/fastcgi/go-fcgi, replicas: 4, port: 9000}, nginx: {build: targets/fastcgi/nginx}}"`
		Entry    *string                  `yaml:"entry" check:"str" doc:"With services: the service the load generator hits; required then." example:"nginx"`
		Variants map[string]struct {
			Env map[string]string `yaml:"env" doc:"Environment the variant adds to every service of the target, after the target's and the service's own." example:"{NODE_CLUSTER: '1'}"`
		} `yaml:"variants" check:"names" doc:"Axis: the same build run another way, each with environment of its own." example:"{single: {}, cluster: {env: {NODE_CLUSTER: '1'}}}"`
		Scenarios []string      `yaml:"scenarios" check:"str" doc:"The scenarios the target serves; none listed: all of them." example:"[plaintext, json]"`
		Limits    *limitsSchema `yaml:"limits" doc:"Limits of each of the target's containers, overlaying the file's key by key." example:"{memory: 512m}"`
		Protocols []string      `yaml:"protocols" check:"nonempty,unique,oneof=http1|https|h2|h2c" doc:"The protocols the target serves; it gets a cell for each that is also on the protocol axis." example:"[http1, https, h2]"`
	}
	serviceSchema struct {
		Build    *string           `yaml:"build" check:"required,str" why:"the folder holding the service's Dockerfile" doc:"Folder holding the service's Dockerfile, relative to the matrix file." example:"targets/fastcgi/nginx"`
		Replicas *int              `yaml:"replicas" check:"min=1,max=1000" doc:"Containers of this service, each with an address of its own (ports counting up from the service's)." example:"4"`
		Env      map[string]string `yaml:"env" doc:"Environment of this service's containers, after the target's." example:"{HTTP_CLIENT: fasthttp}"`
		Port     *int              `yaml:"port" check:"min=1,max=65535" doc:"A TCP port that readiness waits for on a service the load generator does not hit." example:"9000"`
		CPUs     *int              `yaml:"cpus" check:"min=1,max=4096" doc:"Cores of this service's own (not the entry's), apart from the target's, which its other services share, and the load generator's; where the machine has too few for all three, the load generator shares the target's cores instead (docs/targets.md, Database targets)." example:"1"`
	}
	scenarioSchema struct {
		Path     *string             `yaml:"path" check:"required,str" doc:"The request path; {param} names a param, each cell substituting one of its values." example:"'/testReflection?records={records}'"`
		Params   map[string][]string `yaml:"params" check:"names,nonempty,unique" doc:"Axes of the scenario: each param's values." example:"{records: [10, 30, 100, 500]}"`
		Headers  map[string]string   `yaml:"headers" doc:"Request headers sent with every request of the scenario: by verification's first ask and by the load generator under load (-H; openloop takes none, so its cells are skipped)." example:"{Accept-Encoding: gzip}"`
		Pipeline *int                `yaml:"pipeline" check:"min=1,max=256" doc:"Requests in flight on each connection, as TechEmpower's plaintext test sends 16: wrk writes that many HTTP/1.1 requests at once and the next batch after all their answers; h2load keeps that many (-m) streams per HTTP/2 connection, or requests pipelined over HTTP/1.1. Each answer counts as a request. bombardier, ab and openloop cannot pipeline: their cells are skipped, saying so. 1 (the default) waits for each answer." example:"16"`
		Expect   *struct {
			Status      *int    `yaml:"status" check:"min=100,max=599" doc:"The HTTP status." example:"200"`
			ContentType *string `yaml:"content_type" check:"str" doc:"The media type; parameters such as charset are ignored." example:"application/json"`
			Body        *string `yaml:"body" doc:"The exact body." example:"'Hello, World!'"`
			JSON        any     `yaml:"json" doc:"A JSON body equal to this value; key order and spacing do not matter." example:"{message: 'Hello, World!'}"`
			JSONArray   *struct {
				Length string   `yaml:"length" check:"required" doc:"How many elements: a number, or {param}." example:"'{records}'"`
				Keys   []string `yaml:"keys" check:"str" doc:"The keys every element has, exactly." example:"[Id, Name, Time]"`
			} `yaml:"json_array" doc:"A JSON array of objects: how many, and the keys each has." example:"{length: '{records}', keys: [Id, Name, Time]}"`
			TFB *struct {
				Test    *string `yaml:"test" check:"required,oneof=db|queries|updates|fortunes" doc:"Which of TechEmpower's database tests the answer must pass, by TFB's rules." example:"queries"`
				Queries *string `yaml:"queries" check:"str" doc:"For queries and updates: the queries parameter as asked, a value or {param}; the answer must hold TFB's clamp of it (1..500, not a number: 1)." example:"'{queries}'"`
			} `yaml:"tfb" doc:"A TechEmpower database test: the answer is checked by TFB's rules for it (rows' shape and range, the clamped count, the fortunes page once normalised)." example:"{test: queries, queries: '{queries}'}"`
			SHA256   *string `yaml:"sha256" check:"str" doc:"The SHA-256 of the exact body, 64 hex digits: a file served as it is on disk." example:"2bce1ba628720664be4b9fdd77aae0678e5f0f3f02fc6ff641ec879094f6a404"`
			Encoding *string `yaml:"encoding" check:"oneof=gzip" doc:"The answer's Content-Encoding: the body is decoded before the other keys check it. Verification then asks once more without the scenario's headers, and that answer must come unencoded and pass the same keys." example:"gzip"`
			Compute  *bool   `yaml:"compute" doc:"The answer is the JSON object {\"result\": a*b+a-b} of the integers a and b in the URL's query. Verification asks the URL as written and twice more with other random a and b, checking each answer, so a server that caches one answer fails." example:"true"`
		} `yaml:"expect" check:"required" why:"a scenario must say what a correct answer is" doc:"What a correct answer is: a status, a content type, an encoding, and at most one of body, json, json_array, tfb, sha256 and compute." example:"{status: 200, content_type: text/plain, body: 'Hello, World!'}"`
	}
	profileSchema struct {
		Load        *loadSchema    `yaml:"load" doc:"Overrides the file's load key by key." example:"{duration: 2s, warmup: 1s, trials: 1}"`
		CPUs        []int          `yaml:"cpus" check:"nonempty,unique,min=1,max=4096" doc:"Replaces the cpus axis." example:"[1]"`
		Connections []int          `yaml:"connections" check:"nonempty,unique,min=1,max=1000000" doc:"Replaces the connections axis." example:"[512, 1024]"`
		KeepAlive   []bool         `yaml:"keepalive" check:"nonempty,unique" doc:"Replaces the keepalive axis." example:"[false]"`
		Rate        *rateSchema    `yaml:"rate" check:"nonempty,unique,min=0,max=10000000" doc:"Replaces the rate axis." example:"[1000, 2000]"`
		SLO         *sloSchema     `yaml:"slo" doc:"Replaces the latency objective." example:"{p99: 10ms}"`
		Pinning     []string       `yaml:"pinning" check:"nonempty,unique,oneof=apart|together|none" doc:"Replaces the pinning axis." example:"[none]"`
		Protocol    []string       `yaml:"protocol" check:"nonempty,unique,oneof=http1|https|h2|h2c" doc:"Replaces the protocol axis." example:"[http1, https]"`
		Requests    []int64        `yaml:"requests" check:"nonempty,unique,min=1,max=1000000000000" doc:"Replaces the requests axis." example:"[1000000]"`
		Loadgens    []int          `yaml:"loadgens" check:"nonempty,unique,min=1,max=64" doc:"Replaces the loadgens axis." example:"[1, 2]"`
		Generator   []string       `yaml:"generator" check:"nonempty,unique,oneof=bombardier|wrk|h2load|ab|openloop" doc:"Replaces the generator axis." example:"[ab, bombardier]"`
		Crosscheck  *string        `yaml:"crosscheck" check:"oneof=bombardier|wrk|h2load|ab|openloop" doc:"Replaces the cross-check generator." example:"h2load"`
		Only        *string        `yaml:"only" check:"str" doc:"The cells the profile measures, in the --only syntax (NAME or TARGET[:VARIANT]/SCENARIO terms, globs allowed, comma-separated); an --only given on the command line replaces it." example:"'serial-*'"`
		Control     *string        `yaml:"control" check:"str" doc:"Replaces the file's control." example:"serial-go/noprocess"`
		Report      *reportSchema  `yaml:"report" doc:"Replaces the file's report." example:"{relative_to: [{scenario: noprocess}]}"`
		Axes        declaredSchema `yaml:"-"` // each replaces that declared axis
	}
)

// rateSchema is the rate axis as written: a list of rates, or a sweep
// {from, to, steps}.
type rateSchema struct {
	List  []int
	Sweep *sweepSchema
}

// sweepSchema is a geometric sweep of rates.
type sweepSchema struct {
	From  *int `yaml:"from" check:"required,min=1,max=10000000" doc:"First rate of the sweep, in requests/s." example:"2000"`
	To    *int `yaml:"to" check:"required,min=1,max=10000000" doc:"Last rate of the sweep, above from." example:"48000"`
	Steps *int `yaml:"steps" check:"required,min=2,max=100" doc:"Rates in the sweep, geometric from from to to." example:"7"`
}

// namesSchema is one name or a list of names as written: placement.loadgen
// takes either.
type namesSchema []string

func (n *namesSchema) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.SequenceNode {
		return node.Decode((*[]string)(n))
	}
	var one string
	if err := node.Decode(&one); err != nil {
		return err
	}
	*n = namesSchema{one}
	return nil
}

func (r *rateSchema) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		r.Sweep = &sweepSchema{}
		return n.Decode(r.Sweep)
	}
	return n.Decode(&r.List)
}

// sloSchema is a latency objective: the longest each percentile may be.
type sloSchema struct {
	P50   *time.Duration `yaml:"p50" check:"min=1us,max=1h" doc:"The longest the 50th percentile of latency may be." example:"1ms"`
	P75   *time.Duration `yaml:"p75" check:"min=1us,max=1h" doc:"The longest the 75th percentile of latency may be." example:"2ms"`
	P90   *time.Duration `yaml:"p90" check:"min=1us,max=1h" doc:"The longest the 90th percentile of latency may be." example:"5ms"`
	P95   *time.Duration `yaml:"p95" check:"min=1us,max=1h" doc:"The longest the 95th percentile of latency may be." example:"5ms"`
	P99   *time.Duration `yaml:"p99" check:"min=1us,max=1h" doc:"The longest the 99th percentile of latency may be." example:"10ms"`
	P999  *time.Duration `yaml:"p99.9" check:"min=1us,max=1h" doc:"The longest the 99.9th percentile of latency may be." example:"50ms"`
	P9999 *time.Duration `yaml:"p99.99" check:"min=1us,max=1h" doc:"The longest the 99.99th percentile of latency may be." example:"100ms"`
}

func parseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil // yaml.v3 reads "0" as an integer, which it will not make a duration: it stays 0
	}
	return time.ParseDuration(s)
}

// Parse decodes matrix text; path names it in errors and anchors build paths.
func Parse(path string, data []byte) (*Matrix, error) { return parseWith(path, data, nil) }

func parseWith(path string, data []byte, extra *source) (*Matrix, error) {
	if err := checkShape(path, data); err != nil {
		return nil, err
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, syntaxError(path, data, err)
	}
	// One document: a second one would be silently ignored.
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		line := 1
		if len(next.Content) > 0 {
			line = next.Content[0].Line
		}
		return nil, Errors{{File: path, Line: line, Col: 1, Msg: "a second YAML document: the matrix is one document (remove the '---' or split the file)"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(path, data, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, Errors{{File: path, Line: 1, Col: 1, Msg: "empty matrix file"}}
	}
	d := &decoder{file: path, at: map[string]*yaml.Node{}, bad: map[string]bool{}, fileOf: map[*yaml.Node]string{}}
	doc := root.Content[0]
	if err := looksLikeMatrix(path, doc); err != nil {
		return nil, err
	}
	if extra != nil {
		if err := d.join(doc, extra); err != nil {
			return nil, err
		}
	}
	d.at[""] = doc
	d.walk(doc, reflect.TypeFor[fileSchema](), "", "", "")
	var f fileSchema
	var typeErr *yaml.TypeError
	if err := doc.Decode(&f); err != nil && !errors.As(err, &typeErr) {
		// walk reports what does not fit the schema; anything else that
		// stops the decoder (an alias that refers to itself) would leave
		// every later key unset, so it is an input error too.
		return nil, Errors{{File: path, Line: doc.Line, Col: doc.Column, Msg: "cannot decode: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	m := &Matrix{File: path, Dir: dir, Network: NetworkShared, Load: Defaults, CPUs: []int{1}, KeepAlive: []bool{true}, Rate: []int{0}, Profiles: map[string]Profile{}}
	if doc.Kind == yaml.MappingNode {
		d.matrix(&f, m)
	}
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool {
			a, b := d.errs[i], d.errs[j]
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		return nil, d.errs
	}
	return m, nil
}

// looksLikeMatrix refuses a document that is no matrix at all (not a
// mapping, or a mapping of which no key is a matrix's) without quoting any
// of it: the path may have come from a forged results.json (run --resume)
// and name any file, an SSH key as well as a kubeconfig.
func looksLikeMatrix(path string, doc *yaml.Node) error {
	keys := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[fileSchema]()) {
		keys[strings.Split(f.Tag.Get("yaml"), ",")[0]] = true
	}
	if doc.Kind == yaml.MappingNode {
		for i := 0; i < len(doc.Content); i += 2 {
			if keys[doc.Content[i].Value] {
				return nil
			}
		}
	}
	return Errors{{File: path, Line: 1, Col: 1, Msg: "not a matrix file: a matrix is a YAML mapping with version, load, targets and scenarios, and this file has none of its keys (nothing of it is quoted here)"}}
}

// quoted is what a YAML parser's message may quote of the file.
var quoted = regexp.MustCompile("\"[^\"]*\"|`[^`]*`")

// unquote drops what a parser's message quotes of the file, keeping its
// position: the file of a syntax error may be none of the user's matrices
// but any file a forged results.json names.
func unquote(msg string) string { return quoted.ReplaceAllString(msg, "…") }

// MaxDepth bounds how deeply a matrix nests flow collections ([ and {).
// yaml.v3 and goccy's parser both grow with the square of the depth: 20,000
// nested [ took 660 MB. The schema needs five levels; 64 leaves room.
const MaxDepth = 64

// checkShape refuses, before any parser sees it, a file nesting flow
// collections deeper than MaxDepth, naming where it passes the bound.
// Brackets inside quoted scalars and comments do not count.
func checkShape(path string, data []byte) error {
	depth, line, col := 0, 1, 0
	var quote byte
	comment := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		switch {
		case c == '\n':
			line, col, comment = line+1, 0, false
			if quote == '"' || quote == '\'' {
				continue // quoted scalars may span lines
			}
		case comment:
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
				col++
			} else if c == quote {
				quote = 0
			}
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			comment = true
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			if depth++; depth > MaxDepth {
				return Errors{{File: path, Line: line, Col: col, Msg: fmt.Sprintf("nested more than %d levels deep", MaxDepth)}}
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
	}
	return nil
}

// goccyMaxSize is the largest file whose syntax errors goccy positions;
// the default matrix is 8 KB.
const goccyMaxSize = 64 << 10

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError positions a YAML syntax error. yaml.v3 says only a line, and
// for parser errors one line too early; goccy/go-yaml's parser says where
// the offending token stands, so it is asked where the file breaks.
//
// goccy's parser allocates about 450 times the input on some broken files
// (a 1 MB unterminated list: 450 MB), so it is asked only about files up to
// goccyMaxSize; a larger one gets yaml.v3's line.
func syntaxError(path string, data []byte, err error) error {
	var perr error
	if len(data) <= goccyMaxSize {
		_, perr = goccyparser.ParseBytes(data, 0)
	}
	var ye goccy.Error
	if errors.As(perr, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
		pos := ye.GetToken().Position
		return Errors{{File: path, Line: max(pos.Line, 1), Col: max(pos.Column, 1), Msg: "YAML syntax: " + unquote(ye.GetMessage())}}
	}
	e := &Error{File: path, Line: 1, Col: 1, Msg: "YAML syntax: " + unquote(strings.TrimPrefix(err.Error(), "yaml: "))}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "YAML syntax: " + unquote(m[2]) + " (at or after this line)"
	}
	return Errors{e}
}

type decoder struct {
	file   string
	fileOf map[*yaml.Node]string // the nodes of a profiles file, by its path
	errs   Errors
	at     map[string]*yaml.Node // value node of every field path the file sets
	bad    map[string]bool       // field paths with a problem reported
}

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	d.bad[field] = true
	file := d.file
	if f, ok := d.fileOf[n]; ok {
		file = f
	}
	d.errs = append(d.errs, &Error{File: file, Line: n.Line, Col: n.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// errAt reports a problem at the node of field (or of the nearest parent
// the file sets).
func (d *decoder) errAt(field, format string, args ...any) {
	p := field
	for d.at[p] == nil && p != "" {
		p = p[:max(strings.LastIndexAny(p, ".["), 0)]
	}
	d.errorf(d.at[p], field, format, args...)
}

func (d *decoder) set(field string) bool { return d.at[field] != nil }

// names lists the keys of the mapping at field in file order.
func (d *decoder) names(field string) []string {
	var out []string
	if n := d.at[field]; n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if d.at[join(field, n.Content[i].Value)] != nil {
				out = append(out, n.Content[i].Value)
			}
		}
	}
	return out
}

// validName is a name that is also a component of an image reference
// (webbench/target-<target>-<service>) and a file name: lowercase letters
// and digits, separated by one '.', one or two '_', or dashes; at most
// maxName characters.
var validName = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$`)

// maxName bounds a name: image names, container names and file names are
// built from several of them.
const maxName = 63

// ValidName reports whether name is valid for a target, service, variant,
// scenario, profile or engine: a component of an image reference and a
// file name.
func ValidName(name string) bool { return validName.MatchString(name) && len(name) <= maxName }

// AddrsVar is the environment variable that tells a target's services
// where service name listens: A_B_ADDRS for a-b, a.b and a_b alike.
func AddrsVar(service string) string {
	return nonEnv.ReplaceAllString(strings.ToUpper(service), "_") + "_ADDRS"
}

var nonEnv = regexp.MustCompile(`[^A-Z0-9]+`)

// walk checks node n against schema type t with the check and why tags of
// its field, reporting each problem at its position, and records the node
// of every path it accepts.
func (d *decoder) walk(n *yaml.Node, t reflect.Type, path, check, why string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	has := checkTag(check)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[rateSchema]() { // a list, or a sweep
		if n.Kind == yaml.MappingNode {
			d.walk(n, reflect.TypeFor[sweepSchema](), path, "", "")
		} else {
			d.walk(n, reflect.TypeFor[[]int](), path, check, why)
		}
		return
	}
	if t == reflect.TypeFor[namesSchema]() { // a name, or a list of names
		if n.Kind == yaml.SequenceNode {
			d.walk(n, reflect.TypeFor[[]string](), path, check, why)
		} else {
			d.walk(n, reflect.TypeFor[string](), path, check, why)
		}
		return
	}
	switch {
	case t.Kind() == reflect.Struct:
		d.walkStruct(n, t, path)
	case t.Kind() == reflect.Map:
		d.walkMap(n, t, path, check, why, has)
	case t.Kind() == reflect.Slice:
		d.walkSlice(n, t, path, check, why, has)
	case t.Kind() == reflect.Interface: // any value (expect.json)
	case n.Kind != yaml.ScalarNode:
		d.errorf(n, path, "want a scalar, got %s", KindName(n))
	default:
		d.walkScalar(n, t, path, why, has)
	}
}

// checkTag returns a lookup of the comma-separated parts of a check tag:
// the value after "=" of part c, and whether c is there at all.
func checkTag(check string) func(c string) (string, bool) {
	return func(c string) (string, bool) {
		for _, part := range strings.Split(check, ",") {
			if k, v, _ := strings.Cut(part, "="); k == c {
				return v, true
			}
		}
		return "", false
	}
}

// walkStruct checks mapping n against struct type t: unknown keys, then
// each field by its tags, then the required fields it lacks.
func (d *decoder) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping, got %s", KindName(n))
		return
	}
	fields := map[string]reflect.StructField{}
	for i := range t.NumField() {
		fields[strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]] = t.Field(i)
	}
	axes := fields["-"].Type == reflect.TypeFor[declaredSchema]()
	delete(fields, "-")
	seen := d.keys(n, path, "key", func(k, v *yaml.Node) {
		f, ok := fields[k.Value]
		if a, declared := axis.Lookup(k.Value); !ok && axes && declared {
			d.at[join(path, k.Value)] = v
			d.walkAxis(v, a, join(path, k.Value))
			return
		}
		if !ok {
			d.errorf(k, join(path, k.Value), "unknown key (known: %s)", strings.Join(known(fields, axes), ", "))
			return
		}
		d.at[join(path, k.Value)] = v
		d.walk(v, f.Type, join(path, k.Value), f.Tag.Get("check"), f.Tag.Get("why"))
	})
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if f := fields[name]; !seen[name] && slices.Contains(strings.Split(f.Tag.Get("check"), ","), "required") {
			d.errorf(n, join(path, name), "missing%s", strings.TrimSuffix(": "+f.Tag.Get("why"), ": "))
		}
	}
}

// walkMap checks mapping n against map type t: its names when the check
// tag says names, and each value against the element type.
func (d *decoder) walkMap(n *yaml.Node, t reflect.Type, path, check, why string, has func(string) (string, bool)) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping of names, got %s", KindName(n))
		return
	}
	_, named := has("names")
	d.keys(n, path, "name", func(k, v *yaml.Node) {
		if named && !ValidName(k.Value) {
			d.errorf(k, join(path, k.Value), "name %q: use lowercase letters and digits, separated by '.', '_', '__' or dashes (at most %d characters)", shorten(k.Value), maxName)
			return
		}
		d.at[join(path, k.Value)] = v
		d.walk(v, t.Elem(), join(path, k.Value), check, why)
	})
}

// walkSlice checks sequence n against slice type t: emptiness and
// duplicates when the check tag asks, and each element against the
// element type.
func (d *decoder) walkSlice(n *yaml.Node, t reflect.Type, path, check, why string, has func(string) (string, bool)) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list, got %s", KindName(n))
		return
	}
	if _, ok := has("nonempty"); ok && len(n.Content) == 0 {
		d.errorf(n, path, "must not be empty")
	}
	_, unique := has("unique")
	seen := map[string]*yaml.Node{}
	for i, e := range n.Content {
		f := fmt.Sprintf("%s[%d]", path, i)
		// Values are compared as the decoder reads them: 0o10, 010
		// and 8 are one value, and so are true and True.
		key := e.Value
		if v := reflect.New(t.Elem()); e.Kind == yaml.ScalarNode && e.Decode(v.Interface()) == nil {
			key = fmt.Sprint(v.Elem().Interface())
		}
		if first := seen[key]; unique && e.Kind == yaml.ScalarNode && first != nil {
			if first.Value == e.Value {
				d.errorf(e, f, "duplicate value %q (also at line %d, column %d)", e.Value, first.Line, first.Column)
			} else {
				d.errorf(e, f, "duplicate value %q: the same as %q at line %d, column %d", e.Value, first.Value, first.Line, first.Column)
			}
			continue
		}
		seen[key] = e
		d.at[f] = e
		d.walk(e, t.Elem(), f, check, why)
	}
}

// walkScalar checks scalar n against a duration, integer, boolean, number
// or string type t, with the bounds and choices of its check tag.
func (d *decoder) walkScalar(n *yaml.Node, t reflect.Type, path, why string, has func(string) (string, bool)) {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		d.walkDuration(n, path, why, has)
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		lo, _ := has("min")
		hi, _ := has("max")
		low, _ := strconv.ParseInt(lo, 10, 64)
		high, _ := strconv.ParseInt(hi, 10, 64)
		switch {
		case err != nil || n.Tag != "!!int":
			d.errorf(n, path, "want an integer, got %q", n.Value)
		case lo != "" && v < low:
			d.errorf(n, path, "must be at least %d, got %d", low, v)
		case hi != "" && v > high:
			d.errorf(n, path, "must be at most %d, got %d", high, v)
		}
	case t.Kind() == reflect.Bool:
		if n.Tag != "!!bool" {
			d.errorf(n, path, "want true or false, got %q", n.Value)
		}
	case t.Kind() == reflect.Float64:
		v, err := strconv.ParseFloat(n.Value, 64)
		lo, _ := has("min")
		hi, _ := has("max")
		low, _ := strconv.ParseFloat(lo, 64)
		high, _ := strconv.ParseFloat(hi, 64)
		switch {
		case err != nil || n.Tag != "!!float" && n.Tag != "!!int":
			d.errorf(n, path, "want a number, got %q", n.Value)
		case v < low || v > high:
			d.errorf(n, path, "must be from %s to %s, got %s", lo, hi, n.Value)
		}
	default: // string
		if _, str := has("str"); str && n.Tag != "!!str" {
			d.errorf(n, path, "want a string, got %s %q", strings.TrimPrefix(n.Tag, "!!"), n.Value)
		} else if one, ok := has("oneof"); ok && !slices.Contains(strings.Split(one, "|"), n.Value) {
			d.errorf(n, path, "want %s, got %q", strings.ReplaceAll(strconv.Quote(one), "|", `" or "`), n.Value)
		}
	}
}

// walkDuration checks scalar n as a duration within the min and max of its
// check tag, positive unless the tag allows zero; why, when given, says
// why the minimum.
func (d *decoder) walkDuration(n *yaml.Node, path, why string, has func(string) (string, bool)) {
	v, err := parseDuration(n.Value)
	low, _ := has("min")
	min, _ := time.ParseDuration(low)
	high, _ := has("max")
	max, _ := time.ParseDuration(high)
	_, zero := has("zero")
	switch {
	case err != nil:
		d.errorf(n, path, "invalid duration %q (write e.g. 10s, 500ms, 2m)", n.Value)
	case v < 0 || v == 0 && !zero:
		d.errorf(n, path, "must be positive, got %s", n.Value)
	case v > 0 && v < min && why != "":
		d.errorf(n, path, "%s, got %s", why, v)
	case v > 0 && v < min:
		d.errorf(n, path, "must be at least %s, got %s", min, v)
	case max > 0 && v > max:
		d.errorf(n, path, "must be at most %s, got %s", max, v)
	}
}

// keys calls each for every key of mapping n, reporting repeated ones, and
// returns the keys it saw.
func (d *decoder) keys(n *yaml.Node, path, what string, each func(k, v *yaml.Node)) map[string]bool {
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if prev, dup := first[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "duplicate %s (first at line %d)", what, prev.Line)
			continue
		}
		first[k.Value] = k
		each(k, v)
	}
	seen := map[string]bool{}
	for k := range first {
		seen[k] = true
	}
	return seen
}

// The rules below span fields; every value's own shape was checked by walk.

func (d *decoder) matrix(f *fileSchema, m *Matrix) {
	if f.Version != nil && *f.Version != SchemaVersion && d.set("version") {
		d.errAt("version", "unsupported schema version %d (this harness reads %d)", *f.Version, SchemaVersion)
	}
	m.Version = SchemaVersion
	m.Images = f.Images
	if m.Images == nil {
		m.Images = map[string]string{}
	}
	setp(&m.Network, f.Network)
	if d.set("load") && !d.load(f.Load, "load", &m.Load) {
		d.errAt("load", "set one of duration or requests")
	}
	if len(f.CPUs) > 0 {
		m.CPUs = f.CPUs
	}
	m.Connections = f.Connections
	if len(f.KeepAlive) > 0 {
		m.KeepAlive = f.KeepAlive
	}
	m.Generators = f.Generator
	if f.Rate != nil {
		m.Rate = d.rates(f.Rate, "rate", m.Generators)
	}
	m.SLO = d.slo(f.SLO, "slo")
	m.Pinning = f.Pinning
	m.Protocols = f.Protocol
	m.Requests = f.Requests
	m.Loadgens, m.LoadgensAt = f.Loadgens, d.positions("loadgens", len(f.Loadgens))
	m.Axes = d.declared("", nil)
	setp(&m.Crosscheck, f.Crosscheck)
	m.Control = d.control(f.Control, "control")
	d.engines(f, m)
	defer func() {
		m.RelativeTo = d.relatives(f.Report, "report", m, axes{m.Connections, Protocols(m), m.Requests, m.Loadgens})
	}()
	m.Limits = d.limits(f.Limits, "limits", DefaultLimits)
	for _, name := range d.names("scenarios") {
		m.Scenarios = append(m.Scenarios, d.scenario(name, f.Scenarios[name]))
	}
	for _, name := range d.names("targets") {
		m.Targets = append(m.Targets, d.target(name, f.Targets[name], m))
	}
	for _, name := range d.names("profiles") {
		m.Profiles[name] = d.profile(name, f.Profiles[name], m)
	}
}

// profile reads profile name: the matrix's load settings, with those the
// profile sets in their place.
func (d *decoder) profile(name string, pf profileSchema, m *Matrix) Profile {
	p := d.overlay("profiles."+name, pf, m)
	p.Name = name
	return p
}

// overlay reads the profile-shaped settings pf found at path over m's
// own: a profile of the file, or the settings given on the command line
// (WithSettings).
func (d *decoder) overlay(path string, pf profileSchema, m *Matrix) Profile {
	p := Profile{Load: m.Load, CPUs: m.CPUs, Connections: m.Connections, KeepAlive: m.KeepAlive, Rate: m.Rate, SLO: m.SLO, Generators: m.Generators, Pinning: m.Pinning, Protocols: m.Protocols, Requests: m.Requests,
		Loadgens: m.Loadgens, LoadgensAt: m.LoadgensAt, Axes: d.declared(path, m.Axes), Crosscheck: m.Crosscheck}
	if d.set(join(path, "load")) {
		d.load(pf.Load, join(path, "load"), &p.Load)
	}
	if len(pf.CPUs) > 0 {
		p.CPUs = pf.CPUs
	}
	if len(pf.Connections) > 0 {
		p.Connections = pf.Connections
	}
	if len(pf.KeepAlive) > 0 {
		p.KeepAlive = pf.KeepAlive
	}
	if len(pf.Generator) > 0 {
		p.Generators = pf.Generator
	}
	if pf.Rate != nil {
		p.Rate = d.rates(pf.Rate, join(path, "rate"), p.Generators)
	}
	if pf.SLO != nil {
		p.SLO = d.slo(pf.SLO, join(path, "slo"))
	}
	if len(pf.Pinning) > 0 {
		p.Pinning = pf.Pinning
	}
	if len(pf.Protocol) > 0 {
		p.Protocols = pf.Protocol
	}
	if len(pf.Requests) > 0 {
		p.Requests = pf.Requests
	}
	if len(pf.Loadgens) > 0 {
		p.Loadgens, p.LoadgensAt = pf.Loadgens, d.positions(join(path, "loadgens"), len(pf.Loadgens))
	}
	setp(&p.Crosscheck, pf.Crosscheck)
	if pf.Only != nil {
		sel, err := ParseSelector(*pf.Only)
		if err != nil {
			d.errAt(join(path, "only"), "%v", err)
		}
		p.Only = sel
	}
	p.Control = d.control(pf.Control, join(path, "control"))
	p.RelativeTo = d.relatives(pf.Report, join(path, "report"), m, axes{p.Connections, Protocols(&Matrix{Protocols: p.Protocols}), p.Requests, p.Loadgens})
	return p
}

// engines reads the engines and placement sections: every engine's host
// is a URL or a context name, placement names engines, and a target engine
// that the load generator does not share has an address to be reached at.
func (d *decoder) engines(f *fileSchema, m *Matrix) {
	for _, name := range d.names("engines") {
		e, path := f.Engines[name], "engines."+name
		spec := EngineSpec{Name: name}
		setp(&spec.Host, e.Host)
		setp(&spec.Address, e.Address)
		setp(&spec.Reserve, e.Reserve)
		if err := CheckEngine(spec.Host); err != nil && e.Host != nil && !d.bad[path+".host"] {
			d.errAt(path+".host", "%v", err)
		}
		if spec.Address == "" {
			spec.Address = EngineHost(spec.Host)
		}
		if m.Engines == nil {
			m.Engines = map[string]EngineSpec{}
		}
		m.Engines[name] = spec
	}
	switch {
	case f.Placement == nil && len(m.Engines) > 0:
		d.errAt("engines", "engines need a placement: {target: ENGINE, loadgen: ENGINE}")
	case f.Placement == nil:
	case len(m.Engines) == 0 && d.set("placement"):
		d.errAt("placement", "placement names engines: add an engines section")
	default:
		p := &Placement{}
		setp(&p.Target, f.Placement.Target)
		setp(&p.Link, f.Placement.Link)
		if f.Placement.Loadgen != nil {
			p.Loadgens = *f.Placement.Loadgen
		}
		d.placed(p, m)
		m.Placement = p
	}
}

// placed checks that placement p names engines, and that a target engine
// a load generator does not share has an address to be reached at.
func (d *decoder) placed(p *Placement, m *Matrix) {
	known := func(field, name string) bool {
		if _, ok := m.Engines[name]; !ok && name != "" && !d.bad[field] {
			d.errAt(field, "no engine %q (have: %s)", name, strings.Join(d.names("engines"), ", "))
			return false
		}
		return true
	}
	known("placement.target", p.Target)
	elsewhere := ""
	for i, name := range p.Loadgens {
		field := "placement.loadgen"
		if d.at[field] != nil && d.at[field].Kind == yaml.SequenceNode {
			field = fmt.Sprintf("%s[%d]", field, i)
		}
		if known(field, name) && name != p.Target && elsewhere == "" {
			elsewhere = name
		}
	}
	if t, ok := m.Engines[p.Target]; ok && elsewhere != "" && t.Address == "" {
		d.errAt("engines."+p.Target, "set address: where the load generator on engine %q reaches this machine (an IP or host name)", elsewhere)
	}
}

// axes are the values of the axes a relative_to entry may name, as in
// effect where it is read (the file's, or a profile's).
type axes struct {
	connections []int
	protocols   []string
	requests    []int64
	loadgens    []int
}

// positions are where the items of the list at field were set, for an
// error found once the run's engines are known (CheckLoadgens).
func (d *decoder) positions(field string, n int) []Error {
	out := make([]Error, n)
	for i := range out {
		f := fmt.Sprintf("%s[%d]", field, i)
		out[i] = Error{File: d.file, Field: f}
		if node := d.at[f]; node != nil {
			out[i].Line, out[i].Col = node.Line, node.Column
			if file, ok := d.fileOf[node]; ok {
				out[i].File = file
			}
		}
	}
	return out
}

// relatives reads report.relative_to: each entry names one scenario,
// variant or target of the matrix, or one value of an axis in effect.
func (d *decoder) relatives(r *reportSchema, path string, m *Matrix, ax axes) []Relative {
	if r == nil {
		return nil
	}
	var out []Relative
	for i, e := range r.RelativeTo {
		f := fmt.Sprintf("%s.relative_to[%d]", path, i)
		var rel Relative
		setp(&rel.Scenario, e.Scenario)
		setp(&rel.Variant, e.Variant)
		setp(&rel.Target, e.Target)
		setp(&rel.Connections, e.Connections)
		setp(&rel.Protocol, e.Protocol)
		setp(&rel.Requests, e.Requests)
		setp(&rel.Loadgens, e.Loadgens)
		n := 0
		for _, v := range []string{rel.Scenario, rel.Variant, rel.Target, rel.Protocol} {
			if v != "" {
				n++
			}
		}
		for _, v := range []int64{int64(rel.Connections), rel.Requests, int64(rel.Loadgens)} {
			if v != 0 {
				n++
			}
		}
		if n != 1 {
			d.errAt(f, "set exactly one of scenario, variant, target, connections, protocol, requests or loadgens")
			continue
		}
		dim, value := rel.Dimension()
		known := dim == "connections" && slices.Contains(ax.connections, rel.Connections) || dim == "protocol" && slices.Contains(ax.protocols, rel.Protocol) ||
			dim == "requests" && slices.Contains(ax.requests, rel.Requests) || dim == "loadgens" && slices.Contains(ax.loadgens, rel.Loadgens)
		for _, t := range m.Targets {
			known = known || dim == "target" && t.Name == value || dim == "variant" && slices.ContainsFunc(t.Variants, func(v Variant) bool { return v.Name == value })
		}
		for _, s := range m.Scenarios {
			known = known || dim == "scenario" && s.Name == value
		}
		if axis, ok := map[string]any{"connections": ax.connections, "requests": ax.requests, "protocol": ax.protocols, "loadgens": ax.loadgens}[dim]; ok && !known {
			d.errAt(f+"."+dim, "%s is not on the %s axis %v", value, dim, axis)
			continue
		}
		if !known {
			d.errAt(f+"."+dim, "no %s named %q", dim, value)
			continue
		}
		out = append(out, rel)
	}
	return out
}

// rates is a rate axis: the list as written, or a sweep's rates. Where the
// generator axis names bombardier, a listed rate must be a multiple of 100
// requests/s, the only rates its limiter spreads evenly (a sweep's other
// rates skip bombardier's cells, naming why).
func (d *decoder) rates(r *rateSchema, path string, gens []string) []int {
	if r.Sweep != nil {
		s := r.Sweep
		if s.From == nil || s.To == nil || s.Steps == nil {
			return nil // reported by the walk
		}
		if *s.From >= *s.To {
			d.errAt(path+".to", "a sweep goes up: to (%d) must be above from (%d)", *s.To, *s.From)
			return nil
		}
		return Sweep(*s.From, *s.To, *s.Steps)
	}
	for i, rate := range r.List {
		if f := fmt.Sprintf("%s[%d]", path, i); rate%100 != 0 && slices.Contains(gens, "bombardier") && !d.bad[f] {
			d.errAt(f, "bombardier holds a rate evenly only at multiples of 100 requests/s, got %d", rate)
		}
	}
	return r.List
}

// slo reads a latency objective, percentiles in increasing order.
func (d *decoder) slo(s *sloSchema, path string) []Objective {
	if s == nil {
		return nil
	}
	var out []Objective
	for _, o := range []struct {
		name string
		max  *time.Duration
	}{{"p50", s.P50}, {"p75", s.P75}, {"p90", s.P90}, {"p95", s.P95}, {"p99", s.P99}, {"p99.9", s.P999}, {"p99.99", s.P9999}} {
		if o.max != nil {
			out = append(out, Objective{Percentile: o.name, Max: *o.max})
		}
	}
	if len(out) == 0 {
		d.errAt(path, "name at least one percentile, e.g. slo: {p99: 10ms}")
	}
	return out
}

// envKey is what a process environment key may be here: letters, digits,
// underscores, and the dots and dashes ASP.NET Core's configuration keys use.
var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// harnessKey matches the keys the harness sets on every target container.
var harnessKey = regexp.MustCompile(`^(CPUS|PORT|TLS_CERT_FILE|TLS_KEY_FILE|[A-Z0-9_]+_ADDRS)$`)

// env checks an env mapping's keys and returns them sorted.
func (d *decoder) env(env map[string]string, path string) []string {
	keys := slices.Sorted(maps.Keys(env))
	for _, k := range keys {
		switch {
		case !envKey.MatchString(k):
			d.errAt(path+"."+k, "not an environment variable name (letters, digits, _ . -; not starting with a digit)")
		case harnessKey.MatchString(k):
			d.errAt(path+"."+k, "set by the harness (CPUS, PORT, <SERVICE>_ADDRS, TLS_CERT_FILE and TLS_KEY_FILE); a matrix cannot override it")
		case d.at[path+"."+k] != nil && d.at[path+"."+k].Tag == "!!null":
			// YAML reads "A:" or "A: null" as no value, which would
			// silently become "".
			d.errAt(path+"."+k, `no value (null); write "" for an empty one`)
		}
	}
	return keys
}

// limits overlays the keys l sets onto base.
func (d *decoder) limits(l *limitsSchema, path string, base Limits) Limits {
	if l == nil {
		return base
	}
	if l.Memory != nil && !d.bad[path+".memory"] {
		v, err := parseBytes(*l.Memory)
		switch {
		case err != nil:
			d.errAt(path+".memory", "%v", err)
		case v < 6<<20:
			d.errAt(path+".memory", "must be at least 6m (the engine's minimum), got %s", *l.Memory)
		default:
			base.MemoryBytes = v
		}
	}
	setp(&base.Pids, l.Pids)
	setp(&base.NoFile, l.NoFile)
	return base
}

// parseBytes reads a size as Docker's --memory does (go-units'
// RAMInBytes: a number of bytes, or with a binary unit: 512m, 2g, 1.5GiB);
// one past what an int64 holds is refused, not wrapped.
func parseBytes(s string) (int64, error) {
	v, err := units.RAMInBytes(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, fmt.Errorf("want a size such as 512m or 2g, got %q", s)
	case v < 0:
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return v, nil
}

func (d *decoder) control(s *string, field string) Selector {
	if s == nil || d.bad[field] {
		return nil
	}
	sel, err := ParseControl(*s)
	if err != nil {
		d.errAt(field, "%v", err)
	}
	return sel
}

// load overlays the keys l sets onto out and reports whether it says how
// long to run (duration or requests, set in the file even if invalid).
func (d *decoder) load(l *loadSchema, path string, out *Load) bool {
	if l == nil || d.bad[path] {
		return true // not a mapping: reported
	}
	if l.Duration != nil {
		out.Duration, out.Requests = *l.Duration, 0
	}
	if l.Requests != nil {
		out.Requests, out.Duration = *l.Requests, 0
	}
	dur, req := d.set(path+".duration"), d.set(path+".requests")
	if dur && req {
		d.errAt(path+".requests", "set either duration or requests, not both")
	}
	setp(&out.Warmup, l.Warmup)
	setp(&out.Trials, l.Trials)
	setp(&out.Timeout, l.Timeout)
	setp(&out.LoadgenCPUs, l.LoadgenCPUs)
	setp(&out.Aggregate, l.Aggregate)
	setp(&out.ReadyTimeout, l.ReadyTimeout)
	setp(&out.MaxErrorRate, l.MaxErrorRate)
	return dur || req
}

// setp sets *dst to *src when the file sets src.
func setp[T any](dst, src *T) {
	if src != nil {
		*dst = *src
	}
}

var paramRef = regexp.MustCompile(`\{([a-z0-9_]+)\}`)

func (d *decoder) scenario(name string, s scenarioSchema) Scenario {
	path := "scenarios." + name
	out := Scenario{Name: name, Expect: Expect{Status: 200}}
	if s.Pipeline != nil && *s.Pipeline > 1 && !d.bad[path+".pipeline"] {
		out.Pipeline = *s.Pipeline
	}
	if s.Path != nil && !d.bad[path+".path"] {
		if out.Path = *s.Path; !strings.HasPrefix(out.Path, "/") {
			d.errAt(path+".path", "must start with /, got %q", shorten(out.Path))
		} else if msg := badRequestPath(out.Path); msg != "" {
			d.errAt(path+".path", "%s", msg)
		}
	}
	for _, p := range d.names(path + ".params") {
		out.Params = append(out.Params, Param{Name: p, Values: s.Params[p]})
		for i, v := range s.Params[p] {
			if msg := badRequestPath("/" + v); msg != "" {
				d.errAt(fmt.Sprintf("%s.params.%s[%d]", path, p, i), "%s", msg)
			}
		}
	}
	if n := d.at[path+".expect.json"]; n != nil {
		d.jsonValue(n, path+".expect.json")
	}
	if e := s.Expect; e != nil {
		setp(&out.Expect.Status, e.Status)
		setp(&out.Expect.ContentType, e.ContentType)
		out.Expect.Body, out.Expect.JSON = e.Body, normalizeJSON(e.JSON)
		if a := e.JSONArray; a != nil {
			out.Expect.JSONArray = &JSONArray{Length: a.Length, Keys: a.Keys}
			if _, err := strconv.Atoi(a.Length); err != nil && !paramRef.MatchString(a.Length) && d.set(path+".expect.json_array.length") {
				d.errAt(path+".expect.json_array.length", "want a number or {param}, got %q", a.Length)
			}
		}
		if t := e.TFB; t != nil && t.Test != nil {
			out.Expect.TFB = &TFB{Test: *t.Test}
			setp(&out.Expect.TFB.Queries, t.Queries)
		}
		d.workloadExpect(path+".expect", &out.Expect, e.SHA256, e.Encoding, e.Compute)
		if n := countSet(e.Body != nil, e.JSON != nil, e.JSONArray != nil, e.TFB != nil, e.SHA256 != nil, e.Compute != nil && *e.Compute); n > 1 {
			d.errAt(path+".expect", "set only one of body, json, json_array, tfb, sha256 and compute")
		}
	}
	out.Headers = d.headers(path+".headers", s.Headers)
	refs := out.Path + " " + fmt.Sprint(out.Expect.JSONArray)
	if out.Expect.TFB != nil {
		refs += " " + out.Expect.TFB.Queries
	}
	for _, ref := range paramRef.FindAllStringSubmatch(refs, -1) {
		if !slices.ContainsFunc(out.Params, func(p Param) bool { return p.Name == ref[1] }) {
			d.errAt(path, "{%s} names no param of this scenario", ref[1])
		}
	}
	return out
}

// workloadExpect sets e's sha256, encoding and compute keys, checking the
// digest's form.
func (d *decoder) workloadExpect(path string, e *Expect, sha, encoding *string, compute *bool) {
	if sha != nil && !d.bad[path+".sha256"] {
		if b, err := hex.DecodeString(*sha); err != nil || len(b) != sha256.Size {
			d.errAt(path+".sha256", "want the body's SHA-256 as 64 hex digits, got %q", shorten(*sha))
		}
		e.SHA256 = strings.ToLower(*sha)
	}
	if encoding != nil && !d.bad[path+".encoding"] {
		e.Encoding = *encoding
	}
	e.Compute = compute != nil && *compute
}

// headers are a scenario's request headers, in their canonical spelling,
// each checked to fit a request: a name of token characters, a value
// without control characters (a CR or LF would end the header).
func (d *decoder) headers(path string, h map[string]string) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(h)) {
		v := h[name]
		switch {
		case name == "" || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) }):
			d.errAt(path+"."+name, "not a header name: want letters, digits and -")
		case strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }):
			d.errAt(path+"."+name, "a control character in the value %q", shorten(v))
		default:
			out[textproto.CanonicalMIMEHeaderKey(name)] = v
		}
	}
	return out
}

// badRequestPath says why p cannot go into a request line as written
// ("" when it can): a space, CR or LF would split the request line or
// inject a header, and a % that starts no escape (%zz) is refused by the
// load generators' URL parsers only at run time.
func badRequestPath(p string) string {
	for i, r := range p {
		if r <= ' ' || r == 0x7f {
			return fmt.Sprintf("a space or control character (%U) at byte %d: escape it (%%20 for a space)", r, i)
		}
	}
	if _, err := url.ParseRequestURI(paramRef.ReplaceAllString(p, "x")); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Sprintf("not a request path: %v", err)
	}
	return ""
}

// maxExactInt is the largest integer a JSON number holds exactly in a
// float64 (2^53), which is what the answer is decoded into.
const maxExactInt = 1 << 53

// jsonValue checks that the YAML under expect.json means one JSON value,
// as the answer is compared with it: every key a string, no YAML-only
// scalar (a timestamp would compare as Go formats it, .inf and .nan have
// no JSON), no integer past 2^53 (the answer's float64 would round it).
func (d *decoder) jsonValue(n *yaml.Node, field string) {
	if n.Kind == yaml.AliasNode || strings.Count(field, ".")+strings.Count(field, "[") > MaxDepth {
		return // an alias (possibly of itself) is reported by the decode; depth by checkShape
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Tag != "!!str" {
				d.errorf(k, field, "key %s is %s, not a string: JSON keys are strings (quote it)", KindName(k), strings.TrimPrefix(k.Tag, "!!"))
				continue
			}
			d.jsonValue(n.Content[i+1], field+"."+k.Value)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.jsonValue(c, fmt.Sprintf("%s[%d]", field, i))
		}
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!timestamp", "!!binary":
			d.errorf(n, field, "a YAML %s, which JSON has not: quote it to mean the string", strings.TrimPrefix(n.Tag, "!!"))
		case "!!float":
			if f, err := strconv.ParseFloat(strings.TrimPrefix(n.Value, "+"), 64); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				d.errorf(n, field, "%s is no JSON number", KindName(n))
			}
		case "!!int":
			if x, ok := new(big.Int).SetString(strings.ReplaceAll(n.Value, "_", ""), 0); ok && x.CmpAbs(big.NewInt(maxExactInt)) > 0 {
				d.errorf(n, field, "%s is past 2^53, where a JSON number stops being exact: quote it, or expect a string", KindName(n))
			}
		}
	}
}

func countSet(set ...bool) int {
	n := 0
	for _, b := range set {
		if b {
			n++
		}
	}
	return n
}

// normalizeJSON turns a YAML-decoded value into the shapes encoding/json
// produces (map[string]any, []any, float64), so the two compare equal.
func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil || v == nil {
		return v
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

func (d *decoder) target(name string, s targetSchema, m *Matrix) Target {
	path := "targets." + name
	t := Target{Name: name, Env: s.Env, EnvKeys: d.env(s.Env, path+".env"), Scenarios: s.Scenarios,
		Limits: d.limits(s.Limits, path+".limits", m.Limits), Protocols: s.Protocols}
	if d.at[path].Kind != yaml.MappingNode {
		return t // reported
	}
	if !d.set(path + ".port") {
		d.errAt(path+".port", "missing: the port the server listens on")
	}
	setp(&t.Port, s.Port)
	setp(&t.Entry, s.Entry)
	for _, v := range d.names(path + ".variants") {
		env := s.Variants[v].Env
		t.Variants = append(t.Variants, Variant{Name: v, Env: env, EnvKeys: d.env(env, path+".variants."+v+".env")})
	}
	for i, sc := range s.Scenarios {
		if !slices.ContainsFunc(m.Scenarios, func(s Scenario) bool { return s.Name == sc }) {
			d.errorf(d.at[fmt.Sprintf("%s.scenarios[%d]", path, i)], path+".scenarios", "no scenario named %q", sc)
		}
	}
	switch {
	case d.set(path+".services") && d.set(path+".build"):
		d.errAt(path+".build", "set either build (one service) or services, not both")
	case d.set(path + ".services"):
		for _, sn := range d.names(path + ".services") {
			ss, sp := s.Services[sn], path+".services."+sn
			svc := Service{Name: sn, Replicas: 1, Env: ss.Env, EnvKeys: d.env(ss.Env, sp+".env")}
			setp(&svc.Replicas, ss.Replicas)
			setp(&svc.Port, ss.Port)
			setp(&svc.CPUs, ss.CPUs)
			svc.BuildRel, svc.Build, svc.Images, svc.Undeclared = d.buildDir(ss.Build, sp+".build", m)
			t.Services = append(t.Services, svc)
		}
		// Names that become one environment variable, ports past 65535,
		// and a target of more containers than any machine here runs.
		vars, total := map[string]string{}, 0
		for _, svc := range t.Services {
			v, sp := AddrsVar(svc.Name), path+".services."+svc.Name
			if first, ok := vars[v]; ok {
				d.errAt(sp, "services %q and %q both become %s; rename one", first, svc.Name, v)
			} else {
				vars[v] = svc.Name
			}
			if last := svc.Port + svc.Replicas - 1; svc.Port > 0 && last > 65535 {
				d.errAt(sp+".replicas", "%d replicas from port %d need ports up to %d, past 65535", svc.Replicas, svc.Port, last)
			}
			total += svc.Replicas
		}
		d.shiftedPorts(t, path)
		if sp := path + ".services." + t.Entry + ".cpus"; d.set(sp) {
			d.errAt(sp, "the entry service runs on the cell's cores (the cpus axis); give cores of their own to the other services")
		}
		if total > MaxContainers {
			d.errAt(path+".services", "%d containers in all (replicas summed over services); a target may have at most %d", total, MaxContainers)
		}
		if !d.set(path + ".entry") {
			d.errAt(path+".entry", "missing: the service the load generator hits")
		} else if !d.bad[path+".entry"] && !slices.ContainsFunc(t.Services, func(s Service) bool { return s.Name == t.Entry }) {
			d.errAt(path+".entry", "no service named %q", t.Entry)
		}
	case d.set(path + ".build"):
		if d.set(path + ".entry") {
			d.errAt(path+".entry", "entry goes with services")
		}
		single := Service{Name: name, Replicas: 1}
		single.BuildRel, single.Build, single.Images, single.Undeclared = d.buildDir(s.Build, path+".build", m)
		t.Services, t.Entry = []Service{single}, name
	default:
		d.errAt(path+".build", "missing: the folder holding the target's Dockerfile (or services)")
	}
	return t
}

// shiftedPorts places the replicas of t's services as the runner does
// when they share one network namespace (shared and host modes: the entry
// on the target's port, each other replica on the next free port from its
// service's, in start order) and reports a service pushed past 65535 by
// the ports taken before it: a: {port: 65530, replicas: 4} beside b:
// {port: 65531, replicas: 4} puts b on 65534…65537.
func (d *decoder) shiftedPorts(t Target, path string) {
	taken := map[int]bool{t.Port: true}
	for _, svc := range t.Services {
		if svc.Name == t.Entry || svc.Port <= 0 {
			continue
		}
		p := svc.Port
		for range svc.Replicas {
			for taken[p] {
				p++
			}
			taken[p] = true
		}
		if p > 65535 && svc.Port+svc.Replicas-1 <= 65535 { // else reported above
			d.errAt(path+".services."+svc.Name+".replicas", "%d replicas from port %d, after the ports taken by the services started before it, need ports up to %d, past 65535 (they share one network namespace unless the network is bridge)", svc.Replicas, svc.Port, p)
		}
	}
}

// buildDir resolves a build folder against the matrix's folder, checks it
// has a Dockerfile, and lists the images keys that Dockerfile uses and the
// images its FROM lines name that are no key (hard-coded bases).
func (d *decoder) buildDir(build *string, field string, m *Matrix) (rel, dir string, keys, undeclared []string) {
	if build == nil || d.at[field].Tag != "!!str" {
		return "", "", nil, nil
	}
	if strings.TrimSpace(*build) == "" {
		d.errAt(field, "empty: name the folder holding the Dockerfile")
		return "", "", nil, nil
	}
	if rel, dir = *build, *build; !filepath.IsAbs(dir) {
		dir = filepath.Join(m.Dir, rel)
	}
	df, err := safefile.Read(filepath.Join(dir, "Dockerfile"), MaxFileSize)
	switch {
	case errors.Is(err, os.ErrNotExist):
		d.errAt(field, "no Dockerfile in %s", dir)
		return rel, dir, nil, nil
	case err != nil:
		d.errAt(field, "%v", err)
		return rel, dir, nil, nil
	}
	if msg := outsideContext(dir); msg != "" {
		d.errAt(field, "%s", msg)
		return rel, dir, nil, nil
	}
	froms, err := Froms(df)
	if err != nil {
		d.errAt(field, "%s: %v", filepath.Join(dir, "Dockerfile"), err)
	}
	for _, f := range froms {
		if f.Key == "" && !f.Stage && !slices.Contains(undeclared, f.Image) {
			undeclared = append(undeclared, f.Image)
		}
	}
	for _, key := range ImageKeys(df) {
		if _, ok := m.Images[key]; !ok {
			d.errAt(field, "its Dockerfile uses ${%s_IMAGE} but images has no key %q", strings.ToUpper(key), key)
			continue
		}
		keys = append(keys, key)
	}
	return rel, dir, keys, undeclared
}

// outsideContext says why the Dockerfile in build folder dir cannot be
// built ("" when it can): a symbolic link leading out of the folder, which
// the build context sent to the engine does not hold.
func outsideContext(dir string) string {
	df := filepath.Join(dir, "Dockerfile")
	if st, err := os.Lstat(df); err != nil || st.Mode()&os.ModeSymlink == 0 {
		return ""
	}
	root, err1 := filepath.EvalSymlinks(dir)
	real, err2 := filepath.EvalSymlinks(df)
	if err := errors.Join(err1, err2); err != nil {
		return err.Error()
	}
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return fmt.Sprintf("its Dockerfile is a symbolic link to %s, outside the build folder: the engine gets only the folder, so the build would fail (copy the file in)", real)
	}
	return ""
}

var imageArg = regexp.MustCompile(`\$\{?([A-Z0-9_]+)_IMAGE\}?`)

// ImageKeys lists the images keys a Dockerfile refers to through
// ${<KEY>_IMAGE} build arguments, lower-cased, sorted, without repeats.
func ImageKeys(dockerfile []byte) []string {
	var keys []string
	for _, m := range imageArg.FindAllSubmatch(dockerfile, -1) {
		keys = append(keys, strings.ToLower(string(m[1])))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// KindName says what a YAML node is, for a message: "a mapping", "a list", or the value quoted.
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", shorten(n.Value))
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// known is the keys a mapping of fields takes, with the declared axes'
// when it has an inline map of them, sorted.
func known(fields map[string]reflect.StructField, axes bool) []string {
	keys := slices.Collect(maps.Keys(fields))
	if axes {
		for _, a := range axis.All() {
			keys = append(keys, a.Name)
		}
	}
	slices.Sort(keys)
	return keys
}

// walkAxis checks n, the values of declared axis a at path: a non-empty
// list of distinct strings that a's Check takes, each refused at its
// position.
func (d *decoder) walkAxis(n *yaml.Node, a axis.Axis, path string) {
	d.walk(n, reflect.TypeFor[[]string](), path, "nonempty,unique", "")
	if n.Kind != yaml.SequenceNode {
		return
	}
	for i, e := range n.Content {
		if e.Kind != yaml.ScalarNode {
			continue // walk said so
		}
		if why := a.Check(e.Value); why != "" {
			d.errorf(e, fmt.Sprintf("%s[%d]", path, i), "%s: %s", a.Name, why)
		}
	}
}

// declaredSchema marks a mapping that takes the declared axes (package
// axis) as keys of its own. The YAML decoder skips it (yaml:"-"): walk
// checks those keys, and declared reads them from the nodes it kept.
type declaredSchema struct{}

// declared is the declared axes' values that the mapping at path sets
// over base's: an axis set replaces base's values.
func (d *decoder) declared(path string, base map[string][]string) map[string][]string {
	out := maps.Clone(base)
	for _, a := range axis.All() {
		n := deref(d.at[join(path, a.Name)])
		if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
			continue
		}
		values := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			values = append(values, deref(e).Value)
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[a.Name] = values
	}
	return out
}

// deref is the node an alias refers to, or n itself.
func deref(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}
