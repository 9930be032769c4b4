// Package cellid is the identity of a cell, shared by the matrix that
// makes cells and the results that record them: what a cell is (target,
// variant, scenario, params, cores, connections, keep-alive, rate,
// control), the id that names it in every table and comparison, and the
// baselines of ratio tables. It imports nothing of the harness but the
// declared axes (package axis). Its json tags are part of results.json's
// schema: changing one changes the schema.
package cellid

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/axis"
)

// KV is one param value of a cell.
type KV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Key is what tells one cell from another.
type Key struct {
	Target      string
	Variant     string
	Scenario    string
	Params      []KV
	CPUs        int
	Connections int
	Close       bool   // keep-alive off
	Rate        int    // requests/s held; 0: as fast as it can
	Control     bool   // the A/A twin
	Generator   string // the load generator; "" or DefaultGenerator is the default
	Pinning     string // where the generator runs beside the target: "" or PinApart is the default
	Protocol    string // what the generator speaks to the target: "" or ProtoHTTP1 is the default
	Requests    int64  // the requests axis's count for this cell; 0: the load's duration or count
	Loadgens    int    // the loadgens axis: how many of the run's generator engines; 0: all of them
	// Axes are the cell's values of the declared axes (package axis)
	// that are not the axis's default, by axis name.
	Axes []KV
}

// Axis is the cell's value of the declared axis a: its own, or a's
// default.
func (k Key) Axis(a axis.Axis) string {
	for _, kv := range k.Axes {
		if kv.Name == a.Name {
			return kv.Value
		}
	}
	return a.Default
}

// WithAxis is k with its value of the declared axis a set to v (dropped
// when v is a's default), the axes kept by name.
func (k Key) WithAxis(a axis.Axis, v string) Key {
	axes := slices.DeleteFunc(slices.Clone(k.Axes), func(kv KV) bool { return kv.Name == a.Name })
	if v != a.Default {
		axes = append(axes, KV{Name: a.Name, Value: v})
		slices.SortFunc(axes, func(x, y KV) int { return strings.Compare(x.Name, y.Name) })
	}
	if len(axes) == 0 {
		axes = nil
	}
	k.Axes = axes
	return k
}

// Protocols a cell is measured over: cleartext HTTP/1.1 (the default),
// HTTP/1.1 over TLS, HTTP/2 over TLS (ALPN h2), and cleartext HTTP/2 with
// prior knowledge.
const (
	ProtoHTTP1 = "http1"
	ProtoHTTPS = "https"
	ProtoH2    = "h2"
	ProtoH2C   = "h2c"
)

// Protocols are the protocols in the order tables list them.
var Protocols = []string{ProtoHTTP1, ProtoHTTPS, ProtoH2, ProtoH2C}

// Proto is protocol p by name: http1 for "" (a cell that names none).
func Proto(p string) string {
	if p == "" {
		return ProtoHTTP1
	}
	return p
}

// TLS says whether protocol p runs over TLS.
func TLS(p string) bool { return p == ProtoHTTPS || p == ProtoH2 }

// HTTP2 says whether protocol p is HTTP/2.
func HTTP2(p string) bool { return p == ProtoH2 || p == ProtoH2C }

// Pinnings: the generator on cores of its own (the default), on the
// target's own cores, or neither pinned.
const (
	PinApart    = "apart"
	PinTogether = "together"
	PinNone     = "none"
)

// DefaultGenerator is the load generator of a cell that names none; ids
// leave it out, so that runs from before the generator axis keep theirs.
const DefaultGenerator = "bombardier"

// TargetName is "target" or "target:variant".
func (k Key) TargetName() string {
	if k.Variant == "" {
		return k.Target
	}
	return k.Target + ":" + k.Variant
}

// ScenarioName is "scenario" or "scenario?k=v&k2=v2".
func (k Key) ScenarioName() string {
	if len(k.Params) == 0 {
		return k.Scenario
	}
	parts := make([]string, len(k.Params))
	for i, p := range k.Params {
		parts[i] = p.Name + "=" + p.Value
	}
	return k.Scenario + "?" + strings.Join(parts, "&")
}

// ID names a cell uniquely within a run:
// target[:variant]/scenario[?k=v]/<cpus>cpu/c<conns>[/close][/r<rate>][/n<requests>][/<k>lg][/<generator>][/<protocol>][/together|/unpinned][/<axis>=<value>…][ (control)],
// the generator and the protocol shown unless they are the default, the
// request count only when the requests axis sets it, the generator engines
// (/1lg, /2lg) only when the loadgens axis sets them, a declared axis only
// where its value is not the default.
func (k Key) ID() string {
	id := fmt.Sprintf("%s/%s/%dcpu/c%d", k.TargetName(), k.ScenarioName(), k.CPUs, k.Connections)
	if k.Close {
		id += "/close"
	}
	if k.Rate > 0 {
		id += fmt.Sprintf("/r%d", k.Rate)
	}
	if k.Requests > 0 {
		id += fmt.Sprintf("/n%d", k.Requests)
	}
	if k.Loadgens > 0 {
		id += fmt.Sprintf("/%dlg", k.Loadgens)
	}
	if k.Generator != "" && k.Generator != DefaultGenerator {
		id += "/" + k.Generator
	}
	if k.Protocol != "" && k.Protocol != ProtoHTTP1 {
		id += "/" + k.Protocol
	}
	switch k.Pinning {
	case PinTogether:
		id += "/together"
	case PinNone:
		id += "/unpinned"
	}
	for _, kv := range k.Axes {
		id += "/" + kv.Name + "=" + kv.Value
	}
	if k.Control {
		id += " (control)"
	}
	return id
}

// Relative names the baseline of a ratio table: each cell is compared with
// the cell that differs from it only in this one thing (its scenario, its
// variant, its target, its connection count, its protocol, its request
// count, its number of generator engines, or a declared axis) having this
// value. Exactly one field is set, but Value, which goes with Axis.
type Relative struct {
	Scenario    string `json:"scenario,omitempty"`
	Variant     string `json:"variant,omitempty"`
	Target      string `json:"target,omitempty"`
	Connections int    `json:"connections,omitempty"`
	Protocol    string `json:"protocol,omitempty"`
	Requests    int64  `json:"requests,omitempty"`
	Loadgens    int    `json:"loadgens,omitempty"`
	// Axis and Value name a declared axis (package axis) and its value.
	Axis  string `json:"axis,omitempty"`
	Value string `json:"value,omitempty"`
}

// Dimension and Value are the one thing the baseline differs in.
func (r Relative) Dimension() (dim, value string) {
	switch {
	case r.Scenario != "":
		return "scenario", r.Scenario
	case r.Variant != "":
		return "variant", r.Variant
	case r.Connections != 0:
		return "connections", strconv.Itoa(r.Connections)
	case r.Protocol != "":
		return "protocol", r.Protocol
	case r.Requests != 0:
		return "requests", strconv.FormatInt(r.Requests, 10)
	case r.Loadgens != 0:
		return "loadgens", strconv.Itoa(r.Loadgens)
	case r.Axis != "":
		return r.Axis, r.Value
	}
	return "target", r.Target
}

// Base is the baseline of k: k with the dimension set to the value.
func (r Relative) Base(k Key) Key {
	switch {
	case r.Scenario != "":
		k.Scenario = r.Scenario
	case r.Variant != "":
		k.Variant = r.Variant
	case r.Connections != 0:
		k.Connections = r.Connections
	case r.Protocol != "":
		k.Protocol = r.Protocol
		if k.Protocol == ProtoHTTP1 {
			k.Protocol = ""
		}
	case r.Requests != 0:
		k.Requests = r.Requests
	case r.Loadgens != 0:
		k.Loadgens = r.Loadgens
	case r.Axis != "":
		if a, ok := axis.Lookup(r.Axis); ok {
			k = k.WithAxis(a, r.Value)
		}
	default:
		k.Target = r.Target
	}
	return k
}
