// Package matrix owns matrix.yaml: its schema (version 1), strict decoding
// with file:line:col errors, profiles, and the expansion of a matrix into the
// cells the runner measures. It never talks to Docker.
package matrix

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// SchemaVersion is the only matrix version this harness reads.
const SchemaVersion = 1

// Network modes a run can use.
const (
	NetworkBridge = "bridge" // a user-defined bridge network per run (default)
	NetworkHost   = "host"   // both containers on the host's network (Linux only)
)

// Defaults are the documented values of every optional setting.
var Defaults = Load{
	Warmup:       3 * time.Second,
	Trials:       3,
	Timeout:      2 * time.Second,
	LoadgenCPUs:  1,
	ReadyTimeout: 60 * time.Second,
}

// Matrix is a decoded, validated matrix file.
type Matrix struct {
	File        string             // path as given
	Dir         string             // folder of the file; build paths are relative to it
	Version     int                `json:"version"`
	Images      map[string]string  `json:"images"`
	Network     string             `json:"network"`
	Load        Load               `json:"load"`
	CPUs        []int              `json:"cpus"`
	Connections []int              `json:"connections"`
	Targets     []Target           `json:"targets"`
	Scenarios   []Scenario         `json:"scenarios"`
	Profiles    map[string]Profile `json:"-"`
	Profile     string             `json:"profile,omitempty"` // the profile applied, if any
}

// Load says how each cell is driven.
type Load struct {
	Duration     time.Duration `json:"duration,omitempty"` // per trial; exclusive with Requests
	Requests     int64         `json:"requests,omitempty"` // per trial (bombardier -n)
	Warmup       time.Duration `json:"warmup"`             // one discarded run before the trials; 0 disables it
	Trials       int           `json:"trials"`
	Timeout      time.Duration `json:"timeout"` // per request
	LoadgenCPUs  int           `json:"loadgen_cpus"`
	ReadyTimeout time.Duration `json:"ready_timeout"` // how long a target may take to answer
}

// Target is one server under test.
type Target struct {
	Name      string            `json:"name"`
	Build     string            `json:"build"` // build context, absolute
	BuildRel  string            `json:"-"`     // as written in the file
	Port      int               `json:"port"`
	Env       map[string]string `json:"env,omitempty"`
	Scenarios []string          `json:"scenarios,omitempty"` // the scenarios it serves; empty means all
	Images    []string          `json:"images,omitempty"`    // keys of Matrix.Images its Dockerfile uses
}

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

// Scenario is one request shape and the answer it must get.
type Scenario struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Expect Expect `json:"expect"`
}

// Expect is what a correct answer looks like. Body and JSON are exclusive.
type Expect struct {
	Status      int     `json:"status"`
	ContentType string  `json:"content_type,omitempty"` // media type; parameters such as charset are ignored
	Body        *string `json:"body,omitempty"`         // exact text
	JSON        any     `json:"json,omitempty"`         // JSON equality
}

// Profile is a named override chosen with --profile, resolved against the
// base settings when the file is loaded.
type Profile struct {
	Name        string
	Load        Load
	CPUs        []int
	Connections []int
}

// WithProfile returns a copy of m with the named profile applied.
func (m *Matrix) WithProfile(name string) (*Matrix, error) {
	if name == "" {
		return m, nil
	}
	p, ok := m.Profiles[name]
	if !ok {
		return nil, fmt.Errorf("%s: no profile %q (have: %s)", m.File, name, strings.Join(m.ProfileNames(), ", "))
	}
	c := *m
	c.Load, c.CPUs, c.Connections, c.Profile = p.Load, p.CPUs, p.Connections, name
	return &c, nil
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
