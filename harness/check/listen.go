package check

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// AllInterfaces checks that the target, which answered on 127.0.0.1:port,
// also accepts connections on ip, another address of its network (nil:
// there is none): a server bound to loopback only is unreachable from a
// load generator in another container.
func AllInterfaces(ctx context.Context, dial DialFunc, ip net.IP, port int, timeout time.Duration) Finding {
	if ip == nil {
		return pass(RulePort, "listens on 127.0.0.1:%d (its network has no other address to try)", port)
	}
	addr := net.JoinHostPort(ip.String(), strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial.orDefault()(ctx, "tcp", addr)
	if err != nil {
		return breach(RulePort, "answers on 127.0.0.1:%d but not on %s (%v): listen on all interfaces (0.0.0.0 or ::), not on loopback only", port, addr, err)
	}
	conn.Close()
	return pass(RulePort, "listens on PORT=%d on all interfaces (127.0.0.1 and %s)", port, ip)
}

// otherAddress is an IPv4 address of an interface of the calling
// thread's network that is up and not loopback, or nil.
func otherAddress() net.IP {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLinkLocalUnicast() {
				return n.IP
			}
		}
	}
	return nil
}

// Backlog checks that the listening socket on port (in this machine's
// network namespace) takes at least want connections not yet accepted,
// or as many as the kernel allows (net.core.somaxconn) when that is
// fewer.
func Backlog(port, want int) Finding {
	have, err := listenBacklog(port)
	if err != nil {
		return pass(RuleBacklog, "not checked: its listening socket could not be read: %v", err)
	}
	if most := somaxconn(); most > 0 && want > most {
		want = most
	}
	if have < want {
		return breach(RuleBacklog, "the socket listening on port %d has a backlog of %d, fewer than the %d connections opened at once", port, have, want)
	}
	return pass(RuleBacklog, "a listen backlog of %d, at least %d", have, want)
}

// somaxconn is the kernel's cap on a listen backlog, 0 when unknown.
func somaxconn() int {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

var errNoListener = fmt.Errorf("no socket listens on that port here")
