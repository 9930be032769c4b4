package check

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// newNetns makes a network namespace of its own with its loopback up, as
// a container's, and listens in it on 127.0.0.1 with hello; it returns
// the namespace and the listener's address. It skips where this process
// cannot make one (not root).
func newNetns(t *testing.T) (*netns, string) {
	t.Helper()
	if err := canEnter(); err != nil {
		t.Skip(err)
	}
	type made struct {
		ns   *netns
		addr string
		err  error
	}
	ch := make(chan made)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		var m made
		defer func() { ch <- m }()
		if m.err = unix.Unshare(unix.CLONE_NEWNET); m.err != nil {
			return
		}
		if m.err = loopbackUp(); m.err != nil {
			return
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if m.err = err; err != nil {
			return
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if m.err = err; err != nil {
			return
		}
		t.Cleanup(func() { l.Close() })
		go http.Serve(l, http.HandlerFunc(hello))
		m.ns, m.addr = &netns{fd: fd, slots: make(chan struct{}, maxNetnsDials)}, l.Addr().String()
	}()
	m := <-ch
	if m.err != nil {
		t.Skipf("make a network namespace: %v", m.err)
	}
	t.Cleanup(func() { m.ns.Close() })
	return m.ns, m.addr
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// TestNetns: check's sockets opened through a container's namespace reach
// the target there, and nothing of this machine's loopback; the backlog
// is read there.
func TestNetns(t *testing.T) {
	ns, addr := newNetns(t)
	ctx := context.Background()
	want(t, KeepAlive(ctx, PlainVia(ns.dial, addr), ask, timeout), RuleKeepAlive, true)
	_, port, _ := net.SplitHostPort(addr)
	want(t, Speaks(ctx, ns.dial, "http1", "http://localhost:"+port, "/", nil, timeout), RuleProtocol, true)

	// A listener of this machine's loopback is not there.
	host, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if conn, err := ns.dial(ctx, "tcp", host.Addr().String()); err == nil {
		conn.Close()
		t.Errorf("a dial in the namespace reached %s, a listener of this machine's loopback", host.Addr())
	}

	var f Finding
	p := host.Addr().(*net.TCPAddr).Port
	if err := ns.do(func() { f = Backlog(p, 1) }); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Seen, "not checked") {
		t.Errorf("the namespace has no listener on %d, yet: %s", p, f)
	}
}
