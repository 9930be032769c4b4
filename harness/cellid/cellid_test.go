package cellid

import (
	"testing"

	"github.com/webbench/webbench/harness/axis"
)

// The id is what resume and compare match cells by: every field that
// tells two cells apart must change it, and defaults must leave it as
// runs before that field wrote it.
func TestID(t *testing.T) {
	base := Key{Target: "node-http", Variant: "single", Scenario: "json", Params: []KV{{"records", "10"}, {"x", "y"}}, CPUs: 1, Connections: 64}
	cases := []struct {
		edit func(k *Key)
		want string
	}{
		{func(k *Key) {}, "node-http:single/json?records=10&x=y/1cpu/c64"},
		{func(k *Key) { k.Variant, k.Params = "", nil }, "node-http/json/1cpu/c64"},
		{func(k *Key) { k.Close = true }, "node-http:single/json?records=10&x=y/1cpu/c64/close"},
		{func(k *Key) { k.Rate = 500 }, "node-http:single/json?records=10&x=y/1cpu/c64/r500"},
		{func(k *Key) { k.Requests = 1000000 }, "node-http:single/json?records=10&x=y/1cpu/c64/n1000000"},
		{func(k *Key) { k.Loadgens = 1 }, "node-http:single/json?records=10&x=y/1cpu/c64/1lg"},
		{func(k *Key) { k.Loadgens, k.Requests, k.Generator = 2, 5, "wrk" }, "node-http:single/json?records=10&x=y/1cpu/c64/n5/2lg/wrk"},
		{func(k *Key) { k.Generator = "wrk" }, "node-http:single/json?records=10&x=y/1cpu/c64/wrk"},
		{func(k *Key) { k.Generator = DefaultGenerator }, "node-http:single/json?records=10&x=y/1cpu/c64"},
		{func(k *Key) { k.Protocol = ProtoH2 }, "node-http:single/json?records=10&x=y/1cpu/c64/h2"},
		{func(k *Key) { k.Protocol = ProtoHTTP1 }, "node-http:single/json?records=10&x=y/1cpu/c64"},
		{func(k *Key) { k.Pinning = PinTogether }, "node-http:single/json?records=10&x=y/1cpu/c64/together"},
		{func(k *Key) { k.Pinning = PinNone }, "node-http:single/json?records=10&x=y/1cpu/c64/unpinned"},
		{func(k *Key) { k.Pinning = PinApart }, "node-http:single/json?records=10&x=y/1cpu/c64"},
		{func(k *Key) { k.Control = true }, "node-http:single/json?records=10&x=y/1cpu/c64 (control)"},
		{func(k *Key) {
			k.Rate, k.Generator, k.Protocol, k.Pinning, k.Control = 9, "openloop", ProtoH2C, PinNone, true
		},
			"node-http:single/json?records=10&x=y/1cpu/c64/r9/openloop/h2c/unpinned (control)"},
	}
	for _, c := range cases {
		k := base
		c.edit(&k)
		if got := k.ID(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// A baseline differs from its cell in the one dimension the relative
// names, and in nothing else.
func TestRelativeBase(t *testing.T) {
	k := Key{Target: "a", Variant: "v", Scenario: "s", CPUs: 1, Connections: 1024, Protocol: ProtoH2, Requests: 10, Loadgens: 2}
	cases := []struct {
		rel  Relative
		dim  string
		want string
	}{
		{Relative{Scenario: "p"}, "scenario", "a:v/p/1cpu/c1024/n10/2lg/h2"},
		{Relative{Variant: "w"}, "variant", "a:w/s/1cpu/c1024/n10/2lg/h2"},
		{Relative{Target: "b"}, "target", "b:v/s/1cpu/c1024/n10/2lg/h2"},
		{Relative{Connections: 512}, "connections", "a:v/s/1cpu/c512/n10/2lg/h2"},
		{Relative{Protocol: ProtoHTTP1}, "protocol", "a:v/s/1cpu/c1024/n10/2lg"},
		{Relative{Requests: 5}, "requests", "a:v/s/1cpu/c1024/n5/2lg/h2"},
		{Relative{Loadgens: 1}, "loadgens", "a:v/s/1cpu/c1024/n10/1lg/h2"},
	}
	for _, c := range cases {
		if dim, _ := c.rel.Dimension(); dim != c.dim {
			t.Errorf("%+v: dimension %q, want %q", c.rel, dim, c.dim)
		}
		if got := c.rel.Base(k).ID(); got != c.want {
			t.Errorf("%+v: base %q, want %q", c.rel, got, c.want)
		}
	}
}

// A declared axis shows in the id only away from its default, after the
// older axes, by axis name; a relative baseline on it sets or drops the
// value.
func TestDeclaredAxis(t *testing.T) {
	flavour := axis.Axis{Name: "flavour", Doc: "d", Example: "[plain]", Default: "plain", Check: func(string) string { return "" }}
	colour := axis.Axis{Name: "colour", Doc: "d", Example: "[red]", Default: "", Check: func(string) string { return "" }}
	axis.Register(flavour)
	axis.Register(colour)
	t.Cleanup(func() { axis.Unregister("flavour"); axis.Unregister("colour") })
	k := Key{Target: "t", Scenario: "s", CPUs: 1, Connections: 2, Pinning: PinNone, Control: true}
	if got := k.WithAxis(flavour, "plain").ID(); got != "t/s/1cpu/c2/unpinned (control)" {
		t.Errorf("default value: id %q", got)
	}
	both := k.WithAxis(flavour, "sour").WithAxis(colour, "red")
	if got, want := both.ID(), "t/s/1cpu/c2/unpinned/colour=red/flavour=sour (control)"; got != want {
		t.Errorf("id %q, want %q", got, want)
	}
	if both.Axis(flavour) != "sour" || k.Axis(flavour) != "plain" {
		t.Errorf("Axis: %q, %q; want sour, plain", both.Axis(flavour), k.Axis(flavour))
	}
	base := Relative{Axis: "flavour", Value: "plain"}.Base(both)
	if got, want := base.ID(), "t/s/1cpu/c2/unpinned/colour=red (control)"; got != want {
		t.Errorf("baseline %q, want %q", got, want)
	}
	if dim, v := (Relative{Axis: "flavour", Value: "plain"}).Dimension(); dim != "flavour" || v != "plain" {
		t.Errorf("Dimension = %s, %s", dim, v)
	}
	if back := base.WithAxis(flavour, "sour"); back.ID() != both.ID() {
		t.Errorf("set again: %q, want %q", back.ID(), both.ID())
	}
}
