package matrix

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
)

// Cell is one measurement: a target (in one of its variants) answering a
// scenario (with one value of each param) on some cores under some number
// of connections, and the rest of its key (cellid.Key: its id, its
// target's and scenario's names), with where it runs on this machine.
type Cell struct {
	cellid.Key
	CPUSet     cpuset.Set // target cores
	LoadgenSet cpuset.Set
	// Own are the cores of each service with cores of its own (its
	// cpus:), apart from CPUSet, on which the target's other services run.
	Own map[string]cpuset.Set
	// Placement says what a machine with too few cores did in place of
	// giving the target, each service with cpus: and the load generator
	// cores of their own; "" when it gave them.
	Placement string
	Skip      string // reason the cell cannot run on this machine
	// Pipeline is its scenario's requests in flight on each connection;
	// 0 waits for each answer. Not part of the key: the scenario is.
	Pipeline int
}

// KV is one param value of a cell.
type KV = cellid.KV

// Subst replaces {name} in s with the cell's param values.
func (c Cell) Subst(s string) string {
	for _, p := range c.Params {
		s = strings.ReplaceAll(s, "{"+p.Name+"}", p.Value)
	}
	return s
}

// variantNames lists t's variants in file order; one unnamed one when it
// has none.
func (t Target) variantNames() []string {
	if len(t.Variants) == 0 {
		return []string{""}
	}
	names := make([]string, len(t.Variants))
	for i, v := range t.Variants {
		names[i] = v.Name
	}
	return names
}

// Expand lists the cells of m in a documented order (target as in the file,
// then variant, scenario as in the file, params, cpus, connections),
// keeping those the selector picks and the targets serve. Cores come from
// online (see placeOn); a cell whose cores do not fit is kept with Skip set.
func Expand(m *Matrix, only Selector, online cpuset.Set) []Cell {
	return expand(m, only, func(t Target, c *Cell, pin string) error { return placeOn(online, m.Load.LoadgenCPUs, t, c, pin) })
}

// placeOn gives cell c of t its cores on one machine's online cores: the
// target the lowest, then each service with cores of its own (cpus:) the
// next, in start order, and the load generator the highest (apart), the
// target's (together), or every core with nothing pinned (none). A machine
// with too few cores for the services' own and the generator's apart
// puts the generator on the target's cores, as together does, and says so
// in c.Placement.
func placeOn(online cpuset.Set, lgCPUs int, t Target, c *Cell, pin string) error {
	own := t.ownCores()
	switch {
	case pin == cellid.PinNone: // neither pinned, as a laptop run: every container may use every core
		c.CPUSet, c.LoadgenSet = slices.Clone(online), slices.Clone(online)
		for _, s := range own {
			c.own(s.Name, slices.Clone(online))
		}
		return nil
	case pin == cellid.PinApart && len(own) == 0:
		var err error
		c.CPUSet, c.LoadgenSet, err = cpuset.Allocate(online, c.CPUs, lgCPUs)
		return err
	}
	need := c.CPUs
	for _, s := range own {
		need += s.CPUs
	}
	if need > len(online) {
		if len(own) == 0 {
			return fmt.Errorf("target %d cores exceed the %d online CPUs of this machine", c.CPUs, len(online))
		}
		return fmt.Errorf("%s cores exceed the %d online CPUs of this machine", coresAsked(c.CPUs, own, 0), len(online))
	}
	next := c.CPUs
	for _, s := range own {
		c.own(s.Name, slices.Clone(online[next:next+s.CPUs]))
		next += s.CPUs
	}
	c.CPUSet, c.LoadgenSet = slices.Clone(online[:c.CPUs]), slices.Clone(online[:c.CPUs]) // together: the generator on the target's own cores, as on a 1-core VM
	if pin == cellid.PinApart {
		if need+lgCPUs <= len(online) {
			c.LoadgenSet = slices.Clone(online[len(online)-lgCPUs:])
			return nil
		}
		c.Pinning = cellid.PinTogether
		c.Placement = fmt.Sprintf("this machine's %d online cores cannot give %s cores of their own, so the load generator shares the server's %s (as pinning together does)%s",
			len(online), coresAsked(c.CPUs, own, lgCPUs), coreWord(c.CPUSet), c.ownWords(own))
	}
	return nil
}

// ownCores are the services of t that have cores of their own, in start
// order.
func (t Target) ownCores() []Service {
	var out []Service
	for _, s := range t.Services {
		if s.CPUs > 0 {
			out = append(out, s)
		}
	}
	return out
}

// own gives service name the cores set of its own.
func (c *Cell) own(name string, set cpuset.Set) {
	if c.Own == nil {
		c.Own = map[string]cpuset.Set{}
	}
	c.Own[name] = set
}

// ServiceSet is the cores service name runs on in c: its own, or the
// target's.
func (c Cell) ServiceSet(name string) cpuset.Set {
	if s, ok := c.Own[name]; ok {
		return s
	}
	return c.CPUSet
}

// TargetCores are every core the target's services run on in c: the
// target's and those of each service with cores of its own.
func (c Cell) TargetCores() cpuset.Set {
	sets := []cpuset.Set{c.CPUSet}
	for _, s := range c.Own {
		sets = append(sets, s)
	}
	return cpuset.Union(sets...)
}

// coresAsked words what a cell asks: "the server 1, db 1 and the load
// generator 1" (the generator left out when lg is 0).
func coresAsked(server int, own []Service, lg int) string {
	parts := []string{fmt.Sprintf("the server %d", server)}
	for _, s := range own {
		parts = append(parts, fmt.Sprintf("%s %d", s.Name, s.CPUs))
	}
	if lg > 0 {
		parts = append(parts, fmt.Sprintf("the load generator %d", lg))
	}
	last := len(parts) - 1
	if last == 0 {
		return parts[0]
	}
	return strings.Join(parts[:last], ", ") + " and " + parts[last]
}

// ownWords says where each service with cores of its own runs:
// ", and db keeps core 1 to itself".
func (c Cell) ownWords(own []Service) string {
	var parts []string
	for _, s := range own {
		parts = append(parts, fmt.Sprintf("%s keeps %s to itself", s.Name, coreWord(c.Own[s.Name])))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", and " + strings.Join(parts, ", ")
}

// coreWord is "core 0" or "cores 0-1".
func coreWord(s cpuset.Set) string {
	if len(s) == 1 {
		return "core " + s.String()
	}
	return "cores " + s.String()
}

// ExpandApart is Expand for a target and a load generator on two machines
// (two engines): each takes its cores from its own machine's, the
// services with cores of their own after the target's on the target's.
func ExpandApart(m *Matrix, only Selector, targetOnline, loadgenOnline cpuset.Set) []Cell {
	return expand(m, only, func(t Target, c *Cell, pin string) error {
		if pin != cellid.PinApart {
			return fmt.Errorf("pinning %s needs the generator and the target on one machine; this run puts them on two", pin)
		}
		own := t.ownCores()
		need := c.CPUs
		for _, s := range own {
			need += s.CPUs
		}
		tg, lg, err := cpuset.AllocateApart(targetOnline, loadgenOnline, need, m.Load.LoadgenCPUs)
		if err != nil {
			if len(own) > 0 {
				err = fmt.Errorf("%s: %w", coresAsked(c.CPUs, own, 0), err)
			}
			return err
		}
		c.CPUSet, c.LoadgenSet = tg[:c.CPUs], lg
		next := c.CPUs
		for _, s := range own {
			c.own(s.Name, tg[next:next+s.CPUs])
			next += s.CPUs
		}
		return nil
	})
}

func expand(m *Matrix, only Selector, allocate func(t Target, c *Cell, pinning string) error) []Cell {
	var cells []Cell
	for _, t := range m.Targets {
		for _, variant := range t.variantNames() {
			for _, s := range m.Scenarios {
				if !t.Serves(s.Name) {
					continue
				}
				for _, params := range combinations(s.Params) {
					for _, axes := range declaredAxes(m) {
						for _, cpus := range m.CPUs {
							for _, conns := range m.Connections {
								for _, keep := range keepAlive(m) {
									for _, rate := range rates(m) {
										for _, n := range requestCounts(m) {
											for _, k := range loadgenCounts(m) {
												for _, gen := range generatorsAt(m, rate) {
													for _, proto := range protocolsOf(m, t) {
														for _, pin := range Pinnings(m) {
															c := Cell{Key: cellid.Key{Target: t.Name, Variant: variant, Scenario: s.Name, Params: params, CPUs: cpus, Connections: conns, Close: !keep, Rate: rate, Requests: n, Loadgens: k, Generator: speaking(m, gen, proto), Axes: axes}, Pipeline: s.Pipeline}
															if pin != cellid.PinApart {
																c.Pinning = pin
															}
															if proto != cellid.ProtoHTTP1 {
																c.Protocol = proto
															}
															if !only.Match(c) || !m.ProfileOnly.Match(c) {
																continue
															}
															if err := allocate(t, &c, pin); err != nil {
																c.Skip = err.Error()
															} else if c.Placement != "" && pin == cellid.PinApart && slices.Contains(Pinnings(m), cellid.PinTogether) {
																c.Pinning, c.Skip = "", c.Placement+"; the pinning axis's together cell is that cell"
															}
															cells = append(cells, c)
															if len(m.Control) > 0 && m.Control.Match(c) {
																c.Control = true
																cells = append(cells, c)
															}
														}
													}
												}
											}
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return cells
}

// declaredAxes is the declared axes' values as cells take them: every
// combination of the values m sets (an axis it does not set has its
// default alone), each without the defaults, as cellid.Key holds them.
func declaredAxes(m *Matrix) [][]KV {
	var params []Param
	for _, a := range axis.All() {
		values := m.Axes[a.Name]
		if len(values) == 0 {
			values = []string{a.Default}
		}
		params = append(params, Param{Name: a.Name, Values: values})
	}
	out := combinations(params)
	for i, kvs := range out {
		out[i] = slices.DeleteFunc(kvs, func(kv KV) bool {
			a, _ := axis.Lookup(kv.Name)
			return kv.Value == a.Default
		})
		if len(out[i]) == 0 {
			out[i] = nil
		}
	}
	return out
}

// CellLoad is the load of cell c: m's, with the requests axis's count in
// place of its duration or count when the axis sets one.
func CellLoad(m *Matrix, c Cell) Load { return m.Load.Counted(c.Requests) }

// Counted is l with n requests per trial in place of its duration or
// count; l itself when n is 0 (no requests axis).
func (l Load) Counted(n int64) Load {
	if n > 0 {
		l.Requests, l.Duration = n, 0
	}
	return l
}

// keepAlive is the keep-alive axis: [true] when the matrix sets none.
func keepAlive(m *Matrix) []bool {
	if len(m.KeepAlive) == 0 {
		return []bool{true}
	}
	return m.KeepAlive
}

// requestCounts is the requests axis: [0] (each trial as long as the load
// says) when the matrix sets none.
func requestCounts(m *Matrix) []int64 {
	if len(m.Requests) == 0 {
		return []int64{0}
	}
	return m.Requests
}

// loadgenCounts is the loadgens axis: [0] (every generator engine of the
// run) when the matrix sets none.
func loadgenCounts(m *Matrix) []int {
	if len(m.Loadgens) == 0 {
		return []int{0}
	}
	return m.Loadgens
}

// rates is the rate axis: [0] (as fast as bombardier can) when the matrix
// sets none.
func rates(m *Matrix) []int {
	if len(m.Rate) == 0 {
		return []int{0}
	}
	return m.Rate
}

// Generators is the generator axis: [bombardier] when the matrix sets none,
// and the cross-check's generator after the axis's when it is not on it
// (every cell is then measured a second time by it, interleaved with the
// first).
func Generators(m *Matrix) []string {
	gens := m.Generators
	if len(gens) == 0 {
		gens = []string{cellid.DefaultGenerator}
	}
	if m.Crosscheck != "" && !slices.Contains(gens, m.Crosscheck) {
		gens = append(slices.Clone(gens), m.Crosscheck)
	}
	return gens
}

// Pinnings is the pinning axis: [apart] when the matrix sets none.
func Pinnings(m *Matrix) []string {
	if len(m.Pinning) == 0 {
		return []string{cellid.PinApart}
	}
	return m.Pinning
}

// Protocols is the protocol axis: [http1] when the matrix sets none.
func Protocols(m *Matrix) []string {
	if len(m.Protocols) == 0 {
		return []string{cellid.ProtoHTTP1}
	}
	return m.Protocols
}

// protocolsOf is the protocol axis of target t's cells: the protocols on
// the axis that t serves, in the axis's order.
func protocolsOf(m *Matrix, t Target) []string {
	var out []string
	for _, p := range Protocols(m) {
		if t.Speaks(p) {
			out = append(out, p)
		}
	}
	return out
}

// RateGenerator is the generator of a fixed-rate cell when the matrix names
// none: an open-loop one, since bombardier's -r is closed-loop and its
// latencies omit the queueing behind a slow answer (coordinated omission).
// bombardier measures a rate only where the generator axis names it.
const RateGenerator = "openloop"

// generatorsAt is the generator axis of cells at rate: Generators, with
// the default generator replaced by RateGenerator at a fixed rate when the
// matrix names no generator.
func generatorsAt(m *Matrix, rate int) []string {
	gens := Generators(m)
	if rate > 0 && len(m.Generators) == 0 {
		gens = slices.Clone(gens)
		gens[0] = RateGenerator
		gens = slices.Compact(gens)
	}
	return gens
}

// HTTP2Generator measures an HTTP/2 cell when the matrix names no
// generator: bombardier speaks no HTTP/2, and would skip every such cell.
const HTTP2Generator = "h2load"

// speaking is the generator of a cell over proto: gen, or HTTP2Generator
// in place of the default generator over h2 and h2c when the matrix names
// no generator axis and no cross-check (which would then measure the cell
// twice with one tool).
func speaking(m *Matrix, gen, proto string) string {
	if len(m.Generators) == 0 && m.Crosscheck == "" && gen == cellid.DefaultGenerator && cellid.HTTP2(proto) {
		return HTTP2Generator
	}
	return gen
}

// MaxCells is how many cells a run may have unless --max-cells says more.
const MaxCells = 10000

// Count is how many cells Expand would list, computed without listing them
// and saturating at math.MaxInt64, so that a matrix of absurd axes is
// refused before it takes the machine's memory.
func Count(m *Matrix, only Selector) int64 {
	mul := func(a, b int64) int64 {
		if a == 0 || b == 0 {
			return 0
		}
		if a > math.MaxInt64/b {
			return math.MaxInt64
		}
		return a * b
	}
	perCell := mul(mul(mul(mul(int64(len(m.CPUs)), int64(len(m.Connections))), int64(len(keepAlive(m)))), int64(len(rates(m)))), int64(len(Generators(m))*len(Pinnings(m))))
	perCell = mul(mul(perCell, int64(len(requestCounts(m)))), int64(len(loadgenCounts(m))))
	var total int64
	for _, t := range m.Targets {
		perCell := mul(perCell, int64(len(protocolsOf(m, t))))
		for _, variant := range t.variantNames() {
			for _, s := range m.Scenarios {
				c := Cell{Key: cellid.Key{Target: t.Name, Variant: variant, Scenario: s.Name}}
				if !t.Serves(s.Name) || !only.Match(c) || !m.ProfileOnly.Match(c) {
					continue
				}
				n := perCell
				for _, p := range s.Params {
					n = mul(n, int64(len(p.Values)))
				}
				if len(m.Control) > 0 && m.Control.Match(c) {
					n = mul(n, 2)
				}
				if total += n; total < 0 {
					return math.MaxInt64
				}
			}
		}
	}
	return total
}

// combinations is the cartesian product of the params' values, the first
// param varying slowest; one empty combination when there are none.
func combinations(params []Param) [][]KV {
	out := [][]KV{nil}
	for _, p := range params {
		var next [][]KV
		for _, prefix := range out {
			for _, v := range p.Values {
				next = append(next, append(slices.Clone(prefix), KV{Name: p.Name, Value: v}))
			}
		}
		out = next
	}
	return out
}

// Selector picks cells by name. It is a comma-separated list of terms; a
// cell is picked when any term matches. A term without a slash matches a
// target, "target:variant" or scenario name (shell glob); a term "T/S"
// matches target (or target:variant) T and scenario S, each a glob; a
// term AXIS=VALUE matches the cells with that value of a declared axis
// (revision=HEAD~1). The empty selector picks every cell.
type Selector []string

// ParseSelector splits --only's value. "" is no selection (every cell);
// a value of commas and blanks alone names nothing, and is an error rather
// than a selection of every cell.
func ParseSelector(s string) (Selector, error) {
	if s != "" && len(terms(s)) == 0 {
		return nil, fmt.Errorf("--only %q names no cell: give NAME or TARGET/SCENARIO globs, comma-separated", s)
	}
	var sel Selector
	for _, term := range terms(s) {
		for _, part := range strings.Split(term, "/") {
			if _, err := path.Match(part, ""); err != nil {
				return nil, fmt.Errorf("--only %q: bad pattern %q", s, part)
			}
		}
		if strings.Count(term, "/") > 1 {
			return nil, fmt.Errorf("--only %q: a term is NAME or TARGET/SCENARIO, got %q", s, term)
		}
		sel = append(sel, term)
	}
	return sel, nil
}

// terms splits a comma-separated selector into its non-empty terms.
func terms(s string) []string {
	var out []string
	for _, term := range strings.Split(s, ",") {
		if term = strings.TrimSpace(term); term != "" {
			out = append(out, term)
		}
	}
	return out
}

// Match reports whether the selector picks c.
func (sel Selector) Match(c Cell) bool {
	if len(sel) == 0 {
		return true
	}
	for _, term := range sel {
		if a, value, ok := axisTerm(term); ok {
			if c.Key.Axis(a) == value {
				return true
			}
		} else if strings.Count(term, "/") > 1 { // a cell id, from a control
			if glob(term, c.ID()) {
				return true
			}
		} else if t, s, ok := strings.Cut(term, "/"); ok {
			if (glob(t, c.Target) || glob(t, c.TargetName())) && glob(s, c.Scenario) {
				return true
			}
		} else if glob(term, c.Target) || glob(term, c.TargetName()) || glob(term, c.Scenario) {
			return true
		}
	}
	return false
}

// axisTerm reads a selector term AXIS=VALUE naming a declared axis's
// value (revision=HEAD~1).
func axisTerm(term string) (axis.Axis, string, bool) {
	name, value, ok := strings.Cut(term, "=")
	if !ok || strings.Contains(name, "/") {
		return axis.Axis{}, "", false
	}
	a, declared := axis.Lookup(name)
	return a, value, declared
}

func glob(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}
