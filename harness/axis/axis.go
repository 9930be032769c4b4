// Package axis holds the axes of the matrix that are declared as data: an
// axis is one Axis value, registered by the one file that declares it, and
// the matrix decoder (file, profiles, --set), the expansion into cells, the
// cell id, results.json, the report and compare's gate take it from here.
// Only the code that gives an axis its meaning (what a cell does with its
// value) names it elsewhere.
//
// An axis's values are strings, as the matrix writes them; Check refuses
// what the axis cannot take. The axes older than this package (cpus,
// connections, keepalive, rate, generator, pinning, protocol, requests,
// loadgens) are typed fields of the matrix and of cellid.Key still.
package axis

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Axis is one declared axis.
type Axis struct {
	// Name is its key in matrix.yaml, in a profile and in --set, and its
	// name in results.json's axes and in a cell's id.
	Name string
	// Doc says what it is for, as docs/matrix.md prints it; Example is one
	// value of it in YAML, a list.
	Doc, Example string
	// Default is a cell's value when neither the matrix nor the profile
	// sets the axis. A cell with it shows nothing of the axis in its id,
	// so that ids of runs from before the axis keep theirs.
	Default string
	// Check says what is wrong with value v, "" when nothing is.
	Check func(v string) string
}

// Fragment is what a cell's id adds for value v: "/<name>=<v>", nothing
// for the default.
func (a Axis) Fragment(v string) string {
	if v == a.Default {
		return ""
	}
	return "/" + a.Name + "=" + v
}

var (
	mu         sync.RWMutex
	registered []Axis
)

// name is what an axis may be called: a matrix key in lower case.
var name = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Register declares a; the file that declares an axis calls it from its
// init. It panics when a's name is malformed, taken, or a has no Check:
// a program that declares two axes alike is wrong before it runs.
func Register(a Axis) {
	mu.Lock()
	defer mu.Unlock()
	if !name.MatchString(a.Name) || a.Check == nil || a.Doc == "" || a.Example == "" {
		panic(fmt.Sprintf("axis %q: want a lower-case name, a Doc, an Example and a Check", a.Name))
	}
	if slices.ContainsFunc(registered, func(b Axis) bool { return b.Name == a.Name }) {
		panic(fmt.Sprintf("axis %q declared twice", a.Name))
	}
	if why := a.Check(a.Default); why != "" {
		panic(fmt.Sprintf("axis %q: its default %q: %s", a.Name, a.Default, why))
	}
	registered = append(registered, a)
}

// Unregister removes the axis named n: for tests that declare one.
func Unregister(n string) {
	mu.Lock()
	defer mu.Unlock()
	registered = slices.DeleteFunc(registered, func(a Axis) bool { return a.Name == n })
}

// All is every declared axis, by name: the order of a cell's id
// fragments and of its axes in results.json, which no order of package
// initialisation can change.
func All() []Axis {
	mu.RLock()
	defer mu.RUnlock()
	all := slices.Clone(registered)
	slices.SortFunc(all, func(a, b Axis) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// Lookup is the axis named n.
func Lookup(n string) (Axis, bool) {
	mu.RLock()
	defer mu.RUnlock()
	i := slices.IndexFunc(registered, func(a Axis) bool { return a.Name == n })
	if i < 0 {
		return Axis{}, false
	}
	return registered[i], true
}
