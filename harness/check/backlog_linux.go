package check

import (
	"encoding/binary"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// The sizes of the kernel's inet_diag structures (linux/inet_diag.h).
const (
	sizeofSockID  = 48 // sport, dport, src[4], dst[4], if, cookie[2]
	sizeofReqV2   = 8 + sizeofSockID
	sizeofDiagMsg = 4 + sizeofSockID + 20
)

// listenBacklog asks the kernel (sock_diag) for the TCP sockets listening
// on port in this network namespace, over IPv4 and IPv6, and returns the
// smallest backlog among them: for a listener, inet_diag_msg's wqueue is
// the backlog listen(2) was given, capped at somaxconn.
func listenBacklog(port int) (int, error) {
	least := -1
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		backlogs, err := listeners(family, port)
		if err != nil {
			return 0, err
		}
		for _, b := range backlogs {
			if least < 0 || b < least {
				least = b
			}
		}
	}
	if least < 0 {
		return 0, errNoListener
	}
	return least, nil
}

// listeners dumps the listening TCP sockets of family and returns the
// backlogs of those on port.
func listeners(family uint8, port int) ([]int, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	req := make([]byte, unix.NLMSG_HDRLEN+sizeofReqV2)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], 1) // sequence number
	body := req[unix.NLMSG_HDRLEN:]
	body[0], body[1] = family, unix.IPPROTO_TCP
	ne.PutUint32(body[4:], 1<<unix.BPF_TCP_LISTEN)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	var out []int
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, fmt.Errorf("sock_diag: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, fmt.Errorf("sock_diag: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				return nil, fmt.Errorf("sock_diag: the kernel refused the request")
			}
			if len(m.Data) < sizeofDiagMsg {
				continue
			}
			sport := binary.BigEndian.Uint16(m.Data[4:])
			if int(sport) == port {
				out = append(out, int(ne.Uint32(m.Data[4+sizeofSockID+8:]))) // wqueue, after expires and rqueue
			}
		}
	}
}
