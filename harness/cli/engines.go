package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/runner"
)

// engineFlags choose the engines of a run, overriding the matrix's
// engines and placement.
type engineFlags struct {
	target, loadgen, address, link string
}

func (e *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.target, "target-engine", "", "engine `E` targets run on: an engines key of the matrix, a URL (unix://, tcp://, ssh://user@host) or a docker context name")
	fs.StringVar(&e.loadgen, "loadgen-engine", "", "engine `E` the load generator runs on (same forms as --target-engine), or several, comma-separated, to divide each cell's load among them")
	fs.StringVar(&e.address, "target-address", "", "`ADDR` where the load generator reaches the targets' machine (default: the matrix's address, or the host of a tcp:// or ssh:// URL)")
	fs.StringVar(&e.link, "link", "", "the network between the two machines (`TEXT`), as results should describe it (e.g. \"10 GbE, same rack\")")
}

// placement is where a run puts targets and the load generator.
type placement struct {
	target, loadgen matrix.EngineSpec
	more            []matrix.EngineSpec // further generator engines, when a cell's load comes from several
	machines        *runner.Machines    // nil: one engine
	reserve         int                 // of the one engine
}

// placement resolves the flags against the matrix: a flag names one of its
// engines or gives an engine by URL or context; unset, the matrix's
// placement holds; with neither, the environment's engine runs both.
func (e *engineFlags) placement(m *matrix.Matrix) (placement, error) {
	var p placement
	if m.Placement != nil {
		p.target = m.Engines[m.Placement.Target]
		for _, name := range m.Placement.Loadgens {
			p.more = append(p.more, m.Engines[name])
		}
	}
	if e.target != "" {
		spec, err := pickEngine(m, "target-engine", e.target, "target")
		if err != nil {
			return p, err
		}
		p.target = spec
	}
	if e.loadgen != "" {
		var err error
		if p.more, err = pickEngines(m, e.loadgen); err != nil {
			return p, err
		}
	}
	if len(p.more) > 0 {
		p.loadgen, p.more = p.more[0], p.more[1:]
	}
	if len(p.more) > 0 {
		return p.several(e, m)
	}
	switch {
	case p.target.Host == "" && p.loadgen.Host == "":
		return p, nil // the environment's engine, as always
	case p.target.Host == "":
		p.target = matrix.EngineSpec{Name: "default", Host: "default"}
	case p.loadgen.Host == "":
		p.loadgen = matrix.EngineSpec{Name: "default", Host: "default"}
	}
	if e.address != "" {
		p.target.Address = e.address
	}
	if p.target.Host == p.loadgen.Host {
		p.reserve = p.target.Reserve
		return p, nil
	}
	if p.target.Name == p.loadgen.Name {
		p.target.Name, p.loadgen.Name = "target", "loadgen"
	}
	if p.target.Address == "" {
		return p, usageErr("the targets' engine %s (%s) is not the load generator's: say where the load generator reaches its machine with --target-address or engines.%s.address",
			p.target.Name, p.target.Host, p.target.Name)
	}
	link := e.link
	if link == "" && m.Placement != nil {
		link = m.Placement.Link
	}
	p.machines = &runner.Machines{Target: p.target, Loadgen: p.loadgen, Link: link}
	return p, nil
}

// placed is placement, with the loadgens axis checked against its
// generator engines: a usage error, before any engine is asked.
func (e *engineFlags) placed(m *matrix.Matrix) (placement, error) {
	p, err := e.placement(m)
	if err == nil {
		if err = m.CheckLoadgens(p.generators()); err != nil {
			err = withCode(ExitUsage, err)
		}
	}
	return p, err
}

// generators is how many generator engines the placement has: the
// loadgens axis's values may not pass it.
func (p placement) generators() int {
	if p.machines == nil {
		return 1
	}
	return 1 + len(p.machines.More)
}

// pickEngine reads an engine flag's value: one of the matrix's engines
// keys, or an engine by URL (named role) or by context name.
func pickEngine(m *matrix.Matrix, flagName, value, role string) (matrix.EngineSpec, error) {
	if spec, ok := m.Engines[value]; ok {
		return spec, nil
	}
	if err := matrix.CheckEngine(value); err != nil {
		return matrix.EngineSpec{}, usageErr("--%s: %v", flagName, err)
	}
	name := value
	if engine.IsURL(value) {
		name = role
	} else if value != "default" {
		// A name that is neither a key nor a context is most likely a
		// mistyped key: say so now, not later as a missing address.
		if _, err := engine.ContextHost(value); err != nil {
			return matrix.EngineSpec{}, usageErr("--%s %s: not an engines key of %s (%s), nor a docker context (%v)", flagName, value, matrixName(m), engineKeys(m), err)
		}
	}
	return matrix.EngineSpec{Name: name, Host: value, Address: matrix.EngineHost(value)}, nil
}

// matrixName is how an error names m's file.
func matrixName(m *matrix.Matrix) string {
	if m.File == "" {
		return "the matrix"
	}
	return m.File
}

// engineKeys lists m's engines keys for an error: "its keys: a, b".
func engineKeys(m *matrix.Matrix) string {
	if len(m.Engines) == 0 {
		return "it has no engines: section"
	}
	return "its keys: " + strings.Join(slices.Sorted(maps.Keys(m.Engines)), ", ")
}

// pickEngines reads --loadgen-engine: one engine, or several separated by
// commas, each as pickEngine reads it; of several, one given by URL is
// named loadgen1, loadgen2… by its place.
func pickEngines(m *matrix.Matrix, value string) ([]matrix.EngineSpec, error) {
	items := strings.Split(value, ",")
	var out []matrix.EngineSpec
	for i, item := range items {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, usageErr("--loadgen-engine %q: engine %d of %d is empty", value, i+1, len(items))
		}
		role := "loadgen"
		if len(items) > 1 {
			role = fmt.Sprintf("loadgen%d", i+1)
		}
		spec, err := pickEngine(m, "loadgen-engine", item, role)
		if err != nil {
			return nil, err
		}
		out = append(out, spec)
	}
	return out, nil
}

// several is the placement of a load from several generator engines: a
// generator on the targets' engine takes its name (one side), no engine
// may be given twice, and the targets' machine needs an address as soon
// as any generator runs elsewhere.
func (p placement) several(e *engineFlags, m *matrix.Matrix) (placement, error) {
	if p.target.Host == "" {
		p.target = matrix.EngineSpec{Name: "default", Host: "default"}
	}
	if e.address != "" {
		p.target.Address = e.address
	}
	gens := append([]*matrix.EngineSpec{&p.loadgen}, pointers(p.more)...)
	seen := map[string]string{}
	elsewhere := ""
	for _, g := range gens {
		if g.Host == p.target.Host {
			g.Name = p.target.Name
		} else if elsewhere == "" {
			elsewhere = g.Name
		}
		if first, dup := seen[g.Host]; dup {
			return p, usageErr("--loadgen-engine: engines %s and %s are one engine (%s): name each generator engine once", first, g.Name, g.Host)
		}
		seen[g.Host] = g.Name
	}
	if elsewhere != "" && p.target.Address == "" {
		return p, usageErr("the load generator on engine %s is not on the targets' engine %s (%s): say where it reaches the targets' machine with --target-address or engines.%s.address",
			elsewhere, p.target.Name, p.target.Host, p.target.Name)
	}
	link := e.link
	if link == "" && m.Placement != nil {
		link = m.Placement.Link
	}
	p.machines = &runner.Machines{Target: p.target, Loadgen: p.loadgen, Link: link, More: p.more}
	return p, nil
}

func pointers(specs []matrix.EngineSpec) []*matrix.EngineSpec {
	out := make([]*matrix.EngineSpec, len(specs))
	for i := range specs {
		out[i] = &specs[i]
	}
	return out
}

// dialed are a run's engines: the targets', the load generator's when it
// is another (nil otherwise), and each further generator's (nil where it
// is the targets').
type dialed struct {
	tgt, lg *engine.Engine
	more    []*engine.Engine
}

// Close closes every engine dialed.
func (d dialed) Close() {
	for _, e := range append([]*engine.Engine{d.tgt, d.lg}, d.more...) {
		if e != nil {
			e.Close()
		}
	}
}

// connect dials the placement's engines: the targets' and, on several
// machines, each load generator's that is not the targets'.
func (p placement) connect(ctx context.Context) (d dialed, err error) {
	if p.target.Host == "" {
		d.tgt, err = engine.Connect(ctx)
		return d, err
	}
	if d.tgt, err = engine.Dial(ctx, p.target.Name, p.target.Host); err != nil {
		return d, err
	}
	ms := p.machines
	if ms == nil {
		return d, nil
	}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	// "default" is recorded as what it stands for (DOCKER_HOST, or the socket).
	ms.Target.Host = d.tgt.Host()
	dial := func(spec *matrix.EngineSpec) (*engine.Engine, error) {
		if spec.Name == p.target.Name {
			spec.Host = d.tgt.Host()
			return nil, nil
		}
		e, err := engine.Dial(ctx, spec.Name, spec.Host)
		if err == nil {
			spec.Host = e.Host()
		}
		return e, err
	}
	if d.lg, err = dial(&ms.Loadgen); err != nil {
		return d, err
	}
	for i := range ms.More {
		e, err := dial(&ms.More[i])
		if d.more = append(d.more, e); err != nil {
			return d, err
		}
	}
	return d, nil
}

// moreEngines are the further generator engines of d for the runner,
// each with a copier from the targets' engine.
func (d dialed) moreEngines(log io.Writer) []runner.MoreEngine {
	var out []runner.MoreEngine
	for _, e := range d.more {
		m := runner.MoreEngine{Engine: runner.Split(e)}
		if copy := copier(d.tgt, e, log); copy != nil {
			m.Copy = func(ctx context.Context, ref string) (bool, error) { return copy(ctx, ref, true) }
		}
		out = append(out, m)
	}
	return out
}

// copier brings an image from one of two engines to the other when the
// other has it and the receiving one does not: how stand-ins built on one
// machine reach the other without a registry.
func copier(tgt, lg *engine.Engine, log io.Writer) func(ctx context.Context, ref string, toLoadgen bool) (bool, error) {
	if lg == nil {
		return nil
	}
	return func(ctx context.Context, ref string, toLoadgen bool) (bool, error) {
		src, dst := lg, tgt
		if toLoadgen {
			src, dst = tgt, lg
		}
		if _, _, have, err := dst.ImageLabels(ctx, ref); err != nil || have {
			return false, err
		}
		if _, _, has, err := src.ImageLabels(ctx, ref); err != nil || !has {
			return false, err
		}
		fmt.Fprintf(log, "copying image %s from engine %s to engine %s\n", ref, src.Name, dst.Name)
		if err := dst.CopyImage(ctx, src, ref); err != nil {
			return false, err
		}
		return true, nil
	}
}
