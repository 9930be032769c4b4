package matrix

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Error is one problem in a matrix file, at a position.
type Error struct {
	File      string
	Line, Col int
	Field     string // dotted key path, e.g. "load.duration"
	Msg       string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d:%d: %s: %s", e.File, e.Line, e.Col, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes matrix text; path names it in errors and anchors build paths.
func Parse(path string, data []byte) (*Matrix, error) {
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	d := &decoder{file: path}
	m := &Matrix{File: path, Dir: dir, Network: NetworkBridge, Load: Defaults}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, Errors{{File: path, Line: 1, Col: 1, Msg: "empty matrix file"}}
	}
	d.decodeMatrix(root.Content[0], m)
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool {
			a, b := d.errs[i], d.errs[j]
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		return nil, d.errs
	}
	return m, nil
}

type decoder struct {
	file string
	errs Errors
}

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.file, Line: n.Line, Col: n.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// fields walks a mapping, reporting duplicate and unknown keys, and calls the
// handler of each known key with its value node.
func (d *decoder) fields(n *yaml.Node, path string, handlers map[string]func(key, val *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping, got %s", kindName(n))
		return
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := join(path, k.Value)
		if prev, dup := seen[k.Value]; dup {
			d.errorf(k, field, "duplicate key (first at line %d)", prev.Line)
			continue
		}
		seen[k.Value] = k
		h, ok := handlers[k.Value]
		if !ok {
			d.errorf(k, field, "unknown key (known: %s)", knownKeys(handlers))
			continue
		}
		h(k, v)
	}
}

// entries walks a mapping of names to values (targets, scenarios, images…),
// reporting duplicate names, in file order.
func (d *decoder) entries(n *yaml.Node, path string, each func(name string, key, val *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping of names, got %s", kindName(n))
		return
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if prev, dup := seen[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "duplicate name (first at line %d)", prev.Line)
			continue
		}
		seen[k.Value] = k
		if !validName.MatchString(k.Value) {
			d.errorf(k, join(path, k.Value), "name must match %s", validName)
			continue
		}
		each(k.Value, k, v)
	}
}

var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

func (d *decoder) scalar(n *yaml.Node, field string) bool {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, field, "want a scalar, got %s", kindName(n))
		return false
	}
	return true
}

func (d *decoder) str(n *yaml.Node, field string) string {
	if !d.scalar(n, field) {
		return ""
	}
	if n.Tag != "!!str" {
		d.errorf(n, field, "want a string, got %s %q", strings.TrimPrefix(n.Tag, "!!"), n.Value)
		return ""
	}
	return n.Value
}

func (d *decoder) integer(n *yaml.Node, field string, min int64) (int64, bool) {
	if !d.scalar(n, field) {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || n.Tag != "!!int" {
		d.errorf(n, field, "want an integer, got %q", n.Value)
		return 0, false
	}
	if v < min {
		d.errorf(n, field, "must be at least %d, got %d", min, v)
		return 0, false
	}
	return v, true
}

func (d *decoder) duration(n *yaml.Node, field string, allowZero bool) (time.Duration, bool) {
	if !d.scalar(n, field) {
		return 0, false
	}
	v, err := time.ParseDuration(n.Value)
	if n.Value == "0" {
		v, err = 0, nil
	}
	if err != nil {
		d.errorf(n, field, "invalid duration %q (write e.g. 10s, 500ms, 2m)", n.Value)
		return 0, false
	}
	if v < 0 || v == 0 && !allowZero {
		d.errorf(n, field, "must be positive, got %s", n.Value)
		return 0, false
	}
	return v, true
}

func (d *decoder) intList(n *yaml.Node, field string) []int {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, field, "want a list of integers, got %s", kindName(n))
		return nil
	}
	if len(n.Content) == 0 {
		d.errorf(n, field, "must not be empty")
		return nil
	}
	var out []int
	seen := map[int64]bool{}
	for i, e := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		if v, ok := d.integer(e, f, 1); ok {
			if seen[v] {
				d.errorf(e, f, "duplicate value %d", v)
				continue
			}
			seen[v] = true
			out = append(out, int(v))
		}
	}
	return out
}

func (d *decoder) strMap(n *yaml.Node, field string) map[string]string {
	out := map[string]string{}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, field, "want a mapping of strings, got %s", kindName(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f := join(field, k.Value)
		if _, dup := out[k.Value]; dup {
			d.errorf(k, f, "duplicate key")
			continue
		}
		if d.scalar(v, f) {
			out[k.Value] = v.Value
		}
	}
	return out
}

func (d *decoder) decodeMatrix(n *yaml.Node, m *Matrix) {
	var versionNode, loadNode, connNode, targetsNode, scenariosNode, profilesNode *yaml.Node
	d.fields(n, "", map[string]func(k, v *yaml.Node){
		"version": func(k, v *yaml.Node) {
			versionNode = v
			if ver, ok := d.integer(v, "version", 0); ok {
				m.Version = int(ver)
				if ver != SchemaVersion {
					d.errorf(v, "version", "unsupported schema version %d (this harness reads %d)", ver, SchemaVersion)
				}
			}
		},
		"images": func(k, v *yaml.Node) {
			m.Images = map[string]string{}
			d.entries(v, "images", func(name string, _, val *yaml.Node) {
				if ref := d.str(val, "images."+name); ref != "" {
					m.Images[name] = ref
				}
			})
		},
		"network": func(k, v *yaml.Node) {
			if s := d.str(v, "network"); s != "" {
				if Network(s) != NetworkBridge && Network(s) != NetworkHost {
					d.errorf(v, "network", "want %q or %q, got %q", NetworkBridge, NetworkHost, s)
				}
				m.Network = Network(s)
			}
		},
		"load": func(k, v *yaml.Node) {
			loadNode = v
			if !d.decodeLoad(v, "load", &m.Load) && v.Kind == yaml.MappingNode {
				d.errorf(k, "load", "set one of duration or requests")
			}
		},
		"cpus":        func(k, v *yaml.Node) { m.CPUs = d.intList(v, "cpus") },
		"connections": func(k, v *yaml.Node) { connNode = v; m.Connections = d.intList(v, "connections") },
		"targets":     func(k, v *yaml.Node) { targetsNode = v },
		"scenarios":   func(k, v *yaml.Node) { scenariosNode = v },
		"profiles":    func(k, v *yaml.Node) { profilesNode = v },
	})
	if d.errs != nil && n.Kind != yaml.MappingNode {
		return
	}
	if versionNode == nil {
		d.errorf(n, "version", "missing (write version: %d)", SchemaVersion)
	}
	if loadNode == nil {
		d.errorf(n, "load", "missing")
	}
	if m.CPUs == nil {
		m.CPUs = []int{1}
	}
	if connNode == nil {
		d.errorf(n, "connections", "missing")
	}
	if scenariosNode == nil {
		d.errorf(n, "scenarios", "missing")
	} else {
		d.entries(scenariosNode, "scenarios", func(name string, k, v *yaml.Node) {
			m.Scenarios = append(m.Scenarios, d.decodeScenario(name, v))
		})
	}
	if targetsNode == nil {
		d.errorf(n, "targets", "missing")
	} else {
		d.entries(targetsNode, "targets", func(name string, k, v *yaml.Node) {
			m.Targets = append(m.Targets, d.decodeTarget(name, k, v, m))
		})
	}
	m.Profiles = map[string]Profile{}
	if profilesNode != nil {
		d.entries(profilesNode, "profiles", func(name string, k, v *yaml.Node) {
			m.Profiles[name] = d.decodeProfile(name, v, m)
		})
	}
}

// decodeLoad overlays the keys present in n onto l and reports whether n
// says how long to run (duration or requests).
func (d *decoder) decodeLoad(n *yaml.Node, path string, l *Load) (saysHowLong bool) {
	var dur, req *yaml.Node
	d.fields(n, path, map[string]func(k, v *yaml.Node){
		"duration": func(k, v *yaml.Node) {
			dur = v
			if x, ok := d.duration(v, join(path, "duration"), false); ok {
				if x < time.Second {
					d.errorf(v, join(path, "duration"), "bombardier runs for at least 1s, got %s", x)
				}
				l.Duration, l.Requests = x, 0
			}
		},
		"requests": func(k, v *yaml.Node) {
			req = v
			if x, ok := d.integer(v, join(path, "requests"), 1); ok {
				l.Requests, l.Duration = x, 0
			}
		},
		"warmup": func(k, v *yaml.Node) {
			if x, ok := d.duration(v, join(path, "warmup"), true); ok {
				if x > 0 && x < time.Second {
					d.errorf(v, join(path, "warmup"), "bombardier runs for at least 1s; use 0 for no warm-up, got %s", x)
				}
				l.Warmup = x
			}
		},
		"trials": func(k, v *yaml.Node) {
			if x, ok := d.integer(v, join(path, "trials"), 1); ok {
				l.Trials = int(x)
			}
		},
		"timeout": func(k, v *yaml.Node) {
			if x, ok := d.duration(v, join(path, "timeout"), false); ok {
				l.Timeout = x
			}
		},
		"loadgen_cpus": func(k, v *yaml.Node) {
			if x, ok := d.integer(v, join(path, "loadgen_cpus"), 1); ok {
				l.LoadgenCPUs = int(x)
			}
		},
		"aggregate": func(k, v *yaml.Node) {
			if x := d.str(v, join(path, "aggregate")); x != "" {
				if Aggregate(x) != AggregateMedian && Aggregate(x) != AggregateBest {
					d.errorf(v, join(path, "aggregate"), "want %q or %q, got %q", AggregateMedian, AggregateBest, x)
				}
				l.Aggregate = Aggregate(x)
			}
		},
		"ready_timeout": func(k, v *yaml.Node) {
			if x, ok := d.duration(v, join(path, "ready_timeout"), false); ok {
				l.ReadyTimeout = x
			}
		},
	})
	if dur != nil && req != nil {
		d.errorf(req, join(path, "requests"), "set either duration or requests, not both")
	}
	return dur != nil || req != nil
}

func (d *decoder) decodeScenario(name string, n *yaml.Node) Scenario {
	s := Scenario{Name: name}
	path := "scenarios." + name
	var pathNode, expectNode *yaml.Node
	d.fields(n, path, map[string]func(k, v *yaml.Node){
		"path": func(k, v *yaml.Node) {
			pathNode = v
			if s.Path = d.str(v, join(path, "path")); s.Path != "" && !strings.HasPrefix(s.Path, "/") {
				d.errorf(v, join(path, "path"), "must start with /, got %q", s.Path)
			}
		},
		"expect": func(k, v *yaml.Node) { expectNode = v; s.Expect = d.decodeExpect(v, join(path, "expect")) },
		"params": func(k, v *yaml.Node) {
			d.entries(v, join(path, "params"), func(pname string, _, pv *yaml.Node) {
				f := join(path, "params."+pname)
				if pv.Kind != yaml.SequenceNode || len(pv.Content) == 0 {
					d.errorf(pv, f, "want a non-empty list of values")
					return
				}
				p := Param{Name: pname}
				for i, e := range pv.Content {
					if d.scalar(e, fmt.Sprintf("%s[%d]", f, i)) {
						if slices.Contains(p.Values, e.Value) {
							d.errorf(e, fmt.Sprintf("%s[%d]", f, i), "duplicate value %q", e.Value)
							continue
						}
						p.Values = append(p.Values, e.Value)
					}
				}
				s.Params = append(s.Params, p)
			})
		},
	})
	if n.Kind == yaml.MappingNode {
		for _, ref := range paramRef.FindAllStringSubmatch(s.Path+" "+fmt.Sprint(s.Expect.JSONArray), -1) {
			if !slices.ContainsFunc(s.Params, func(p Param) bool { return p.Name == ref[1] }) {
				d.errorf(n, path, "{%s} names no param of this scenario", ref[1])
			}
		}
		if pathNode == nil {
			d.errorf(n, join(path, "path"), "missing")
		}
		if expectNode == nil {
			d.errorf(n, join(path, "expect"), "missing: a scenario must say what a correct answer is")
		}
	}
	return s
}

func (d *decoder) decodeExpect(n0 *yaml.Node, path string) Expect {
	n := n0
	e := Expect{Status: 200}
	var body, js, arr *yaml.Node
	d.fields(n, path, map[string]func(k, v *yaml.Node){
		"status": func(k, v *yaml.Node) {
			if x, ok := d.integer(v, join(path, "status"), 100); ok {
				if x > 599 {
					d.errorf(v, join(path, "status"), "not an HTTP status: %d", x)
				}
				e.Status = int(x)
			}
		},
		"content_type": func(k, v *yaml.Node) { e.ContentType = d.str(v, join(path, "content_type")) },
		"body": func(k, v *yaml.Node) {
			body = v
			if d.scalar(v, join(path, "body")) {
				s := v.Value
				e.Body = &s
			}
		},
		"json": func(k, v *yaml.Node) {
			js = v
			var x any
			if err := v.Decode(&x); err != nil {
				d.errorf(v, join(path, "json"), "%v", err)
				return
			}
			e.JSON = normalizeJSON(x)
		},
		"json_array": func(k, v *yaml.Node) {
			arr = v
			a := &JSONArray{}
			d.fields(v, join(path, "json_array"), map[string]func(k, v *yaml.Node){
				"length": func(k, v *yaml.Node) {
					if d.scalar(v, join(path, "json_array.length")) {
						a.Length = v.Value
						if _, err := strconv.Atoi(v.Value); err != nil && !paramRef.MatchString(v.Value) {
							d.errorf(v, join(path, "json_array.length"), "want a number or {param}, got %q", v.Value)
						}
					}
				},
				"keys": func(k, v *yaml.Node) {
					if v.Kind != yaml.SequenceNode {
						d.errorf(v, join(path, "json_array.keys"), "want a list of keys")
						return
					}
					for i, e := range v.Content {
						if x := d.str(e, fmt.Sprintf("%s.json_array.keys[%d]", path, i)); x != "" {
							a.Keys = append(a.Keys, x)
						}
					}
				},
			})
			e.JSONArray = a
		},
	})
	if btoi(body != nil)+btoi(js != nil)+btoi(arr != nil) > 1 {
		d.errorf(n0, path, "set only one of body, json and json_array")
	}
	return e
}

// normalizeJSON turns YAML-decoded values into the shapes encoding/json
// produces (map[string]any, []any, float64), so the two compare equal.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	default:
		return v
	}
}

func (d *decoder) decodeTarget(name string, key, n *yaml.Node, m *Matrix) Target {
	t := Target{Name: name}
	path := "targets." + name
	var buildNode, portNode, servicesNode, entryNode *yaml.Node
	single := Service{Name: name, Replicas: 1}
	d.fields(n, path, map[string]func(k, v *yaml.Node){
		"build": func(k, v *yaml.Node) { buildNode = v; single.BuildRel = d.str(v, join(path, "build")) },
		"port": func(k, v *yaml.Node) {
			portNode = v
			t.Port = d.port(v, join(path, "port"))
		},
		"env":      func(k, v *yaml.Node) { t.Env = d.strMap(v, join(path, "env")) },
		"services": func(k, v *yaml.Node) { servicesNode = v },
		"entry":    func(k, v *yaml.Node) { entryNode = v; t.Entry = d.str(v, join(path, "entry")) },
		"variants": func(k, v *yaml.Node) {
			d.entries(v, join(path, "variants"), func(vname string, _, vn *yaml.Node) {
				vr := Variant{Name: vname}
				d.fields(vn, join(path, "variants."+vname), map[string]func(k, v *yaml.Node){
					"env": func(k, v *yaml.Node) { vr.Env = d.strMap(v, join(path, "variants."+vname+".env")) },
				})
				t.Variants = append(t.Variants, vr)
			})
		},
		"scenarios": func(k, v *yaml.Node) {
			if v.Kind != yaml.SequenceNode {
				d.errorf(v, join(path, "scenarios"), "want a list of scenario names, got %s", kindName(v))
				return
			}
			for i, e := range v.Content {
				if s := d.str(e, fmt.Sprintf("%s.scenarios[%d]", path, i)); s != "" {
					t.Scenarios = append(t.Scenarios, s)
				}
			}
		},
	})
	if n.Kind != yaml.MappingNode {
		return t
	}
	if portNode == nil {
		d.errorf(key, join(path, "port"), "missing: the port the server listens on")
	}
	switch {
	case servicesNode != nil && buildNode != nil:
		d.errorf(buildNode, join(path, "build"), "set either build (one service) or services, not both")
	case servicesNode != nil:
		d.entries(servicesNode, join(path, "services"), func(sname string, _, sn *yaml.Node) {
			t.Services = append(t.Services, d.decodeService(join(path, "services."+sname), sname, sn, m))
		})
		if entryNode == nil {
			d.errorf(key, join(path, "entry"), "missing: the service the load generator hits")
		} else if t.Entry != "" && !slices.ContainsFunc(t.Services, func(s Service) bool { return s.Name == t.Entry }) {
			d.errorf(entryNode, join(path, "entry"), "no service named %q", t.Entry)
		}
	case buildNode != nil:
		if entryNode != nil {
			d.errorf(entryNode, join(path, "entry"), "entry goes with services")
		}
		single.Build, single.Images = d.buildDir(buildNode, join(path, "build"), single.BuildRel, m)
		t.Services, t.Entry = []Service{single}, name
	default:
		d.errorf(key, join(path, "build"), "missing: the folder holding the target's Dockerfile (or services)")
	}
	known := map[string]bool{}
	for _, s := range m.Scenarios {
		known[s.Name] = true
	}
	for _, s := range t.Scenarios {
		if !known[s] {
			d.errorf(n, join(path, "scenarios"), "no scenario named %q", s)
		}
	}
	return t
}

func (d *decoder) decodeService(path, name string, n *yaml.Node, m *Matrix) Service {
	s := Service{Name: name, Replicas: 1}
	var buildNode *yaml.Node
	d.fields(n, path, map[string]func(k, v *yaml.Node){
		"build": func(k, v *yaml.Node) { buildNode = v; s.BuildRel = d.str(v, join(path, "build")) },
		"replicas": func(k, v *yaml.Node) {
			if x, ok := d.integer(v, join(path, "replicas"), 1); ok {
				s.Replicas = int(x)
			}
		},
		"env":  func(k, v *yaml.Node) { s.Env = d.strMap(v, join(path, "env")) },
		"port": func(k, v *yaml.Node) { s.Port = d.port(v, join(path, "port")) },
	})
	if n.Kind != yaml.MappingNode {
		return s
	}
	if buildNode == nil {
		d.errorf(n, join(path, "build"), "missing: the folder holding the service's Dockerfile")
	} else {
		s.Build, s.Images = d.buildDir(buildNode, join(path, "build"), s.BuildRel, m)
	}
	return s
}

func (d *decoder) port(v *yaml.Node, field string) int {
	x, ok := d.integer(v, field, 1)
	if !ok {
		return 0
	}
	if x > 65535 {
		d.errorf(v, field, "not a TCP port: %d", x)
	}
	return int(x)
}

// buildDir resolves a build folder against the matrix's folder, checks it
// has a Dockerfile, and lists the images keys that Dockerfile uses.
func (d *decoder) buildDir(n *yaml.Node, field, rel string, m *Matrix) (string, []string) {
	if rel == "" {
		return "", nil
	}
	dir := rel
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(m.Dir, rel)
	}
	df, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		d.errorf(n, field, "no Dockerfile in %s", dir)
		return dir, nil
	case err != nil:
		d.errorf(n, field, "%v", err)
		return dir, nil
	}
	var keys []string
	for _, key := range ImageKeys(df) {
		if _, ok := m.Images[key]; !ok {
			d.errorf(n, field, "its Dockerfile uses ${%s_IMAGE} but images has no key %q", strings.ToUpper(key), key)
			continue
		}
		keys = append(keys, key)
	}
	return dir, keys
}

var paramRef = regexp.MustCompile(`\{([a-z0-9_]+)\}`)

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

var imageArg = regexp.MustCompile(`\$\{?([A-Z0-9_]+)_IMAGE\}?`)

// ImageKeys lists the images keys a Dockerfile refers to through
// ${<KEY>_IMAGE} build arguments, lower-cased, sorted, without repeats.
func ImageKeys(dockerfile []byte) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range imageArg.FindAllSubmatch(dockerfile, -1) {
		k := strings.ToLower(string(m[1]))
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func (d *decoder) decodeProfile(name string, n *yaml.Node, m *Matrix) Profile {
	p := Profile{Name: name, Load: m.Load, CPUs: m.CPUs, Connections: m.Connections}
	path := "profiles." + name
	d.fields(n, path, map[string]func(k, v *yaml.Node){
		"load":        func(k, v *yaml.Node) { d.decodeLoad(v, join(path, "load"), &p.Load) },
		"cpus":        func(k, v *yaml.Node) { p.CPUs = d.intList(v, join(path, "cpus")) },
		"connections": func(k, v *yaml.Node) { p.Connections = d.intList(v, join(path, "connections")) },
		"only": func(k, v *yaml.Node) {
			sel, err := ParseSelector(d.str(v, join(path, "only")))
			if err != nil {
				d.errorf(v, join(path, "only"), "%v", err)
			}
			p.Only = sel
		},
	})
	return p
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

func knownKeys[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
