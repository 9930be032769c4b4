// Package safefile reads the files a user hands the harness (a matrix, a
// Dockerfile, a results.json) without letting a wrong one hang or flood
// it: only regular files, of a bounded size.
package safefile

import (
	"fmt"
	"io"
	"os"
)

// Read returns the contents of the regular file at path, of at most max
// bytes. A FIFO or a device (/dev/zero) is an error, not a hang: the file
// is checked before it is opened, since opening a FIFO blocks until
// someone writes to it, and again once open.
func Read(path string, max int64) ([]byte, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d this harness reads", path, st.Size(), max)
	}
	return io.ReadAll(io.LimitReader(f, max+1))
}
