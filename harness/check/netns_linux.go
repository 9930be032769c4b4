package check

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// netns is a container's network namespace, where check opens its
// sockets: the target runs on an internal network of its own, as in a
// run, and check reaches it at 127.0.0.1 of its namespace, from where the
// target reaches nothing of this machine.
type netns struct {
	fd int
	// slots bounds the dials under way at once: each holds an OS thread
	// in the namespace while it connects.
	slots chan struct{}
}

// maxNetnsDials is how many dials may hold a thread in the namespace at
// once; a connection rule's further dials wait for a slot.
const maxNetnsDials = 128

// canEnter says why this process cannot enter another network namespace
// (it needs CAP_SYS_ADMIN), or nil: it enters its own, which changes
// nothing.
func canEnter() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open this process's network namespace: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("enter a network namespace: %w (check needs root, or CAP_SYS_ADMIN, to reach a target on a network of its own)", err)
	}
	return nil
}

// openNetns opens the network namespace of the container id whose first
// process is pid. The engine numbers pid on its own machine: the process
// must be the container's (its HOSTNAME is the id's first 12 digits),
// not a process of this machine that happens to bear the number.
func openNetns(pid int, id string) (*netns, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	env, _ := os.ReadFile(proc + "/environ")
	cgroup, _ := os.ReadFile(proc + "/cgroup")
	if len(id) < 12 || pid <= 0 || !bytes.Contains(append([]byte{0}, env...), []byte("\x00HOSTNAME="+id[:12]+"\x00")) && !bytes.Contains(cgroup, []byte(id)) {
		return nil, fmt.Errorf("process %d of this machine is not the container's first process: run check on the engine's machine, not in a container of it", pid)
	}
	fd, err := unix.Open(proc+"/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open the container's network namespace: %w", err)
	}
	return &netns{fd: fd, slots: make(chan struct{}, maxNetnsDials)}, nil
}

func (n *netns) Close() error { return unix.Close(n.fd) }

// do runs fn on an OS thread in the namespace: the sockets fn opens are
// the namespace's, wherever they are used afterwards.
func (n *netns) do(fn func()) error {
	runtime.LockOSThread()
	home, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("open this thread's network namespace: %w", err)
	}
	defer unix.Close(home)
	if err := unix.Setns(n.fd, unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("enter the container's network namespace: %w", err)
	}
	fn()
	if unix.Setns(home, unix.CLONE_NEWNET) == nil {
		runtime.UnlockOSThread()
	} // else the thread stays locked, and ends with this goroutine
	return nil
}

// dial connects to addr from inside the namespace; "localhost" is
// 127.0.0.1 there (a name would be resolved outside it, in parallel
// goroutines on other threads).
func (n *netns) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host == "localhost" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	select {
	case n.slots <- struct{}{}:
		defer func() { <-n.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var conn net.Conn
	if nerr := n.do(func() {
		var d net.Dialer
		conn, err = d.DialContext(ctx, network, addr)
	}); nerr != nil {
		return nil, nerr
	}
	return conn, err
}
